// SPDX-License-Identifier: GPL-2.0-only
/* Fair shares of one budget (see fs_fair.h). */
#include "fs/fs_fair.h"

#include <errno.h>

unsigned fs_fair_slots(size_t total, size_t floor, unsigned want)
{
	size_t most = floor ? total / (2 * floor) : want;

	if (most < want)
		want = (unsigned)most;
	return want ? want : 1;
}

int fs_fair_init(struct fs_fair *f, size_t total, size_t floor, unsigned slots)
{
	if (!slots || floor > total / slots)
		return -EINVAL;
	f->floor = floor;
	f->pool = total - floor * slots;
	f->slots = slots;
	atomic_init(&f->pool_used, 0);
	atomic_init(&f->members, 0);
	return 0;
}

int fs_fair_join(struct fs_fair *f, struct fs_fair_acct *a)
{
	unsigned n = atomic_load(&f->members);

	do {
		if (n >= f->slots)
			return -EAGAIN;
	} while (!atomic_compare_exchange_weak(&f->members, &n, n + 1));
	a->f = f;
	a->used = 0;
	pthread_mutex_init(&a->mu, NULL);
	return 0;
}

void fs_fair_leave(struct fs_fair_acct *a)
{
	atomic_fetch_sub(&a->f->members, 1);
	pthread_mutex_destroy(&a->mu);
}

static size_t over(const struct fs_fair *f, size_t used)
{
	return used > f->floor ? used - f->floor : 0;
}

/* Takes extra from the pool if this member's share and the pool allow. */
static int pool_take(struct fs_fair *f, size_t mine, size_t extra)
{
	unsigned m = atomic_load_explicit(&f->members, memory_order_relaxed);
	size_t used = atomic_load_explicit(&f->pool_used, memory_order_relaxed);

	if (mine > f->pool / (m ? m : 1))
		return -ENOSPC;
	do {
		if (extra > f->pool - used)
			return -ENOSPC;
	} while (!atomic_compare_exchange_weak_explicit(&f->pool_used, &used, used + extra,
			memory_order_relaxed, memory_order_relaxed));
	return 0;
}

int fs_fair_charge(struct fs_fair_acct *a, size_t n)
{
	int err = 0;

	if (!a)
		return 0;
	pthread_mutex_lock(&a->mu);
	size_t before = over(a->f, a->used), after = over(a->f, a->used + n);
	if (after > before)
		err = pool_take(a->f, after, after - before);
	if (!err)
		a->used += n;
	pthread_mutex_unlock(&a->mu);
	return err;
}

void fs_fair_refund(struct fs_fair_acct *a, size_t n)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	size_t before = over(a->f, a->used);
	a->used -= n;
	atomic_fetch_sub_explicit(&a->f->pool_used, before - over(a->f, a->used), memory_order_relaxed);
	pthread_mutex_unlock(&a->mu);
}

size_t fs_fair_used(struct fs_fair_acct *a)
{
	pthread_mutex_lock(&a->mu);
	size_t n = a->used;
	pthread_mutex_unlock(&a->mu);
	return n;
}
