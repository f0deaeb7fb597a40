// SPDX-License-Identifier: GPL-2.0-only
/*
 * The option tables (cmd/opt_table.h) and what is derived from them: no
 * two options of a command share a name, a letter or (but the switches
 * and refusals of vhost-user-fs) a key; each getopt table is the option
 * table; --print-seccomp's words are exactly the thread roles; fuse-mount's
 * -o words (cache=, ro, noatime, allow_other, fsname=, mount(8)'s own)
 * and its refusals; the log level words.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "base/thread.h"
#include "cmd/fuse_mount_cli.h"
#include "cmd/opt_common.h"
#include "cmd/p9_serve_cli.h"
#include "cmd/run_table.h"
#include "cmd/vhost_user_table.h"
#include "tests/unit/check_main.h"

static const struct opt_cmd *const cmds[] = { &run_cmd, &fuse_mount_cmd, &p9_serve_cmd,
					       &vhost_user_cmd, NULL };

START_TEST(names_letters_keys_unique)
{
	for (unsigned i = 0; cmds[i]; i++) {
		OPT_FOR_EACH(cmds[i], g, d) {
			OPT_FOR_EACH(cmds[i], g2, e) {
				if (d == e)
					continue;
				ck_assert_msg(!d->name || !e->name || strcmp(d->name, e->name),
					      "%s: --%s twice", cmds[i]->name, d->name);
				ck_assert_msg(!d->short_name || d->short_name != e->short_name,
					      "%s: -%c twice", cmds[i]->name, d->short_name);
				ck_assert_msg(d->key != e->key || d->key == VU_K_SWITCH ||
					      d->key == VU_K_REFUSED, "%s: key %d twice (--%s)",
					      cmds[i]->name, d->key, d->name ? d->name : "");
			}
			ck_assert_msg(!d->short_name || d->key == d->short_name,
				      "%s: -%c's key is not its letter", cmds[i]->name, d->short_name);
		}
	}
}
END_TEST

START_TEST(getopt_is_the_table)
{
	struct option lo[128];
	char shorts[64];

	for (unsigned i = 0; cmds[i]; i++) {
		unsigned n = 0, want = 0;

		ck_assert_int_eq(opt_getopt(cmds[i], lo, 128, shorts, sizeof(shorts)), 0);
		OPT_FOR_EACH(cmds[i], g, d) {
			if (d->flags & OPT_BEFORE)
				continue;
			want += d->name != NULL;
			if (d->short_name)
				ck_assert_ptr_nonnull(strchr(shorts, d->short_name));
		}
		while (lo[n].name) {
			const struct opt_def *d = opt_by_key(cmds[i], lo[n].val);

			ck_assert_ptr_nonnull(d);
			n++;
		}
		ck_assert_uint_eq(n, want);
	}
	ck_assert_int_eq(opt_getopt(&run_cmd, lo, 3, shorts, sizeof(shorts)), -ENOSPC);
}
END_TEST

START_TEST(print_seccomp_words_are_the_roles)
{
	const char *words = opt_group_seccomp[1].words;
	char buf[512];
	unsigned n = 0;

	ck_assert_str_eq(opt_group_seccomp[1].name, "print-seccomp");
	for (int r = FS_ROLE_NONE + 1; r < FS_ROLE_COUNT; r++, n++) {
		snprintf(buf, sizeof(buf), " %s ", words);
		char want[64];
		snprintf(want, sizeof(want), " %s ", fs_role_name((enum fs_role)r));
		ck_assert_msg(strstr(buf, want), "role %s not in --print-seccomp's words", want);
	}
	for (const char *p = words; *p; p++)
		n -= *p == ' ';
	ck_assert_uint_eq(n, 1);   /* as many words as roles */
}
END_TEST

START_TEST(fuse_mount_o_words)
{
	struct fs_options o;
	struct fuse_mount_args ma;
	char err[256], words[512];

	fs_options_default(&o);
	fuse_mount_args_init(&ma);
	ck_assert_uint_eq(ma.msflags, MS_NOSUID | MS_NODEV);
	ck_assert(!ma.allow_other);
	ck_assert_int_eq(fuse_mount_parse_o("cache=always,ro,noatime,allow_other,fsname=x,"
					    "defaults,nofail,_netdev,x-systemd.automount,xattr",
					    &o, &ma, err, sizeof(err)), 0);
	ck_assert_int_eq(o.cache, FS_CACHE_ALWAYS);
	ck_assert(o.readonly && o.xattr && ma.allow_other);
	ck_assert_uint_eq(ma.msflags, MS_NOSUID | MS_NODEV | MS_RDONLY | MS_NOATIME);
	ck_assert_str_eq(ma.fsname, "x");
	ck_assert_int_eq(fuse_mount_parse_o("rw,dev,suid", &o, &ma, err, sizeof(err)), 0);
	ck_assert(!o.readonly);
	ck_assert_uint_eq(ma.msflags, MS_NOATIME);
	ck_assert_int_eq(fuse_mount_args_words(&ma, false, 4096, words, sizeof(words)), 0);
	ck_assert_str_eq(words, "default_permissions,max_read=4096,allow_other");
	ck_assert_int_eq(fuse_mount_args_words(&ma, true, 4096, words, sizeof(words)), 0);
	ck_assert_str_eq(words, "fsname=x,subtype=stainless,default_permissions,max_read=4096,"
			 "allow_other,noatime");
	ck_assert_int_eq(fuse_mount_parse_o("bogus", &o, &ma, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "bogus"));
	ck_assert_int_eq(fuse_mount_parse_o("dax=1G", &o, &ma, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(fuse_mount_parse_o("cache=sometimes", &o, &ma, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(fuse_mount_parse_o("fsname=a b", &o, &ma, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(fuse_mount_parse_o("fsname=", &o, &ma, err, sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(log_levels)
{
	enum fs_log_level l;

	ck_assert_int_eq(fs_log_parse_level("trace", &l), 0);
	ck_assert_int_eq(l, FS_LOG_TRACE);
	ck_assert_int_eq(fs_log_parse_level("err", &l), 0);
	ck_assert_int_eq(l, FS_LOG_ERROR);
	ck_assert_int_eq(fs_log_parse_level("loud", &l), -EINVAL);
	fs_log_init(FS_LOG_INFO, "t");
	ck_assert(!fs_log_tracing());
	fs_log_init(FS_LOG_TRACE, "t");
	ck_assert(fs_log_tracing());
}
END_TEST

int main(void)
{
	Suite *s = suite_create("opt_table");
	TCase *tc = tcase_create("tables");

	tcase_add_test(tc, names_letters_keys_unique);
	tcase_add_test(tc, getopt_is_the_table);
	tcase_add_test(tc, print_seccomp_words_are_the_roles);
	tcase_add_test(tc, fuse_mount_o_words);
	tcase_add_test(tc, log_levels);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
