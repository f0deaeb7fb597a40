// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless fuse-mount DIR MOUNTPOINT [FS OPTIONS]`: the FUSE server on the
 * host's own /dev/fuse, so the real kernel FUSE client (and every tool on
 * the host) can exercise exactly the code a guest talks to.
 *
 * The mount at MOUNTPOINT is made (mount(2) as root, else fusermount3)
 * and taken down in transport/fuse_mountpoint.c, outside the sandbox;
 * then MOUNT_READERS reader threads (below), each on its own /dev/fuse fd (FUSE_DEV_IOC_CLONE
 * gives each an fd on the same connection). Each request is read into a
 * buffer, handled inline and the reply written with one write(2). A parked
 * request (SETLKW) keeps its buffers and the reader takes fresh ones. With
 * --uring, one reader, and requests move to per-CPU io_uring queues after
 * INIT (fuse_uring.h); the reader keeps FORGET and INTERRUPT. SIGINT/SIGTERM
 * unmount; an external unmount ends the readers (ENODEV) and the program
 * exits 0.
 */
#include "transport/fuse_mount.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "fs/fs_options.h"
#include "fs/fuse/fuse_server.h"
#include "transport/fuse_mountpoint.h"
#include "transport/fuse_uring.h"
#include "fs/fs_thread.h"
#include "sandbox/sandbox.h"

/*
 * Readers: MOUNT_READERS threads, each blocking in read(2) on its own
 * clone of the connection's fd, in the normal scheduling class, wherever
 * the scheduler puts them; the kernel hands each request to one waiting
 * reader. Two, not one: a request that waits on the host (a cold read from
 * a disk) does not hold up the others, and a caller that waits for each
 * answer often finds the next reader where it runs. Same-run A/B
 * (2026-12-01, fio 4k direct, 5 rounds): randread psync 22k IOPS with one
 * reader, 61k with two; randwrite libaio QD16 244k / 224k (noisy, 138k to
 * 269k); README has the bench-fuse table. No directory read-ahead
 * (fuse_server_idle): a reader blocked in read(2) has no idle moment to
 * give it, and when measured (with the continuation still per thread) it
 * gained nothing (10k entries, 5 rounds: 2.09M vs 2.12M entries/s).
 */
#define MOUNT_READERS 2

struct mount_req {
	struct fs_req req;
	struct iovec in, out;
	int fd;
	size_t size;
	uint8_t buf[]; /* in: size bytes, then out: size bytes */
};

/* What the readers share: the io_uring channel, once INIT allowed it. */
struct channel {
	bool want_uring;
	struct fuse_uring *uring;
	/*
	 * The other readers' /dev/fuse fds, opened before the sandbox's
	 * lockdown (a chroot has no /dev/fuse), bound to the connection
	 * (FUSE_DEV_IOC_CLONE) as their readers start; -1: none.
	 */
	int spare[MOUNT_READERS - 1];
};

struct reader {
	struct fuse_server *srv;
	struct channel *ch;
	unsigned idx;
	int fd;
	pthread_t thread;
	pthread_t main_thread;
};

static struct mount_req *mreq_new(int fd, size_t size)
{
	struct mount_req *m = malloc(sizeof(*m) + 2 * size);

	if (!m)
		return NULL;
	m->fd = fd;
	m->size = size;
	m->in.iov_base = m->buf;
	m->out.iov_base = m->buf + size;
	m->out.iov_len = size;
	m->req = (struct fs_req){ .in = &m->in, .nin = 1, .out = &m->out, .nout = 1 };
	return m;
}

static void send_reply(int fd, const void *buf, size_t len)
{
	/* ENOENT: the request was interrupted and is gone; nothing to do. */
	while (len && write(fd, buf, len) < 0 && errno == EINTR)
		;
}

static void mount_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	struct mount_req *m = (struct mount_req *)((char *)req - offsetof(struct mount_req, req));

	(void)ctx;
	send_reply(m->fd, m->out.iov_base, len);
	free(m);
}

static const struct fs_transport mount_transport = { .complete = mount_complete };

