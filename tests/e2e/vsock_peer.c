// SPDX-License-Identifier: GPL-2.0-only
/*
 * vsock-peer: both ends of the vsock e2e case and benchmark, as one static
 * program that runs in the busybox guest (AF_VSOCK) and in the test host
 * (Unix sockets, with Firecracker's "CONNECT <port>\n" / "OK <port>\n"
 * handshake on stainless's UDS). Addresses:
 *     vsock:PORT          listen in the guest       vsock:CID:PORT  connect
 *     unix:PATH           listen on the host        uds:PATH:PORT   connect
 *                                                   (hybrid: CONNECT PORT)
 *                                                   unix:PATH       connect
 *                                                   (plain: the ceiling)
 * Commands:
 *     serve ADDR          each connection sends one line: SINK (read to EOF,
 *                         answer "<bytes> <fnv64>"), SOURCE (send until the
 *                         peer goes, then say how it went), STALL (read
 *                         nothing), ECHO (send back what comes, for latency),
 *                         DONE (exit 0)
 *     sink ADDR BYTES     send BYTES of a pattern; the answer must match
 *     many ADDR N BYTES   N connections open at once, then a sink on each
 *     stall ADDR SECS     write until the peer has taken nothing for SECS,
 *                         print the count, keep the connection SECS more
 *     cut ADDR BYTES      SOURCE, read BYTES, then hang up mid-stream
 *     rtt ADDR N          N one-byte ECHO round trips; the median in us
 *     probe ADDR          one connect, no retry: exit 0 if it was taken
 *     done ADDR
 * A connect is retried for up to 300 s while the far side is not up yet.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#define CHUNK (64 * 1024)

struct sum {
	uint64_t bytes, hash;
};

static void sum_add(struct sum *s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		s->hash ^= p[i];
		s->hash *= 0x100000001b3ULL;
	}
	s->bytes += n;
}

static void pattern(uint8_t *p, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(((off + i) * 2654435761u) >> 13);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_line(int fd, char *buf, size_t n)
{
	size_t i = 0;

	while (i + 1 < n) {
		ssize_t r = read(fd, buf + i, 1);

		if (r <= 0)
			return -1;
		if (buf[i++] == '\n')
			break;
	}
	buf[i] = '\0';
	return (int)i;
}

static int try_connect(const char *addr)
{
	char path[108], line[64];
	unsigned cid, port;
	int fd;

	if (sscanf(addr, "vsock:%u:%u", &cid, &port) == 2) {
		struct sockaddr_vm a = { .svm_family = AF_VSOCK, .svm_cid = cid, .svm_port = port };

		fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
	} else if (sscanf(addr, "uds:%107[^:]:%u", path, &port) == 2) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
		    dprintf(fd, "CONNECT %u\n", port) > 0 && read_line(fd, line, sizeof(line)) > 0 &&
		    !strncmp(line, "OK ", 3))
			return fd;
	} else if (!strncmp(addr, "unix:", 5)) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		snprintf(a.sun_path, sizeof(a.sun_path), "%s", addr + 5);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
	} else {
		fprintf(stderr, "vsock-peer: bad address %s\n", addr);
		exit(2);
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

static int dial(const char *addr)
{
	for (int i = 0; i < 3000; i++) {
		int fd = try_connect(addr);

		if (fd >= 0)
			return fd;
		usleep(100000);
	}
	fprintf(stderr, "vsock-peer: cannot connect to %s: %s\n", addr, strerror(errno));
	exit(1);
}

static int listen_on(const char *addr)
{
	unsigned port;
	int fd;

	if (sscanf(addr, "vsock:%u", &port) == 1 && !strchr(addr + 6, ':')) {
		struct sockaddr_vm a = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_ANY,
					 .svm_port = port };

		fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return -1;
	} else if (!strncmp(addr, "unix:", 5)) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		snprintf(a.sun_path, sizeof(a.sun_path), "%s", addr + 5);
		unlink(a.sun_path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return -1;
	} else {
		return -1;
	}
	return listen(fd, 128) < 0 ? -1 : fd;
}

/* ---- serve ---- */

