// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE server's host fds against one small process budget
 * (fs_fd_set_limit): a client remembering far more inodes than there are
 * fds (evicted ones are reopened by name and checked), names that follow
 * RENAME and UNLINK, two servers sharing the budget, open files and lock
 * owners charged to it, and requests racing the eviction of cached fds.
 */
#include "tests/unit/test_fuse_util.h"

#include "fs/fs_fdbudget.h"
#include "fs/fuse/fuse_int.h"
#include "tests/unit/check_main.h"

#define LIMIT 64
#define NFILES 1000

static struct fs_options opts;

static void fds_setup(void)
{
	tf_setup();
	fs_options_default(&opts);
	fs_fd_set_limit(LIMIT);
}

static const char *fname(int i)
{
	static char b[32];

	snprintf(b, sizeof(b), "d%d/f%d", i % 10, i);
	return b;
}

/* NFILES files in ten directories, each holding its own name. */
static void make_files(void)
{
	char d[16];

	for (int i = 0; i < 10; i++) {
		snprintf(d, sizeof(d), "d%d", i);
		ck_assert_int_eq(mkdir(tf_path(d), 0755), 0);
	}
	for (int i = 0; i < NFILES; i++)
		tf_write_host(fname(i), fname(i));
}

/* Looks up d<i%10> and f<i>; returns f<i>'s nodeid, 0 on error (in *err). */
static uint64_t lookup_file(int i, int *err)
{
	char d[16], f[16];
	struct fuse_entry_out e;

	snprintf(d, sizeof(d), "d%d", i % 10);
	snprintf(f, sizeof(f), "f%d", i);
	*err = tf_lookup(1, d, &e);
	if (*err)
		return 0;
	*err = tf_lookup(e.nodeid, f, &e);
	return *err ? 0 : e.nodeid;
}

static void read_back(uint64_t nodeid, int i)
{
	char buf[64];
	uint64_t fh;
	int n;

	ck_assert_int_eq(tf_open(nodeid, O_RDONLY, &fh), 0);
	n = tf_read(fh, 0, buf, sizeof(buf));
	ck_assert_int_eq(n, (int)strlen(fname(i)));
	ck_assert(memcmp(buf, fname(i), (size_t)n) == 0);
	ck_assert_int_eq(tf_release(fh, FUSE_RELEASE), 0);
}

static void forget(uint64_t nodeid)
{
	struct fuse_forget_in fin = { .nlookup = 1 };

	tf_send(tf_build(FUSE_FORGET, nodeid, &fin, sizeof(fin), NULL, NULL, NULL, 0), NULL);
}

START_TEST(lookups_outlive_the_budget)
{
	static uint64_t ids[NFILES];
	struct fuse_attr a;
	struct stat st;
	int err;

	make_files();
	tf_start(&opts, NULL, true);
	for (int i = 0; i < NFILES; i++) {
		ids[i] = lookup_file(i, &err);
		ck_assert_int_eq(err, 0);
		/* Caches stop short of the budget: room for other shares' opens. */
		ck_assert_uint_le(fs_fd_used(), LIMIT - LIMIT / 4);
	}
	/* Every nodeid still works: reopened by name where evicted. */
	for (int i = 0; i < NFILES; i++) {
		ck_assert_int_eq(tf_getattr(ids[i], &a), 0);
		ck_assert_int_eq(stat(tf_path(fname(i)), &st), 0);
		ck_assert_uint_eq(a.ino, st.st_ino);
		read_back(ids[i], i);
		ck_assert_uint_le(fs_fd_used(), LIMIT);
	}
	/* A symlink reopened by name is the link, not its target. */
	ck_assert_int_eq(symlink("d0/f0", tf_path("ln")), 0);
	uint64_t ln = tf_nodeid(1, "ln");
	for (int i = 0; i < NFILES; i += 7)
		ck_assert_int_eq(tf_getattr(ids[i], NULL), 0); /* push ln out */
	char target[32] = { 0 };
	ck_assert_int_eq(tf_req(FUSE_READLINK, ln, NULL, 0, NULL, NULL, target,
				sizeof(target) - 1), 0);
	ck_assert_str_eq(target, "d0/f0");
	/* Gone on the host: a stale name is an error reply, nothing worse. */
	ck_assert_int_eq(unlink(tf_path(fname(3))), 0);
	for (int i = 0; i < NFILES; i += 5)
		ck_assert_int_eq(tf_getattr(ids[i], NULL), 0);
	err = tf_getattr(ids[3], NULL);
	ck_assert(err == 0 || err == -ESTALE); /* 0 if its fd was still cached */
	ck_assert_int_eq(tf_getattr(1, NULL), 0);
}
END_TEST