/*
 * After the INIT answer (registration needs a set-up connection): when the
 * kernel took FUSE_OVER_IO_URING, requests move to the per-CPU rings and
 * /dev/fuse carries only FORGET and INTERRUPT from then on.
 */
static void start_uring(struct reader *rd)
{
	int r;

	if (!rd->ch->want_uring || rd->ch->uring || !fuse_server_io_uring(rd->srv))
		return;
	r = fuse_uring_start(&rd->ch->uring, rd->srv, rd->fd);
	if (r)
		fprintf(stderr, "stainless: fuse-mount: io_uring channel: %s; "
			"serving through /dev/fuse\n", strerror(-r));
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	size_t size = fuse_server_max_request(rd->srv) + 4096;
	struct mount_req *m = mreq_new(rd->fd, size);
	char name[16];

	snprintf(name, sizeof(name), "fuse-r%u", rd->idx);
	(void)pthread_setname_np(pthread_self(), name);
	while (m) {
		ssize_t n = read(rd->fd, m->buf, size);

		if (n < 0) {
			if (errno == EINTR || errno == ENOENT || errno == EAGAIN)
				continue;
			if (errno != ENODEV)
				fprintf(stderr, "stainless: fuse-mount: /dev/fuse: %s\n",
					strerror(errno));
			break;
		}
		m->in.iov_len = (size_t)n;
		/* A peek at the header; the server checks the whole request. */
		bool init = (size_t)n >= sizeof(struct fuse_in_header) &&
			    ((const struct fuse_in_header *)m->buf)->opcode == FUSE_INIT;
		int r = fuse_server_handle(rd->srv, &m->req, &mount_transport);
		if (r == FS_REQ_DEFERRED) {
			m = mreq_new(rd->fd, size); /* the parked request keeps the old one */
			continue;
		}
		send_reply(rd->fd, m->out.iov_base, (size_t)r);
		if (init)
			start_uring(rd);
	}
	free(m);
	pthread_kill(rd->main_thread, SIGUSR1);
	return NULL;
}

static int usage(const char *why, const char *what)
{
	fprintf(stderr, "stainless: fuse-mount: %s%s%s\n", why, what ? ": " : "",
		what ? what : "");
	return 2;
}

/* --sandbox, --uid-map...: 1 when a is one (taken or refused: *r), else 0. */
static int sandbox_arg(struct sandbox_opts *sbo, int argc, char **argv, int *i, int *r)
{
	const char *a = argv[*i], *eq, *val = NULL;
	char name[32], why[160];

	if (strncmp(a, "--", 2) != 0)
		return 0;
	eq = strchr(a, '=');
	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2), a + 2);
	if (eq)
		val = eq + 1;
	else if (sandbox_opt_has_value(name) && *i + 1 < argc)
		val = argv[++*i];
	int t = sandbox_opt(sbo, name, val, why, sizeof(why));
	if (t == 1) {
		if (!eq && val)
			--*i;
		return 0;
	}
	*r = t < 0 ? usage(why, NULL) : 0;
	return 1;
}

