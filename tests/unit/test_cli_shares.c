// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless run --fs/--9p TAG=DIR,options` (cmd/run_cli.c) and the parsers
 * behind them (fs/fs_options.c): every share option, every malformed spec
 * refused with a reason naming the option, parse_size edge cases.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fs/fs_fdbudget.h"
#include "fs/fs_options.h"
#include "tests/unit/check_main.h"
#include "tests/unit/cli_util.h"
#include "cmd/run_cli.h"

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

START_TEST(test_fs_hub_options)
{
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs-hub", "pod=/run/pod,cache=never,xattr",
			       "--fs", "t=/d"), 0);
	ck_assert_uint_eq(cfg.nr_shares, 2);
	ck_assert(cfg.shares[0].is_hub);
	ck_assert(!cfg.shares[1].is_hub);
	ck_assert_str_eq(cfg.shares[0].tag, "pod");
	ck_assert_str_eq(cfg.shares[0].dir, "/run/pod");
	ck_assert_int_eq(cfg.shares[0].opts.cache, FS_CACHE_NEVER);
	/* Per share (readonly) or per device (a DAX window, writeback, queues): not a hub's. */
	EXPECT_ERR("--fs-hub pod", "cache= and xattr only", "--kernel", "k", "--fs-hub", "pod=/d,readonly");
	EXPECT_ERR("--fs-hub pod", "cache= and xattr only", "--kernel", "k", "--fs-hub", "pod=/d,dax=1G");
	EXPECT_ERR("--fs-hub pod", "cache= and xattr only", "--kernel", "k", "--fs-hub", "pod=/d,writeback");
	EXPECT_ERR("--fs-hub", "TAG=DIR", "--kernel", "k", "--fs-hub", "pod");
	EXPECT_ERR("--fs-hub", "duplicate tag", "--kernel", "k", "--fs", "pod=/a", "--fs-hub", "pod=/b");
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

START_TEST(test_share_queues)
{
	EXPECT_ERR("--fs", "queues must be a number from 1 to 16", "--kernel", "k", "--fs",
		   "t=/d,queues=17");
	EXPECT_ERR("--fs", "queues must be a number from 1 to 16", "--kernel", "k", "--fs",
		   "t=/d,queues=0");
	EXPECT_ERR("--9p", "unknown share option", "--kernel", "k", "--9p", "t=/d,queues=2");
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "t=/d,queues=2"), 0);
	ck_assert_uint_eq(cfg.shares[0].opts.queues, 2);
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "t=/d"), 0);
	ck_assert_uint_eq(cfg.shares[0].opts.queues, 0);
}
END_TEST

/*
 * A FUSE share word KEY=N of whole numbers 0..MAX: garbage and MAX + 1
 * refused with WHY, refused on 9p, both ends taken into the field read by GET.
 */
static void number_word(const char *key, const char *why, uint32_t max,
			uint32_t (*get)(const struct fs_options *))
{
	static const char *const bad[] = { "", "-1", "4k", "99999999999999999999" };
	char w[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(w, sizeof(w), "t=/d,%s=%s", key, bad[i]);
		EXPECT_ERR("--fs", why, "--kernel", "k", "--fs", w);
	}
	snprintf(w, sizeof(w), "t=/d,%s=%u", key, max + 1);
	EXPECT_ERR("--fs", why, "--kernel", "k", "--fs", w);
	snprintf(w, sizeof(w), "t=/d,%s=5", key);
	EXPECT_ERR("--9p", "unknown share option", "--kernel", "k", "--9p", w);
	snprintf(w, sizeof(w), "t=/d,cache=always,%s=%u", key, max);
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", w), 0);
	ck_assert_uint_eq(get(&cfg.shares[0].opts), max);
	snprintf(w, sizeof(w), "t=/d,%s=0", key);
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", w), 0);
	ck_assert_uint_eq(get(&cfg.shares[0].opts), 0);
}

static uint32_t call_timeout_of(const struct fs_options *o) { return o->call_timeout; }
static uint32_t watches_of(const struct fs_options *o) { return o->watches; }

START_TEST(test_share_call_timeout)
{
	number_word("timeout", "timeout must be whole seconds", FS_CALL_TIMEOUT_MAX, call_timeout_of);
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "t=/d"), 0);
	ck_assert_uint_eq(cfg.shares[0].opts.call_timeout, FS_CALL_TIMEOUT_DEFAULT);
}
END_TEST

