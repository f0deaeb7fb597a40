// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE hub (fs/fuse/fuse_hub.h): its synthetic root (GETATTR, LOOKUP,
 * READDIR, what it refuses), shares attached and detached while a client
 * runs (entries flagged FUSE_ATTR_SUBMOUNT, their nodeids routed by key,
 * ESTALE and every fd closed after a detach), the bounds of attach, and
 * attach/detach racing requests on other threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fs_options.h"
#include "fs/fuse/fuse_hub.h"
#include "tests/fd_count.h"
#include "tests/unit/check_main.h"

static struct fuse_hub *hub;
static char base[256];
static _Atomic uint64_t unique = 1;

/* One request, one reply: the reply's error, its payload copied into out. */
static int hreq(uint32_t op, uint64_t nodeid, const void *arg, size_t alen, const char *name,
		void *out, size_t outlen)
{
	uint8_t in[8192], reply[16384];
	struct fuse_in_header h = { .opcode = op, .unique = atomic_fetch_add(&unique, 1),
				    .nodeid = nodeid, .uid = getuid(), .gid = getgid(), .pid = 1 };
	size_t len = sizeof(h);
	struct fuse_out_header oh;

	memcpy(in + len, arg, alen);
	len += alen;
	if (name) {
		memcpy(in + len, name, strlen(name) + 1);
		len += strlen(name) + 1;
	}
	h.len = (uint32_t)len;
	memcpy(in, &h, sizeof(h));
	struct iovec iv = { in, len }, ov = { reply, sizeof(reply) };
	struct fs_req req = { .in = &iv, .nin = 1, .out = &ov, .nout = 1 };
	int r = fuse_hub_handle(hub, &req, NULL);

	if (r == 0)
		return 0;
	ck_assert_int_ge(r, (int)sizeof(oh));
	memcpy(&oh, reply, sizeof(oh));
	ck_assert_uint_eq(oh.unique, h.unique);
	ck_assert_int_eq(oh.len, r);
	if (out && !oh.error)
		memcpy(out, reply + sizeof(oh), (size_t)r - sizeof(oh) < outlen ?
		       (size_t)r - sizeof(oh) : outlen);
	if (!oh.error && outlen && op != FUSE_READ && op != FUSE_READDIR && op != FUSE_READDIRPLUS)
		ck_assert_uint_eq((size_t)r - sizeof(oh), outlen);
	return oh.error;
}

static void hub_init(void)
{
	struct fuse_init_in in = { .major = 7, .minor = 41, .max_readahead = 65536,
				   .flags = FUSE_SUBMOUNTS | FUSE_DO_READDIRPLUS | FUSE_INIT_EXT };
	struct fuse_init_out out;

	ck_assert_int_eq(hreq(FUSE_INIT, 0, &in, sizeof(in), NULL, &out, sizeof(out)), 0);
	ck_assert(out.flags & FUSE_SUBMOUNTS);
}

static void put_file(const char *rel, const char *text)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
}

