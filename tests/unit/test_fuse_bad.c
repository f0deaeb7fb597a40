// SPDX-License-Identifier: GPL-2.0-only
/*
 * Malformed and hostile FUSE requests: truncated headers, lengths that
 * disagree, unknown opcodes, short arguments, bad names, ids never handed
 * out or already gone, absurd sizes and offsets, symlinks used as
 * directories, and a burst of random garbage. Each must get the right
 * -errno (or, for no-reply ops, nothing) and the server must keep serving.
 */
#include "tests/unit/test_fuse_util.h"

#include <limits.h>

#include "transport/fuse_uring.h"

#include "tests/unit/check_main.h"

/* The reply to raw bytes: its error, after checking the header. */
static int raw(const void *bytes, size_t len, uint64_t unique)
{
	memcpy(tf_inbuf, bytes, len);
	int r = tf_send(len, NULL);

	ck_assert_int_eq(r, (int)sizeof(struct fuse_out_header));
	ck_assert_uint_eq(tf_oh.len, sizeof(struct fuse_out_header));
	ck_assert_uint_eq(tf_oh.unique, unique);
	return tf_oh.error;
}

static void still_serving(void)
{
	ck_assert_int_eq(tf_getattr(FUSE_ROOT_ID, NULL), 0);
}

START_TEST(truncated_header)
{
	struct fuse_in_header h = { .len = 20, .opcode = FUSE_GETATTR, .unique = 9 };

	ck_assert_int_eq(raw(&h, 20, 0), -EINVAL); /* unique unknown: 0 */
	ck_assert_int_eq(raw(&h, 1, 0), -EINVAL);
	still_serving();
}
END_TEST

START_TEST(length_disagrees)
{
	struct fuse_getattr_in gi = { 0 };
	size_t len = tf_build(FUSE_GETATTR, 1, &gi, sizeof(gi), NULL, NULL, NULL, 0);
	struct fuse_in_header h;

	memcpy(&h, tf_inbuf, sizeof(h));
	h.len = (uint32_t)len + 8; /* claims more than arrived */
	memcpy(tf_inbuf, &h, sizeof(h));
	ck_assert_int_eq(tf_send(len, NULL), 16);
	ck_assert_int_eq(tf_oh.error, -EINVAL);
	ck_assert_uint_eq(tf_oh.unique, h.unique);
	h.len = (uint32_t)len - 1; /* claims less */
	memcpy(tf_inbuf, &h, sizeof(h));
	tf_send(len, NULL);
	ck_assert_int_eq(tf_oh.error, -EINVAL);
	h.len = (uint32_t)len;
	h.total_extlen = 100; /* extensions longer than the body */
	memcpy(tf_inbuf, &h, sizeof(h));
	tf_send(len, NULL);
	ck_assert_int_eq(tf_oh.error, -EINVAL);
	still_serving();
}
END_TEST

START_TEST(unknown_opcodes)
{
	static const uint32_t ops[] = { 0, 7, 19, FUSE_BMAP, FUSE_IOCTL, FUSE_POLL,
					FUSE_NOTIFY_REPLY, 53, 1000, CUSE_INIT,
					FUSE_INIT_BSWAP_RESERVED, 0xffffffffu };
	uint8_t arg[64] = { 0 };

	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		ck_assert_int_eq(tf_req(ops[i], 1, arg, sizeof(arg), NULL, NULL, NULL, 0), -ENOSYS);
	still_serving();
}
END_TEST