/* watches=N: change-aware lifetimes on a virtio-fs share (docs/host-changes.md). */
START_TEST(test_share_watches)
{
	number_word("watches", "watches must be a number", FS_WATCHES_MAX, watches_of);
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "t=/d"), 0);
	ck_assert_uint_eq(cfg.shares[0].opts.watches, 0);
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
	ck_assert(!cfg.shares[0].opts.xattr_map);
	ck_assert_int_eq(PARSE("--kernel", "k", "--9p", "t=/d,xattr=map"), 0);
	ck_assert(cfg.shares[0].opts.xattr_map);
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
	WORD_OK(&o, "cache=metadata", false);
	ck_assert_int_eq(o.cache, FS_CACHE_METADATA);
	WORD_OK(&o, "cache=auto", false);
	ck_assert_int_eq(o.cache, FS_CACHE_AUTO);
	WORD_OK(&o, "dax=64G", false);
	ck_assert_uint_eq(o.dax_size, 64 * GIB);
	ck_assert_uint_eq(o.queues, 0);       /* unset: the VMM decides */
	WORD_OK(&o, "queues=1", false);
	ck_assert_uint_eq(o.queues, 1);
	WORD_OK(&o, "queues=16", false);
	ck_assert_uint_eq(o.queues, 16);
	ck_assert_uint_eq(o.msize, P9_MSIZE_DEFAULT);
	/* xattr=map: the mapping, and xattrs on at all. */
	ck_assert(!o.xattr_map);
	fs_options_default(&o);
	WORD_OK(&o, "xattr=map", false);
	ck_assert(o.xattr);
	ck_assert(o.xattr_map);
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
	WORD_OK(&o, "xattr=map", true);
	ck_assert(o.xattr_map);
}
END_TEST

START_TEST(test_fs_options_words_refused)
{
	/* virtio-fs words */
	WORD_BAD("", false);
	WORD_BAD("bogus", false);
	WORD_BAD("readonly=1", false);
	WORD_BAD("xattr=on", false);
	WORD_BAD("xattr=", false);
	WORD_BAD("xattr=Map", false);
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
	WORD_BAD("queues", false);
	WORD_BAD("queues=", false);
	WORD_BAD("queues=0", false);
	WORD_BAD("queues=17", false);
	WORD_BAD("queues=2x", false);
	WORD_BAD("queues=-1", false);
	WORD_BAD("queues=99999999999999999999", false);
	/* 9p words */
	WORD_BAD("xattr", true);
	WORD_BAD("xattr=on", true);
	WORD_BAD("writeback", true);
	WORD_BAD("cache=auto", true);
	WORD_BAD("dax=2M", true);
	WORD_BAD("queues=2", true);
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

/* dax=inode and dax-min=: the per-inode policy, on its own window or one dax=SIZE sizes. */
START_TEST(test_fs_options_dax_inode)
{
	struct fs_options o;

	fs_options_default(&o);
	ck_assert_int_eq(o.dax_mode, FS_DAX_GUEST);
	ck_assert_uint_eq(o.dax_min, FS_DAX_MIN_DEFAULT);
	WORD_OK(&o, "dax=4M", false);
	ck_assert_int_eq(o.dax_mode, FS_DAX_GUEST);   /* a size alone: the guest decides */
	WORD_OK(&o, "dax=inode", false);
	ck_assert_int_eq(o.dax_mode, FS_DAX_INODE);
	ck_assert_uint_eq(o.dax_size, 4 * MIB);       /* the size given before stays */
	fs_options_default(&o);
	WORD_OK(&o, "dax=inode", false);
	ck_assert_uint_eq(o.dax_size, FS_DAX_INODE_WINDOW);
	WORD_OK(&o, "dax=256M", false);               /* ... and one given after wins */
	ck_assert_uint_eq(o.dax_size, 256 * MIB);
	ck_assert_int_eq(o.dax_mode, FS_DAX_INODE);
	fs_options_default(&o);
	WORD_OK(&o, "dax-min=4M", false);             /* implies dax=inode */
	ck_assert_int_eq(o.dax_mode, FS_DAX_INODE);
	ck_assert_uint_eq(o.dax_min, 4 * MIB);
	ck_assert_uint_eq(o.dax_size, FS_DAX_INODE_WINDOW);
	WORD_OK(&o, "dax-min=0", false);
	ck_assert_uint_eq(o.dax_min, 0);
	WORD_OK(&o, "dax-min=65536", false);
	ck_assert_uint_eq(o.dax_min, 65536);
	WORD_BAD("dax=Inode", false);
	WORD_BAD("dax=inodes", false);
	WORD_BAD("dax-min", false);
	WORD_BAD("dax-min=", false);
	WORD_BAD("dax-min=big", false);
	WORD_BAD("dax-min=-1", false);
	WORD_BAD("dax-min=1X", false);
	WORD_BAD("dax-min=99999999999999999999G", false);
	WORD_BAD("dax=inode", true);
	WORD_BAD("dax-min=1M", true);
	/* One line naming the option and the share. */
	EXPECT_ERR("--fs t: 'dax-min=big'", "dax-min= must be a size", "--kernel", "k", "--fs",
		   "t=/d,dax-min=big");
	EXPECT_ERR("--fs t: 'dax=inod'", "dax= must be inode or a size", "--kernel", "k", "--fs",
		   "t=/d,dax=inod");
	EXPECT_ERR("--fs-hub pod", "cache= and xattr only", "--kernel", "k", "--fs-hub",
		   "pod=/d,dax=inode");
	ck_assert_int_eq(PARSE("--kernel", "k", "--fs", "t=/d,dax=inode,dax-min=2M"), 0);
	ck_assert_int_eq(cfg.shares[0].opts.dax_mode, FS_DAX_INODE);
	ck_assert_uint_eq(cfg.shares[0].opts.dax_min, 2 * MIB);
	ck_assert_uint_eq(cfg.shares[0].opts.dax_size, FS_DAX_INODE_WINDOW);
}
END_TEST

START_TEST(test_fs_cache_names_round_trip)
{
	static const enum fs_cache all[] = { FS_CACHE_NEVER, FS_CACHE_AUTO, FS_CACHE_ALWAYS,
					     FS_CACHE_METADATA };

	for (size_t i = 0; i < 4; i++) {
		enum fs_cache c = (enum fs_cache)-1;

		ck_assert_int_eq(fs_parse_cache(fs_cache_name(all[i]), &c), 0);
		ck_assert_int_eq(c, all[i]);
	}
	ck_assert_str_eq(fs_cache_name(FS_CACHE_NEVER), "never");
	ck_assert_str_eq(fs_cache_name(FS_CACHE_AUTO), "auto");
	ck_assert_str_eq(fs_cache_name(FS_CACHE_ALWAYS), "always");
	ck_assert_str_eq(fs_cache_name(FS_CACHE_METADATA), "metadata");
}
END_TEST

/* At a 64-fd soft limit a share's inode table held a few dozen inodes and
 * the guest got ENFILE; `run` must raise it before creating the shares. */
START_TEST(test_run_raises_nofile)
{
	struct rlimit rl, now;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = rl.rlim_max < 64 ? rl.rlim_max : 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_int_eq(fs_fd_raise_nofile(), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &now), 0);
	ck_assert(now.rlim_cur >= rl.rlim_max);
	ck_assert(now.rlim_cur == RLIM_INFINITY || now.rlim_cur > 64);
}
END_TEST

