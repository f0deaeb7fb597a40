/* SPDX-License-Identifier: GPL-2.0-only */
/* 9p-serve's listening socket: the accept loop over the connection slots. */
#ifndef STAINLESS_TRANSPORT_P9_SERVE_H
#define STAINLESS_TRANSPORT_P9_SERVE_H

struct p9_server;
struct p9_conns;

/*
 * SIGINT and SIGTERM through the returned signalfd (every thread created
 * after inherits the mask), the park signal blocked, SIGPIPE ignored.
 * The fd or -1 (errno).
 */
int p9_serve_signals(void);

/*
 * Accept on lfd and start a connection for each peer while a slot is
 * free, until sfd (p9_serve_signals) is readable: 0, or -errno.
 */
int p9_serve_accept(struct p9_server *srv, struct p9_conns *all, int lfd, int sfd);

#endif
