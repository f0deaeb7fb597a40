/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Handover: when fuse-mount's per-CPU readers give way to one lone reader.
 *
 * A reader per CPU, in the idle class (fs_keeper.h), answers a caller that
 * waits for each answer on the caller's own CPU: the cheapest round trip
 * on a VM. A caller with many reads or writes in flight (libaio, a writeback
 * flush) is the opposite case: it keeps its CPU busy submitting, the reader
 * there only gets the CPU when the caller stops, and the work that could
 * run on the other CPU lands beside the caller (bench-fuse, randwrite
 * libaio QD16: 105k IOPS against 131k with one polling reader). For that
 * traffic one reader that polls, unpinned and in the normal class, is best:
 * it ends up on the other CPU and answers while the caller submits.
 *
 * The sign: a READ or WRITE arriving while its caller thread (the header's
 * pid) still has one being served. A caller that waits for each answer
 * never does that, because a reader releases the request before it
 * answers. The lone reader serves every request alone, so it keeps the
 * lone phase going on a different sign: a READ or WRITE from the same
 * caller as the one just answered, found without waiting. The phase ends
 * HANDOVER_HOLD_NS after the last sign. A directory listing that fills
 * each answer is a sign as well (fuse_handover_answer).
 *
 *   struct fuse_handover ho;  fuse_handover_init(&ho);   // shared
 *   struct handover_seat seat = { 0 };                    // per reader
 *   per request:  fuse_handover_take(&ho, &seat, req, len, waited, &ticket);
 *                 ... serve ...
 *                 fuse_handover_answer(&ho, &ticket, answer_len);  // before it goes
 *   fuse_handover_lone(&ho) says which phase; the lone reader calls
 *   fuse_handover_expired() when it finds nothing to read, and
 *   fuse_handover_end() to end the phase (waking the others, who wait in
 *   fuse_handover_wait()); a reader that stops serving calls
 *   fuse_handover_close() so that none is left waiting.
 */
#ifndef STAINLESS_TRANSPORT_FUSE_HANDOVER_H
#define STAINLESS_TRANSPORT_FUSE_HANDOVER_H

#include <linux/fuse.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HANDOVER_SLOTS 256              /* callers counted by pid modulo this */
#define HANDOVER_HOLD_NS 20000000u      /* the lone phase outlives its last sign by this */

struct fuse_handover {
	_Atomic uint32_t inflight[HANDOVER_SLOTS]; /* READ/WRITE taken, not yet answered */
	_Atomic uint64_t until_ns;                 /* the lone phase lasts until then */
	_Atomic uint32_t phase;                    /* odd: lone (a futex word) */
	_Atomic bool closed;                       /* fuse_handover_close: no more phases */
};

/* One reader's memory of its previous request. */
struct handover_seat {
	uint32_t pid;     /* caller of the previous READ/WRITE, 0 if none */
	bool io;          /* the previous request was a READ/WRITE */
};

void fuse_handover_init(struct fuse_handover *ho);

/* What a reader keeps of a request it took, for fuse_handover_answer. */
struct handover_ticket {
	_Atomic uint32_t *slot;  /* READ/WRITE: its caller's count of those in flight */
	uint32_t listing_full;   /* READDIR(PLUS): an answer this long filled it */
};

/*
 * A reader took the request in req (len bytes, header checked by the
 * caller to be there); `waited` says it found nothing to read since its
 * previous request. Starts or extends the lone phase on a sign.
 */
void fuse_handover_take(struct fuse_handover *ho, struct handover_seat *seat,
			const void *req, size_t len, bool waited, struct handover_ticket *t);

/*
 * The answer to a taken request, answer_len bytes with its header, goes
 * out next (its caller may send another once it has it). A directory
 * listing answer that filled the caller's buffer is a sign too: one caller
 * streaming a directory, which the lone reader reads ahead of.
 */
void fuse_handover_answer(struct fuse_handover *ho, struct handover_ticket *t,
			  size_t answer_len);

static inline bool fuse_handover_lone(struct fuse_handover *ho)
{
	return (atomic_load(&ho->phase) & 1) && !atomic_load(&ho->closed);
}

/* In the lone phase: has it gone HANDOVER_HOLD_NS without a sign? */
bool fuse_handover_expired(struct fuse_handover *ho, uint64_t now_ns);

/* Ends the lone phase and wakes the readers waiting in fuse_handover_wait. */
void fuse_handover_end(struct fuse_handover *ho);

/* A reader other than the lone one: sleeps while the lone phase lasts. */
void fuse_handover_wait(struct fuse_handover *ho);

/* The connection is gone: no lone phase from now on; wakes every waiting reader. */
void fuse_handover_close(struct fuse_handover *ho);

#endif
