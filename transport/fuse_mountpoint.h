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
 * socket (its _FUSE_COMMFD protocol), run by this process itself, before
 * the sandbox (in the host's user namespace, without no_new_privs, so its
 * setuid takes effect); a small unmounter process forked then runs
 * `fusermount3 -u -z` when told and says when it has finished
 * (fuse_mountpoint.c says why it is the one process without a seccomp
 * filter); allow_other only when -o asks for it, and without root only
 * where /etc/fuse.conf says user_allow_other (fuse_mount_opts.h).
 * fusermount3 opens /dev/fuse as the calling user (that node's mode is
 * how an administrator grants FUSE to users), so without root a /dev/fuse
 * the user cannot open read-write, or no_new_privs, means no mount: one
 * line says which before fusermount3 is tried.
 *
 * Whoever takes the mount down reads the mount table, and writes the
 * connection's abort file, through fds opened with the mount (info_fd,
 * abort_fd) and the unmounter's pipes: the supervisor's filter opens no
 * file, and a chrooted server has no /proc. fuse-mount hands them to
 * sandbox_keep_fd().
 * (A FUSE mount made inside our own user namespace would be allowed, but
 * no one in the host's namespace would see it.)
 */
#ifndef STAINLESS_TRANSPORT_FUSE_MOUNTPOINT_H
#define STAINLESS_TRANSPORT_FUSE_MOUNTPOINT_H

#include <stdbool.h>
#include <sys/types.h>

#include <limits.h>

#include "transport/fuse_mount_opts.h"

struct fuse_mountpoint {
	const char *path;   /* as given */
	char real[PATH_MAX]; /* canonical, as mountinfo shows it */
	dev_t dev;          /* the mount's device (mountinfo), 0 if unknown */
	bool by_helper;     /* made by fusermount3 */
	int info_fd;        /* /proc/self/mountinfo of the host's namespace, or -1 */
	int abort_fd;       /* /sys/fs/fuse/connections/N/abort (root), or -1 */
	int unmount_fd;     /* without root: closing it makes the unmounter unmount, or -1 */
	int unmounted_fd;   /* without root: EOF once the unmounter has finished, or -1 */
};

/*
 * Mounts a FUSE file system served by the returned fd (non-blocking,
 * close-on-exec) at mp->path, reads fuse_server's max_read. fd, or -errno
 * after printing why.
 */
int fuse_mountpoint_open_args(struct fuse_mountpoint *mp, const char *path, unsigned max_read,
			      const struct fuse_mount_args *ma);

/*
 * Unmounts it: at once when nothing holds it, else lazily, and then the
 * connection is aborted so that busy files cannot hold the server. A
 * mount that is no longer ours (gone, or another on the same path) is left.
 * Without root: closes the unmounter's pipe and waits until the unmounter
 * has run fusermount3 and exited. Makes no system call but pread, read,
 * umount2, write and close (a supervisor's filter allows those). 0, or
 * -errno when a mount of ours stays (a chrooted server has given up
 * CAP_SYS_ADMIN and cannot unmount: -EPERM).
 */
int fuse_mountpoint_close(struct fuse_mountpoint *mp);

/*
 * The mount is gone already (its server read ENODEV): nothing is unmounted,
 * by name or otherwise, since a new mount may stand on the same mount point
 * by now. Without root, tells the unmounter so and waits for it to exit.
 */
void fuse_mountpoint_gone(struct fuse_mountpoint *mp);

#endif