static int parse_args(int argc, char **argv, struct fs_options *o, struct sandbox_opts *sbo,
		      const char **dir, const char **mnt, bool *uring)
{
	const char *pos[2];
	int npos = 0, r;

	fs_options_default(o);
	sandbox_opts_init(sbo);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (sandbox_arg(sbo, argc, argv, &i, &r)) {
			if (r)
				return r;
		} else if (strcmp(a, "--cache") == 0) {
			if (++i >= argc)
				return usage("--cache needs a value (never, auto, always, metadata)", NULL);
			if (fs_parse_cache(argv[i], &o->cache))
				return usage("cache must be never, auto, always or metadata", argv[i]);
		} else if (strncmp(a, "--cache=", 8) == 0) {
			if (fs_parse_cache(a + 8, &o->cache))
				return usage("cache must be never, auto, always or metadata", a + 8);
		} else if (strcmp(a, "--readonly") == 0) {
			o->readonly = true;
		} else if (strcmp(a, "--xattr") == 0) {
			o->xattr = true;
		} else if (strcmp(a, "--xattr-map") == 0) {
			o->xattr = true;
			o->xattr_map = true;
		} else if (strcmp(a, "--writeback") == 0) {
			o->writeback = true;
		} else if (strcmp(a, "--devices") == 0) {
			o->devices = true;
		} else if (strcmp(a, "--uring") == 0) {
			*uring = true;
		} else if (strcmp(a, "--single") == 0 || strcmp(a, "--poll") == 0 ||
			   strncmp(a, "--poll=", 7) == 0) {
			/* Serving modes that did not earn their place (README, Benchmarks). */
			return usage("this option is gone: /dev/fuse has one way of serving, "
				     "--uring the other", a);
		} else if (a[0] == '-' && a[1]) {
			return usage("unknown option", a);
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			return usage("too many arguments", a);
		}
	}
	if (npos < 2)
		return usage("usage: stainless fuse-mount DIR MOUNTPOINT "
			     "[--cache never|auto|always|metadata] [--readonly] [--xattr] [--xattr-map] [--writeback] "
			     "[--devices] [--uring] " SANDBOX_USAGE,
			     NULL);
	*dir = pos[0];
	*mnt = pos[1];
	return 0;
}

static int check_dir(const char *what, const char *path)
{
	struct stat st;
	char msg[64];

	if (stat(path, &st) < 0) {
		snprintf(msg, sizeof(msg), "%s %s", what, strerror(errno));
		return usage(msg, path);
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(msg, sizeof(msg), "%s is not a directory", what);
		return usage(msg, path);
	}
	return 0;
}

/* Reader i > 0's fd on the connection: -1 when the kernel says no. */
static int clone_fd(int fd, int *spare)
{
	uint32_t master = (uint32_t)fd;
	int rfd = *spare;

	*spare = -1;
	if (rfd >= 0 && ioctl(rfd, FUSE_DEV_IOC_CLONE, &master) < 0) {
		close(rfd);
		rfd = -1;
	}
	return rfd;
}

static void open_spares(struct channel *ch)
{
	for (unsigned i = 0; i < MOUNT_READERS - 1; i++)
		ch->spare[i] = ch->want_uring ? -1 : open("/dev/fuse", O_RDWR | O_CLOEXEC);
}

static void close_spares(struct channel *ch)
{
	for (unsigned i = 0; i < MOUNT_READERS - 1; i++)
		if (ch->spare[i] >= 0)
			close(ch->spare[i]);
}

/* mp NULL: the mount is the sandbox supervisor's to take down, not ours. */
static int serve(struct fuse_server *srv, struct channel *ch, int fd, struct fuse_mountpoint *mp)
{
	struct reader rd[MOUNT_READERS];
	/* With the rings serving, /dev/fuse carries only FORGET and INTERRUPT. */
	unsigned want = ch->want_uring ? 1 : MOUNT_READERS, n = 0;
	sigset_t set;
	int sig = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (n < want) {
		int rfd = n ? clone_fd(fd, &ch->spare[n - 1]) : fd;
		if (rfd < 0)
			break;  /* the readers so far still serve */
		rd[n] = (struct reader){ .srv = srv, .ch = ch, .idx = n, .fd = rfd,
					 .main_thread = pthread_self() };
		if (fs_thread_create(&rd[n].thread, NULL, FS_ROLE_FUSE_READER, reader_main,
				     &rd[n]) < 0) {
			if (rfd != fd)
				close(rfd);
			break;
		}
		n++;
	}
	/* From here on this thread only waits, unmounts and joins. */
	int r = n ? fs_thread_enter(FS_ROLE_CONTROL) : 0;
	if (r < 0)
		fprintf(stderr, "stainless: fuse-mount: seccomp: %s\n", strerror(-r));
	if (n == 0 || r < 0 || sigwait(&set, &sig) != 0)
		sig = SIGTERM; /* nobody serves: take the mount down */
	if ((sig == SIGINT || sig == SIGTERM) && mp && (r = fuse_mountpoint_close(mp)) < 0) {
		/*
		 * --sandbox chroot: no CAP_SYS_ADMIN left to unmount with, and
		 * the readers wait for requests that will never come: end the
		 * process, which ends the connection, and say what is left.
		 */
		fprintf(stderr, "stainless: fuse-mount: cannot unmount %s: %s; the dead mount "
			"stays (umount -l %s)\n", mp->real, strerror(-r), mp->real);
		_exit(1);
	}
	for (unsigned i = 0; i < n; i++) {
		pthread_join(rd[i].thread, NULL);
		if (rd[i].fd != fd)
			close(rd[i].fd);
	}
	fuse_uring_stop(ch->uring);
	return n ? 0 : 1;
}

