/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one table behind the FUSE server's inodes (fuse_inode.h) and open
 * handles (fuse_handle.h): a bounded array of slots with ids of the form
 * (generation << 32 | index), so a forgotten, released or never-issued
 * id fails the generation check instead of naming a recycled slot.
 *
 * Each entry starts with a struct fuse_slot. Its state word holds the
 * generation and the reference count; taking a reference from an id is
 * one CAS that succeeds only while the slot is live in that generation,
 * so the request path takes no lock. Allocation and freeing happen under
 * the owner's mutex (each table guards more than the free list with it).
 * Index 0 is never used; a table may reserve the first few indices for
 * entries it places itself (the inode table's root at 1).
 */
#ifndef STAINLESS_FS_FUSE_FUSE_SLOTS_H
#define STAINLESS_FS_FUSE_FUSE_SLOTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fuse_slot {
	_Atomic uint64_t state; /* generation << 32 | references */
	uint32_t idx;
	uint32_t free_next;     /* on the free list: the next free index, 0 ends */
};

struct fuse_slots {
	uint8_t *base;          /* cap entries of stride bytes */
	size_t stride;
	uint32_t cap;
	uint32_t used;          /* high-water mark of handed-out indices */
	uint32_t free_head;     /* 0: none */
	uint32_t live;
	uint32_t gen_mask;      /* generations wrap within it (a hub's share: 24 bits) */
};

#define FUSE_ID(gen, idx) (((uint64_t)(gen) << 32) | (idx))
#define FUSE_REFS(s) ((uint32_t)(s))
#define FUSE_GEN(s) ((uint32_t)((s) >> 32))

/*
 * cap zeroed entries of stride bytes (at least reserved + 2), indices
 * 1..reserved kept for the owner. Zeroed slots are free in generation 0
 * and untouched until used, so a large table costs address space, not
 * memory. 0 or -ENOMEM.
 */
int fuse_slots_init(struct fuse_slots *t, uint32_t cap, size_t stride, uint32_t reserved);
void fuse_slots_fini(struct fuse_slots *t);

static inline struct fuse_slot *fuse_slot_at(const struct fuse_slots *t, uint32_t i)
{
	return (struct fuse_slot *)(t->base + (size_t)i * t->stride);
}

/*
 * Under the owner's mutex: a free slot, or NULL when the table is full.
 * *fresh says it was never used before (per-slot resources to set up).
 */
struct fuse_slot *fuse_slot_alloc(struct fuse_slots *t, bool *fresh);

/* Under the owner's mutex: makes s live with refs references; its id. */
uint64_t fuse_slot_open(struct fuse_slots *t, struct fuse_slot *s, uint32_t refs);

/* Any thread: the slot id names, with a reference taken, or NULL. */
struct fuse_slot *fuse_slot_get(const struct fuse_slots *t, uint64_t id);

/* Under the owner's mutex, after the last reference: the next generation, freed. */
void fuse_slot_free(struct fuse_slots *t, struct fuse_slot *s);

static inline uint64_t fuse_slot_id(const struct fuse_slot *s)
{
	return FUSE_ID(FUSE_GEN(atomic_load(&s->state)), s->idx);
}

/* Another reference on a slot the caller already holds one on. */
static inline void fuse_slot_ref(struct fuse_slot *s)
{
	atomic_fetch_add_explicit(&s->state, 1, memory_order_relaxed);
}

/* True when the caller dropped the last reference. */
static inline bool fuse_slot_put(struct fuse_slot *s)
{
	uint64_t v = atomic_fetch_sub_explicit(&s->state, 1, memory_order_acq_rel);

	return FUSE_REFS(v) == 1;
}

#endif
