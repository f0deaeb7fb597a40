/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the command-line unit tests (test_cli, test_cli_shares): parse
 * an argv built in place and check the error it produced. Each test is one
 * program, so this is #included rather than linked.
 */
#ifndef STAINLESS_TESTS_CLI_UTIL_H
#define STAINLESS_TESTS_CLI_UTIL_H

#include <check.h>
#include <errno.h>
#include <string.h>

#include "cmd/run_cli.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

/* struct vm_config carries 64 KiB of share specs: keep it off the stack. */
static struct vm_config cfg;
static struct sandbox_opts sbo;
static char err[512];

/* Copies args (NULL-terminated, "run" first) into writable storage, as the
 * real argv is, and parses them. */
static inline int parse_args(const char *const *args)
{
	static char store[40][4200];
	static char *argv[41];
	int argc = 0;

	for (; args[argc]; argc++) {
		ck_assert_int_lt(argc, 40);
		ck_assert_uint_lt(strlen(args[argc]), sizeof(store[0]));
		strcpy(store[argc], args[argc]);
		argv[argc] = store[argc];
	}
	argv[argc] = NULL;
	memset(err, 0, sizeof(err));
	return cli_parse_run(argc, argv, &cfg, &sbo, err, sizeof(err));
}

#define PARSE(...) parse_args((const char *const[]){ "run", ##__VA_ARGS__, NULL })

/* The parse must fail with -EINVAL and an error naming both needles. */
#define EXPECT_ERR(n1, n2, ...) do {                                          \
		int rc_ = PARSE(__VA_ARGS__);                                 \
		ck_assert_msg(rc_ == -EINVAL, "expected -EINVAL, got %d", rc_); \
		ck_assert_msg(strstr(err, (n1)) != NULL,                      \
			      "error '%s' does not mention '%s'", err, (n1)); \
		ck_assert_msg(strstr(err, (n2)) != NULL,                      \
			      "error '%s' does not mention '%s'", err, (n2)); \
	} while (0)

#endif
