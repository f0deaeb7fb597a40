// SPDX-License-Identifier: GPL-2.0-only
/*
 * vu_dax: DAX over vhost-user (VHOST_USER_PROTOCOL_F_SHMEM) end to end,
 * for tests/host/vhost_user_dax.sh and bench/vhost_dax.sh. The frontend
 * (tests/vhost/vu_frontend.c + vu_shmem.c) reserves the window the backend
 * sizes, maps what BACKEND_SHMEM_MAP sends and checks every request.
 *
 *   vu_dax SOCKET SHARE test  -- BACKEND [ARGS...]
 *   vu_dax SOCKET SHARE bench ROUNDS -- BACKEND [ARGS...]
 *   vu_dax SOCKET SHARE nowin -- BACKEND [ARGS...]
 *
 * SHARE holds data (4 MiB), other (4 KiB) and the directory sub. test:
 * FUSE SETUPMAPPING of data read through the window equals the file; the
 * backend answers an error and forwards nothing for a range past the
 * window, one overlapping a mapping, a misaligned one and a directory; a
 * mapping of other arrives with other's fd; the same range again,
 * writable, is replaced (UNMAP then MAP) and a store through it reaches
 * the file; REMOVEMAPPING unmaps, and only whole mappings; a flood of 4 KiB
 * SETUPMAPPINGs stops at the backend's bound. Then the frontend alone, as
 * a hostile backend would drive it: it refuses maps past its window,
 * overlapping, with another file's fd, without an fd, of a directory, and
 * partial unmaps. One "ok:" line per check; exit 0 when all passed.
 * bench: read4k at random offsets of data, through the mapped window
 * (a load from the page cache: what a DAX guest does) and through FUSE
 * READ (a request each), ROUNDS interleaved rounds; one line with the
 * medians. nowin: a frontend that does not offer SHMEM gets no window:
 * SETUPMAPPING answers ENOSYS, as without --dax-window.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/vhost/vu_fuse.h"
#include "tests/vhost/vu_shmem.h"

#define MiB (1ull << 20)
#define DATA_SIZE (4 * MiB)
#define BOUND 1024           /* the backend's VU_SHMEM_MAX_MAPS */

static pid_t backend = -1;
static struct vu_frontend fe;
static struct vu_shmem_fe sh;
static struct vu_fuse_req rq;
static uint8_t *data;        /* the file's bytes, read from the share */
static const char *share;
static ino_t expect_ino;     /* the file the next map must carry */

static void fail(const char *what, int err)
{
	fprintf(stderr, "FAIL: %s%s%s\n", what, err ? ": " : "", err ? strerror(-err) : "");
	if (backend > 0)
		kill(backend, SIGKILL);
	exit(1);
}

static void ok(const char *what)
{
	printf("ok: %s\n", what);
	fflush(stdout);
}

static void spawn(char **argv)
{
	backend = fork();
	if (backend < 0)
		fail("fork", -errno);
	if (backend == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
}

static void connect_backend(const char *sock)
{
	int st;

	for (int i = 0; i < 250; i++) {
		if (vu_connect(&fe, sock) == 0)
			return;
		if (waitpid(backend, &st, WNOHANG) == backend) {
			backend = -1;
			fail("the backend exited before accepting", 0);
		}
		usleep(20000);
	}
	fail("connect to the backend", -ETIMEDOUT);
}

static int fd_is_expected(void *ctx, int fd)
{
	struct stat st;

	(void)ctx;
	return fstat(fd, &st) == 0 && st.st_ino == expect_ino ? 0 : -EBADF;
}

static ino_t ino_of(const char *name)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", share, name);
	if (stat(p, &st) < 0)
		fail(p, -errno);
	return st.st_ino;
}

static uint64_t lookup(const char *name)
{
	struct fuse_entry_out e;
	int r = vu_fuse_lookup(&fe, &rq, FUSE_ROOT_ID, name, &e);

	if (r < 0)
		fail(name, r);
	return e.nodeid;
}

