// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exit-code contract (base/exit.h, docs/exit-codes.md): exit codes
 * pass as they are, and no -errno reaches the shell as its value modulo
 * 256 (ENOENT was 254, EACCES 243, ENOTTY 231).
 */
#include <check.h>
#include <errno.h>

#include "base/exit.h"
#include "tests/unit/check_main.h"

START_TEST(t_codes_pass)
{
	ck_assert_int_eq(exit_status(EXIT_OK), 0);
	ck_assert_int_eq(exit_status(EXIT_FAILED), 1);
	ck_assert_int_eq(exit_status(EXIT_USAGE), 2);
	ck_assert_int_eq(exit_status(EXIT_GUEST), 3);
	ck_assert_int_eq(exit_status(128 + 15), 143);  /* run stopped by SIGTERM */
	ck_assert_int_eq(exit_status(128 + 31), 159);  /* a seccomp kill */
}
END_TEST

START_TEST(t_errno_is_a_runtime_failure)
{
	static const int errs[] = { ENOENT, EACCES, ENOTTY, EINVAL, ENOMEM, EPERM, 255, 4095 };

	for (unsigned i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		ck_assert_int_eq(exit_status(-errs[i]), EXIT_FAILED);
	ck_assert_int_eq(exit_status(256), EXIT_FAILED);  /* not a status: never 0 */
}
END_TEST

static Suite *exit_suite(void)
{
	Suite *s = suite_create("exit");
	TCase *tc = tcase_create("contract");

	tcase_add_test(tc, t_codes_pass);
	tcase_add_test(tc, t_errno_is_a_runtime_failure);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(exit_suite());
}
