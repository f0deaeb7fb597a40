// SPDX-License-Identifier: GPL-2.0-only
/* The FUSE server's bounded inode table and its fd cache (see fuse_inode.h). */
#include "fs/fuse/fuse_inode.h"
#include "fs/fuse/fuse_icache.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"

_Static_assert(sizeof(struct fuse_inode) <= FUSE_INODE_SLOT_MAX,
	       "fuse_inode.h states the table's memory from this");


_Static_assert(offsetof(struct fuse_inode, slot) == 0, "an inode starts with its slot");

static struct fuse_inode *ino_at(const struct fuse_itable *t, uint32_t i)
{
	return (struct fuse_inode *)fuse_slot_at(&t->slots, i);
}

static uint32_t hash_key(const struct fuse_itable *t, dev_t dev, ino_t ino)
{
	uint64_t k = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev * 0xc2b2ae3d27d4eb4full;

	return (uint32_t)(k >> 32) & (t->nbuckets - 1);
}

int fuse_itable_init(struct fuse_itable *t, uint32_t cap)
{
	memset(t, 0, sizeof(*t));
	t->nbuckets = 1;
	while (t->nbuckets < cap)
		t->nbuckets <<= 1;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	/* Index 1 is the root's alone: nodeid 1 (generation 0) is only ever the root. */
	if (!t->buckets || fuse_slots_init(&t->slots, cap, sizeof(struct fuse_inode), 1)) {
		free(t->buckets);
		return -ENOMEM;
	}
	pthread_mutex_init(&t->mu, NULL);
	return 0;
}

static void hash_insert(struct fuse_itable *t, struct fuse_inode *ino)
{
	uint32_t b = hash_key(t, ino->dev, ino->ino);

	ino->hash_next = t->buckets[b];
	t->buckets[b] = ino->slot.idx;
	ino->hashed = true;
}

static void hash_remove(struct fuse_itable *t, struct fuse_inode *ino)
{
	uint32_t *p = &t->buckets[hash_key(t, ino->dev, ino->ino)];

	while (*p && *p != ino->slot.idx)
		p = &ino_at(t, *p)->hash_next;
	if (*p)
		*p = ino->hash_next;
	ino->hashed = false;
}

/* Under mu. The sweep meets a new entry last: it goes in just behind the hand. */
static void ring_add(struct fuse_itable *t, struct fuse_inode *ino)
{
	if (!t->hand) {
		ino->ring_prev = ino->ring_next = ino->slot.idx;
		t->hand = ino->slot.idx;
	} else {
		struct fuse_inode *next = ino_at(t, t->hand);

		ino->ring_next = next->slot.idx;
		ino->ring_prev = next->ring_prev;
		ino_at(t, next->ring_prev)->ring_next = ino->slot.idx;
		next->ring_prev = ino->slot.idx;
	}
	ino->cached = true;
	t->ncached++;
}

void fuse_icache_drop_locked(struct fuse_itable *t, struct fuse_inode *ino)
{
	if (!ino->cached)
		return;
	if (ino->ring_next == ino->slot.idx) {
		t->hand = 0;
	} else {
		ino_at(t, ino->ring_prev)->ring_next = ino->ring_next;
		ino_at(t, ino->ring_next)->ring_prev = ino->ring_prev;
		if (t->hand == ino->slot.idx)
			t->hand = ino->ring_next;
	}
	ino->cached = false;
	t->ncached--;
}

/*
 * Closes one cached fd that no request uses: CLOCK, so an fd used since
 * the hand last passed gets another round. The CAS that takes the fd
 * fails if a request started using it meanwhile. An open file's inode is
 * fair game: its handle has an fd of its own, and only inodes that still
 * have a name are on the ring. 0, or -ENFILE when every cached fd is in
 * use.
 */
static int evict_one(struct fuse_itable *t)
{
	uint64_t id = 0;
	int fd = -1;

	pthread_mutex_lock(&t->mu);
	for (uint32_t n = 2 * t->ncached; n && t->hand && fd < 0; n--) {
		struct fuse_inode *ino = ino_at(t, t->hand);
		uint64_t w = atomic_load(&ino->fdw);

		t->hand = ino->ring_next;
		if (FDW_USERS(w) || FDW_FD(w) < 0)
			continue;
		if (atomic_exchange_explicit(&ino->recent, false, memory_order_relaxed))
			continue;
		if (atomic_compare_exchange_strong(&ino->fdw, &w, 0)) {
			fd = FDW_FD(w);
			id = fuse_inode_nodeid(ino);
			fuse_icache_drop_locked(t, ino);
		}
	}
	pthread_mutex_unlock(&t->mu);
	if (fd < 0)
		return -ENFILE;
	close(fd);
	fs_fd_refund();
	if (t->evicted)
		t->evicted(t->drop_ctx, id); /* idle long enough to lose its fd: ask the kernel */
	return 0;
}

