// SPDX-License-Identifier: GPL-2.0-only
/* Per-CPU readers and the lone polling reader: who serves when (see fuse_handover.h). */
#include "transport/fuse_handover.h"

#include "transport/fs_wait.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void fuse_handover_init(struct fuse_handover *ho)
{
	for (unsigned i = 0; i < HANDOVER_SLOTS; i++)
		atomic_init(&ho->inflight[i], 0);
	atomic_init(&ho->until_ns, 0);
	atomic_init(&ho->phase, 0);
	atomic_init(&ho->closed, false);
}

static void sign(struct fuse_handover *ho)
{
	uint32_t p = atomic_load(&ho->phase);

	atomic_store(&ho->until_ns, fs_now_ns() + HANDOVER_HOLD_NS);
	if (!(p & 1))
		atomic_compare_exchange_strong(&ho->phase, &p, p + 1);
}

/* Room for one more entry of the largest kind (fuse_direntplus, NAME_MAX name). */
#define LISTING_SLACK 512u

void fuse_handover_take(struct fuse_handover *ho, struct handover_seat *seat,
			const void *req, size_t len, bool waited, struct handover_ticket *t)
{
	const struct fuse_in_header *h = req;
	bool io = h->opcode == FUSE_READ || h->opcode == FUSE_WRITE;
	bool follows = io && !waited && seat->io && seat->pid == h->pid;

	*t = (struct handover_ticket){ 0 };
	if (io) {
		t->slot = &ho->inflight[h->pid % HANDOVER_SLOTS];
		if (atomic_fetch_add(t->slot, 1) > 0 || (follows && fuse_handover_lone(ho)))
			sign(ho);
	} else if ((h->opcode == FUSE_READDIR || h->opcode == FUSE_READDIRPLUS) &&
		   len >= sizeof(*h) + sizeof(struct fuse_read_in)) {
		const struct fuse_read_in *in = (const void *)(h + 1);
		uint64_t full = sizeof(struct fuse_out_header) + (uint64_t)in->size;

		t->listing_full = full > LISTING_SLACK ? (uint32_t)(full - LISTING_SLACK) : 0;
	}
	seat->io = io;
	seat->pid = io ? h->pid : 0;
}

void fuse_handover_answer(struct fuse_handover *ho, struct handover_ticket *t,
			  size_t answer_len)
{
	if (t->slot)
		atomic_fetch_sub(t->slot, 1);
	else if (t->listing_full && answer_len >= t->listing_full)
		sign(ho);
	*t = (struct handover_ticket){ 0 };
}

bool fuse_handover_expired(struct fuse_handover *ho, uint64_t now_ns)
{
	return now_ns >= atomic_load(&ho->until_ns);
}

static void wake_all(struct fuse_handover *ho)
{
	(void)syscall(SYS_futex, &ho->phase, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void fuse_handover_end(struct fuse_handover *ho)
{
	uint32_t p = atomic_load(&ho->phase);

	if ((p & 1) && atomic_compare_exchange_strong(&ho->phase, &p, p + 1))
		wake_all(ho);
}

void fuse_handover_close(struct fuse_handover *ho)
{
	atomic_store(&ho->closed, true);
	atomic_fetch_add(&ho->phase, 2);  /* a waiter's futex value no longer matches */
	wake_all(ho);
}

void fuse_handover_wait(struct fuse_handover *ho)
{
	uint32_t p = atomic_load(&ho->phase);

	/* EAGAIN: the phase changed before we slept; EINTR: look again. */
	if ((p & 1) && !atomic_load(&ho->closed))
		(void)syscall(SYS_futex, &ho->phase, FUTEX_WAIT_PRIVATE, p, NULL, NULL, 0);
}