static void serve_sink(int fd)
{
	static __thread uint8_t buf[CHUNK];
	struct sum s = { 0, 0xcbf29ce484222325ULL };
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sum_add(&s, buf, (size_t)n);
	dprintf(fd, "%" PRIu64 " %016" PRIx64 "\n", s.bytes, s.hash);
}

static void serve_source(int fd)
{
	static __thread uint8_t buf[CHUNK];
	uint64_t off = 0;

	for (;;) {
		pattern(buf, sizeof(buf), off);
		if (write_all(fd, buf, sizeof(buf)) < 0)
			break;
		off += sizeof(buf);
	}
	printf("vsock-peer: source: the peer went after %" PRIu64 " bytes (%s)\n", off,
	       strerror(errno));
	fflush(stdout);
}

static void serve_echo(int fd)
{
	char b[256];
	ssize_t n;

	while ((n = read(fd, b, sizeof(b))) > 0)
		if (write_all(fd, b, (size_t)n) < 0)
			break;
}

static void *serve_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char cmd[32];

	if (read_line(fd, cmd, sizeof(cmd)) < 0)
		goto out;
	if (!strcmp(cmd, "SINK\n"))
		serve_sink(fd);
	else if (!strcmp(cmd, "SOURCE\n"))
		serve_source(fd);
	else if (!strcmp(cmd, "ECHO\n"))
		serve_echo(fd);
	else if (!strcmp(cmd, "STALL\n"))
		for (;;)
			pause();
	else if (!strcmp(cmd, "DONE\n")) {
		printf("vsock-peer: serve: done\n");
		fflush(stdout);
		exit(0);
	}
out:
	close(fd);
	return NULL;
}

static int cmd_serve(const char *addr)
{
	int lfd = listen_on(addr);

	if (lfd < 0) {
		fprintf(stderr, "vsock-peer: cannot listen on %s: %s\n", addr, strerror(errno));
		return 1;
	}
	printf("vsock-peer: serving %s\n", addr);
	fflush(stdout);
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		pthread_attr_t at;
		pthread_t t;

		if (fd < 0)
			continue;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 256 * 1024);
		if (pthread_create(&t, &at, serve_conn, (void *)(intptr_t)fd))
			close(fd);
	}
}

/* ---- clients ---- */

/* SINK over fd: BYTES of pattern out, the far side's sum back. */
static int sink_on(int fd, uint64_t bytes, double *secs)
{
	static __thread uint8_t buf[CHUNK];
	struct sum s = { 0, 0xcbf29ce484222325ULL };
	char line[64], want[64];
	double t0 = now();

	if (write_all(fd, "SINK\n", 5) < 0)
		return -1;
	for (uint64_t off = 0; off < bytes;) {
		size_t n = bytes - off < CHUNK ? (size_t)(bytes - off) : CHUNK;

		pattern(buf, n, off);
		sum_add(&s, buf, n);
		if (write_all(fd, buf, n) < 0)
			return -1;
		off += n;
	}
	shutdown(fd, SHUT_WR);
	if (read_line(fd, line, sizeof(line)) < 0)
		return -1;
	if (secs)
		*secs = now() - t0;
	snprintf(want, sizeof(want), "%" PRIu64 " %016" PRIx64 "\n", s.bytes, s.hash);
	if (strcmp(line, want)) {
		fprintf(stderr, "vsock-peer: sink: far side counted %s, want %s", line, want);
		return -1;
	}
	return 0;
}

static int cmd_sink(const char *addr, uint64_t bytes)
{
	int fd = dial(addr);
	double secs = 0;

	if (sink_on(fd, bytes, &secs) < 0) {
		fprintf(stderr, "vsock-peer: sink to %s failed\n", addr);
		return 1;
	}
	printf("vsock-peer: sink: %" PRIu64 " bytes, hash matches, %.3f s, %.1f MB/s\n", bytes,
	       secs, (double)bytes / secs / 1e6);
	return 0;
}

