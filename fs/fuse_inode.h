/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The FUSE server's bounded tables: inodes (keyed by host (st_dev, st_ino),
 * each holding an O_PATH fd and the client's lookup count) and open file
 * handles. Ids handed to the client are (generation << 32 | index), so a
 * forgotten or never-issued id fails the generation check instead of naming
 * a recycled slot. Looking an id up takes a reference with one CAS on the
 * slot's (generation, refs) word -- no lock on the read/write path; the
 * table mutex only guards the (dev, ino) hash, lookup counts and the free
 * lists. A slot's fd is closed when its last reference goes.
 */
#ifndef STAINLESS_FS_FUSE_INODE_H
#define STAINLESS_FS_FUSE_INODE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* One open file description per POSIX lock owner of an inode (fuse_lock.c). */
struct fuse_lock_owner {
	uint64_t owner;
	int fd;
	struct fuse_lock_owner *next;
};

struct fuse_inode {
	_Atomic uint64_t state; /* generation << 32 | references */
	int fd;                 /* O_PATH|O_NOFOLLOW */
	dev_t dev;
	ino_t ino;
	mode_t type;            /* S_IFMT bits, fixed for the inode's life */
	bool submount;          /* a directory on another st_dev than its parent */
	uint32_t idx;
	/* Under the table mutex: */
	uint64_t nlookup;
	uint32_t hash_next;
	uint32_t free_next;
	bool hashed;
	/* Under the server's lock mutex: */
	struct fuse_lock_owner *owners;
};

struct fuse_itable {
	pthread_mutex_t mu;
	struct fuse_inode *slots;
	uint32_t cap;           /* slots[0] unused; slots[1] is the root */
	uint32_t used;          /* high-water mark of allocated slots */
	uint32_t free_head;     /* 0: none */
	uint32_t live;
	uint32_t *buckets;
	uint32_t nbuckets;      /* power of two */
	/* Lock-owner OFDs (fuse_lock.c) hold fds too: counted and bounded. */
	_Atomic uint32_t nowners;
	uint32_t max_owners;
};

#define FUSE_ID(gen, idx) (((uint64_t)(gen) << 32) | (idx))
#define FUSE_REFS(s) ((uint32_t)(s))
#define FUSE_GEN(s) ((uint32_t)((s) >> 32))

/*
 * Slot references, shared with the handle table (fuse_handle.c). One CAS:
 * succeeds only while the slot is live in the wanted generation.
 */
static inline bool fuse_slot_tryget(_Atomic uint64_t *state, uint32_t gen)
{
	uint64_t s = atomic_load_explicit(state, memory_order_acquire);

	for (;;) {
		if (FUSE_GEN(s) != gen || FUSE_REFS(s) == 0 || FUSE_REFS(s) == UINT32_MAX)
			return false;
		if (atomic_compare_exchange_weak_explicit(state, &s, s + 1,
							  memory_order_acquire,
							  memory_order_acquire))
			return true;
	}
}

/* True when the caller dropped the last reference. */
static inline bool fuse_slot_put(_Atomic uint64_t *state)
{
	uint64_t s = atomic_fetch_sub_explicit(state, 1, memory_order_acq_rel);

	return FUSE_REFS(s) == 1;
}

int fuse_itable_init(struct fuse_itable *t, uint32_t cap);
void fuse_itable_fini(struct fuse_itable *t);

/*
 * Installs the root (nodeid 1, never forgotten) with fd; takes the fd.
 */
int fuse_itable_set_root(struct fuse_itable *t, int fd, const struct stat *st);

/*
 * Finds or adds the inode for st (found under a directory on parent_dev:
 * a directory on another device is a submount) and counts one client
 * lookup. Takes fd
 * (closes it when the inode was known). Returns a referenced inode in *out,
 * or -ENFILE when the table is full (fd closed).
 */
int fuse_inode_lookup_add(struct fuse_itable *t, int fd, const struct stat *st,
			  dev_t parent_dev, struct fuse_inode **out);

/* A referenced inode for nodeid, or NULL if it names none. */
struct fuse_inode *fuse_inode_get(struct fuse_itable *t, uint64_t nodeid);
void fuse_inode_ref(struct fuse_inode *ino);
void fuse_inode_put(struct fuse_itable *t, struct fuse_inode *ino);

/* The client forgets n lookups of nodeid; unknown ids are ignored. */
void fuse_inode_forget(struct fuse_itable *t, uint64_t nodeid, uint64_t n);
uint64_t fuse_inode_nodeid(const struct fuse_inode *ino);
uint32_t fuse_inode_gen(const struct fuse_inode *ino);

/* Forgets every inode but the root (reset). */
void fuse_itable_forget_all(struct fuse_itable *t);

#endif