static int setup(uint64_t node, uint64_t foff, uint64_t len, uint64_t moff, uint64_t flags)
{
	struct fuse_setupmapping_in in = { .fh = UINT64_MAX, .foffset = foff, .len = len,
					   .flags = flags, .moffset = moff };

	vu_fuse_prep(&rq, FUSE_SETUPMAPPING, node, &in, sizeof(in), NULL, 0, 0, 0, 0);
	return vu_fuse_call(&fe, &rq);
}

static int removemap(uint64_t moff, uint64_t len)
{
	struct fuse_removemapping_in in = { .count = 1 };
	struct fuse_removemapping_one one = { .moffset = moff, .len = len };

	vu_fuse_prep(&rq, FUSE_REMOVEMAPPING, FUSE_ROOT_ID, &in, sizeof(in), &one, sizeof(one),
		     0, 0, 0);
	return vu_fuse_call(&fe, &rq);
}

/* The backend answered want and the frontend saw exactly dmaps/dunmaps more. */
static void expect(const char *what, int got, int want, unsigned maps0, unsigned unmaps0,
		   unsigned dmaps, unsigned dunmaps, unsigned refused0)
{
	char line[256];

	if (got != want) {
		snprintf(line, sizeof(line), "%s: answered %d, want %d", what, got, want);
		fail(line, 0);
	}
	if (sh.maps != maps0 + dmaps || sh.unmaps != unmaps0 + dunmaps || sh.refused != refused0) {
		snprintf(line, sizeof(line), "%s: the frontend saw %u maps, %u unmaps, %u refused "
			 "(want %u, %u, %u)", what, sh.maps - maps0, sh.unmaps - unmaps0,
			 sh.refused - refused0, dmaps, dunmaps, 0);
		fail(line, 0);
	}
	ok(what);
}

#define EXPECT(what, call, want, dm, du) do { \
	unsigned m0 = sh.maps, u0 = sh.unmaps, r0 = sh.refused; \
	int got_ = (call); \
	expect(what, got_, want, m0, u0, dm, du, r0); \
} while (0)

static void read_share(void)
{
	char p[4096];
	int fd;

	snprintf(p, sizeof(p), "%s/data", share);
	fd = open(p, O_RDONLY);
	data = malloc(DATA_SIZE);
	if (fd < 0 || !data || pread(fd, data, DATA_SIZE, 0) != (ssize_t)DATA_SIZE)
		fail("read share/data", -errno);
	close(fd);
}

