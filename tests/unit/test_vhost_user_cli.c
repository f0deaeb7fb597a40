// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless vhost-user-fs` command lines (transport/vhost_user_cli.c):
 * what Kata's Go runtime and runtime-rs pass to virtiofsd today, the -o
 * compatibility forms, the project's own FS OPTIONS, and one clear error
 * for each thing it does not take.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "tests/unit/check_main.h"
#include "transport/vhost_user_cli.h"

static struct vu_fs_config c;
static char err[512];

#define PARSE(...) parse((const char *const[]){ "vhost-user-fs", __VA_ARGS__, NULL })

static int parse(const char *const *args)
{
	static char store[32][512];
	static char *argv[33];
	int argc = 0;

	for (; args[argc]; argc++) {
		ck_assert_int_lt(argc, 32);
		strcpy(store[argc], args[argc]);
		argv[argc] = store[argc];
	}
	argv[argc] = NULL;
	memset(err, 0, sizeof(err));
	return vu_fs_parse_args(argc, argv, &c, err, sizeof(err));
}

static void refused(int rc, const char *reason)
{
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_msg(strstr(err, reason), "error '%s', expected '%s'", err, reason);
}

START_TEST(t_kata_go_runtime)
{
	ck_assert_int_eq(PARSE("--syslog", "--cache=auto", "--shared-dir=/srv/share", "--fd=3",
			       "--thread-pool-size=1", "--announce-submounts"), 0);
	ck_assert(c.syslog);
	ck_assert_int_eq(c.fd, 3);
	ck_assert_ptr_null(c.socket_path);
	ck_assert_str_eq(c.shared_dir, "/srv/share");
	ck_assert_int_eq(c.opts.cache, FS_CACHE_AUTO);
	ck_assert(c.thread_pool_given);
	ck_assert_uint_eq(c.thread_pool_size, 1);
}
END_TEST

START_TEST(t_kata_runtime_rs)
{
	ck_assert_int_eq(PARSE("--socket-path", "/run/vfs.sock", "--shared-dir", "/srv/share",
			       "--cache", "never", "--thread-pool-size=1", "-o", "announce_submounts",
			       "--xattr"), 0);
	ck_assert_str_eq(c.socket_path, "/run/vfs.sock");
	ck_assert_int_eq(c.fd, -1);
	ck_assert_int_eq(c.opts.cache, FS_CACHE_NEVER);
	ck_assert(c.opts.xattr);
}
END_TEST

START_TEST(t_o_forms)
{
	ck_assert_int_eq(PARSE("--socket-path=/s", "-o", "source=/srv/x,cache=none,xattr",
			       "-o", "no_posix_lock,no_flock,log_level=debug,writeback", "-f"), 0);
	ck_assert_str_eq(c.shared_dir, "/srv/x");
	ck_assert_int_eq(c.opts.cache, FS_CACHE_NEVER);
	ck_assert(c.opts.xattr);
	ck_assert(c.opts.writeback);
	ck_assert_int_eq(c.log_level, VU_LOG_DEBUG);
	ck_assert_int_eq(PARSE("--socket-path=/s", "-o", "source=/d,cache=always,no_xattr,sandbox=chroot"), 0);
	ck_assert_int_eq(c.opts.cache, FS_CACHE_ALWAYS);
	ck_assert(!c.opts.xattr);
	ck_assert_int_eq(c.sandbox, VU_SANDBOX_CHROOT);
	refused(PARSE("--socket-path=/s", "-o", "source=/d,xattrmap=:map::"),
		"-o xattrmap=:map::: not an option or value");
	refused(PARSE("--socket-path=/s", "-o", "source=/d,allow_direct_io"), "-o allow_direct_io:");
	refused(PARSE("--socket-path=/s", "-o", "source=/d,cache=sometimes"), "-o cache=sometimes");
}
END_TEST

START_TEST(t_every_listed_option)
{
	ck_assert_int_eq(PARSE("--socket", "/old.sock", "--socket-group", "kvm", "--shared-dir", "/d",
			       "--cache", "metadata", "--readonly", "--xattr-map", "--devices",
			       "--log-level", "warn", "--sandbox", "none", "--seccomp", "log",
			       "--inode-file-handles=mandatory", "--tag", "myfs", "--writeback"), 0);
	ck_assert(c.socket_deprecated);
	ck_assert_str_eq(c.socket_path, "/old.sock");
	ck_assert_str_eq(c.socket_group, "kvm");
	ck_assert(c.cache_metadata);
	ck_assert_int_eq(c.opts.cache, FS_CACHE_NEVER);
	ck_assert(c.opts.readonly && c.opts.xattr && c.opts.xattr_map && c.opts.devices);
	ck_assert_int_eq(c.log_level, VU_LOG_WARN);
	ck_assert_int_eq(c.sandbox, VU_SANDBOX_NONE);
	ck_assert_int_eq(c.seccomp, VU_SECCOMP_LOG);
	ck_assert_int_eq(c.file_handles, VU_FH_MANDATORY);
	ck_assert_str_eq(c.tag, "myfs");
	ck_assert_int_eq(PARSE("--print-capabilities"), 0);
	ck_assert(c.print_capabilities);
	ck_assert_int_eq(PARSE("--fd", "5", "--shared-dir", "/d", "--inode-file-handles=fallback",
			       "-d"), 0);
	ck_assert_int_eq(c.file_handles, VU_FH_PREFER);
	ck_assert_int_eq(c.log_level, VU_LOG_DEBUG);
}
END_TEST

START_TEST(t_other_virtiofsd_options_named)
{
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--xattrmap=:map::user.x.:"),
		"'--xattrmap' is not an option stainless vhost-user-fs takes");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--posix-acl"), "'--posix-acl'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--modcaps=+sys_admin"), "'--modcaps'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--rlimit-nofile", "10"),
		"'--rlimit-nofile'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--no-announce-submounts"),
		"'--no-announce-submounts'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "-x"), "'-x'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "extra"), "unexpected argument 'extra'");
}
END_TEST

START_TEST(t_bad_values_and_combinations)
{
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--cache=sometimes"),
		"--cache 'sometimes': must be auto, always, metadata or never");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--log-level=loud"), "--log-level 'loud'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--sandbox=jail"), "--sandbox 'jail'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--seccomp=maybe"), "--seccomp 'maybe'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--inode-file-handles=always"),
		"--inode-file-handles 'always'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--fd=three"), "--fd 'three'");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--thread-pool-size=-1"),
		"--thread-pool-size");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--tag", ""), "--tag");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--tag",
		      "0123456789012345678901234567890123456"), "must be 1 to 36 bytes");
	refused(PARSE("--shared-dir=/d"), "--socket-path PATH or --fd FD is required");
	refused(PARSE("--socket-path=/s"), "--shared-dir DIR (or -o source=DIR) is required");
	refused(PARSE("--socket-path=/s", "--fd=3", "--shared-dir=/d"), "exclude each other");
	refused(PARSE("--fd=3", "--socket-group=kvm", "--shared-dir=/d"), "--socket-group needs");
	refused(PARSE("--socket-path=/s", "--shared-dir"), "--shared-dir needs a value");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vhost_user_cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, t_kata_go_runtime);
	tcase_add_test(tc, t_kata_runtime_rs);
	tcase_add_test(tc, t_o_forms);
	tcase_add_test(tc, t_every_listed_option);
	tcase_add_test(tc, t_other_virtiofsd_options_named);
	tcase_add_test(tc, t_bad_values_and_combinations);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
