/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The main() every Check program here shares: the suite runs in fork mode
 * (a crash or a timeout fails one test, not the whole program) and the
 * exit status says whether every test passed.
 *
 * A test that cannot check what its name claims here (no mount rights, no
 * /dev/kvm, a filesystem without user xattrs) calls UNIT_SKIP("why"):
 * it prints "SKIP <test>: why" and ends. Check would count that as a pass,
 * so the skips are counted apart, in a page shared with the forked tests:
 * the program exits 77 when every test skipped, and tests/run-unit counts
 * each SKIP line as a skip, never as a pass.
 */
#ifndef STAINLESS_TESTS_UNIT_CHECK_MAIN_H
#define STAINLESS_TESTS_UNIT_CHECK_MAIN_H

#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static _Atomic unsigned *unit_skips;

#define UNIT_SKIP(...)                                                        \
	do {                                                                  \
		printf("SKIP %s: ", __func__);                                \
		printf(__VA_ARGS__);                                          \
		printf("\n");                                                 \
		fflush(stdout);                                               \
		if (unit_skips)                                               \
			atomic_fetch_add(unit_skips, 1);                      \
		return;                                                       \
	} while (0)

/* *ts = ms from now on CLOCK_REALTIME, for pthread_cond_timedwait. */
static inline void unit_deadline(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

static inline int unit_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed, run;
	unsigned skipped = 0;
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (page != MAP_FAILED)
		unit_skips = page;
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	run = srunner_ntests_run(sr);
	srunner_free(sr);
	if (unit_skips)
		skipped = atomic_load(unit_skips);
	if (failed)
		return EXIT_FAILURE;
	if (skipped)
		printf("%u of %d tests skipped\n", skipped, run);
	return run > 0 && skipped == (unsigned)run ? 77 : EXIT_SUCCESS;
}

#endif
