// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsbattery guest tests, part two: big directories, sparse and big files,
 * O_TMPFILE, fallocate, escapes from the share and locks held by the host.
 */
#include "fsbattery.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * Reads the whole directory from fd's current offset with getdents64:
 * records each f%05d entry (below limit) in seen[] (and its order and
 * d_off, when asked), counts "." and "..". Returns the number of entries
 * or -1.
 */
static long scan_dir(int fd, unsigned char *seen, int *order, int64_t *offs, int *dots,
		     int limit)
{
	static char buf[65536];
	long total = 0, n;

	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long o = 0; o < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + o);
			int i;
			char tail;

			o += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) {
				(*dots)++;
				continue;
			}
			if (sscanf(d->d_name, "f%5d%c", &i, &tail) != 1 || i < 0 || i >= limit ||
			    strlen(d->d_name) != 6) {
				fsb_fail("unexpected entry '%s'", d->d_name);
				return -1;
			}
			if (seen[i]++) {
				fsb_fail("entry %s listed twice", d->d_name);
				return -1;
			}
			if (d->d_type != DT_REG) {
				fsb_fail("%s has d_type %u, want DT_REG", d->d_name, d->d_type);
				return -1;
			}
			if (order && total < FSB_MANY + 2) {
				order[total] = i;
				offs[total] = d->d_off;
			}
			total++;
		}
	}
	if (n < 0) {
		fsb_fail("getdents64: %s", fsb_errname(errno));
		return -1;
	}
	return total;
}

/* The first f%05d entry one getdents64 call returns from fd's offset. */
static long first_entry(int fd, int *first)
{
	static char buf[4096];
	long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));

	for (long o = 0; o < n;) {
		struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + o);
		o += d->d_reclen;
		if (sscanf(d->d_name, "f%5d", first) == 1)
			return n;
	}
	return n;
}

/*
 * many/ holds FSB_MANY files the host made (fsbattery mkmany): each guest
 * request costs tens of ms in the nested test host, so 10,000 creates from
 * the guest alone would take minutes. The guest creates FSB_MADE files of
 * its own in made/, lists both with getdents64 and checks names, types,
 * and that d_off cookies resume and rewind where they should.
 */
static int t_readdir(const struct fsb *b)
{
	static unsigned char seen[FSB_MANY];
	static int order[FSB_MANY + 2];
	static int64_t offs[FSB_MANY + 2];
	double t0 = fsb_now(), t1, t2;
	int fd, dots = 0;
	long n;

	WANT_OK(mkdir(fsb_path(b, "made"), 0755));
	for (int i = 0; i < FSB_MADE; i++) {
		/* mknod: one request, no OPEN/RELEASE. */
		const char *p = fsb_path(b, "made/f%05d", i);
		WANT(mknod(p, S_IFREG | 0644, 0) == 0, "mknod %s: %s", p, fsb_errname(errno));
	}
	t1 = fsb_now();
	WANT_OK(fd = open(fsb_path(b, "made"), O_RDONLY | O_DIRECTORY));
	memset(seen, 0, sizeof(seen));
	n = scan_dir(fd, seen, NULL, NULL, &dots, FSB_MADE);
	close(fd);
	if (n < 0)
		return -1;
	WANT(n == FSB_MADE && dots == 2, "made/ lists %ld entries and %d dots, want %d and 2", n,
	     dots, FSB_MADE);

	t2 = fsb_now();
	WANT_OK(fd = open(fsb_path(b, "many"), O_RDONLY | O_DIRECTORY));
	memset(seen, 0, sizeof(seen));
	dots = 0;
	n = scan_dir(fd, seen, order, offs, &dots, FSB_MANY);
	if (n < 0)
		return -1;
	WANT(n == FSB_MANY && dots == 2, "many/ lists %ld entries and %d dots, want %d and 2", n,
	     dots, FSB_MANY);
	for (int i = 0; i < FSB_MANY; i++)
		WANT(seen[i] == 1, "many/f%05d missing from the listing", i);
	double t3 = fsb_now();

	/* Resume from the middle entry's cookie: the next one comes next. */
	WANT_OK(lseek(fd, offs[FSB_MANY / 2], SEEK_SET));
	int first = -1;
	n = first_entry(fd, &first);
	WANT(n > 0 && first == order[FSB_MANY / 2 + 1],
	     "resuming at f%05d's d_off gave f%05d, want f%05d", order[FSB_MANY / 2], first,
	     order[FSB_MANY / 2 + 1]);
	/* Rewind: the listing starts over. */
	WANT_OK(lseek(fd, 0, SEEK_SET));
	n = first_entry(fd, &first);
	WANT(n > 0 && first == order[0], "after rewinding the first entry is f%05d, want f%05d",
	     first, order[0]);
	close(fd);
	fsb_note("%d mknod %.1fs (%.0f ms each); %d entries listed in %.1fs", FSB_MADE, t1 - t0,
		 (t1 - t0) * 1000 / FSB_MADE, FSB_MANY, t3 - t2);
	return 0;
}

