/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Listening Unix stream sockets for the host front ends that take
 * clients on a socket path (vhost-user-fs; 9p-serve has its own copy
 * until it moves beside this).
 */
#ifndef STAINLESS_TRANSPORT_UNIX_LISTEN_H
#define STAINLESS_TRANSPORT_UNIX_LISTEN_H

#include <sys/types.h>

/*
 * Binds and listens on path, mode 0600, or 0660 owned by gid when gid is
 * not (gid_t)-1. A socket file left by a dead server is replaced, a live
 * one is not (-EADDRINUSE), anything else at path is kept (-EEXIST).
 * Returns the fd or -errno.
 */
int unix_listen(const char *path, gid_t gid, int backlog);

/*
 * The socket file a server bound, to be removed from the host once the
 * server is gone, by the sandbox's supervisor (from inside the sandbox
 * its path is out of reach), but only if it is still the one bound and
 * not a successor's. unix_left_init() right after unix_listen();
 * unix_left_remove() does it; unix_left_ended() fits sandbox_hooks.ended
 * (ctx: the unix_left).
 */
struct unix_left {
	const char *path;
	dev_t dev;
	ino_t ino;
};

void unix_left_init(struct unix_left *l, const char *path);
void unix_left_remove(void *ctx);
void unix_left_ended(void *ctx, int status);

/* A group name, or a number (which need not have a name): 0 or -EINVAL. */
int unix_parse_group(const char *arg, gid_t *out);

/* Is fd a listening Unix stream socket (one handed over by a runtime)? */
int unix_check_listener(int fd);

#endif
