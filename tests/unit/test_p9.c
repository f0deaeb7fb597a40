// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 9P2000.L server's session and naming rules, driven through
 * p9_handle() against a temporary directory: Tversion, Tauth, Tattach,
 * Twalk (partial walks, "..", the sandbox), fids, credentials, read-only
 * shares, and every bad input a client or guest can send. Each test fails
 * if the check it covers is removed. Operations: test_p9ops.c.
 */
#include "tests/unit/check_main.h"
#include "tests/unit/submount.h"
#include "tests/unit/test_p9_client.h"

#include <sched.h>
#include <sys/mount.h>

/* ---- Tversion / Tauth / Tattach ---- */

START_TEST(test_version_negotiates_down)
{
	uint32_t msize;
	char v[64];

	ck_assert_int_eq(t_version(8192, "9P2000.L", &msize, v), 0);
	ck_assert_uint_eq(msize, 8192);
	ck_assert_str_eq(v, "9P2000.L");
	ck_assert_uint_eq(p9_session_msize(ses), 8192);
	/* The server's own limit wins over a larger client offer. */
	ck_assert_int_eq(t_version(P9_MSIZE_MAX, "9P2000.L", &msize, v), 0);
	ck_assert_uint_eq(msize, P9_MSIZE_DEFAULT);
}
END_TEST

START_TEST(test_version_unknown)
{
	uint32_t msize;
	char v[64];

	ck_assert_int_eq(t_version(8192, "9P2000.u", &msize, v), 0);
	ck_assert_str_eq(v, "unknown");
	/* Nothing else is served until a version is agreed. */
	ck_assert_int_eq(t_attach(1, "", 0), -EPROTO);
}
END_TEST

START_TEST(test_version_msize_too_small)
{
	uint32_t msize;
	char v[64];

	ck_assert_int_eq(t_version(4095, "9P2000.L", &msize, v), -EINVAL);
	ck_assert_int_eq(t_version(4096, "9P2000.L", &msize, v), 0);
	ck_assert_uint_eq(msize, 4096);
}
END_TEST

START_TEST(test_version_resets_fids)
{
	uint32_t msize;
	char v[64];

	ck_assert_int_eq(t_getattr(0, NULL, NULL, NULL), 0);
	ck_assert_int_eq(t_version(65536, "9P2000.L", &msize, v), 0);
	ck_assert_int_eq(t_getattr(0, NULL, NULL, NULL), -EBADF);
}
END_TEST

START_TEST(test_first_message_must_be_version)
{
	struct p9_session *fresh;

	ck_assert_int_eq(p9_session_create(&fresh, srv, BUFSZ), 0);
	struct p9_session *keep = ses;
	ses = fresh;
	ck_assert_int_eq(t_attach(0, "", 0), -EPROTO);
	ses = keep;
	p9_session_destroy(fresh);
	ck_assert_int_eq(p9_session_create(&fresh, srv, 4095), -EINVAL);
}
END_TEST

START_TEST(test_auth_not_required)
{
	begin(P9_TAUTH);
	p9_put_u32(&W, 5);
	put_str("");
	put_str("");
	p9_put_u32(&W, 0);
	ck_assert_int_eq(call(NULL), -ENOENT);
}
END_TEST

START_TEST(test_attach_anames)
{
	char withslash[80];

	ck_assert_int_eq(t_attach(1, "/", 0), 0);
	ck_assert_int_eq(t_attach(2, root, 0), 0);
	snprintf(withslash, sizeof(withslash), "%s/", root);
	ck_assert_int_eq(t_attach(3, withslash, 0), 0);
	ck_assert_int_eq(t_attach(4, "ctl", 0), 0);
	ck_assert_int_eq(t_attach(5, "/etc", 0), -ENOENT);
	ck_assert_int_eq(t_attach(6, "other", 0), -ENOENT);
	ck_assert_int_eq(t_getattr(6, NULL, NULL, NULL), -EBADF);
}
END_TEST

START_TEST(test_attach_fid_in_use)
{
	ck_assert_int_eq(t_attach(0, "", 0), -EEXIST);
	/* NOFID names no fid; every other number is the client's to use. */
	ck_assert_int_eq(t_attach(P9_NOFID, "", 0), -EINVAL);
	ck_assert_int_eq(t_attach(P9_NOFID - 1, "", 0), 0);
	ck_assert_int_eq(t_attach(65536, "", 0), 0);
}
END_TEST

