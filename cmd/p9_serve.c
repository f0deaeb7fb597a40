// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless 9p-serve --socket PATH DIR [--socket-group GROUP] [--msize BYTES]
 * [--readonly] [--devices] [--xattr-map] [--max-connections N]
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
#include "cmd/p9_serve.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/exit.h"
#include "base/fail.h"
#include "base/thread.h"
#include "fs/fs_fdbudget.h"
#include "fs/fs_options.h"
#include "fs/9p/p9_server.h"
#include "sandbox/sandbox.h"
#include "transport/p9_conn.h"
#include "transport/p9_serve.h"
#include "transport/unix_listen.h"

static void usage(FILE *f)
{
	fputs("usage: stainless 9p-serve --socket PATH DIR [--socket-group GROUP] [--msize BYTES]"
	      " [--readonly] [--devices] [--xattr-map]"
	      " [--max-connections N] [--max-memory BYTES]\n"
	      "                          " SANDBOX_USAGE "\n", f);
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
				return fail(EXIT_USAGE, "%s", why);
			break;
		case 's':
			a->sock = optarg;
			break;
		case 'g':
			if (unix_parse_group(optarg, &a->gid) < 0)
				return fail(EXIT_USAGE, "--socket-group must be a group name or number, not '%s'", optarg);
			break;
		case 'm':
			if (parse_size(optarg, &n) < 0 || n < P9_MSIZE_MIN || n > P9_MSIZE_MAX)
				return fail(EXIT_USAGE, "--msize must be a size between 4096 and 16M, not '%s'", optarg);
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
			/* A busy-wait that did not earn its place (transport/p9_conn.c). */
			return fail(EXIT_USAGE, "--poll is gone: connections sleep until the next "
				    "request");
		case 'c':
			if (parse_size(optarg, &n) < 0 || n < 1 || n > 65536)
				return fail(EXIT_USAGE, "--max-connections must be 1 to 65536, not '%s'", optarg);
			a->max_conns = (unsigned)n;
			break;
		case 'M':
			/* At least two floors: one slot and a pool as large. */
			if (parse_size(optarg, &n) < 0 || n < 2 * P9_SERVE_MEM_FLOOR || n > (1ull << 40))
				return fail(EXIT_USAGE, "--max-memory must be a size from 2M to 1T, not '%s'", optarg);
			a->max_mem = n;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return fail(EXIT_USAGE, "bad option '%s' (usage: 9p-serve --socket PATH DIR [--socket-group GROUP] "
				    "[--msize BYTES] [--readonly] [--devices] [--xattr-map] "
				    "[--max-connections N] [--max-memory BYTES])", argv[optind - 1]);
		}
	}
	if (!a->sock)
		return fail(EXIT_USAGE, "%s", "--socket PATH is required");
	if (optind != argc - 1)
		return fail(EXIT_USAGE, "%s", optind >= argc ? "missing the directory to share"
						 : "exactly one directory to share expected");
	a->dir = argv[optind];
	return -1;
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
		fail(0, "cannot listen on '%s': %s", a.sock,
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
		fail(0, "cannot share '%s': %s", a.dir, strerror(-err));
		goto fail;
	}
	sfd = p9_serve_signals();
	if (sfd < 0) {
		fail(0, "signalfd: %s", strerror(errno));
		goto fail;
	}
	struct p9_conns all = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	err = p9_conns_init(&all, a.max_conns, a.max_mem);
	if (err) {
		fail(0, "%s", strerror(-err));
		close(sfd);
		goto fail;
	}
	/* Set up: from here on this thread accepts and hands connections out. */
	err = fs_thread_enter(FS_ROLE_CONTROL);
	if (err == 0)
		err = p9_serve_accept(srv, &all, lfd, sfd);
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
		fail(0, "%s", strerror(-err));
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