static int t_sparse(const struct fsb *b)
{
	const off_t mib = 1 << 20;
	char blk[4096], buf[4096];
	struct stat st;
	int fd;

	memset(blk, 'D', sizeof(blk));
	WANT_OK(fd = open(fsb_path(b, "keep/sparse"), O_RDWR | O_CREAT | O_TRUNC, 0644));
	WANT(pwrite(fd, blk, sizeof(blk), 0) == sizeof(blk), "pwrite 0: %s", fsb_errname(errno));
	WANT(pwrite(fd, blk, sizeof(blk), mib) == sizeof(blk), "pwrite 1M: %s", fsb_errname(errno));
	WANT_OK(ftruncate(fd, 2 * mib));
	WANT_OK(fsync(fd));
	WANT(pread(fd, buf, sizeof(buf), 8192) == sizeof(buf), "read in the hole");
	for (size_t i = 0; i < sizeof(buf); i++)
		WANT(buf[i] == 0, "the hole reads %d at %zu", buf[i], i);
	WANT_OK(fstat(fd, &st));
	WANT(st.st_size == 2 * mib, "size %lld", (long long)st.st_size);
	WANT(st.st_blocks < 2 * mib / 512, "st_blocks %lld: the file is not sparse",
	     (long long)st.st_blocks);
	if (b->kind == FSB_9P) {
		/* v9fs uses generic_file_llseek: the whole file is data. */
		WANT(lseek(fd, 0, SEEK_DATA) == 0, "SEEK_DATA(0)");
		WANT(lseek(fd, 4096, SEEK_HOLE) == 2 * mib, "SEEK_HOLE(4096) is not EOF");
		WANT_ERR(lseek(fd, 2 * mib, SEEK_DATA), ENXIO);
		close(fd);
		fsb_note("9p client: SEEK_HOLE = EOF (generic_file_llseek)");
		return 0;
	}
	off_t r;
	WANT((r = lseek(fd, 0, SEEK_DATA)) == 0, "SEEK_DATA(0) = %lld", (long long)r);
	WANT((r = lseek(fd, 0, SEEK_HOLE)) == 4096, "SEEK_HOLE(0) = %lld", (long long)r);
	WANT((r = lseek(fd, 4096, SEEK_DATA)) == mib, "SEEK_DATA(4096) = %lld", (long long)r);
	WANT((r = lseek(fd, mib, SEEK_HOLE)) == mib + 4096, "SEEK_HOLE(1M) = %lld",
	     (long long)r);
	WANT_ERR(lseek(fd, mib + 4096, SEEK_DATA), ENXIO);
	WANT((r = lseek(fd, mib + 8192, SEEK_HOLE)) == mib + 8192, "SEEK_HOLE(1M+8K) = %lld",
	     (long long)r);
	close(fd);
	return 0;
}

static int t_tmpfile(const struct fsb *b)
{
	char proc[64], buf[64];
	struct stat st;
	int fd;

	fd = open(fsb_path(b, "keep"), O_TMPFILE | O_RDWR, 0640);
	if (b->kind == FSB_9P) {
		/* v9fs has no ->tmpfile in 6.1. */
		WANT(fd < 0 && errno == EOPNOTSUPP, "O_TMPFILE gave %s, want EOPNOTSUPP",
		     fd < 0 ? fsb_errname(errno) : "a file");
		fsb_note("9p client: O_TMPFILE -> EOPNOTSUPP");
		return 0;
	}
	WANT(fd >= 0, "O_TMPFILE: %s", fsb_errname(errno));
	WANT(write(fd, "tmpfile data\n", 13) == 13, "write: %s", fsb_errname(errno));
	WANT_OK(fstat(fd, &st));
	WANT(st.st_nlink == 0, "an O_TMPFILE file has nlink %lu", (unsigned long)st.st_nlink);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	WANT_OK(linkat(AT_FDCWD, proc, AT_FDCWD, fsb_path(b, "keep/tmpfile"), AT_SYMLINK_FOLLOW));
	WANT_OK(fstat(fd, &st));
	WANT(st.st_nlink == 1, "nlink %lu after linkat", (unsigned long)st.st_nlink);
	close(fd);
	WANT(fsb_read_file(fsb_path(b, "keep/tmpfile"), buf, sizeof(buf)) == 13 &&
		     !strcmp(buf, "tmpfile data\n"),
	     "the linked tmpfile reads '%s'", buf);
	return 0;
}

