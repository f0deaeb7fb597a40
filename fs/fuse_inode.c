// SPDX-License-Identifier: GPL-2.0-only
/* The FUSE server's bounded inode table (see fuse_inode.h). */
#include "fs/fuse_inode.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t hash_key(const struct fuse_itable *t, dev_t dev, ino_t ino)
{
	uint64_t k = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev * 0xc2b2ae3d27d4eb4full;

	return (uint32_t)(k >> 32) & (t->nbuckets - 1);
}

int fuse_itable_init(struct fuse_itable *t, uint32_t cap)
{
	if (cap < 3)
		cap = 3;
	t->cap = cap;
	t->used = 1;
	t->free_head = 0;
	t->live = 0;
	t->nbuckets = 1;
	while (t->nbuckets < cap)
		t->nbuckets <<= 1;
	t->slots = calloc(cap, sizeof(*t->slots));
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	if (!t->slots || !t->buckets) {
		free(t->slots);
		free(t->buckets);
		return -ENOMEM;
	}
	/*
	 * Zeroed slots are free in generation 0; nothing is touched until
	 * used, so a large table costs address space, not memory. Index 1 is
	 * the root's alone, so nodeid 1 (generation 0) is only ever the root.
	 */
	pthread_mutex_init(&t->mu, NULL);
	return 0;
}

static void hash_insert(struct fuse_itable *t, struct fuse_inode *ino)
{
	uint32_t b = hash_key(t, ino->dev, ino->ino);

	ino->hash_next = t->buckets[b];
	t->buckets[b] = ino->idx;
	ino->hashed = true;
}

static void hash_remove(struct fuse_itable *t, struct fuse_inode *ino)
{
	uint32_t *p = &t->buckets[hash_key(t, ino->dev, ino->ino)];

	while (*p && *p != ino->idx)
		p = &t->slots[*p].hash_next;
	if (*p)
		*p = ino->hash_next;
	ino->hashed = false;
}

static void fill_inode(struct fuse_inode *ino, int fd, const struct stat *st)
{
	ino->fd = fd;
	ino->dev = st->st_dev;
	ino->ino = st->st_ino;
	ino->type = st->st_mode & S_IFMT;
	ino->nlookup = 1;
	ino->owners = NULL;
	ino->submount = false;
}

int fuse_itable_set_root(struct fuse_itable *t, int fd, const struct stat *st)
{
	struct fuse_inode *root = &t->slots[1];

	root->idx = 1;
	fill_inode(root, fd, st);
	hash_insert(t, root);
	t->live = 1;
	atomic_store(&root->state, FUSE_ID(0, 1)); /* the table's reference */
	return 0;
}

int fuse_inode_lookup_add(struct fuse_itable *t, int fd, const struct stat *st,
			  dev_t parent_dev, struct fuse_inode **out)
{
	struct fuse_inode *ino;
	uint32_t i;

	pthread_mutex_lock(&t->mu);
	for (i = t->buckets[hash_key(t, st->st_dev, st->st_ino)]; i;
	     i = t->slots[i].hash_next) {
		ino = &t->slots[i];
		if (ino->dev == st->st_dev && ino->ino == st->st_ino) {
			ino->nlookup++;
			/* Hashed means the table holds a reference: this cannot fail. */
			atomic_fetch_add(&ino->state, 1);
			pthread_mutex_unlock(&t->mu);
			close(fd);
			*out = ino;
			return 0;
		}
	}
	if (t->free_head) {
		i = t->free_head;
		t->free_head = t->slots[i].free_next;
	} else if (t->used + 1 < t->cap) {
		i = ++t->used;
		t->slots[i].idx = i;
	} else {
		pthread_mutex_unlock(&t->mu);
		close(fd);
		return -ENFILE;
	}
	ino = &t->slots[i];
	fill_inode(ino, fd, st);
	ino->submount = S_ISDIR(st->st_mode) && st->st_dev != parent_dev;
	hash_insert(t, ino);
	t->live++;
	/* The table's reference (until forgotten) and the caller's. */
	atomic_store(&ino->state, (atomic_load(&ino->state) & ~0xffffffffull) | 2);
	pthread_mutex_unlock(&t->mu);
	*out = ino;
	return 0;
}

struct fuse_inode *fuse_inode_get(struct fuse_itable *t, uint64_t nodeid)
{
	uint32_t idx = (uint32_t)nodeid;

	if (idx == 0 || idx >= t->cap)
		return NULL;
	if (!fuse_slot_tryget(&t->slots[idx].state, (uint32_t)(nodeid >> 32)))
		return NULL;
	return &t->slots[idx];
}

void fuse_inode_ref(struct fuse_inode *ino)
{
	atomic_fetch_add(&ino->state, 1);
}

void fuse_inode_put(struct fuse_itable *t, struct fuse_inode *ino)
{
	struct fuse_lock_owner *o, *next;

	if (!fuse_slot_put(&ino->state))
		return;
	/* Last reference: nobody else can see this slot until it is freed. */
	close(ino->fd);
	ino->fd = -1;
	for (o = ino->owners; o; o = next) {
		next = o->next;
		close(o->fd);
		free(o);
		atomic_fetch_sub(&t->nowners, 1);
	}
	ino->owners = NULL;
	pthread_mutex_lock(&t->mu);
	atomic_store(&ino->state, (uint64_t)(FUSE_GEN(atomic_load(&ino->state)) + 1) << 32);
	ino->free_next = t->free_head;
	t->free_head = ino->idx;
	t->live--;
	pthread_mutex_unlock(&t->mu);
}

uint64_t fuse_inode_nodeid(const struct fuse_inode *ino)
{
	return FUSE_ID(FUSE_GEN(atomic_load(&ino->state)), ino->idx);
}

uint32_t fuse_inode_gen(const struct fuse_inode *ino)
{
	return FUSE_GEN(atomic_load(&ino->state));
}

void fuse_inode_forget(struct fuse_itable *t, uint64_t nodeid, uint64_t n)
{
	uint32_t idx = (uint32_t)nodeid;
	struct fuse_inode *ino;
	bool drop = false;

	/* The root is pinned: the client never looked it up. */
	if (idx <= 1 || idx >= t->cap)
		return;
	ino = &t->slots[idx];
	pthread_mutex_lock(&t->mu);
	uint64_t s = atomic_load(&ino->state);
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
	for (uint32_t i = 2; i < t->cap && i <= t->used; i++) {
		struct fuse_inode *ino = &t->slots[i];

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
	if (t->slots && FUSE_REFS(atomic_load(&t->slots[1].state))) {
		t->slots[1].hashed = false;
		fuse_inode_put(t, &t->slots[1]);
	}
	pthread_mutex_destroy(&t->mu);
	free(t->slots);
	free(t->buckets);
	t->slots = NULL;
	t->buckets = NULL;
}
