// SPDX-License-Identifier: GPL-2.0-only
/*
 * `stainless vhost-user-fs` command lines (cmd/vhost_user_cli.c):
 * what Kata's Go runtime and runtime-rs pass to virtiofsd today, the -o
 * compatibility forms, the project's own FS OPTIONS, and one clear error
 * for each thing it does not take.
 */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "tests/unit/check_main.h"
#include "cmd/vhost_user_cli.h"

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
		"-o xattrmap: not supported: its rule language is not implemented; --xattr-map");
	refused(PARSE("--socket-path=/s", "-o", "source=/d,cache=sometimes"), "-o cache=sometimes");
	refused(PARSE("--socket-path=/s", "-o", "source=/d,flocks"), "-o flocks: not an option");
}
END_TEST

START_TEST(t_every_listed_option)
{
	ck_assert_int_eq(PARSE("--socket", "/old.sock", "--socket-group", "kvm", "--shared-dir", "/d",
			       "--cache", "metadata", "--readonly", "--xattr-map", "--devices",
			       "--log-level", "warn", "--sandbox", "none", "--seccomp", "log",
			       "--inode-file-handles=prefer", "--tag", "myfs", "--writeback"), 0);
	ck_assert(c.socket_deprecated);
	ck_assert_str_eq(c.socket_path, "/old.sock");
	ck_assert_str_eq(c.socket_group, "kvm");
	ck_assert_int_eq(c.opts.cache, FS_CACHE_METADATA);
	ck_assert(c.opts.readonly && c.opts.xattr && c.opts.xattr_map && c.opts.devices);
	ck_assert_int_eq(c.log_level, VU_LOG_WARN);
	ck_assert_int_eq(c.sandbox, VU_SANDBOX_NONE);
	ck_assert_int_eq(c.seccomp, VU_SECCOMP_LOG);
	ck_assert_int_eq(c.file_handles, VU_FH_PREFER);
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
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--rlimit-nofile=lots"),
		"--rlimit-nofile 'lots'");
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

/* libvirt 9.0 (qemu_virtiofs.c): --fd=N -o source=,cache=,sandbox=,xattr,flock,posix_lock. */
START_TEST(t_libvirt)
{
	ck_assert_int_eq(PARSE("--fd=23", "-o", "source=/srv/a,,b,cache=always,sandbox=chroot,xattr,"
			       "flock,posix_lock", "--thread-pool-size=16", "-d"), 0);
	ck_assert_int_eq(c.fd, 23);
	ck_assert_str_eq(c.shared_dir, "/srv/a,b");     /* libvirt doubles a path's commas */
	ck_assert_int_eq(c.opts.cache, FS_CACHE_ALWAYS);
	ck_assert_int_eq(c.sandbox, VU_SANDBOX_CHROOT);
	ck_assert(c.opts.xattr && !c.opts.no_flock && !c.opts.no_posix_lock);
	ck_assert_int_eq(c.log_level, VU_LOG_DEBUG);
	ck_assert_int_eq(PARSE("--fd=3", "-o", "source=/d,cache=none,sandbox=namespace,no_xattr,"
			       "no_flock,no_posix_lock"), 0);
	ck_assert_int_eq(c.opts.cache, FS_CACHE_NEVER);
	ck_assert_int_eq(c.sandbox, VU_SANDBOX_NAMESPACE);
	ck_assert(!c.opts.xattr && c.opts.no_flock && c.opts.no_posix_lock);
	/* Doubled commas, and a path ending in one. */
	ck_assert_int_eq(PARSE("--fd=3", "-o", "source=/d,,,,xattr"), 0);
	ck_assert_str_eq(c.shared_dir, "/d,,xattr");     /* QEMU's rule: each ,, is one comma */
	ck_assert(!c.opts.xattr);
	ck_assert_int_eq(PARSE("--fd=3", "-o", "source=/d,,,xattr"), 0);
	ck_assert_str_eq(c.shared_dir, "/d,");
	ck_assert(c.opts.xattr);
}
END_TEST

