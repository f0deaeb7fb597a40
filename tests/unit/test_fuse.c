// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE server answering every opcode for real against a temp
 * directory: INIT, names, attributes, links, files and credentials.
 * Directories, xattrs, cache modes, readonly shares, tables and DAX are
 * in test_fuse_dir.c; locks, parked requests and async reads in
 * test_fuse_lock.c; malformed input in test_fuse_bad.c.
 */
#include "tests/unit/test_fuse_util.h"

#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include "tests/unit/check_main.h"

START_TEST(init_negotiates)
{
	ck_assert_uint_eq(tf_init.major, 7);
	ck_assert_uint_eq(tf_init.minor, 38);
	ck_assert_uint_eq(tf_init.max_write, FUSE_SERVER_MAX_WRITE);
	ck_assert_uint_eq(tf_init.max_pages, FUSE_SERVER_MAX_WRITE / 4096);
	ck_assert(tf_init.flags & FUSE_POSIX_LOCKS);
	ck_assert(tf_init.flags & FUSE_FLOCK_LOCKS);
	ck_assert(tf_init.flags & FUSE_DO_READDIRPLUS);
	ck_assert(tf_init.flags & FUSE_SUBMOUNTS);
	ck_assert(tf_init.flags & FUSE_HANDLE_KILLPRIV_V2);
	ck_assert(tf_init.flags & FUSE_MAX_PAGES);
	ck_assert(!(tf_init.flags & FUSE_WRITEBACK_CACHE)); /* not asked for */
	/* A second INIT without a reset is a protocol error. */
	struct fuse_init_in in = { .major = 7, .minor = 38 };
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, NULL, 0), -EIO);
	/* After DESTROY the server wants INIT again and nothing else. */
	ck_assert_int_eq(tf_req(FUSE_DESTROY, 0, NULL, 0, NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(tf_getattr(FUSE_ROOT_ID, NULL), -EIO);
	tf_do_init(0);
	ck_assert_uint_eq(tf_init.flags, 0);
	ck_assert_int_eq(tf_getattr(FUSE_ROOT_ID, NULL), 0);
}
END_TEST

START_TEST(init_versions)
{
	struct fuse_init_in in = { .major = 8, .minor = 0 };
	struct fuse_init_out out;

	fuse_server_reset(srv);
	/* A newer major: answer with ours and wait for a retry. */
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, &out, sizeof(out)), 0);
	ck_assert_uint_eq(out.major, 7);
	ck_assert_int_eq(tf_getattr(FUSE_ROOT_ID, NULL), -EIO);
	in = (struct fuse_init_in){ .major = 7, .minor = 30 };
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, NULL, 0), -EPROTO);
	/* A 7.31 kernel sends the short (16-byte) init_in. */
	in = (struct fuse_init_in){ .major = 7, .minor = 31, .flags = FUSE_POSIX_LOCKS };
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, 16, NULL, NULL, &out, sizeof(out)), 0);
	ck_assert_uint_eq(out.minor, 31);
	ck_assert_uint_eq(out.flags, FUSE_POSIX_LOCKS);
}
END_TEST

/* cache=never: the entries' attributes would be dropped, so no READDIRPLUS. */
START_TEST(init_no_readdirplus_at_cache_never)
{
	struct fuse_init_in in = { .major = 7, .minor = 38,
				   .flags = FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO };
	struct fuse_init_out out;
	struct fs_options o;

	fs_options_default(&o);
	o.cache = FS_CACHE_NEVER;
	tf_start(&o, NULL, false);
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, &out, sizeof(out)), 0);
	ck_assert_uint_eq(out.flags & (FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO), 0);
	o.cache = FS_CACHE_AUTO;
	tf_start(&o, NULL, false);
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, &out, sizeof(out)), 0);
	ck_assert_uint_eq(out.flags & (FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO),
			  FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO);
}
END_TEST

/* FUSE_OVER_IO_URING travels in flags2: offered only when asked and offered. */
static uint32_t init_flags2(uint32_t flags, uint32_t flags2, uint32_t *out_flags)
{
	struct fuse_init_in in = { .major = 7, .minor = 38, .flags = flags, .flags2 = flags2 };
	struct fuse_init_out out;

	fuse_server_reset(srv);
	ck_assert_int_eq(tf_req(FUSE_INIT, 0, &in, sizeof(in), NULL, NULL, &out, sizeof(out)), 0);
	*out_flags = out.flags;
	return out.flags2;
}

