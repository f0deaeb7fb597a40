// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE protocol past Debian 12's 7.38 header, as Linux 6.12 speaks it
 * (fs/fuse/fuse_wire.h): what INIT grants of the 7.39-7.41 flags, STATX,
 * the supplementary-group extension of creating requests, and chgrp to a
 * supplementary group (set_owner in fuse_ops_entry.c). Each test fails if
 * the rule it names is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fuse/fuse_wire.h"
#include "tests/unit/check_main.h"
#include "tests/unit/test_fuse_util.h"

#define GROUP_X 4242u       /* a group only held as a supplementary one */
#define USER_A  4201u

static uint64_t init_opts(const struct fs_options *o, uint32_t minor, uint64_t offer,
			  struct fuse_init_out *out)
{
	struct fuse_init_in in = {
		.major = 7, .minor = minor, .max_readahead = 1 << 20,
		.flags = (uint32_t)offer | FUSE_INIT_EXT, .flags2 = (uint32_t)(offer >> 32),
	};

	tf_start(o, NULL, false);
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, out, sizeof(*out)), 0);
	return out->flags | ((uint64_t)out->flags2 << 32);
}

static uint64_t init_with(uint32_t minor, uint64_t offer, struct fuse_init_out *out)
{
	struct fs_options o;

	fs_options_default(&o);
	return init_opts(&o, minor, offer, out);
}

START_TEST(init_grants_what_is_true)
{
	struct fuse_init_out out;
	uint64_t offer = FUSE_ASYNC_READ | FUSE_CREATE_SUPP_GROUP | FUSE_HAS_EXPIRE_ONLY |
			 FUSE_DIRECT_IO_ALLOW_MMAP | FUSE_NO_EXPORT_SUPPORT |
			 (1ULL << 37) /* PASSTHROUGH */ | (1ULL << 39) /* HAS_RESEND */ |
			 (1ULL << 40) /* ALLOW_IDMAP */;
	uint64_t got = init_with(41, offer, &out);

	ck_assert_uint_eq(out.minor, 41);
	ck_assert(got & FUSE_CREATE_SUPP_GROUP);
	ck_assert(got & FUSE_DIRECT_IO_ALLOW_MMAP);
	ck_assert(got & FUSE_NO_EXPORT_SUPPORT);
	/* No notifications, no backing files, no resends, no idmapped mounts. */
	ck_assert(!(got & FUSE_HAS_EXPIRE_ONLY));
	ck_assert(!(got & (1ULL << 37)));
	ck_assert(!(got & (1ULL << 39)));
	ck_assert(!(got & (1ULL << 40)));
	/* An older client gets its own minor and nothing it did not offer. */
	got = init_with(38, FUSE_ASYNC_READ, &out);
	ck_assert_uint_eq(out.minor, 38);
	ck_assert(!(got & (FUSE_CREATE_SUPP_GROUP | FUSE_NO_EXPORT_SUPPORT)));
}
END_TEST

static int statx_req(uint64_t nodeid, uint32_t flags, uint64_t fh, uint32_t mask,
		     struct fuse_statx_out *out)
{
	struct fuse_statx_in in = { .getattr_flags = flags, .fh = fh, .sx_mask = mask };

	return tf_req(FUSE_STATX, nodeid, &in, sizeof(in), NULL, NULL, out, sizeof(*out));
}

