// SPDX-License-Identifier: GPL-2.0-only
/* The FUSE server's bounded table of open file handles (see fuse_handle.h). */
#include "fs/fuse/fuse_handle.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"

_Static_assert(offsetof(struct fuse_handle, slot) == 0, "a handle starts with its slot");

static struct fuse_handle *handle_at(const struct fuse_htable *t, uint32_t i)
{
	return (struct fuse_handle *)fuse_slot_at(&t->slots, i);
}

int fuse_htable_init(struct fuse_htable *t, uint32_t cap, struct fuse_itable *it)
{
	int r = fuse_slots_init(&t->slots, cap, sizeof(struct fuse_handle), 0);

	if (r)
		return r;
	t->it = it;
	pthread_mutex_init(&t->mu, NULL);
	return 0;
}

int fuse_handle_add(struct fuse_htable *t, int fd, int flags,
		    struct fuse_inode *inode, uint64_t *fh)
{
	struct fuse_handle *h;
	bool fresh;

	if (fuse_itable_charge(t->it) < 0) {
		close(fd);
		return -ENFILE;
	}
	pthread_mutex_lock(&t->mu);
	h = (struct fuse_handle *)fuse_slot_alloc(&t->slots, &fresh);
	if (!h) {
		pthread_mutex_unlock(&t->mu);
		close(fd);
		fs_fd_refund();
		return -ENFILE;
	}
	if (fresh)
		pthread_mutex_init(&h->dir_mu, NULL);
	h->fd = fd;
	h->flags = flags;
	h->dir_rest = NULL;
	h->dir_off = -1;
	atomic_store(&h->nowait_off[0], FS_NOWAIT_UNKNOWN);
	atomic_store(&h->nowait_off[1], FS_NOWAIT_UNKNOWN);
	fuse_inode_ref(inode);
	h->inode = inode;
	atomic_store(&h->released, false);
	*fh = fuse_slot_open(&t->slots, &h->slot, 1); /* the table's reference */
	pthread_mutex_unlock(&t->mu);
	return 0;
}

struct fuse_handle *fuse_handle_get(struct fuse_htable *t, uint64_t fh)
{
	/*
	 * A handle being released stays usable by requests that got in before
	 * its last reference went; RELEASE itself happens once (released flag).
	 */
	return (struct fuse_handle *)fuse_slot_get(&t->slots, fh);
}

void fuse_handle_put(struct fuse_htable *t, struct fuse_handle *h,
		     struct fuse_itable *it)
{
	if (!fuse_slot_put(&h->slot))
		return;
	close(h->fd);
	fs_fd_refund();
	h->fd = -1;
	fuse_dir_rest_free(h); /* and its charge to the budget */
	fuse_inode_put(it, h->inode);
	h->inode = NULL;
	pthread_mutex_lock(&t->mu);
	fuse_slot_free(&t->slots, &h->slot);
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
	for (uint32_t i = 1; i <= ht->slots.used; i++) {
		uint64_t s = atomic_load(&handle_at(ht, i)->slot.state);

		if (FUSE_REFS(s))
			fuse_handle_release(ht, FUSE_ID(FUSE_GEN(s), i), it);
	}
}

void fuse_htable_fini(struct fuse_htable *t)
{
	for (uint32_t i = 1; i <= t->slots.used; i++)
		pthread_mutex_destroy(&handle_at(t, i)->dir_mu);
	pthread_mutex_destroy(&t->mu);
	fuse_slots_fini(&t->slots);
}