int fuse_itable_charge(struct fuse_itable *t)
{
	/* A few rounds: a racing charge may take the fd an eviction gave back. */
	for (int i = 0; i < 4; i++) {
		if (fs_fd_charge() == 0)
			return 0;
		if (evict_one(t) < 0)
			return -ENFILE;
	}
	return -ENFILE;
}

/* For an fd the table could do without: only while the budget is loose. */
static int cache_charge(struct fuse_itable *t)
{
	if (!fs_fd_tight() && fs_fd_charge() == 0)
		return 0;
	return evict_one(t) == 0 && fs_fd_charge() == 0 ? 0 : -ENFILE;
}

/*
 * Makes fd (uncharged, the caller's) the cached fd of ino, which has a
 * name and is referenced, with users requests using it. False when the
 * budget is tight and nothing could be evicted, or ino got an fd
 * meanwhile: the caller keeps fd.
 */
bool fuse_icache_install(struct fuse_itable *t, struct fuse_inode *ino, int fd,
			 uint32_t users)
{
	uint64_t none = 0;

	if (atomic_load(&ino->fdw) != 0 || cache_charge(t) < 0)
		return false;
	if (!atomic_compare_exchange_strong(&ino->fdw, &none, FDW(fd, users))) {
		fs_fd_refund();
		return false;
	}
	atomic_store_explicit(&ino->recent, true, memory_order_relaxed);
	/* Referenced: the slot cannot be freed before it is on the ring. */
	pthread_mutex_lock(&t->mu);
	ring_add(t, ino);
	pthread_mutex_unlock(&t->mu);
	return true;
}

static void fill_inode(struct fuse_inode *ino, const struct stat *st, uint32_t btag)
{
	ino->parent = NULL;
	ino->name = NULL;
	ino->dev = st->st_dev;
	ino->ino = st->st_ino;
	ino->type = (uint16_t)(st->st_mode & S_IFMT);
	ino->btag = btag;
	ino->nlookup = 1;
	ino->owners = NULL;
	ino->submount = false;
	ino->cached = false;
	atomic_store(&ino->wd, 0);
}

int fuse_itable_set_root(struct fuse_itable *t, int fd, const struct stat *st)
{
	struct fuse_inode *root = ino_at(t, 1);

	if (fs_fd_charge() < 0) {
		close(fd);
		return -ENFILE;
	}
	fill_inode(root, st, 0); /* no name: never evicted, the top of every chain */
	atomic_store(&root->fdw, FDW(fd, 0));
	hash_insert(t, root);
	fuse_slot_open(&t->slots, &root->slot, 1); /* the table's reference */
	return 0;
}

/* Under mu: the hashed inode with these numbers, or NULL. */
static struct fuse_inode *hashed_at(struct fuse_itable *t, dev_t dev, ino_t ino_nr)
{
	for (uint32_t i = t->buckets[hash_key(t, dev, ino_nr)]; i; i = ino_at(t, i)->hash_next) {
		struct fuse_inode *ino = ino_at(t, i);

		if (ino->dev == dev && ino->ino == ino_nr)
			return ino;
	}
	return NULL;
}

/* Under mu: the known inode for st, with a reference (and a lookup, if count). */
static struct fuse_inode *find_known(struct fuse_itable *t, const struct stat *st, bool count)
{
	struct fuse_inode *ino = hashed_at(t, st->st_dev, st->st_ino);

	if (ino) {
		ino->nlookup += count;
		/* Hashed means the table holds a reference: this cannot fail. */
		fuse_slot_ref(&ino->slot);
	}
	return ino;
}

/* A known inode found again by name: its place follows, fd may refill its cache. */
static void known_again(struct fuse_itable *t, struct fuse_inode *ino, int fd,
			struct fuse_inode *parent, const char *name)
{
	if (name)
		fuse_inode_moved(t, ino, parent, name);
	if (!fuse_icache_install(t, ino, fd, 0))
		close(fd);
}