/* ---- Twalk ---- */

START_TEST(test_walk_basic)
{
	const char *names[] = { "d", "f" };
	struct p9_qid q[2];
	char p[PATH_MAX];
	struct stat st;

	path_of(p, "d");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	mkfile("d/f", "x");
	ck_assert_int_eq(t_walk(0, 1, 2, names, q), 2);
	ck_assert_uint_eq(q[0].type, P9_QTDIR);
	ck_assert_uint_eq(q[1].type, P9_QTFILE);
	path_of(p, "d/f");
	ck_assert_int_eq(stat(p, &st), 0);
	/* The root's device gets prefix 0: the qid is the inode itself. */
	ck_assert(q[1].path == (uint64_t)st.st_ino);
	ck_assert(q[0].path != q[1].path);
	/* Clone with no names. */
	ck_assert_int_eq(t_walk(1, 2, 0, NULL, NULL), 0);
	ck_assert_int_eq(t_getattr(2, NULL, NULL, NULL), 0);
}
END_TEST

/* tmpfs mounted at "m" in a mount namespace of this forked test's own. */
static const char *submount_failed;

static void make_submount(void)
{
	char p[PATH_MAX];

	path_of(p, "m");
	submount_failed = submount_make(p);
}

static void setup_submount(void)
{
	p9t_before_serving = make_submount;
	setup();
}

static void teardown_submount(void)
{
	submount_undo();        /* first: the share cannot go while mounted on */
	teardown();
}

START_TEST(test_qid_unique_across_mounts)
{
	char p[PATH_MAX];
	struct p9_qid rootq, q;
	struct stat st;

	if (submount_failed)
		UNIT_SKIP("%s", submount_failed);
	path_of(p, "m");
	int e1 = t_getattr(0, NULL, NULL, &rootq);
	int e2 = walk1(0, 1, "m");
	int e3 = t_getattr(1, NULL, NULL, &q);
	int e4 = stat(p, &st);
	t_clunk(1);
	ck_assert(e1 == 0 && e2 == 1 && e3 == 0 && e4 == 0);
	/* Another device: another prefix above the inode bits. */
	ck_assert((q.path & 0xffffffffffffull) == (uint64_t)st.st_ino);
	ck_assert((q.path >> 48) != (rootq.path >> 48));
	ck_assert(q.path != rootq.path);
}
END_TEST

START_TEST(test_walk_partial)
{
	const char *names[] = { "d", "missing", "x" };

	char p[PATH_MAX];
	path_of(p, "d");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(t_walk(0, 1, 3, names, NULL), 1);
	/* newfid is not created by a partial walk. */
	ck_assert_int_eq(t_clunk(1), -EBADF);
	/* The first element failing is an error. */
	ck_assert_int_eq(walk1(0, 1, "missing"), -ENOENT);
}
END_TEST

START_TEST(test_walk_newfid_equal_fid)
{
	mkfile("f", "x");
	ck_assert_int_eq(t_walk(0, 1, 0, NULL, NULL), 0);
	ck_assert_int_eq(walk1(1, 1, "f"), 1);
	uint32_t mode;
	ck_assert_int_eq(t_getattr(1, &mode, NULL, NULL), 0);
	ck_assert(S_ISREG(mode));
	/* newfid in use by another fid is refused. */
	ck_assert_int_eq(walk1(0, 1, "f"), -EEXIST);
}
END_TEST

START_TEST(test_walk_dotdot)
{
	char p[PATH_MAX];
	struct p9_qid rootq, q[2];
	const char *up[] = { "d", ".." };

	path_of(p, "d");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(t_getattr(0, NULL, NULL, &rootq), 0);
	ck_assert_int_eq(t_walk(0, 1, 2, up, q), 2);
	ck_assert(q[1].path == rootq.path);
	/* Never above the root: an error at the first element... */
	ck_assert_int_eq(walk1(0, 2, ".."), -EXDEV);
	/* ...and a partial walk after it. */
	const char *esc[] = { "d", "..", ".." };
	ck_assert_int_eq(t_walk(0, 2, 3, esc, NULL), 2);
	ck_assert_int_eq(t_clunk(2), -EBADF);
}
END_TEST