static int t_fallocate(const struct fsb *b)
{
	const off_t mib = 1 << 20;
	char buf[4096];
	struct stat st;
	int fd;

	WANT_OK(fd = open(fsb_path(b, "keep/falloc"), O_RDWR | O_CREAT | O_TRUNC, 0644));
	if (b->kind == FSB_9P) {
		/* v9fs has no ->fallocate. */
		WANT_ERR(fallocate(fd, 0, 0, mib), EOPNOTSUPP);
		close(fd);
		fsb_note("9p client: fallocate -> EOPNOTSUPP");
		return 0;
	}
	if (access(fsb_path(b, "host-no-fallocate"), F_OK) == 0) {
		/* The host's filesystem has none (ext2): passed on as is. */
		WANT_ERR(fallocate(fd, 0, 0, mib), EOPNOTSUPP);
		close(fd);
		fsb_note("the host directory has no fallocate: EOPNOTSUPP passed on");
		return 0;
	}
	WANT_OK(fallocate(fd, 0, 0, mib));
	WANT_OK(fstat(fd, &st));
	WANT(st.st_size == mib && st.st_blocks >= mib / 512, "size %lld blocks %lld",
	     (long long)st.st_size, (long long)st.st_blocks);
	WANT_OK(fallocate(fd, FALLOC_FL_KEEP_SIZE, mib, mib));
	WANT_OK(fstat(fd, &st));
	WANT(st.st_size == mib && st.st_blocks >= 2 * mib / 512,
	     "KEEP_SIZE: size %lld blocks %lld", (long long)st.st_size, (long long)st.st_blocks);
	memset(buf, 'p', sizeof(buf));
	WANT(pwrite(fd, buf, sizeof(buf), 8192) == sizeof(buf), "pwrite: %s", fsb_errname(errno));
	WANT_OK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8192, 4096));
	WANT(pread(fd, buf, sizeof(buf), 8192) == sizeof(buf) && buf[0] == 0 && buf[4095] == 0,
	     "a punched hole reads '%c'", buf[0]);
	close(fd);
	return 0;
}

