/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-mount's mount point: making the FUSE mount at MOUNTPOINT in the
 * host's mount namespace, and taking it down. Kept apart from the readers
 * because with the sandbox both ends happen in the supervisor, outside the
 * server's namespaces (sandbox/sandbox.h): the mount is made before the
 * fork and taken down by the supervisor on SIGINT/SIGTERM, which ends the
 * server's reads with ENODEV.
 *
 * As root, mount(2) directly. Without root, fusermount3 (setuid, from
 * Debian's fuse3) makes the mount and hands back the /dev/fuse fd over a
 * socket (its _FUSE_COMMFD protocol), and `fusermount3 -u -z` takes it
 * down; allow_other then only where /etc/fuse.conf says user_allow_other.
 * (A FUSE mount made inside our own user namespace would be allowed, but
 * no one in the host's namespace would see it.)
 */
#ifndef STAINLESS_TRANSPORT_FUSE_MOUNTPOINT_H
#define STAINLESS_TRANSPORT_FUSE_MOUNTPOINT_H

#include <stdbool.h>
#include <sys/types.h>

#include <limits.h>

struct fuse_mountpoint {
	const char *path;   /* as given */
	char real[PATH_MAX]; /* canonical, as mountinfo shows it */
	dev_t dev;          /* the mount's device (mountinfo), 0 if unknown */
	bool by_helper;     /* made by fusermount3 */
};

/*
 * Mounts a FUSE file system served by the returned fd (non-blocking,
 * close-on-exec) at mp->path, reads fuse_server's max_read. fd, or -errno
 * after printing why.
 */
int fuse_mountpoint_open(struct fuse_mountpoint *mp, const char *path, unsigned max_read);

/*
 * Unmounts it: at once when nothing holds it, else lazily, and then the
 * connection is aborted so that busy files cannot hold the server. A
 * mount that is no longer ours (gone, or another on the same path) is left.
 */
void fuse_mountpoint_close(struct fuse_mountpoint *mp);

#endif
