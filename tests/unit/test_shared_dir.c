// SPDX-License-Identifier: GPL-2.0-only
/*
 * `run --shared-dir` (cmd/shared_dir.c), crosvm's spelling: the lines
 * ChromeOS builds for its VMs (concierge's ARCVM shared-data presets,
 * the tast tests' root and benchmark shares, crosvm's own documented
 * example) each parsed to the share they mean here, crosvm's defaults
 * where a key is left out, and each key without a meaning here refused
 * in one line naming it.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "cmd/shared_dir.h"
#include "tests/unit/check_main.h"

static struct vm_config cfg;
static struct sandbox_opts sbo;
static char err[512];

static void setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	memset(&sbo, 0, sizeof(sbo));
	sandbox_opts_init(&sbo);
	err[0] = '\0';
}

static int parse(const char *arg)
{
	return shared_dir_parse(&cfg, &sbo, arg, err, sizeof(err));
}

#define ANDROID_UIDMAP "0 655360 5000,5000 600 50,5050 660410 1994950"
#define ANDROID_GIDMAP "0 655360 1065,1065 20119 1,1066 656426 3934,5000 600 50,5050 660410 1994950"

/* concierge's SharedDataParam with Cache::kAlways (vm_util_test.cc). */
START_TEST(test_arcvm_cache_always)
{
	ck_assert_int_eq(parse("/usr/local/bin:usr_local_bin:type=fs:cache=always:uidmap="
			       ANDROID_UIDMAP ":gidmap=" ANDROID_GIDMAP ":timeout=3600:"
			       "rewrite-security-xattrs=true:writeback=true:negative_timeout=3600"), 0);
	const struct vm_share *sh = &cfg.shares[0];

	ck_assert(!sh->is_9p);
	ck_assert_str_eq(sh->dir, "/usr/local/bin");
	ck_assert_str_eq(sh->tag, "usr_local_bin");
	ck_assert_int_eq(sh->opts.cache, FS_CACHE_ALWAYS);
	ck_assert(sh->opts.writeback && sh->opts.xattr_map && sh->opts.xattr);
	ck_assert(sh->opts.posix_acl);  /* crosvm's default */
	ck_assert(sh->opts.set_timeout);
	ck_assert_uint_eq(sh->opts.entry_timeout, 3600);
	ck_assert_uint_eq(sbo.nuid, 3);
	ck_assert_uint_eq(sbo.uid[2].inside, 5050);
	ck_assert_uint_eq(sbo.uid[2].outside, 660410);
	ck_assert_uint_eq(sbo.uid[2].count, 1994950);
	ck_assert_uint_eq(sbo.ngid, 5);
	ck_assert_uint_eq(sbo.gid[1].outside, 20119);
}
END_TEST

START_TEST(test_arcvm_cache_auto_and_never)
{
	ck_assert_int_eq(parse("/usr/local/bin:usr_local_bin:type=fs:cache=auto:uidmap="
			       ANDROID_UIDMAP ":gidmap=" ANDROID_GIDMAP ":timeout=1:"
			       "rewrite-security-xattrs=true:writeback=false:negative_timeout=1"), 0);
	ck_assert_int_eq(cfg.shares[0].opts.cache, FS_CACHE_AUTO);
	ck_assert(!cfg.shares[0].opts.writeback);
	/* A second share with the same maps joins the same user namespace. */
	ck_assert_int_eq(parse("/srv:never_tag:type=fs:cache=never:uidmap=" ANDROID_UIDMAP
			       ":gidmap=" ANDROID_GIDMAP ":timeout=1:rewrite-security-xattrs=true:"
			       "writeback=false:negative_timeout=1"), 0);
	ck_assert_int_eq(cfg.shares[1].opts.cache, FS_CACHE_NEVER);
	ck_assert_uint_eq(cfg.shares[1].opts.entry_timeout, 1);
	ck_assert_uint_eq(sbo.nuid, 3);
}
END_TEST

/* concierge's GetOemEtcSharedDataParam: ", " between ranges, posix_acl off. */
START_TEST(test_arcvm_oem_etc)
{
	ck_assert_int_eq(parse("/run/arcvm/host_generated/oem/etc:oem_etc:type=fs:cache=always:"
			       "uidmap=0 299 1, 5000 600 50:gidmap=0 300 1, 5000 600 50:timeout=3600:"
			       "rewrite-security-xattrs=true:ascii_casefold=false:writeback=true:"
			       "posix_acl=false"), 0);
	ck_assert(!cfg.shares[0].opts.posix_acl);
	ck_assert_uint_eq(sbo.nuid, 2);
	ck_assert_uint_eq(sbo.uid[0].outside, 299);
	ck_assert_uint_eq(sbo.gid[0].outside, 300);
}
END_TEST

/* The tast tests' rootfs share and benchmark share. */
START_TEST(test_tast_lines)
{
	ck_assert_int_eq(parse("/:/dev/root:type=fs:cache=always"), 0);
	ck_assert_str_eq(cfg.shares[0].tag, "/dev/root");
	ck_assert_str_eq(cfg.shares[0].dir, "/");
	ck_assert_int_eq(parse("/tmp/shared:shared:type=fs:cache=always:timeout=3600:writeback=true"), 0);
	ck_assert(cfg.shares[1].opts.writeback);
	ck_assert_uint_eq(sbo.nuid, 0);
}
END_TEST

