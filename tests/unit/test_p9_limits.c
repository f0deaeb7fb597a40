// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a 9p client may make the server hold, driven through p9_handle():
 * fid numbers are the client's (any u32 but NOFID) while the count of live
 * fids is bounded (P9_MAX_LIVE_FIDS, EMFILE); host memory pinned for a
 * session is bounded by P9_SESSION_BYTES (ENOMEM) and given back on clunk;
 * every fd a fid keeps comes from the process-wide fd budget (ENFILE when
 * spent, the rest still served); a session told its peer's uid lets only a
 * root peer attach as someone else. Each test fails if its rule is removed.
 */
#include "tests/unit/check_main.h"
#include "tests/unit/test_p9_client.h"

#include <sys/resource.h>

#include "fs/fs_fdbudget.h"
#include "fs/9p/p9_impl.h"

#define XBIG 65536u

/* Txattrwalk: a new fid holding a value (or the list, for ""), no fd. */
static int t_xattrwalk(uint32_t fid, uint32_t newfid, const char *name)
{
	begin(P9_TXATTRWALK);
	p9_put_u32(&W, fid);
	p9_put_u32(&W, newfid);
	put_str(name);
	return call(NULL);
}

static int t_xattrcreate(uint32_t fid, const char *name, uint64_t size)
{
	begin(P9_TXATTRCREATE);
	p9_put_u32(&W, fid);
	put_str(name);
	p9_put_u64(&W, size);
	p9_put_u32(&W, 0);
	return call(NULL);
}

/* Reads an opened directory fid from offset 0: is name among the entries? */
static bool readdir_has(uint32_t fid, const char *name)
{
	struct p9_rbuf r;
	bool found = false;

	begin(P9_TREADDIR);
	p9_put_u32(&W, fid);
	p9_put_u64(&W, 0);
	p9_put_u32(&W, 8192);
	ck_assert_int_eq(call(&r), 0);
	uint32_t n = p9_get_u32(&r);
	ck_assert_uint_eq(p9_rbuf_left(&r), n);
	while (p9_rbuf_left(&r)) {
		struct p9_qid q;
		struct p9_str s;
		p9_get_qid(&r, &q);
		p9_get_u64(&r);
		p9_get_u8(&r);
		p9_get_str(&r, &s);
		ck_assert_int_eq(p9_rbuf_error(&r), 0);
		found |= p9_str_eq(&s, name);
	}
	return found;
}

/* Enough fds for a test that walks thousands of fids. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = rl.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	fs_fd_set_limit(fs_fd_limit_for(rl.rlim_cur));
}

/* ---- fid numbers ---- */

START_TEST(test_any_fid_number)
{
	static const uint32_t fids[] = { 0x10000, 0x80000000u, 0xfffffffeu };
	char p[PATH_MAX], buf[64];

	ck_assert_int_eq(t_mkdir(0, "d", 0755), 0);
	mkfile("d/f", "data");
	for (unsigned i = 0; i < sizeof(fids) / sizeof(fids[0]); i++) {
		uint32_t f = fids[i], g = f ^ 2;
		char name[32];
		ck_assert_int_eq(walk1(0, f, "d"), 1);
		ck_assert_int_eq(t_lopen(f, P9_DOTL_RDONLY | P9_DOTL_DIRECTORY), 0);
		ck_assert(readdir_has(f, "f"));
		/* Walk onwards from the big number, and read. */
		ck_assert_int_eq(walk1(f, g, "f"), 1);
		ck_assert_int_eq(t_lopen(g, P9_DOTL_RDONLY), 0);
		ck_assert_int_eq(t_read(g, 0, sizeof(buf), buf), 4);
		ck_assert_int_eq(memcmp(buf, "data", 4), 0);
		ck_assert_int_eq(t_clunk(g), 0);
		ck_assert_int_eq(t_clunk(f), 0);
		ck_assert_int_eq(t_getattr(f, NULL, NULL, NULL), -EBADF);
		/* The same number again, for a new file. */
		snprintf(name, sizeof(name), "new%x", f);
		ck_assert_int_eq(walk1(0, f, "d"), 1);
		ck_assert_int_eq(t_lcreate(f, name, P9_DOTL_RDWR | P9_DOTL_CREATE, 0644), 0);
		ck_assert_int_eq(t_write(f, 0, "xy", 2), 2);
		ck_assert_int_eq(t_clunk(f), 0);
		ck_assert_int_eq(t_clunk(f), -EBADF);
		snprintf(buf, sizeof(buf), "d/%s", name);
		path_of(p, buf);
		struct stat st;
		ck_assert_int_eq(stat(p, &st), 0);
		ck_assert_int_eq(st.st_size, 2);
	}
}
END_TEST

