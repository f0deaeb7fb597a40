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
#include "cmd/p9_serve_cli.h"
#include "fs/fs_fdbudget.h"
#include "fs/fs_log.h"
#include "fs/fs_options.h"
#include "fs/9p/p9_server.h"
#include "sandbox/sandbox.h"
#include "transport/p9_conn.h"
#include "transport/p9_serve.h"
#include "transport/unix_listen.h"

int p9_serve_main(int argc, char **argv)
{
	struct p9_serve_args a;
	struct sandbox sb;
	struct unix_left left;
	struct p9_server *srv;
	int c, err, lfd, sfd;

	if ((c = p9_serve_parse(argc, argv, &a)) >= 0)
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
	sb.hooks = (struct sandbox_hooks){ .ended = unix_left_ended, .ctx = &left };
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
	fs_log(FS_LOG_INFO, "serving %s on %s", a.dir, a.sock);
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
	bool stopped = p9_conns_stop(&all);
	if (a.cc.stats) {
		pthread_mutex_lock(&all.lock);
		fprintf(stderr, "stainless 9p-serve: stats: connections=%llu requests=%llu\n",
			(unsigned long long)all.connections, (unsigned long long)all.requests);
		pthread_mutex_unlock(&all.lock);
	}
	if (stopped) {
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