static void mk(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void setup(void)
{
	struct fs_options o;
	int fd;

	snprintf(base, sizeof(base), "/tmp/hub-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	mk("a");
	mk("b");
	mk("a/sub");
	put_file("a/marker", "hello from a");
	put_file("b/marker", "b here");
	put_file("plain", "not a dir");
	fs_options_default(&o);
	fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fuse_hub_create(&hub, fd, base, &o), 0);
}

static void teardown(void)
{
	char cmd[300];

	fuse_hub_destroy(hub);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	(void)!system(cmd);
}

static int lookup(uint64_t parent, const char *name, struct fuse_entry_out *e)
{
	return hreq(FUSE_LOOKUP, parent, NULL, 0, name, e, sizeof(*e));
}

/* The names READDIR of dir lists, joined by spaces. */
static void listing(uint64_t dir, char *names, size_t size)
{
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out oo;
	struct fuse_read_in ri = { .size = 4096 };
	uint8_t buf[4096];
	size_t pos = 0;

	names[0] = 0;
	ck_assert_int_eq(hreq(FUSE_OPENDIR, dir, &oi, sizeof(oi), NULL, &oo, sizeof(oo)), 0);
	ri.fh = oo.fh;
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(hreq(FUSE_READDIR, dir, &ri, sizeof(ri), NULL, buf, sizeof(buf)), 0);
	while (pos + FUSE_NAME_OFFSET <= sizeof(buf)) {
		struct fuse_dirent *d = (struct fuse_dirent *)(buf + pos);

		if (!d->namelen)
			break;
		if (names[0])
			strncat(names, " ", size - strlen(names) - 1);
		strncat(names, d->name, d->namelen < size - strlen(names) - 1 ? d->namelen : 0);
		pos += FUSE_DIRENT_SIZE(d);
	}
}

START_TEST(root_is_a_readonly_directory_of_no_shares)
{
	struct fuse_attr_out ao;
	struct fuse_mkdir_in mi = { .mode = 0755 };
	struct fuse_entry_out e;
	char names[256];

	ck_assert_int_eq(hreq(FUSE_GETATTR, 1, &(struct fuse_getattr_in){ 0 },
			      sizeof(struct fuse_getattr_in), NULL, &ao, sizeof(ao)), -EIO);
	hub_init();
	ck_assert_int_eq(hreq(FUSE_GETATTR, 1, &(struct fuse_getattr_in){ 0 },
			      sizeof(struct fuse_getattr_in), NULL, &ao, sizeof(ao)), 0);
	ck_assert(S_ISDIR(ao.attr.mode));
	ck_assert_uint_eq(ao.attr.mode & 07777, 0555);
	ck_assert_uint_eq(ao.attr.ino, 1);
	listing(1, names, sizeof(names));
	ck_assert_str_eq(names, ". ..");
	ck_assert_int_eq(hreq(FUSE_MKDIR, 1, &mi, sizeof(mi), "x", &e, sizeof(e)), -EACCES);
	ck_assert_int_eq(lookup(1, "a", &e), -ENOENT);  /* a directory of base is no share */
}
END_TEST

START_TEST(attached_share_is_a_submount_with_its_files)
{
	struct fuse_entry_out root, m;
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out oo;
	struct fuse_read_in ri = { .size = 64 };
	char data[64] = "", names[256];

	hub_init();
	ck_assert_int_eq(fuse_hub_attach(hub, "A", "a", false), 0);
	ck_assert_int_eq(lookup(1, "A", &root), 0);
	ck_assert(S_ISDIR(root.attr.mode));
	ck_assert(root.attr.flags & FUSE_ATTR_SUBMOUNT);
	ck_assert_uint_ne(root.nodeid >> 56, 0);
	ck_assert_int_eq(lookup(root.nodeid, "marker", &m), 0);
	ck_assert_uint_eq(m.nodeid >> 56, root.nodeid >> 56);
	ck_assert_int_eq(hreq(FUSE_OPEN, m.nodeid, &oi, sizeof(oi), NULL, &oo, sizeof(oo)), 0);
	ri.fh = oo.fh;
	ck_assert_int_eq(hreq(FUSE_READ, m.nodeid, &ri, sizeof(ri), NULL, data, sizeof(data) - 1), 0);
	ck_assert_str_eq(data, "hello from a");
	ck_assert_int_eq(fuse_hub_attach(hub, "B", base, false) , -EINVAL); /* base itself */
	ck_assert_int_eq(fuse_hub_attach(hub, "B", "b", true), 0);
	listing(1, names, sizeof(names));
	ck_assert_str_eq(names, ". .. A B");
	/* The root's mode, not the host's: B read-only refuses what A takes. */
	struct fuse_create_in ci = { .flags = O_WRONLY | O_CREAT, .mode = 0644 };
	struct {
		struct fuse_entry_out e;
		struct fuse_open_out o;
	} co;
	struct fuse_entry_out broot;
	ck_assert_int_eq(lookup(1, "B", &broot), 0);
	ck_assert_uint_ne(broot.nodeid, root.nodeid);
	ck_assert_int_eq(hreq(FUSE_CREATE, broot.nodeid, &ci, sizeof(ci), "new", &co, sizeof(co)),
			 -EROFS);
	ck_assert_int_eq(hreq(FUSE_CREATE, root.nodeid, &ci, sizeof(ci), "new", &co, sizeof(co)), 0);
}
END_TEST

START_TEST(dotdot_and_unknown_names_and_ids)
{
	struct fuse_entry_out root, e;
	struct fuse_attr_out ao;
	struct fuse_getattr_in gi = { 0 };

	hub_init();
	ck_assert_int_eq(fuse_hub_attach(hub, "A", "a", false), 0);
	ck_assert_int_eq(lookup(1, "..", &e), -EINVAL);
	ck_assert_int_eq(lookup(1, ".", &e), -EINVAL);
	ck_assert_int_eq(lookup(1, "nope", &e), -ENOENT);
	ck_assert_int_eq(lookup(1, "a/b", &e), -ENOENT);
	ck_assert_int_eq(lookup(1, "A", &root), 0);
	/* From a share's root ".." stays there: refused, never the hub or base. */
	ck_assert_int_eq(lookup(root.nodeid, "..", &e), -EINVAL);
	ck_assert_int_eq(lookup(root.nodeid, "plain", &e), -ENOENT);
	/* A key no share has, a share id with the key cut off, a plain id. */
	ck_assert_int_eq(hreq(FUSE_GETATTR, 77ull << 56 | 1, &gi, sizeof(gi), NULL, &ao, sizeof(ao)),
			 -ESTALE);
	ck_assert_int_eq(lookup(root.nodeid, "marker", &e), 0);
	ck_assert_int_eq(hreq(FUSE_GETATTR, e.nodeid & ((1ull << 56) - 1), &gi, sizeof(gi), NULL,
			      &ao, sizeof(ao)), -ESTALE);
	ck_assert_int_eq(hreq(FUSE_GETATTR, e.nodeid, &gi, sizeof(gi), NULL, &ao, sizeof(ao)), 0);
	ck_assert_int_eq(hreq(FUSE_GETATTR, root.nodeid, &gi, sizeof(gi), NULL, &ao, sizeof(ao)), 0);
}
END_TEST

/* Is any fd of this process open on something under dir? */
static bool fd_under(const char *dir)
{
	char link[64], target[512];
	bool found = false;

	for (int fd = 0; fd < 1024 && !found; fd++) {
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		found = !strncmp(target, dir, strlen(dir)) &&
			(target[strlen(dir)] == '/' || target[strlen(dir)] == 0);
	}
	return found;
}

START_TEST(detach_answers_estale_and_closes_every_fd)
{
	struct fuse_entry_out root, m, sub;
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out oo;
	struct fuse_read_in ri = { .size = 64 };
	struct fuse_getattr_in gi = { 0 };
	struct fuse_attr_out ao;
	char data[64], adir[300], names[256];
	int before;

	snprintf(adir, sizeof(adir), "%s/a", base);
	hub_init();
	before = test_count_fds();
	ck_assert_int_eq(fuse_hub_attach(hub, "A", "a", false), 0);
	ck_assert_int_eq(fuse_hub_attach(hub, "B", "b", false), 0);
	ck_assert_int_eq(lookup(1, "A", &root), 0);
	ck_assert_int_eq(lookup(root.nodeid, "marker", &m), 0);
	ck_assert_int_eq(lookup(root.nodeid, "sub", &sub), 0);
	ck_assert_int_eq(hreq(FUSE_OPEN, m.nodeid, &oi, sizeof(oi), NULL, &oo, sizeof(oo)), 0);
	ck_assert(fd_under(adir));
	ck_assert_int_eq(fuse_hub_detach(hub, "A"), 0);
	ck_assert_int_eq(fuse_hub_detach(hub, "A"), -ENOENT);
	ck_assert(!fd_under(adir));
	ri.fh = oo.fh;
	ck_assert_int_eq(hreq(FUSE_READ, m.nodeid, &ri, sizeof(ri), NULL, data, sizeof(data)), -ESTALE);
	ck_assert_int_eq(hreq(FUSE_GETATTR, sub.nodeid, &gi, sizeof(gi), NULL, &ao, sizeof(ao)), -ESTALE);
	ck_assert_int_eq(hreq(FUSE_GETATTR, root.nodeid, &gi, sizeof(gi), NULL, &ao, sizeof(ao)), -ESTALE);
	ck_assert_int_eq(lookup(1, "A", &root), -ENOENT);
	listing(1, names, sizeof(names));
	ck_assert_str_eq(names, ". .. B");
	/* A again: a new key, so the old ids stay stale. */
	ck_assert_int_eq(fuse_hub_attach(hub, "A", "a", false), 0);
	ck_assert_int_eq(hreq(FUSE_GETATTR, m.nodeid, &gi, sizeof(gi), NULL, &ao, sizeof(ao)), -ESTALE);
	ck_assert_int_eq(lookup(1, "A", &sub), 0);
	ck_assert_uint_ne(sub.nodeid, root.nodeid);
	ck_assert_int_eq(lookup(sub.nodeid, "marker", &m), 0);
	ck_assert_int_eq(fuse_hub_detach(hub, "A"), 0);
	ck_assert_int_eq(fuse_hub_detach(hub, "B"), 0);
	ck_assert_int_eq(test_count_fds(), before);
}
END_TEST

START_TEST(attach_checks_names_paths_and_bounds)
{
	char name[16], link[300], outside[300];

	snprintf(link, sizeof(link), "%s/link", base);
	ck_assert_int_eq(symlink("a", link), 0);
	snprintf(outside, sizeof(outside), "%s-outside", base);
	ck_assert_int_eq(fuse_hub_attach(hub, "", "a", false), -EINVAL);
	ck_assert_int_eq(fuse_hub_attach(hub, "..", "a", false), -EINVAL);
	ck_assert_int_eq(fuse_hub_attach(hub, "a/b", "a", false), -EINVAL);
	ck_assert_int_eq(fuse_hub_attach(hub, "0123456789012345678901234567890123456", "a", false),
			 -EINVAL);
	ck_assert_int_eq(fuse_hub_attach(hub, "x", "", false), -EINVAL);
	ck_assert_int_eq(fuse_hub_attach(hub, "x", "../..", false), -EXDEV);
	ck_assert_int_eq(fuse_hub_attach(hub, "x", "a/../../etc", false), -EXDEV);
	ck_assert_int_eq(fuse_hub_attach(hub, "x", "/etc", false), -EXDEV);
	ck_assert_int_eq(fuse_hub_attach(hub, "x", outside, false), -EXDEV);
	ck_assert_int_eq(fuse_hub_attach(hub, "x", "link", false), -ENOTDIR);  /* not followed */
	ck_assert_int_eq(fuse_hub_attach(hub, "x", "nope", false), -ENOENT);
	ck_assert_int_eq(fuse_hub_attach(hub, "x", "plain", false), -ENOTDIR);
	snprintf(outside, sizeof(outside), "%s/a/sub", base);
	ck_assert_int_eq(fuse_hub_attach(hub, "abs", outside, false), 0);  /* absolute, under base */
	ck_assert_int_eq(fuse_hub_attach(hub, "abs", "a", false), -EEXIST);
	for (int i = 1; i < FUSE_HUB_SHARES_MAX; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		ck_assert_int_eq(fuse_hub_attach(hub, name, "b", true), 0);
	}
	ck_assert_int_eq(fuse_hub_attach(hub, "one-too-many", "b", true), -ENOSPC);
	ck_assert_int_eq(fuse_hub_detach(hub, "s3"), 0);
	ck_assert_int_eq(fuse_hub_attach(hub, "one-too-many", "b", true), 0);
}
END_TEST

static _Atomic bool stop;
static _Atomic unsigned bad;

/* Requests on whatever A is now: each must succeed or say the share is gone. */
static void *hammer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		struct fuse_entry_out root, m;
		struct fuse_open_in oi = { .flags = O_RDONLY };
		struct fuse_open_out oo;
		struct fuse_read_in ri = { .size = 64 };
		struct fuse_release_in rel = { 0 };
		char data[64];
		int r = lookup(1, "A", &root);

		if (r == -ENOENT) {
			usleep(20);  /* between rounds: leave the cores to the attach */
			continue;
		}
		if (r) {
			atomic_fetch_add(&bad, 1);
			continue;
		}
		r = lookup(root.nodeid, "marker", &m);
		if (r == 0)
			r = hreq(FUSE_OPEN, m.nodeid, &oi, sizeof(oi), NULL, &oo, sizeof(oo));
		if (r == 0) {
			ri.fh = oo.fh;
			r = hreq(FUSE_READ, m.nodeid, &ri, sizeof(ri), NULL, data, sizeof(data));
			rel.fh = oo.fh;
			(void)hreq(FUSE_RELEASE, m.nodeid, &rel, sizeof(rel), NULL, NULL, 0);
		}
		if (r && r != -ESTALE)
			atomic_fetch_add(&bad, 1);
	}
	return NULL;
}

START_TEST(attach_detach_race_requests_in_flight)
{
	pthread_t th[3];
	char adir[300];
	int before;

	snprintf(adir, sizeof(adir), "%s/a", base);
	hub_init();
	before = test_count_fds();
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, hammer, NULL), 0);
	for (int round = 0; round < 100; round++) {
		ck_assert_int_eq(fuse_hub_attach(hub, "A", "a", false), 0);
		usleep(200);
		ck_assert_int_eq(fuse_hub_detach(hub, "A"), 0);
		ck_assert(!fd_under(adir));
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	ck_assert_uint_eq(atomic_load(&bad), 0);
	ck_assert_int_eq(test_count_fds(), before);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_hub");
	TCase *tc = tcase_create("hub");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, root_is_a_readonly_directory_of_no_shares);
	tcase_add_test(tc, attached_share_is_a_submount_with_its_files);
	tcase_add_test(tc, dotdot_and_unknown_names_and_ids);
	tcase_add_test(tc, detach_answers_estale_and_closes_every_fd);
	tcase_add_test(tc, attach_checks_names_paths_and_bounds);
	tcase_add_test(tc, attach_detach_race_requests_in_flight);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
