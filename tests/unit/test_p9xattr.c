// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 9p server's xattr policy (fs/fs_xattr.h) against a real host
 * directory, and what a serving thread keeps of the capabilities: the
 * twin of test_fuse_xattr.c through Txattrcreate/Twrite/Tclunk (set and,
 * with size 0, remove) and Txattrwalk (get, and list with an empty name).
 * Requests run on threads of their own (on_thread.h) so the test's thread
 * keeps CAP_SYS_ADMIN to plant and inspect trusted.* on the host.
 */
#include "tests/unit/check_main.h"
#include "tests/unit/test_p9_client.h"
#include "tests/unit/on_thread.h"
#include "tests/unit/xattr_host.h"

#include <linux/capability.h>
#include <linux/limits.h>
#include <sys/prctl.h>

#include "fs/fs_xattr.h"
#include "fs/resolve.h"


static void attach_and_walk(void)
{
	uint32_t msize;
	char v[64];

	ck_assert_int_eq(t_version(P9_MSIZE_MAX, "9P2000.L", &msize, v), 0);
	ck_assert_int_eq(t_attach(0, "", 0), 0);
	ck_assert_int_eq(walk1(0, 1, "f"), 1);   /* fid 1: the file */
}

/* A server for root; a serving thread attaches (fid 0) and walks to "f" (fid 1). */
static void start(bool map)
{
	struct fs_options o;

	fs_options_default(&o);
	o.xattr_map = map;
	ck_assert_int_eq(p9_server_create(&srv, root, &o), 0);
	ck_assert_int_eq(p9_session_create(&ses, srv, BUFSZ), 0);
	on_thread(attach_and_walk);
}

static void xsetup(void)
{
	strcpy(root, "/tmp/test_p9xattr.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	mkfile("f", "x");
	char fpath[PATH_MAX];
	path_of(fpath, "f");
	xh_init(fpath);
}

/* Txattrcreate on a clone of fid 1, the value, and the Tclunk that commits. */
static int xset(const char *name, const void *val, uint32_t len)
{
	int err;

	ck_assert_int_eq(t_walk(1, 9, 0, NULL, NULL), 0);
	begin(P9_TXATTRCREATE);
	p9_put_u32(&W, 9);
	put_str(name);
	p9_put_u64(&W, len);
	p9_put_u32(&W, 0);
	err = call(NULL);
	if (err) {
		ck_assert_int_eq(t_clunk(9), 0);
		return err;
	}
	if (len)
		ck_assert_int_eq(t_write(9, 0, val, len), (int)len);
	return t_clunk(9);
}

/* Txattrwalk of fid 1 ("" lists) and the reads: bytes or -errno. */
static int xget(const char *name, void *buf, size_t sz)
{
	struct p9_rbuf r;

	begin(P9_TXATTRWALK);
	p9_put_u32(&W, 1);
	p9_put_u32(&W, 8);
	put_str(name);
	int err = call(&r);
	if (err)
		return err;
	uint64_t size = p9_get_u64(&r);
	ck_assert_uint_le(size, sz);
	int n = t_read(8, 0, (uint32_t)sz, buf);
	ck_assert_int_eq(n, (int)size);
	ck_assert_int_eq(t_clunk(8), 0);
	return n;
}

/* ---- without --xattr-map ---- */

static void client_sets_privileged(void)
{
	ck_assert_int_eq(xset("security.capability", &xh_fcap, sizeof(xh_fcap)), -EOPNOTSUPP);
	ck_assert_int_eq(xset("trusted.foo", "v", 1), -EOPNOTSUPP);
	ck_assert_int_eq(xset("trusted.foo", NULL, 0), -EOPNOTSUPP);   /* remove */
	ck_assert_int_eq(xset("system.other", "v", 1), -EOPNOTSUPP);
	ck_assert_int_eq(xset("user.stainless.x", "v", 1), -EPERM);
	ck_assert_int_eq(xset("user.stainless.security.capability", &xh_fcap, sizeof(xh_fcap)), -EPERM);
	ck_assert_int_eq(xset("user.stainless.x", NULL, 0), -EPERM);
	ck_assert_int_eq(xset("user.ok", "v", 1), 0);
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
}
END_TEST

static void client_reads_host_names(void)
{
	char buf[256];

	ck_assert_int_eq(xget("trusted.foo", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(xget("security.stainless_test", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(xget("user.stainless.security.selinux", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(xget("user.stainless.junk", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(xget("user.plain", buf, sizeof(buf)), 1);
	/* The list holds the client's names only. */
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(xget("", buf, sizeof(buf)), 11);
	ck_assert_int_eq(memcmp(buf, "user.plain", 11), 0);
}

START_TEST(t_host_names_hidden)
{
	plant_host_names();
	start(false);
	on_thread(client_reads_host_names);
}
END_TEST

/* ---- with --xattr-map ---- */

static void client_maps(void)
{
	struct vfs_cap_data got;
	char buf[300], longname[XATTR_NAME_MAX + 1];

	ck_assert_int_eq(xset("security.capability", &xh_fcap, sizeof(xh_fcap)), 0);
	ck_assert_int_eq(xset("trusted.foo", "guest", 5), 0);
	ck_assert_int_eq(xget("security.capability", &got, sizeof(got)), (int)sizeof(xh_fcap));
	ck_assert_int_eq(memcmp(&got, &xh_fcap, sizeof(xh_fcap)), 0);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(xget("trusted.foo", buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "guest");
	ck_assert_int_eq(xget("security.stainless_test", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(xget("user.stainless.security.capability", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(xset("user.stainless.trusted.foo", "v", 1), -EPERM);

	static const char want[] = "security.capability\0trusted.foo\0user.plain\0"
				   "security.selinux\0";
	int n = xget("", buf, sizeof(buf));
	ck_assert_int_eq(n, (int)sizeof(want) - 1);
	for (const char *w = want; *w; w += strlen(w) + 1)
		ck_assert_msg(memmem(buf, (size_t)n, w, strlen(w) + 1), "%s not listed", w);

	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "security.", 9);
	longname[XATTR_NAME_MAX - strlen(FS_XATTR_PRIVATE) + 1] = '\0';
	ck_assert_int_eq(xset(longname, "v", 1), -ERANGE);
	ck_assert_int_eq(xget(longname, buf, sizeof(buf)), -ENODATA);
}

static void client_removes_mapped(void)
{
	ck_assert_int_eq(xset("security.capability", NULL, 0), 0);
	ck_assert_int_eq(xset("security.capability", NULL, 0), -ENODATA);
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
	ck_assert_int_eq(t_getattr(1, NULL, NULL, NULL), 0);
}

START_TEST(t_serving_thread_caps)
{
	start(false);
	xh_check_serving_thread_caps(one_getattr);
}
END_TEST

static Suite *p9xattr_suite(void)
{
	Suite *s = suite_create("p9xattr");
	TCase *tc = tcase_create("policy");

	tcase_add_checked_fixture(tc, xsetup, teardown);
	tcase_add_test(tc, t_set_refused);
	tcase_add_test(tc, t_host_names_hidden);
	tcase_add_test(tc, t_mapped);
	tcase_add_test(tc, t_serving_thread_caps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(p9xattr_suite());
}
