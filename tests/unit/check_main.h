/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The main() every Check program here shares: the suite runs in fork mode
 * (a crash or a timeout fails one test, not the whole program) and the
 * exit status says whether every test passed.
 */
#ifndef STAINLESS_TESTS_UNIT_CHECK_MAIN_H
#define STAINLESS_TESTS_UNIT_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int unit_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