/* Evict every cached fd there is (the lookups of other files push them out). */
static void push_out(int from)
{
	int err;

	for (int i = from; i < from + 4 * LIMIT; i++) {
		lookup_file(i % NFILES, &err);
		ck_assert_int_eq(err, 0);
	}
}

/*
 * Rule: an evicted inode is reopened by the name the server last knew and
 * must be the same object. RENAME through the server moves that name; an
 * inode whose name is removed while the client remembers it (an unlinked
 * open file) keeps its fd; a name that now leads to another file, or to
 * nothing, is ESTALE, never the other file.
 */
START_TEST(names_follow_rename_and_unlink)
{
	struct fuse_rename_in rn;
	struct fuse_attr a;
	struct stat st;
	uint64_t d0, x, gone, other;
	int err;

	make_files();
	tf_write_host("d0/x", "x");
	tf_write_host("d0/gone", "g");
	tf_write_host("d0/other", "o");
	tf_start(&opts, NULL, true);
	d0 = tf_nodeid(1, "d0");
	x = tf_nodeid(d0, "x");
	gone = tf_nodeid(d0, "gone");
	other = tf_nodeid(d0, "other");
	rn = (struct fuse_rename_in){ .newdir = 1 };
	ck_assert_int_eq(tf_req(FUSE_RENAME, d0, &rn, sizeof(rn), "x", "moved", NULL, 0), 0);
	ck_assert_int_eq(tf_req(FUSE_UNLINK, d0, NULL, 0, "gone", NULL, NULL, 0), 0);
	/* Replaced on the host behind the server's back: another inode, same name. */
	ck_assert_int_eq(rename(tf_path("d0/f0"), tf_path("d0/other")), 0);
	push_out(100);
	ck_assert_int_eq(tf_getattr(x, &a), 0);
	ck_assert_int_eq(stat(tf_path("moved"), &st), 0);
	ck_assert_uint_eq(a.ino, st.st_ino);
	ck_assert_int_eq(tf_getattr(gone, &a), 0); /* pinned: its fd outlived the name */
	ck_assert_uint_eq(a.nlink, 0);
	ck_assert_int_eq(tf_getattr(other, NULL), -ESTALE);
	(void)err;
}
END_TEST

/*
 * Rule: parent references never leak. A remembered child holds its
 * directory; forgetting both gives every fd back, child first or not.
 */
START_TEST(forget_releases_the_chain)
{
	uint64_t d, f;
	uint32_t live;

	make_files();
	tf_start(&opts, NULL, true);
	d = tf_nodeid(1, "d1");
	f = tf_nodeid(d, "f1");
	live = srv->it.slots.live;
	forget(d);              /* the client forgets the directory first */
	ck_assert_uint_eq(srv->it.slots.live, live); /* f holds it */
	push_out(200);
	ck_assert_int_eq(tf_getattr(f, NULL), 0); /* reopened through it */
	live = srv->it.slots.live;
	forget(f);
	ck_assert_uint_eq(srv->it.slots.live, live - 2); /* both */
	fuse_server_destroy(srv);
	srv = NULL;
	ck_assert_uint_eq(fs_fd_used(), 0);
}
END_TEST

