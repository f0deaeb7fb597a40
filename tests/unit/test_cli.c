// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless run` command line (cmd/run_cli.c): every option, the defaults,
 * --mem and --cpus, and every bad input refused with a reason naming the
 * option at fault. Shares and their options are in test_cli_shares.c.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check_main.h"
#include "tests/unit/cli_util.h"
#include "cmd/run_cli.h"

#define EXPECT_MEM(arg, bytes) do {                                           \
		int rc_ = PARSE("--kernel", "k", "--mem", (arg));             \
		ck_assert_msg(rc_ == 0, "--mem %s: rc %d (%s)", (arg), rc_, err); \
		ck_assert_msg(cfg.mem == (bytes), "--mem %s gave %llu", (arg), \
			      (unsigned long long)cfg.mem);                   \
	} while (0)

/* ---- defaults and every option ---------------------------------------- */

START_TEST(test_defaults)
{
	ck_assert_int_eq(PARSE("--kernel", "/boot/vmlinuz"), 0);
	ck_assert_str_eq(cfg.kernel, "/boot/vmlinuz");
	ck_assert_ptr_null(cfg.initrd);
	ck_assert_str_eq(cfg.cmdline, "");
	ck_assert_uint_eq(cfg.mem, 512 * MIB);
	ck_assert_uint_eq(cfg.cpus, 1);
	ck_assert_int_eq(cfg.console, CONSOLE_STDIO);
	ck_assert_ptr_null(cfg.console_path);
	ck_assert_int_eq(sbo.mode, SANDBOX_NAMESPACE);
	ck_assert(!cfg.rng);
	ck_assert(!cfg.stats);
	ck_assert_uint_eq(cfg.nr_shares, 0);
}
END_TEST

START_TEST(test_every_option)
{
	ck_assert_int_eq(PARSE("--kernel", "bzImage", "--initrd", "initrd.img",
			       "--cmdline", "console=ttyS0 quiet", "--mem", "2G",
			       "--cpus", "4", "--console", "none", "--rng", "--no-sandbox",
			       "--stats", "--fs", "docs=/srv/docs,cache=never,queues=3",
			       "--9p", "src=/srv/src,readonly"), 0);
	ck_assert_str_eq(cfg.kernel, "bzImage");
	ck_assert_str_eq(cfg.initrd, "initrd.img");
	ck_assert_str_eq(cfg.cmdline, "console=ttyS0 quiet");
	ck_assert_uint_eq(cfg.mem, 2 * GIB);
	ck_assert_uint_eq(cfg.cpus, 4);
	ck_assert_int_eq(cfg.console, CONSOLE_NONE);
	ck_assert(cfg.rng);
	ck_assert_int_eq(sbo.mode, SANDBOX_NONE);
	ck_assert(cfg.stats);
	ck_assert_uint_eq(cfg.nr_shares, 2);
	ck_assert_uint_eq(cfg.shares[0].opts.queues, 3);
	ck_assert(!cfg.shares[0].is_9p);
	ck_assert_str_eq(cfg.shares[0].tag, "docs");
	ck_assert_str_eq(cfg.shares[0].dir, "/srv/docs");
	ck_assert_int_eq(cfg.shares[0].opts.cache, FS_CACHE_NEVER);
	ck_assert(cfg.shares[1].is_9p);
	ck_assert_str_eq(cfg.shares[1].tag, "src");
	ck_assert_str_eq(cfg.shares[1].dir, "/srv/src");
	ck_assert(cfg.shares[1].opts.readonly);
}
END_TEST

START_TEST(test_option_equals_form)
{
	ck_assert_int_eq(PARSE("--kernel=vmlinux", "--mem=1G", "--cpus=2",
			       "--cmdline=a=b c"), 0);
	ck_assert_str_eq(cfg.kernel, "vmlinux");
	ck_assert_uint_eq(cfg.mem, GIB);
	ck_assert_uint_eq(cfg.cpus, 2);
	ck_assert_str_eq(cfg.cmdline, "a=b c");
}
END_TEST

START_TEST(test_console_stdio_none_file)
{
	ck_assert_int_eq(PARSE("--kernel", "k", "--console", "none"), 0);
	ck_assert_int_eq(cfg.console, CONSOLE_NONE);
	ck_assert_int_eq(PARSE("--kernel", "k", "--console", "stdio"), 0);
	ck_assert_int_eq(cfg.console, CONSOLE_STDIO);
	ck_assert_int_eq(PARSE("--kernel", "k", "--console", "/tmp/console.log"), 0);
	ck_assert_int_eq(cfg.console, CONSOLE_FILE);
	ck_assert_str_eq(cfg.console_path, "/tmp/console.log");
}
END_TEST