static void backend_tests(uint64_t nd, uint64_t no, uint64_t nsub)
{
	uint64_t W = sh.size;
	unsigned n;
	int r;

	expect_ino = ino_of("data");
	EXPECT("SETUPMAPPING data [0,2M) at 0: mapped", setup(nd, 0, 2 * MiB, 0, FUSE_SETUPMAPPING_FLAG_READ), 0, 1, 0);
	if (memcmp(sh.win, data, 2 * MiB))
		fail("the window at 0 differs from data [0,2M)", 0);
	ok("the window at 0 reads data [0,2M)");
	EXPECT("SETUPMAPPING data [2M,4M) at 4M: mapped", setup(nd, 2 * MiB, 2 * MiB, 4 * MiB, FUSE_SETUPMAPPING_FLAG_READ), 0, 1, 0);
	if (memcmp(sh.win + 4 * MiB, data + 2 * MiB, 2 * MiB))
		fail("the window at 4M differs from data [2M,4M)", 0);
	ok("the window at 4M reads data [2M,4M)");
	EXPECT("overlapping a mapping: EBUSY, nothing forwarded", setup(nd, 0, 2 * MiB, 1 * MiB, FUSE_SETUPMAPPING_FLAG_READ), -EBUSY, 0, 0);
	EXPECT("past the window's end: EINVAL, nothing forwarded", setup(nd, 0, 2 * MiB, W - 1 * MiB, FUSE_SETUPMAPPING_FLAG_READ), -EINVAL, 0, 0);
	EXPECT("at the window's end: EINVAL, nothing forwarded", setup(nd, 0, 4096, W, FUSE_SETUPMAPPING_FLAG_READ), -EINVAL, 0, 0);
	EXPECT("an offset far past the window: EINVAL", setup(nd, 0, 4096, UINT64_MAX - 4095, FUSE_SETUPMAPPING_FLAG_READ), -EINVAL, 0, 0);
	EXPECT("a misaligned window offset: EINVAL", setup(nd, 0, 4096, 8 * MiB + 512, FUSE_SETUPMAPPING_FLAG_READ), -EINVAL, 0, 0);
	EXPECT("a misaligned file offset: EINVAL", setup(nd, 100, 4096, 8 * MiB, FUSE_SETUPMAPPING_FLAG_READ), -EINVAL, 0, 0);
	EXPECT("a directory: EINVAL, no fd sent", setup(nsub, 0, 4096, 8 * MiB, FUSE_SETUPMAPPING_FLAG_READ), -EINVAL, 0, 0);
	expect_ino = ino_of("other");
	EXPECT("SETUPMAPPING other at 8M: other's fd arrives", setup(no, 0, 4096, 8 * MiB, FUSE_SETUPMAPPING_FLAG_READ), 0, 1, 0);
	if (memcmp(sh.win + 8 * MiB, "other file\n", 11))
		fail("the window at 8M does not read other", 0);
	ok("the window at 8M reads other");
	expect_ino = ino_of("data");
	EXPECT("the same range again, writable: UNMAP then MAP", setup(nd, 0, 2 * MiB, 0, FUSE_SETUPMAPPING_FLAG_READ | FUSE_SETUPMAPPING_FLAG_WRITE), 0, 1, 1);
	memcpy(sh.win + 4096, "written through the window", 26);
	msync(sh.win, 2 * MiB, MS_SYNC);
	{
		char p[4096], buf[26];
		int fd;

		snprintf(p, sizeof(p), "%s/data", share);
		fd = open(p, O_RDONLY);
		if (fd < 0 || pread(fd, buf, 26, 4096) != 26 || memcmp(buf, "written through the window", 26))
			fail("a store through the writable window did not reach the file", 0);
		close(fd);
		memcpy(data + 4096, buf, 26);
	}
	ok("a store through the writable window reached the file");
	EXPECT("REMOVEMAPPING [0,2M): unmapped", removemap(0, 2 * MiB), 0, 0, 1);
	EXPECT("REMOVEMAPPING [0,2M) again: EINVAL, nothing forwarded", removemap(0, 2 * MiB), -EINVAL, 0, 0);
	EXPECT("REMOVEMAPPING part of a mapping: EINVAL, nothing forwarded", removemap(4 * MiB, 4096), -EINVAL, 0, 0);
	if (vu_shmem_fe_live(&sh) != 2)
		fail("the frontend should hold 2 mappings", 0);
	ok("the frontend holds the 2 mappings left");

	/* The flood: 4 KiB mappings from 16M on until the backend says no. */
	r = 0;
	for (n = 0; n < 2 * BOUND && (r = setup(nd, 0, 4096, 16 * MiB + (uint64_t)n * 4096,
						FUSE_SETUPMAPPING_FLAG_READ)) == 0; n++)
		;
	if (r != -ENOSPC || vu_shmem_fe_live(&sh) != BOUND || sh.max_live > BOUND || sh.refused)
		fail("the flood did not stop at the bound with ENOSPC", r);
	printf("ok: a flood of SETUPMAPPING stops at %u live mappings (ENOSPC), the frontend "
	       "saw at most %u\n", BOUND, sh.max_live);
	for (unsigned i = 0; i < n; i++)
		if ((r = removemap(16 * MiB + (uint64_t)i * 4096, 4096)) != 0)
			fail("REMOVEMAPPING of the flood", r);
	if (vu_shmem_fe_live(&sh) != 2)
		fail("the flood's mappings are not all gone", 0);
	ok("REMOVEMAPPING took the flood's mappings back");
}