START_TEST(short_arguments)
{
	static const struct { uint32_t op, size; } ops[] = {
		{ FUSE_GETATTR, sizeof(struct fuse_getattr_in) },
		{ FUSE_SETATTR, sizeof(struct fuse_setattr_in) },
		{ FUSE_OPEN, sizeof(struct fuse_open_in) },
		{ FUSE_OPENDIR, sizeof(struct fuse_open_in) },
		{ FUSE_READ, sizeof(struct fuse_read_in) },
		{ FUSE_WRITE, sizeof(struct fuse_write_in) },
		{ FUSE_READDIR, sizeof(struct fuse_read_in) },
		{ FUSE_READDIRPLUS, sizeof(struct fuse_read_in) },
		{ FUSE_RELEASE, sizeof(struct fuse_release_in) },
		{ FUSE_RELEASEDIR, sizeof(struct fuse_release_in) },
		{ FUSE_FLUSH, sizeof(struct fuse_flush_in) },
		{ FUSE_FSYNC, sizeof(struct fuse_fsync_in) },
		{ FUSE_FSYNCDIR, sizeof(struct fuse_fsync_in) },
		{ FUSE_GETLK, sizeof(struct fuse_lk_in) },
		{ FUSE_SETLK, sizeof(struct fuse_lk_in) },
		{ FUSE_SETLKW, sizeof(struct fuse_lk_in) },
		{ FUSE_ACCESS, sizeof(struct fuse_access_in) },
		{ FUSE_FALLOCATE, sizeof(struct fuse_fallocate_in) },
		{ FUSE_LSEEK, sizeof(struct fuse_lseek_in) },
		{ FUSE_COPY_FILE_RANGE, sizeof(struct fuse_copy_file_range_in) },
		{ FUSE_GETXATTR, sizeof(struct fuse_getxattr_in) },
		{ FUSE_LISTXATTR, sizeof(struct fuse_getxattr_in) },
		{ FUSE_CREATE, sizeof(struct fuse_create_in) },
		{ FUSE_TMPFILE, sizeof(struct fuse_create_in) },
		{ FUSE_MKNOD, sizeof(struct fuse_mknod_in) },
		{ FUSE_MKDIR, sizeof(struct fuse_mkdir_in) },
		{ FUSE_RENAME, sizeof(struct fuse_rename_in) },
		{ FUSE_RENAME2, sizeof(struct fuse_rename2_in) },
		{ FUSE_LINK, sizeof(struct fuse_link_in) },
		{ FUSE_SYNCFS, sizeof(struct fuse_syncfs_in) },
		{ FUSE_SETUPMAPPING, sizeof(struct fuse_setupmapping_in) },
		{ FUSE_INIT, 16 },
	};
	uint8_t arg[128] = { 0 };

	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t len = tf_build(ops[i].op, 1, arg, ops[i].size - 1, NULL, NULL, NULL, 0);
		ck_assert_int_eq(tf_send(len, NULL), 16);
		ck_assert_msg(tf_oh.error == -EINVAL, "op %u: %d", ops[i].op, tf_oh.error);
	}
	/* Name-only ops with an empty body. */
	ck_assert_int_eq(tf_req(FUSE_LOOKUP, 1, NULL, 0, NULL, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(tf_req(FUSE_UNLINK, 1, NULL, 0, NULL, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(tf_req(FUSE_SYMLINK, 1, "a", 1, NULL, NULL, NULL, 0), -EINVAL);
	still_serving();
}
END_TEST

START_TEST(bad_names)
{
	static const char *const bad[] = { "", ".", "..", "a/b", "/", "../etc", "/etc" };
	char longname[300];
	struct fuse_mkdir_in md = { .mode = 0755 };
	struct fuse_mknod_in mk = { .mode = S_IFREG | 0644 };
	struct fuse_create_in ci = { .flags = O_RDWR, .mode = S_IFREG | 0644 };
	struct fuse_rename_in rn = { .newdir = 1 };
	struct fuse_link_in li;

	tf_write_host("ok", "x");
	li.oldnodeid = tf_nodeid(1, "ok");
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *n = bad[i];
		ck_assert_int_eq(tf_req(FUSE_LOOKUP, 1, NULL, 0, n, NULL, NULL, 0), -EINVAL);
		ck_assert_int_eq(tf_req(FUSE_MKDIR, 1, &md, sizeof(md), n, NULL, NULL, 0), -EINVAL);
		ck_assert_int_eq(tf_req(FUSE_MKNOD, 1, &mk, sizeof(mk), n, NULL, NULL, 0), -EINVAL);
		ck_assert_int_eq(tf_req(FUSE_CREATE, 1, &ci, sizeof(ci), n, NULL, NULL, 0), -EINVAL);
		ck_assert_int_eq(tf_req(FUSE_UNLINK, 1, NULL, 0, n, NULL, NULL, 0), -EINVAL);
		ck_assert_int_eq(tf_req(FUSE_RMDIR, 1, NULL, 0, n, NULL, NULL, 0), -EINVAL);
		ck_assert_int_eq(tf_req(FUSE_SYMLINK, 1, NULL, 0, n, "target", NULL, 0), -EINVAL);
		ck_assert_int_eq(tf_req(FUSE_LINK, 1, &li, sizeof(li), n, NULL, NULL, 0), -EINVAL);
		ck_assert_int_eq(tf_req(FUSE_RENAME, 1, &rn, sizeof(rn), "ok", n, NULL, 0), -EINVAL);
		ck_assert_int_eq(tf_req(FUSE_RENAME, 1, &rn, sizeof(rn), n, "ok2", NULL, 0), -EINVAL);
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ck_assert_int_eq(tf_req(FUSE_LOOKUP, 1, NULL, 0, longname, NULL, NULL, 0), -ENAMETOOLONG);
	/* A name without its terminating NUL. */
	ck_assert_int_eq(tf_req(FUSE_LOOKUP, 1, "abc", 3, NULL, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(tf_req(FUSE_MKDIR, 1, "\xed\x01\0\0\0\0\0\0ab", 10, NULL, NULL, NULL, 0),
			 -EINVAL);
	/* Symlink targets: empty, too long. */
	ck_assert_int_eq(tf_req(FUSE_SYMLINK, 1, NULL, 0, "s", "", NULL, 0), -EINVAL);
	ck_assert_int_eq(tf_req(FUSE_SYMLINK, 1, NULL, 0, "ab", "", NULL, 0), -ENOENT);
	static char huge[PATH_MAX + 10];
	memset(huge, 'x', sizeof(huge) - 1);
	ck_assert_int_eq(tf_req(FUSE_SYMLINK, 1, NULL, 0, "s", huge, NULL, 0), -ENAMETOOLONG);
	/* Nothing appeared next to the share. */
	ck_assert_int_ne(access(tf_path("../etc"), F_OK), 0);
	ck_assert_int_ne(access(tf_path("ok2"), F_OK), 0);
	still_serving();
}
END_TEST

START_TEST(unknown_nodeids)
{
	static const uint64_t ids[] = { 0, 2, 5, 0x100000001ull, 0x100000002ull,
					0xffffffffull, 0xffffffffffffffffull };
	struct fuse_entry_out e;
	struct fuse_mkdir_in md = { .mode = 0755 };

	for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		ck_assert_int_eq(tf_getattr(ids[i], NULL), -ENOENT);
		ck_assert_int_eq(tf_req(FUSE_LOOKUP, ids[i], NULL, 0, "x", NULL, NULL, 0), -ENOENT);
		ck_assert_int_eq(tf_req(FUSE_MKDIR, ids[i], &md, sizeof(md), "x", NULL, NULL, 0),
				 -ENOENT);
		struct fuse_link_in li = { .oldnodeid = ids[i] };
		ck_assert_int_eq(tf_req(FUSE_LINK, 1, &li, sizeof(li), "l", NULL, NULL, 0), -ENOENT);
		/* FORGET of garbage: no reply and no harm. */
		struct fuse_forget_in fin = { .nlookup = 1 };
		ck_assert_int_eq(tf_send(tf_build(FUSE_FORGET, ids[i], &fin, sizeof(fin), NULL,
						  NULL, NULL, 0), NULL), 0);
	}
	/* Forgotten ids stay dead even when the slot is reused. */
	tf_write_host("a", "a");
	tf_write_host("b", "b");
	ck_assert_int_eq(tf_lookup(1, "a", &e), 0);
	uint64_t a = e.nodeid;
	struct fuse_forget_in fin = { .nlookup = 1 };
	tf_send(tf_build(FUSE_FORGET, a, &fin, sizeof(fin), NULL, NULL, NULL, 0), NULL);
	ck_assert_int_eq(tf_lookup(1, "b", &e), 0);
	ck_assert_uint_eq(e.nodeid & 0xffffffffu, a & 0xffffffffu);
	ck_assert_int_eq(tf_getattr(a, NULL), -ENOENT);
	ck_assert_int_eq(tf_req(FUSE_READLINK, a, NULL, 0, NULL, NULL, NULL, 0), -ENOENT);
	still_serving();
}
END_TEST

START_TEST(bad_handles)
{
	uint64_t fh, dfh, n;
	struct fuse_entry_out e;

	ck_assert_int_eq(tf_create(1, "f", O_RDWR, 0644, &e, &fh), 0);
	n = e.nodeid;
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out oo;
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, 1, &oi, sizeof(oi), NULL, NULL, &oo, sizeof(oo)), 0);
	dfh = oo.fh;
	uint64_t released;
	ck_assert_int_eq(tf_open(n, O_RDONLY, &released), 0);
	ck_assert_int_eq(tf_release(released, FUSE_RELEASE), 0);
	const uint64_t bad[] = { 0, 7, fh + (1ull << 32), released, 0xffffffffffffffffull };

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t b = bad[i];
		char buf[8];
		struct fuse_fsync_in fs = { .fh = b };
		struct fuse_flush_in fl = { .fh = b };
		struct fuse_read_in ri = { .fh = b, .size = 100 };
		struct fuse_lk_in lk = { .fh = b, .lk = { .end = 10, .type = F_RDLCK } };
		struct fuse_fallocate_in fa = { .fh = b, .length = 10 };
		struct fuse_lseek_in ls = { .fh = b, .whence = SEEK_DATA };
		struct fuse_copy_file_range_in c1 = { .fh_in = b, .fh_out = fh, .len = 1 };
		struct fuse_copy_file_range_in c2 = { .fh_in = fh, .fh_out = b, .len = 1 };
		struct fuse_setattr_in sa = { .valid = FATTR_FH | FATTR_SIZE, .fh = b };

		ck_assert_int_eq(tf_read(b, 0, buf, 8), -EBADF);
		ck_assert_int_eq(tf_write(b, 0, "x", 1, 0), -EBADF);
		ck_assert_int_eq(tf_release(b, FUSE_RELEASE), -EBADF);
		ck_assert_int_eq(tf_release(b, FUSE_RELEASEDIR), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_FSYNC, n, &fs, sizeof(fs), NULL, NULL, NULL, 0), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_FSYNCDIR, 1, &fs, sizeof(fs), NULL, NULL, NULL, 0), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_FLUSH, n, &fl, sizeof(fl), NULL, NULL, NULL, 0), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_READDIR, 1, &ri, sizeof(ri), NULL, NULL, NULL, 0), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_READDIRPLUS, 1, &ri, sizeof(ri), NULL, NULL, NULL, 0),
				 -EBADF);
		ck_assert_int_eq(tf_req(FUSE_GETLK, n, &lk, sizeof(lk), NULL, NULL, NULL, 0), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_SETLK, n, &lk, sizeof(lk), NULL, NULL, NULL, 0), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_SETLKW, n, &lk, sizeof(lk), NULL, NULL, NULL, 0), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_FALLOCATE, n, &fa, sizeof(fa), NULL, NULL, NULL, 0), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_LSEEK, n, &ls, sizeof(ls), NULL, NULL, NULL, 0), -EBADF);
		ck_assert_int_eq(tf_req(FUSE_COPY_FILE_RANGE, n, &c1, sizeof(c1), NULL, NULL, NULL, 0),
				 -EBADF);
		ck_assert_int_eq(tf_req(FUSE_COPY_FILE_RANGE, n, &c2, sizeof(c2), NULL, NULL, NULL, 0),
				 -EBADF);
		ck_assert_int_eq(tf_req(FUSE_SETATTR, n, &sa, sizeof(sa), NULL, NULL, NULL, 0), -EBADF);
	}
	/* A handle of another inode cannot stand in for this one. */
	tf_write_host("g", "g");
	struct fuse_setattr_in sa = { .valid = FATTR_FH | FATTR_SIZE, .fh = fh, .size = 0 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, tf_nodeid(1, "g"), &sa, sizeof(sa), NULL, NULL,
				NULL, 0), -EBADF);
	/* A directory handle is not a file and vice versa. */
	struct fuse_read_in ri = { .fh = fh, .size = 4096 };
	ck_assert_int_eq(tf_req(FUSE_READDIR, 1, &ri, sizeof(ri), NULL, NULL, NULL, 0), -ENOTDIR);
	char buf[8];
	ck_assert_int_eq(tf_read(dfh, 0, buf, 8), -EISDIR);
	still_serving();
}
END_TEST