START_TEST(test_console_empty_refused)
{
	EXPECT_ERR("--console", "stdio", "--kernel", "k", "--console", "");
}
END_TEST

START_TEST(test_help_returns_1)
{
	/* The usage text is not what is under test here. */
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stdout));
	ck_assert_int_eq(PARSE("--help"), 1);
	ck_assert_int_eq(PARSE("-h"), 1);
}
END_TEST

START_TEST(test_later_option_wins)
{
	ck_assert_int_eq(PARSE("--kernel", "a", "--kernel", "b", "--mem", "1G",
			       "--mem", "64M"), 0);
	ck_assert_str_eq(cfg.kernel, "b");
	ck_assert_uint_eq(cfg.mem, 64 * MIB);
}
END_TEST

/* getopt keeps global state; a second parse must start from scratch. */
START_TEST(test_second_parse_starts_afresh)
{
	ck_assert_int_eq(PARSE("--kernel", "a", "--mem", "1G", "--cpus", "3", "--rng",
			       "--fs", "t=/d"), 0);
	ck_assert_int_eq(PARSE("--kernel", "b"), 0);
	ck_assert_str_eq(cfg.kernel, "b");
	ck_assert_uint_eq(cfg.mem, 512 * MIB);
	ck_assert_uint_eq(cfg.cpus, 1);
	ck_assert(!cfg.rng);
	ck_assert_uint_eq(cfg.nr_shares, 0);
	/* A failed parse does not poison the next one either. */
	EXPECT_ERR("--bogus", "unknown", "--bogus");
	ck_assert_int_eq(PARSE("--kernel", "c", "--fs", "t=/d"), 0);
	ck_assert_uint_eq(cfg.nr_shares, 1);
}
END_TEST

/* ---- --mem ------------------------------------------------------------- */

START_TEST(test_mem_sizes)
{
	EXPECT_MEM("512M", 512 * MIB);
	EXPECT_MEM("2G", 2 * GIB);
	EXPECT_MEM("2g", 2 * GIB);
	EXPECT_MEM("1024", 1024 * MIB);  /* a bare number means MiB */
	EXPECT_MEM("32", 32 * MIB);
	EXPECT_MEM("32M", 32 * MIB);     /* the minimum */
	EXPECT_MEM("1T", 1ull << 40);    /* the maximum */
	EXPECT_MEM("1048576", 1ull << 40);
	EXPECT_MEM("65536K", 64 * MIB);
	EXPECT_MEM("512MB", 512 * MIB);
	EXPECT_MEM("512MiB", 512 * MIB);
	EXPECT_MEM("5G", 5 * GIB);       /* above the 3 GiB hole is fine */
}
END_TEST

START_TEST(test_mem_garbage_refused)
{
	static const char *const bad[] = {
		"lots", "", "G", "12Q", "-1", "+1", " 1G", "1.5G", "1GG", "0x100", "1 G",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_ERR("--mem", "not a size", "--kernel", "k", "--mem", bad[i]);
		ck_assert_msg(strstr(err, bad[i]), "error '%s' does not quote '%s'", err, bad[i]);
	}
}
END_TEST

START_TEST(test_mem_too_small_refused)
{
	EXPECT_ERR("--mem", "too small", "--kernel", "k", "--mem", "64k");
	EXPECT_ERR("--mem", "too small", "--kernel", "k", "--mem", "31M");
	EXPECT_ERR("--mem", "too small", "--kernel", "k", "--mem", "0");
	EXPECT_ERR("--mem", "too small", "--kernel", "k", "--mem", "31");
	EXPECT_ERR("--mem", "too small", "--kernel", "k", "--mem", "32767K");
}
END_TEST

START_TEST(test_mem_too_large_refused)
{
	EXPECT_ERR("--mem", "too large", "--kernel", "k", "--mem", "2T");
	EXPECT_ERR("--mem", "too large", "--kernel", "k", "--mem", "1025G");
	EXPECT_ERR("--mem", "too large", "--kernel", "k", "--mem", "1048577");
	/* MiB scaling of a bare number must saturate, not wrap to a small size. */
	EXPECT_ERR("--mem", "too large", "--kernel", "k", "--mem", "17592186044416");
	EXPECT_ERR("--mem", "too large", "--kernel", "k", "--mem", "18446744073709551615");
	EXPECT_ERR("--mem", "too large", "--kernel", "k", "--mem", "16777215T");
}
END_TEST

