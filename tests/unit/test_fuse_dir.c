// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE server's directories and share-wide behaviour: READDIR and
 * READDIRPLUS (paged by offsets, lookups counted, run as the caller),
 * xattrs with and without `xattr`, cache modes and writeback, readonly
 * shares, bounded tables, submounts and the DAX hook. Per-op basics are
 * in test_fuse.c.
 */
#include "tests/unit/test_fuse_util.h"

#include <pthread.h>
#include <limits.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/mount.h>
#include <sys/xattr.h>

#include "tests/unit/check_main.h"
#include "tests/unit/submount.h"

static bool has_name(const uint8_t *buf, size_t len, const char *name, bool plus)
{
	for (size_t off = 0; off < len;) {
		const struct fuse_dirent *d = (const void *)(buf + off +
			(plus ? offsetof(struct fuse_direntplus, dirent) : 0));
		if (d->namelen == strlen(name) && memcmp(d->name, name, d->namelen) == 0)
			return true;
		off += plus ? FUSE_DIRENTPLUS_SIZE((const struct fuse_direntplus *)(buf + off))
			    : FUSE_DIRENT_SIZE(d);
	}
	return false;
}

/* Directory "dd" of 300 files file_000..file_299 (302 entries with . and ..). */
static uint64_t make_dd(void)
{
	char name[32];

	ck_assert_int_eq(mkdir(tf_path("dd"), 0755), 0);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "dd/file_%03d", i);
		tf_write_host(name, "x");
	}
	return tf_nodeid(FUSE_ROOT_ID, "dd");
}

/* Reads a whole directory in small replies; counts entries seen. */
static int read_all(uint64_t fh, uint32_t op, uint32_t size, int *dots)
{
	static uint8_t buf[65536];
	uint64_t off = 0;
	int n = 0;

	for (;;) {
		struct fuse_read_in in = { .fh = fh, .offset = off, .size = size };
		ck_assert_int_eq(tf_req(op, 1, &in, sizeof(in), NULL, NULL, buf, sizeof(buf)), 0);
		size_t len = tf_payload();
		ck_assert_uint_le(len, size);
		if (len == 0)
			return n;
		for (size_t p = 0; p < len;) {
			const struct fuse_direntplus *dp = (const void *)(buf + p);
			const struct fuse_dirent *d = op == FUSE_READDIRPLUS ? &dp->dirent
									     : (const void *)(buf + p);
			if (d->name[0] == '.' && (d->namelen == 1 || (d->namelen == 2 && d->name[1] == '.')))
				(*dots)++;
			else if (op == FUSE_READDIRPLUS)
				ck_assert_uint_ne(dp->entry_out.nodeid, 0);
			n++;
			off = d->off;
			p += op == FUSE_READDIRPLUS ? FUSE_DIRENTPLUS_SIZE(dp) : FUSE_DIRENT_SIZE(d);
		}
	}
}

START_TEST(readdir_and_plus)
{
	struct fuse_open_out oo;
	struct fuse_open_in oi = { .flags = O_RDONLY };
	int dots = 0;

	uint64_t dd = make_dd();
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, dd, &oi, sizeof(oi), NULL, NULL, &oo, sizeof(oo)), 0);
	ck_assert_int_eq(read_all(oo.fh, FUSE_READDIR, 1024, &dots), 302);
	ck_assert_int_eq(dots, 2);
	dots = 0;
	ck_assert_int_eq(read_all(oo.fh, FUSE_READDIRPLUS, 4096, &dots), 302);
	/* READDIRPLUS counted a lookup: one FORGET drops the entry. */
	struct fuse_entry_out e;
	ck_assert_int_eq(tf_lookup(dd, "file_007", &e), 0);
	struct fuse_forget_in fin = { .nlookup = 2 };
	tf_send(tf_build(FUSE_FORGET, e.nodeid, &fin, sizeof(fin), NULL, NULL, NULL, 0), NULL);
	ck_assert_int_eq(tf_getattr(e.nodeid, NULL), -ENOENT);

	static uint8_t buf[8192];
	struct fuse_read_in ri = { .fh = oo.fh, .size = sizeof(buf) };
	ck_assert_int_eq(tf_req(FUSE_READDIR, 1, &ri, sizeof(ri), NULL, NULL, buf, sizeof(buf)), 0);
	ck_assert(has_name(buf, tf_payload(), "file_000", false));

	struct fuse_fsync_in fs = { .fh = oo.fh };
	ck_assert_int_eq(tf_req(FUSE_FSYNCDIR, dd, &fs, sizeof(fs), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(tf_release(oo.fh, FUSE_RELEASEDIR), 0);
	ck_assert_int_eq(tf_req(FUSE_READDIR, 1, &ri, sizeof(ri), NULL, NULL, NULL, 0), -EBADF);
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, tf_nodeid(dd, "file_001"), &oi, sizeof(oi),
				NULL, NULL, NULL, 0), -ENOTDIR);
}
END_TEST