START_TEST(test_walk_dotdot_of_moved_dir)
{
	/*
	 * A directory a host process moved out of the share: neither ".." nor
	 * a name in it may be followed (it is no longer the share's).
	 */
	char p[PATH_MAX], out[PATH_MAX], f[PATH_MAX + 8];
	path_of(p, "d");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(walk1(0, 1, "d"), 1);
	snprintf(out, sizeof(out), "%s.moved", root);
	ck_assert_int_eq(rename(p, out), 0);
	snprintf(f, sizeof(f), "%s/f", out);
	ck_assert_int_eq(close(open(f, O_CREAT | O_WRONLY, 0644)), 0);
	ck_assert_int_eq(walk1(1, 2, ".."), -ESTALE);
	ck_assert_int_eq(walk1(1, 2, "f"), -ESTALE);
	unlink(f);
	rmdir(out);
}
END_TEST

START_TEST(test_walk_bad_names)
{
	mkfile("f", "x");
	ck_assert_int_eq(walk1(0, 1, "a/b"), -EINVAL);
	ck_assert_int_eq(walk1(0, 1, "/"), -EINVAL);
	ck_assert_int_eq(walk1(0, 1, ""), -EINVAL);
	/* A NUL inside a name would silently shorten it to "f". */
	begin(P9_TWALK);
	p9_put_u32(&W, 0);
	p9_put_u32(&W, 1);
	p9_put_u16(&W, 1);
	p9_put_str(&W, "f\0g", 3);
	ck_assert_int_eq(call(NULL), -EINVAL);
	char longname[NAME_MAX + 2];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[NAME_MAX + 1] = '\0';
	ck_assert_int_eq(walk1(0, 1, longname), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_walk_too_many_names)
{
	const char *names[17];
	for (int i = 0; i < 17; i++)
		names[i] = "x";
	ck_assert_int_eq(t_walk(0, 1, 17, names, NULL), -EINVAL);
}
END_TEST

START_TEST(test_walk_symlink_not_followed)
{
	char p[PATH_MAX];
	struct p9_qid q[2];
	const char *names[] = { "esc", "passwd" };

	path_of(p, "esc");
	ck_assert_int_eq(symlink("/etc", p), 0);
	ck_assert_int_eq(t_walk(0, 1, 2, names, q), 1);
	ck_assert_uint_eq(q[0].type, P9_QTSYMLINK);
	path_of(p, "abs");
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	ck_assert_int_eq(walk1(0, 1, "abs"), 1);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY), -ELOOP);
}
END_TEST

START_TEST(test_walk_from_file_fails)
{
	mkfile("f", "x");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(walk1(1, 2, "x"), -ENOTDIR);
}
END_TEST

START_TEST(test_fid_not_attached_or_clunked)
{
	ck_assert_int_eq(t_getattr(7, NULL, NULL, NULL), -EBADF);
	ck_assert_int_eq(walk1(7, 8, "x"), -EBADF);
	ck_assert_int_eq(t_walk(0, 1, 0, NULL, NULL), 0);
	ck_assert_int_eq(t_clunk(1), 0);
	ck_assert_int_eq(t_clunk(1), -EBADF);
	ck_assert_int_eq(t_getattr(1, NULL, NULL, NULL), -EBADF);
	ck_assert_int_eq(t_lopen(1, 0), -EBADF);
	ck_assert_int_eq(t_getattr(1000000, NULL, NULL, NULL), -EBADF);
}
END_TEST

/* ---- framing and bad input ---- */

START_TEST(test_short_message)
{
	uint8_t msg[6] = { 6, 0, 0, 0, P9_TCLUNK, 1 };
	struct p9_rbuf r;

	for (size_t len = 0; len < P9_HDRSZ; len++)
		ck_assert_int_eq(parse_reply(handle_raw(msg, len), P9_NOTAG, 0, &r), -EINVAL);
	/* A header with a body too short for its fields. */
	uint8_t clunk[9];
	p9_put_hdr(clunk, sizeof(clunk), P9_TCLUNK, 9);
	ck_assert_int_eq(parse_reply(handle_raw(clunk, sizeof(clunk)), 9, P9_TCLUNK, &r), -EPROTO);
	/* Still serving. */
	ck_assert_int_eq(t_getattr(0, NULL, NULL, NULL), 0);
}
END_TEST

