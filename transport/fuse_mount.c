// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless fuse-mount DIR MOUNTPOINT [FS OPTIONS]`: the FUSE server on the
 * host's own /dev/fuse, so the real kernel FUSE client (and every tool on
 * the host) can exercise exactly the code a guest talks to.
 *
 * The mount at MOUNTPOINT is made (mount(2) as root, else fusermount3)
 * and taken down in transport/fuse_mountpoint.c, outside the sandbox;
 * then reader threads,
 * one per CPU (below), each on its own /dev/fuse fd (FUSE_DEV_IOC_CLONE
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
#include <sched.h>
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
#include "transport/fs_keeper.h"
#include "fs/fs_options.h"
#include "transport/fs_wait.h"
#include "transport/fuse_handover.h"
#include "fs/fuse/fuse_server.h"
#include "transport/fuse_mountpoint.h"
#include "transport/fuse_uring.h"
#include "sandbox/sandbox.h"

/*
 * Readers. By default one per CPU this process may run on, each pinned to
 * its CPU, waiting without polling, and kept in the idle class while
 * requests flow (fs_keeper.h): a caller's request is then mostly taken by
 * the reader on its own CPU and the caller stays there for the answer.
 * When a caller has several reads or writes in flight at once, or streams
 * a directory listing that fills every answer, the readers hand over to
 * reader 0 alone, which leaves its CPU and the idle class and polls for
 * --poll USEC after each answer, until that traffic stops
 * (fuse_handover.h). --poll 0 keeps the per-CPU readers always; --single
 * keeps the lone polling reader always.
 *
 * Same-run A/B by hand on 2026-11-30 (fio 4k direct, 256M, 5 rounds;
 * bench/fuse_meta), per-CPU readers alone (--poll 0) / with the handover
 * (default) / one polling reader (--single): randwrite libaio QD16 105k /
 * 135k / 122k IOPS, randread libaio QD16 110k / 117k / 111k, randread psync
 * 40k / 41k / 29k, stat of 3,000 files 15.9k / 18.3k / 9.4k per second;
 * readdir of 10,000 entries (4 rounds) 1.20M / 1.49M / 1.62M entries/s.
 */
#define MOUNT_READERS_MAX 64

struct mount_req {
	struct fs_req req;
	struct fuse_handover *handover;   /* NULL, or: */
	struct handover_ticket ticket;    /* fuse_handover_answer before answering */
	struct iovec in, out;
	int fd;
	size_t size;
	uint8_t buf[]; /* in: size bytes, then out: size bytes */
};

/* What the readers share: the io_uring channel, once INIT allowed it; the handover. */
struct channel {
	bool want_uring;
	struct fuse_uring *uring;
	struct fs_keeper *uring_keeper;  /* started here, before any thread serves */
	struct fuse_handover *handover;  /* NULL: no handing over */
	cpu_set_t anywhere;              /* where the lone reader may run */
};

struct reader {
	struct fuse_server *srv;
	struct channel *ch;
	struct fs_keeper *keeper;
	unsigned idx;
	int cpu;                /* pinned to it (a per-CPU reader), or -1 */
	int fd;
	uint32_t poll_us;       /* after each answer (per-CPU readers: only when lone) */
	bool forgets_only;      /* the rings carry requests; this fd FORGET/INTERRUPT */
	pthread_t thread;
	pthread_t main_thread;
};

/*
 * With the rings serving requests, what still comes through /dev/fuse is
 * FORGET (by the thousand when files are unlinked) and the rare INTERRUPT.
 * Waiting this long once something arrives lets the kernel hand the
 * forgets over as one BATCH_FORGET instead of waking us for each.
 */
#define FORGET_BATCH_US 1000

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

	if (m->handover)
		fuse_handover_answer(m->handover, &m->ticket, len);
	send_reply(m->fd, m->out.iov_base, len);
	free(m);
}

static const struct fs_transport mount_transport = { .complete = mount_complete };

/*
 * After the INIT answer (registration needs a set-up connection): when the
 * kernel took FUSE_OVER_IO_URING, requests move to the per-CPU rings and
 * this reader keeps FORGET and INTERRUPT, which need no polling.
 */
static void start_uring(struct reader *rd)
{
	int r;

	if (!rd->ch->want_uring || rd->ch->uring || !fuse_server_io_uring(rd->srv))
		return;
	r = fuse_uring_start(&rd->ch->uring, rd->srv, rd->fd, rd->ch->uring_keeper);
	if (r) {
		fprintf(stderr, "stainless: fuse-mount: io_uring channel: %s; "
			"serving through /dev/fuse\n", strerror(-r));
		return;
	}
	rd->poll_us = 0;
	rd->forgets_only = true;
}