/* One READDIR page of a directory of n numbered files: counts its names in
 * seen[] ("." and ".." at n and n + 1), returns the last offset in it, or
 * 0 at the end. */
static uint64_t read_page(uint64_t fh, uint64_t off, int *seen, int n, char *first, size_t flen)
{
	static uint8_t buf[2048];
	struct fuse_read_in in = { .fh = fh, .offset = off, .size = 1024 };
	uint64_t last = 0;

	ck_assert_int_eq(tf_req(FUSE_READDIR, 1, &in, sizeof(in), NULL, NULL, buf, sizeof(buf)), 0);
	for (size_t p = 0, len = tf_payload(); p < len;) {
		const struct fuse_dirent *d = (const void *)(buf + p);
		int i = n;
		if (d->namelen == 1 && d->name[0] == '.')
			i = n;
		else if (d->namelen == 2 && memcmp(d->name, "..", 2) == 0)
			i = n + 1;
		else {
			char nm[NAME_MAX + 1];
			snprintf(nm, sizeof(nm), "%.*s", (int)d->namelen, d->name);
			ck_assert_int_eq(sscanf(nm, "%*[a-z_]%d", &i), 1);
		}
		ck_assert_msg(i >= 0 && i < n + 2, "unexpected name %.*s", (int)d->namelen, d->name);
		if (p == 0 && first)
			snprintf(first, flen, "%.*s", (int)d->namelen, d->name);
		seen[i]++;
		last = d->off;
		p += FUSE_DIRENT_SIZE(d);
	}
	return last;
}

/*
 * The continuation buffer (fs/fuse/fuse_ops_dir.c) serves only the handle and
 * offset it was read for: a second handle asking for the same offset, or
 * the first one rewinding, must get exactly the host's entries, with none
 * missing and none twice.
 */
START_TEST(readdir_continuation_stays_in_place)
{
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out a, b;
	char first[32], again[32];
	int seen[302] = { 0 };

	uint64_t dd = make_dd();
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, dd, &oi, sizeof(oi), NULL, NULL, &a, sizeof(a)), 0);
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, dd, &oi, sizeof(oi), NULL, NULL, &b, sizeof(b)), 0);

	/* A reads one page (leaving entries behind), then rewinds: its first
	 * page again, not what it left behind. */
	int again_seen[302] = { 0 };
	uint64_t off = read_page(a.fh, 0, again_seen, 300, first, sizeof(first));
	ck_assert_uint_ne(off, 0);
	ck_assert_uint_eq(read_page(a.fh, 0, seen, 300, again, sizeof(again)), off);
	ck_assert_str_eq(again, first);

	/* B, never read, goes on from A's offset. */
	while ((off = read_page(b.fh, off, seen, 300, NULL, 0)) != 0)
		;
	for (int i = 0; i < 302; i++)
		ck_assert_msg(seen[i] == 1, "entry %d seen %d times", i, seen[i]);
	ck_assert_int_eq(tf_release(a.fh, FUSE_RELEASEDIR), 0);
	ck_assert_int_eq(tf_release(b.fh, FUSE_RELEASEDIR), 0);
}
END_TEST

static int count_seen(const int *seen, int n)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += seen[i];
	return c;
}

/* A second serving thread, run in steps: READDIR from 0 on, then idle. */
struct stepper {
	pthread_t t;
	sem_t go, done;
	uint64_t fh;
	int *seen, n;
	bool idle_worked;
};

static void *stepper_main(void *arg)
{
	struct stepper *st = arg;

	uint64_t off = 0;
	int got = 0;

	/* Far enough that its continuation is at most half full: idle would read. */
	sem_wait(&st->go);
	while (got < st->n * 3 / 5 && (off = read_page(st->fh, off, st->seen, st->n, NULL, 0)))
		got = count_seen(st->seen, st->n + 2);
	sem_post(&st->done);
	sem_wait(&st->go);
	st->idle_worked = fuse_server_idle(srv);
	sem_post(&st->done);
	return NULL;
}

static void step(struct stepper *st)
{
	sem_post(&st->go);
	sem_wait(&st->done);
}

static void assert_each_once(const int *seen, int n)
{
	for (int i = 0; i < n; i++)
		ck_assert_msg(seen[i] == 1, "entry %d seen %d times", i, seen[i]);
}

#define BIG 2500   /* more host entries than one continuation buffer holds */