START_TEST(statx_answers_from_the_host)
{
	struct fuse_statx_out out;
	struct statx host;
	uint64_t fh;

	tf_write_host("f", "hello");
	ck_assert_int_eq(statx(AT_FDCWD, tf_path("f"), 0, STATX_ALL, &host), 0);
	uint64_t id = tf_nodeid(1, "f");
	ck_assert_int_eq(statx_req(id, 0, 0, STATX_BASIC_STATS | STATX_BTIME, &out), 0);
	ck_assert_uint_eq(tf_payload(), sizeof(out));
	ck_assert_uint_eq(out.stat.size, 5);
	ck_assert_uint_eq(out.stat.ino, host.stx_ino);
	ck_assert_uint_eq(out.stat.mode, host.stx_mode);
	ck_assert_uint_eq(out.stat.mtime.tv_sec, (uint64_t)host.stx_mtime.tv_sec);
	ck_assert_uint_eq(out.stat.mtime.tv_nsec, host.stx_mtime.tv_nsec);
	ck_assert(out.stat.mask & STATX_SIZE);
	/* The birth time, which GETATTR cannot carry, exactly when the host has one. */
	ck_assert_uint_eq(!!(out.stat.mask & STATX_BTIME), !!(host.stx_mask & STATX_BTIME));
	if (host.stx_mask & STATX_BTIME) {
		ck_assert_int_eq(out.stat.btime.tv_sec, host.stx_btime.tv_sec);
		ck_assert_uint_eq(out.stat.btime.tv_nsec, host.stx_btime.tv_nsec);
	}
	/* By open file: the handle's fd; a stale handle is EBADF. */
	ck_assert_int_eq(tf_open(id, O_RDONLY, &fh), 0);
	ck_assert_int_eq(statx_req(id, FUSE_GETATTR_FH, fh, STATX_SIZE, &out), 0);
	ck_assert_uint_eq(out.stat.size, 5);
	ck_assert_int_eq(tf_release(fh, FUSE_RELEASE), 0);
	ck_assert_int_eq(statx_req(id, FUSE_GETATTR_FH, fh, STATX_SIZE, &out), -EBADF);
	/* A nodeid that names nothing. */
	ck_assert_int_eq(statx_req(id + 99, 0, 0, STATX_SIZE, &out), -ENOENT);
}
END_TEST

/* CREATE of name in the root with an extension area of ext (elen bytes). */
static int create_ext(const char *name, const void *ext, size_t elen)
{
	struct fuse_create_in ci = { .flags = O_WRONLY | O_CREAT, .mode = 0644 };
	size_t len = tf_build(FUSE_CREATE, 1, &ci, sizeof(ci), name, NULL, ext, elen);
	struct fuse_in_header h;
	uint64_t fh;

	memcpy(&h, tf_inbuf, sizeof(h));
	h.total_extlen = (uint16_t)(elen / 8);
	memcpy(tf_inbuf, &h, sizeof(h));
	tf_send(len, NULL);
	ck_assert_int_ge(tf_ret, (int)sizeof(struct fuse_out_header));
	if (tf_oh.error == 0) {
		struct fuse_open_out oo;

		memcpy(&oo, tf_outbuf + sizeof(tf_oh) + sizeof(struct fuse_entry_out), sizeof(oo));
		fh = oo.fh;
		tf_release(fh, FUSE_RELEASE);
	}
	return tf_oh.error;
}

/* A FUSE_EXT_GROUPS extension of n groups, padded to 8 bytes. */
static size_t groups_ext(uint8_t *buf, uint32_t n, const uint32_t *groups)
{
	struct fuse_ext_header eh = { .type = FUSE_EXT_GROUPS };
	size_t len = sizeof(eh) + 4 + 4 * (size_t)n;

	len = (len + 7) & ~(size_t)7;
	memset(buf, 0, len);
	eh.size = (uint32_t)len;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), &n, 4);
	memcpy(buf + sizeof(eh) + 4, groups, 4 * (size_t)n);
	return len;
}