/* Every C virtiofsd -o switch, with and without no_, lands where it should. */
START_TEST(t_c_virtiofsd_switches)
{
	ck_assert_int_eq(PARSE("--socket-path=/s", "-o", "source=/d,readdirplus,killpriv_v2,"
			       "allow_direct_io,posix_acl,writeback,announce_submounts,allow_root,"
			       "no_security_label,max_idle_threads=4,log_level=warn,debug"), 0);
	ck_assert(c.opts.readdirplus && !c.opts.no_readdirplus);
	ck_assert(!c.opts.no_killpriv_v2 && c.opts.direct_io && c.opts.writeback);
	ck_assert(c.opts.posix_acl && c.opts.xattr);    /* ACLs need xattrs */
	ck_assert(c.max_idle_given);
	ck_assert_int_eq(c.log_level, VU_LOG_DEBUG);    /* debug after log_level */
	ck_assert_int_eq(PARSE("--socket-path=/s", "-o", "source=/d,xattr,readdirplus,no_readdirplus,"
			       "no_killpriv_v2,no_allow_direct_io,posix_acl,no_posix_acl,"
			       "writeback,no_writeback,loglevel=err"), 0);
	ck_assert(!c.opts.readdirplus && c.opts.no_readdirplus);
	ck_assert(c.opts.no_killpriv_v2 && !c.opts.direct_io && !c.opts.posix_acl);
	ck_assert(!c.opts.writeback && c.opts.xattr);
	ck_assert_int_eq(c.log_level, VU_LOG_ERROR);
	refused(PARSE("--socket-path=/s", "-o", "source=/d,modcaps=+sys_admin"),
		"-o modcaps: not supported: the capabilities are fixed");
	refused(PARSE("--socket-path=/s", "-o", "source=/d,security_label"),
		"-o security-label: not supported:");
	refused(PARSE("--socket-path=/s", "-o", "source=/d,timeout=5"),
		"-o timeout: not supported: the cache mode sets the timeouts");
	refused(PARSE("--socket-path=/s", "-o", "source=/d,max_idle_threads=many"),
		"-o max_idle_threads=many");
	refused(PARSE("--socket-path=/s", "-o", "source=/d,sandbox=none"), "-o sandbox=none");
	refused(PARSE("--socket-path=/s", "-o", "source="), "-o source=:");
}
END_TEST

/* The Rust virtiofsd's options, decided one by one (docs/virtiofsd-options.md). */
START_TEST(t_rust_virtiofsd_options)
{
	ck_assert_int_eq(PARSE("--socket-path=/s", "--shared-dir=/d", "--rlimit-nofile=4096",
			       "--cache=metadata", "--no-readdirplus", "--writeback",
			       "--allow-direct-io", "--allow-mmap", "--preserve-noatime",
			       "--no-killpriv-v2", "--inode-file-handles=never", "--posix-acl",
			       "--announce-submounts"), 0);
	ck_assert_uint_eq(c.rlimit_nofile, 4096);
	ck_assert_int_eq(c.opts.cache, FS_CACHE_METADATA);
	ck_assert(c.opts.no_readdirplus && !c.opts.readdirplus);
	ck_assert(c.opts.writeback && c.opts.direct_io && c.opts.no_killpriv_v2);
	ck_assert(c.opts.posix_acl && c.opts.xattr);
	ck_assert_int_eq(c.file_handles, VU_FH_NEVER);
	ck_assert_int_eq(PARSE("--socket-path=/s", "--shared-dir=/d", "--readdirplus",
			       "--killpriv-v2", "--rlimit-nofile", "0"), 0);
	ck_assert(c.opts.readdirplus && !c.opts.no_readdirplus && !c.opts.no_killpriv_v2);
	ck_assert_uint_eq(c.rlimit_nofile, 0);
	ck_assert_int_eq(c.file_handles, VU_FH_NEVER);  /* the default */
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--inode-file-handles=mandatory"),
		"--inode-file-handles=mandatory: not supported: stainless keeps no file handles");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--xattrmap=:map::user.x.:"),
		"--xattrmap: not supported: its rule language is not implemented; --xattr-map");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--modcaps=+sys_admin"),
		"--modcaps: not supported: the capabilities are fixed per thread role");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--security-label"),
		"--security-label: not supported: a security context");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--translate-uid=map:0:1000:1"),
		"--translate-uid: not supported: ids are not translated");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--translate-gid", "squash-host:0:0:1"),
		"--translate-gid: not supported: ids are not translated");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--uid-map=:0:1000:1:"),
		"--uid-map: not supported:");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--gid-map=:0:1000:1:"),
		"--gid-map: not supported:");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--migration-mode=find-paths"),
		"--migration-mode: not supported: migration is not supported");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--migration-on-error=abort"),
		"--migration-on-error: not supported: migration");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--migration-verify-handles"),
		"--migration-verify-handles: not supported: migration");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--migration-confirm-paths"),
		"--migration-confirm-paths: not supported: migration");
	refused(PARSE("--socket-path=/s", "--shared-dir=/d", "--daemonize"),
		"--daemonize: not supported: it runs in the foreground only");
}
END_TEST

/* --rlimit-nofile holds: the raise every serving command does leaves it. */
/* stainless's own: the DAX window a SHMEM frontend maps (docs/dax.md). */
START_TEST(t_dax_window)
{
	ck_assert_int_eq(PARSE("--socket-path", "/s", "--shared-dir", "/d"), 0);
	ck_assert_uint_eq(c.opts.dax_size, 0);
	ck_assert_int_eq(PARSE("--socket-path", "/s", "--shared-dir", "/d", "--dax-window", "1G"), 0);
	ck_assert_uint_eq(c.opts.dax_size, 1ull << 30);
	ck_assert_int_eq(PARSE("--socket-path", "/s", "--shared-dir", "/d", "--dax-window=64M"), 0);
	ck_assert_uint_eq(c.opts.dax_size, 64ull << 20);
	for (int i = 0; i < 5; i++) {
		static const char *const bad[] = { "0", "1M", "3M", "65G", "lots" };

		ck_assert_int_lt(PARSE("--socket-path", "/s", "--shared-dir", "/d", "--dax-window",
				       bad[i]), 0);
		ck_assert_ptr_nonnull(strstr(err, "--dax-window"));
	}
}
END_TEST