/* The frontend against a hostile backend: requests made up here. */
static void frontend_tests(void)
{
	struct vu_shmem_fe h;
	char p[4096];
	int fdd, fdo, fdir;

	memset(&h, 0, sizeof(h));
	if (vu_shmem_fe_reserve(&h, 8 * MiB) < 0)
		fail("reserve a window", -errno);
	h.fd_check = fd_is_expected;
	expect_ino = ino_of("data");
	snprintf(p, sizeof(p), "%s/data", share);
	fdd = open(p, O_RDONLY);
	snprintf(p, sizeof(p), "%s/other", share);
	fdo = open(p, O_RDONLY);
	fdir = open(share, O_RDONLY | O_DIRECTORY);
	if (fdd < 0 || fdo < 0 || fdir < 0)
		fail("open the share's files", -errno);
#define REQ(what, req, off_, len_, fds, nfds, want) do { \
	struct vu_mmap_req m_ = { .shm_offset = (off_), .len = (len_) }; \
	uint64_t st_ = vu_shmem_fe_request(&h, (req), sizeof(m_), &m_, (fds), (nfds)); \
	if (st_ != (uint64_t)(want)) { \
		fprintf(stderr, "FAIL: frontend: %s: acked %llu, want %d\n", what, \
			(unsigned long long)st_, (int)(want)); \
		exit(1); \
	} \
	ok("frontend: " what); \
} while (0)
	REQ("a valid map is done", VU_SHMEM_MAP, 0, 2 * MiB, &fdd, 1, 0);
	if (memcmp(h.win, data, 2 * MiB))
		fail("frontend: the window differs from the file", 0);
	ok("frontend: the window reads the file");
	REQ("a map past its window is refused", VU_SHMEM_MAP, 7 * MiB, 2 * MiB, &fdd, 1, EINVAL);
	REQ("a map overlapping a mapping is refused", VU_SHMEM_MAP, 1 * MiB, 2 * MiB, &fdd, 1, EBUSY);
	REQ("a map over the same range is refused", VU_SHMEM_MAP, 0, 2 * MiB, &fdd, 1, EBUSY);
	REQ("a map with another file's fd is refused", VU_SHMEM_MAP, 4 * MiB, 4096, &fdo, 1, EBADF);
	REQ("a map of a directory is refused", VU_SHMEM_MAP, 4 * MiB, 4096, &fdir, 1, EBADF);
	REQ("a map without an fd is refused", VU_SHMEM_MAP, 4 * MiB, 4096, NULL, 0, EINVAL);
	REQ("a misaligned map is refused", VU_SHMEM_MAP, 4 * MiB + 1, 4096, &fdd, 1, EINVAL);
	REQ("an unmap of part of a mapping is refused", VU_SHMEM_UNMAP, 0, 4096, NULL, 0, EINVAL);
	REQ("an unmap with an fd is refused", VU_SHMEM_UNMAP, 0, 2 * MiB, &fdd, 1, EINVAL);
	REQ("an unmap of the whole mapping is done", VU_SHMEM_UNMAP, 0, 2 * MiB, NULL, 0, 0);
	if (h.nmaps != 0)
		fail("frontend: a mapping is left", 0);
	close(fdd);
	close(fdo);
	close(fdir);
	vu_shmem_fe_close(&h);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ROUNDS interleaved rounds of 2000 read4k each way; medians in us/op. */