START_TEST(supplementary_group_extension)
{
	uint8_t ext[128];
	uint32_t gx = GROUP_X;
	size_t elen;
	struct stat st;

	if (geteuid() != 0)
		UNIT_SKIP("not root: requests only run with the caller's credentials as root");
	/* The root is writable by GROUP_X alone. */
	ck_assert_int_eq(chown(tdir, 0, GROUP_X), 0);
	ck_assert_int_eq(chmod(tdir, 0070), 0);
	tf_uid = USER_A;
	tf_gid = USER_A;
	ck_assert_int_eq(create_ext("without", NULL, 0), -EACCES);
	elen = groups_ext(ext, 1, &gx);
	ck_assert_int_eq(create_ext("with", ext, elen), 0);
	ck_assert_int_eq(stat(tf_path("with"), &st), 0);
	ck_assert_uint_eq(st.st_uid, USER_A);
	/* Malformed extension areas are refused, not read past. */
	uint32_t many[FUSE_MAX_SUPP_GROUPS + 1] = { 0 };
	elen = groups_ext(ext, FUSE_MAX_SUPP_GROUPS + 1, many);
	ck_assert_int_eq(create_ext("toomany", ext, elen), -EINVAL);
	elen = groups_ext(ext, 1, &gx);
	struct fuse_ext_header bad = { .size = 12, .type = FUSE_EXT_GROUPS };
	memcpy(ext, &bad, sizeof(bad));
	ck_assert_int_eq(create_ext("oddsize", ext, elen), -EINVAL);
	bad.size = 64;  /* past the area */
	memcpy(ext, &bad, sizeof(bad));
	ck_assert_int_eq(create_ext("past", ext, elen), -EINVAL);
	tf_uid = tf_gid = 0;
	chmod(tdir, 0755);
}
END_TEST

START_TEST(chgrp_to_a_supplementary_group)
{
	struct fuse_setattr_in sa = { .valid = FATTR_GID, .gid = GROUP_X };
	struct fuse_attr_out ao;
	struct stat st;

	if (geteuid() != 0)
		UNIT_SKIP("not root: requests only run with the caller's credentials as root");
	tf_write_host("mine", "x");
	tf_write_host("theirs", "x");
	ck_assert_int_eq(chown(tf_path("mine"), USER_A, USER_A), 0);
	uint64_t mine = tf_nodeid(1, "mine"), theirs = tf_nodeid(1, "theirs");
	tf_uid = USER_A;
	tf_gid = USER_A;
	ck_assert_int_eq(tf_req(FUSE_SETATTR, mine, &sa, sizeof(sa), NULL, NULL, &ao, sizeof(ao)), 0);
	ck_assert_int_eq(stat(tf_path("mine"), &st), 0);
	ck_assert_uint_eq(st.st_gid, GROUP_X);
	ck_assert_uint_eq(ao.attr.gid, GROUP_X);
	/* Still the host's rule: only the owner may change a file's group. */
	ck_assert_int_eq(tf_req(FUSE_SETATTR, theirs, &sa, sizeof(sa), NULL, NULL, NULL, 0), -EPERM);
	/* And no owner change for a caller without CAP_CHOWN. */
	struct fuse_setattr_in su = { .valid = FATTR_UID, .uid = 0 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, mine, &su, sizeof(su), NULL, NULL, NULL, 0), -EPERM);
	tf_uid = tf_gid = 0;
}
END_TEST

/*
 * virtiofsd's switches (vhost-user-fs -o/--): each hands one INIT feature
 * back to the client or takes it, and nothing else changes.
 */
START_TEST(init_follows_the_virtiofsd_switches)
{
	const uint64_t all = FUSE_POSIX_LOCKS | FUSE_FLOCK_LOCKS | FUSE_HANDLE_KILLPRIV_V2 |
			     FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO | FUSE_POSIX_ACL |
			     FUSE_ASYNC_READ;
	struct fuse_init_out out;
	struct fs_options o;
	uint64_t got;

	fs_options_default(&o);
	got = init_opts(&o, 38, all, &out) & all;
	ck_assert_uint_eq(got, all & ~(uint64_t)FUSE_POSIX_ACL);
	o.no_flock = true;
	ck_assert_uint_eq(init_opts(&o, 38, all, &out) & all, got & ~(uint64_t)FUSE_FLOCK_LOCKS);
	fs_options_default(&o);
	o.no_posix_lock = true;
	ck_assert_uint_eq(init_opts(&o, 38, all, &out) & all, got & ~(uint64_t)FUSE_POSIX_LOCKS);
	fs_options_default(&o);
	o.no_killpriv_v2 = true;
	ck_assert_uint_eq(init_opts(&o, 38, all, &out) & all, got & ~(uint64_t)FUSE_HANDLE_KILLPRIV_V2);
	fs_options_default(&o);
	o.no_readdirplus = true;
	ck_assert_uint_eq(init_opts(&o, 38, all, &out) & all,
			  got & ~(uint64_t)(FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO));
	/* cache=never leaves READDIRPLUS out unless it is asked for. */
	fs_options_default(&o);
	o.cache = FS_CACHE_NEVER;
	ck_assert(!(init_opts(&o, 38, all, &out) & FUSE_DO_READDIRPLUS));
	o.readdirplus = true;
	ck_assert(init_opts(&o, 38, all, &out) & FUSE_DO_READDIRPLUS);
	/* POSIX ACLs are xattrs: without xattr the switch asks nothing. */
	fs_options_default(&o);
	o.posix_acl = true;
	ck_assert(!(init_opts(&o, 38, all, &out) & FUSE_POSIX_ACL));
	o.xattr = true;
	ck_assert_uint_eq(init_opts(&o, 38, all, &out) & all, got | FUSE_POSIX_ACL);
}
END_TEST

