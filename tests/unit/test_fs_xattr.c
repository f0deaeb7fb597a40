// SPDX-License-Identifier: GPL-2.0-only
/*
 * The xattr policy both servers share (fs/fs_xattr.h), on its own: each
 * namespace in both directions, with and without `xattr=map`, the
 * reserved prefix, the length limit the prefix can push a name past, and
 * list translation (in place, the size probe, ERANGE).
 */
#include "tests/unit/check_main.h"

#include <errno.h>
#include <linux/limits.h>
#include <string.h>

#include "fs/fs_xattr.h"

static char host[XATTR_NAME_MAX + 1];

static int to_host(const char *name, enum fs_xattr_use use, bool map)
{
	memset(host, 'X', sizeof(host));
	return fs_xattr_to_host(name, use, map, host, sizeof(host));
}

/* A name the policy leaves alone, read and written, mapped or not. */
static void assert_passes(const char *name)
{
	for (int map = 0; map < 2; map++) {
		ck_assert_int_eq(to_host(name, FS_XATTR_GET, map), 0);
		ck_assert_str_eq(host, name);
		ck_assert_int_eq(to_host(name, FS_XATTR_SET, map), 0);
		ck_assert_str_eq(host, name);
	}
}

START_TEST(t_user_and_acls_pass)
{
	assert_passes("user.k");
	assert_passes("user.mime_type");
	assert_passes("user.stainless");          /* not the prefix: no dot */
	assert_passes("user.stainlessx.y");
	assert_passes("system.posix_acl_access");
	assert_passes("system.posix_acl_default");
}
END_TEST

START_TEST(t_privileged_refused_without_map)
{
	static const char *const names[] = {
		"security.capability", "security.selinux", "security.", "trusted.foo",
		"trusted.overlay.opaque",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ck_assert_int_eq(to_host(names[i], FS_XATTR_SET, false), -EOPNOTSUPP);
		ck_assert_int_eq(to_host(names[i], FS_XATTR_GET, false), -ENODATA);
	}
}
END_TEST

START_TEST(t_privileged_mapped)
{
	ck_assert_int_eq(to_host("security.selinux", FS_XATTR_SET, true), 0);
	ck_assert_str_eq(host, "user.stainless.security.selinux");
	ck_assert_int_eq(to_host("security.selinux", FS_XATTR_GET, true), 0);
	ck_assert_str_eq(host, "user.stainless.security.selinux");
	ck_assert_int_eq(to_host("trusted.overlay.opaque", FS_XATTR_SET, true), 0);
	ck_assert_str_eq(host, "user.stainless.trusted.overlay.opaque");
	ck_assert_int_eq(to_host("security.capability", FS_XATTR_GET, true), 0);
	ck_assert_str_eq(host, "user.stainless.security.capability");
}
END_TEST

START_TEST(t_other_namespaces_refused)
{
	static const char *const names[] = {
		"system.nfs4_acl", "system.posix_acl_accessx", "system.sockprotoname",
		"osx.foo", "foo", "USER.k", "user", "", "security", "trusted",
	};

	for (int map = 0; map < 2; map++) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			ck_assert_msg(to_host(names[i], FS_XATTR_SET, map) == -EOPNOTSUPP,
				      "set '%s' map=%d", names[i], map);
			ck_assert_msg(to_host(names[i], FS_XATTR_GET, map) == -ENODATA,
				      "get '%s' map=%d", names[i], map);
		}
	}
}
END_TEST

START_TEST(t_reserved_prefix)
{
	static const char *const names[] = {
		"user.stainless.x", "user.stainless.", "user.stainless.security.selinux",
		"user.stainless.trusted.foo", "user.stainless.user.stainless.security.x",
	};

	for (int map = 0; map < 2; map++) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			ck_assert_int_eq(to_host(names[i], FS_XATTR_SET, map), -EPERM);
			ck_assert_int_eq(to_host(names[i], FS_XATTR_GET, map), -ENODATA);
		}
	}
}
END_TEST