static void bench(uint64_t nd, int rounds)
{
	enum { OPS = 2000 };
	double *w = calloc((size_t)rounds, sizeof(double)), *f = calloc((size_t)rounds, sizeof(double));
	struct fuse_read_in in = { .size = 4096 };
	uint8_t buf[4096];
	unsigned seed = 1;
	uint64_t fh;
	volatile uint8_t sink = 0;
	int r;

	expect_ino = ino_of("data");
	if ((r = setup(nd, 0, 2 * MiB, 0, FUSE_SETUPMAPPING_FLAG_READ)) ||
	    (r = setup(nd, 2 * MiB, 2 * MiB, 2 * MiB, FUSE_SETUPMAPPING_FLAG_READ)))
		fail("map data for the bench", r);
	if ((r = vu_fuse_open(&fe, &rq, FUSE_OPEN, nd, O_RDONLY, &fh)) < 0)
		fail("open data", r);
	in.fh = fh;
	for (int k = 0; k < rounds; k++) {
		double t0 = now_us();

		for (int i = 0; i < OPS; i++) {
			uint64_t off = (uint64_t)(rand_r(&seed) % (DATA_SIZE / 4096)) * 4096;

			memcpy(buf, sh.win + off, 4096);
			sink ^= buf[0];
		}
		w[k] = (now_us() - t0) / OPS;
		t0 = now_us();
		for (int i = 0; i < OPS; i++) {
			in.offset = (uint64_t)(rand_r(&seed) % (DATA_SIZE / 4096)) * 4096;
			vu_fuse_prep(&rq, FUSE_READ, nd, &in, sizeof(in), NULL, 0, 0, 0, 4096);
			if ((r = vu_fuse_call(&fe, &rq)) != 4096)
				fail("READ", r < 0 ? r : -EIO);
			sink ^= rq.page[0];
		}
		f[k] = (now_us() - t0) / OPS;
	}
	qsort(w, (size_t)rounds, sizeof(double), cmp_double);
	qsort(f, (size_t)rounds, sizeof(double), cmp_double);
	printf("read4k window_us=%.3f read_us=%.3f rounds=%d ops=%d\n", w[rounds / 2],
	       f[rounds / 2], rounds, OPS);
	(void)sink;
	free(w);
	free(f);
}

int main(int argc, char **argv)
{
	int i, st, r, rounds = 0;
	struct fuse_init_out io;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		;
	if (argc < 5 || i + 1 >= argc ||
	    (strcmp(argv[3], "test") && strcmp(argv[3], "bench") && strcmp(argv[3], "nowin"))) {
		fprintf(stderr, "usage: vu_dax SOCKET SHARE test|bench ROUNDS|nowin -- BACKEND [ARGS...]\n");
		return 2;
	}
	share = argv[2];
	if (!strcmp(argv[3], "bench"))
		rounds = atoi(argv[4]) > 0 ? atoi(argv[4]) : 5;
	read_share();
	spawn(argv + i + 1);
	connect_backend(argv[1]);
	if (!strcmp(argv[3], "nowin")) {
		if ((r = vu_setup(&fe, 16 * MiB, 0)) || (r = vu_fuse_req_alloc(&fe, &rq, 4096)) ||
		    (r = vu_fuse_init(&fe, &rq, VU_FUSE_LINUX_FLAGS, &io)))
			fail("set-up without SHMEM", r);
		r = setup(lookup("data"), 0, 2 * MiB, 0, FUSE_SETUPMAPPING_FLAG_READ);
		if (r != -ENOSYS)
			fail("SETUPMAPPING without SHMEM did not answer ENOSYS", r);
		ok("a frontend without SHMEM: SETUPMAPPING answers ENOSYS");
		vu_close(&fe);
		waitpid(backend, &st, 0);
		return 0;
	}
	vu_shmem_fe_attach(&fe, &sh);
	sh.fd_check = fd_is_expected;
	if ((r = vu_setup(&fe, 16 * MiB, 0)) || (r = vu_fuse_req_alloc(&fe, &rq, 4096)) ||
	    (r = vu_fuse_init(&fe, &rq, VU_FUSE_LINUX_FLAGS, &io)))
		fail("set-up with SHMEM", r);
	printf("ok: GET_SHMEM_CONFIG: a %llu MiB window, the backend channel served\n",
	       (unsigned long long)(sh.size / MiB));
	uint64_t nd = lookup("data"), no = lookup("other"), nsub = lookup("sub");
	if (rounds)
		bench(nd, rounds);
	else
		backend_tests(nd, no, nsub);
	vu_close(&fe);
	vu_shmem_fe_close(&sh);
	for (i = 0; i < 500 && waitpid(backend, &st, WNOHANG) != backend; i++)
		usleep(20000);
	if (i == 500)
		fail("the backend did not exit when the frontend left", 0);
	backend = -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail("the backend's exit status is not 0", 0);
	ok("the backend exited 0 when the frontend left");
	if (!rounds)
		frontend_tests();
	return 0;
}
