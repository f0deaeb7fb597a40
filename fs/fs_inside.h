/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whether a directory the server holds an fd of is still inside the
 * share. Opening one component beneath a directory fd (resolve.h) keeps
 * a name from climbing out, but not the directory itself: a host process
 * that moves a directory out of the share (rename to the share's parent)
 * takes the server's fd with it, and a client whose working directory
 * it was would then look up, list and create names outside the share.
 * The servers ask before using a directory for names.
 */
#ifndef STAINLESS_FS_FS_INSIDE_H
#define STAINLESS_FS_FS_INSIDE_H

#include <stdbool.h>
#include <sys/types.h>

struct fs_root_id {
	dev_t dev;
	ino_t ino;
	/*
	 * The share is the root of the mount the server sees it through (the
	 * sandbox's bind mount, a file system's own root): the kernel then
	 * refuses ".." from a directory moved out of it (ENOENT), one call.
	 * Otherwise (--sandbox none on a subdirectory) the check walks up.
	 */
	bool mount_root;
};

/* Fills r from the share's root fd. 0 or -errno. */
int fs_root_id_init(struct fs_root_id *r, int rootfd);

/* 0 when dirfd is the root or beneath it, -ESTALE when it was moved out, else -errno. */
int fs_dir_inside(const struct fs_root_id *r, int dirfd);

#endif
