// SPDX-License-Identifier: GPL-2.0-only
/*
 * vu_kata_client: starts a vhost-user-fs backend the way a Kata runtime
 * does and drives it as the guest would (tests/vhost/vu_frontend + vu_fuse),
 * for tests/host/vhost_user_kata.sh.
 *
 *   vu_kata_client [--fd3|--systemd] [--swap-call N] [--full-call]
 *                  SOCKET READ_NAME READ_TEXT NEW_NAME NEW_TEXT -- BACKEND [ARGS...]
 *
 * --fd3: the client creates the listening socket at SOCKET and hands it to
 * the backend as fd 3 (Kata's Go runtime, virtiofsd --fd=3); without it the
 * backend creates SOCKET itself (runtime-rs, --socket-path). --systemd: as
 * --fd3, and the child says so as systemd's socket activation does
 * (LISTEN_FDS=1, LISTEN_PID=its own pid) before it execs. Then: FUSE_INIT,
 * LOOKUP of READ_NAME, OPEN + READ compared with READ_TEXT, CREATE of
 * NEW_NAME + WRITE of NEW_TEXT + RELEASE, disconnect, and the backend must
 * exit with status 0 within 5 seconds. One "ok:" line per step; exit 0 when
 * all passed.
 * --swap-call N: before disconnecting, N rounds of 16 GETATTRs in flight
 * (QD16) while the request ring's call eventfd is replaced, as QEMU does
 * when a guest masks and unmasks the queue's vector; every request must
 * complete. --full-call: the call eventfds are blocking ones (crosvm's),
 * without EVENT_IDX so that every batch signals; the ring's is driven to its maximum count and not read while two rounds
 * of 16 complete (the interrupt is pending already: the backend must not
 * sleep on it), then read, and the ring goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/vhost/vu_fuse.h"

static pid_t backend = -1;

static void fail(const char *what, int err)
{
	fprintf(stderr, "FAIL: %s%s%s\n", what, err ? ": " : "", err ? strerror(-err) : "");
	if (backend > 0)
		kill(backend, SIGKILL);
	exit(1);
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0 || strlen(path) >= sizeof(sa.sun_path))
		fail("socket", -errno);
	strcpy(sa.sun_path, path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0)
		fail("bind/listen", -errno);
	return fd;
}

/* Starts ARGV; with LFD >= 0 that socket becomes the child's fd 3. */
static void spawn(char **argv, int lfd, bool systemd)
{
	backend = fork();
	if (backend < 0)
		fail("fork", -errno);
	if (backend == 0) {
		char pid[24];

		if (lfd >= 0 && (dup2(lfd, 3) < 0 || (lfd != 3 && close(lfd) < 0)))
			_exit(126);
		/* sd_listen_fds(3): the fds from 3 on, for this pid only. */
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		if (systemd && (setenv("LISTEN_FDS", "1", 1) || setenv("LISTEN_PID", pid, 1) ||
				setenv("LISTEN_FDNAMES", "vhost-user-fs", 1)))
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "vu_kata_client: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The backend's exit status, -1 if it is still running after SECONDS. */
static int reap_backend(double seconds, int *status)
{
	for (double end = now_s() + seconds; now_s() < end; usleep(20000))
		if (waitpid(backend, status, WNOHANG) == backend)
			return 0;
	return -1;
}

static void connect_backend(struct vu_frontend *fe, const char *sock)
{
	int err = -ENOENT, status;

	/* Without --fd3 the socket appears when the backend is ready. */
	for (int i = 0; i < 250; i++) {
		if (!(err = vu_connect(fe, sock)))
			return;
		if (waitpid(backend, &status, WNOHANG) == backend) {
			backend = -1;
			fprintf(stderr, "FAIL: the backend exited before accepting (status %d%s)\n",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				WIFEXITED(status) ? "" : ", killed by a signal");
			exit(1);
		}
		usleep(20000);
	}
	fail("connect to the backend's socket", err);
}

static void read_file(struct vu_frontend *fe, struct vu_fuse_req *r, const char *name, const char *text)
{
	struct fuse_entry_out e;
	struct fuse_read_in rd = { .size = 4096 };
	int err, n;

	if ((err = vu_fuse_lookup(fe, r, FUSE_ROOT_ID, name, &e)))
		fail("LOOKUP of the file the test created", err);
	if (e.attr.size != strlen(text))
		fail("LOOKUP: the size differs from the host file's", 0);
	printf("ok: LOOKUP %s: nodeid %llu, size %llu\n", name, (unsigned long long)e.nodeid,
	       (unsigned long long)e.attr.size);
	if ((err = vu_fuse_open(fe, r, FUSE_OPEN, e.nodeid, O_RDONLY, &rd.fh)))
		fail("OPEN", err);
	vu_fuse_prep(r, FUSE_READ, e.nodeid, &rd, sizeof(rd), NULL, 0, 0, 0, rd.size);
	if ((n = vu_fuse_call(fe, r)) < 0)
		fail("READ", n);
	if ((size_t)n != strlen(text) || memcmp(r->page, text, (size_t)n))
		fail("READ returned other bytes than the host file holds", 0);
	if ((err = vu_fuse_release(fe, r, FUSE_RELEASE, e.nodeid, rd.fh)))
		fail("RELEASE", err);
	printf("ok: OPEN + READ return the host file's %d bytes\n", n);
}

static void create_file(struct vu_frontend *fe, struct vu_fuse_req *r, const char *name, const char *text)
{
	struct fuse_create_in c = { .flags = O_WRONLY | O_CREAT | O_EXCL, .mode = S_IFREG | 0644, .umask = 022 };
	struct fuse_entry_out e;
	struct fuse_open_out o;
	size_t len = strlen(text);
	int n;

	vu_fuse_prep(r, FUSE_CREATE, FUSE_ROOT_ID, &c, sizeof(c), name, strlen(name) + 1,
		     sizeof(e) + sizeof(o), 0, 0);
	if ((n = vu_fuse_call(fe, r)) < 0)
		fail("CREATE", n);
	if ((size_t)n < sizeof(e) + sizeof(o))
		fail("CREATE: short reply", 0);
	memcpy(&e, r->reply, sizeof(e));
	memcpy(&o, r->reply + sizeof(e), sizeof(o));

	struct fuse_write_in w = { .fh = o.fh, .size = (uint32_t)len };
	struct fuse_write_out wo;
	memcpy(r->page, text, len);
	vu_fuse_prep(r, FUSE_WRITE, e.nodeid, &w, sizeof(w), NULL, 0, sizeof(wo), len, 0);
	if ((n = vu_fuse_call(fe, r)) < 0)
		fail("WRITE", n);
	memcpy(&wo, r->reply, sizeof(wo));
	if ((size_t)n < sizeof(wo) || wo.size != len)
		fail("WRITE: short write", 0);
	if ((n = vu_fuse_release(fe, r, FUSE_RELEASE, e.nodeid, o.fh)))
		fail("RELEASE", n);
	printf("ok: CREATE + WRITE + RELEASE of %s (%zu bytes)\n", name, len);
}

#define QD 16
#define EFD_FULL 0xfffffffffffffffeull   /* the most an eventfd counter holds */

static struct vu_fuse_req batch[QD];

static void submit_batch(struct vu_frontend *fe)
{
	struct fuse_getattr_in g = { 0 };
	int err;

	for (int i = 0; i < QD; i++) {
		vu_fuse_prep(&batch[i], FUSE_GETATTR, FUSE_ROOT_ID, &g, sizeof(g), NULL, 0,
			     sizeof(struct fuse_attr_out), 0, 0);
		if ((err = vu_fuse_submit(fe, VU_REQUEST, &batch[i])))
			fail("GETATTR submit", err);
	}
	if ((err = vu_kick(fe, VU_REQUEST)))
		fail("kick", err);
}

/* All QD back within 10 s: through the call eventfd, or with RING_ONLY by
 * looking at the used ring alone (its call eventfd left as it is). */
static void reap_batch(struct vu_frontend *fe, bool ring_only, const char *what)
{
	struct vu_done d[QD];
	double end = now_s() + 10;

	for (int got = 0; got < QD;) {
		int n = ring_only ? vu_reap_ring(fe, VU_REQUEST, d, QD) :
				    vu_reap(fe, VU_REQUEST, d, QD, 100);

		if (n < 0)
			fail(what, n);
		for (int i = 0; i < n; i++)
			if (vu_fuse_result(d[i].cookie, d[i].len) < 0)
				fail(what, vu_fuse_result(d[i].cookie, d[i].len));
		got += n;
		if (!n && now_s() > end)
			fail(what, -ETIMEDOUT);
		if (!n && ring_only)
			usleep(1000);
	}
}

static void alloc_batch(struct vu_frontend *fe)
{
	int err;

	for (int i = 0; i < QD; i++)
		if ((err = vu_fuse_req_alloc(fe, &batch[i], 4096)))
			fail("guest memory", err);
}

static void swap_call(struct vu_frontend *fe, unsigned rounds, unsigned flags)
{
	int nb = flags & VU_BLOCKING_CALL ? 0 : EFD_NONBLOCK, err;

	for (unsigned i = 0; i < rounds; i++) {
		submit_batch(fe);
		if ((err = vu_set_call(fe, VU_REQUEST, eventfd(0, EFD_CLOEXEC | nb))))
			fail("SET_VRING_CALL", err);
		reap_batch(fe, false, "GETATTR while the call eventfd was swapped");
	}
	printf("ok: %u swaps of the call eventfd with %d requests in flight each\n", rounds, QD);
}

static void full_call(struct vu_frontend *fe)
{
	int fd = eventfd(0, EFD_CLOEXEC), err;
	eventfd_t v = 0;

	if (fd < 0 || eventfd_write(fd, EFD_FULL) < 0)
		fail("eventfd", -errno);
	if ((err = vu_set_call(fe, VU_REQUEST, fd)))
		fail("SET_VRING_CALL", err);
	for (int round = 0; round < 2; round++) {
		submit_batch(fe);
		reap_batch(fe, true, "GETATTR with the call eventfd's counter full");
	}
	if (eventfd_read(fd, &v) < 0 || v != EFD_FULL)
		fail("the full call eventfd was not left as it was", 0);
	submit_batch(fe);
	reap_batch(fe, false, "GETATTR once the full call eventfd was read");
	printf("ok: a blocking call eventfd at its maximum count held no request up\n");
}

int main(int argc, char **argv)
{
	struct vu_frontend fe;
	struct vu_fuse_req r;
	struct fuse_init_out init;
	int a = 1, lfd = -1, err, status;
	unsigned swaps = 0, flags = 0;
	bool fd3 = false, full = false, systemd = false;

	for (; a < argc && !strncmp(argv[a], "--", 2) && argv[a][2]; a++) {
		if (!strcmp(argv[a], "--fd3"))
			fd3 = true;
		else if (!strcmp(argv[a], "--systemd"))
			fd3 = systemd = true;
		else if (!strcmp(argv[a], "--swap-call") && a + 1 < argc)
			swaps = (unsigned)atoi(argv[++a]);
		else if (!strcmp(argv[a], "--full-call"))
			full = true, flags |= VU_BLOCKING_CALL | VU_NO_EVENT_IDX;
		else
			break;
	}
	if (argc < a + 7 || strcmp(argv[a + 5], "--")) {
		fprintf(stderr, "usage: vu_kata_client [--fd3|--systemd] [--swap-call N] [--full-call] "
			"SOCKET READ_NAME READ_TEXT NEW_NAME NEW_TEXT -- BACKEND [ARGS...]\n");
		return 2;
	}
	const char *sock = argv[a];
	signal(SIGPIPE, SIG_IGN);
	if (fd3)
		lfd = listen_at(sock);
	spawn(argv + a + 6, lfd, systemd);
	if (lfd >= 0)
		close(lfd);  /* the backend holds it now */
	connect_backend(&fe, sock);
	if ((err = vu_setup(&fe, 4 << 20, flags)))
		fail("vhost-user set-up", err);
	printf("ok: vhost-user set-up (features %#llx, protocol features %#llx)\n",
	       (unsigned long long)fe.features, (unsigned long long)fe.protocol_features);
	if ((err = vu_fuse_req_alloc(&fe, &r, 8192)))
		fail("guest memory", err);
	if ((err = vu_fuse_init(&fe, &r, VU_FUSE_LINUX_FLAGS, &init)))
		fail("FUSE_INIT", err);
	printf("ok: FUSE_INIT: protocol 7.%u, max_write %u\n", init.minor, init.max_write);
	read_file(&fe, &r, argv[a + 1], argv[a + 2]);
	create_file(&fe, &r, argv[a + 3], argv[a + 4]);
	if (swaps || full)
		alloc_batch(&fe);
	if (swaps)
		swap_call(&fe, swaps, flags);
	if (full)
		full_call(&fe);

	vu_close(&fe);
	if (reap_backend(5, &status))
		fail("the backend still runs 5 s after its frontend left", 0);
	backend = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "FAIL: the backend ended with %s %d after the frontend left\n",
			WIFEXITED(status) ? "status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return 1;
	}
	printf("ok: the backend exited with status 0 after the frontend left\n");
	return 0;
}