START_TEST(test_nofid_refused)
{
	ck_assert_int_eq(t_walk(0, P9_NOFID, 0, NULL, NULL), -EINVAL);
	ck_assert_int_eq(t_attach(P9_NOFID, "", 0), -EINVAL);
	ck_assert_int_eq(t_xattrwalk(0, P9_NOFID, ""), -EINVAL);
	ck_assert_int_eq(t_getattr(P9_NOFID, NULL, NULL, NULL), -EBADF);
}
END_TEST

/* Numbers that a careless hash would pile into one slot, then holes in them. */
START_TEST(test_patterned_fid_numbers)
{
	enum { N = 4000 };
	static uint32_t num[N];
	char buf[16];

	for (uint32_t i = 0; i < N; i++) {
		num[i] = i % 4 == 0 ? (i + 1) << 16 : i % 4 == 1 ? (i << 20) | 1
		       : i % 4 == 2 ? 0xfffffffeu - i : 0x1000 + i;
		ck_assert_int_eq(t_xattrwalk(0, num[i], ""), 0);
	}
	for (uint32_t i = 0; i < N; i += 3)
		ck_assert_int_eq(t_clunk(num[i]), 0);
	for (uint32_t i = 0; i < N; i++) {
		if (i % 3 == 0)
			ck_assert_int_eq(t_read(num[i], 0, sizeof(buf), buf), -EBADF);
		else
			ck_assert_int_ge(t_read(num[i], 0, sizeof(buf), buf), 0);
	}
}
END_TEST

/* ---- live fids ---- */

START_TEST(test_live_fid_bound)
{
	uint32_t made = 0, fid = 1;
	int err = 0;

	/* Txattrwalk fids hold no fd, so only the count bound can stop them. */
	for (; fid <= P9_MAX_LIVE_FIDS + 8; fid++) {
		err = t_xattrwalk(0, fid, "");
		if (err)
			break;
		made++;
	}
	ck_assert_int_eq(err, -EMFILE);
	ck_assert_uint_eq(made + 1, P9_MAX_LIVE_FIDS);    /* fid 0 is the root */
	ck_assert_int_eq(t_walk(0, fid, 0, NULL, NULL), -EMFILE);
	ck_assert_int_eq(t_attach(fid, "", 0), -EMFILE);
	/* Clunking makes room for exactly one more. */
	ck_assert_int_eq(t_clunk(7), 0);
	ck_assert_int_eq(t_walk(0, fid, 0, NULL, NULL), 0);
	ck_assert_int_eq(t_walk(0, fid + 1, 0, NULL, NULL), -EMFILE);
	ck_assert_int_eq(t_getattr(fid, NULL, NULL, NULL), 0);
}
END_TEST

/* ---- the byte budget ---- */

START_TEST(test_xattrcreate_budget)
{
	uint32_t fid, made = 0;
	int err = 0;

	raise_fd_limit();
	for (fid = 1; fid <= 2000; fid++) {
		err = t_walk(0, fid, 0, NULL, NULL);
		if (!err)
			err = t_xattrcreate(fid, "user.big", XBIG);
		if (err)
			break;
		made++;
	}
	/* Refused at the budget, far below the 125 MiB 2,000 would pin. */
	ck_assert_int_eq(err, -ENOMEM);
	ck_assert_uint_le((size_t)made * XBIG, P9_SESSION_BYTES);
	ck_assert_uint_ge((size_t)made * XBIG, P9_SESSION_BYTES / 2);
	/* The rest is still served. */
	ck_assert_int_eq(t_getattr(0, NULL, NULL, NULL), 0);
	/* Clunks refund: as many fit again. */
	for (uint32_t f = 1; f <= fid; f++)
		ck_assert_int_ne(t_clunk(f), -EPROTO);
	for (fid = 1; fid <= made; fid++) {
		ck_assert_int_eq(t_walk(0, fid, 0, NULL, NULL), 0);
		ck_assert_int_eq(t_xattrcreate(fid, "user.big", XBIG), 0);
	}
}
END_TEST

START_TEST(test_xattrwalk_budget)
{
	/* ext4 keeps a file's xattrs in one block: 3,000 bytes fit anywhere. */
	static char big[3000];
	char p[PATH_MAX];
	uint32_t fid, made = 0;
	int err = 0;

	mkfile("f", "");
	path_of(p, "f");
	memset(big, 'v', sizeof(big));
	if (setxattr(p, "user.big", big, sizeof(big), 0) < 0 && errno == ENOTSUP)
		UNIT_SKIP("no user xattrs on this filesystem");
	ck_assert_int_eq(getxattr(p, "user.big", NULL, 0), (ssize_t)sizeof(big));
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	for (fid = 2; fid < 2 + 2 * P9_SESSION_BYTES / sizeof(big); fid++) {
		err = t_xattrwalk(1, fid, "user.big");
		if (err)
			break;
		made++;
	}
	ck_assert_int_eq(err, -ENOMEM);
	ck_assert_uint_le((size_t)made * sizeof(big), P9_SESSION_BYTES);
	ck_assert_int_eq(t_clunk(2), 0);
	ck_assert_int_eq(t_xattrwalk(1, fid, "user.big"), 0);
}
END_TEST

