// SPDX-License-Identifier: GPL-2.0-only
/* The process-wide fd budget (see fs_fdbudget.h). */
#include "fs/fs_fdbudget.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/resource.h>

static atomic_uint used;
static atomic_uint limit; /* 0 until first use */

unsigned fs_fd_limit_for(unsigned long nofile)
{
	unsigned long reserve = nofile >= 4 * FS_FD_RESERVE ? FS_FD_RESERVE : nofile / 4;

	if (nofile > (1ul << 30))
		nofile = 1ul << 30; /* RLIM_INFINITY and friends */
	return nofile > reserve ? (unsigned)(nofile - reserve) : 0;
}

unsigned fs_fd_limit(void)
{
	unsigned l = atomic_load_explicit(&limit, memory_order_relaxed);
	struct rlimit rl;

	if (l)
		return l;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		rl.rlim_cur = 1024;
	l = fs_fd_limit_for(rl.rlim_cur);
	if (l == 0)
		l = 1;
	/* Racing first users compute the same value. */
	unsigned zero = 0;
	atomic_compare_exchange_strong(&limit, &zero, l);
	return atomic_load(&limit);
}

void fs_fd_set_limit(unsigned l)
{
	atomic_store(&limit, l ? l : 1);
}

int fs_fd_charge(void)
{
	unsigned l = fs_fd_limit();
	unsigned u = atomic_load_explicit(&used, memory_order_relaxed);

	do {
		if (u >= l)
			return -ENFILE;
	} while (!atomic_compare_exchange_weak_explicit(&used, &u, u + 1,
			memory_order_relaxed, memory_order_relaxed));
	return 0;
}

void fs_fd_refund(void)
{
	atomic_fetch_sub_explicit(&used, 1, memory_order_relaxed);
}

int fs_fd_charge_to(struct fs_fair_acct *share)
{
	int err = fs_fd_charge();

	if (!err && fs_fair_charge(share, 1)) {
		fs_fd_refund();
		err = -ENFILE;
	}
	return err;
}

void fs_fd_refund_to(struct fs_fair_acct *share)
{
	fs_fair_refund(share, 1);
	fs_fd_refund();
}

bool fs_fd_tight(void)
{
	unsigned l = fs_fd_limit();

	return fs_fd_used() >= l - l / 4;
}

unsigned fs_fd_used(void)
{
	return atomic_load_explicit(&used, memory_order_relaxed);
}

/* The user fixed the limit (fs_fd_fix_nofile): raising it would undo that. */
static bool nofile_fixed;

int fs_fd_fix_nofile(unsigned long n)
{
	struct rlimit rl = { (rlim_t)n, (rlim_t)n };

	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	nofile_fixed = true;
	return 0;
}

int fs_fd_raise_nofile(void)
{
	rlim_t want = 1 << 20;
	unsigned long long nr;
	struct rlimit rl;
	FILE *f;

	if (nofile_fixed)
		return 0;
	f = fopen("/proc/sys/fs/nr_open", "re");
	if (f) {
		if (fscanf(f, "%llu", &nr) == 1 && nr < want)
			want = (rlim_t)nr;
		fclose(f);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
		struct rlimit up = { want, want };
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			return 0;
	}
	if (rl.rlim_cur == rl.rlim_max)
		return 0;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -errno : 0;
}
