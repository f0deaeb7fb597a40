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
 * (fs_fdbudget.h). An inode remembers where the server found it -- a
 * reference on its parent directory's inode and its name there -- so its
 * O_PATH fd is only a cache: kept while the budget is not tight, closed
 * when it is by a CLOCK sweep (roughly least recently used first: an fd
 * used since the last pass gets another), and reopened when a request
 * needs it: openat2 of that one name beneath the parent's fd (RESOLVE_
 * BENEATH, no symlink followed; an evicted parent is reopened the same
 * way first, up to the nearest inode that has an fd, at worst the root),
 * then checked to be the same object: same st_dev, inode number and type,
 * and the same birth time where the file system gives one. Anything else
 * -- the name gone or leading elsewhere -- answers ESTALE. A client may
 * so remember far more inodes than the process has fds, with no file
 * handle anywhere: open_by_handle_at would need CAP_DAC_READ_SEARCH,
 * which lets a thread decode any inode of the file system, in the share
 * or not (base/creds.h).
 *
 * Names follow what the server does: RENAME moves the inode's place, a
 * LOOKUP that finds a known inode by another name (a hard link, a rename
 * on the host) moves it there. An inode that loses its name through
 * UNLINK, RMDIR or a RENAME over it while the client still remembers it
 * (an unlinked open file) is pinned: it keeps the fd it has (reopened
 * first if it had none), charged to the budget, until forgotten. Inodes
 * with no name at all (the root, an O_TMPFILE) keep their fd for life
 * too. A child holds a reference on its parent, so a remembered child
 * keeps the chain to the root alive, and the last FORGET releases it.
 *
 * Using an inode's fd: fuse_inode_fd() hands a request an fd and holds it
 * until fuse_inode_fd_put(). A cached fd counts its users in the same word
 * that holds it, and the sweep takes it only with a CAS that sees no
 * users, so an fd in use is never closed under a request. When the budget has
 * no fd left for a reopened inode, the request gets an fd of its own,
 * closed at fuse_inode_fd_put() -- a lookup never fails for lack of fds.
 *
 * Memory. The table is bounded by its slot count (fuse_server_params
 * max_inodes, FUSE_INODES_DEFAULT): a slot costs sizeof(struct fuse_inode)
 * (at most FUSE_INODE_SLOT_MAX bytes) plus 4 bytes of hash bucket, and an
 * inode's name a malloc'd copy (NAME_MAX + 1 bytes at most; 16-32 bytes of
 * heap for usual names). The default of 1M inodes is at most 108 MiB of
 * slots and buckets plus 16-32 MiB of names (272 MiB with every name
 * 255 bytes long) when full, and slots are touched only as used. A full
 * table -- this memory budget spent, not the fd budget -- answers ENFILE.
 */
#ifndef STAINLESS_FS_FUSE_FUSE_INODE_H
#define STAINLESS_FS_FUSE_FUSE_INODE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct statx;

#include "fs/fuse/fuse_slots.h"

/* One open file description per POSIX lock owner of an inode (fuse_lock.c). */
struct fuse_lock_owner {
	uint64_t owner;
	int fd;
	struct fuse_lock_owner *next;
};

struct fuse_inode {
	struct fuse_slot slot;  /* first: the table's bookkeeping */
	/*
	 * (fd + 1) << 32 | requests using it, for the inode's O_PATH|O_NOFOLLOW
	 * fd; 0 when it has none (only an inode with a name goes without).
	 */
	_Atomic uint64_t fdw;
	/* Under the table mutex: where it was found (NULL name: the fd is for life). */
	struct fuse_inode *parent; /* referenced while set */
	char *name;
	dev_t dev;
	ino_t ino;
	uint64_t nlookup;       /* under the table mutex */
	/* Under the server's lock mutex: */
	struct fuse_lock_owner *owners;
	uint32_t btag;          /* its birth time folded; 0: the fs gives none */
	_Atomic int32_t wd;     /* a directory's inotify watch (fuse_watch.h): 0 none, -1 asked */
	_Atomic uint32_t changed; /* the realtime second a watch last saw it change; 0: never */
	uint16_t type;          /* S_IFMT bits (16 of them), fixed for the inode's life */
	_Atomic bool recent;    /* used since the sweep last passed */
	bool submount;          /* a directory on another st_dev than its parent */
	_Atomic bool written;   /* opened for writing or created here (fuse_dax_policy.c) */
	/* Under the table mutex: */
	bool hashed;
	bool cached;            /* on the ring: fd cached, name to reopen by */
	uint32_t hash_next;
	uint32_t ring_prev, ring_next; /* the cached fds' ring */
};

#define FUSE_INODE_SLOT_MAX 104u
#define FUSE_INODES_DEFAULT (1u << 20)

