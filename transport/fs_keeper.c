// SPDX-License-Identifier: GPL-2.0-only
/* Idle-class serving threads and the watcher that keeps them fed (see fs_keeper.h). */
#include "transport/fs_keeper.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "transport/fs_wait.h"
#include "fs/fs_thread.h"

/*
 * Starved: more than STARVED_NS of run delay in a tick with fewer than one
 * request served per PER_REQUEST_NS of it. A thread that answers a caller
 * on its own CPU waits too, while that caller runs between its requests
 * (several microseconds per request); one behind a busy task serves next
 * to nothing.
 */
#define STARVED_NS 1000000u
#define PER_REQUEST_NS 100000u
#define HOLD_NS 1000000000u        /* then normal for at least this long */
#define QUIET_TICKS 25             /* ticks without a request: rest and sleep */

struct kept {
	_Alignas(64) _Atomic pid_t tid;  /* 0 until the thread entered */
	_Atomic uint64_t served;         /* requests taken (the thread writes) */
	_Atomic bool left;               /* fs_keeper_leave: not ours until it enters */
	int schedstat_fd;
	/* The watcher's own view. */
	bool idle;
	uint64_t seen_served, seen_delay_ns, normal_until_ns;
};

struct fs_keeper {
	pthread_t watcher;
	int wake_fd;                     /* eventfd: a request again, or stop */
	_Atomic bool asleep, stop;
	unsigned n;
	struct kept t[];
};

/* sched(7): what it takes to go back from SCHED_IDLE to SCHED_OTHER. */
static bool idle_class_reversible(void)
{
	struct rlimit rl;
	char line[128];
	unsigned long long eff;
	bool can = false;
	FILE *f;

	if (getrlimit(RLIMIT_NICE, &rl) == 0 && rl.rlim_cur >= 20)  /* infinity too */
		return true;
	f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			can = eff & (1ull << CAP_SYS_NICE);
	fclose(f);
	return can;
}

/* Time the thread spent runnable but not running (schedstat's second field). */
static uint64_t run_delay_ns(int fd)
{
	char buf[96];
	unsigned long long ran, waited;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	return sscanf(buf, "%llu %llu", &ran, &waited) == 2 ? waited : 0;
}

static void set_idle(struct kept *t, bool idle)
{
	struct sched_param sp = { 0 };
	pid_t tid = atomic_load(&t->tid);

	if (tid && t->idle != idle &&
	    sched_setscheduler(tid, idle ? SCHED_IDLE : SCHED_OTHER, &sp) == 0)
		t->idle = idle;
}

/* One look at every thread; returns whether any took a request since the last. */
static bool tick(struct fs_keeper *k)
{
	uint64_t now = fs_now_ns();
	bool active = false;

	for (unsigned i = 0; i < k->n; i++) {
		struct kept *t = &k->t[i];
		uint64_t served = atomic_load(&t->served);
		bool busy = served != t->seen_served;

		/* Not entered yet, or no way to see starvation: leave it normal. */
		if (!atomic_load(&t->tid) || t->schedstat_fd < 0)
			continue;
		uint64_t delay = run_delay_ns(t->schedstat_fd);
		uint64_t waited = delay - t->seen_delay_ns;
		if (atomic_load(&t->left)) {
			/* It made itself normal; undo a set_idle that raced with that. */
			if (t->idle)
				set_idle(t, false);
		} else if (t->idle && waited > STARVED_NS && served - t->seen_served < waited / PER_REQUEST_NS) {
			set_idle(t, false);
			t->normal_until_ns = now + HOLD_NS;
		} else if (!t->idle && busy && now >= t->normal_until_ns) {
			set_idle(t, true);
		}
		t->seen_served = served;
		t->seen_delay_ns = delay;
		active |= busy;
	}
	return active;
}

static bool served_since_seen(struct fs_keeper *k)
{
	for (unsigned i = 0; i < k->n; i++)
		if (atomic_load(&k->t[i].served) != k->t[i].seen_served)
			return true;
	return false;
}

