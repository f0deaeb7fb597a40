// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE server's host-change watcher (fs/fuse/fuse_watch.h) against a
 * real directory and real inotify, its notifications caught by a fake
 * transport: a host create becomes INVAL_ENTRY of that name under that
 * directory, a host touch INVAL_INODE of that inode; entry lifetimes are
 * long only where a watch covers them, a spent budget says so once and
 * gives short ones; FORGET releases the watch; the sweep's victims are
 * offered as PRUNE only to a kernel whose INIT says 7.45.
 */
#include "tests/unit/test_fuse_util.h"

#include <sys/time.h>

#include "fs/fs_fdbudget.h"
#include "fs/fuse/fuse_int.h"
#include "fs/fuse/fuse_watch.h"
#include "tests/unit/check_main.h"

#define MAX_MSGS 4096

static pthread_mutex_t msg_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned nmsgs;
static struct { int code; uint64_t a; char name[64]; uint32_t count; } msgs[MAX_MSGS];

/* The fake transport's notify: remember what the server sent. */
static int catch_notify(void *ctx, const void *m, size_t len)
{
	const struct fuse_out_header *h = m;
	const uint8_t *body = (const uint8_t *)m + sizeof(*h);

	(void)ctx;
	ck_assert_uint_eq(h->len, len);
	ck_assert_uint_eq(h->unique, 0);
	pthread_mutex_lock(&msg_mu);
	if (nmsgs < MAX_MSGS) {
		msgs[nmsgs].code = h->error;
		if (h->error == FUSE_NOTIFY_INVAL_ENTRY) {
			const struct fuse_notify_inval_entry_out *e = (const void *)body;
			msgs[nmsgs].a = e->parent;
			snprintf(msgs[nmsgs].name, sizeof(msgs[0].name), "%.*s", (int)e->namelen,
				 (const char *)(e + 1));
		} else if (h->error == FUSE_NOTIFY_INVAL_INODE) {
			msgs[nmsgs].a = ((const struct fuse_notify_inval_inode_out *)body)->ino;
		} else if (h->error == FUSE_NOTIFY_PRUNE) {
			msgs[nmsgs].count = ((const struct fuse_notify_prune_out *)body)->count;
		}
		nmsgs++;
	}
	pthread_mutex_unlock(&msg_mu);
	return 0;
}

/* Is there a message with code for a (and name, when given)? */
static bool caught(int code, uint64_t a, const char *name)
{
	bool found = false;

	pthread_mutex_lock(&msg_mu);
	for (unsigned i = 0; i < nmsgs && !found; i++)
		found = msgs[i].code == code && (code == FUSE_NOTIFY_PRUNE || msgs[i].a == a) &&
			(!name || strcmp(msgs[i].name, name) == 0);
	pthread_mutex_unlock(&msg_mu);
	return found;
}

static bool wait_caught(int code, uint64_t a, const char *name)
{
	for (int i = 0; i < 200; i++) {
		if (caught(code, a, name))
			return true;
		usleep(10000);
	}
	return false;
}

static uint32_t watches_now(void)
{
	struct fuse_server_stats st;

	fuse_server_stats(srv, &st);
	return st.watches;
}

/* The watcher works asynchronously: wait (2 s at most) for n watches. */
static bool wait_watches(uint32_t n)
{
	for (int i = 0; i < 200; i++) {
		if (watches_now() == n)
			return true;
		usleep(10000);
	}
	return false;
}

/* Wait (2 s at most) until the watcher holds nodeid's watch. */
static bool wait_watched(uint64_t nodeid)
{
	for (int i = 0; i < 200; i++) {
		struct fuse_inode *ino = fuse_inode_get(&srv->it, nodeid);
		bool on = ino && atomic_load(&ino->wd) > 0;

		if (ino)
			fuse_inode_put(&srv->it, ino);
		if (on)
			return true;
		usleep(10000);
	}
	return false;
}

static void start(uint32_t watches, uint32_t minor)
{
	struct fs_options o;
	struct fuse_init_in in = { .major = 7, .minor = minor, .max_readahead = 1 << 20,
				   .flags = TF_ALL_FLAGS };

	fs_options_default(&o);
	o.cache = FS_CACHE_ALWAYS;
	nmsgs = 0;
	tf_start(&o, &(struct fuse_server_params){ .watches = watches, .notify = catch_notify },
		 false);
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, &tf_init,
				sizeof(tf_init)), 0);
}

static unsigned saved_limit;

static void watch_teardown(void)
{
	tf_teardown();
	if (saved_limit)
		fs_fd_set_limit(saved_limit);
	saved_limit = 0;
}