static int t_bigfile(const struct fsb *b)
{
	const char *p = fsb_path(b, "keep/big.bin");
	uint64_t gen = FSB_GEN_SEED, want = FSB_SUM_SEED, got = FSB_SUM_SEED;
	char sum[32];
	unsigned char *buf;
	double t0, t1, t2;
	size_t done;
	int fd;

	WANT(posix_memalign((void **)&buf, 4096, FSB_BIG_CHUNK) == 0, "no memory");
	t0 = fsb_now();
	WANT_OK(fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	for (done = 0; done < FSB_BIG_SIZE; done += FSB_BIG_CHUNK) {
		fsb_gen(&gen, buf, FSB_BIG_CHUNK);
		want = fsb_sum(want, buf, FSB_BIG_CHUNK);
		for (size_t o = 0; o < FSB_BIG_CHUNK;) {
			ssize_t w = write(fd, buf + o, FSB_BIG_CHUNK - o);
			WANT(w > 0, "write at %zu: %s", done + o, fsb_errname(errno));
			o += (size_t)w;
		}
	}
	WANT_OK(fsync(fd));
	close(fd);
	t1 = fsb_now();
	/* O_DIRECT so the read-back comes from the host, not the guest's page
	 * cache (this kernel has no drop_caches). */
	fd = open(p, O_RDONLY | O_DIRECT);
	if (fd < 0 && errno == EINVAL)
		fd = open(p, O_RDONLY);
	WANT(fd >= 0, "open for reading: %s", fsb_errname(errno));
	for (done = 0;;) {
		ssize_t n = read(fd, buf, FSB_BIG_CHUNK);
		WANT(n >= 0, "read at %zu: %s", done, fsb_errname(errno));
		if (n == 0)
			break;
		got = fsb_sum(got, buf, (size_t)n);
		done += (size_t)n;
	}
	close(fd);
	t2 = fsb_now();
	free(buf);
	WANT(done == FSB_BIG_SIZE, "read back %zu bytes, want %u", done, FSB_BIG_SIZE);
	WANT(got == want, "checksum %016llx, want %016llx", (unsigned long long)got,
	     (unsigned long long)want);
	snprintf(sum, sizeof(sum), "%016llx\n", (unsigned long long)got);
	WANT_OK(fsb_write_file(fsb_path(b, "keep/big.sum"), sum, strlen(sum), 0644));
	fsb_note("64 MiB: write %.0f MiB/s, read %.0f MiB/s, sum %.16s", 64 / (t1 - t0),
		 64 / (t2 - t1), sum);
	return 0;
}

/* Opens path; if that works, its content must not be the host's secret. */
static int no_secret(const char *path)
{
	char buf[256];
	ssize_t n = fsb_read_file(path, buf, sizeof(buf));

	if (n >= 0 && strstr(buf, FSB_SECRET_PREFIX)) {
		fsb_fail("%s reads the host's secret: '%s'", path, buf);
		return -1;
	}
	return 0;
}

static int t_escape(const struct fsb *b)
{
	char hostpath[4096];
	struct stat a, r;
	const char *paths[8];
	int n = 0, fd;

	WANT(fsb_read_file(fsb_path(b, "host-path"), hostpath, sizeof(hostpath)) > 0,
	     "no host-path file from the host's set-up");
	hostpath[strcspn(hostpath, "\n")] = 0;
	/* ".." from the share root is the guest's parent directory. */
	WANT_OK(stat(fsb_path(b, ".."), &a));
	char parent[4200];
	snprintf(parent, sizeof(parent), "%s", b->dir);
	*strrchr(parent, '/') = 0;
	WANT_OK(stat(parent[0] ? parent : "/", &r));
	WANT(a.st_dev == r.st_dev && a.st_ino == r.st_ino, "DIR/.. is not the guest's parent");
	/* Symlinks the host planted resolve in the guest's namespace: /etc is
	 * the guest's /etc. */
	WANT_OK(stat(fsb_path(b, "esc-etc"), &a));
	WANT_OK(stat("/etc", &r));
	WANT(a.st_dev == r.st_dev && a.st_ino == r.st_ino, "esc-etc is not the guest's /etc");
	paths[n++] = fsb_path(b, "../secret.txt");
	paths[n++] = fsb_path(b, "keep/../../secret.txt");
	paths[n++] = fsb_path(b, "esc-up");
	paths[n++] = fsb_path(b, "esc-up2");
	paths[n++] = fsb_path(b, "esc-abs");
	for (int i = 0; i < n; i++)
		if (no_secret(paths[i]))
			return -1;
	if (no_secret(fsb_path(b, "%s/../secret.txt", hostpath)) ||
	    no_secret(fsb_path(b, "esc-root%s/../secret.txt", hostpath)))
		return -1;
	/* openat2 confined to the share says so instead of leaving it. */
	WANT_OK(fd = open(b->dir, O_RDONLY | O_DIRECTORY));
	struct { uint64_t flags, mode, resolve; } how = { O_RDONLY, 0, 0x08 /* BENEATH */ };
	long r2 = syscall(SYS_openat2, fd, "esc-up", &how, sizeof(how));
	WANT(r2 < 0 && errno == EXDEV, "openat2(esc-up, RESOLVE_BENEATH) gave %s",
	     r2 < 0 ? fsb_errname(errno) : "a file");
	close(fd);
	/* Writes through the same links land in the guest, never the host:
	 * the host checks its secret afterwards. */
	fd = open(fsb_path(b, "esc-up"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		WANT(write(fd, "written by the guest\n", 21) == 21, "write");
		close(fd);
	}
	WANT_OK(symlink("../secret.txt", fsb_path(b, "keep/guest-esc")));
	if (no_secret(fsb_path(b, "keep/guest-esc")))
		return -1;
	return 0;
}

/* Waits up to secs for path to exist. */
static bool wait_for(const char *path, double secs)
{
	double end = fsb_now() + secs;
	struct stat st;

	while (stat(path, &st) < 0) {
		if (fsb_now() > end)
			return false;
		usleep(50000);
	}
	return true;
}

static int t_locks(const struct fsb *b)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int pfd, ffd;
	double t0, wp, wf = 0;

	WANT(wait_for(fsb_path(b, "lock-ready"), 30), "the host's lock holder never got ready");
	WANT_OK(pfd = open(fsb_path(b, "lock-posix"), O_RDWR));
	WANT_OK(ffd = open(fsb_path(b, "lock-flock"), O_RDWR));

	/* The host holds a POSIX write lock on lock-posix: the server must
	 * refuse ours, and GETLK must report it. */
	WANT_ERR2(fcntl(pfd, F_SETLK, &fl), EAGAIN, EACCES);
	fl.l_type = F_RDLCK;
	WANT_ERR2(fcntl(pfd, F_SETLK, &fl), EAGAIN, EACCES);
	fl.l_type = F_WRLCK;
	WANT_OK(fcntl(pfd, F_GETLK, &fl));
	WANT(fl.l_type == F_WRLCK, "F_GETLK reports type %d, want F_WRLCK", fl.l_type);

	/* The host holds a flock on lock-flock. */
	if (b->kind == FSB_VIRTIOFS) {
		WANT_ERR(flock(ffd, LOCK_EX | LOCK_NB), EWOULDBLOCK);
		WANT_ERR(flock(ffd, LOCK_SH | LOCK_NB), EWOULDBLOCK);
		/* flock and POSIX locks are independent on Linux. */
		WANT_OK(flock(pfd, LOCK_EX | LOCK_NB));
		WANT_OK(flock(pfd, LOCK_UN));
	} else {
		/* Linux's 9p client turns flock into a POSIX lock on the whole
		 * file (v9fs_file_flock_dotl), so the server never sees a
		 * flock: the host's flock does not stop the guest, the host's
		 * POSIX lock does. */
		WANT_OK(flock(ffd, LOCK_EX | LOCK_NB));
		WANT_OK(flock(ffd, LOCK_UN));
		WANT_ERR(flock(pfd, LOCK_EX | LOCK_NB), EWOULDBLOCK);
		fsb_note("9p client: flock is a POSIX lock on the server");
	}

	/* Blocking: the host lets go FSB_HOLD_DELAY s after our marker. */
	WANT_OK(fsb_write_file(fsb_path(b, "release-posix"), "", 0, 0644));
	t0 = fsb_now();
	fl.l_type = F_WRLCK;
	fl.l_start = 0;
	fl.l_len = 0;
	WANT_OK(fcntl(pfd, F_SETLKW, &fl));
	wp = fsb_now() - t0;
	WANT(wp > FSB_HOLD_DELAY - 0.5, "F_SETLKW returned after %.2fs, before the host let go",
	     wp);
	/* Woken by the release, not by some later event. */
	WANT(wp < FSB_HOLD_DELAY + 15, "F_SETLKW took %.1fs to notice the release", wp);
	fl.l_type = F_UNLCK;
	WANT_OK(fcntl(pfd, F_SETLK, &fl));
	WANT_OK(fsb_write_file(fsb_path(b, "release-flock"), "", 0, 0644));
	if (b->kind == FSB_VIRTIOFS) {
		t0 = fsb_now();
		WANT_OK(flock(ffd, LOCK_EX));
		wf = fsb_now() - t0;
		WANT(wf > FSB_HOLD_DELAY - 0.5, "flock(LOCK_EX) returned after %.2fs", wf);
		WANT(wf < FSB_HOLD_DELAY + 15, "flock(LOCK_EX) took %.1fs to notice the release",
		     wf);
		WANT_OK(flock(ffd, LOCK_UN));
	}
	close(pfd);
	close(ffd);
	fsb_note("F_SETLKW waited %.1fs", wp);
	if (b->kind == FSB_VIRTIOFS)
		fsb_note("flock waited %.1fs", wf);
	return 0;
}

const struct fsb_case fsb_more_cases[] = {
	{ "readdir", t_readdir }, { "sparse", t_sparse },   { "tmpfile", t_tmpfile },
	{ "fallocate", t_fallocate }, { "bigfile", t_bigfile }, { "escape", t_escape },
	{ "locks", t_locks },     { NULL, NULL },
};
