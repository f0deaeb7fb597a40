// SPDX-License-Identifier: GPL-2.0-only
/* The FUSE server's bounded table of open file handles (see fuse_handle.h). */
#include "fs/fuse/fuse_handle.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"

int fuse_htable_init(struct fuse_htable *t, uint32_t cap, struct fuse_itable *it)
{
	if (cap < 2)
		cap = 2;
	t->cap = cap;
	t->used = 0;
	t->free_head = 0;
	t->live = 0;
	t->it = it;
	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	pthread_mutex_init(&t->mu, NULL);
	return 0;
}

int fuse_handle_add(struct fuse_htable *t, int fd, int flags,
		    struct fuse_inode *inode, uint64_t *fh)
{
	struct fuse_handle *h;
	uint32_t i;

	if (fuse_itable_charge(t->it) < 0) {
		close(fd);
		return -ENFILE;
	}
	pthread_mutex_lock(&t->mu);
	if (t->free_head) {
		i = t->free_head;
		t->free_head = t->slots[i].free_next;
	} else if (t->used + 1 < t->cap) {
		i = ++t->used;
		t->slots[i].idx = i;
		pthread_mutex_init(&t->slots[i].dir_mu, NULL);
	} else {
		pthread_mutex_unlock(&t->mu);
		close(fd);
		fs_fd_refund();
		return -ENFILE;
	}
	h = &t->slots[i];
	h->fd = fd;
	h->flags = flags;
	h->dir_stamp = 0;
	fuse_inode_ref(inode);
	h->inode = inode;
	atomic_store(&h->released, false);
	uint64_t s = atomic_load(&h->state);
	atomic_store(&h->state, (s & ~0xffffffffull) | 1);
	t->live++;
	*fh = FUSE_ID(FUSE_GEN(s), i);
	pthread_mutex_unlock(&t->mu);
	return 0;
}

struct fuse_handle *fuse_handle_get(struct fuse_htable *t, uint64_t fh)
{
	uint32_t idx = (uint32_t)fh;

	if (idx == 0 || idx >= t->cap)
		return NULL;
	if (!fuse_slot_tryget(&t->slots[idx].state, (uint32_t)(fh >> 32)))
		return NULL;
	/*
	 * A handle being released stays usable by requests that got in before
	 * its last reference went; RELEASE itself happens once (released flag).
	 */
	return &t->slots[idx];
}

void fuse_handle_put(struct fuse_htable *t, struct fuse_handle *h,
		     struct fuse_itable *it)
{
	if (!fuse_slot_put(&h->state))
		return;
	close(h->fd);
	fs_fd_refund();
	h->fd = -1;
	fuse_inode_put(it, h->inode);
	h->inode = NULL;
	pthread_mutex_lock(&t->mu);
	atomic_store(&h->state, (uint64_t)(FUSE_GEN(atomic_load(&h->state)) + 1) << 32);
	h->free_next = t->free_head;
	t->free_head = h->idx;
	t->live--;
	pthread_mutex_unlock(&t->mu);
}

int fuse_handle_release(struct fuse_htable *ht, uint64_t fh,
			struct fuse_itable *it)
{
	struct fuse_handle *h = fuse_handle_get(ht, fh);

	if (!h)
		return -EBADF;
	if (atomic_exchange(&h->released, true)) {
		fuse_handle_put(ht, h, it);
		return -EBADF;
	}
	fuse_handle_put(ht, h, it); /* ours */
	fuse_handle_put(ht, h, it); /* the table's */
	return 0;
}

void fuse_htable_release_all(struct fuse_htable *ht, struct fuse_itable *it)
{
	for (uint32_t i = 1; i < ht->cap && i <= ht->used; i++) {
		uint64_t s = atomic_load(&ht->slots[i].state);

		if (FUSE_REFS(s))
			fuse_handle_release(ht, FUSE_ID(FUSE_GEN(s), i), it);
	}
}

void fuse_htable_fini(struct fuse_htable *t)
{
	for (uint32_t i = 1; i <= t->used; i++)
		pthread_mutex_destroy(&t->slots[i].dir_mu);
	pthread_mutex_destroy(&t->mu);
	free(t->slots);
	t->slots = NULL;
}