START_TEST(init_offers_io_uring)
{
	const uint32_t bit = (uint32_t)(FUSE_OVER_IO_URING >> 32);
	struct fs_options o;
	uint32_t f;

	/* Not asked for (the default, and every device): never taken. */
	ck_assert_uint_eq(init_flags2(FUSE_INIT_EXT, bit, &f) & bit, 0);
	ck_assert(!fuse_server_io_uring(srv));

	fs_options_default(&o);
	tf_start(&o, &(struct fuse_server_params){ .io_uring = true }, false);
	ck_assert_uint_eq(init_flags2(FUSE_INIT_EXT | FUSE_POSIX_LOCKS, bit, &f) & bit, bit);
	ck_assert(f & FUSE_INIT_EXT);
	ck_assert(f & FUSE_POSIX_LOCKS);
	ck_assert(fuse_server_io_uring(srv));
	/* A kernel that does not offer it (no flags2 at all): not taken. */
	ck_assert_uint_eq(init_flags2(FUSE_POSIX_LOCKS, bit, &f) & bit, 0);
	ck_assert(!fuse_server_io_uring(srv));
	ck_assert_uint_eq(init_flags2(FUSE_INIT_EXT, 0, &f) & bit, 0);
	ck_assert(!fuse_server_io_uring(srv));
}
END_TEST

START_TEST(lookup_getattr_forget)
{
	struct fuse_entry_out e, e2;
	struct fuse_attr a;
	struct stat st;

	tf_write_host("f", "12345");
	ck_assert_int_eq(stat(tf_path("f"), &st), 0);
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "f", &e), 0);
	ck_assert_uint_ne(e.nodeid, FUSE_ROOT_ID);
	ck_assert_uint_eq(e.attr.size, 5);
	ck_assert_uint_eq(e.attr.ino, st.st_ino);
	ck_assert_uint_eq(e.attr.mode, st.st_mode);
	ck_assert_uint_eq(e.entry_valid, 1); /* cache=auto */
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "f", &e2), 0);
	ck_assert_uint_eq(e2.nodeid, e.nodeid); /* same (dev, ino), same node */
	ck_assert_int_eq(tf_getattr(e.nodeid, &a), 0);
	ck_assert_uint_eq(a.size, 5);
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "missing", &e2), -ENOENT);
	ck_assert_int_eq(tf_lookup(e.nodeid, "x", &e2), -ENOTDIR);

	/* Two lookups: the first FORGET keeps it, the second drops it. */
	struct fuse_forget_in fin = { .nlookup = 1 };
	ck_assert_int_eq(tf_send(tf_build(FUSE_FORGET, e.nodeid, &fin, sizeof(fin),
					  NULL, NULL, NULL, 0), NULL), 0);
	ck_assert_int_eq(tf_getattr(e.nodeid, NULL), 0);
	ck_assert_int_eq(tf_send(tf_build(FUSE_FORGET, e.nodeid, &fin, sizeof(fin),
					  NULL, NULL, NULL, 0), NULL), 0);
	ck_assert_int_eq(tf_getattr(e.nodeid, NULL), -ENOENT);

	/* BATCH_FORGET, and a new lookup gets a fresh nodeid (new generation). */
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "f", &e2), 0);
	ck_assert_uint_ne(e2.nodeid, e.nodeid);
	struct {
		struct fuse_batch_forget_in in;
		struct fuse_forget_one one[2];
	} bf = { { .count = 2 }, { { e2.nodeid, 1 }, { 0xdead00000005ull, 3 } } };
	ck_assert_int_eq(tf_send(tf_build(FUSE_BATCH_FORGET, 0, &bf, sizeof(bf),
					  NULL, NULL, NULL, 0), NULL), 0);
	ck_assert_int_eq(tf_getattr(e2.nodeid, NULL), -ENOENT);
	/* The root is never forgotten. */
	fin.nlookup = 100;
	tf_send(tf_build(FUSE_FORGET, FUSE_ROOT_ID, &fin, sizeof(fin), NULL, NULL, NULL, 0), NULL);
	ck_assert_int_eq(tf_getattr(FUSE_ROOT_ID, NULL), 0);
}
END_TEST

