// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parked waits (fs/fs_park.c), the mechanism both servers' blocking locks
 * use: a wait is answered through its own callback when its call
 * returns; a cancel ends it even when its signal lands before the call
 * is entered (where a signal alone is lost), and returns without waiting;
 * a granted-then-cancelled wait gives its lock back; a follower request
 * is answered right after; the set is bounded; a cancel that overtook
 * its park is remembered only when asked; cancel_all answers everything.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "fs/fs_park.h"
#include "tests/unit/check_main.h"

static char path[] = "/tmp/test_fs_park.XXXXXX";
static int holder = -1;          /* holds flock(LOCK_EX) on the file */
static struct fs_park_set set;
static struct fs_park_set *target = &set; /* where park() parks */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int answers[16], nanswers, nundo, order[16], norder;

struct rec {
	struct fs_park park;
	int spin_ms;                 /* in user space before the call */
	int spin_after_ms;           /* and after it */
	int id;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000;
}

static void spin(int ms)
{
	uint64_t end = now_us() + (uint64_t)ms * 1000;

	while (now_us() < end)
		;
}

static int t_wait(struct fs_park *p, int fd)
{
	struct rec *r = (struct rec *)p;
	int e;

	/* Stands for the window before the call: a signal here is handled and gone. */
	spin(r->spin_ms);
	e = flock(fd, LOCK_EX) == 0 ? 0 : -errno;
	spin(r->spin_after_ms);
	return e;
}

static void t_undo(struct fs_park *p, int fd)
{
	flock(fd, LOCK_UN);
	pthread_mutex_lock(&mu);
	nundo++;
	pthread_mutex_unlock(&mu);
}