/* A new inode with a name: cached fd, reopened by name. Without: fd for life. */
int fuse_inode_lookup_add(struct fuse_itable *t, int fd, const struct stat *st, uint32_t btag,
			  struct fuse_inode *parent, const char *name, struct fuse_inode **out)
{
	struct fuse_inode *ino;
	char *copy = NULL;
	bool fresh;

	pthread_mutex_lock(&t->mu);
	ino = find_known(t, st, true);
	pthread_mutex_unlock(&t->mu);
	if (ino)
		goto known;
	/* No name (or no memory for it): the fd is kept for life, charged before it is seen. */
	if ((!name || !(copy = strdup(name))) && fuse_itable_charge(t) < 0) {
		close(fd);
		return -ENFILE;
	}
	pthread_mutex_lock(&t->mu);
	ino = find_known(t, st, true);
	if (ino || !(ino = (struct fuse_inode *)fuse_slot_alloc(&t->slots, &fresh))) {
		pthread_mutex_unlock(&t->mu);
		if (!copy)
			fs_fd_refund();
		free(copy);
		if (ino)
			goto known;
		close(fd);
		return -ENFILE;
	}
	fill_inode(ino, st, btag);
	ino->submount = S_ISDIR(st->st_mode) && st->st_dev != parent->dev;
	if (copy) {
		fuse_slot_ref(&parent->slot); /* the caller holds one: it cannot be freed */
		ino->parent = parent;
		ino->name = copy;
	}
	atomic_store(&ino->fdw, copy ? 0 : FDW(fd, 0));
	hash_insert(t, ino);
	/* The table's reference (until forgotten) and the caller's. */
	fuse_slot_open(&t->slots, &ino->slot, 2);
	pthread_mutex_unlock(&t->mu);
	if (copy && !fuse_icache_install(t, ino, fd, 0))
		close(fd); /* reopened by name when a request needs it */
	*out = ino;
	return 0;
known:
	known_again(t, ino, fd, parent, name);
	*out = ino;
	return 0;
}

/*
 * The object behind an fd the inode holds is the inode, whatever its
 * numbers say now: an overlayfs copy-up (the server's own write open,
 * chmod or setxattr of a lower file) gives it the upper layer's birth
 * time, and without a constant inode number (xino, samefs) its st_ino
 * too, while every fd on it stays valid. The table follows, so
 * that reopening it by name later checks against what the name now
 * leads to instead of answering ESTALE. Left as it was when another
 * inode already has the new numbers (that one was looked up since).
 */
void fuse_inode_rekey(struct fuse_itable *t, struct fuse_inode *ino, int fd)
{
	struct statx sx;
	dev_t dev;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_TYPE | STATX_INO | STATX_BTIME, &sx) < 0 ||
	    (sx.stx_mode & S_IFMT) != ino->type)
		return;
	dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	pthread_mutex_lock(&t->mu);
	if (dev == ino->dev && sx.stx_ino == ino->ino) {
		ino->btag = fuse_inode_btag(&sx); /* the copy's birth time, same numbers */
	} else if (ino->hashed && !hashed_at(t, dev, sx.stx_ino)) {
		hash_remove(t, ino);
		ino->dev = dev;
		ino->ino = sx.stx_ino;
		ino->btag = fuse_inode_btag(&sx);
		hash_insert(t, ino);
	}
	pthread_mutex_unlock(&t->mu);
}

struct fuse_inode *fuse_inode_find(struct fuse_itable *t, const struct stat *st)
{
	struct fuse_inode *ino;

	pthread_mutex_lock(&t->mu);
	ino = find_known(t, st, true);
	pthread_mutex_unlock(&t->mu);
	return ino;
}

struct fuse_inode *fuse_inode_peek(struct fuse_itable *t, const struct stat *st)
{
	struct fuse_inode *ino;

	pthread_mutex_lock(&t->mu);
	ino = find_known(t, st, false);
	pthread_mutex_unlock(&t->mu);
	return ino;
}

void fuse_itable_set_tag(struct fuse_itable *t, uint8_t key)
{
	t->tag = (uint64_t)key << FUSE_HUB_ID_SHIFT;
	t->slots.gen_mask = key ? (1u << 24) - 1 : UINT32_MAX;
}

uint64_t fuse_itable_nodeid(const struct fuse_itable *t, const struct fuse_inode *ino)
{
	return fuse_slot_id(&ino->slot) | t->tag;
}

