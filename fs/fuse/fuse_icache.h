/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the inode table: its fd cache, shared by fuse_inode.c (the table,
 * the CLOCK ring, eviction) and fuse_inode_name.c (reopening by name,
 * names that move). Nothing else includes this.
 */
#ifndef STAINLESS_FS_FUSE_FUSE_ICACHE_H
#define STAINLESS_FS_FUSE_FUSE_ICACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "fs/fuse/fuse_inode.h"

/* The fdw word: the fd (+1, so 0 is "none") and its users. */
#define FDW(fd, users) (((uint64_t)(uint32_t)((fd) + 1) << 32) | (users))
#define FDW_FD(w) ((int)((w) >> 32) - 1)
#define FDW_USERS(w) ((uint32_t)(w))

/*
 * Makes fd (uncharged, the caller's) the cached fd of the referenced,
 * named ino with users requests using it; false (the caller keeps fd)
 * when the budget is tight and nothing could be evicted, or ino got an
 * fd meanwhile.
 */
bool fuse_icache_install(struct fuse_itable *t, struct fuse_inode *ino, int fd, uint32_t users);

/* Under t->mu: ino off the ring of evictable fds (its fd, if any, is kept). */
void fuse_icache_drop_locked(struct fuse_itable *t, struct fuse_inode *ino);

#endif
