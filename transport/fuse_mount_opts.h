/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-mount's -o list, as a FUSE file system takes one from mount(8),
 * an fstab line or a user: the share's own words (cache=MODE, readonly,
 * xattr, xattr=map, writeback, devices, uring, passthrough), the kernel's mount flags
 * (ro, rw, noatime, nodev, nosuid, noexec, sync, dirsync ...), the FUSE
 * mount's own (allow_other, default_permissions, fsname=), and the words
 * mount(8) and fstab carry for themselves (defaults, noauto, nofail,
 * _netdev, x-*...), which are taken and ignored.
 *
 * allow_other is a choice: without it only the user who mounted (root,
 * when root mounts) reaches the files, as with every FUSE file system.
 * default_permissions is always on: the kernel checks the mode bits
 * before a request is sent, so a server thread never answers for a
 * caller the modes would refuse.
 */
#ifndef STAINLESS_TRANSPORT_FUSE_MOUNT_OPTS_H
#define STAINLESS_TRANSPORT_FUSE_MOUNT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs/fs_options.h"

struct fuse_mount_args {
	unsigned long msflags;   /* mount(2)'s MS_*: nosuid,nodev unless suid/dev */
	bool allow_other;
	bool uring;              /* -o uring, as --uring */
	bool passthrough;        /* -o passthrough, as --passthrough */
	uint32_t watches;        /* -o watches=N, as --watches (watches_set) */
	bool watches_set;
	char fsname[128];        /* mountinfo's source field; "stainless" by default */
};

void fuse_mount_args_init(struct fuse_mount_args *ma);

/*
 * One -o argument (comma-separated words) into o and ma. ro sets the
 * share readonly too (a read-only mount of a writable share would refuse
 * writes in the kernel only). 0, or -EINVAL with one line in err.
 */
int fuse_mount_parse_o(const char *arg, struct fs_options *o, struct fuse_mount_args *ma,
		       char *err, size_t errlen);

/*
 * The words of the FUSE mount's data string after fd=,rootmode=,user_id=,
 * group_id= (mount(2) as root: the name is its source), or of
 * fusermount3's -o (helper true: the name, the subtype and the flags as
 * words). 0, or -ENAMETOOLONG.
 */
int fuse_mount_args_words(const struct fuse_mount_args *ma, bool helper, unsigned max_read,
			  char *buf, size_t len);

#endif