/*
 * A LOOKUP of a name whose inode the table knows is answered from a stat
 * of the name (fuse_lookup_entry): it must still follow the host. A name
 * renamed over on the host gives the new inode, not the one the table
 * knew; a name removed gives ENOENT; a known symlink is itself, each
 * lookup counted.
 */
START_TEST(lookup_known_name_follows_the_host)
{
	struct fuse_entry_out e, e2;
	struct stat st;

	tf_write_host("f", "12345");
	tf_write_host("g", "1234567");
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "f", &e), 0);
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "g", &e2), 0);
	ck_assert_int_eq(rename(tf_path("g"), tf_path("f")), 0);
	ck_assert_int_eq(stat(tf_path("f"), &st), 0);
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "f", &e), 0);
	ck_assert_uint_eq(e.nodeid, e2.nodeid);  /* g's node, known already */
	ck_assert_uint_eq(e.attr.ino, st.st_ino);
	ck_assert_uint_eq(e.attr.size, 7);
	ck_assert_int_eq(unlink(tf_path("f")), 0);
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "f", &e), -ENOENT);

	ck_assert_int_eq(symlink("f", tf_path("l")), 0);
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "l", &e), 0);
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "l", &e2), 0);
	ck_assert_uint_eq(e2.nodeid, e.nodeid);
	ck_assert(S_ISLNK(e2.attr.mode));
	/* Two lookups counted: one FORGET keeps it. */
	struct fuse_forget_in fin = { .nlookup = 1 };
	ck_assert_int_eq(tf_send(tf_build(FUSE_FORGET, e.nodeid, &fin, sizeof(fin),
					  NULL, NULL, NULL, 0), NULL), 0);
	ck_assert_int_eq(tf_getattr(e.nodeid, NULL), 0);
}
END_TEST