/*
 * Read-ahead (fuse_server_idle) tops up the continuation of the handle
 * this thread read last: reading on with it sees every entry once; a
 * handle released meanwhile is left alone; and a thread whose READDIR is
 * no longer the handle's last may read ahead for the one that is (the
 * entries stay the handle's), which still sees every entry once.
 */
START_TEST(readdir_read_ahead_stays_in_place)
{
	static int seen[BIG + 2];
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out a, b;
	char name[32];
	uint64_t off = 0;

	ck_assert_int_eq(mkdir(tf_path("big"), 0755), 0);
	for (int i = 0; i < BIG; i++) {
		snprintf(name, sizeof(name), "big/g%05d", i);
		tf_write_host(name, "");
	}
	uint64_t big = tf_nodeid(FUSE_ROOT_ID, "big");
	ck_assert(!fuse_server_idle(srv));   /* nothing asked for yet */
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, big, &oi, sizeof(oi), NULL, NULL, &a, sizeof(a)), 0);
	int pages = 0, ahead = 0;
	do {
		off = read_page(a.fh, off, seen, BIG, NULL, 0);
		pages++;
		ahead += fuse_server_idle(srv);
	} while (off);
	assert_each_once(seen, BIG + 2);
	ck_assert_int_gt(ahead, pages / 100);  /* it did read ahead, more than once */

	/* Released between its READDIR and the idle call: nothing to do. */
	ck_assert_uint_ne(read_page(a.fh, 0, seen, BIG, NULL, 0), 0);
	ck_assert_int_eq(tf_release(a.fh, FUSE_RELEASEDIR), 0);
	ck_assert(!fuse_server_idle(srv));

	/* Another thread read B first; this thread's READDIR on B came after. */
	static int other[BIG + 2];
	struct stepper st = { .seen = other, .n = BIG };
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, big, &oi, sizeof(oi), NULL, NULL, &b, sizeof(b)), 0);
	st.fh = b.fh;
	sem_init(&st.go, 0, 0);
	sem_init(&st.done, 0, 0);
	ck_assert_int_eq(pthread_create(&st.t, NULL, stepper_main, &st), 0);
	step(&st);
	memset(seen, 0, sizeof(seen));
	off = read_page(b.fh, 0, seen, BIG, NULL, 0);
	step(&st);                            /* its idle: not its READDIR any more */
	pthread_join(st.t, NULL);
	while ((off = read_page(b.fh, off, seen, BIG, NULL, 0)) != 0)
		;
	assert_each_once(seen, BIG + 2);
	ck_assert_int_eq(tf_release(b.fh, FUSE_RELEASEDIR), 0);
}
END_TEST

/*
 * Directory buffers have one budget for the process: handles that each
 * stopped midway keep theirs up to it and the one past it gets ENOMEM; a
 * directory read to its end keeps none, which makes room again.
 */
START_TEST(readdir_buffers_are_budgeted)
{
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out o[6];
	static uint8_t buf[8192];
	uint64_t dd = make_dd();
	int dots = 0;

	ck_assert_uint_eq(fuse_dir_bytes(), 0);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(tf_req(FUSE_OPENDIR, dd, &oi, sizeof(oi), NULL, NULL, &o[i], sizeof(o[i])), 0);
	/* A 4 KiB READDIR keeps 8 KiB and a little: five of them fit. */
	fuse_dir_set_budget(5 * (8192 + 64));
	for (int i = 0; i < 5; i++) {
		struct fuse_read_in in = { .fh = o[i].fh, .size = 4096 };
		ck_assert_int_eq(tf_req(FUSE_READDIR, 1, &in, sizeof(in), NULL, NULL, buf, sizeof(buf)), 0);
		ck_assert_uint_gt(tf_payload(), 0);
	}
	size_t held = fuse_dir_bytes();
	ck_assert_uint_le(held, fuse_dir_budget());
	struct fuse_read_in in5 = { .fh = o[5].fh, .size = 4096 };
	ck_assert_int_eq(tf_req(FUSE_READDIR, 1, &in5, sizeof(in5), NULL, NULL, buf, sizeof(buf)), -ENOMEM);
	/* Handle 0 read to its end (still open) gives its buffer back... */
	ck_assert_int_eq(read_all(o[0].fh, FUSE_READDIR, 4096, &dots), 302);
	ck_assert_uint_eq(fuse_dir_bytes(), held / 5 * 4);
	/* ... and the sixth may read now. */
	ck_assert_int_eq(tf_req(FUSE_READDIR, 1, &in5, sizeof(in5), NULL, NULL, buf, sizeof(buf)), 0);
	ck_assert_uint_gt(tf_payload(), 0);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(tf_release(o[i].fh, FUSE_RELEASEDIR), 0);
	ck_assert_uint_eq(fuse_dir_bytes(), 0);
	fuse_dir_set_budget(0);
}
END_TEST