START_TEST(test_mem_not_4k_multiple_refused)
{
	EXPECT_ERR("--mem", "4K", "--kernel", "k", "--mem", "40001K");
	EXPECT_ERR("--mem", "4K", "--kernel", "k", "--mem", "32770k");
}
END_TEST

START_TEST(test_mem_overflow_refused)
{
	EXPECT_ERR("--mem", "99999999999999999999G",
		   "--kernel", "k", "--mem", "99999999999999999999G");
	EXPECT_ERR("--mem", "99999999999999999999", "--kernel", "k", "--mem",
		   "99999999999999999999");
	/* 2^34 GiB = 2^64 bytes: one past what fits. */
	EXPECT_ERR("--mem", "17179869184G", "--kernel", "k", "--mem", "17179869184G");
	EXPECT_ERR("--mem", "16777216T", "--kernel", "k", "--mem", "16777216T");
}
END_TEST

/* ---- --cpus ------------------------------------------------------------ */

START_TEST(test_cpus_valid)
{
	ck_assert_int_eq(PARSE("--kernel", "k", "--cpus", "1"), 0);
	ck_assert_uint_eq(cfg.cpus, 1);
	ck_assert_int_eq(PARSE("--kernel", "k", "--cpus", "64"), 0);
	ck_assert_uint_eq(cfg.cpus, 64);
	ck_assert_int_eq(PARSE("--kernel", "k", "--cpus", "255"), 0);
	ck_assert_uint_eq(cfg.cpus, VM_CPUS_MAX);
}
END_TEST

START_TEST(test_cpus_invalid_refused)
{
	static const char *const bad[] = {
		"0", "-1", "256", "abc", "2x", "", "1.0", "99999999999999999999",
		"-9223372036854775808",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_ERR("--cpus", "1 to 255", "--kernel", "k", "--cpus", bad[i]);
		ck_assert_msg(strstr(err, bad[i]), "error '%s' does not quote '%s'", err, bad[i]);
	}
}
END_TEST

/* ---- general command-line errors -------------------------------------- */

START_TEST(test_missing_kernel_refused)
{
	EXPECT_ERR("--kernel", "required");
	EXPECT_ERR("--kernel", "required", "--mem", "1G", "--cpus", "2");
}
END_TEST

START_TEST(test_unknown_option_refused)
{
	EXPECT_ERR("--frobnicate", "unknown option", "--kernel", "k", "--frobnicate");
	EXPECT_ERR("--frobnicate=1", "unknown option", "--kernel", "k", "--frobnicate=1");
	EXPECT_ERR("-x", "unknown option", "--kernel", "k", "-x");
}
END_TEST

START_TEST(test_missing_argument_refused)
{
	EXPECT_ERR("--kernel", "needs an argument", "--kernel");
	EXPECT_ERR("--mem", "needs an argument", "--kernel", "k", "--mem");
	EXPECT_ERR("--cpus", "needs an argument", "--kernel", "k", "--cpus");
	EXPECT_ERR("--fs", "needs an argument", "--kernel", "k", "--fs");
	EXPECT_ERR("--9p", "needs an argument", "--kernel", "k", "--9p");
	EXPECT_ERR("--console", "needs an argument", "--kernel", "k", "--console");
}
END_TEST

START_TEST(test_stray_positional_refused)
{
	EXPECT_ERR("extra", "unexpected argument", "--kernel", "k", "extra");
	/* Options after a positional are not silently taken either. */
	EXPECT_ERR("vmlinuz", "unexpected argument", "vmlinuz", "--kernel", "k");
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc;

	tc = tcase_create("options");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_every_option);
	tcase_add_test(tc, test_option_equals_form);
	tcase_add_test(tc, test_console_stdio_none_file);
	tcase_add_test(tc, test_console_empty_refused);
	tcase_add_test(tc, test_help_returns_1);
	tcase_add_test(tc, test_later_option_wins);
	tcase_add_test(tc, test_second_parse_starts_afresh);
	suite_add_tcase(s, tc);

	tc = tcase_create("mem_cpus");
	tcase_add_test(tc, test_mem_sizes);
	tcase_add_test(tc, test_mem_garbage_refused);
	tcase_add_test(tc, test_mem_too_small_refused);
	tcase_add_test(tc, test_mem_too_large_refused);
	tcase_add_test(tc, test_mem_not_4k_multiple_refused);
	tcase_add_test(tc, test_mem_overflow_refused);
	tcase_add_test(tc, test_cpus_valid);
	tcase_add_test(tc, test_cpus_invalid_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_missing_kernel_refused);
	tcase_add_test(tc, test_unknown_option_refused);
	tcase_add_test(tc, test_missing_argument_refused);
	tcase_add_test(tc, test_stray_positional_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(cli_suite());
}