static void t_answer(struct fs_park *p, int result)
{
	pthread_mutex_lock(&mu);
	answers[nanswers++] = result;
	order[norder++] = ((struct rec *)p)->id;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static const struct fs_park_ops ops = { t_wait, t_undo, t_answer };

static void follow_done(void *ctx, struct fs_req *req, uint32_t len)
{
	pthread_mutex_lock(&mu);
	order[norder++] = (int)len;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static bool wait_for(int n, int ms)
{
	struct timespec ts;
	bool ok;

	unit_deadline(&ts, ms);
	pthread_mutex_lock(&mu);
	while (norder < n)
		if (pthread_cond_timedwait(&cv, &mu, &ts))
			break;
	ok = norder >= n;
	pthread_mutex_unlock(&mu);
	return ok;
}

/* Parks a wait for the file's flock (the holder has it) under key. */
static int park2(uint64_t key, int spin_ms, int spin_after_ms, int id)
{
	struct rec *r = calloc(1, sizeof(*r));
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fs_fd_charge(), 0);
	r->park.ops = &ops;
	r->park.key = key;
	r->spin_ms = spin_ms;
	r->spin_after_ms = spin_after_ms;
	r->id = id;
	e = fs_park_start(target, &r->park, fd);
	if (e) {
		close(fd);
		fs_fd_refund();
		free(r);
	}
	return e;
}

static int park(uint64_t key, int spin_ms, int id)
{
	return park2(key, spin_ms, 0, id);
}

static void setup(void)
{
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	holder = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(flock(holder, LOCK_EX), 0);
	ck_assert_int_eq(fs_park_set_init(&set, 4), 0);
}

static void teardown(void)
{
	fs_park_cancel_all(&set);
	fs_park_set_fini(&set);
	close(holder);
	unlink(path);
}

START_TEST(granted_when_released)
{
	ck_assert_int_eq(park(1, 0, 1), 0);
	ck_assert(!wait_for(1, 100));
	flock(holder, LOCK_UN);
	ck_assert(wait_for(1, 5000));
	ck_assert_int_eq(answers[0], 0);
	ck_assert_int_eq(nundo, 0);
}
END_TEST

START_TEST(cancel_in_the_window_before_the_call)
{
	/* The cancel's signal lands while the helper spins, before flock. */
	ck_assert_int_eq(park(1, 300, 1), 0);
	usleep(50000);
	uint64_t t0 = now_us();
	ck_assert(fs_park_cancel(&set, 1, NULL, false));
	ck_assert_uint_lt(now_us() - t0, 100000); /* it did not wait for the helper */
	/* Without the dead fd swapped in, flock would now block for good. */
	ck_assert(wait_for(1, 5000));
	ck_assert_int_eq(answers[0], -EINTR);
}
END_TEST

START_TEST(cancel_while_blocked)
{
	ck_assert_int_eq(park(7, 0, 1), 0);
	usleep(50000);
	ck_assert(!fs_park_cancel(&set, 8, NULL, false));
	ck_assert(fs_park_cancel(&set, 7, NULL, false));
	ck_assert(wait_for(1, 5000));
	ck_assert_int_eq(answers[0], -EINTR);
	/* Nothing was left locked: the file is free once the holder lets go. */
	flock(holder, LOCK_UN);
	int fd = open(path, O_RDONLY);
	ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	close(fd);
}
END_TEST

START_TEST(granted_then_cancelled_gives_back)
{
	/* Free file: flock is granted at once, the cancel comes just after. */
	flock(holder, LOCK_UN);
	ck_assert_int_eq(park2(3, 0, 200, 1), 0);
	usleep(50000);
	ck_assert(fs_park_cancel(&set, 3, NULL, false));
	ck_assert(wait_for(1, 5000));
	ck_assert_int_eq(answers[0], -EINTR);
	ck_assert_int_eq(nundo, 1);
	int fd = open(path, O_RDONLY);
	ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	close(fd);
}
END_TEST

START_TEST(follower_answered_after)
{
	struct fs_req freq = { 0 };
	struct fs_park_follow f = {
		.req = &freq, .t = { .complete = follow_done }, .len = 99,
	};

	ck_assert_int_eq(park(5, 0, 1), 0);
	usleep(20000);
	ck_assert(fs_park_cancel(&set, 5, &f, false));
	ck_assert(wait_for(2, 5000));
	ck_assert_int_eq(order[0], 1);   /* the wait's own answer first */
	ck_assert_int_eq(order[1], 99);  /* then the follower */
}
END_TEST

START_TEST(bounded)
{
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(park((uint64_t)i, 0, i), 0);
	ck_assert_int_eq(park(9, 0, 9), -ENOLCK);
	/* Each wait holds a second fd, charged: none left, no park. */
	ck_assert(fs_park_cancel_wait(&set, 0)); /* its two fds are back */
	fs_fd_set_limit(fs_fd_used() + 1);  /* room for the caller's fd alone */
	ck_assert_int_eq(park(9, 0, 9), -ENOLCK);
	fs_fd_set_limit(fs_fd_used() + 2);
	ck_assert_int_eq(park(9, 0, 9), 0);
	fs_park_cancel_all(&set);
	ck_assert_int_eq(nanswers, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(answers[i], -EINTR);
}
END_TEST

/* The process-wide bound holds across sets: helpers are threads. */
START_TEST(bounded_per_process)
{
	struct fs_park_set other;

	ck_assert_int_eq(fs_park_set_init(&other, 4), 0);
	fs_park_set_process_max(3);
	ck_assert_int_eq(park(1, 0, 1), 0);
	ck_assert_int_eq(park(2, 0, 2), 0);
	target = &other;
	ck_assert_int_eq(park(3, 0, 3), 0);
	ck_assert_uint_eq(fs_park_helpers(), 3);
	/* Both sets have room for more; the process has none. */
	ck_assert_int_eq(park(4, 0, 4), -ENOLCK);
	target = &set;
	ck_assert_int_eq(park(4, 0, 4), -ENOLCK);
	ck_assert(fs_park_cancel_wait(&set, 1));
	ck_assert_uint_eq(fs_park_helpers(), 2);
	target = &other;
	ck_assert_int_eq(park(4, 0, 4), 0);
	target = &set;
	fs_park_cancel_all(&other);
	fs_park_cancel_all(&set);
	ck_assert_uint_eq(fs_park_helpers(), 0);
	fs_park_set_process_max(0);
	ck_assert_uint_eq(fs_park_process_max(), FS_PARK_PROCESS_MAX);
	fs_park_set_fini(&other);
}
END_TEST

START_TEST(early_cancel_remembered_only_when_asked)
{
	ck_assert(!fs_park_cancel(&set, 42, NULL, false));
	ck_assert_int_eq(park(42, 0, 1), 0);       /* not remembered: parks */
	ck_assert(!fs_park_cancel(&set, 43, NULL, true));
	ck_assert_int_eq(park(43, 0, 2), -EINTR);  /* overtaken: answered EINTR */
	ck_assert_int_eq(park(43, 0, 3), 0);       /* and remembered once */
	/* Only the last FS_PARK_EARLY are kept. */
	for (uint64_t k = 100; k <= 100 + FS_PARK_EARLY; k++)
		ck_assert(!fs_park_cancel(&set, k, NULL, true));
	ck_assert_int_eq(park(101, 0, 4), -EINTR);
	ck_assert_int_eq(park(100, 0, 5), 0);      /* pushed out */
	fs_park_cancel_all(&set);
	ck_assert_int_eq(nanswers, 3);
	/* A reset forgets them too. */
	ck_assert_int_eq(park(102, 0, 6), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fs_park");
	TCase *tc = tcase_create("park");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, granted_when_released);
	tcase_add_test(tc, cancel_in_the_window_before_the_call);
	tcase_add_test(tc, cancel_while_blocked);
	tcase_add_test(tc, granted_then_cancelled_gives_back);
	tcase_add_test(tc, follower_answered_after);
	tcase_add_test(tc, bounded);
	tcase_add_test(tc, bounded_per_process);
	tcase_add_test(tc, early_cancel_remembered_only_when_asked);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
