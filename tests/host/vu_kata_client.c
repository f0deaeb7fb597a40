// SPDX-License-Identifier: GPL-2.0-only
/*
 * vu_kata_client: starts a vhost-user-fs backend the way a Kata runtime
 * does and drives it as the guest would (tests/vhost/vu_frontend + vu_fuse),
 * for tests/host/vhost_user_kata.sh.
 *
 *   vu_kata_client [--fd3|--systemd] SOCKET READ_NAME READ_TEXT NEW_NAME NEW_TEXT -- BACKEND [ARGS...]
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
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
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

int main(int argc, char **argv)
{
	struct vu_frontend fe;
	struct vu_fuse_req r;
	struct fuse_init_out init;
	int a = 1, lfd = -1, err, status;
	bool systemd = argc > 1 && !strcmp(argv[1], "--systemd");

	if (argc > 1 && (!strcmp(argv[1], "--fd3") || systemd))
		a++;
	if (argc < a + 7 || strcmp(argv[a + 5], "--")) {
		fprintf(stderr, "usage: vu_kata_client [--fd3|--systemd] SOCKET READ_NAME READ_TEXT NEW_NAME NEW_TEXT -- BACKEND [ARGS...]\n");
		return 2;
	}
	const char *sock = argv[a];
	signal(SIGPIPE, SIG_IGN);
	if (a == 2)
		lfd = listen_at(sock);
	spawn(argv + a + 6, lfd, systemd);
	if (lfd >= 0)
		close(lfd);  /* the backend holds it now */
	connect_backend(&fe, sock);
	if ((err = vu_setup(&fe, 4 << 20, 0)))
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