/* crosvm's documented example and its defaults: type p9, cache auto. */
START_TEST(test_crosvm_defaults)
{
	ck_assert_int_eq(parse("/home/me/shared:my_shared_tag:type=fs"), 0);
	ck_assert(!cfg.shares[0].is_9p);
	ck_assert_int_eq(cfg.shares[0].opts.cache, FS_CACHE_AUTO);
	ck_assert(!cfg.shares[0].opts.writeback);
	ck_assert(cfg.shares[0].opts.dax_size == 0);
	ck_assert_uint_eq(cfg.shares[0].opts.entry_timeout, 5);  /* crosvm's default */
	ck_assert_int_eq(parse("/home/me/other:p9tag"), 0);
	ck_assert(cfg.shares[1].is_9p);
	ck_assert_int_eq(parse("/x:dax:type=FS:dax=true"), 0);
	ck_assert(cfg.shares[2].opts.dax_size == 1ull << 30);
	ck_assert_int_eq(parse("/y:nine:type=P9:uidmap=0 1000 1"), 0);
	ck_assert(cfg.shares[3].is_9p);
}
END_TEST

static const struct { const char *arg, *msg; } bad[] = {
	/* concierge's _data_media preset: quota ioctls have no meaning here. */
	{ "/run/arcvm/android-data:_data_media:type=fs:cache=always:uidmap=" ANDROID_UIDMAP
	  ":gidmap=" ANDROID_GIDMAP ":timeout=3600:rewrite-security-xattrs=true:ascii_casefold="
	  "true:writeback=true:negative_timeout=0:privileged_quota_uids=0",
	  "--shared-dir: privileged_quota_uids: quota ioctls are not served" },
	{ "/a:t:type=fs:ascii_casefold=true", "ascii_casefold: case-insensitive lookups" },
	{ "/a:t:type=fs:uid=5000", "--shared-dir: uid: " },
	{ "/a:t:type=fs:gid=5000", "--shared-dir: gid: " },
	{ "/a:t:type=fs:security_ctx=false", "--shared-dir: security_ctx: " },
	{ "/a:t:type=fs:max_dynamic_perm=2", "--shared-dir: max_dynamic_perm: " },
	{ "/a:t:type=fs:ugid_map=1 1 1 1 0022 /x", "--shared-dir: ugid_map: " },
	{ "/a:t:type=fs:colour=blue", "--shared-dir: unknown key 'colour'" },
	{ "/a:t:type=ext4", "type=ext4: expected fs or 9p" },
	{ "/a:t:type=fs:cache=metadata", "cache=metadata: expected never, auto or always" },
	{ "/a:t:type=fs:writeback=yes", "writeback=yes: expected true or false" },
	{ "/a:t:type=fs:timeout=-1", "timeout=-1: expected whole seconds" },
	{ "/a:t:type=fs:timeout=1.5", "timeout=1.5: expected whole seconds" },
	{ "/a:t:cache=always", "cache is a virtio-fs key (add type=fs)" },
	{ "/a:t:type=fs:uidmap=0 1000", "uidmap=0 1000: expected" },
	{ "/a:t:type=fs:uidmap=0 1000 1;1 2 3", "ranges are separated by ','" },
	{ "/a:t:type=fs:uidmap=0 1000 0", "--uid-map" },
	{ "/a:t:type=fs:readonly", "'readonly': options are KEY=VALUE" },
	{ "/a", "expected PATH:TAG" },
	{ ":t", "expected PATH:TAG" },
	{ "/a:", "tag must be 1 to 36 bytes" },
	{ "/a:0123456789012345678901234567890123456", "tag must be 1 to 36 bytes" },
};

START_TEST(test_refused_keys)
{
	ck_assert_msg(parse(bad[_i].arg) == -EINVAL, "accepted %s", bad[_i].arg);
	ck_assert_msg(strstr(err, bad[_i].msg), "%s: got '%s'", bad[_i].arg, err);
	ck_assert_uint_eq(cfg.nr_shares, 0);
}
END_TEST

START_TEST(test_maps_must_agree)
{
	ck_assert_int_eq(parse("/a:a:type=fs:uidmap=0 1000 1"), 0);
	ck_assert_int_eq(parse("/b:b:type=fs:uidmap=0 1000 1"), 0);
	ck_assert_int_eq(parse("/c:c:type=fs:uidmap=0 2000 1"), -EINVAL);
	ck_assert(strstr(err, "one user namespace serves every share"));
	ck_assert_int_eq(parse("/a:a:type=fs"), -EINVAL);
	ck_assert(strstr(err, "duplicate tag 'a'"));
	ck_assert_uint_eq(cfg.nr_shares, 2);
}
END_TEST

static Suite *shared_dir_suite(void)
{
	Suite *s = suite_create("shared_dir");
	TCase *tc = tcase_create("crosvm");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_arcvm_cache_always);
	tcase_add_test(tc, test_arcvm_cache_auto_and_never);
	tcase_add_test(tc, test_arcvm_oem_etc);
	tcase_add_test(tc, test_tast_lines);
	tcase_add_test(tc, test_crosvm_defaults);
	tcase_add_loop_test(tc, test_refused_keys, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_maps_must_agree);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(shared_dir_suite());
}