START_TEST(test_size_field_disagrees)
{
	struct p9_rbuf r;

	begin(P9_TCLUNK);
	p9_put_u32(&W, 0);
	p9_put_hdr(reqbuf, (uint32_t)W.pos + 1, P9_TCLUNK, 3);
	ck_assert_int_eq(parse_reply(handle_raw(reqbuf, W.pos), 3, P9_TCLUNK, &r), -EINVAL);
	p9_put_hdr(reqbuf, (uint32_t)W.pos - 1, P9_TCLUNK, 3);
	ck_assert_int_eq(parse_reply(handle_raw(reqbuf, W.pos), 3, P9_TCLUNK, &r), -EINVAL);
	ck_assert_int_eq(t_getattr(0, NULL, NULL, NULL), 0);
}
END_TEST

START_TEST(test_string_longer_than_message)
{
	begin(P9_TWALK);
	p9_put_u32(&W, 0);
	p9_put_u32(&W, 1);
	p9_put_u16(&W, 1);
	p9_put_u16(&W, 200);    /* claims 200 bytes */
	p9_put_reserve(&W, 3);
	ck_assert_int_eq(call(NULL), -EPROTO);
	ck_assert_int_eq(t_clunk(1), -EBADF);
}
END_TEST

START_TEST(test_unknown_types)
{
	static const uint8_t types[] = { 0, 5, 200, 255, P9_RVERSION, P9_RLERROR, P9_TOPEN,
					 P9_TCREATE, P9_TSTAT, P9_TWSTAT, P9_TERROR };
	for (unsigned i = 0; i < sizeof(types); i++) {
		begin(types[i]);
		p9_put_u32(&W, 0);
		ck_assert_int_eq(call(NULL), -EOPNOTSUPP);
	}
	ck_assert_int_eq(t_getattr(0, NULL, NULL, NULL), 0);
}
END_TEST

START_TEST(test_message_above_msize)
{
	uint32_t msize;
	char v[64];

	ck_assert_int_eq(t_version(4096, "9P2000.L", &msize, v), 0);
	ck_assert_int_eq(t_attach(0, "", 0), 0);
	mkfile("f", "");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDWR), 0);
	static uint8_t data[5000];
	ck_assert_int_eq(t_write(1, 0, data, sizeof(data)), -EMSGSIZE);
	ck_assert_int_eq(t_write(1, 0, data, 4000), 4000);
	ck_assert_int_eq(t_write(1, 4000, data, 4000), 4000);
	/* Reads are capped to what fits in msize. */
	ck_assert_int_eq(t_read(1, 0, 100000, data), 4096 - 11);
}
END_TEST

START_TEST(test_reply_does_not_fit)
{
	struct p9_rbuf r;

	out_cap = P9_HDRSZ + 8;    /* room for Rlerror, not for Rgetattr */
	begin(P9_TGETATTR);
	p9_put_u32(&W, 0);
	p9_put_u64(&W, P9_GETATTR_BASIC);
	ck_assert_int_eq(call(&r), -ERANGE);
	out_cap = 4;               /* not even Rlerror */
	p9_put_hdr(reqbuf, (uint32_t)W.pos, P9_TGETATTR, 3);
	ck_assert_int_eq(handle_raw(reqbuf, W.pos), 0);
	out_cap = BUFSZ;
	ck_assert_int_eq(t_getattr(0, NULL, NULL, NULL), 0);
}
END_TEST

START_TEST(test_split_iovecs_everywhere)
{
	static const char text[] = "split across many tiny iovecs";
	char back[64];

	for (unsigned sz = 1; sz <= 13; sz += 3) {
		split = sz;
		ck_assert_int_eq(t_lcreate(0, "f", P9_DOTL_RDWR, 0644), 0);
		ck_assert_int_eq(t_write(0, 0, text, sizeof(text)), (int)sizeof(text));
		/* A read that a slice of 128 entries cannot hold is short, never wrong. */
		int n = t_read(0, 0, sizeof(text), back);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(memcmp(back, text, (size_t)n), 0);
		ck_assert_int_eq(t_clunk(0), 0);
		split = 0;
		ck_assert_int_eq(t_attach(0, "", 0), 0);
		ck_assert_int_eq(t_unlinkat(0, "f", 0), 0);
	}
}
END_TEST