/* ---- the fd budget ---- */

START_TEST(test_fd_budget)
{
	unsigned base = fs_fd_used();
	char p[PATH_MAX];
	struct stat st;

	fs_fd_set_limit(base + 4);
	for (uint32_t fid = 1; fid <= 4; fid++)
		ck_assert_int_eq(t_walk(0, fid, 0, NULL, NULL), 0);
	/* Spent: whatever would keep another fd is refused... */
	ck_assert_int_eq(t_walk(0, 5, 0, NULL, NULL), -ENFILE);
	ck_assert_int_eq(t_attach(5, "", 0), -ENFILE);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY), -ENFILE);
	/* ...and everything else served. */
	ck_assert_int_eq(t_getattr(0, NULL, NULL, NULL), 0);
	ck_assert_int_eq(t_getattr(4, NULL, NULL, NULL), 0);
	ck_assert_int_eq(t_xattrwalk(0, 6, ""), 0);
	ck_assert_int_eq(t_clunk(6), 0);
	/* A clunk gives one back. */
	ck_assert_int_eq(t_clunk(2), 0);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY), 0);
	ck_assert_int_eq(t_walk(0, 5, 0, NULL, NULL), -ENFILE);
	ck_assert_int_eq(t_clunk(3), 0);
	ck_assert_int_eq(t_walk(0, 5, 0, NULL, NULL), 0);
	/* Tlcreate keeps two (net one more): refused before it creates. */
	ck_assert_int_eq(t_clunk(4), 0);
	ck_assert_int_eq(t_lcreate(5, "x", P9_DOTL_RDWR | P9_DOTL_CREATE, 0644), -ENFILE);
	path_of(p, "x");
	ck_assert_int_eq(lstat(p, &st), -1);
	ck_assert_int_eq(t_clunk(1), 0);
	ck_assert_int_eq(t_lcreate(5, "x", P9_DOTL_RDWR | P9_DOTL_CREATE, 0644), 0);
	ck_assert_int_eq(lstat(p, &st), 0);
	/* Every charge is given back. */
	ck_assert_int_eq(t_clunk(5), 0);
	ck_assert_uint_eq(fs_fd_used(), base);
	ck_assert_int_eq(t_clunk(0), 0);
	ck_assert_uint_eq(fs_fd_used(), base - 1);
}
END_TEST

/* ---- who may attach as whom ---- */

static int attach_named(uint32_t fid, const char *uname, uint32_t n_uname)
{
	begin(P9_TATTACH);
	p9_put_u32(&W, fid);
	p9_put_u32(&W, P9_NOFID);
	put_str(uname);
	put_str("");
	p9_put_u32(&W, n_uname);
	return call(NULL);
}

START_TEST(test_peer_attaches_as_itself)
{
	p9_session_set_peer(ses, 1000, 1000, NULL, 0);
	ck_assert_int_eq(t_attach(1, "", 0), -EPERM);
	ck_assert_int_eq(t_attach(1, "", 1001), -EPERM);
	ck_assert_int_eq(attach_named(1, "root", P9_NONUNAME), -EPERM);
	ck_assert_int_eq(t_getattr(1, NULL, NULL, NULL), -EBADF);
	ck_assert_int_eq(t_attach(1, "", 1000), 0);
	ck_assert_int_eq(t_getattr(1, NULL, NULL, NULL), 0);
}
END_TEST

START_TEST(test_root_peer_attaches_as_anyone)
{
	p9_session_set_peer(ses, 0, 0, NULL, 0);
	ck_assert_int_eq(t_attach(1, "", 1000), 0);
	ck_assert_int_eq(t_attach(2, "", 0), 0);
	ck_assert_int_eq(attach_named(3, "root", P9_NONUNAME), 0);
}
END_TEST

static Suite *p9limits_suite(void)
{
	Suite *s = suite_create("p9limits");
	TCase *tc = tcase_create("fids");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_any_fid_number);
	tcase_add_test(tc, test_nofid_refused);
	tcase_add_test(tc, test_patterned_fid_numbers);
	tcase_add_test(tc, test_live_fid_bound);
	suite_add_tcase(s, tc);

	tc = tcase_create("budgets");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_xattrcreate_budget);
	tcase_add_test(tc, test_xattrwalk_budget);
	tcase_add_test(tc, test_fd_budget);
	suite_add_tcase(s, tc);

	tc = tcase_create("peer");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_peer_attaches_as_itself);
	tcase_add_test(tc, test_root_peer_attaches_as_anyone);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(p9limits_suite());
}