START_TEST(host_changes_become_notifications)
{
	struct fuse_entry_out d, f;

	ck_assert_int_eq(mkdir(tf_path("d"), 0755), 0);
	tf_write_host("d/f", "one");
	start(16, 38);
	ck_assert_int_eq(tf_lookup(1, "d", &d), 0);
	ck_assert(wait_watched(1) && wait_watched(d.nodeid));
	ck_assert_int_eq(tf_lookup(d.nodeid, "f", &f), 0);
	tf_write_host("d/new", "x");
	ck_assert(wait_caught(FUSE_NOTIFY_INVAL_ENTRY, d.nodeid, "new"));
	ck_assert(wait_caught(FUSE_NOTIFY_INVAL_INODE, d.nodeid, NULL)); /* its listing */
	ck_assert_int_eq(utimes(tf_path("d/f"), (struct timeval[2]){ { 1, 0 }, { 1, 0 } }), 0);
	ck_assert(wait_caught(FUSE_NOTIFY_INVAL_INODE, f.nodeid, NULL));
	ck_assert_int_eq(rename(tf_path("d/f"), tf_path("d/g")), 0);
	ck_assert(wait_caught(FUSE_NOTIFY_INVAL_ENTRY, d.nodeid, "f"));
	ck_assert(wait_caught(FUSE_NOTIFY_INVAL_ENTRY, d.nodeid, "g"));
}
END_TEST

START_TEST(lifetimes_follow_the_watches)
{
	struct fuse_entry_out d1, d2, e;

	ck_assert_int_eq(mkdir(tf_path("d1"), 0755), 0);
	ck_assert_int_eq(mkdir(tf_path("d2"), 0755), 0);
	tf_write_host("d1/f", "one");
	tf_write_host("d2/f", "two");
	tf_write_host("top", "t");
	start(2, 38);
	ck_assert(wait_watched(1));
	ck_assert_int_eq(tf_lookup(1, "top", &e), 0);
	ck_assert_uint_eq(e.entry_valid, 86400);   /* the root's watch covers it */
	ck_assert_int_eq(tf_lookup(1, "d1", &d1), 0);
	/* d1's own lifetime races its watch being added: either is right. */
	ck_assert(wait_watched(d1.nodeid));
	ck_assert_int_eq(tf_lookup(d1.nodeid, "f", &e), 0);
	ck_assert_uint_eq(e.entry_valid, 86400);
	ck_assert_int_eq(tf_lookup(1, "d2", &d2), 0); /* the budget is spent */
	ck_assert_int_eq(tf_lookup(d2.nodeid, "f", &e), 0);
	ck_assert_uint_eq(e.entry_valid, FUSE_WATCH_SHORT_SEC);
	ck_assert_uint_eq(e.attr_valid, FUSE_WATCH_SHORT_SEC);
	ck_assert_uint_eq(watches_now(), 2);
}
END_TEST

START_TEST(forget_releases_the_watch)
{
	struct fuse_entry_out d;
	struct fuse_forget_in fin = { .nlookup = 1 };

	for (int i = 0; i < 3; i++) {
		char n[16];

		snprintf(n, sizeof(n), "d%d", i);
		ck_assert_int_eq(mkdir(tf_path(n), 0755), 0);
	}
	start(2, 38);
	/* Budget 2: the root and one directory at a time, again and again. */
	for (int round = 0; round < 6; round++) {
		char n[16];

		snprintf(n, sizeof(n), "d%d", round % 3);
		ck_assert_int_eq(tf_lookup(1, n, &d), 0);
		ck_assert(wait_watched(d.nodeid));
		tf_send(tf_build(FUSE_FORGET, d.nodeid, &fin, sizeof(fin), NULL, NULL, NULL, 0), NULL);
		ck_assert(wait_watches(1));
	}
}
END_TEST

static void lookup_many(void)
{
	struct fuse_entry_out e;

	for (int i = 0; i < 300; i++) {
		char n[16];

		snprintf(n, sizeof(n), "f%d", i);
		tf_write_host(n, n);
		ck_assert_int_eq(tf_lookup(1, n, &e), 0);
	}
}

START_TEST(prune_only_where_the_kernel_reads_it)
{
	saved_limit = fs_fd_limit();
	fs_fd_set_limit(64);
	start(0, 38);             /* a kernel before 7.45 */
	lookup_many();
	usleep(200000);
	ck_assert(!caught(FUSE_NOTIFY_PRUNE, 0, NULL));
	start(0, 45);
	lookup_many();           /* the same names: their fds are evicted again */
	ck_assert(wait_caught(FUSE_NOTIFY_PRUNE, 0, NULL));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_watch");
	TCase *tc = tcase_create("watch");

	tcase_add_checked_fixture(tc, tf_setup, watch_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, host_changes_become_notifications);
	tcase_add_test(tc, lifetimes_follow_the_watches);
	tcase_add_test(tc, forget_releases_the_watch);
	tcase_add_test(tc, prune_only_where_the_kernel_reads_it);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