START_TEST(two_servers_share_one_budget)
{
	static uint64_t fh[LIMIT + 1];
	struct fuse_server *a, *b;
	unsigned before;
	uint64_t id, bid;
	int err = 0, n;

	make_files();
	tf_start(&opts, NULL, true);
	a = srv;
	before = fs_fd_used();
	ck_assert_int_eq(fuse_server_create_params(&b, tdir, &opts, NULL), 0);
	ck_assert_uint_eq(fs_fd_used(), before + 2); /* its root and /proc/self/fd */
	srv = b;
	tf_do_init(TF_ALL_FLAGS);
	bid = lookup_file(1, &err);
	ck_assert_int_eq(err, 0);
	/* a's open files take every fd there is ... */
	srv = a;
	id = lookup_file(0, &err);
	for (n = 0; n <= LIMIT && !err; n++)
		err = tf_open(id, O_RDONLY, &fh[n]);
	ck_assert_int_eq(err, -ENFILE);
	n--;
	/* ... so b, with tables of its own, has none left once it evicted its own ... */
	srv = b;
	uint64_t bfh[4];
	int m = 0;
	while (m < 4 && (err = tf_open(bid, O_RDONLY, &bfh[m])) == 0)
		m++;
	ck_assert_int_eq(err, -ENFILE);
	/* ... until a gives one back. */
	srv = a;
	ck_assert_int_eq(tf_release(fh[0], FUSE_RELEASE), 0);
	srv = b;
	ck_assert_int_eq(tf_open(bid, O_RDONLY, &fh[LIMIT]), 0);
	ck_assert_int_eq(tf_release(fh[LIMIT], FUSE_RELEASE), 0);
	while (m)
		ck_assert_int_eq(tf_release(bfh[--m], FUSE_RELEASE), 0);
	fuse_server_destroy(b);
	srv = a;
	for (int i = 1; i < n; i++)
		ck_assert_int_eq(tf_release(fh[i], FUSE_RELEASE), 0);
	srv = a;
	fuse_server_destroy(srv);
	srv = NULL;
	ck_assert_uint_eq(fs_fd_used(), 0);
}
END_TEST

START_TEST(opens_beyond_the_budget_answer_enfile)
{
	static uint64_t fh[LIMIT + 1];
	uint64_t ids[200];
	int n, err;

	make_files();
	tf_start(&opts, NULL, true);
	/* Cached inode fds first: open files must push them out. */
	for (int i = 0; i < 200; i++) {
		ids[i] = lookup_file(i, &err);
		ck_assert_int_eq(err, 0);
	}
	for (n = 0; n <= LIMIT; n++) {
		err = tf_open(ids[n], O_RDONLY, &fh[n]);
		ck_assert_uint_le(fs_fd_used(), LIMIT);
		if (err)
			break;
	}
	ck_assert_int_eq(err, -ENFILE);
	/* All but the share's own two (root, /proc/self/fd). */
	ck_assert_int_ge(n, LIMIT - 3);
	/* Lookups still work, fds or not: they reopen for the request. */
	for (int i = 200; i < 300; i++) {
		lookup_file(i, &err);
		ck_assert_int_eq(err, 0);
	}
	ck_assert_int_eq(tf_getattr(ids[150], NULL), 0);
	ck_assert_int_eq(tf_release(fh[0], FUSE_RELEASE), 0);
	read_back(ids[n], n);
	for (int i = 1; i < n; i++)
		ck_assert_int_eq(tf_release(fh[i], FUSE_RELEASE), 0);
	ck_assert_uint_le(fs_fd_used(), LIMIT);
}
END_TEST

/*
 * Reopening by name searches the parent as root, which a request running
 * as a client's uid is not: RENAME and LINK reach their second inode's fd
 * under the caller's credentials.
 */
START_TEST(reopens_under_the_callers_credentials)
{
	struct fuse_rename_in rn;
	struct fuse_link_in ln;
	uint64_t a, b, x;
	int err;

	make_files();
	ck_assert_int_eq(mkdir(tf_path("a"), 0777), 0);
	ck_assert_int_eq(mkdir(tf_path("b"), 0777), 0);
	ck_assert_int_eq(chmod(tf_path("a"), 0777), 0);
	ck_assert_int_eq(chmod(tf_path("b"), 0777), 0);
	tf_write_host("a/x", "x");
	ck_assert_int_eq(chown(tf_path("a/x"), 1000, 1000), 0);
	tf_start(&opts, NULL, true);
	a = tf_nodeid(1, "a");
	b = tf_nodeid(1, "b");
	x = tf_nodeid(a, "x");
	/* Enough other inodes to push a, b and x out of the cache. */
	for (int i = 0; i < 4 * LIMIT; i++) {
		lookup_file(i, &err);
		ck_assert_int_eq(err, 0);
	}
	tf_uid = tf_gid = 1000;
	rn = (struct fuse_rename_in){ .newdir = b };
	ck_assert_int_eq(tf_req(FUSE_RENAME, a, &rn, sizeof(rn), "x", "y", NULL, 0), 0);
	for (int i = 0; i < 4 * LIMIT; i++)
		ck_assert_int_eq(tf_getattr(lookup_file(i, &err), NULL), 0);
	ln = (struct fuse_link_in){ .oldnodeid = x };
	ck_assert_int_eq(tf_req(FUSE_LINK, a, &ln, sizeof(ln), "z", NULL, NULL, 0), 0);
	tf_uid = tf_gid = 0;
	ck_assert_int_eq(access(tf_path("b/y"), F_OK), 0);
	ck_assert_int_eq(access(tf_path("a/z"), F_OK), 0);
}
END_TEST