#define NHANDLES 16

/*
 * What a handle read and did not send stays with it: sixteen handles on
 * one directory read a page each in turn (one queue shared by sixteen
 * readers) each see every entry once, none twice, none skipped, and one
 * of them rewinding midway sees its first page again.
 */
START_TEST(readdir_interleaved_handles_keep_their_place)
{
	static int seen[NHANDLES][BIG + 2];
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out o[NHANDLES];
	uint64_t off[NHANDLES] = { 0 };
	char name[32], first[32], again[32];
	bool going = true;

	ck_assert_int_eq(mkdir(tf_path("big"), 0755), 0);
	for (int i = 0; i < BIG; i++) {
		snprintf(name, sizeof(name), "big/g%05d", i);
		tf_write_host(name, "");
	}
	uint64_t big = tf_nodeid(FUSE_ROOT_ID, "big");
	for (int k = 0; k < NHANDLES; k++)
		ck_assert_int_eq(tf_req(FUSE_OPENDIR, big, &oi, sizeof(oi), NULL, NULL,
					&o[k], sizeof(o[k])), 0);
	static int scratch[BIG + 2];
	ck_assert_uint_ne(read_page(o[0].fh, 0, scratch, BIG, first, sizeof(first)), 0);
	for (int round = 0; going; round++) {
		going = false;
		for (int k = 0; k < NHANDLES; k++) {
			if (round && !off[k])
				continue;   /* this one is done */
			off[k] = read_page(o[k].fh, off[k], seen[k], BIG, NULL, 0);
			going |= off[k] != 0;
			if (k == 1 && round == 3) {
				/* A rewind among the others: its first page again. */
				memset(scratch, 0, sizeof(scratch));
				ck_assert_uint_ne(read_page(o[0].fh, 0, scratch, BIG, again,
							    sizeof(again)), 0);
				ck_assert_str_eq(again, first);
			}
		}
	}
	for (int k = 0; k < NHANDLES; k++) {
		assert_each_once(seen[k], BIG + 2);
		ck_assert_int_eq(tf_release(o[k].fh, FUSE_RELEASEDIR), 0);
	}
}
END_TEST