/* In the sandbox's supervisor (sandbox.h): the mount is taken down here. */
static bool supervisor_stop(void *ctx, int sig)
{
	(void)sig;
	(void)fuse_mountpoint_close(ctx);
	return false; /* the server ends by itself when its reads fail (ENODEV) */
}

static void supervisor_ended(void *ctx)
{
	(void)fuse_mountpoint_close(ctx); /* a server that died left its mount */
}

int fuse_mount_main(int argc, char **argv)
{
	struct fuse_server *srv;
	struct fs_options o;
	struct channel ch = { 0 };
	struct fuse_mountpoint mp;
	struct sandbox_opts sbo;
	struct sandbox sb;
	bool uring = false;
	const char *dir = NULL, *mnt = NULL;
	int fd, r, code;

	r = parse_args(argc, argv, &o, &sbo, &dir, &mnt, &uring);
	if (r || (r = check_dir("share", dir)) || (r = check_dir("mount point", mnt)))
		return r;
	ch.want_uring = uring && fuse_uring_enabled();
	if (uring && !ch.want_uring)
		fprintf(stderr, "stainless: fuse-mount: --uring: this kernel does not offer FUSE "
			"over io_uring (fuse module parameter enable_uring); serving through "
			"/dev/fuse\n");
	(void)fuse_uring_queues(); /* read from /sys now, while /sys is there */
	/* The mount in the host's namespace, before the sandbox's fork. */
	fd = fuse_mountpoint_open(&mp, mnt, FUSE_SERVER_MAX_WRITE);
	if (fd < 0)
		return 1;
	sandbox_init(&sb, "fuse-mount", &sbo);
	sb.host_ids = true;
	sb.kernel_ids = true;
	sb.devices = o.devices;
	sb.hooks = (struct sandbox_hooks){ .stop = supervisor_stop, .ended = supervisor_ended,
					   .ctx = &mp };
	/* What taking the mount down needs, held by whoever does it. */
	(void)sandbox_keep_fd(&sb, mp.info_fd);
	(void)sandbox_keep_fd(&sb, mp.abort_fd);
	(void)sandbox_keep_fd(&sb, mp.unmount_fd);
	(void)sandbox_keep_fd(&sb, mp.unmounted_fd);
	r = sandbox_enter(&sb, &code);
	if (r > 0)
		return code;
	open_spares(&ch);
	if (r == 0 && (r = sandbox_add_share(&sb, dir, o.readonly)) == 0 &&
	    (r = sandbox_add_device(&sb, "/dev/fuse")) == 0)
		r = sandbox_lockdown(&sb);
	fs_fd_raise_nofile(); /* before the budget is first read; best effort */
	if (r == 0) {
		r = fuse_server_create_params(&srv, sandbox_path(&sb, dir), &o,
					      &(struct fuse_server_params){ .io_uring = ch.want_uring });
		if (r)
			fprintf(stderr, "stainless: fuse-mount: %s: %s\n", dir, strerror(-r));
	}
	if (r) {
		if (sb.opts.mode != SANDBOX_NAMESPACE)
			(void)fuse_mountpoint_close(&mp);
		close_spares(&ch);
		close(fd);
		return 1;
	}
	r = serve(srv, &ch, fd, sb.opts.mode == SANDBOX_NAMESPACE ? NULL : &mp);
	close_spares(&ch);
	close(fd);
	fuse_server_destroy(srv);
	fuse_uring_free(ch.uring);  /* after parked requests got their answers */
	return r;
}