static void drain(struct fs_keeper *k, int timeout_ms)
{
	struct pollfd p = { .fd = k->wake_fd, .events = POLLIN };
	uint64_t v;

	if (poll(&p, 1, timeout_ms) > 0)
		(void)!read(k->wake_fd, &v, sizeof(v));
}

/* Every thread normal, then sleep until one takes a request (fs_keeper_served wakes us). */
static void rest(struct fs_keeper *k)
{
	for (unsigned i = 0; i < k->n; i++)
		set_idle(&k->t[i], false);
	atomic_store(&k->asleep, true);
	if (served_since_seen(k)) {  /* a request slipped in before the flag */
		atomic_store(&k->asleep, false);
		return;
	}
	drain(k, -1);
}

static void *watcher_main(void *arg)
{
	struct fs_keeper *k = arg;
	unsigned quiet = 0;

	(void)pthread_setname_np(pthread_self(), "fs-keeper");
	while (!atomic_load(&k->stop)) {
		if (quiet >= QUIET_TICKS) {
			rest(k);
			quiet = 0;
			continue;
		}
		drain(k, KEEPER_TICK_MS);
		quiet = tick(k) ? 0 : quiet + 1;
	}
	return NULL;
}

struct fs_keeper *fs_keeper_start(unsigned n)
{
	struct fs_keeper *k;

	if (!n || !idle_class_reversible())
		return NULL;
	k = calloc(1, sizeof(*k) + n * sizeof(k->t[0]));
	if (!k)
		return NULL;
	k->n = n;
	for (unsigned i = 0; i < n; i++)
		k->t[i].schedstat_fd = -1;
	k->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (k->wake_fd < 0 || fs_thread_create(&k->watcher, NULL, FS_ROLE_KEEPER, watcher_main, k) < 0) {
		if (k->wake_fd >= 0)
			close(k->wake_fd);
		free(k);
		return NULL;
	}
	return k;
}

void fs_keeper_enter(struct fs_keeper *k, unsigned i, int cpu)
{
	if (cpu >= 0 && cpu < CPU_SETSIZE) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		(void)pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	}
	if (!k || i >= k->n)
		return;
	if (!atomic_load(&k->t[i].tid)) {
		k->t[i].schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
		atomic_store(&k->t[i].tid, gettid());   /* publishes the fd to the watcher */
	}
	atomic_store(&k->t[i].left, false);
}

void fs_keeper_leave(struct fs_keeper *k, unsigned i, const cpu_set_t *anywhere)
{
	struct sched_param sp = { 0 };

	(void)pthread_setaffinity_np(pthread_self(), sizeof(*anywhere), anywhere);
	if (!k || i >= k->n)
		return;
	atomic_store(&k->t[i].left, true);
	/*
	 * A serving thread holds no CAP_SYS_NICE (fs_caps_limit), so out of
	 * the idle class this is EPERM unless RLIMIT_NICE allows it: then
	 * the watcher, which holds it, does it at once (tick sees `left`).
	 */
	if (sched_setscheduler(0, SCHED_OTHER, &sp) < 0) {
		uint64_t one = 1;
		(void)!write(k->wake_fd, &one, sizeof(one));
	}
}

void fs_keeper_served(struct fs_keeper *k, unsigned i)
{
	uint64_t one = 1;

	if (!k || i >= k->n)
		return;
	atomic_fetch_add(&k->t[i].served, 1);
	if (atomic_load(&k->asleep) && atomic_exchange(&k->asleep, false))
		(void)!write(k->wake_fd, &one, sizeof(one));
}

void fs_keeper_stop(struct fs_keeper *k)
{
	uint64_t one = 1;

	if (!k)
		return;
	atomic_store(&k->stop, true);
	(void)!write(k->wake_fd, &one, sizeof(one));
	pthread_join(k->watcher, NULL);
	for (unsigned i = 0; i < k->n; i++) {
		set_idle(&k->t[i], false);
		if (k->t[i].schedstat_fd >= 0)
			close(k->t[i].schedstat_fd);
	}
	close(k->wake_fd);
	free(k);
}
