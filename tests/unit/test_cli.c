// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless run` command line (vmm/cli.c) and the share-option parsers it
 * relies on (fs/fs_options.c): every option, the defaults, and every bad
 * input refused with a reason that names the option at fault.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs_options.h"
#include "vmm/cli.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

/* struct vm_config carries 64 KiB of share specs: keep it off the stack. */
static struct vm_config cfg;
static char err[512];

/* Copies args (NULL-terminated, "run" first) into writable storage, as the
 * real argv is, and parses them. */
static int parse_args(const char *const *args)
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
	return cli_parse_run(argc, argv, &cfg, err, sizeof(err));
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
	ck_assert(!cfg.no_sandbox);
	ck_assert(!cfg.rng);
	ck_assert_uint_eq(cfg.nr_shares, 0);
}
END_TEST

START_TEST(test_every_option)
{
	ck_assert_int_eq(PARSE("--kernel", "bzImage", "--initrd", "initrd.img",
			       "--cmdline", "console=ttyS0 quiet", "--mem", "2G",
			       "--cpus", "4", "--console", "none", "--rng", "--no-sandbox",
			       "--fs", "docs=/srv/docs,cache=never",
			       "--9p", "src=/srv/src,readonly"), 0);
	ck_assert_str_eq(cfg.kernel, "bzImage");
	ck_assert_str_eq(cfg.initrd, "initrd.img");
	ck_assert_str_eq(cfg.cmdline, "console=ttyS0 quiet");
	ck_assert_uint_eq(cfg.mem, 2 * GIB);
	ck_assert_uint_eq(cfg.cpus, 4);
	ck_assert_int_eq(cfg.console, CONSOLE_NONE);
	ck_assert(cfg.rng);
	ck_assert(cfg.no_sandbox);
	ck_assert_uint_eq(cfg.nr_shares, 2);
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

/* ---- --fs and --9p ----------------------------------------------------- */

START_TEST(test_fs_share_every_option)
{
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs",
			       "myfs=/srv/dir,cache=always,dax=1G,readonly,xattr,writeback"), 0);
	ck_assert_uint_eq(cfg.nr_shares, 1);
	const struct vm_share *sh = &cfg.shares[0];

	ck_assert(!sh->is_9p);
	ck_assert_str_eq(sh->tag, "myfs");
	ck_assert_str_eq(sh->dir, "/srv/dir");
	ck_assert_int_eq(sh->opts.cache, FS_CACHE_ALWAYS);
	ck_assert_uint_eq(sh->opts.dax_size, GIB);
	ck_assert(sh->opts.readonly);
	ck_assert(sh->opts.xattr);
	ck_assert(sh->opts.writeback);
}
END_TEST

START_TEST(test_fs_share_defaults)
{
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "t=/d"), 0);
	const struct vm_share *sh = &cfg.shares[0];

	ck_assert_str_eq(sh->tag, "t");
	ck_assert_str_eq(sh->dir, "/d");
	ck_assert_int_eq(sh->opts.cache, FS_CACHE_AUTO);
	ck_assert_uint_eq(sh->opts.dax_size, 0);
	ck_assert(!sh->opts.readonly);
	ck_assert(!sh->opts.xattr);
	ck_assert(!sh->opts.writeback);
}
END_TEST

START_TEST(test_9p_share_options)
{
	ck_assert_int_eq(PARSE("--kernel", "k", "--9p", "host=/x/y,msize=65536,readonly",
			       "--9p", "plain=relative/dir"), 0);
	ck_assert_uint_eq(cfg.nr_shares, 2);
	ck_assert(cfg.shares[0].is_9p);
	ck_assert_str_eq(cfg.shares[0].tag, "host");
	ck_assert_str_eq(cfg.shares[0].dir, "/x/y");
	ck_assert_uint_eq(cfg.shares[0].opts.msize, 65536);
	ck_assert(cfg.shares[0].opts.readonly);
	ck_assert_str_eq(cfg.shares[1].dir, "relative/dir");
	ck_assert_uint_eq(cfg.shares[1].opts.msize, P9_MSIZE_DEFAULT);
	ck_assert(!cfg.shares[1].opts.readonly);
}
END_TEST

START_TEST(test_share_without_eq_refused)
{
	EXPECT_ERR("--fs", "TAG=DIR", "--kernel", "k", "--fs", "justatag");
	EXPECT_ERR("--9p", "TAG=DIR", "--kernel", "k", "--9p", "/some/dir");
}
END_TEST

