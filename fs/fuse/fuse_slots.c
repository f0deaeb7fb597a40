// SPDX-License-Identifier: GPL-2.0-only
/* The FUSE server's generation + refcount slot table (see fuse_slots.h). */
#include "fs/fuse/fuse_slots.h"

#include <errno.h>
#include <stdlib.h>

int fuse_slots_init(struct fuse_slots *t, uint32_t cap, size_t stride, uint32_t reserved)
{
	if (cap < reserved + 2)
		cap = reserved + 2;
	*t = (struct fuse_slots){ .stride = stride, .cap = cap, .used = reserved,
				    .gen_mask = UINT32_MAX };
	t->base = calloc(cap, stride);
	if (!t->base)
		return -ENOMEM;
	for (uint32_t i = 1; i <= reserved; i++)
		fuse_slot_at(t, i)->idx = i;
	return 0;
}

void fuse_slots_fini(struct fuse_slots *t)
{
	free(t->base);
	t->base = NULL;
}

struct fuse_slot *fuse_slot_alloc(struct fuse_slots *t, bool *fresh)
{
	struct fuse_slot *s;

	*fresh = false;
	if (t->free_head) {
		s = fuse_slot_at(t, t->free_head);
		t->free_head = s->free_next;
		return s;
	}
	if (t->used + 1 >= t->cap)
		return NULL;
	s = fuse_slot_at(t, ++t->used);
	s->idx = t->used;
	*fresh = true;
	return s;
}

uint64_t fuse_slot_open(struct fuse_slots *t, struct fuse_slot *s, uint32_t refs)
{
	uint64_t v = atomic_load(&s->state);

	t->live++;
	/* Release: whoever takes a reference by id sees the entry filled in. */
	atomic_store_explicit(&s->state, (v & ~0xffffffffull) | refs, memory_order_release);
	return FUSE_ID(FUSE_GEN(v), s->idx);
}

struct fuse_slot *fuse_slot_get(const struct fuse_slots *t, uint64_t id)
{
	uint32_t idx = (uint32_t)id, gen = (uint32_t)(id >> 32);
	struct fuse_slot *s;
	uint64_t v;

	if (idx == 0 || idx >= t->cap)   /* zeroed, never-used slots have no references */
		return NULL;
	s = fuse_slot_at(t, idx);
	v = atomic_load_explicit(&s->state, memory_order_acquire);
	for (;;) {
		if (FUSE_GEN(v) != gen || FUSE_REFS(v) == 0 || FUSE_REFS(v) == UINT32_MAX)
			return NULL;
		if (atomic_compare_exchange_weak_explicit(&s->state, &v, v + 1,
							  memory_order_acquire,
							  memory_order_acquire))
			return s;
	}
}

void fuse_slot_free(struct fuse_slots *t, struct fuse_slot *s)
{
	atomic_store(&s->state, (uint64_t)((FUSE_GEN(atomic_load(&s->state)) + 1) & t->gen_mask) << 32);
	s->free_next = t->free_head;
	t->free_head = s->idx;
	t->live--;
}
