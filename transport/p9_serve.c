// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless 9p-serve --socket PATH DIR [--socket-group GROUP] [--msize BYTES]
 * [--readonly] [--devices] [--xattr-map] [--poll USEC] [--max-connections N]
 * [--max-memory BYTES]`: the 9P2000.L server on a Unix
 * stream socket, so clients nobody here wrote (diod's tools, the kernel's
 * trans=unix) can test the same server code the virtio-9p device uses.
 *
 * Who may use it: the socket is mode 0600 (0660 with --socket-group, and
 * that group), as virtiofsd does, and each connection's peer (uid and gid
 * from SO_PEERCRED, groups from SO_PEERGROUPS) goes into its session,
 * where a peer other than root may attach only as itself and make files
 * only of its own groups. Without that, any local process that could
 * connect would attach as uid 0 and act as root in the share.
 *
 * Sharing among clients (why: one client must not starve the others; the
 * kernel gives one fd table and one address space to all of them). At
 * most --max-connections connections are served at once; while that many
 * are, or fds ran out at accept, the listening socket is not polled
 * (clients wait in its backlog) until a connection ends. Each session
 * has a fair share (fs/fs_fair.h) of the process's fd budget and of
 * --max-memory bytes: a floor of its own (P9_SERVE_FD_FLOOR fds,
 * counting its socket, and P9_SERVE_MEM_FLOOR bytes), reserved for every
 * connection slot, so a newcomer can attach, walk and open whatever the
 * others hold, and its part of the rest. Fewer slots are kept than asked
 * when the fd budget cannot hold their floors and a pool as large.
 *
 * One thread per connection, one session per connection. A frame whose
 * size field cannot be a message (below the 7-byte header or above the
 * negotiated msize) ends that connection: nothing after it can be framed.
 * Replies of deferred requests (parked locks, the Tflush of one) are
 * written from the helper thread, so writes to a connection are
 * serialised by its mutex.
 */
#include "transport/p9_serve.h"

#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "fs/fs_options.h"
#include "fs/fs_park.h"
#include "fs/9p/p9_server.h"
#include "fs/9p/p9_wire.h"
#include "fs/fs_thread.h"
#include "sandbox/sandbox.h"
#include "transport/p9_conn.h"
#include "transport/unix_listen.h"

static void usage(FILE *f)
{
	fputs("usage: stainless 9p-serve --socket PATH DIR [--socket-group GROUP] [--msize BYTES]"
	      " [--readonly] [--devices] [--xattr-map] [--poll USEC]"
	      " [--max-connections N] [--max-memory BYTES]\n"
	      "                          " SANDBOX_USAGE "\n", f);
}

/* --socket-group: a group name, or a number (which need not have a name). */
__attribute__((format(printf, 1, 2)))
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("stainless: 9p-serve: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* Whether another connection may be taken now. */
static bool slot_free(struct p9_conns *all)
{
	pthread_mutex_lock(&all->lock);
	bool free_ = all->n < all->slots;
	pthread_mutex_unlock(&all->lock);
	return free_;
}

/* One accept: false when it failed for want of fds or memory (back off). */
static bool accept_one(struct p9_server *srv, struct p9_conns *all, int lfd)
{
	int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	struct p9_peer peer;

	if (cfd < 0)
		return !(errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM);
	/* Who connected decides whom it may attach as: unknown is refused. */
	int err = p9_peer_of(cfd, &peer);
	if (!err)
		err = p9_conn_start(srv, all, cfd, &peer);
	if (err)
		close(cfd);
	return err != -ENFILE && err != -ENOMEM;
}

/*
 * The listening socket is polled only while a slot is free and the last
 * accept did not run out of fds: otherwise it would be readable at once
 * forever (a full backlog) and the loop would spin. A connection's end
 * (ended_fd) makes room; after a shortage with no connection to end, the
 * loop looks again after P9_SERVE_BACKOFF_MS.
 */
static int serve(struct p9_server *srv, struct p9_conns *all, int lfd, int sfd)
{
	struct pollfd pfd[3] = { { .fd = lfd, .events = POLLIN }, { .fd = sfd, .events = POLLIN },
				 { .fd = all->ended_fd, .events = POLLIN } };
	bool short_ = false;

	for (;;) {
		pfd[0].fd = !short_ && slot_free(all) ? lfd : -1;
		int n = poll(pfd, 3, short_ ? P9_SERVE_BACKOFF_MS : -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[1].revents)
			return 0;       /* SIGINT or SIGTERM */
		if (n == 0 || pfd[2].revents) {
			eventfd_t v;
			if (pfd[2].revents)
				(void)eventfd_read(all->ended_fd, &v);
			short_ = false;
		}
		if (pfd[0].fd >= 0 && (pfd[0].revents & POLLIN))
			short_ = !accept_one(srv, all, lfd);
	}
}

/* 9p-serve's command line. */
struct serve_args {
	const char *sock, *dir;
	gid_t gid;                /* --socket-group; (gid_t)-1: none */
	unsigned max_conns;       /* --max-connections */
	uint64_t max_mem;         /* --max-memory */
	struct fs_options opts;
	struct sandbox_opts sbo;
};

/* -1: go on; otherwise the exit code (0 after --help, 2 after one line). */
static int parse_args(int argc, char **argv, struct serve_args *a)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "socket-group", required_argument, NULL, 'g' },
		{ "msize", required_argument, NULL, 'm' },
		{ "readonly", no_argument, NULL, 'r' },
		{ "devices", no_argument, NULL, 'd' },
		{ "xattr-map", no_argument, NULL, 'x' },
		{ "poll", required_argument, NULL, 'p' },
		{ "max-connections", required_argument, NULL, 'c' },
		{ "max-memory", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "sandbox", required_argument, NULL, 'S' },
		{ "no-sandbox", no_argument, NULL, 'S' },
		{ "uid-map", required_argument, NULL, 'S' },
		{ "gid-map", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	char why[160];
	uint64_t n;
	int c, idx;

	*a = (struct serve_args){ .gid = (gid_t)-1, .max_conns = P9_SERVE_MAX_CONNS, .max_mem = P9_SERVE_MEM };
	fs_options_default(&a->opts);
	sandbox_opts_init(&a->sbo);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, &idx)) != -1) {
		switch (c) {
		case 'S':
			if (sandbox_opt(&a->sbo, longopts[idx].name, optarg, why, sizeof(why)) != 0)
				return fail("%s", why);
			break;
		case 's':
			a->sock = optarg;
			break;
		case 'g':
			if (unix_parse_group(optarg, &a->gid) < 0)
				return fail("--socket-group must be a group name or number, not '%s'", optarg);
			break;
		case 'm':
			if (parse_size(optarg, &n) < 0 || n < P9_MSIZE_MIN || n > P9_MSIZE_MAX)
				return fail("--msize must be a size between 4096 and 16M, not '%s'", optarg);
			a->opts.msize = (uint32_t)n;
			break;
		case 'r':
			a->opts.readonly = true;
			break;
		case 'd':
			a->opts.devices = true;
			break;
		case 'x':
			a->opts.xattr_map = true;
			break;
		case 'p':
			if (fs_parse_poll(optarg, &a->opts.poll_us) < 0)
				return fail("--poll must be microseconds, 0 to 10000, not '%s'", optarg);
			break;
		case 'c':
			if (parse_size(optarg, &n) < 0 || n < 1 || n > 65536)
				return fail("--max-connections must be 1 to 65536, not '%s'", optarg);
			a->max_conns = (unsigned)n;
			break;
		case 'M':
			/* At least two floors: one slot and a pool as large. */
			if (parse_size(optarg, &n) < 0 || n < 2 * P9_SERVE_MEM_FLOOR || n > (1ull << 40))
				return fail("--max-memory must be a size from 2M to 1T, not '%s'", optarg);
			a->max_mem = n;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return fail("bad option '%s' (usage: 9p-serve --socket PATH DIR [--socket-group GROUP] "
				    "[--msize BYTES] [--readonly] [--devices] [--xattr-map] [--poll USEC] "
				    "[--max-connections N] [--max-memory BYTES])", argv[optind - 1]);
		}
	}
	if (!a->sock)
		return fail("%s", "--socket PATH is required");
	if (optind != argc - 1)
		return fail("%s", optind >= argc ? "missing the directory to share"
						 : "exactly one directory to share expected");
	a->dir = argv[optind];
	return -1;
}

/* Threads inherit this mask: the stop signals arrive only through the fd. */
static int stop_signal_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, FS_PARK_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sigdelset(&set, FS_PARK_SIGNAL);
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC);
}

int p9_serve_main(int argc, char **argv)
{
	struct serve_args a;
	struct sandbox sb;
	struct unix_left left;
	struct p9_server *srv;
	int c, err, lfd, sfd;

	if ((c = parse_args(argc, argv, &a)) >= 0)
		return c;
	/* The socket where the user asked, before the sandbox hides the path. */
	lfd = unix_listen(a.sock, a.gid, 64);
	if (lfd < 0) {
		fprintf(stderr, "stainless: 9p-serve: cannot listen on '%s': %s\n", a.sock,
			strerror(-lfd));
		return 1;
	}
	sandbox_init(&sb, "9p-serve", &a.sbo);
	sb.host_ids = true;
	sb.devices = a.opts.devices;
	unix_left_init(&left, a.sock);
	sb.hooks = (struct sandbox_hooks){ .ended = unix_left_remove, .ctx = &left };
	err = sandbox_enter(&sb, &c);
	if (err)
		return err > 0 ? c : 1;
	srv = NULL;
	if ((err = sandbox_add_share(&sb, a.dir, a.opts.readonly)) < 0 ||
	    (err = sandbox_add_user_db(&sb)) < 0 || (err = sandbox_lockdown(&sb)) < 0)
		goto fail;
	fs_fd_raise_nofile(); /* before the budget is first read; best effort */
	err = p9_server_create(&srv, sandbox_path(&sb, a.dir), &a.opts);
	if (err < 0) {
		fprintf(stderr, "stainless: 9p-serve: cannot share '%s': %s\n", a.dir, strerror(-err));
		goto fail;
	}
	sfd = stop_signal_fd();
	if (sfd < 0) {
		fprintf(stderr, "stainless: 9p-serve: signalfd: %s\n", strerror(errno));
		goto fail;
	}
	struct p9_conns all = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
				.poll_us = a.opts.poll_us };
	err = p9_conns_init(&all, a.max_conns, a.max_mem);
	if (err) {
		fprintf(stderr, "stainless: 9p-serve: %s\n", strerror(-err));
		close(sfd);
		goto fail;
	}
	/* Set up: from here on this thread accepts and hands connections out. */
	err = fs_thread_enter(FS_ROLE_CONTROL);
	if (err == 0)
		err = serve(srv, &all, lfd, sfd);
	close(lfd);
	/* Confined, the path names something else or nothing: the supervisor removes it. */
	if (sb.opts.mode == SANDBOX_NONE)
		unlink(a.sock);
	close(sfd);
	/* A connection stuck past the grace time keeps the server: exit ends both. */
	if (p9_conns_stop(&all)) {
		p9_server_destroy(srv);
		close(all.ended_fd);
	}
	if (err < 0) {
		fprintf(stderr, "stainless: 9p-serve: %s\n", strerror(-err));
		return 1;
	}
	return 0;
fail:
	close(lfd);
	if (sb.opts.mode == SANDBOX_NONE)
		unlink(a.sock);
	if (srv)
		p9_server_destroy(srv);
	return 1;
}

