/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fair shares of one budget (fds, bytes) among clients that come and go:
 * what lets 9p-serve's connections share the process's limits without
 * one of them starving the rest.
 *
 * The design, and why: every member has a floor of its own, reserved for
 * every slot up front (the budget holds `slots` floors, however many
 * members there are), so a newcomer can always attach and work however
 * greedy the others were before it came. What lies beyond the floors is
 * a pool the members share, each taking at most pool / members of it at
 * the time it asks. A greedy member keeps what it took while it was
 * alone (taking it back would fail requests it was promised) but cannot
 * grow while others hold less; the newcomer has its floor at once and
 * its share of the pool as the greedy one gives back. A cap of
 * budget / members alone would not do: the first client may already
 * hold all of it when the second comes.
 *
 * Threads: a member's charges and refunds may come from any thread (a
 * parked lock's helper refunds its own); each member has a mutex, taken
 * only by its own charges, so the uncontended cost is one lock pair.
 */
#ifndef STAINLESS_FS_FS_FAIR_H
#define STAINLESS_FS_FS_FAIR_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct fs_fair {
	size_t floor;             /* each member's own */
	size_t pool;              /* shared beyond the floors */
	unsigned slots;           /* members at most */
	atomic_size_t pool_used;
	atomic_uint members;
};

struct fs_fair_acct {
	struct fs_fair *f;
	pthread_mutex_t mu;
	size_t used;              /* under mu */
};

/*
 * How many slots a budget of total with floor each can keep while at
 * least half of it stays a shared pool: want, or fewer (at least 1).
 */
unsigned fs_fair_slots(size_t total, size_t floor, unsigned want);
/* total: the whole budget; the pool is total less slots floors. -EINVAL if they do not fit. */
int fs_fair_init(struct fs_fair *f, size_t total, size_t floor, unsigned slots);
/* A new member: 0, or -EAGAIN when every slot is taken. */
int fs_fair_join(struct fs_fair *f, struct fs_fair_acct *a);
/* After every charge is refunded. */
void fs_fair_leave(struct fs_fair_acct *a);
/* n more for a (NULL: always 0): 0, or -ENOSPC past its floor and share. */
int fs_fair_charge(struct fs_fair_acct *a, size_t n);
void fs_fair_refund(struct fs_fair_acct *a, size_t n);
/* What a holds now. */
size_t fs_fair_used(struct fs_fair_acct *a);

#endif
