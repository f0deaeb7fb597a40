/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Name checks and beneath-the-root opens shared by the FUSE and 9p servers. A guest or client only ever names one path
 * component at a time, relative to an O_PATH fd the server already holds,
 * so nothing it says can climb out of the share.
 */
#ifndef STAINLESS_FS_RESOLVE_H
#define STAINLESS_FS_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * 0 when name (len bytes, not necessarily NUL-terminated) is one ordinary
 * path component; -EINVAL for "", ".", "..", or a '/' or NUL inside;
 * -ENAMETOOLONG past NAME_MAX. Servers that give ".." a meaning (9p walk)
 * handle it before calling this.
 */
int fs_name_check(const char *name, size_t len);

/*
 * openat2() of one checked component beneath dirfd: no magic links, no
 * escaping the directory, symlinks not followed (O_NOFOLLOW is added).
 * Returns an fd or -errno.
 */
int fs_open_beneath(int dirfd, const char *name, int flags, mode_t mode);

/*
 * What the servers may open on a client's behalf: regular files and
 * directories, nothing else. Opening a device node would hand the client
 * a host device; opening a FIFO blocks the thread until a writer comes;
 * guest kernels serve both themselves and never ask a server to open
 * them. 0 when st is openable, else the errno to answer: ELOOP for a
 * symlink (the servers never follow one), ENXIO for the rest.
 */
int fs_openable(const struct stat *st);

/*
 * Opens, with real access flags, the object the O_PATH fd pfd names
 * (through its /proc/self/fd entry: Linux has no reopen-by-fd call;
 * proc_fd is an O_PATH fd of /proc/self/fd). The type is checked on pfd
 * itself before anything is opened, and cannot change while pfd is held.
 * O_CREAT, O_EXCL and O_NOFOLLOW are dropped from flags. fd or -errno.
 */
int fs_reopen(int proc_fd, int pfd, int flags);

/*
 * The process's O_PATH fd of /proc/self/fd, opened at the first call and
 * kept: the sandbox makes that call once its /proc is in place (or before
 * /proc goes out of reach, in chroot mode), and every server then reopens
 * through that fd, not through the path. An fd (never to be closed) or
 * -errno; fs_proc_self_fd_dup() gives a server its own copy to close.
 */
int fs_proc_self_fd(void);
int fs_proc_self_fd_dup(void);

/*
 * CREATE and Tlcreate: makes name beneath dirfd with O_EXCL first; when
 * it exists and the client did not ask for O_EXCL, opens the existing
 * entry through an O_PATH fd and fs_reopen(), so only a regular file (or
 * a directory, refused with EISDIR) is ever opened. *created says
 * whether the file is new. fd or -errno.
 */
int fs_create_beneath(int proc_fd, int dirfd, const char *name, int flags,
		      mode_t mode, bool excl, bool *created);

/*
 * MKNOD and Tmknod: which nodes a client may make. Regular files, FIFOs
 * and sockets always (*rdev cleared: it means nothing for them), and the
 * overlayfs whiteout (a character device 0:0), so overlayfs can keep its
 * upper directory on a share; other character and block devices only on
 * a share with `devices`, since a device node is a host file with a
 * client-chosen major:minor that host users may open. 0, -EPERM, or
 * -EINVAL for a type that is no node at all.
 */
int fs_mknod_allowed(mode_t mode, dev_t *rdev, bool devices);

#endif