START_TEST(setattr_all)
{
	struct fuse_entry_out e;
	struct fuse_attr_out ao;
	struct stat st;
	uint64_t fh;

	tf_write_host("s", "0123456789");
	ck_assert_int_eq(tf_lookup(FUSE_ROOT_ID, "s", &e), 0);
	struct fuse_setattr_in in = { .valid = FATTR_MODE, .mode = 0600 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, e.nodeid, &in, sizeof(in), NULL, NULL,
				&ao, sizeof(ao)), 0);
	ck_assert_uint_eq(ao.attr.mode & 07777, 0600);
	in = (struct fuse_setattr_in){ .valid = FATTR_UID | FATTR_GID, .uid = 77, .gid = 88 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, e.nodeid, &in, sizeof(in), NULL, NULL, NULL, 0), 0);
	in = (struct fuse_setattr_in){ .valid = FATTR_SIZE, .size = 3 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, e.nodeid, &in, sizeof(in), NULL, NULL,
				&ao, sizeof(ao)), 0);
	ck_assert_uint_eq(ao.attr.size, 3);
	in = (struct fuse_setattr_in){ .valid = FATTR_ATIME | FATTR_MTIME, .atime = 1000,
				       .atimensec = 5, .mtime = 2000, .mtimensec = 7 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, e.nodeid, &in, sizeof(in), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(stat(tf_path("s"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_uint_eq(st.st_uid, 77);
	ck_assert_uint_eq(st.st_gid, 88);
	ck_assert_int_eq(st.st_size, 3);
	ck_assert_int_eq(st.st_atim.tv_sec, 1000);
	ck_assert_int_eq(st.st_atim.tv_nsec, 5);
	ck_assert_int_eq(st.st_mtim.tv_sec, 2000);
	in = (struct fuse_setattr_in){ .valid = FATTR_MTIME | FATTR_MTIME_NOW };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, e.nodeid, &in, sizeof(in), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(stat(tf_path("s"), &st), 0);
	ck_assert_int_gt(st.st_mtim.tv_sec, time(NULL) - 10);
	ck_assert_int_eq(st.st_atim.tv_sec, 1000); /* untouched */

	/* Through an open handle: truncate and mode via the fd. */
	ck_assert_int_eq(tf_open(e.nodeid, O_RDWR, &fh), 0);
	in = (struct fuse_setattr_in){ .valid = FATTR_FH | FATTR_SIZE | FATTR_MODE,
				       .fh = fh, .size = 1, .mode = 0644 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, e.nodeid, &in, sizeof(in), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(stat(tf_path("s"), &st), 0);
	ck_assert_int_eq(st.st_size, 1);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);

	/* Truncate with KILL_SUIDGID clears set-id bits (HANDLE_KILLPRIV_V2). */
	ck_assert_int_eq(chmod(tf_path("s"), 06755), 0);
	in = (struct fuse_setattr_in){ .valid = FATTR_SIZE | FATTR_KILL_SUIDGID, .size = 0 };
	ck_assert_int_eq(tf_req(FUSE_SETATTR, e.nodeid, &in, sizeof(in), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(stat(tf_path("s"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
}
END_TEST

START_TEST(symlink_readlink_mknod_mkdir)
{
	struct fuse_entry_out e;
	char buf[256] = { 0 };
	struct stat st;

	ck_assert_int_eq(tf_req(FUSE_SYMLINK, FUSE_ROOT_ID, NULL, 0, "ln", "/etc/passwd",
				&e, sizeof(e)), 0);
	ck_assert(S_ISLNK(e.attr.mode));
	ck_assert_int_eq(tf_req(FUSE_READLINK, e.nodeid, NULL, 0, NULL, NULL, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(tf_payload(), 11);
	ck_assert_str_eq(buf, "/etc/passwd");
	ck_assert_int_eq(readlink(tf_path("ln"), buf, sizeof(buf)), 11);
	ck_assert_int_eq(tf_req(FUSE_READLINK, FUSE_ROOT_ID, NULL, 0, NULL, NULL, NULL, 0),
			 -EINVAL);

	struct fuse_mknod_in mk = { .mode = S_IFIFO | 0640 };
	ck_assert_int_eq(tf_req(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "fifo", NULL,
				&e, sizeof(e)), 0);
	ck_assert(S_ISFIFO(e.attr.mode));
	mk.mode = S_IFSOCK | 0600;
	ck_assert_int_eq(tf_req(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "sock", NULL,
				NULL, 0), 0);
	ck_assert_int_eq(lstat(tf_path("sock"), &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	mk = (struct fuse_mknod_in){ .mode = S_IFREG | 0666, .umask = 022 };
	ck_assert_int_eq(tf_req(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "reg", NULL,
				&e, sizeof(e)), 0);
	ck_assert_uint_eq(e.attr.mode, S_IFREG | 0644);
	/* Host device nodes are refused; the overlayfs whiteout is not. */
	mk = (struct fuse_mknod_in){ .mode = S_IFCHR | 0600, .rdev = makedev(1, 3) };
	ck_assert_int_eq(tf_req(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "null", NULL,
				NULL, 0), -EPERM);
	mk.mode = S_IFBLK | 0600;
	ck_assert_int_eq(tf_req(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "blk", NULL,
				NULL, 0), -EPERM);
	mk = (struct fuse_mknod_in){ .mode = S_IFCHR | 0600, .rdev = 0 };
	ck_assert_int_eq(tf_req(FUSE_MKNOD, FUSE_ROOT_ID, &mk, sizeof(mk), "wh", NULL,
				NULL, 0), 0);

	struct fuse_mkdir_in md = { .mode = 0777, .umask = 027 };
	ck_assert_int_eq(tf_req(FUSE_MKDIR, FUSE_ROOT_ID, &md, sizeof(md), "dir", NULL,
				&e, sizeof(e)), 0);
	ck_assert_uint_eq(e.attr.mode, S_IFDIR | 0750);
	ck_assert_int_eq(tf_req(FUSE_MKDIR, FUSE_ROOT_ID, &md, sizeof(md), "dir", NULL,
				NULL, 0), -EEXIST);
	ck_assert_int_eq(tf_req(FUSE_MKDIR, e.nodeid, &md, sizeof(md), "sub", NULL, NULL, 0), 0);
	ck_assert_int_eq(tf_req(FUSE_RMDIR, FUSE_ROOT_ID, NULL, 0, "dir", NULL, NULL, 0),
			 -ENOTEMPTY);
	ck_assert_int_eq(tf_req(FUSE_RMDIR, e.nodeid, NULL, 0, "sub", NULL, NULL, 0), 0);
	ck_assert_int_eq(tf_req(FUSE_RMDIR, FUSE_ROOT_ID, NULL, 0, "dir", NULL, NULL, 0), 0);
	ck_assert_int_eq(tf_req(FUSE_UNLINK, FUSE_ROOT_ID, NULL, 0, "fifo", NULL, NULL, 0), 0);
	ck_assert_int_eq(tf_req(FUSE_UNLINK, FUSE_ROOT_ID, NULL, 0, "fifo", NULL, NULL, 0),
			 -ENOENT);
	ck_assert_int_eq(access(tf_path("fifo"), F_OK), -1);
}
END_TEST

START_TEST(rename_and_link)
{
	struct fuse_entry_out e;
	struct fuse_rename_in rn = { .newdir = FUSE_ROOT_ID };
	struct fuse_rename2_in r2 = { .newdir = FUSE_ROOT_ID };
	char buf[8] = { 0 };

	tf_write_host("a", "A");
	tf_write_host("b", "B");
	ck_assert_int_eq(mkdir(tf_path("d"), 0755), 0);
	uint64_t d = tf_nodeid(FUSE_ROOT_ID, "d");
	rn.newdir = d;
	ck_assert_int_eq(tf_req(FUSE_RENAME, FUSE_ROOT_ID, &rn, sizeof(rn), "a", "a2", NULL, 0), 0);
	ck_assert_int_eq(access(tf_path("d/a2"), F_OK), 0);
	rn.newdir = 0x77700000009ull; /* never handed out */
	ck_assert_int_eq(tf_req(FUSE_RENAME, d, &rn, sizeof(rn), "a2", "a", NULL, 0), -ENOENT);
	r2.newdir = FUSE_ROOT_ID;
	ck_assert_int_eq(tf_req(FUSE_RENAME2, d, &r2, sizeof(r2), "a2", "a", NULL, 0), 0);
	r2.flags = RENAME_NOREPLACE;
	ck_assert_int_eq(tf_req(FUSE_RENAME2, FUSE_ROOT_ID, &r2, sizeof(r2), "a", "b", NULL, 0),
			 -EEXIST);
	r2.flags = RENAME_EXCHANGE;
	ck_assert_int_eq(tf_req(FUSE_RENAME2, FUSE_ROOT_ID, &r2, sizeof(r2), "a", "b", NULL, 0), 0);
	int fd = open(tf_path("a"), O_RDONLY);
	ck_assert_int_eq(read(fd, buf, 1), 1);
	close(fd);
	ck_assert_str_eq(buf, "B");
	r2.flags = 1u << 7;
	ck_assert_int_eq(tf_req(FUSE_RENAME2, FUSE_ROOT_ID, &r2, sizeof(r2), "a", "b", NULL, 0),
			 -EINVAL);

	uint64_t a = tf_nodeid(FUSE_ROOT_ID, "a");
	struct fuse_link_in li = { .oldnodeid = a };
	ck_assert_int_eq(tf_req(FUSE_LINK, d, &li, sizeof(li), "hard", NULL, &e, sizeof(e)), 0);
	ck_assert_uint_eq(e.nodeid, a);
	ck_assert_uint_eq(e.attr.nlink, 2);
	li.oldnodeid = d;
	ck_assert_int_eq(tf_req(FUSE_LINK, FUSE_ROOT_ID, &li, sizeof(li), "dl", NULL, NULL, 0),
			 -EPERM);
	/* As an ordinary user (no CAP_DAC_READ_SEARCH): the /proc fallback. */
	ck_assert_int_eq(chmod(tdir, 0777), 0);
	ck_assert_int_eq(chown(tf_path("a"), 1000, 1000), 0); /* protected_hardlinks */
	tf_uid = tf_gid = 1000;
	li.oldnodeid = a;
	ck_assert_int_eq(tf_req(FUSE_LINK, FUSE_ROOT_ID, &li, sizeof(li), "ul", NULL, NULL, 0), 0);
	ck_assert_int_eq(access(tf_path("ul"), F_OK), 0);
}
END_TEST

START_TEST(files_read_write)
{
	struct fuse_entry_out e;
	char buf[64] = { 0 };
	uint64_t fh, fh2;
	struct stat st;

	ck_assert_int_eq(tf_create(FUSE_ROOT_ID, "new", O_RDWR | O_EXCL, 0640, &e, &fh), 0);
	ck_assert_int_eq(stat(tf_path("new"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640);
	struct fuse_entry_out e2;
	ck_assert_int_eq(tf_create(FUSE_ROOT_ID, "new", O_RDWR | O_EXCL, 0640, &e2, &fh2),
			 -EEXIST);
	ck_assert_int_eq(tf_write(fh, 0, "hello world", 11, 0), 0);
	ck_assert_int_eq(tf_read(fh, 6, buf, 32), 5);
	ck_assert_str_eq(buf, "world");
	ck_assert_int_eq(tf_read(fh, 100, buf, 32), 0); /* EOF */
	/* A large write and read, split across many iovecs. */
	static char big[1 << 20], back[1 << 20];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7);
	tf_split = 4096 * 3 + 1;
	ck_assert_int_eq(tf_write(fh, 4096, big, sizeof(big), 0), 0);
	ck_assert_int_eq(tf_read(fh, 4096, back, sizeof(back)), (int)sizeof(back));
	ck_assert(memcmp(big, back, sizeof(big)) == 0);
	/* A read larger than the reply space is clipped to it. */
	tf_outcap = 16 + 100;
	ck_assert_int_eq(tf_read(fh, 0, back, 4096), 100);
	ck_assert_uint_eq(tf_payload(), 100);
	tf_outcap = TF_BUF;

	/* Read-only handle: WRITE is EBADF. */
	ck_assert_int_eq(tf_open(e.nodeid, O_RDONLY, &fh2), 0);
	ck_assert_int_eq(tf_write(fh2, 0, "x", 1, 0), -EBADF);
	ck_assert_int_eq(tf_release(fh2, FUSE_RELEASE), 0);
	ck_assert_int_eq(tf_read(fh2, 0, buf, 8), -EBADF);
	ck_assert_int_eq(tf_release(fh2, FUSE_RELEASE), -EBADF);

	/* O_TRUNC open, FLUSH, FSYNC (both kinds). */
	ck_assert_int_eq(tf_open(e.nodeid, O_WRONLY | O_TRUNC, &fh2), 0);
	ck_assert_int_eq(stat(tf_path("new"), &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	struct fuse_flush_in fl = { .fh = fh2, .lock_owner = 1 };
	ck_assert_int_eq(tf_req(FUSE_FLUSH, 1, &fl, sizeof(fl), NULL, NULL, NULL, 0), 0);
	struct fuse_fsync_in fs = { .fh = fh2 };
	ck_assert_int_eq(tf_req(FUSE_FSYNC, 1, &fs, sizeof(fs), NULL, NULL, NULL, 0), 0);
	fs.fsync_flags = FUSE_FSYNC_FDATASYNC;
	ck_assert_int_eq(tf_req(FUSE_FSYNC, 1, &fs, sizeof(fs), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(tf_release(fh2, FUSE_RELEASE), 0);

	/* OPEN refuses directories and special files. */
	ck_assert_int_eq(tf_open(FUSE_ROOT_ID, O_RDONLY, &fh2), -EISDIR);
	ck_assert_int_eq(mkfifo(tf_path("p"), 0600), 0);
	ck_assert_int_eq(tf_open(tf_nodeid(FUSE_ROOT_ID, "p"), O_RDONLY, &fh2), -ENXIO);
}
END_TEST

START_TEST(write_kills_suid)
{
	struct fuse_entry_out e;
	struct stat st;
	uint64_t fh;

	ck_assert_int_eq(tf_create(FUSE_ROOT_ID, "suid", O_RDWR, 0755, &e, &fh), 0);
	ck_assert_int_eq(chmod(tf_path("suid"), 04755), 0);
	ck_assert_int_eq(tf_write(fh, 0, "a", 1, 0), 0);
	ck_assert_int_eq(stat(tf_path("suid"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 04755); /* root writer keeps it */
	ck_assert_int_eq(tf_write(fh, 0, "b", 1, FUSE_WRITE_KILL_SUIDGID), 0);
	ck_assert_int_eq(stat(tf_path("suid"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	/* OPEN and CREATE with O_TRUNC and FUSE_OPEN_KILL_SUIDGID. */
	struct fuse_open_in oi = { .flags = O_WRONLY | O_TRUNC,
				   .open_flags = FUSE_OPEN_KILL_SUIDGID };
	ck_assert_int_eq(chmod(tf_path("suid"), 02775), 0);
	ck_assert_int_eq(tf_req(FUSE_OPEN, e.nodeid, &oi, sizeof(oi), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(stat(tf_path("suid"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0775);
	struct fuse_create_in ci = { .flags = O_WRONLY | O_TRUNC, .mode = S_IFREG | 0755,
				     .open_flags = FUSE_OPEN_KILL_SUIDGID };
	ck_assert_int_eq(chmod(tf_path("suid"), 04755), 0);
	ck_assert_int_eq(tf_req(FUSE_CREATE, 1, &ci, sizeof(ci), "suid", NULL, NULL, 0), 0);
	ck_assert_int_eq(stat(tf_path("suid"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
}
END_TEST

START_TEST(fallocate_lseek_copy)
{
	struct fuse_entry_out e;
	uint64_t fh, fh2;
	char buf[8] = { 0 };

	ck_assert_int_eq(tf_create(FUSE_ROOT_ID, "sp", O_RDWR, 0644, &e, &fh), 0);
	struct fuse_fallocate_in fa = { .fh = fh, .offset = 0, .length = 65536 };
	ck_assert_int_eq(tf_req(FUSE_FALLOCATE, e.nodeid, &fa, sizeof(fa), NULL, NULL, NULL, 0), 0);
	struct stat st;
	ck_assert_int_eq(stat(tf_path("sp"), &st), 0);
	ck_assert_int_eq(st.st_size, 65536);
	fa = (struct fuse_fallocate_in){ .fh = fh, .offset = 0, .length = 65536,
					 .mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE };
	ck_assert_int_eq(tf_req(FUSE_FALLOCATE, e.nodeid, &fa, sizeof(fa), NULL, NULL, NULL, 0), 0);
	ck_assert_int_eq(tf_write(fh, 1 << 20, "data", 4, 0), 0);

	struct fuse_lseek_in ls = { .fh = fh, .offset = 0, .whence = SEEK_DATA };
	struct fuse_lseek_out lo;
	ck_assert_int_eq(tf_req(FUSE_LSEEK, e.nodeid, &ls, sizeof(ls), NULL, NULL, &lo, sizeof(lo)), 0);
	ck_assert_uint_le(lo.offset, 1 << 20);
	ck_assert_uint_gt(lo.offset, 0);
	ls = (struct fuse_lseek_in){ .fh = fh, .offset = 0, .whence = SEEK_HOLE };
	ck_assert_int_eq(tf_req(FUSE_LSEEK, e.nodeid, &ls, sizeof(ls), NULL, NULL, &lo, sizeof(lo)), 0);
	ck_assert_uint_eq(lo.offset, 0);
	ls = (struct fuse_lseek_in){ .fh = fh, .offset = (1 << 20) + 100, .whence = SEEK_DATA };
	ck_assert_int_eq(tf_req(FUSE_LSEEK, e.nodeid, &ls, sizeof(ls), NULL, NULL, NULL, 0), -ENXIO);

	ck_assert_int_eq(tf_create(FUSE_ROOT_ID, "cp", O_RDWR, 0644, &e, &fh2), 0);
	struct fuse_copy_file_range_in cf = { .fh_in = fh, .off_in = 1 << 20,
					      .nodeid_out = e.nodeid, .fh_out = fh2,
					      .off_out = 2, .len = 4 };
	struct fuse_write_out wo;
	ck_assert_int_eq(tf_req(FUSE_COPY_FILE_RANGE, e.nodeid, &cf, sizeof(cf), NULL, NULL,
				&wo, sizeof(wo)), 0);
	ck_assert_uint_eq(wo.size, 4);
	ck_assert_int_eq(tf_read(fh2, 2, buf, 4), 4);
	ck_assert_str_eq(buf, "data");
}
END_TEST

START_TEST(tmpfile_syncfs_statfs_access)
{
	struct fuse_create_in in = { .flags = O_RDWR, .mode = S_IFREG | 0600 };
	uint8_t out[sizeof(struct fuse_entry_out) + sizeof(struct fuse_open_out)];
	struct fuse_entry_out e;
	char buf[8] = { 0 };

	ck_assert_int_eq(tf_req(FUSE_TMPFILE, FUSE_ROOT_ID, &in, sizeof(in), NULL, NULL,
				out, sizeof(out)), 0);
	memcpy(&e, out, sizeof(e));
	uint64_t fh = ((struct fuse_open_out *)(out + sizeof(e)))->fh;
	ck_assert_uint_eq(e.attr.nlink, 0);
	ck_assert_int_eq(tf_write(fh, 0, "tmp", 3, 0), 0);
	ck_assert_int_eq(tf_read(fh, 0, buf, 3), 3);
	ck_assert_str_eq(buf, "tmp");

	struct fuse_syncfs_in sy = { 0 };
	ck_assert_int_eq(tf_req(FUSE_SYNCFS, FUSE_ROOT_ID, &sy, sizeof(sy), NULL, NULL, NULL, 0), 0);

	struct fuse_statfs_out so;
	struct statfs sf;
	ck_assert_int_eq(tf_req(FUSE_STATFS, FUSE_ROOT_ID, NULL, 0, NULL, NULL, &so, sizeof(so)), 0);
	ck_assert_int_eq(statfs(tdir, &sf), 0);
	ck_assert_uint_eq(so.st.blocks, sf.f_blocks);
	ck_assert_uint_eq(so.st.namelen, sf.f_namelen);

	tf_write_host("priv", "x");
	ck_assert_int_eq(chmod(tf_path("priv"), 0600), 0);
	uint64_t p = tf_nodeid(FUSE_ROOT_ID, "priv");
	struct fuse_access_in ac = { .mask = R_OK | W_OK };
	ck_assert_int_eq(tf_req(FUSE_ACCESS, p, &ac, sizeof(ac), NULL, NULL, NULL, 0), 0);
	/* As another user the host kernel says no. */
	tf_uid = tf_gid = 1000;
	ck_assert_int_eq(tf_req(FUSE_ACCESS, p, &ac, sizeof(ac), NULL, NULL, NULL, 0), -EACCES);
	ac.mask = X_OK;
	ck_assert_int_eq(tf_req(FUSE_ACCESS, FUSE_ROOT_ID, &ac, sizeof(ac), NULL, NULL, NULL, 0), 0);
}
END_TEST

START_TEST(creds_are_the_callers)
{
	struct fuse_entry_out e;
	struct stat st;
	uint64_t fh;

	ck_assert_int_eq(mkdir(tf_path("pub"), 0777), 0);
	ck_assert_int_eq(mkdir(tf_path("root"), 0755), 0);
	uint64_t pub = tf_nodeid(FUSE_ROOT_ID, "pub"), rootd = tf_nodeid(FUSE_ROOT_ID, "root");
	tf_uid = 1234;
	tf_gid = 5678;
	ck_assert_int_eq(tf_create(pub, "mine", O_RDWR, 0644, &e, &fh), 0);
	ck_assert_int_eq(stat(tf_path("pub/mine"), &st), 0);
	ck_assert_uint_eq(st.st_uid, 1234);
	ck_assert_uint_eq(st.st_gid, 5678);
	ck_assert_int_eq(tf_create(rootd, "no", O_RDWR, 0644, &e, &fh), -EACCES);
	struct fuse_mkdir_in md = { .mode = 0755 };
	ck_assert_int_eq(tf_req(FUSE_MKDIR, rootd, &md, sizeof(md), "no", NULL, NULL, 0), -EACCES);
	/* The thread is root again afterwards. */
	ck_assert_uint_eq(geteuid(), 0);
	tf_uid = tf_gid = 0;
	ck_assert_int_eq(tf_create(rootd, "yes", O_RDWR, 0644, &e, &fh), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuse");
	TCase *tc = tcase_create("ops");

	tcase_add_checked_fixture(tc, tf_setup, tf_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, init_negotiates);
	tcase_add_test(tc, init_versions);
	tcase_add_test(tc, init_offers_io_uring);
	tcase_add_test(tc, init_no_readdirplus_at_cache_never);
	tcase_add_test(tc, lookup_getattr_forget);
	tcase_add_test(tc, lookup_known_name_follows_the_host);
	tcase_add_test(tc, setattr_all);
	tcase_add_test(tc, symlink_readlink_mknod_mkdir);
	tcase_add_test(tc, rename_and_link);
	tcase_add_test(tc, files_read_write);
	tcase_add_test(tc, write_kills_suid);
	tcase_add_test(tc, fallocate_lseek_copy);
	tcase_add_test(tc, tmpfile_syncfs_statfs_access);
	tcase_add_test(tc, creds_are_the_callers);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