START_TEST(absurd_sizes_and_offsets)
{
	struct fuse_entry_out e;
	uint64_t fh;
	char buf[8];

	ck_assert_int_eq(tf_create(1, "f", O_RDWR, 0644, &e, &fh), 0);
	uint64_t n = e.nodeid;
	ck_assert_int_eq(tf_read(fh, 1ull << 63, buf, 8), -EINVAL);
	ck_assert_int_eq(tf_write(fh, INT64_MAX - 2, "abcd", 4, 0), -EINVAL);
	/* WRITE whose size disagrees with the payload. */
	struct fuse_write_in wi = { .fh = fh, .size = 100 };
	tf_send(tf_build(FUSE_WRITE, 1, &wi, sizeof(wi), NULL, NULL, "short", 5), NULL);
	ck_assert_int_eq(tf_oh.error, -EINVAL);
	wi.size = 2;
	tf_send(tf_build(FUSE_WRITE, 1, &wi, sizeof(wi), NULL, NULL, "long", 4), NULL);
	ck_assert_int_eq(tf_oh.error, -EINVAL);
	struct fuse_fallocate_in fa = { .fh = fh, .offset = INT64_MAX, .length = 2 };
	ck_assert_int_eq(tf_req(FUSE_FALLOCATE, n, &fa, sizeof(fa), NULL, NULL, NULL, 0), -EINVAL);
	fa = (struct fuse_fallocate_in){ .fh = fh, .offset = 0, .length = 0 };
	ck_assert_int_eq(tf_req(FUSE_FALLOCATE, n, &fa, sizeof(fa), NULL, NULL, NULL, 0), -EINVAL);
	struct fuse_lseek_in ls = { .fh = fh, .offset = 1ull << 63, .whence = SEEK_DATA };
	ck_assert_int_eq(tf_req(FUSE_LSEEK, n, &ls, sizeof(ls), NULL, NULL, NULL, 0), -EINVAL);
	ls = (struct fuse_lseek_in){ .fh = fh, .whence = SEEK_CUR };
	ck_assert_int_eq(tf_req(FUSE_LSEEK, n, &ls, sizeof(ls), NULL, NULL, NULL, 0), -EINVAL);
	ls.whence = 99;
	ck_assert_int_eq(tf_req(FUSE_LSEEK, n, &ls, sizeof(ls), NULL, NULL, NULL, 0), -EINVAL);
	struct fuse_copy_file_range_in cf = { .fh_in = fh, .fh_out = fh, .len = 1, .flags = 1 };
	ck_assert_int_eq(tf_req(FUSE_COPY_FILE_RANGE, n, &cf, sizeof(cf), NULL, NULL, NULL, 0),
			 -EINVAL);
	cf = (struct fuse_copy_file_range_in){ .fh_in = fh, .fh_out = fh, .len = 1,
					       .off_in = 1ull << 63 };
	ck_assert_int_eq(tf_req(FUSE_COPY_FILE_RANGE, n, &cf, sizeof(cf), NULL, NULL, NULL, 0),
			 -EINVAL);
	struct fuse_setattr_in sa = { .valid = FATTR_SIZE, .size = 1ull << 63 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, n, &sa, sizeof(sa), NULL, NULL, NULL, 0), -EINVAL);
	sa = (struct fuse_setattr_in){ .valid = FATTR_ATIME, .atimensec = 1000000000 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, n, &sa, sizeof(sa), NULL, NULL, NULL, 0), -EINVAL);
	struct fuse_open_in oi = { .flags = O_RDONLY };
	struct fuse_open_out oo;
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, 1, &oi, sizeof(oi), NULL, NULL, &oo, sizeof(oo)), 0);
	struct fuse_read_in ri = { .fh = oo.fh, .offset = 1ull << 63, .size = 4096 };
	ck_assert_int_eq(tf_req(FUSE_READDIR, 1, &ri, sizeof(ri), NULL, NULL, NULL, 0), -EINVAL);
	/* Locks: bad type, inverted or out-of-range ranges. */
	struct fuse_lk_in lk = { .fh = fh, .lk = { .start = 0, .end = 10, .type = 7 } };
	ck_assert_int_eq(tf_req(FUSE_SETLK, n, &lk, sizeof(lk), NULL, NULL, NULL, 0), -EINVAL);
	lk.lk = (struct fuse_file_lock){ .start = 10, .end = 5, .type = F_WRLCK };
	ck_assert_int_eq(tf_req(FUSE_SETLK, n, &lk, sizeof(lk), NULL, NULL, NULL, 0), -EINVAL);
	lk.lk = (struct fuse_file_lock){ .start = 0, .end = 1ull << 63, .type = F_WRLCK };
	ck_assert_int_eq(tf_req(FUSE_GETLK, n, &lk, sizeof(lk), NULL, NULL, NULL, 0), -EINVAL);
	/* An open mode that is no mode. */
	ck_assert_int_eq(tf_open(n, O_ACCMODE, &fh), -EINVAL);
	struct fuse_access_in ac = { .mask = 0x80 };
	ck_assert_int_eq(tf_req(FUSE_ACCESS, n, &ac, sizeof(ac), NULL, NULL, NULL, 0), -EINVAL);
	still_serving();
}
END_TEST