struct many_arg {
	int fd;
	uint64_t bytes;
	int rc;
};

static void *many_one(void *p)
{
	struct many_arg *a = p;

	a->rc = sink_on(a->fd, a->bytes, NULL);
	close(a->fd);
	return NULL;
}

static int cmd_many(const char *addr, unsigned n, uint64_t bytes)
{
	struct many_arg *a = calloc(n, sizeof(*a));
	pthread_t *t = calloc(n, sizeof(*t));
	unsigned bad = 0;

	for (unsigned i = 0; i < n; i++)
		a[i] = (struct many_arg){ .fd = dial(addr), .bytes = bytes };
	for (unsigned i = 0; i < n; i++)
		pthread_create(&t[i], NULL, many_one, &a[i]);
	for (unsigned i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		bad += a[i].rc != 0;
	}
	printf("vsock-peer: many: %u connections open at once, %u of them failed\n", n, bad);
	return bad ? 1 : 0;
}

static int cmd_stall(const char *addr, int secs)
{
	static uint8_t buf[CHUNK];
	int fd = dial(addr);
	uint64_t total = 0;

	if (write_all(fd, "STALL\n", 6) < 0)
		return 1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		ssize_t n = send(fd, buf, sizeof(buf), MSG_NOSIGNAL);

		if (n > 0) {
			total += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN)
			return 1;
		if (poll(&p, 1, secs * 1000) == 0)
			break;
	}
	printf("vsock-peer: stall: the peer took %" PRIu64 " bytes, then nothing for %d s\n",
	       total, secs);
	fflush(stdout);
	sleep((unsigned)secs);
	return 0;
}

static int cmd_cut(const char *addr, uint64_t bytes)
{
	static uint8_t buf[CHUNK];
	int fd = dial(addr);
	uint64_t got = 0;

	if (write_all(fd, "SOURCE\n", 7) < 0)
		return 1;
	while (got < bytes) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			return 1;
		got += (uint64_t)n;
	}
	close(fd);
	printf("vsock-peer: cut: hung up after %" PRIu64 " bytes\n", got);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmd_rtt(const char *addr, unsigned n)
{
	double *t = calloc(n, sizeof(*t));
	int fd = dial(addr);
	char c = 'x';

	if (write_all(fd, "ECHO\n", 5) < 0)
		return 1;
	for (unsigned i = 0; i < n; i++) {
		double t0 = now();

		if (write_all(fd, &c, 1) < 0 || read(fd, &c, 1) != 1)
			return 1;
		t[i] = (now() - t0) * 1e6;
	}
	qsort(t, n, sizeof(*t), cmp_double);
	printf("vsock-peer: rtt: %u round trips, median %.1f us\n", n, t[n / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "serve") && argc == 3)
		return cmd_serve(argv[2]);
	if (!strcmp(cmd, "sink") && argc == 4)
		return cmd_sink(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(cmd, "many") && argc == 5)
		return cmd_many(argv[2], (unsigned)atoi(argv[3]), strtoull(argv[4], NULL, 0));
	if (!strcmp(cmd, "stall") && argc == 4)
		return cmd_stall(argv[2], atoi(argv[3]));
	if (!strcmp(cmd, "cut") && argc == 4)
		return cmd_cut(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(cmd, "rtt") && argc == 4)
		return cmd_rtt(argv[2], (unsigned)atoi(argv[3]));
	if (!strcmp(cmd, "probe") && argc == 3) {
		int fd = try_connect(argv[2]);

		printf("vsock-peer: probe %s: %s\n", argv[2], fd >= 0 ? "connected" : strerror(errno));
		return fd < 0;
	}
	if (!strcmp(cmd, "done") && argc == 3) {
		int fd = dial(argv[2]);

		return write_all(fd, "DONE\n", 5) < 0;
	}
	fprintf(stderr, "usage: vsock-peer serve|sink|many|stall|cut|rtt|done ADDR [ARGS] (see vsock_peer.c)\n");
	return 2;
}