/* --watches N and -o watches=N: change-aware lifetimes (docs/host-changes.md). */
START_TEST(t_watches)
{
	ck_assert_int_eq(PARSE("--socket-path", "/s", "--shared-dir", "/d"), 0);
	ck_assert_uint_eq(c.opts.watches, 0);
	ck_assert_int_eq(PARSE("--socket-path", "/s", "--shared-dir", "/d", "--watches", "64"), 0);
	ck_assert_uint_eq(c.opts.watches, 64);
	ck_assert_int_eq(PARSE("--socket-path", "/s", "-o", "source=/d,cache=always,watches=8"), 0);
	ck_assert_uint_eq(c.opts.watches, 8);
	for (int i = 0; i < 4; i++) {
		static const char *const bad[] = { "-1", "lots", "1048577",
						   "00000000000000000000001" };

		ck_assert_int_lt(PARSE("--socket-path", "/s", "--shared-dir", "/d", "--watches",
				       bad[i]), 0);
		ck_assert_ptr_nonnull(strstr(err, "--watches"));
	}
	ck_assert_int_lt(PARSE("--socket-path", "/s", "-o", "source=/d,watches=x"), 0);
}
END_TEST

START_TEST(t_rlimit_nofile_is_kept)
{
	struct rlimit rl;

	ck_assert_int_eq(fs_fd_fix_nofile(777), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_uint_eq(rl.rlim_cur, 777);
	ck_assert_uint_eq(rl.rlim_max, 777);
	/* Without CAP_SYS_RESOURCE the raise could only lift the soft limit
	 * to the hard one: lower it to see that it does not. */
	rl.rlim_cur = 500;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_int_eq(fs_fd_raise_nofile(), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_uint_eq(rl.rlim_cur, 500);
	ck_assert_uint_eq(rl.rlim_max, 777);
}
END_TEST

/* The name it was called by is the name it answers in. */
START_TEST(t_called_as_virtiofsd)
{
	ck_assert_str_eq(vu_fs_prog_name("/usr/libexec/stainless-virtiofsd"), "stainless-virtiofsd");
	ck_assert_str_eq(vu_fs_prog_name("virtiofsd"), "virtiofsd");
	ck_assert_str_eq(vu_fs_prog_name("vhost-user-fs"), "stainless vhost-user-fs");
	ck_assert_int_eq(parse((const char *const[]){ "/opt/virtiofsd", "--fd=3", "--shared-dir=/d",
						      "--bogus", NULL }), -EINVAL);
	ck_assert_msg(strstr(err, "'--bogus' is not an option virtiofsd takes (see virtiofsd --help)"),
		      "%s", err);
}
END_TEST

/* systemd's socket activation: fd 3 when LISTEN_PID is this process. */
START_TEST(t_socket_activation)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_FDNAMES", "vhost-user-fs", 1);
	ck_assert_int_eq(PARSE("--shared-dir=/d"), 0);
	ck_assert_int_eq(c.fd, 3);
	/* Taken, so that nothing started later takes them for its own. */
	ck_assert_ptr_null(getenv("LISTEN_PID"));
	ck_assert_ptr_null(getenv("LISTEN_FDS"));
	ck_assert_ptr_null(getenv("LISTEN_FDNAMES"));
	/* Another process's sockets are not ours. */
	setenv("LISTEN_PID", "1", 1);
	setenv("LISTEN_FDS", "1", 1);
	refused(PARSE("--shared-dir=/d"), "--socket-path PATH or --fd FD is required");
	/* Several: one frontend, one socket. */
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "2", 1);
	refused(PARSE("--shared-dir=/d"), "LISTEN_FDS names more than one socket");
	/* What the command line names wins, and the variables stay. */
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);
	ck_assert_int_eq(PARSE("--shared-dir=/d", "--socket-path=/s"), 0);
	ck_assert_int_eq(c.fd, -1);
	ck_assert_ptr_nonnull(getenv("LISTEN_PID"));
}
END_TEST

/* docs/cloud-hypervisor.md: --socket-path=/run/fs.sock --shared-dir=/srv/share --cache=never */
START_TEST(t_cloud_hypervisor)
{
	ck_assert_int_eq(PARSE("--socket-path=/run/fs.sock", "--shared-dir=/srv/share",
			       "--cache=never"), 0);
	ck_assert_str_eq(c.socket_path, "/run/fs.sock");
	ck_assert_str_eq(c.shared_dir, "/srv/share");
	ck_assert_int_eq(c.opts.cache, FS_CACHE_NEVER);
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
	tcase_add_test(tc, t_libvirt);
	tcase_add_test(tc, t_c_virtiofsd_switches);
	tcase_add_test(tc, t_rust_virtiofsd_options);
	tcase_add_test(tc, t_rlimit_nofile_is_kept);
	tcase_add_test(tc, t_dax_window);
	tcase_add_test(tc, t_watches);
	tcase_add_test(tc, t_called_as_virtiofsd);
	tcase_add_test(tc, t_socket_activation);
	tcase_add_test(tc, t_cloud_hypervisor);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
