/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The FUSE server on the host's /dev/fuse: reader threads on a mounted
 * connection's fd (fuse_mount.c says how many and why), each request
 * handled inline and answered with one write(2). The mount itself is
 * fuse_mountpoint.h's; the command (cmd/fuse_mount.c) puts both together.
 */
#ifndef STAINLESS_TRANSPORT_FUSE_MOUNT_H
#define STAINLESS_TRANSPORT_FUSE_MOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fuse_server;
struct fuse_mountpoint;
struct fuse_mount_channel;

/*
 * What the readers will share: the other readers' /dev/fuse fds, opened
 * now (a chroot has no /dev/fuse), and with want_uring the io_uring
 * channel INIT may start. 0 or -errno.
 */
int fuse_mount_channel_new(struct fuse_mount_channel **ch, bool want_uring);
/* The requests the /dev/fuse readers took (not the io_uring queues'), once they ended. */
uint64_t fuse_mount_channel_requests(const struct fuse_mount_channel *ch);
/* After the server is destroyed (parked requests answered). NULL: nothing. */
void fuse_mount_channel_free(struct fuse_mount_channel *ch);

/*
 * The server's notify hook (fuse_server_params): one FUSE notification
 * written to the connection, ctx pointing at its fd. 0 or -errno (-ENOENT:
 * the kernel had nothing cached to forget).
 */
int fuse_mount_notify(void *ctx, const void *msg, size_t len);

/*
 * Serve the connection fd until SIGINT/SIGTERM (then unmount mp; mp NULL:
 * someone else does) or until the readers end (an external unmount). The
 * calling thread becomes the control role. 0, or 1 when nobody served.
 */
int fuse_mount_serve(struct fuse_mount_channel *ch, struct fuse_server *srv, int fd,
		     struct fuse_mountpoint *mp);

#endif
