/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host side of the two servers' xattr-policy tests (test_fuse_xattr.c,
 * test_p9xattr.c): one file on the host, xh_path, that the test's client
 * names through its server; what is planted there beforehand, what must
 * (not) be there afterwards, and what a serving thread keeps of the
 * capabilities. Runs on the test's own thread, which never serves and so
 * keeps CAP_SYS_ADMIN: without it trusted.* would simply be invisible,
 * and a "not on the host" check would pass for the wrong reason.
 */
#ifndef STAINLESS_TESTS_UNIT_XATTR_HOST_H
#define STAINLESS_TESTS_UNIT_XATTR_HOST_H

#include <check.h>
#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/creds.h"
#include "tests/unit/on_thread.h"

static char xh_path[4096];          /* the file the client calls "f" */
static struct vfs_cap_data xh_fcap; /* cap_setuid=ep, as setcap writes it */

static inline void xh_init(const char *path)
{
	snprintf(xh_path, sizeof(xh_path), "%s", path);
	xh_fcap = (struct vfs_cap_data){
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
		.data = { { .permitted = 1u << CAP_SETUID } },
	};
}

/* lgetxattr on the host: the value's length or -errno. */
static inline int host_get(const char *name, void *buf, size_t size)
{
	ssize_t n = lgetxattr(xh_path, name, buf, size);

	return n < 0 ? -errno : (int)n;
}

static inline void host_set(const char *name, const char *val)
{
	ck_assert_int_eq(lsetxattr(xh_path, name, val, strlen(val), 0), 0);
}

/* Names of every kind the host keeps before the client looks. */
static inline void plant_host_names(void)
{
	host_set("user.plain", "p");
	host_set("trusted.foo", "host");
	host_set("security.stainless_test", "host");
	host_set("user.stainless.security.selinux", "mapped");
	host_set("user.stainless.junk", "j");
}

/*
 * After the client set security.capability (xh_fcap) and trusted.foo
 * ("guest") through xattr=map over the planted names: no file capability
 * on the host, the values only under user.stainless., the host's own
 * trusted.foo untouched.
 */
static inline void xh_check_mapped_on_host(void)
{
	struct vfs_cap_data got;
	char buf[64] = { 0 };

	ck_assert_int_eq(host_get("security.capability", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(host_get("user.stainless.security.capability", &got, sizeof(got)),
			 (int)sizeof(xh_fcap));
	ck_assert_int_eq(memcmp(&got, &xh_fcap, sizeof(xh_fcap)), 0);
	ck_assert_int_eq(host_get("trusted.foo", buf, sizeof(buf)), 4);
	ck_assert_int_eq(memcmp(buf, "host", 4), 0);
	ck_assert_int_eq(host_get("user.stainless.trusted.foo", buf, sizeof(buf)), 5);
}

static uint64_t xh_served_eff, xh_served_perm;
static int xh_served_bounding_admin;
static void (*xh_one_request)(void);

static inline void xh_serve_one_and_look(void)
{
	xh_one_request();
	thread_caps(&xh_served_eff, &xh_served_perm);
	xh_served_bounding_admin = prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0);
}

/*
 * A thread that has served one request (request, on a thread of its own)
 * holds never more than the passthrough set and never more than before,
 * never SYS_ADMIN or SETFCAP; as root, all of that set, an empty bounding
 * set for SYS_ADMIN, and only that thread limited.
 */
static inline void xh_check_serving_thread_caps(void (*request)(void))
{
	uint64_t main_eff, main_perm, eff, perm;

	thread_caps(&main_eff, &main_perm);
	xh_one_request = request;
	on_thread(xh_serve_one_and_look);
	ck_assert_uint_eq(xh_served_perm & ~FS_CAPS_KEEP, 0);
	ck_assert_uint_eq(xh_served_eff & ~FS_CAPS_KEEP, 0);
	ck_assert_uint_eq(xh_served_perm & ~main_perm, 0);
	ck_assert(!(xh_served_eff & CAPBIT(CAP_SYS_ADMIN)));
	ck_assert(!(xh_served_eff & CAPBIT(CAP_SETFCAP)));
	if (geteuid() == 0) {
		ck_assert_uint_eq(xh_served_perm, FS_CAPS_KEEP & main_perm);
		ck_assert_uint_eq(xh_served_eff, FS_CAPS_KEEP & main_eff);
		ck_assert(main_eff & CAPBIT(CAP_SYS_ADMIN));
		ck_assert_int_eq(xh_served_bounding_admin, 0); /* no execve brings it back */
		thread_caps(&eff, &perm);
		ck_assert_uint_eq(eff, main_eff);
	}
}

#endif