START_TEST(xattrs)
{
	char buf[256] = { 0 };
	struct fuse_getxattr_out go;
	struct {
		struct fuse_setxattr_in in;
		char rest[64];
	} sx;

	tf_write_host("x", "x");
	uint64_t x = tf_nodeid(FUSE_ROOT_ID, "x");
	/* SETXATTR: compat header (8 bytes), name, value. */
	struct fuse_setxattr_in in = { .size = 5 };
	memcpy(&sx, &in, 8);
	memcpy((char *)&sx + 8, "user.k\0value", 12);
	size_t len = tf_build(FUSE_SETXATTR, x, &sx, 8 + 12, NULL, NULL, NULL, 0);
	ck_assert_int_gt(tf_send(len, NULL), 0);
	ck_assert_int_eq(tf_oh.error, 0);
	ck_assert_int_eq(getxattr(tf_path("x"), "user.k", buf, sizeof(buf)), 5);

	struct fuse_getxattr_in gi = { .size = 0 };
	ck_assert_int_eq(tf_req(FUSE_GETXATTR, x, &gi, sizeof(gi), "user.k", NULL, &go, sizeof(go)), 0);
	ck_assert_uint_eq(go.size, 5);
	gi.size = 64;
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(tf_req(FUSE_GETXATTR, x, &gi, sizeof(gi), "user.k", NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "value");
	gi.size = 2;
	ck_assert_int_eq(tf_req(FUSE_GETXATTR, x, &gi, sizeof(gi), "user.k", NULL, NULL, 0), -ERANGE);
	gi.size = 64;
	ck_assert_int_eq(tf_req(FUSE_GETXATTR, x, &gi, sizeof(gi), "user.none", NULL, NULL, 0),
			 -ENODATA);
	ck_assert_int_eq(tf_req(FUSE_LISTXATTR, x, &gi, sizeof(gi), NULL, NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "user.k");
	ck_assert_int_eq(tf_req(FUSE_REMOVEXATTR, x, NULL, 0, "user.k", NULL, NULL, 0), 0);
	ck_assert_int_eq(getxattr(tf_path("x"), "user.k", buf, sizeof(buf)), -1);

	/* Without `xattr`: ENOSYS, so the client stops asking. */
	struct fs_options o;
	fs_options_default(&o);
	tf_start(&o, NULL, true);
	x = tf_nodeid(FUSE_ROOT_ID, "x");
	ck_assert_int_eq(tf_req(FUSE_GETXATTR, x, &gi, sizeof(gi), "user.k", NULL, NULL, 0), -ENOSYS);
	ck_assert_int_eq(tf_req(FUSE_LISTXATTR, x, &gi, sizeof(gi), NULL, NULL, NULL, 0), -ENOSYS);
	ck_assert_int_eq(tf_req(FUSE_REMOVEXATTR, x, NULL, 0, "user.k", NULL, NULL, 0), -ENOSYS);
	ck_assert_int_eq(tf_send(tf_build(FUSE_SETXATTR, x, &sx, 8 + 12, NULL, NULL, NULL, 0),
				 NULL), 16);
	ck_assert_int_eq(tf_oh.error, -ENOSYS);
}
END_TEST

START_TEST(cache_modes_and_writeback)
{
	struct fs_options o;
	struct fuse_entry_out e;
	uint64_t fh;
	uint8_t out[sizeof(struct fuse_entry_out) + sizeof(struct fuse_open_out)];
	struct fuse_create_in ci = { .flags = O_WRONLY, .mode = S_IFREG | 0644 };
	char buf[8] = { 0 };

	fs_options_default(&o);
	o.cache = FS_CACHE_NEVER;
	tf_start(&o, NULL, true);
	ck_assert_int_eq(tf_req(FUSE_CREATE, 1, &ci, sizeof(ci), "n", NULL, out, sizeof(out)), 0);
	memcpy(&e, out, sizeof(e));
	ck_assert_uint_eq(e.entry_valid, 0);
	ck_assert_uint_eq(e.attr_valid, 0);
	ck_assert(((struct fuse_open_out *)(out + sizeof(e)))->open_flags & FOPEN_DIRECT_IO);

	o.cache = FS_CACHE_ALWAYS;
	o.writeback = true;
	tf_start(&o, NULL, true);
	ck_assert(tf_init.flags & FUSE_WRITEBACK_CACHE);
	ck_assert(tf_init.flags & FUSE_CACHE_SYMLINKS);
	ck_assert_int_eq(tf_req(FUSE_CREATE, 1, &ci, sizeof(ci), "a", NULL, out, sizeof(out)), 0);
	memcpy(&e, out, sizeof(e));
	ck_assert_uint_eq(e.entry_valid, 86400);
	ck_assert(((struct fuse_open_out *)(out + sizeof(e)))->open_flags & FOPEN_KEEP_CACHE);
	/* Writeback: a write-only open can still be read (page fills). */
	fh = ((struct fuse_open_out *)(out + sizeof(e)))->fh;
	ck_assert_int_eq(tf_write(fh, 0, "wb", 2, 0), 0);
	ck_assert_int_eq(tf_read(fh, 0, buf, 2), 2);
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out oo;
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, 1, &oi, sizeof(oi), NULL, NULL, &oo, sizeof(oo)), 0);
	ck_assert(oo.open_flags & FOPEN_CACHE_DIR);
}
END_TEST

