/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Runs part of a test on a thread of its own, for tests that look at the
 * host with more privilege than a serving thread keeps: a thread's first
 * request limits that thread's capabilities (fs_caps_limit), so the test's
 * own thread, which never serves, can still read trusted.* (CAP_SYS_ADMIN)
 * to check what reached the host. A failed ck_assert on that thread ends
 * the (forked) test as it would on the test's own.
 */
#ifndef STAINLESS_TESTS_UNIT_ON_THREAD_H
#define STAINLESS_TESTS_UNIT_ON_THREAD_H

#include <check.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

struct on_thread_job {
	void (*fn)(void);
};

static inline void *on_thread_main(void *arg)
{
	((struct on_thread_job *)arg)->fn();
	return NULL;
}

static inline void on_thread(void (*fn)(void))
{
	struct on_thread_job job = { fn };
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, on_thread_main, &job), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
}

/* The calling thread's effective and permitted sets, as CAP_* bit masks. */
static inline void thread_caps(uint64_t *eff, uint64_t *perm)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	ck_assert_int_eq(syscall(SYS_capget, &h, d), 0);
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
}

#define CAPBIT(c) (1ull << (c))

#endif
