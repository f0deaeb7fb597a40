// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parked waits (see fs_park.h).
 *
 * How a cancel is certain to end the wait. A signal alone is not enough:
 * one that lands while the helper is still in user space between its
 * last look at `cancelled` and the system call is handled there and
 * lost, and the call then blocks until the lock is free. So the helper
 * makes its call on a dup of its own (wfd), and a cancel does, under the
 * set's mutex while the helper is listed:
 *
 *   1. cancelled = true;
 *   2. dup2(dead, wfd): wfd now names an O_PATH file, on which
 *      F_OFD_SETLKW and flock fail with EBADF at once;
 *   3. pthread_kill(helper, FS_PARK_SIGNAL).
 *
 * Where the helper can be when step 2 happens:
 *   - not yet in the call (in user space, wherever a signal would be
 *     lost): the call looks wfd up after step 2 and fails with EBADF,
 *     which nothing but a cancel can cause on a fd the helper alone owns;
 *   - in the kernel, having looked wfd up (it holds that file, so step 2
 *     does not reach it): step 3 then makes a signal pending for a
 *     thread in the kernel, and the lock waits sleep interruptibly,
 *     checking for pending signals before every sleep, so the call
 *     returns EINTR, and the loop sees `cancelled`;
 *   - past the call: it looks at `cancelled` before it answers, and
 *     gives back a lock granted meanwhile (ops->undo, on fd, the same
 *     open file description).
 * The lock the call takes belongs to the open file description, which
 * fd keeps open, so replacing wfd never drops it. The mutex keeps step
 * 2 from ever reaching a number the helper has closed and someone else
 * reused: the helper closes wfd only after it unlisted itself.
 */
#include "fs/fs_park.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/creds.h"
#include "fs/fs_fdbudget.h"
#include "base/thread.h"

static pthread_once_t once = PTHREAD_ONCE_INIT, dead_once = PTHREAD_ONCE_INIT;
static int dead_fd = -1;
static int once_err;
/* Helpers alive in the process, and their bound (0: FS_PARK_PROCESS_MAX). */
static atomic_uint helpers, helpers_max;

unsigned fs_park_process_max(void)
{
	unsigned m = atomic_load_explicit(&helpers_max, memory_order_relaxed);

	return m ? m : FS_PARK_PROCESS_MAX;
}

void fs_park_set_process_max(unsigned max)
{
	atomic_store(&helpers_max, max);
}

unsigned fs_park_helpers(void)
{
	return atomic_load_explicit(&helpers, memory_order_relaxed);
}

/* One more helper, unless the process has its bound of them. */
static bool helper_take(void)
{
	unsigned max = fs_park_process_max(), n = atomic_load_explicit(&helpers, memory_order_relaxed);

	do {
		if (n >= max)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&helpers, &n, n + 1,
			memory_order_relaxed, memory_order_relaxed));
	return true;
}

static void wake_handler(int sig)
{
	(void)sig; /* only here to make a blocked call return EINTR */
}

static void setup_once(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = wake_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: the wait must be interrupted */
	if (sigaction(FS_PARK_SIGNAL, &sa, NULL) < 0)
		once_err = -errno;
}