START_TEST(test_share_empty_tag_refused)
{
	EXPECT_ERR("--fs", "TAG=DIR", "--kernel", "k", "--fs", "=/d");
	EXPECT_ERR("--9p", "TAG=DIR", "--kernel", "k", "--9p", "=/d");
}
END_TEST

START_TEST(test_share_tag_length_limit)
{
	char tag36[VM_TAG_MAX + 1], arg[64];

	memset(tag36, 'a', VM_TAG_MAX);
	tag36[VM_TAG_MAX] = '\0';
	snprintf(arg, sizeof(arg), "%s=/d", tag36);
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", arg), 0);
	ck_assert_str_eq(cfg.shares[0].tag, tag36);

	snprintf(arg, sizeof(arg), "%sb=/d", tag36);
	EXPECT_ERR("--fs", "longer than 36", "--kernel", "k", "--fs", arg);
	EXPECT_ERR("--9p", "longer than 36", "--kernel", "k", "--9p", arg);
}
END_TEST

START_TEST(test_share_missing_dir_refused)
{
	EXPECT_ERR("--fs", "missing directory", "--kernel", "k", "--fs", "t=");
	EXPECT_ERR("--fs", "missing directory", "--kernel", "k", "--fs", "t=,readonly");
	EXPECT_ERR("--9p", "missing directory", "--kernel", "k", "--9p", "t=,,");
}
END_TEST

START_TEST(test_share_duplicate_tag_refused)
{
	EXPECT_ERR("--9p", "duplicate tag 'same'", "--kernel", "k",
		   "--fs", "same=/a", "--9p", "same=/b");
	EXPECT_ERR("--fs", "duplicate tag 'same'", "--kernel", "k",
		   "--9p", "same=/a", "--fs", "same=/b");
	EXPECT_ERR("--fs", "duplicate tag 'x'", "--kernel", "k",
		   "--fs", "x=/a", "--fs", "y=/a", "--fs", "x=/c");
	/* Tags are compared whole: a prefix is a different tag. */
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "ab=/a", "--fs", "a=/b",
			       "--9p", "abc=/c"), 0);
	ck_assert_uint_eq(cfg.nr_shares, 3);
}
END_TEST

START_TEST(test_share_unknown_option_refused)
{
	EXPECT_ERR("--fs", "bogus", "--kernel", "k", "--fs", "t=/d,bogus");
	EXPECT_ERR("--fs", "unknown share option", "--kernel", "k", "--fs", "t=/d,readonly=yes");
	/* A comma ends the directory: what follows is an option. */
	EXPECT_ERR("--fs", "'b'", "--kernel", "k", "--fs", "t=/a,b");
	EXPECT_ERR("--9p", "unknown share option", "--kernel", "k", "--9p", "t=/d,cache=auto");
	EXPECT_ERR("--9p", "unknown share option", "--kernel", "k", "--9p", "t=/d,dax=2M");
	EXPECT_ERR("--9p", "unknown share option", "--kernel", "k", "--9p", "t=/d,writeback");
	EXPECT_ERR("--fs", "unknown share option", "--kernel", "k", "--fs", "t=/d,msize=8192");
}
END_TEST

START_TEST(test_share_bad_cache_refused)
{
	EXPECT_ERR("--fs", "cache must be", "--kernel", "k", "--fs", "t=/d,cache=sometimes");
	EXPECT_ERR("--fs", "cache must be", "--kernel", "k", "--fs", "t=/d,cache=");
	EXPECT_ERR("--fs", "cache=AUTO", "--kernel", "k", "--fs", "t=/d,cache=AUTO");
}
END_TEST

START_TEST(test_share_bad_dax_refused)
{
	static const char *const bad[] = {
		"t=/d,dax=3M", "t=/d,dax=1M", "t=/d,dax=0", "t=/d,dax=65G", "t=/d,dax=big",
		"t=/d,dax=4097K", "t=/d,dax=", "t=/d,dax=99999999999999999999G",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ERR("--fs", "multiple of 2M", "--kernel", "k", "--fs", bad[i]);
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "t=/d,dax=2M"), 0);
	ck_assert_uint_eq(cfg.shares[0].opts.dax_size, 2 * MIB);
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "t=/d,dax=64G"), 0);
	ck_assert_uint_eq(cfg.shares[0].opts.dax_size, 64 * GIB);
}
END_TEST