START_TEST(bad_xattr_and_forget_args)
{
	tf_write_host("x", "x");
	uint64_t x = tf_nodeid(1, "x");
	struct fuse_setxattr_in si = { .size = 10 };

	/* Value length disagreeing with the body. */
	ck_assert_int_eq(tf_req(FUSE_SETXATTR, x, &si, 8, "user.a", "b", NULL, 0), -EINVAL);
	si.size = 70000;
	ck_assert_int_eq(tf_req(FUSE_SETXATTR, x, &si, 8, "user.a", "b", NULL, 0), -E2BIG);
	si.size = 1;
	ck_assert_int_eq(tf_req(FUSE_SETXATTR, x, &si, 8, "", "b", NULL, 0), -ERANGE);
	si.flags = 0x100;
	ck_assert_int_eq(tf_req(FUSE_SETXATTR, x, &si, 8, "user.a", "b", NULL, 0), -EINVAL);
	char name[300];
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	struct fuse_getxattr_in gi = { .size = 10 };
	ck_assert_int_eq(tf_req(FUSE_GETXATTR, x, &gi, sizeof(gi), name, NULL, NULL, 0), -ERANGE);
	ck_assert_int_eq(tf_req(FUSE_GETXATTR, x, &gi, sizeof(gi), NULL, NULL, NULL, 0), -EINVAL);

	/* BATCH_FORGET whose count the body does not back: dropped whole. */
	struct {
		struct fuse_batch_forget_in in;
		struct fuse_forget_one one;
	} bf = { { .count = 1000 }, { x, 1 } };
	ck_assert_int_eq(tf_send(tf_build(FUSE_BATCH_FORGET, 0, &bf, sizeof(bf), NULL, NULL,
					  NULL, 0), NULL), 0);
	ck_assert_int_eq(tf_getattr(x, NULL), 0);
	bf.in.count = 1;
	tf_send(tf_build(FUSE_BATCH_FORGET, 0, &bf, sizeof(bf), NULL, NULL, NULL, 0), NULL);
	ck_assert_int_eq(tf_getattr(x, NULL), -ENOENT);
	still_serving();
}
END_TEST