START_TEST(readonly_share)
{
	struct fs_options o;
	uint64_t fh;
	char buf[4];

	tf_write_host("r", "ro");
	ck_assert_int_eq(mkdir(tf_path("d"), 0755), 0);
	fs_options_default(&o);
	o.readonly = true;
	o.xattr = true;
	o.writeback = true;
	tf_start(&o, NULL, true);
	ck_assert(!(tf_init.flags & FUSE_WRITEBACK_CACHE));
	uint64_t r = tf_nodeid(1, "r");
	struct fuse_setattr_in sa = { .valid = FATTR_MODE, .mode = 0 };
	struct fuse_mknod_in mk = { .mode = S_IFREG | 0644 };
	struct fuse_mkdir_in md = { .mode = 0755 };
	struct fuse_rename_in rn = { .newdir = 1 };
	struct fuse_rename2_in r2 = { .newdir = 1 };
	struct fuse_link_in li = { .oldnodeid = r };
	struct fuse_create_in ci = { .flags = O_RDWR, .mode = S_IFREG | 0644 };
	struct fuse_setxattr_in si = { .size = 1 };
	struct fuse_fallocate_in fa = { .length = 1 };
	struct fuse_copy_file_range_in cf = { .len = 1 };

	ck_assert_int_eq(tf_req(FUSE_SETATTR, r, &sa, sizeof(sa), NULL, NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_SYMLINK, 1, NULL, 0, "s", "t", NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_MKNOD, 1, &mk, sizeof(mk), "m", NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_MKDIR, 1, &md, sizeof(md), "m", NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_UNLINK, 1, NULL, 0, "r", NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_RMDIR, 1, NULL, 0, "d", NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_RENAME, 1, &rn, sizeof(rn), "r", "q", NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_RENAME2, 1, &r2, sizeof(r2), "r", "q", NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_LINK, 1, &li, sizeof(li), "l", NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_CREATE, 1, &ci, sizeof(ci), "c", NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_TMPFILE, 1, &ci, sizeof(ci), NULL, NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_SETXATTR, r, &si, 8, "user.a", "b", NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_REMOVEXATTR, r, NULL, 0, "user.a", NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_FALLOCATE, r, &fa, sizeof(fa), NULL, NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(tf_req(FUSE_COPY_FILE_RANGE, r, &cf, sizeof(cf), NULL, NULL, NULL, 0),
			 -EROFS);
	ck_assert_int_eq(tf_open(r, O_RDWR, &fh), -EROFS);
	ck_assert_int_eq(tf_open(r, O_RDONLY | O_TRUNC, &fh), -EROFS);
	ck_assert_int_eq(tf_open(r, O_RDONLY, &fh), 0);
	ck_assert_int_eq(tf_write(fh, 0, "x", 1, 0), -EROFS);
	ck_assert_int_eq(tf_read(fh, 0, buf, 2), 2);
	struct fuse_access_in ac = { .mask = W_OK };
	ck_assert_int_eq(tf_req(FUSE_ACCESS, r, &ac, sizeof(ac), NULL, NULL, NULL, 0), -EROFS);
}
END_TEST

START_TEST(tables_are_bounded)
{
	struct fs_options o;
	struct fuse_server_params p = { .max_inodes = 4, .max_handles = 2 };
	struct fuse_entry_out e[6];
	char name[16];
	uint64_t fh[3];

	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		tf_write_host(name, "x");
	}
	fs_options_default(&o);
	tf_start(&o, &p, true);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		ck_assert_int_eq(tf_lookup(1, name, &e[i]), 0);
	}
	ck_assert_int_eq(tf_lookup(1, "f4", &e[4]), -ENFILE);
	ck_assert_int_eq(tf_lookup(1, "f0", &e[5]), 0); /* known: no new slot */
	struct fuse_forget_in fin = { .nlookup = 1 };
	tf_send(tf_build(FUSE_FORGET, e[1].nodeid, &fin, sizeof(fin), NULL, NULL, NULL, 0), NULL);
	ck_assert_int_eq(tf_lookup(1, "f4", &e[4]), 0);
	/* The recycled slot has a new generation: the old id stays dead. */
	ck_assert_uint_eq(e[4].nodeid & 0xffffffffu, e[1].nodeid & 0xffffffffu);
	ck_assert_int_eq(tf_getattr(e[1].nodeid, NULL), -ENOENT);

	ck_assert_int_eq(tf_open(e[0].nodeid, O_RDONLY, &fh[0]), 0);
	ck_assert_int_eq(tf_open(e[0].nodeid, O_RDONLY, &fh[1]), 0);
	ck_assert_int_eq(tf_open(e[0].nodeid, O_RDONLY, &fh[2]), -ENFILE);
	ck_assert_int_eq(tf_release(fh[0], FUSE_RELEASE), 0);
	ck_assert_int_eq(tf_open(e[0].nodeid, O_RDONLY, &fh[2]), 0);
	ck_assert_uint_ne(fh[2], fh[0]);

	/* A full table: READDIRPLUS sends entries without attributes (nodeid 0). */
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out oo;
	ck_assert_int_eq(tf_release(fh[1], FUSE_RELEASE), 0);
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, 1, &oi, sizeof(oi), NULL, NULL, &oo, sizeof(oo)), 0);
	static uint8_t buf[8192];
	struct fuse_read_in ri = { .fh = oo.fh, .size = sizeof(buf) };
	ck_assert_int_eq(tf_req(FUSE_READDIRPLUS, 1, &ri, sizeof(ri), NULL, NULL, buf, sizeof(buf)), 0);
	int zero = 0, total = 0;
	for (size_t off = 0; off < tf_payload(); total++) {
		const struct fuse_direntplus *dp = (const void *)(buf + off);
		zero += dp->entry_out.nodeid == 0;
		off += FUSE_DIRENTPLUS_SIZE(dp);
	}
	ck_assert_int_eq(total, 8);
	ck_assert_int_ge(zero, 3); /* ".", ".." and the files that found no slot */
}
END_TEST


