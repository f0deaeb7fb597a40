/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The FUSE server's bounded inode table, keyed by host (st_dev, st_ino):
 * each inode the client remembers has a slot (fuse_slots.h) with its
 * lookup count, and its nodeid is the slot's generation-checked id.
 * Looking an id up takes a reference with one CAS -- no lock on the
 * read/write path; the table mutex only guards the (dev, ino) hash, lookup
 * counts, the free list and the ring of cached fds.
 *
 * Host fds. Every fd an inode keeps is charged to the process's budget
 * (fs_fdbudget.h). Where the share's filesystem gives file handles
 * (name_to_handle_at; tmpfs, ext4, xfs, btrfs) and the process may open
 * them (CAP_DAC_READ_SEARCH), an inode stores the handle the server made
 * from the fd it resolved beneath the share -- never one a client sent --
 * and its O_PATH fd is only a cache: kept while the budget is not tight,
 * closed when it is by a CLOCK sweep (roughly least recently used first:
 * an fd used since the last pass gets another), and reopened by handle
 * (open_by_handle_at on a directory fd of the root, which the share keeps)
 * when a request needs it. A client may then remember far more inodes
 * than the process has fds. Only inodes on the root's own mount get
 * handles: open_by_handle_at decodes on the mount of its mount fd, and
 * the root is the one mount whose fd the server keeps anyway; an inode on
 * a submount (another mount id) keeps its fd for life, as does every inode
 * when handles are unavailable, and then a spent budget answers ENFILE.
 *
 * Using an inode's fd: fuse_inode_fd() hands a request an fd and holds it
 * until fuse_inode_fd_put(). A cached fd counts its users in the same word
 * that holds it, and the sweep takes it only with a CAS that sees no
 * users, so an fd in use is never closed under a request. When the budget has
 * no fd left for a reopened inode, the request gets an fd of its own,
 * closed at fuse_inode_fd_put() -- a lookup never fails for lack of fds
 * while handles work.
 *
 * Memory. The table is bounded by its slot count (fuse_server_params
 * max_inodes, FUSE_INODES_DEFAULT): a slot costs sizeof(struct fuse_inode)
 * (at most FUSE_INODE_SLOT_MAX bytes) plus 4 bytes of hash bucket, and an
 * inode with a handle a malloc'd struct file_handle of 8 + 8..128 bytes
 * (32 bytes of heap on tmpfs and ext4, whose handles are 8-12 bytes; 144
 * at most). The default of 1M inodes is at most 92 MiB of slots and
 * buckets plus 32 MiB (tmpfs, ext4) to 144 MiB of handles when full, and
 * slots are touched only as used. A full table -- this memory budget
 * spent, not the fd budget -- answers ENFILE.
 */
#ifndef STAINLESS_FS_FUSE_FUSE_INODE_H
#define STAINLESS_FS_FUSE_FUSE_INODE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fs/fuse/fuse_slots.h"

/* One open file description per POSIX lock owner of an inode (fuse_lock.c). */
struct fuse_lock_owner {
	uint64_t owner;
	int fd;
	struct fuse_lock_owner *next;
};

struct file_handle;

struct fuse_inode {
	struct fuse_slot slot;  /* first: the table's bookkeeping */
	/*
	 * (fd + 1) << 32 | requests using it, for the inode's O_PATH|O_NOFOLLOW
	 * fd; 0 when it has none (only an inode with a handle goes without).
	 */
	_Atomic uint64_t fdw;
	struct file_handle *fh; /* NULL: none, the fd is kept for life */
	_Atomic bool recent;    /* used since the sweep last passed */
	bool submount;          /* a directory on another st_dev than its parent */
	mode_t type;            /* S_IFMT bits, fixed for the inode's life */
	dev_t dev;
	ino_t ino;
	/* Under the table mutex: */
	uint32_t hash_next;
	uint64_t nlookup;
	uint32_t ring_prev, ring_next; /* the cached fds' ring */
	bool hashed;
	bool cached;            /* on the ring: fd cached, handle to reopen by */
	/* Under the server's lock mutex: */
	struct fuse_lock_owner *owners;
};