struct fuse_itable {
	pthread_mutex_t mu;
	struct fuse_slots slots; /* index 1 is the root's */
	uint32_t *buckets;
	uint32_t nbuckets;      /* power of two */
	/* The ring of cached fds (under mu): the sweep's next stop, 0 if empty. */
	uint32_t hand;
	uint32_t ncached;
	/* Lock-owner OFDs (fuse_lock.c) hold fds too: counted and bounded. */
	_Atomic uint32_t nowners;
	uint32_t max_owners;
	/* Called as an inode with a watch is freed (fuse_watch_drop); NULL: none. */
	void (*drop)(void *ctx, int32_t wd, uint64_t nodeid);
	/* Called as the sweep takes an inode's cached fd (fuse_watch_evicted); NULL: none. */
	void (*evicted)(void *ctx, uint64_t nodeid);
	void *drop_ctx;
	uint64_t tag;           /* a hub's share: its key in the nodeids' top byte (fuse_hub.h) */
};

/* An inode's fd as one request holds it (fuse_inode_fd). */
struct fuse_ifd {
	struct fuse_inode *ino;
	int fd;
	bool own;               /* opened for this request alone */
};

int fuse_itable_init(struct fuse_itable *t, uint32_t cap);
void fuse_itable_fini(struct fuse_itable *t);

/* Installs the root (nodeid 1, never forgotten) with fd, charging it. Takes the fd; 0 or -ENFILE. */
int fuse_itable_set_root(struct fuse_itable *t, int fd, const struct stat *st);

/* The folded birth time fuse_inode_lookup_add() takes, from a statx with STATX_BTIME. */
uint32_t fuse_inode_btag(const struct statx *sx);

/*
 * Finds or adds the inode for st, found by name (NULL: it has none, an
 * O_TMPFILE) in the referenced directory parent, and counts one client
 * lookup. Takes fd (kept, cached or closed). Returns a referenced inode
 * in *out; -ENFILE when the table is full, or when the inode needs an fd
 * for life and the budget is spent (fd closed either way).
 */
int fuse_inode_lookup_add(struct fuse_itable *t, int fd, const struct stat *st, uint32_t btag,
			  struct fuse_inode *parent, const char *name, struct fuse_inode **out);

/*
 * The known inode for st, with one client lookup counted and a reference
 * taken, or NULL when the table has none (nothing counted).
 */
struct fuse_inode *fuse_inode_find(struct fuse_itable *t, const struct stat *st);
/* The same without counting a lookup (a name about to be removed or moved). */
struct fuse_inode *fuse_inode_peek(struct fuse_itable *t, const struct stat *st);

/*
 * ino is now found as name in the referenced directory parent (a RENAME,
 * a LOOKUP by another name): it is reopened by that from now on. Kept as
 * it was when that would make a directory its own ancestor (a table gone
 * stale behind the server's back) or memory is short.
 */
void fuse_inode_moved(struct fuse_itable *t, struct fuse_inode *ino,
		      struct fuse_inode *parent, const char *name);

/*
 * ino's name was removed (UNLINK, RMDIR, a RENAME over it) while f holds
 * its fd: the inode keeps that fd until forgotten (charged; ESTALE later
 * when the budget had none for it). f stays the caller's to put.
 */
void fuse_inode_unlinked(struct fuse_itable *t, struct fuse_inode *ino, struct fuse_ifd *f);

/*
 * fd, held for ino, now shows other numbers (an overlayfs copy-up): ino
 * takes them, so a reopen by name checks against the copy. Nothing when
 * they are the same or another inode has them.
 */
void fuse_inode_rekey(struct fuse_itable *t, struct fuse_inode *ino, int fd);

/*
 * A hub's share (fuse_hub.h): every nodeid t hands out carries key in its
 * top byte, and one without it names nothing here; generations wrap at
 * 24 bits to leave the byte free.
 */
#define FUSE_HUB_ID_SHIFT 56
void fuse_itable_set_tag(struct fuse_itable *t, uint8_t key);
/* The nodeid the client knows ino by (fuse_inode_nodeid, tagged). */
uint64_t fuse_itable_nodeid(const struct fuse_itable *t, const struct fuse_inode *ino);

/* A referenced inode for nodeid, or NULL if it names none. */
struct fuse_inode *fuse_inode_get(struct fuse_itable *t, uint64_t nodeid);
void fuse_inode_ref(struct fuse_inode *ino);
void fuse_inode_put(struct fuse_itable *t, struct fuse_inode *ino);

/*
 * The O_PATH fd of a referenced inode, usable until fuse_inode_fd_put(f):
 * the cached one, or one reopened by name (see the top). 0, or -ESTALE
 * when the host object is gone or another now has its name (or -errno of
 * the reopen). Any thread, any credentials.
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