START_TEST(readdirplus_runs_as_caller)
{
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out oo;
	static uint8_t buf[8192];

	ck_assert_int_eq(mkdir(tf_path("nox"), 0744), 0);
	tf_write_host("nox/secret", "x");
	uint64_t d = tf_nodeid(1, "nox");
	tf_uid = tf_gid = 1000;
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, d, &oi, sizeof(oi), NULL, NULL, &oo, sizeof(oo)), 0);
	struct fuse_read_in ri = { .fh = oo.fh, .size = sizeof(buf) };
	ck_assert_int_eq(tf_req(FUSE_READDIRPLUS, 1, &ri, sizeof(ri), NULL, NULL, buf, sizeof(buf)), 0);
	int named = 0;
	for (size_t off = 0; off < tf_payload();) {
		const struct fuse_direntplus *dp = (const void *)(buf + off);
		if (dp->dirent.namelen == 6) {
			named++;
			ck_assert_uint_eq(dp->entry_out.nodeid, 0); /* no search permission */
		}
		off += FUSE_DIRENTPLUS_SIZE(dp);
	}
	ck_assert_int_eq(named, 1);
	tf_uid = tf_gid = 0;
	ck_assert_int_eq(tf_req(FUSE_READDIRPLUS, 1, &ri, sizeof(ri), NULL, NULL, buf, sizeof(buf)), 0);
	const struct fuse_direntplus *dp = (const void *)buf;
	bool found = false;
	for (size_t off = 0; off < tf_payload(); off += FUSE_DIRENTPLUS_SIZE(dp)) {
		dp = (const void *)(buf + off);
		found |= dp->dirent.namelen == 6 && dp->entry_out.nodeid != 0;
	}
	ck_assert(found);
}
END_TEST

/* tmpfs mounted at "sub" in a mount namespace of this forked test's own. */
static const char *submount_failed;

static void make_submount(void)
{
	submount_failed = submount_make(tf_path("sub"));
}

static void setup_submount(void)
{
	tf_before_serving = make_submount;
	tf_setup();
}

static void teardown_submount(void)
{
	submount_undo();        /* first: the share cannot go while mounted on */
	tf_teardown();
}

START_TEST(submounts_are_announced)
{
	struct fuse_entry_out e;
	struct stat st;

	if (submount_failed)
		UNIT_SKIP("%s", submount_failed);
	tf_write_host("sub/f", "x");
	tf_write_host("plain", "x");
	ck_assert_int_eq(stat(tf_path("sub/f"), &st), 0);
	/* The server's root fd must come from this namespace to see the mount. */
	struct fs_options o;
	fs_options_default(&o);
	tf_start(&o, NULL, true);
	ck_assert_int_eq(tf_lookup(1, "sub", &e), 0);
	ck_assert(e.attr.flags & FUSE_ATTR_SUBMOUNT);
	uint64_t sub = e.nodeid;
	ck_assert_int_eq(tf_getattr(sub, NULL), 0);
	struct fuse_attr_out ao;
	struct fuse_getattr_in gi = { 0 };
	ck_assert_int_eq(tf_req(FUSE_GETATTR, sub, &gi, sizeof(gi), NULL, NULL, &ao, sizeof(ao)), 0);
	ck_assert(ao.attr.flags & FUSE_ATTR_SUBMOUNT); /* stable across replies */
	ck_assert_int_eq(tf_lookup(1, "plain", &e), 0);
	ck_assert(!(e.attr.flags & FUSE_ATTR_SUBMOUNT));
	ck_assert_int_eq(tf_lookup(sub, "f", &e), 0);
	ck_assert_uint_eq(e.attr.ino, st.st_ino); /* its own superblock on the client */

	/* A client without submounts sees one st_dev: inode numbers get a tag. */
	tf_start(&o, NULL, false);
	tf_do_init(TF_ALL_FLAGS & ~FUSE_SUBMOUNTS);
	ck_assert_int_eq(tf_lookup(1, "sub", &e), 0);
	ck_assert(!(e.attr.flags & FUSE_ATTR_SUBMOUNT));
	ck_assert_int_eq(tf_lookup(e.nodeid, "f", &e), 0);
	ck_assert_uint_ne(e.attr.ino, st.st_ino);
	ck_assert_uint_ne(e.attr.ino >> 56, 0);
	ck_assert_uint_eq(e.attr.ino & ((1ull << 56) - 1), st.st_ino);
	/* The mount goes with this forked test's namespace. */
}
END_TEST

static int dax_calls;
static int fake_setup(void *ctx, int fd, uint64_t fo, uint64_t len, uint64_t mo, bool w)
{
	dax_calls++;
	return fd >= 0 && fo == 4096 && len == 8192 && mo == 0 && !w ? 0 : -EINVAL;
}
static int fake_remove(void *ctx, uint64_t mo, uint64_t len)
{
	dax_calls++;
	return 0;
}

