// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE server's xattr policy (fs/fs_xattr.h) against a real host
 * directory, and what a serving thread keeps of the capabilities.
 *
 * Requests run on threads of their own (on_thread.h): serving limits a
 * thread's capabilities, and the test's own thread keeps CAP_SYS_ADMIN to
 * plant and inspect trusted.* on the host. Checked on the host: refused
 * names (security.capability with a real file-capability value,
 * trusted.*, user.stainless.*) leave nothing there, the host's own
 * security.* and trusted.* are neither readable nor listed, and with
 * xattr=map the client's security.* lands under user.stainless. and comes
 * back under its own name.
 */
#include "tests/unit/check_main.h"
#include "tests/unit/test_fuse_util.h"
#include "tests/unit/on_thread.h"
#include "tests/unit/xattr_host.h"

#include <linux/limits.h>
#include <sys/prctl.h>
#include <sys/xattr.h>

#include "fs/fs_xattr.h"
#include "fs/resolve.h"

static uint64_t node;     /* the file "f", looked up by the serving thread */

static void setup(void)
{
	snprintf(tdir, sizeof(tdir), "/tmp/test_fuse_xattr.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tdir));
	chmod(tdir, 0755);
	tf_uid = tf_gid = 0;
	tf_split = 7;
	tf_outcap = TF_BUF;
	tf_write_host("f", "x");
	xh_init(tf_path("f"));
}

static void init_and_lookup(void)
{
	tf_do_init(TF_ALL_FLAGS);
	node = tf_nodeid(FUSE_ROOT_ID, "f");
}

/* A server for tdir, started by a serving thread that also finds "f". */
static void start(bool map)
{
	struct fs_options o;

	fs_options_default(&o);
	o.xattr = true;
	o.xattr_map = map;
	tf_start(&o, NULL, false);
	on_thread(init_and_lookup);
}

static int setx(const char *name, const void *val, uint32_t size)
{
	uint8_t arg[8 + XATTR_NAME_MAX + 1 + 64];
	struct fuse_setxattr_in in = { .size = size };
	size_t nlen = strlen(name) + 1;

	ck_assert_uint_le(size, 64);
	memcpy(arg, &in, 8);     /* the compat layout: size and flags */
	memcpy(arg + 8, name, nlen);
	memcpy(arg + 8 + nlen, val, size);
	return tf_req(FUSE_SETXATTR, node, arg, 8 + nlen + size, NULL, NULL, NULL, 0);
}

/* GETXATTR (name) or LISTXATTR (NULL): bytes, the probed size for size 0, or -errno. */
static int getx(const char *name, void *buf, uint32_t size)
{
	struct fuse_getxattr_in in = { .size = size };
	struct fuse_getxattr_out probe = { 0 };
	int r = tf_req(name ? FUSE_GETXATTR : FUSE_LISTXATTR, node, &in, sizeof(in), name, NULL,
		       size ? buf : (void *)&probe, size ? size : sizeof(probe));

	if (r)
		return r;
	return size ? (int)tf_payload() : (int)probe.size;
}

static int removex(const char *name)
{
	return tf_req(FUSE_REMOVEXATTR, node, NULL, 0, name, NULL, NULL, 0);
}

/* ---- without xattr=map ---- */

static void client_sets_privileged(void)
{
	ck_assert_int_eq(setx("security.capability", &xh_fcap, sizeof(xh_fcap)), -EOPNOTSUPP);
	ck_assert_int_eq(setx("trusted.foo", "v", 1), -EOPNOTSUPP);
	ck_assert_int_eq(setx("security.selinux", "l", 1), -EOPNOTSUPP);
	ck_assert_int_eq(setx("system.other", "v", 1), -EOPNOTSUPP);
	ck_assert_int_eq(removex("trusted.foo"), -EOPNOTSUPP);
	ck_assert_int_eq(removex("security.capability"), -EOPNOTSUPP);
	/* The private prefix is not the client's to name, mapped or not. */
	ck_assert_int_eq(setx("user.stainless.x", "v", 1), -EPERM);
	ck_assert_int_eq(setx("user.stainless.security.capability", &xh_fcap, sizeof(xh_fcap)), -EPERM);
	ck_assert_int_eq(removex("user.stainless.x"), -EPERM);
	ck_assert_int_eq(setx("user.ok", "v", 1), 0);
}

START_TEST(t_set_refused)
{
	char buf[64];

	start(false);
	on_thread(client_sets_privileged);
	ck_assert_int_eq(host_get("security.capability", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(host_get("trusted.foo", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(host_get("user.stainless.x", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(host_get("user.stainless.security.capability", buf, sizeof(buf)),
			 -ENODATA);
	ck_assert_int_eq(host_get("user.ok", buf, sizeof(buf)), 1);
	ssize_t n = llistxattr(tf_path("f"), buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert(memmem(buf, (size_t)n, "user.ok", 8));
	ck_assert(!memmem(buf, (size_t)n, "trusted.", 8));
	ck_assert(!memmem(buf, (size_t)n, "user.stainless.", 15));
}
END_TEST

static void client_reads_host_names(void)
{
	char buf[256];

	ck_assert_int_eq(getx("trusted.foo", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(getx("trusted.foo", NULL, 0), -ENODATA);
	ck_assert_int_eq(getx("security.stainless_test", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(getx("security.selinux", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(getx("user.stainless.security.selinux", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(getx("user.stainless.junk", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(getx("user.plain", buf, sizeof(buf)), 1);
	/* Only user.plain is the client's: probe, exact fit, one byte short. */
	ck_assert_int_eq(getx(NULL, NULL, 0), 11);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(getx(NULL, buf, 11), 11);
	ck_assert_int_eq(memcmp(buf, "user.plain", 11), 0);
	ck_assert_int_eq(getx(NULL, buf, 10), -ERANGE);
}

START_TEST(t_host_names_hidden)
{
	plant_host_names();
	start(false);
	on_thread(client_reads_host_names);
}
END_TEST

/* ---- with xattr=map ---- */

static void client_maps(void)
{
	struct vfs_cap_data got;
	char buf[300], longname[XATTR_NAME_MAX + 1];

	ck_assert_int_eq(setx("security.capability", &xh_fcap, sizeof(xh_fcap)), 0);
	ck_assert_int_eq(setx("trusted.foo", "guest", 5), 0);
	ck_assert_int_eq(getx("security.capability", NULL, 0), (int)sizeof(xh_fcap));
	ck_assert_int_eq(getx("security.capability", &got, sizeof(got)), (int)sizeof(xh_fcap));
	ck_assert_int_eq(memcmp(&got, &xh_fcap, sizeof(xh_fcap)), 0);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(getx("trusted.foo", buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "guest");       /* the client's, not the host's */
	ck_assert_int_eq(getx("security.stainless_test", buf, sizeof(buf)), -ENODATA);
	/* The prefix stays reserved: reachable through the mapping only. */
	ck_assert_int_eq(getx("user.stainless.security.capability", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(setx("user.stainless.trusted.foo", "v", 1), -EPERM);

	/* Listed under the client's names; the host's own stay out. */
	static const char want[] = "security.capability\0trusted.foo\0user.plain\0"
				   "security.selinux\0";
	int n = getx(NULL, NULL, 0);
	ck_assert_int_eq(n, (int)sizeof(want) - 1);
	ck_assert_int_eq(getx(NULL, buf, (uint32_t)n), n);
	for (const char *w = want; *w; w += strlen(w) + 1)
		ck_assert_msg(memmem(buf, (size_t)n, w, strlen(w) + 1), "%s not listed", w);
	ck_assert_int_eq(getx(NULL, buf, (uint32_t)n - 1), -ERANGE);

	/* A name the prefix would push past XATTR_NAME_MAX cannot be stored. */
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "security.", 9);
	longname[XATTR_NAME_MAX - strlen(FS_XATTR_PRIVATE) + 1] = '\0';
	ck_assert_int_eq(setx(longname, "v", 1), -ERANGE);
	ck_assert_int_eq(getx(longname, buf, sizeof(buf)), -ENODATA);
}

static void client_removes_mapped(void)
{
	ck_assert_int_eq(removex("security.capability"), 0);
	ck_assert_int_eq(removex("security.capability"), -ENODATA);
}

START_TEST(t_mapped)
{
	char buf[64];

	plant_host_names();
	start(true);
	on_thread(client_maps);
	xh_check_mapped_on_host();
	on_thread(client_removes_mapped);
	ck_assert_int_eq(host_get("user.stainless.security.capability", buf, sizeof(buf)),
			 -ENODATA);
}
END_TEST

/* ---- capabilities ---- */

static void one_getattr(void)
{
	struct fuse_attr a;

	ck_assert_int_eq(tf_getattr(node, &a), 0);
}

START_TEST(t_serving_thread_caps)
{
	start(false);
	xh_check_serving_thread_caps(one_getattr);
}
END_TEST

static Suite *fuse_xattr_suite(void)
{
	Suite *s = suite_create("fuse_xattr");
	TCase *tc = tcase_create("policy");

	tcase_add_checked_fixture(tc, setup, tf_teardown);
	tcase_add_test(tc, t_set_refused);
	tcase_add_test(tc, t_host_names_hidden);
	tcase_add_test(tc, t_mapped);
	tcase_add_test(tc, t_serving_thread_caps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(fuse_xattr_suite());
}