START_TEST(test_9p_msize_limits)
{
	EXPECT_ERR("--9p", "msize", "--kernel", "k", "--9p", "t=/d,msize=4095");
	EXPECT_ERR("--9p", "msize", "--kernel", "k", "--9p", "t=/d,msize=0");
	EXPECT_ERR("--9p", "msize", "--kernel", "k", "--9p", "t=/d,msize=17M");
	EXPECT_ERR("--9p", "msize", "--kernel", "k", "--9p", "t=/d,msize=lots");
	ck_assert_int_eq(PARSE("--kernel", "k", "--9p", "t=/d,msize=4096"), 0);
	ck_assert_uint_eq(cfg.shares[0].opts.msize, 4096);
	ck_assert_int_eq(PARSE("--kernel", "k", "--9p", "t=/d,msize=16M"), 0);
	ck_assert_uint_eq(cfg.shares[0].opts.msize, 16 * MIB);
}
END_TEST

START_TEST(test_9p_xattr_refused)
{
	EXPECT_ERR("--9p", "xattr", "--kernel", "k", "--9p", "t=/d,xattr");
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "t=/d,xattr"), 0);
	ck_assert(cfg.shares[0].opts.xattr);
}
END_TEST

START_TEST(test_share_spec_too_long_refused)
{
	static char arg[4200];

	strcpy(arg, "t=/");
	memset(arg + 3, 'd', 4096);
	arg[4099] = '\0';
	EXPECT_ERR("--fs", "too long", "--kernel", "k", "--fs", arg);
	/* 4095 bytes still fit the writable copy with its NUL. */
	arg[4095] = '\0';
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", arg), 0);
	ck_assert_uint_eq(strlen(cfg.shares[0].dir), 4093);
}
END_TEST

/* Builds "run --kernel k" plus n shares of the given option. */
static int parse_n_shares(unsigned n, const char *opt)
{
	static char specs[VM_MAX_SHARES + 2][16];
	const char *args[2 * (VM_MAX_SHARES + 2) + 4];
	unsigned a = 0;

	args[a++] = "run";
	args[a++] = "--kernel";
	args[a++] = "k";
	for (unsigned i = 0; i < n; i++) {
		snprintf(specs[i], sizeof(specs[i]), "s%u=/d", i);
		args[a++] = (i % 2 && opt == NULL) ? "--9p" : (opt ? opt : "--fs");
		args[a++] = specs[i];
	}
	args[a] = NULL;
	return parse_args(args);
}

START_TEST(test_share_count_limit)
{
	ck_assert_int_eq(parse_n_shares(VM_MAX_SHARES, NULL), 0);
	ck_assert_uint_eq(cfg.nr_shares, VM_MAX_SHARES);
	ck_assert_str_eq(cfg.shares[VM_MAX_SHARES - 1].tag, "s15");

	ck_assert_int_eq(parse_n_shares(VM_MAX_SHARES + 1, "--fs"), -EINVAL);
	ck_assert_msg(strstr(err, "--fs") && strstr(err, "16"),
		      "error '%s' names neither --fs nor the limit", err);
	ck_assert_int_eq(parse_n_shares(VM_MAX_SHARES + 1, "--9p"), -EINVAL);
	ck_assert_msg(strstr(err, "--9p") && strstr(err, "16"),
		      "error '%s' names neither --9p nor the limit", err);
}
END_TEST

/* ---- parse_size --------------------------------------------------------- */

#define EXPECT_SIZE(s, v) do {                                                \
		uint64_t out_ = 0xdead;                                       \
		int rc_ = parse_size((s), &out_);                             \
		ck_assert_msg(rc_ == 0, "parse_size(\"%s\") = %d", (s), rc_); \
		ck_assert_msg(out_ == (uint64_t)(v), "parse_size(\"%s\") gave %llu", \
			      (s), (unsigned long long)out_);                 \
	} while (0)

#define EXPECT_SIZE_ERR(s, e) do {                                            \
		uint64_t out_ = 0xdead;                                       \
		int rc_ = parse_size((s), &out_);                             \
		ck_assert_msg(rc_ == (e), "parse_size(\"%s\") = %d, want %d", \
			      (s) ? (s) : "(null)", rc_, (e));                \
		ck_assert_msg(out_ == 0xdead, "output written on error");     \
	} while (0)

