/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Name checks, beneath-the-root opens and per-request credentials shared by
 * the FUSE and 9p servers. A guest or client only ever names one path
 * component at a time, relative to an O_PATH fd the server already holds,
 * so nothing it says can climb out of the share.
 */
#ifndef STAINLESS_FS_RESOLVE_H
#define STAINLESS_FS_RESOLVE_H

#include <stddef.h>
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
 * Run the calling thread's filesystem calls as uid/gid with the given
 * supplementary groups (per-thread: setfsuid/setfsgid and the raw setgroups
 * syscall, which unlike glibc's wrapper does not touch other threads), so
 * permission checks are the host kernel's. Only effective when running as
 * root; otherwise a no-op that reports success. fs_creds_reset() goes back
 * to root with no supplementary groups.
 */
int fs_creds_set(uid_t uid, gid_t gid, const gid_t *groups, size_t ngroups);
void fs_creds_reset(void);

#endif
