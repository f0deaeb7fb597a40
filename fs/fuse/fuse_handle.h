/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The FUSE server's open file handles (OPEN, CREATE, OPENDIR, TMPFILE):
 * host fds in a slot table (fuse_slots.h: generation-checked ids,
 * lock-free references), as the inodes are. A handle holds a reference on
 * its inode while it lives.
 */
#ifndef STAINLESS_FS_FUSE_FUSE_HANDLE_H
#define STAINLESS_FS_FUSE_FUSE_HANDLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fs/fs_io.h"
#include "fs/fuse/fuse_inode.h"
#include "fs/fuse/fuse_slots.h"

struct fuse_dir_rest;

struct fuse_handle {
	struct fuse_slot slot;  /* first: the table's bookkeeping */
	_Atomic bool released;
	_Atomic bool passthrough; /* holds a use of its inode's backing id (fuse_passthrough.c) */
	int fd;
	int flags;              /* open flags as used on the host */
	fs_nowait_state nowait_off[2]; /* [is_write]: what the file said to RWF_NOWAIT (fs_io.h) */
	struct fuse_inode *inode; /* referenced while the handle lives */
	pthread_mutex_t dir_mu; /* directories: one READDIR at a time */
	struct fuse_dir_rest *dir_rest; /* entries read, not yet sent; under dir_mu (fuse_ops_dir.c) */
	int64_t dir_off;        /* the offset the fd stands at for a client reading on; -1: unknown */
};

struct fuse_htable {
	pthread_mutex_t mu;     /* allocation and freeing */
	struct fuse_slots slots;
	struct fuse_itable *it; /* whose cached fds make room in the budget */
};

/*
 * Frees h's directory buffer, if any, and gives its bytes back to the
 * budget (fuse_ops_dir.c). Under dir_mu, or when h is no longer used.
 */
void fuse_dir_rest_free(struct fuse_handle *h);

/* Slots of the handle table unless a front end says otherwise. */
#define FUSE_HANDLES_DEFAULT (1u << 16)

/* cap slots; it is the inode table whose cached fds give way to open files. */
int fuse_htable_init(struct fuse_htable *t, uint32_t cap, struct fuse_itable *it);
void fuse_htable_fini(struct fuse_htable *t);

/*
 * Adds an open fd for inode (takes fd and a new reference on inode),
 * charging it to the fd budget. Returns the handle id in *fh, or -ENFILE
 * when the table is full or the budget spent (fd closed).
 */
int fuse_handle_add(struct fuse_htable *t, int fd, int flags,
		    struct fuse_inode *inode, uint64_t *fh);
struct fuse_handle *fuse_handle_get(struct fuse_htable *t, uint64_t fh);
/* iput is called with the inode when the last handle reference goes. */
void fuse_handle_put(struct fuse_htable *t, struct fuse_handle *h,
		     struct fuse_itable *it);
/* RELEASE: 0, or -EBADF when fh is not live (already released). */
int fuse_handle_release(struct fuse_htable *ht, uint64_t fh,
			struct fuse_itable *it);
void fuse_htable_release_all(struct fuse_htable *ht, struct fuse_itable *it);

#endif