START_TEST(t_name_limits)
{
	char name[XATTR_NAME_MAX + 2];
	size_t room = XATTR_NAME_MAX - strlen(FS_XATTR_PRIVATE);

	/* The longest security.* name the prefix still fits, and one more. */
	memset(name, 'a', sizeof(name));
	memcpy(name, "security.", 9);
	name[room] = '\0';
	ck_assert_int_eq(to_host(name, FS_XATTR_SET, true), 0);
	ck_assert_uint_eq(strlen(host), XATTR_NAME_MAX);
	ck_assert_int_eq(to_host(name, FS_XATTR_SET, false), -EOPNOTSUPP);
	name[room] = 'a';
	name[room + 1] = '\0';
	ck_assert_int_eq(to_host(name, FS_XATTR_SET, true), -ERANGE);
	ck_assert_int_eq(to_host(name, FS_XATTR_GET, true), -ENODATA);
	/* Unmapped names keep the plain limit. */
	memset(name, 'a', sizeof(name));
	memcpy(name, "user.", 5);
	name[XATTR_NAME_MAX] = '\0';
	ck_assert_int_eq(to_host(name, FS_XATTR_SET, false), 0);
	name[XATTR_NAME_MAX] = 'a';
	name[XATTR_NAME_MAX + 1] = '\0';
	ck_assert_int_eq(to_host(name, FS_XATTR_SET, false), -ERANGE);
	ck_assert_int_eq(to_host(name, FS_XATTR_GET, false), -ERANGE);
	/* A host buffer too small is never overrun. */
	ck_assert_int_eq(fs_xattr_to_host("user.abc", FS_XATTR_SET, false, host, 8), -ERANGE);
	ck_assert_int_eq(fs_xattr_to_host("user.abc", FS_XATTR_SET, false, host, 9), 0);
	ck_assert_int_eq(fs_xattr_to_host("security.a", FS_XATTR_SET, true, host, 25), -ERANGE);
	ck_assert_int_eq(fs_xattr_to_host("security.a", FS_XATTR_SET, true, host, 26), 0);
}
END_TEST

/* A host list as listxattr returns it: names with their NULs. */
static const char hostlist[] =
	"user.a\0"
	"security.selinux\0"
	"trusted.foo\0"
	"user.stainless.security.selinux\0"
	"system.posix_acl_access\0"
	"user.stainless.junk\0"
	"user.stainless.trusted.overlay.opaque\0"
	"system.nfs4_acl\0"
	"user.stainless.user.b\0"
	"user.b\0";
#define HOSTLIST_LEN (sizeof(hostlist) - 1)

static const char plain[] = "user.a\0system.posix_acl_access\0user.b\0";
static const char mapped[] = "user.a\0security.selinux\0system.posix_acl_access\0"
			     "trusted.overlay.opaque\0user.b\0";

START_TEST(t_list_filtered)
{
	char out[256];

	ck_assert_int_eq(fs_xattr_list_from_host(hostlist, HOSTLIST_LEN, false, NULL, 0),
			 (ssize_t)sizeof(plain) - 1);
	ck_assert_int_eq(fs_xattr_list_from_host(hostlist, HOSTLIST_LEN, false, out, sizeof(out)),
			 (ssize_t)sizeof(plain) - 1);
	ck_assert_int_eq(memcmp(out, plain, sizeof(plain) - 1), 0);
}
END_TEST

START_TEST(t_list_mapped)
{
	char out[256];

	ck_assert_int_eq(fs_xattr_list_from_host(hostlist, HOSTLIST_LEN, true, NULL, 0),
			 (ssize_t)sizeof(mapped) - 1);
	ck_assert_int_eq(fs_xattr_list_from_host(hostlist, HOSTLIST_LEN, true, out, sizeof(out)),
			 (ssize_t)sizeof(mapped) - 1);
	ck_assert_int_eq(memcmp(out, mapped, sizeof(mapped) - 1), 0);
}
END_TEST