START_TEST(reply_space_too_small)
{
	struct fuse_entry_out e;

	tf_write_host("f", "x");
	tf_outcap = 8; /* not even a header: nothing can be said */
	ck_assert_int_eq(tf_send(tf_build(FUSE_GETATTR, 1, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16,
					  NULL, NULL, NULL, 0), NULL), 0);
	tf_outcap = 40; /* a header but no entry */
	ck_assert_int_eq(tf_lookup(1, "f", &e), -EINVAL);
	tf_outcap = TF_BUF;
	still_serving();
}
END_TEST

START_TEST(split_everywhere)
{
	struct fuse_entry_out e;
	uint64_t fh;
	char buf[200] = { 0 };
	static char data[150];

	memset(data, 'q', sizeof(data));
	tf_split = 1; /* one byte per iovec (up to 79, then the rest) */
	ck_assert_int_eq(tf_create(1, "split_name_that_is_long", O_RDWR, 0644, &e, &fh), 0);
	ck_assert_int_eq(tf_write(fh, 0, data, sizeof(data), 0), 0);
	ck_assert_int_eq(tf_read(fh, 0, buf, sizeof(buf)), (int)sizeof(data));
	ck_assert(memcmp(buf, data, sizeof(data)) == 0);
	still_serving();
}
END_TEST