static int setlk(uint64_t fh, uint64_t owner, uint32_t type)
{
	struct fuse_lk_in in = {
		.fh = fh, .owner = owner,
		.lk = { .start = 0, .end = 0, .type = type },
	};

	return tf_req(FUSE_SETLK, 1, &in, sizeof(in), NULL, NULL, NULL, 0);
}

START_TEST(lock_owners_are_charged)
{
	uint64_t owner, fh, n;
	int r = 0;

	tf_write_host("l", "x");
	tf_start(&opts, NULL, true);
	n = tf_nodeid(1, "l");
	ck_assert_int_eq(tf_open(n, O_RDWR, &fh), 0);
	for (owner = 1; owner <= LIMIT; owner++) {
		r = setlk(fh, owner, F_RDLCK);
		ck_assert_uint_le(fs_fd_used(), LIMIT);
		if (r)
			break;
	}
	ck_assert_int_eq(r, -ENOLCK);
	/* One OFD each: all but the share's two fds and the open file's. */
	ck_assert_uint_eq(owner - 1, LIMIT - 3);
	ck_assert_uint_eq(fs_fd_used(), LIMIT);
	/* FLUSH closes an owner's OFD and gives its fd back. */
	struct fuse_flush_in fl = { .fh = fh, .lock_owner = 1 };
	ck_assert_int_eq(tf_req(FUSE_FLUSH, 1, &fl, sizeof(fl), NULL, NULL, NULL, 0), 0);
	ck_assert_uint_eq(fs_fd_used(), LIMIT - 1);
	ck_assert_int_eq(setlk(fh, 1000, F_RDLCK), 0);
	/* Releasing the file and forgetting the inode gives every OFD back. */
	ck_assert_int_eq(tf_release(fh, FUSE_RELEASE), 0);
	forget(n);
	ck_assert_uint_eq(fs_fd_used(), 2); /* the share's own */
}
END_TEST

/*
 * The table itself: an fd a request holds (fuse_inode_fd) is never the
 * one the sweep closes, however tight the budget; put back, it may go.
 */