START_TEST(test_parse_size_units)
{
	EXPECT_SIZE("0", 0);
	EXPECT_SIZE("4096", 4096);
	EXPECT_SIZE("1k", 1024);
	EXPECT_SIZE("1K", 1024);
	EXPECT_SIZE("64k", 64 * 1024);
	EXPECT_SIZE("1m", MIB);
	EXPECT_SIZE("512M", 512 * MIB);
	EXPECT_SIZE("1g", GIB);
	EXPECT_SIZE("2G", 2 * GIB);
	EXPECT_SIZE("1t", 1ull << 40);
	EXPECT_SIZE("3T", 3ull << 40);
	EXPECT_SIZE("512MB", 512 * MIB);
	EXPECT_SIZE("512MiB", 512 * MIB);
	EXPECT_SIZE("4KiB", 4096);
	EXPECT_SIZE("007", 7);
}
END_TEST

START_TEST(test_parse_size_limits)
{
	EXPECT_SIZE("18446744073709551615", UINT64_MAX);
	EXPECT_SIZE("16777215T", (16777215ull) << 40);
	EXPECT_SIZE("17179869183G", 17179869183ull << 30);
	EXPECT_SIZE("18014398509481983K", 18014398509481983ull << 10);
	EXPECT_SIZE_ERR("18446744073709551616", -ERANGE);
	EXPECT_SIZE_ERR("99999999999999999999G", -ERANGE);
	EXPECT_SIZE_ERR("16777216T", -ERANGE);
	EXPECT_SIZE_ERR("17179869184G", -ERANGE);
	EXPECT_SIZE_ERR("18014398509481984K", -ERANGE);
}
END_TEST

START_TEST(test_parse_size_garbage)
{
	static const char *const bad[] = {
		"", "M", "-1", "+1", " 1", "1 ", "1.5G", "1X", "1GG", "1Gi", "1 G",
		"0x10", "1B", "1iB", "1MBB", "1e3", "k1",
	};

	EXPECT_SIZE_ERR(NULL, -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_SIZE_ERR(bad[i], -EINVAL);
}
END_TEST

/* ---- fs_options_parse_word --------------------------------------------- */

#define WORD_OK(o, w, p) do {                                                 \
		const char *why_ = NULL;                                      \
		int rc_ = fs_options_parse_word((o), (w), (p), &why_);        \
		ck_assert_msg(rc_ == 0, "'%s' (9p=%d) refused: %s", (w), (p),  \
			      why_ ? why_ : "?");                             \
	} while (0)

/* Refused with a reason, leaving the options untouched. */
#define WORD_BAD(w, p) do {                                                   \
		struct fs_options o_, before_;                                \
		const char *why_ = NULL;                                      \
		fs_options_default(&o_);                                      \
		before_ = o_;                                                 \
		int rc_ = fs_options_parse_word(&o_, (w), (p), &why_);        \
		ck_assert_msg(rc_ == -EINVAL, "'%s' (9p=%d) gave %d", (w), (p), rc_); \
		ck_assert_msg(why_ && *why_, "'%s' refused without a reason", (w)); \
		ck_assert_msg(memcmp(&o_, &before_, sizeof(o_)) == 0,         \
			      "'%s' changed the options it refused", (w));    \
	} while (0)

START_TEST(test_fs_options_default)
{
	struct fs_options o;

	memset(&o, 0xa5, sizeof(o));
	fs_options_default(&o);
	ck_assert_int_eq(o.cache, FS_CACHE_AUTO);
	ck_assert(!o.readonly);
	ck_assert(!o.xattr);
	ck_assert(!o.writeback);
	ck_assert_uint_eq(o.dax_size, 0);
	ck_assert_uint_eq(o.msize, P9_MSIZE_DEFAULT);
}
END_TEST

START_TEST(test_fs_options_words_fs)
{
	struct fs_options o;

	fs_options_default(&o);
	WORD_OK(&o, "readonly", false);
	WORD_OK(&o, "xattr", false);
	WORD_OK(&o, "writeback", false);
	WORD_OK(&o, "dax=4M", false);
	WORD_OK(&o, "cache=never", false);
	ck_assert(o.readonly);
	ck_assert(o.xattr);
	ck_assert(o.writeback);
	ck_assert_uint_eq(o.dax_size, 4 * MIB);
	ck_assert_int_eq(o.cache, FS_CACHE_NEVER);
	WORD_OK(&o, "cache=always", false);
	ck_assert_int_eq(o.cache, FS_CACHE_ALWAYS);
	WORD_OK(&o, "cache=auto", false);
	ck_assert_int_eq(o.cache, FS_CACHE_AUTO);
	WORD_OK(&o, "dax=64G", false);
	ck_assert_uint_eq(o.dax_size, 64 * GIB);
	ck_assert_uint_eq(o.msize, P9_MSIZE_DEFAULT);
}
END_TEST