START_TEST(symlinks_are_not_directories)
{
	struct fuse_entry_out e;
	struct fuse_mkdir_in md = { .mode = 0755 };
	struct fuse_create_in ci = { .flags = O_RDWR, .mode = S_IFREG | 0644 };
	struct fuse_open_in oi = { .flags = O_RDONLY };
	uint64_t fh;

	ck_assert_int_eq(symlink("..", tf_path("up")), 0);
	ck_assert_int_eq(symlink("/", tf_path("root")), 0);
	ck_assert_int_eq(symlink("/etc/passwd", tf_path("pw")), 0);
	ck_assert_int_eq(tf_lookup(1, "up", &e), 0);
	ck_assert(S_ISLNK(e.attr.mode)); /* the link itself, never its target */
	ck_assert_int_eq(tf_lookup(e.nodeid, "etc", NULL), -ENOTDIR);
	ck_assert_int_eq(tf_req(FUSE_MKDIR, e.nodeid, &md, sizeof(md), "x", NULL, NULL, 0), -ENOTDIR);
	ck_assert_int_eq(tf_req(FUSE_CREATE, e.nodeid, &ci, sizeof(ci), "x", NULL, NULL, 0),
			 -ENOTDIR);
	ck_assert_int_eq(tf_req(FUSE_OPENDIR, e.nodeid, &oi, sizeof(oi), NULL, NULL, NULL, 0),
			 -ENOTDIR);
	uint64_t root = tf_nodeid(1, "root");
	ck_assert_int_eq(tf_lookup(root, "etc", NULL), -ENOTDIR);
	uint64_t pw = tf_nodeid(1, "pw");
	ck_assert_int_eq(tf_open(pw, O_RDONLY, &fh), -ELOOP); /* never followed */
	struct fuse_setattr_in sa = { .valid = FATTR_SIZE, .size = 0 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, pw, &sa, sizeof(sa), NULL, NULL, NULL, 0), -EINVAL);
	struct stat st;
	ck_assert_int_eq(stat("/etc/passwd", &st), 0);
	ck_assert_int_gt(st.st_size, 0);
	/* A directory replaced by a symlink after lookup: the held fd wins. */
	ck_assert_int_eq(mkdir(tf_path("d"), 0755), 0);
	uint64_t d = tf_nodeid(1, "d");
	ck_assert_int_eq(rename(tf_path("d"), tf_path("moved")), 0);
	ck_assert_int_eq(symlink("/etc", tf_path("d")), 0);
	ck_assert_int_eq(tf_lookup(d, "passwd", NULL), -ENOENT);
	ck_assert_int_eq(tf_req(FUSE_MKDIR, d, &md, sizeof(md), "inside", NULL, NULL, 0), 0);
	ck_assert_int_eq(access(tf_path("moved/inside"), F_OK), 0);
	still_serving();
}
END_TEST