START_TEST(a_used_fd_is_never_evicted)
{
	struct fuse_itable t;
	struct fuse_inode *x, *root;
	struct fuse_ifd f;
	struct stat st, now;
	int fd, spent = 0;

	tf_write_host("x", "x");
	ck_assert_int_eq(fuse_itable_init(&t, 16), 0);
	fd = open(tdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(fuse_itable_set_root(&t, fd, &st), 0);
	root = fuse_inode_get(&t, 1);
	fd = open(tf_path("x"), O_PATH | O_CLOEXEC);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(fuse_inode_lookup_add(&t, fd, &st, 0, root, "x", &x), 0);
	fuse_inode_put(&t, root);
	ck_assert_int_eq(fuse_inode_fd(&t, x, &f), 0);
	ck_assert(!f.own); /* the cached fd, not a private one */
	while (fs_fd_charge() == 0)
		spent++;
	/* Twice round the ring: the second chance is no excuse. */
	ck_assert_int_eq(fuse_itable_charge(&t), -ENFILE);
	ck_assert_int_eq(fuse_itable_charge(&t), -ENFILE);
	ck_assert_int_eq(fstat(f.fd, &now), 0);
	ck_assert_uint_eq(now.st_ino, st.st_ino);
	fuse_inode_fd_put(&f);
	ck_assert_int_eq(fuse_itable_charge(&t), 0); /* now it may go */
	fs_fd_refund();
	while (spent--)
		fs_fd_refund();
	/* Reopened by name on the next use. */
	ck_assert_int_eq(fuse_inode_fd(&t, x, &f), 0);
	ck_assert_int_eq(fstat(f.fd, &now), 0);
	ck_assert_uint_eq(now.st_ino, st.st_ino);
	fuse_inode_fd_put(&f);
	fuse_inode_put(&t, x);
	fuse_itable_fini(&t);
}
END_TEST

/* --- requests racing eviction (run under TSAN too) ---------------------- */
#define THREADS 4
#define ROUNDS 3000

struct worker {
	int id;
	uint64_t unique;
	uint64_t *ids;
	int failures;
	uint8_t in[512], out[512];
};

static int w_req(struct worker *w, uint32_t op, uint64_t nodeid, const void *a,
		 size_t alen, const char *name)
{
	struct fuse_in_header h = { .opcode = op, .unique = ++w->unique, .nodeid = nodeid };
	size_t len = sizeof(h);
	struct fuse_out_header oh;

	if (alen)
		memcpy(w->in + len, a, alen);
	len += alen;
	if (name) {
		memcpy(w->in + len, name, strlen(name) + 1);
		len += strlen(name) + 1;
	}
	h.len = (uint32_t)len;
	memcpy(w->in, &h, sizeof(h));
	struct iovec iv = { w->in, len }, ov = { w->out, sizeof(w->out) };
	struct fs_req req = { .in = &iv, .nin = 1, .out = &ov, .nout = 1 };
	int r = fuse_server_handle(srv, &req, NULL);
	if (r <= 0)
		return r;
	memcpy(&oh, w->out, sizeof(oh));
	return oh.error;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned seed = (unsigned)w->id * 7919u + 1;

	for (int i = 0; i < ROUNDS; i++) {
		int k = (int)(rand_r(&seed) % 200);
		struct fuse_getattr_in gi = { 0 };
		struct fuse_access_in ai = { .mask = R_OK };
		char f[16];

		if (w_req(w, FUSE_GETATTR, w->ids[k], &gi, sizeof(gi), NULL) ||
		    w_req(w, FUSE_ACCESS, w->ids[k], &ai, sizeof(ai), NULL))
			w->failures++;
		/* New lookups under a directory whose fd may be evicted too. */
		snprintf(f, sizeof(f), "f%d", 200 + (k / 10) * 10 + k % 10);
		if (w_req(w, FUSE_LOOKUP, w->ids[k % 10 + 1000], NULL, 0, f) != 0)
			w->failures++;
		if (fs_fd_used() > fs_fd_limit())
			w->failures++;
	}
	return NULL;
}

START_TEST(requests_race_eviction)
{
	static uint64_t ids[1010];
	static struct worker w[THREADS];
	pthread_t t[THREADS];
	struct fuse_entry_out e;
	char d[16];
	int err;

	fs_fd_set_limit(32);
	make_files();
	tf_start(&opts, NULL, true);
	for (int i = 0; i < 200; i++) {
		ids[i] = lookup_file(i, &err);
		ck_assert_int_eq(err, 0);
	}
	for (int i = 0; i < 10; i++) {
		snprintf(d, sizeof(d), "d%d", i);
		ck_assert_int_eq(tf_lookup(1, d, &e), 0);
		ids[1000 + i] = e.nodeid;
	}
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .id = i, .unique = (uint64_t)(i + 1) << 40, .ids = ids };
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(w[i].failures, 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_fds");
	TCase *tc = tcase_create("fd_budget");

	tcase_add_checked_fixture(tc, fds_setup, tf_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, lookups_outlive_the_budget);
	tcase_add_test(tc, names_follow_rename_and_unlink);
	tcase_add_test(tc, forget_releases_the_chain);
	tcase_add_test(tc, two_servers_share_one_budget);
	tcase_add_test(tc, opens_beyond_the_budget_answer_enfile);
	tcase_add_test(tc, reopens_under_the_callers_credentials);
	tcase_add_test(tc, lock_owners_are_charged);
	tcase_add_test(tc, a_used_fd_is_never_evicted);
	tcase_add_test(tc, requests_race_eviction);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