START_TEST(t_list_in_place)
{
	char buf[sizeof(hostlist)];

	for (int map = 0; map < 2; map++) {
		const char *want = map ? mapped : plain;
		size_t wlen = map ? sizeof(mapped) - 1 : sizeof(plain) - 1;

		memcpy(buf, hostlist, sizeof(hostlist));
		ck_assert_int_eq(fs_xattr_list_from_host(buf, HOSTLIST_LEN, map, buf, HOSTLIST_LEN),
				 (ssize_t)wlen);
		ck_assert_int_eq(memcmp(buf, want, wlen), 0);
	}
}
END_TEST

START_TEST(t_list_erange)
{
	char out[256];
	size_t wlen = sizeof(mapped) - 1;

	/* Exactly the translated size fits, though the host list would not. */
	ck_assert_uint_lt(wlen, HOSTLIST_LEN);
	ck_assert_int_eq(fs_xattr_list_from_host(hostlist, HOSTLIST_LEN, true, out, wlen),
			 (ssize_t)wlen);
	ck_assert_int_eq(fs_xattr_list_from_host(hostlist, HOSTLIST_LEN, true, out, wlen - 1),
			 -ERANGE);
	ck_assert_int_eq(fs_xattr_list_from_host(hostlist, HOSTLIST_LEN, false, out, 3), -ERANGE);
}
END_TEST

START_TEST(t_list_edges)
{
	char out[64];

	ck_assert_int_eq(fs_xattr_list_from_host("", 0, true, NULL, 0), 0);
	ck_assert_int_eq(fs_xattr_list_from_host("", 0, false, out, sizeof(out)), 0);
	/* Nothing the client may see: an empty list, not an error. */
	ck_assert_int_eq(fs_xattr_list_from_host("security.selinux\0", 17, true, out, 1), 0);
	/* An unterminated tail is no name. */
	ck_assert_int_eq(fs_xattr_list_from_host("user.a\0user.b", 13, false, out, sizeof(out)), 7);
	ck_assert_str_eq(out, "user.a");
	/* Empty names between NULs are dropped. */
	ck_assert_int_eq(fs_xattr_list_from_host("\0user.a\0\0", 9, false, out, sizeof(out)), 7);
	ck_assert_str_eq(out, "user.a");
}
END_TEST

/* What a client sets comes back, under its own name, in the list. */
START_TEST(t_round_trip)
{
	static const char *const names[] = {
		"user.k", "system.posix_acl_default", "security.selinux", "trusted.x",
	};
	char list[512], out[512];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ck_assert_int_eq(to_host(names[i], FS_XATTR_SET, true), 0);
		memcpy(list + n, host, strlen(host) + 1);
		n += strlen(host) + 1;
	}
	ssize_t got = fs_xattr_list_from_host(list, n, true, out, sizeof(out));
	ck_assert_int_gt(got, 0);
	size_t off = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ck_assert_str_eq(out + off, names[i]);
		off += strlen(names[i]) + 1;
	}
	ck_assert_uint_eq(off, (size_t)got);
}
END_TEST

static Suite *fs_xattr_suite(void)
{
	Suite *s = suite_create("fs_xattr");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, t_user_and_acls_pass);
	tcase_add_test(tc, t_privileged_refused_without_map);
	tcase_add_test(tc, t_privileged_mapped);
	tcase_add_test(tc, t_other_namespaces_refused);
	tcase_add_test(tc, t_reserved_prefix);
	tcase_add_test(tc, t_name_limits);
	suite_add_tcase(s, tc);
	tc = tcase_create("lists");
	tcase_add_test(tc, t_list_filtered);
	tcase_add_test(tc, t_list_mapped);
	tcase_add_test(tc, t_list_in_place);
	tcase_add_test(tc, t_list_erange);
	tcase_add_test(tc, t_list_edges);
	tcase_add_test(tc, t_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(fs_xattr_suite());
}