static Suite *cli_shares_suite(void)
{
	Suite *s = suite_create("cli_shares");
	TCase *tc;

	tc = tcase_create("shares");
	tcase_add_test(tc, test_fs_share_every_option);
	tcase_add_test(tc, test_fs_share_defaults);
	tcase_add_test(tc, test_share_watches);
	tcase_add_test(tc, test_9p_share_options);
	tcase_add_test(tc, test_share_without_eq_refused);
	tcase_add_test(tc, test_share_empty_tag_refused);
	tcase_add_test(tc, test_share_tag_length_limit);
	tcase_add_test(tc, test_share_missing_dir_refused);
	tcase_add_test(tc, test_share_duplicate_tag_refused);
	tcase_add_test(tc, test_share_unknown_option_refused);
	tcase_add_test(tc, test_share_bad_cache_refused);
	tcase_add_test(tc, test_share_bad_dax_refused);
	tcase_add_test(tc, test_share_queues);
	tcase_add_test(tc, test_share_call_timeout);
	tcase_add_test(tc, test_fs_hub_options);
	tcase_add_test(tc, test_9p_msize_limits);
	tcase_add_test(tc, test_9p_xattr_refused);
	tcase_add_test(tc, test_share_spec_too_long_refused);
	tcase_add_test(tc, test_share_count_limit);
	tcase_add_test(tc, test_run_raises_nofile);
	suite_add_tcase(s, tc);

	tc = tcase_create("parsers");
	tcase_add_test(tc, test_parse_size_units);
	tcase_add_test(tc, test_parse_size_limits);
	tcase_add_test(tc, test_parse_size_garbage);
	tcase_add_test(tc, test_fs_options_default);
	tcase_add_test(tc, test_fs_options_words_fs);
	tcase_add_test(tc, test_fs_options_words_9p);
	tcase_add_test(tc, test_fs_options_words_refused);
	tcase_add_test(tc, test_fs_options_dax_inode);
	tcase_add_test(tc, test_fs_cache_names_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(cli_shares_suite());
}