/* A tagged table takes only its own nodeids, and knows them without the tag. */
static bool untag(const struct fuse_itable *t, uint64_t *nodeid)
{
	if (!t->tag)
		return true;
	if ((*nodeid >> FUSE_HUB_ID_SHIFT) != (t->tag >> FUSE_HUB_ID_SHIFT))
		return false;
	*nodeid &= (1ull << FUSE_HUB_ID_SHIFT) - 1;
	return true;
}

struct fuse_inode *fuse_inode_get(struct fuse_itable *t, uint64_t nodeid)
{
	if (!untag(t, &nodeid))
		return NULL;
	return (struct fuse_inode *)fuse_slot_get(&t->slots, nodeid);
}

void fuse_inode_ref(struct fuse_inode *ino)
{
	fuse_slot_ref(&ino->slot);
}

/*
 * The last reference: no request can reach the slot until it is freed;
 * the sweep may still look at it (under mu), and the exchange leaves it
 * nothing to take. Its parent's reference goes with it, which may be the
 * parent's last: a loop, not recursion, however deep the chain.
 */
void fuse_inode_put(struct fuse_itable *t, struct fuse_inode *ino)
{
	while (ino && fuse_slot_put(&ino->slot)) {
		struct fuse_lock_owner *o, *next;
		struct fuse_inode *parent;
		int fd = FDW_FD(atomic_exchange(&ino->fdw, 0));
		char *name;
		int32_t wd = atomic_exchange(&ino->wd, 0);
		uint64_t id = fuse_inode_nodeid(ino);

		if (fd >= 0) {
			close(fd);
			fs_fd_refund();
		}
		for (o = ino->owners; o; o = next) {
			next = o->next;
			close(o->fd);
			fs_fd_refund();
			free(o);
			atomic_fetch_sub(&t->nowners, 1);
		}
		ino->owners = NULL;
		pthread_mutex_lock(&t->mu);
		fuse_icache_drop_locked(t, ino);
		parent = ino->parent;
		name = ino->name;
		ino->parent = NULL;
		ino->name = NULL;
		fuse_slot_free(&t->slots, &ino->slot);
		pthread_mutex_unlock(&t->mu);
		free(name);
		if (wd && t->drop)
			t->drop(t->drop_ctx, wd, id);
		ino = parent;
	}
}

uint64_t fuse_inode_nodeid(const struct fuse_inode *ino)
{
	return fuse_slot_id(&ino->slot);
}

uint32_t fuse_inode_gen(const struct fuse_inode *ino)
{
	return FUSE_GEN(atomic_load(&ino->slot.state));
}
void fuse_inode_forget(struct fuse_itable *t, uint64_t nodeid, uint64_t n)
{
	uint32_t idx = (uint32_t)nodeid;
	struct fuse_inode *ino;
	bool drop = false;

	if (!untag(t, &nodeid))
		return;

	/* The root is pinned: the client never looked it up. */
	if (idx <= 1 || idx >= t->slots.cap)
		return;
	ino = ino_at(t, idx);
	pthread_mutex_lock(&t->mu);
	uint64_t s = atomic_load(&ino->slot.state);
	if (FUSE_GEN(s) == (uint32_t)(nodeid >> 32) && FUSE_REFS(s) && ino->hashed) {
		ino->nlookup = n >= ino->nlookup ? 0 : ino->nlookup - n;
		if (ino->nlookup == 0) {
			hash_remove(t, ino);
			drop = true;
		}
	}
	pthread_mutex_unlock(&t->mu);
	if (drop)
		fuse_inode_put(t, ino);
}

void fuse_itable_forget_all(struct fuse_itable *t)
{
	for (uint32_t i = 2; i <= t->slots.used; i++) {
		struct fuse_inode *ino = ino_at(t, i);

		pthread_mutex_lock(&t->mu);
		bool drop = ino->hashed;
		if (drop) {
			ino->nlookup = 0;
			hash_remove(t, ino);
		}
		pthread_mutex_unlock(&t->mu);
		if (drop)
			fuse_inode_put(t, ino);
	}
}

void fuse_itable_fini(struct fuse_itable *t)
{
	fuse_itable_forget_all(t);
	if (t->slots.base && FUSE_REFS(atomic_load(&ino_at(t, 1)->slot.state))) {
		ino_at(t, 1)->hashed = false;
		fuse_inode_put(t, ino_at(t, 1));
	}
	pthread_mutex_destroy(&t->mu);
	fuse_slots_fini(&t->slots);
	free(t->buckets);
	t->buckets = NULL;
}