START_TEST(dax_hook)
{
	struct fuse_setupmapping_in sm = { .foffset = 4096, .len = 8192,
					   .flags = FUSE_SETUPMAPPING_FLAG_READ };
	static const struct fuse_dax_ops ops = { fake_setup, fake_remove };
	struct fuse_server_params p = { .dax = &ops };
	struct fs_options o;
	uint64_t fh;

	tf_write_host("m", "x");
	ck_assert_int_eq(tf_open(tf_nodeid(1, "m"), O_RDONLY, &fh), 0);
	sm.fh = fh;
	ck_assert_int_eq(tf_req(FUSE_SETUPMAPPING, 1, &sm, sizeof(sm), NULL, NULL, NULL, 0), -ENOSYS);
	fs_options_default(&o);
	tf_start(&o, &p, true);
	ck_assert_int_eq(tf_open(tf_nodeid(1, "m"), O_RDONLY, &fh), 0);
	sm.fh = fh;
	ck_assert_int_eq(tf_req(FUSE_SETUPMAPPING, 1, &sm, sizeof(sm), NULL, NULL, NULL, 0), 0);
	sm.flags = FUSE_SETUPMAPPING_FLAG_WRITE;
	ck_assert_int_eq(tf_req(FUSE_SETUPMAPPING, 1, &sm, sizeof(sm), NULL, NULL, NULL, 0), -EACCES);
	sm.foffset = 1;
	ck_assert_int_eq(tf_req(FUSE_SETUPMAPPING, 1, &sm, sizeof(sm), NULL, NULL, NULL, 0), -EINVAL);
	struct {
		struct fuse_removemapping_in in;
		struct fuse_removemapping_one one;
	} __attribute__((packed)) rm = { { 1 }, { 0, 8192 } };
	ck_assert_int_eq(tf_req(FUSE_REMOVEMAPPING, 1, &rm, sizeof(rm), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(dax_calls, 2);
	/* What Linux sends: no handle (fh = -1), the file named by nodeid. */
	sm = (struct fuse_setupmapping_in){ .fh = UINT64_MAX, .foffset = 4096, .len = 8192,
					    .flags = FUSE_SETUPMAPPING_FLAG_READ };
	ck_assert_int_eq(tf_req(FUSE_SETUPMAPPING, tf_nodeid(1, "m"), &sm, sizeof(sm),
				NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(dax_calls, 3);
	/* A directory cannot be mapped. */
	ck_assert_int_eq(tf_req(FUSE_SETUPMAPPING, 1, &sm, sizeof(sm), NULL, NULL, NULL, 0),
			 -EINVAL);
	ck_assert_int_eq(dax_calls, 3);
}
END_TEST

/* A readonly share never hands out a writable mapping. */
START_TEST(dax_readonly_refuses_writable_mappings)
{
	struct fuse_setupmapping_in sm = { .fh = UINT64_MAX, .len = 4096,
					   .flags = FUSE_SETUPMAPPING_FLAG_READ |
						    FUSE_SETUPMAPPING_FLAG_WRITE };
	static const struct fuse_dax_ops ops = { fake_setup, fake_remove };
	struct fuse_server_params p = { .dax = &ops };
	struct fs_options o;

	tf_write_host("m", "x");
	fs_options_default(&o);
	o.readonly = true;
	tf_start(&o, &p, true);
	dax_calls = 0;
	ck_assert_int_eq(tf_req(FUSE_SETUPMAPPING, tf_nodeid(1, "m"), &sm, sizeof(sm),
				NULL, NULL, NULL, 0), -EROFS);
	ck_assert_int_eq(dax_calls, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_dir");
	TCase *tc = tcase_create("dirs_and_shares");

	tcase_add_checked_fixture(tc, tf_setup, tf_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, readdir_and_plus);
	tcase_add_test(tc, readdir_continuation_stays_in_place);
	tcase_add_test(tc, readdir_read_ahead_stays_in_place);
	tcase_add_test(tc, readdir_interleaved_handles_keep_their_place);
	tcase_add_test(tc, readdir_buffers_are_budgeted);
	tcase_add_test(tc, readdirplus_runs_as_caller);
	tcase_add_test(tc, xattrs);
	tcase_add_test(tc, cache_modes_and_writeback);
	tcase_add_test(tc, readonly_share);
	tcase_add_test(tc, tables_are_bounded);
	tcase_add_test(tc, dax_hook);
	tcase_add_test(tc, dax_readonly_refuses_writable_mappings);
	suite_add_tcase(s, tc);

	tc = tcase_create("submounts");
	tcase_add_checked_fixture(tc, setup_submount, teardown_submount);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, submounts_are_announced);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