START_TEST(test_fs_options_words_9p)
{
	struct fs_options o;

	fs_options_default(&o);
	WORD_OK(&o, "readonly", true);
	WORD_OK(&o, "msize=8192", true);
	ck_assert(o.readonly);
	ck_assert_uint_eq(o.msize, 8192);
	WORD_OK(&o, "msize=16M", true);
	ck_assert_uint_eq(o.msize, P9_MSIZE_MAX);
	WORD_OK(&o, "msize=4k", true);
	ck_assert_uint_eq(o.msize, P9_MSIZE_MIN);
}
END_TEST

START_TEST(test_fs_options_words_refused)
{
	/* virtio-fs words */
	WORD_BAD("", false);
	WORD_BAD("bogus", false);
	WORD_BAD("readonly=1", false);
	WORD_BAD("xattr=on", false);
	WORD_BAD("cache", false);
	WORD_BAD("cache=", false);
	WORD_BAD("cache=Never", false);
	WORD_BAD("cache=neverr", false);
	WORD_BAD("cachex=auto", false);
	WORD_BAD("dax", false);
	WORD_BAD("dax=0", false);
	WORD_BAD("dax=1M", false);
	WORD_BAD("dax=3M", false);
	WORD_BAD("dax=4095", false);
	WORD_BAD("dax=65G", false);
	WORD_BAD("dax=-2M", false);
	WORD_BAD("msize=8192", false);
	/* 9p words */
	WORD_BAD("xattr", true);
	WORD_BAD("writeback", true);
	WORD_BAD("cache=auto", true);
	WORD_BAD("dax=2M", true);
	WORD_BAD("msize", true);
	WORD_BAD("msize=", true);
	WORD_BAD("msize=4095", true);
	WORD_BAD("msize=16777217", true);
	WORD_BAD("msize=4G", true);   /* would truncate to 0 in 32 bits */
	WORD_BAD("msize=4294971392", true); /* 4 GiB + 4096: truncation lands in range */
	WORD_BAD("msize=big", true);
	WORD_BAD("readonly=0", true);
}
END_TEST

START_TEST(test_fs_cache_names_round_trip)
{
	static const enum fs_cache all[] = { FS_CACHE_NEVER, FS_CACHE_AUTO, FS_CACHE_ALWAYS };

	for (size_t i = 0; i < 3; i++) {
		enum fs_cache c = (enum fs_cache)-1;

		ck_assert_int_eq(fs_parse_cache(fs_cache_name(all[i]), &c), 0);
		ck_assert_int_eq(c, all[i]);
	}
	ck_assert_str_eq(fs_cache_name(FS_CACHE_NEVER), "never");
	ck_assert_str_eq(fs_cache_name(FS_CACHE_AUTO), "auto");
	ck_assert_str_eq(fs_cache_name(FS_CACHE_ALWAYS), "always");
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

	tc = tcase_create("shares");
	tcase_add_test(tc, test_fs_share_every_option);
	tcase_add_test(tc, test_fs_share_defaults);
	tcase_add_test(tc, test_9p_share_options);
	tcase_add_test(tc, test_share_without_eq_refused);
	tcase_add_test(tc, test_share_empty_tag_refused);
	tcase_add_test(tc, test_share_tag_length_limit);
	tcase_add_test(tc, test_share_missing_dir_refused);
	tcase_add_test(tc, test_share_duplicate_tag_refused);
	tcase_add_test(tc, test_share_unknown_option_refused);
	tcase_add_test(tc, test_share_bad_cache_refused);
	tcase_add_test(tc, test_share_bad_dax_refused);
	tcase_add_test(tc, test_9p_msize_limits);
	tcase_add_test(tc, test_9p_xattr_refused);
	tcase_add_test(tc, test_share_spec_too_long_refused);
	tcase_add_test(tc, test_share_count_limit);
	suite_add_tcase(s, tc);

	tc = tcase_create("parsers");
	tcase_add_test(tc, test_parse_size_units);
	tcase_add_test(tc, test_parse_size_limits);
	tcase_add_test(tc, test_parse_size_garbage);
	tcase_add_test(tc, test_fs_options_default);
	tcase_add_test(tc, test_fs_options_words_fs);
	tcase_add_test(tc, test_fs_options_words_9p);
	tcase_add_test(tc, test_fs_options_words_refused);
	tcase_add_test(tc, test_fs_cache_names_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cli_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
