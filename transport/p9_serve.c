// SPDX-License-Identifier: GPL-2.0-only
/*
 * 9p-serve's listening socket (p9_serve.h): connections accepted while
 * there is room for them, each handed to its own thread (p9_conn.c). The
 * command (cmd/p9_serve.c) puts the server, the socket and the sandbox
 * together.
 */
#include "transport/p9_serve.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fs/fs_park.h"
#include "transport/p9_conn.h"

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
int p9_serve_accept(struct p9_server *srv, struct p9_conns *all, int lfd, int sfd)
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

/* Threads inherit this mask: the stop signals arrive only through the fd. */
int p9_serve_signals(void)
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