#define FUSE_INODE_SLOT_MAX 96u
#define FUSE_INODES_DEFAULT (1u << 20)

struct fuse_itable {
	pthread_mutex_t mu;
	struct fuse_slots slots; /* index 1 is the root's */
	uint32_t *buckets;
	uint32_t nbuckets;      /* power of two */
	/* File handles: set once by fuse_itable_set_root. */
	bool handles;
	int mount_fd;           /* the root opened O_RDONLY (-1: no handles) */
	int mount_id;           /* the root's mount */
	/* The ring of cached fds (under mu): the sweep's next stop, 0 if empty. */
	uint32_t hand;
	uint32_t ncached;
	/* Lock-owner OFDs (fuse_lock.c) hold fds too: counted and bounded. */
	_Atomic uint32_t nowners;
	uint32_t max_owners;
};

/* An inode's fd as one request holds it (fuse_inode_fd). */
struct fuse_ifd {
	struct fuse_inode *ino;
	int fd;
	bool own;               /* opened for this request alone */
};

int fuse_itable_init(struct fuse_itable *t, uint32_t cap);
void fuse_itable_fini(struct fuse_itable *t);

/*
 * Installs the root (nodeid 1, never forgotten) with fd, charging it to the
 * budget, and finds out whether the root's filesystem gives file handles
 * (t->handles; never when handles is false). Takes the fd; 0 or -ENFILE.
 */
int fuse_itable_set_root(struct fuse_itable *t, int fd, const struct stat *st,
			 bool handles);

/*
 * Finds or adds the inode for st (found under a directory on parent_dev:
 * a directory on another device is a submount) and counts one client
 * lookup. Takes fd (kept, cached or closed). Returns a referenced inode in
 * *out; -ENFILE when the table is full, or when the inode needs an fd for
 * life and the budget is spent (fd closed either way).
 */
int fuse_inode_lookup_add(struct fuse_itable *t, int fd, const struct stat *st,
			  dev_t parent_dev, struct fuse_inode **out);

/*
 * The known inode for st, with one client lookup counted and a reference
 * taken, or NULL when the table has none (nothing counted).
 */
struct fuse_inode *fuse_inode_find(struct fuse_itable *t, const struct stat *st);

/* A referenced inode for nodeid, or NULL if it names none. */
struct fuse_inode *fuse_inode_get(struct fuse_itable *t, uint64_t nodeid);
void fuse_inode_ref(struct fuse_inode *ino);
void fuse_inode_put(struct fuse_itable *t, struct fuse_inode *ino);

/*
 * The O_PATH fd of a referenced inode, usable until fuse_inode_fd_put(f):
 * the cached one, or one reopened by handle. 0, or -ESTALE when the host
 * object is gone (or -errno of the reopen). Any thread, any credentials.
 */
int fuse_inode_fd(struct fuse_itable *t, struct fuse_inode *ino, struct fuse_ifd *f);
void fuse_inode_fd_put(struct fuse_ifd *f);

/*
 * Charges one fd a client cannot do without (an open file, a lock owner)
 * to the budget, closing a cached inode fd of t's to make room when it is
 * spent. 0 or -ENFILE; give it back with fs_fd_refund().
 */
int fuse_itable_charge(struct fuse_itable *t);

/* The client forgets n lookups of nodeid; unknown ids are ignored. */
void fuse_inode_forget(struct fuse_itable *t, uint64_t nodeid, uint64_t n);
uint64_t fuse_inode_nodeid(const struct fuse_inode *ino);
uint32_t fuse_inode_gen(const struct fuse_inode *ino);

/* Forgets every inode but the root (reset). */
void fuse_itable_forget_all(struct fuse_itable *t);

#endif