/* The O_DIRECT flag of the host fd the server opened for path, or -1. */
static int host_fd_direct(const char *path)
{
	char link[PATH_MAX], fdp[64], line[128];
	int found = -1;

	for (int fd = 3; fd < 1024 && found < 0; fd++) {
		snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(fdp, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, path) != 0)
			continue;
		snprintf(fdp, sizeof(fdp), "/proc/self/fdinfo/%d", fd);
		FILE *f = fopen(fdp, "re");
		unsigned flags;
		while (f && fgets(line, sizeof(line), f)) {
			/* O_PATH fds of the inode table share the path: skip them */
			if (sscanf(line, "flags: %o", &flags) == 1 && !(flags & O_PATH))
				found = !!(flags & O_DIRECT);
		}
		if (f)
			fclose(f);
	}
	return found;
}

/* --allow-direct-io: the client's O_DIRECT reaches the host; else it is dropped. */
START_TEST(direct_io_only_when_allowed)
{
	struct fs_options o;
	uint64_t fh;

	for (int allow = 0; allow < 2; allow++) {
		fs_options_default(&o);
		o.direct_io = allow;
		tf_start(&o, NULL, true);
		tf_write_host("d", "direct");
		ck_assert_int_eq(tf_open(tf_nodeid(1, "d"), O_RDONLY | O_DIRECT, &fh), 0);
		ck_assert_int_eq(host_fd_direct(tf_path("d")), allow);
		tf_release(fh, FUSE_RELEASE);
	}
}
END_TEST

/* cache=metadata: entries and attributes kept a day, file data never cached. */
START_TEST(cache_metadata_caches_attributes_only)
{
	struct fuse_entry_out e;
	struct fuse_open_in in = { .flags = O_RDONLY };
	struct fuse_open_out oo = { 0 };
	struct fs_options o;

	fs_options_default(&o);
	ck_assert_int_eq(fs_parse_cache("metadata", &o.cache), 0);
	tf_start(&o, NULL, true);
	tf_write_host("m", "meta");
	ck_assert_int_eq(tf_lookup(1, "m", &e), 0);
	ck_assert_uint_eq(e.entry_valid, 86400);
	ck_assert_uint_eq(e.attr_valid, 86400);
	ck_assert_int_eq(tf_req(FUSE_OPEN, e.nodeid, &in, sizeof(in), NULL, NULL, &oo, sizeof(oo)), 0);
	ck_assert(oo.open_flags & FOPEN_DIRECT_IO);
	ck_assert(!(oo.open_flags & FOPEN_KEEP_CACHE));
	ck_assert(tf_init.flags & FUSE_DO_READDIRPLUS);
	tf_release(oo.fh, FUSE_RELEASE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_proto");
	TCase *tc = tcase_create("fuse_7_41");

	tcase_add_checked_fixture(tc, tf_setup, tf_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, init_grants_what_is_true);
	tcase_add_test(tc, statx_answers_from_the_host);
	tcase_add_test(tc, supplementary_group_extension);
	tcase_add_test(tc, chgrp_to_a_supplementary_group);
	tcase_add_test(tc, init_follows_the_virtiofsd_switches);
	tcase_add_test(tc, direct_io_only_when_allowed);
	tcase_add_test(tc, cache_metadata_caches_attributes_only);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