/* At the first park, so that a process that never parks keeps no such fd. */
static void open_dead(void)
{
	dead_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int fs_park_reserved_fd(void)
{
	return dead_fd;
}

int fs_park_setup(void)
{
	pthread_once(&once, setup_once);
	return once_err;
}

int fs_park_set_init(struct fs_park_set *set, unsigned max)
{
	int r = fs_park_setup();

	if (r)
		return r;
	memset(set, 0, sizeof(*set));
	set->max = max;
	pthread_mutex_init(&set->mu, NULL);
	pthread_cond_init(&set->gone, NULL);
	return 0;
}

void fs_park_set_fini(struct fs_park_set *set)
{
	pthread_mutex_destroy(&set->mu);
	pthread_cond_destroy(&set->gone);
}

/* The blocking call until it is granted, fails, or the wait is cancelled. */
static int run_wait(struct fs_park *p)
{
	int r;

	for (;;) {
		if (atomic_load(&p->cancelled))
			return -EINTR;
		r = p->ops->wait(p, p->wfd);
		if (r == -EBADF)
			return -EINTR; /* wfd was swapped for the dead fd: cancelled */
		if (r != -EINTR)
			break;
	}
	if (r == 0 && atomic_load(&p->cancelled)) {
		/* Granted as the client gave up: give it back. */
		p->ops->undo(p, p->fd);
		r = -EINTR;
	}
	return r;
}

static void *park_main(void *arg)
{
	struct fs_park *p = arg;
	struct fs_park_set *set = p->set;
	struct fs_park_follow follow;
	bool has_follow;
	sigset_t wake;
	/* Its parker's limit is inherited; this holds even if that changed. */
	int r = fs_caps_limit();

	(void)pthread_setname_np(pthread_self(), "lock-wait");
	sigemptyset(&wake);
	sigaddset(&wake, FS_PARK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &wake, NULL);
	if (!r)
		r = run_wait(p);
	/* A late cancel's signal must not cut the transport's completion short. */
	pthread_sigmask(SIG_BLOCK, &wake, NULL);
	p->ops->answer(p, r);

	/*
	 * A follower attaches only until here; one that comes later finds
	 * the wait answered and answers itself. Completed before the wait is
	 * unlisted: a transport may go away once cancel_all has returned.
	 */
	pthread_mutex_lock(&set->mu);
	p->answered = true;
	has_follow = p->follow_set;
	follow = p->follow;
	pthread_mutex_unlock(&set->mu);
	if (has_follow)
		follow.t.complete(follow.t.ctx, follow.req, follow.len);

	pthread_mutex_lock(&set->mu);
	for (struct fs_park **pp = &set->list; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	set->n--;
	atomic_fetch_sub_explicit(&helpers, 1, memory_order_relaxed);
	/* Unlisted: no cancel can reach wfd any more. */
	close(p->wfd);
	close(p->fd);
	fs_fd_refund_to(set->fds);
	fs_fd_refund_to(set->fds);
	pthread_cond_broadcast(&set->gone);
	pthread_mutex_unlock(&set->mu);
	free(p);
	return NULL;
}

static bool take_early(struct fs_park_set *set, uint64_t key)
{
	for (unsigned i = 0; i < set->nearly; i++) {
		if (set->early[i] == key) {
			set->early[i] = set->early[--set->nearly];
			return true;
		}
	}
	return false;
}

/* Caller holds set->mu; p is listed. */
static int spawn(struct fs_park_set *set, struct fs_park *p)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int r;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, FS_PARK_STACK);
	/* It unblocks FS_PARK_SIGNAL alone, whatever its parker's mask. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* Its own seccomp role: the wait, the give-back, the answer. */
	r = fs_thread_create(&p->thread, &attr, FS_ROLE_LOCK_WAIT, park_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return r;
}

int fs_park_start(struct fs_park_set *set, struct fs_park *p, int fd)
{
	int r;

	p->set = set;
	p->fd = fd;
	p->follow_set = false;
	p->answered = false;
	atomic_init(&p->cancelled, false);
	pthread_once(&dead_once, open_dead);
	if (dead_fd < 0 || fs_fd_charge_to(set->fds))
		return -ENOLCK;
	p->wfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (p->wfd < 0) {
		fs_fd_refund_to(set->fds);
		return -ENOLCK;
	}
	pthread_mutex_lock(&set->mu);
	if (take_early(set, p->key)) {
		r = -EINTR;
	} else if (set->n >= set->max || !helper_take()) {
		r = -ENOLCK;
	} else {
		/* Listed before it runs, so it can always find and unlist itself. */
		p->next = set->list;
		set->list = p;
		set->n++;
		r = spawn(set, p);
		if (r) {
			set->list = p->next;
			set->n--;
			atomic_fetch_sub_explicit(&helpers, 1, memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&set->mu);
	if (r) {
		close(p->wfd);
		fs_fd_refund_to(set->fds);
	}
	return r;
}

/* Caller holds set->mu; p is listed (so its helper is alive and owns wfd). */
static void cancel_one(struct fs_park *p)
{
	if (atomic_exchange(&p->cancelled, true))
		return; /* already swapped and signalled */
	dup2(dead_fd, p->wfd);
	pthread_kill(p->thread, FS_PARK_SIGNAL);
}

static struct fs_park *find(struct fs_park_set *set, uint64_t key)
{
	for (struct fs_park *p = set->list; p; p = p->next)
		if (p->key == key)
			return p;
	return NULL;
}

bool fs_park_cancel(struct fs_park_set *set, uint64_t key, const struct fs_park_follow *follow,
		    bool remember)
{
	struct fs_park *p;
	bool found = false;

	pthread_mutex_lock(&set->mu);
	p = find(set, key);
	if (p && follow && p->answered) {
		/* Answered already: the follower's answer may go now. */
	} else if (p) {
		if (follow && !p->follow_set) {
			p->follow = *follow;
			p->follow_set = true;
		}
		cancel_one(p);
		found = true;
	} else if (remember) {
		if (set->nearly == FS_PARK_EARLY)
			memmove(set->early, set->early + 1, sizeof(set->early) - sizeof(set->early[0]));
		else
			set->nearly++;
		set->early[set->nearly - 1] = key;
	}
	pthread_mutex_unlock(&set->mu);
	return found;
}

bool fs_park_cancel_wait(struct fs_park_set *set, uint64_t key)
{
	struct fs_park *p;

	pthread_mutex_lock(&set->mu);
	p = find(set, key);
	if (p) {
		cancel_one(p);
		/* p may be freed by now: wait for key to be unlisted instead. */
		while (find(set, key))
			pthread_cond_wait(&set->gone, &set->mu);
	}
	pthread_mutex_unlock(&set->mu);
	return p != NULL;
}

void fs_park_cancel_all(struct fs_park_set *set)
{
	pthread_mutex_lock(&set->mu);
	set->nearly = 0;
	for (struct fs_park *p = set->list; p; p = p->next)
		cancel_one(p);
	/* The cancel is certain (see the top), so this wait is short and bounded. */
	while (set->n)
		pthread_cond_wait(&set->gone, &set->mu);
	pthread_mutex_unlock(&set->mu);
}