/*
 * Whether this reader serves now (see fuse_handover.h): in a lone phase
 * reader 0 serves alone, out of its CPU and the idle class, and the others
 * sleep until it ends (false: look again).
 */
static bool handover_turn(struct reader *rd, bool *lone)
{
	struct fuse_handover *ho = rd->ch->handover;

	if (!ho || !fuse_handover_lone(ho))
		return true;
	if (rd->idx != 0) {
		fuse_handover_wait(ho);
		return false;
	}
	if (!*lone) {
		fs_keeper_leave(rd->keeper, rd->idx, &rd->ch->anywhere);
		*lone = true;
	}
	return true;
}

/* Reader 0 found nothing to read: end a lone phase that has run its course. */
static bool handover_back(struct reader *rd, bool *lone)
{
	if (!*lone || !fuse_handover_expired(rd->ch->handover, fs_now_ns()))
		return false;
	fuse_handover_end(rd->ch->handover);
	fs_keeper_enter(rd->keeper, rd->idx, rd->cpu);
	*lone = false;
	return true;
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	size_t size = fuse_server_max_request(rd->srv) + 4096;
	struct mount_req *m = mreq_new(rd->fd, size);
	struct handover_seat seat = { 0 };
	bool lone = false, waited = true;
	char name[16];

	snprintf(name, sizeof(name), "fuse-r%u", rd->idx);
	(void)pthread_setname_np(pthread_self(), name);
	fs_keeper_enter(rd->keeper, rd->idx, rd->cpu);
	while (m) {
		if (!handover_turn(rd, &lone))
			continue;
		ssize_t n = read(rd->fd, m->buf, size);

		if (n < 0) {
			waited = true;
			if (errno == EAGAIN && fuse_server_idle(rd->srv))
				continue;   /* it took a while: look again before waiting */
			if (errno == EAGAIN && handover_back(rd, &lone))
				continue;
			/* Lone: not asleep past the phase's end (handover_back). */
			uint32_t poll_us = rd->cpu >= 0 && !lone ? 0 : rd->poll_us;
			int sleep_ms = lone ? (int)(HANDOVER_HOLD_NS / 1000000u) : -1;
			if (errno == EAGAIN && fs_wait_readable(rd->fd, poll_us, sleep_ms) == 0) {
				if (rd->forgets_only)
					usleep(FORGET_BATCH_US);
				continue;
			}
			if (errno == EINTR || errno == ENOENT)
				continue;
			if (errno != ENODEV)
				fprintf(stderr, "stainless: fuse-mount: /dev/fuse: %s\n",
					strerror(errno));
			break;
		}
		fs_keeper_served(rd->keeper, rd->idx);
		m->in.iov_len = (size_t)n;
		/* A peek at the header; the server checks the whole request. */
		const struct fuse_in_header *h =
			(size_t)n >= sizeof(*h) ? (const struct fuse_in_header *)m->buf : NULL;
		m->handover = h ? rd->ch->handover : NULL;
		if (m->handover)
			fuse_handover_take(m->handover, &seat, m->buf, (size_t)n, waited, &m->ticket);
		waited = false;
		bool init = h && h->opcode == FUSE_INIT;
		int r = fuse_server_handle(rd->srv, &m->req, &mount_transport);
		if (r == FS_REQ_DEFERRED) {
			m = mreq_new(rd->fd, size); /* the parked request keeps the old one */
			continue;
		}
		if (m->handover)
			fuse_handover_answer(m->handover, &m->ticket, (size_t)r);
		send_reply(rd->fd, m->out.iov_base, (size_t)r);
		if (init)
			start_uring(rd);
	}
	if (rd->ch->handover)
		fuse_handover_close(rd->ch->handover);
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
		      const char **dir, const char **mnt, bool *uring, bool *single)
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
				return usage("--cache needs a value (never, auto, always)", NULL);
			if (fs_parse_cache(argv[i], &o->cache))
				return usage("cache must be never, auto or always", argv[i]);
		} else if (strncmp(a, "--cache=", 8) == 0) {
			if (fs_parse_cache(a + 8, &o->cache))
				return usage("cache must be never, auto or always", a + 8);
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
		} else if (strcmp(a, "--single") == 0) {
			*single = true;
		} else if (strcmp(a, "--poll") == 0 || strncmp(a, "--poll=", 7) == 0) {
			const char *v = a[6] == '=' ? a + 7 : (++i < argc ? argv[i] : NULL);
			if (fs_parse_poll(v, &o->poll_us))
				return usage("--poll must be microseconds, 0 to 10000", v);
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
			     "[--cache never|auto|always] [--readonly] [--xattr] [--xattr-map] [--writeback] "
			     "[--devices] [--poll USEC] [--single] [--uring] " SANDBOX_USAGE,
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

/* mp NULL: the mount is the sandbox supervisor's to take down, not ours. */
static int serve(struct fuse_server *srv, struct channel *ch, int fd, struct fuse_mountpoint *mp,
		 bool per_cpu, uint32_t poll_us)
{
	struct reader rd[MOUNT_READERS_MAX];
	struct fuse_handover handover;
	int cpus[MOUNT_READERS_MAX], want = 0;
	struct fs_keeper *keeper = NULL;
	cpu_set_t mine;
	sigset_t set;
	int n = 0, sig = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (per_cpu && sched_getaffinity(0, sizeof(mine), &mine) == 0) {
		for (int c = 0; c < CPU_SETSIZE && want < MOUNT_READERS_MAX; c++)
			if (CPU_ISSET(c, &mine))
				cpus[want++] = c;
		keeper = fs_keeper_start((unsigned)want);
		ch->anywhere = mine;
		if (want > 1 && poll_us > 0) {
			fuse_handover_init(&handover);
			ch->handover = &handover;
		}
	}
	if (ch->want_uring)
		ch->uring_keeper = fs_keeper_start(fuse_uring_queues());
	if (want == 0) {
		cpus[0] = -1;  /* --single, --uring: one reader, anywhere */
		want = 1;
	}
	for (int i = 0; i < want; i++) {
		int rfd = fd;
		if (i > 0) {
			uint32_t master = (uint32_t)fd;
			rfd = open("/dev/fuse", O_RDWR | O_CLOEXEC | O_NONBLOCK);
			if (rfd < 0 || ioctl(rfd, FUSE_DEV_IOC_CLONE, &master) < 0) {
				if (rfd >= 0)
					close(rfd);
				break; /* one reader still serves */
			}
		}
		rd[n] = (struct reader){ .srv = srv, .ch = ch, .keeper = keeper, .idx = (unsigned)n,
				      .cpu = cpus[n], .fd = rfd, .poll_us = poll_us,
				      .main_thread = pthread_self() };
		if (pthread_create(&rd[n].thread, NULL, reader_main, &rd[n])) {
			if (rfd != fd)
				close(rfd);
			break;
		}
		n++;
	}
	if (n == 0 || sigwait(&set, &sig) != 0)
		sig = SIGTERM; /* nobody serves: take the mount down */
	if ((sig == SIGINT || sig == SIGTERM) && mp)
		fuse_mountpoint_close(mp);
	for (int i = 0; i < n; i++) {
		pthread_join(rd[i].thread, NULL);
		if (rd[i].fd != fd)
			close(rd[i].fd);
	}
	fs_keeper_stop(keeper);
	fuse_uring_stop(ch->uring);
	fs_keeper_stop(ch->uring_keeper);
	return n ? 0 : 1;
}

/* In the sandbox's supervisor (sandbox.h): the mount is taken down here. */
static bool supervisor_stop(void *ctx, int sig)
{
	fuse_mountpoint_close(ctx);
	return false; /* the server ends by itself when its reads fail (ENODEV) */
}

static void supervisor_ended(void *ctx)
{
	fuse_mountpoint_close(ctx); /* a server that died left its mount */
}

int fuse_mount_main(int argc, char **argv)
{
	struct fuse_server *srv;
	struct fs_options o;
	struct channel ch = { 0 };
	struct fuse_mountpoint mp;
	struct sandbox_opts sbo;
	struct sandbox sb;
	bool uring = false, single = false;
	const char *dir = NULL, *mnt = NULL;
	int fd, r, code;

	r = parse_args(argc, argv, &o, &sbo, &dir, &mnt, &uring, &single);
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
	sb.hooks = (struct sandbox_hooks){ .stop = supervisor_stop, .ended = supervisor_ended,
					   .ctx = &mp };
	r = sandbox_enter(&sb, &code);
	if (r > 0)
		return code;
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
			fuse_mountpoint_close(&mp);
		close(fd);
		return 1;
	}
	r = serve(srv, &ch, fd, sb.opts.mode == SANDBOX_NAMESPACE ? NULL : &mp,
		  !single && !ch.want_uring, o.poll_us);
	close(fd);
	fuse_server_destroy(srv);
	fuse_uring_free(ch.uring);  /* after parked requests got their answers */
	return r;
}
