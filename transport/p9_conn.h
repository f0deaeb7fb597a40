/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * 9p-serve's connections: what transport/p9_serve.c's accept loop hands
 * each accepted socket to. Sharing among clients, and why, is described
 * at the top of p9_serve.c.
 */
#ifndef STAINLESS_TRANSPORT_P9_CONN_H
#define STAINLESS_TRANSPORT_P9_CONN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "fs/fs_fair.h"
#include "fs/9p/p9_server.h"

/* A session's floor of fds (its socket, fids, open files) and of bytes. */
#define P9_SERVE_FD_FLOOR 64u
#define P9_SERVE_MEM_FLOOR (1u << 20)
#define P9_SERVE_MAX_CONNS 64u
#define P9_SERVE_MEM (128u << 20)
/* After accept failed for want of fds or memory, and no connection ended. */
#define P9_SERVE_BACKOFF_MS 100


/* The live connections, so that shutdown can end them and wait. */
struct p9_conns {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct p9_conn *head;
	unsigned n;
	unsigned slots;         /* connections served at once, at most */
	int ended_fd;           /* eventfd: a connection ended (the accept loop waits on it) */
	struct fs_fair fds, bytes;
	uint64_t requests;      /* --stats: messages of the connections that ended (lock) */
	uint64_t connections;   /* ... and how many ended */
};

/*
 * Who connected, as the kernel saw it at connect: SO_PEERCRED's uid and
 * gid and SO_PEERGROUPS's groups (a peer in more than P9_SERVE_GROUPS
 * keeps only its gid: fewer rights, never more). 0 or -errno.
 */
#define P9_SERVE_GROUPS 64u
struct p9_peer {
	struct ucred cr;
	gid_t groups[P9_SERVE_GROUPS];
	size_t ngroups;
};


/* Who is at the other end of fd: 0 or -errno. */
int p9_peer_of(int fd, struct p9_peer *p);
/*
 * Serves fd (its socket, from accept) on a thread of its own, with a
 * session of srv for peer: 0, or -errno and fd stays the caller's
 * (-EAGAIN: every slot taken; -ENFILE: no fd left for it).
 */
int p9_conn_start(struct p9_server *srv, struct p9_conns *all, int fd, const struct p9_peer *peer);
/* Ends every connection (their threads see EOF) and waits up to 2 s: all gone? */
bool p9_conns_stop(struct p9_conns *all);
/*
 * The connection slots and the shares' floors: as many slots as asked,
 * or fewer where the fd budget or max_mem cannot hold their floors and a
 * pool as large. lock and cond are the caller's. 0 or -errno.
 */
int p9_conns_init(struct p9_conns *all, unsigned max_conns, uint64_t max_mem);

#endif