/* ---- credentials and read-only shares ---- */

START_TEST(test_credentials_from_attach)
{
	char p[PATH_MAX];

	if (geteuid() != 0)
		UNIT_SKIP("not root: credentials only switch when the server runs as root");
	ck_assert_int_eq(chmod(root, 0755), 0);
	path_of(p, "private");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(t_attach(1, "", 65534), 0);
	ck_assert_int_eq(walk1(1, 2, "private"), 1);
	ck_assert_int_eq(t_lopen(2, P9_DOTL_RDONLY | P9_DOTL_DIRECTORY), -EACCES);
	ck_assert_int_eq(t_mkdir(1, "nope", 0755), -EACCES);
	/* Root's fid still works on the same thread right after. */
	ck_assert_int_eq(walk1(0, 3, "private"), 1);
	ck_assert_int_eq(t_lopen(3, P9_DOTL_RDONLY), 0);
	ck_assert_int_eq(t_mkdir(0, "yes", 0755), 0);
}
END_TEST

START_TEST(test_readonly_share)
{
	mkfile("f", "data");
	ck_assert_int_eq(t_lcreate(0, "g", P9_DOTL_RDWR, 0644), -EROFS);
	ck_assert_int_eq(t_mkdir(0, "d", 0755), -EROFS);
	ck_assert_int_eq(t_unlinkat(0, "f", 0), -EROFS);
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_WRONLY), -EROFS);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY | P9_DOTL_TRUNC), -EROFS);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY), 0);
	char buf[8];
	ck_assert_int_eq(t_read(1, 0, sizeof(buf), buf), 4);
	begin(P9_TSETATTR);
	p9_put_u32(&W, 1);
	p9_put_u32(&W, P9_SETATTR_MODE);
	p9_put_u32(&W, 0600);
	for (int i = 0; i < 2; i++)
		p9_put_u32(&W, 0);
	for (int i = 0; i < 5; i++)
		p9_put_u64(&W, 0);
	ck_assert_int_eq(call(NULL), -EROFS);
}
END_TEST

static Suite *p9_suite(void)
{
	Suite *s = suite_create("p9");
	TCase *tc = tcase_create("session");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_version_negotiates_down);
	tcase_add_test(tc, test_version_unknown);
	tcase_add_test(tc, test_version_msize_too_small);
	tcase_add_test(tc, test_version_resets_fids);
	tcase_add_test(tc, test_first_message_must_be_version);
	tcase_add_test(tc, test_auth_not_required);
	tcase_add_test(tc, test_attach_anames);
	tcase_add_test(tc, test_attach_fid_in_use);
	tcase_add_test(tc, test_credentials_from_attach);
	suite_add_tcase(s, tc);

	tc = tcase_create("walk");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_walk_basic);
	tcase_add_test(tc, test_walk_partial);
	tcase_add_test(tc, test_walk_newfid_equal_fid);
	tcase_add_test(tc, test_walk_dotdot);
	tcase_add_test(tc, test_walk_dotdot_of_moved_dir);
	tcase_add_test(tc, test_walk_bad_names);
	tcase_add_test(tc, test_walk_too_many_names);
	tcase_add_test(tc, test_walk_symlink_not_followed);
	tcase_add_test(tc, test_walk_from_file_fails);
	tcase_add_test(tc, test_fid_not_attached_or_clunked);
	suite_add_tcase(s, tc);

	tc = tcase_create("submounts");
	tcase_add_checked_fixture(tc, setup_submount, teardown_submount);
	tcase_add_test(tc, test_qid_unique_across_mounts);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_short_message);
	tcase_add_test(tc, test_size_field_disagrees);
	tcase_add_test(tc, test_string_longer_than_message);
	tcase_add_test(tc, test_unknown_types);
	tcase_add_test(tc, test_message_above_msize);
	tcase_add_test(tc, test_reply_does_not_fit);
	tcase_add_test(tc, test_split_iovecs_everywhere);
	suite_add_tcase(s, tc);

	tc = tcase_create("readonly");
	tcase_add_checked_fixture(tc, setup_ro, teardown);
	tcase_add_test(tc, test_readonly_share);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(p9_suite());
}