START_TEST(oversized_and_odd_requests)
{
	static uint8_t big[80000];

	/* An argument block far beyond any real request is refused unread. */
	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = 0;
	ck_assert_int_eq(tf_req(FUSE_LOOKUP, 1, big, sizeof(big), NULL, NULL, NULL, 0), -EINVAL);
	/* O_TMPFILE without write access. */
	struct fuse_create_in ci = { .flags = O_RDONLY, .mode = S_IFREG | 0600 };
	ck_assert_int_eq(tf_req(FUSE_TMPFILE, 1, &ci, sizeof(ci), NULL, NULL, NULL, 0), -EINVAL);
	/* REMOVEMAPPING whose count the body does not back (with a DAX hook). */
	struct fuse_server_params p = { .dax = &(const struct fuse_dax_ops){ NULL, NULL } };
	struct fs_options o;
	fs_options_default(&o);
	tf_start(&o, &p, true);
	struct {
		uint32_t count;
		struct fuse_removemapping_one one;
	} __attribute__((packed)) rm = { 5, { 0, 4096 } };
	ck_assert_int_eq(tf_req(FUSE_REMOVEMAPPING, 1, &rm, sizeof(rm), NULL, NULL, NULL, 0),
			 -EINVAL);
	still_serving();
}
END_TEST

/*
 * fuse-mount's io_uring channel: the kernel writes the request's lengths
 * into the entry; lengths that cannot describe a request in its buffers
 * are refused before anything reads them.
 */
START_TEST(uring_entry_lengths_checked)
{
	static _Alignas(8) uint8_t hb[FUSE_URING_HDR_BLOCK], payload[4096];
	struct fuse_in_header *h = (struct fuse_in_header *)hb;
	uint32_t *psz = (uint32_t *)(hb + 256 + 16); /* ring_ent_in_out.payload_sz */
	struct iovec in[3];

	/* A LOOKUP: empty first argument, the name in the payload. */
	*h = (struct fuse_in_header){ .len = sizeof(*h) + 6, .opcode = FUSE_LOOKUP };
	*psz = 6;
	ck_assert_int_eq(fuse_uring_request_iov(hb, payload, sizeof(payload), in), 0);
	ck_assert_uint_eq(in[0].iov_len, sizeof(*h));
	ck_assert_uint_eq(in[1].iov_len, 0);
	ck_assert_ptr_eq(in[2].iov_base, payload);
	ck_assert_uint_eq(in[2].iov_len, 6);
	/* A GETATTR: its argument in the header block, no payload. */
	h->len = sizeof(*h) + sizeof(struct fuse_getattr_in);
	*psz = 0;
	ck_assert_int_eq(fuse_uring_request_iov(hb, payload, sizeof(payload), in), 0);
	ck_assert_ptr_eq(in[1].iov_base, hb + 128);
	ck_assert_uint_eq(in[1].iov_len, sizeof(struct fuse_getattr_in));

	h->len = sizeof(*h) - 1;                          /* shorter than a header */
	ck_assert_int_eq(fuse_uring_request_iov(hb, payload, sizeof(payload), in), -EINVAL);
	h->len = sizeof(*h) + 10;
	*psz = 11;                                        /* payload beyond len */
	ck_assert_int_eq(fuse_uring_request_iov(hb, payload, sizeof(payload), in), -EINVAL);
	h->len = sizeof(*h) + 8192;
	*psz = 8192;                                      /* beyond the buffer */
	ck_assert_int_eq(fuse_uring_request_iov(hb, payload, sizeof(payload), in), -EINVAL);
	h->len = sizeof(*h) + 129;
	*psz = 0;                                         /* first argument > 128 */
	ck_assert_int_eq(fuse_uring_request_iov(hb, payload, sizeof(payload), in), -EINVAL);
}
END_TEST

START_TEST(random_garbage)
{
	uint32_t seed = 12345;
	uint8_t junk[512];

	for (int i = 0; i < 3000; i++) {
		for (size_t k = 0; k < sizeof(junk); k++) {
			seed = seed * 1103515245u + 12345u;
			junk[k] = (uint8_t)(seed >> 16);
		}
		size_t len = (seed >> 8) % sizeof(junk);
		struct fuse_in_header h;
		memcpy(&h, junk, sizeof(h));
		/* Mostly real opcodes and consistent lengths, to get past intake. */
		if (i % 4) {
			h.opcode = (h.opcode % 52) ? h.opcode % 52 : FUSE_GETATTR;
			if (h.opcode == FUSE_DESTROY || h.opcode == FUSE_INIT)
				h.opcode = FUSE_GETATTR;
			if (h.opcode == FUSE_SETLKW)
				h.opcode = FUSE_SETLK; /* nothing here can complete a park */
			h.len = (uint32_t)(len < sizeof(h) ? sizeof(h) : len);
			h.total_extlen = 0;
			h.nodeid = (i % 3) ? 1 : h.nodeid;
			h.uid = h.gid = 0;
			len = h.len;
			memcpy(junk, &h, sizeof(h));
		}
		memcpy(tf_inbuf, junk, len);
		int r = tf_send(len, NULL);
		ck_assert_int_ge(r, 0);
		if (r > 0) {
			ck_assert_uint_eq(tf_oh.len, (uint32_t)r);
			ck_assert_int_le(tf_oh.error, 0);
		}
	}
	still_serving();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse_bad");
	TCase *tc = tcase_create("bad_input");

	tcase_add_checked_fixture(tc, tf_setup, tf_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, truncated_header);
	tcase_add_test(tc, length_disagrees);
	tcase_add_test(tc, unknown_opcodes);
	tcase_add_test(tc, short_arguments);
	tcase_add_test(tc, bad_names);
	tcase_add_test(tc, unknown_nodeids);
	tcase_add_test(tc, bad_handles);
	tcase_add_test(tc, absurd_sizes_and_offsets);
	tcase_add_test(tc, bad_xattr_and_forget_args);
	tcase_add_test(tc, reply_space_too_small);
	tcase_add_test(tc, split_everywhere);
	tcase_add_test(tc, symlinks_are_not_directories);
	tcase_add_test(tc, oversized_and_odd_requests);
	tcase_add_test(tc, random_garbage);
	tcase_add_test(tc, uring_entry_lengths_checked);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
