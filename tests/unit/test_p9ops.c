// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every 9P2000.L operation of the server against a temporary directory,
 * checked against what the host sees: files and their data (direct and
 * through a fake transport's async I/O, Tflush of I/O in flight), readdir
 * with resumable offsets, directory changes, attributes, xattrs. Locks:
 * test_p9lock.c.
 */
#include "base/creds.h"
#include "tests/unit/check_main.h"
#include "tests/unit/test_p9_client.h"

#include <sys/statfs.h>
#include <sys/sysmacros.h>

static void read_host(const char *rel, char *buf, size_t sz)
{
	char p[PATH_MAX];
	path_of(p, rel);
	int fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ssize_t n = read(fd, buf, sz - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	close(fd);
}

static bool host_exists(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	path_of(p, rel);
	return lstat(p, &st) == 0;
}

/* ---- files ---- */

START_TEST(test_create_write_read)
{
	char buf[64];
	uint64_t size;
	uint32_t mode;

	ck_assert_int_eq(walk1(0, 1, "."), 1);   /* "." is the same dir */
	ck_assert_int_eq(t_lcreate(1, "f", P9_DOTL_RDWR, 0640), 0);
	ck_assert_int_eq(t_write(1, 0, "hello world", 11), 11);
	ck_assert_int_eq(t_read(1, 6, sizeof(buf), buf), 5);
	ck_assert_int_eq(memcmp(buf, "world", 5), 0);
	ck_assert_int_eq(t_read(1, 11, sizeof(buf), buf), 0);   /* EOF */
	ck_assert_int_eq(t_getattr(1, &mode, &size, NULL), 0);
	ck_assert_uint_eq(size, 11);
	ck_assert_uint_eq(mode, S_IFREG | 0640);
	read_host("f", buf, sizeof(buf));
	ck_assert_str_eq(buf, "hello world");
	/* lcreate needs a directory fid, and an existing name with EXCL fails. */
	ck_assert_int_eq(t_lcreate(1, "g", P9_DOTL_RDWR, 0644), -ENOTDIR);
	ck_assert_int_eq(t_lcreate(0, "f", P9_DOTL_RDWR | P9_DOTL_EXCL, 0644), -EEXIST);
	ck_assert_int_eq(t_lcreate(0, "a/b", P9_DOTL_RDWR, 0644), -EINVAL);
	ck_assert_int_eq(t_lcreate(0, "..", P9_DOTL_RDWR, 0644), -EINVAL);
}
END_TEST

START_TEST(test_lopen_rules)
{
	char p[PATH_MAX], buf[16];

	mkfile("f", "0123456789");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(t_read(1, 0, 4, buf), -EBADF);        /* not opened */
	ck_assert_int_eq(t_lopen(1, P9_DOTL_NOACCESS), -EINVAL);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_WRONLY | P9_DOTL_TRUNC), 0);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY), -EINVAL);  /* already open */
	read_host("f", buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(t_read(1, 0, 4, buf), -EBADF);         /* write-only */
	/* Directories open read-only only. */
	ck_assert_int_eq(t_walk(0, 2, 0, NULL, NULL), 0);
	ck_assert_int_eq(t_lopen(2, P9_DOTL_RDWR), -EISDIR);
	/* Special files are the guest kernel's business, never opened here. */
	path_of(p, "fifo");
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_eq(walk1(0, 3, "fifo"), 1);
	ck_assert_int_eq(t_lopen(3, P9_DOTL_RDONLY), -ENXIO);
}
END_TEST

START_TEST(test_write_size_mismatch)
{
	mkfile("f", "");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDWR), 0);
	begin_write(1, 0, "abcd", 4);
	/* count says 4, but the message carries 3 more bytes than that. */
	p9_put_reserve(&W, 3);
	ck_assert_int_eq(call(NULL), -EINVAL);
	/* count larger than the payload. */
	begin(P9_TWRITE);
	p9_put_u32(&W, 1);
	p9_put_u64(&W, 0);
	p9_put_u32(&W, 100);
	p9_put_reserve(&W, 10);
	ck_assert_int_eq(call(NULL), -EINVAL);
	ck_assert_int_eq(t_write(1, 0, "ok", 2), 2);
}
END_TEST

START_TEST(test_async_io_through_transport)
{
	struct p9_rbuf r;

	tr.async = &fake_async;
	mkfile("f", "");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDWR), 0);
	begin_write(1, 0, "async!", 6);
	p9_put_hdr(reqbuf, (uint32_t)W.pos, P9_TWRITE, cur_tag);
	int n = handle_raw(reqbuf, W.pos);
	if (n != FS_REQ_DEFERRED) {
		/* The filesystem took the NOWAIT write: the direct path answered. */
		ck_assert_int_eq(parse_reply(n, cur_tag, P9_TWRITE, &r), 0);
		ck_assert_uint_eq(p9_get_u32(&r), 6);
		UNIT_SKIP("this filesystem took the NOWAIT write: the io_uring path was not reached");
	}
	ck_assert(aio.used && aio.is_write);
	ck_assert_uint_eq(fs_iov_len(aio.iov, aio.n), 6);
	/* The iovecs point into the request itself: no copy was made. */
	ck_assert_ptr_eq(aio.iov[0].iov_base, reqbuf + P9_TWRITE_HDRSZ);
	ssize_t w = pwritev(aio.fd, aio.iov, (int)aio.n, (off_t)aio.off);
	ck_assert_int_eq(w, 6);
	aio.done(aio.arg, (int)w);
	ck_assert_int_eq(ndone, 1);
	ck_assert_uint_eq(done_len, P9_HDRSZ + 4);
	ck_assert_uint_eq(done_reply[4], P9_RWRITE);
	char buf[16];
	read_host("f", buf, sizeof(buf));
	ck_assert_str_eq(buf, "async!");
}
END_TEST

START_TEST(test_flush_waits_for_async_io)
{
	tr.async = &fake_async;
	mkfile("f", "");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDWR), 0);
	begin_write(1, 0, "inflight", 8);
	p9_put_hdr(reqbuf, (uint32_t)W.pos, P9_TWRITE, cur_tag);
	/* The write request must outlive this call: give it its own buffers. */
	static uint8_t win[64], wout[64], fout[64];
	static struct iovec wi, wo, fo, fi;
	static struct fs_req wreq, freq;
	memcpy(win, reqbuf, W.pos);
	wi = (struct iovec){ win, W.pos };
	wo = (struct iovec){ wout, sizeof(wout) };
	wreq = (struct fs_req){ .in = &wi, .nin = 1, .out = &wo, .nout = 1 };
	if (p9_handle(ses, &wreq, &tr) != FS_REQ_DEFERRED)
		UNIT_SKIP("this filesystem took the NOWAIT write: nothing in flight to flush");
	uint16_t wtag = cur_tag;
	/* Tflush of the write in flight: no Rflush before the Rwrite. */
	static uint8_t fmsg[9];
	p9_put_hdr(fmsg, 9, P9_TFLUSH, 77);
	fmsg[7] = (uint8_t)wtag;
	fmsg[8] = (uint8_t)(wtag >> 8);
	fi = (struct iovec){ fmsg, 9 };
	fo = (struct iovec){ fout, sizeof(fout) };
	freq = (struct fs_req){ .in = &fi, .nin = 1, .out = &fo, .nout = 1 };
	ck_assert_int_eq(p9_handle(ses, &freq, &tr), FS_REQ_DEFERRED);
	ck_assert_int_eq(ndone, 0);
	ssize_t w = pwritev(aio.fd, aio.iov, (int)aio.n, (off_t)aio.off);
	aio.done(aio.arg, (int)w);
	ck_assert_int_eq(ndone, 2);
	ck_assert_uint_eq(done_types[0], P9_RWRITE);
	ck_assert_uint_eq(done_types[1], P9_RFLUSH);
	ck_assert_uint_eq(fout[5] | fout[6] << 8, 77);
}
END_TEST

START_TEST(test_fsync)
{
	mkfile("f", "x");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	begin(P9_TFSYNC);
	p9_put_u32(&W, 1);
	p9_put_u32(&W, 0);
	ck_assert_int_eq(call(NULL), -EBADF);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDWR), 0);
	for (uint32_t ds = 0; ds < 2; ds++) {
		begin(P9_TFSYNC);
		p9_put_u32(&W, 1);
		p9_put_u32(&W, ds);
		ck_assert_int_eq(call(NULL), 0);
	}
}
END_TEST

/* ---- readdir ---- */

/* Reads the whole directory with replies of count bytes; returns entries. */
static int readdir_all(uint32_t fid, uint32_t count, bool *seen, int nfiles, uint64_t start,
		       uint64_t *mid_off, int stop_after)
{
	uint64_t off = start;
	int total = 0;

	for (;;) {
		struct p9_rbuf r;
		begin(P9_TREADDIR);
		p9_put_u32(&W, fid);
		p9_put_u64(&W, off);
		p9_put_u32(&W, count);
		ck_assert_int_eq(call(&r), 0);
		uint32_t n = p9_get_u32(&r);
		ck_assert_uint_le(n, count);
		ck_assert_uint_eq(p9_rbuf_left(&r), n);
		if (n == 0)
			return total;
		/* One pass fills the buffer: no room left for a typical entry. */
		size_t entries = 0;
		while (p9_rbuf_left(&r)) {
			struct p9_qid q;
			struct p9_str name;
			p9_get_qid(&r, &q);
			off = p9_get_u64(&r);
			p9_get_u8(&r);
			p9_get_str(&r, &name);
			ck_assert_int_eq(p9_rbuf_error(&r), 0);
			entries++;
			total++;
			int idx;
			if (name.len > 1 && name.s[0] == 'e' && sscanf(name.s + 1, "%d", &idx) == 1 &&
			    idx >= 0 && idx < nfiles) {
				ck_assert_msg(!seen[idx], "entry %d seen twice", idx);
				seen[idx] = true;
			}
			if (total == stop_after) {
				/* The rest of this reply is for the resumed read. */
				*mid_off = off;
				return total;
			}
		}
		ck_assert_uint_gt(entries, 0);
	}
}

START_TEST(test_readdir_all_and_resume)
{
	enum { N = 500 };
	static bool seen[N], seen2[N];
	uint64_t mid = 0;

	for (int i = 0; i < N; i++) {
		char name[16];
		snprintf(name, sizeof(name), "e%05d", i);
		mkfile(name, "");
	}
	ck_assert_int_eq(t_walk(0, 1, 0, NULL, NULL), 0);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY | P9_DOTL_DIRECTORY), 0);
	/* Small replies: many round trips, each resuming at the last offset. */
	ck_assert_int_eq(readdir_all(1, 300, seen, N, 0, NULL, 0), N + 2);
	for (int i = 0; i < N; i++)
		ck_assert_msg(seen[i], "entry %d missing", i);
	/* Restart from an offset handed out mid-way: exactly the rest follows. */
	memset(seen, 0, sizeof(seen));
	ck_assert_int_eq(readdir_all(1, 8192, seen, N, 0, &mid, 100), 100);
	int rest = readdir_all(1, 8192, seen2, N, mid, NULL, 0);
	ck_assert_int_eq(100 + rest, N + 2);
	for (int i = 0; i < N; i++)
		ck_assert_msg(seen[i] != seen2[i], "entry %d in both or neither half", i);
	/* Offset 0 again rewinds. */
	memset(seen2, 0, sizeof(seen2));
	ck_assert_int_eq(readdir_all(1, 65536, seen2, N, 0, NULL, 0), N + 2);
}
END_TEST

START_TEST(test_readdir_fills_buffer)
{
	for (int i = 0; i < 300; i++) {
		char name[16];
		snprintf(name, sizeof(name), "e%05d", i);
		mkfile(name, "");
	}
	ck_assert_int_eq(t_walk(0, 1, 0, NULL, NULL), 0);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY), 0);
	struct p9_rbuf r;
	begin(P9_TREADDIR);
	p9_put_u32(&W, 1);
	p9_put_u64(&W, 0);
	p9_put_u32(&W, 4096);
	ck_assert_int_eq(call(&r), 0);
	uint32_t n = p9_get_u32(&r);
	/* Entries here are 30 bytes: a full reply leaves less than one free. */
	ck_assert_uint_gt(n, 4096 - 30);
	/* Too small for any entry; and not opened / not a directory. */
	begin(P9_TREADDIR);
	p9_put_u32(&W, 1);
	p9_put_u64(&W, 0);
	p9_put_u32(&W, 10);
	ck_assert_int_eq(call(NULL), -EINVAL);
	ck_assert_int_eq(walk1(0, 2, "e00001"), 1);
	ck_assert_int_eq(t_lopen(2, P9_DOTL_RDONLY), 0);
	begin(P9_TREADDIR);
	p9_put_u32(&W, 2);
	p9_put_u64(&W, 0);
	p9_put_u32(&W, 4096);
	ck_assert_int_eq(call(NULL), -ENOTDIR);
}
END_TEST

/* ---- directory changes ---- */

START_TEST(test_mkdir_mknod_symlink_readlink)
{
	struct p9_rbuf r;
	struct p9_str s;
	char p[PATH_MAX];
	struct stat st;

	ck_assert_int_eq(t_mkdir(0, "d", 0750), 0);
	path_of(p, "d");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(t_mkdir(0, "d", 0750), -EEXIST);
	ck_assert_int_eq(t_mkdir(0, ".", 0750), -EINVAL);

	begin(P9_TMKNOD);
	p9_put_u32(&W, 0);
	put_str("fifo");
	p9_put_u32(&W, S_IFIFO | 0600);
	p9_put_u32(&W, 0);
	p9_put_u32(&W, 0);
	p9_put_u32(&W, 0);
	ck_assert_int_eq(call(&r), 0);
	path_of(p, "fifo");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));

	begin(P9_TSYMLINK);
	p9_put_u32(&W, 0);
	put_str("ln");
	put_str("../../outside/target");
	p9_put_u32(&W, 0);
	ck_assert_int_eq(call(&r), 0);
	struct p9_qid q;
	p9_get_qid(&r, &q);
	ck_assert_uint_eq(q.type, P9_QTSYMLINK);
	ck_assert_int_eq(walk1(0, 1, "ln"), 1);
	begin(P9_TREADLINK);
	p9_put_u32(&W, 1);
	ck_assert_int_eq(call(&r), 0);
	p9_get_str(&r, &s);
	ck_assert(p9_str_eq(&s, "../../outside/target"));
	begin(P9_TREADLINK);
	p9_put_u32(&W, 0);
	ck_assert_int_eq(call(NULL), -EINVAL);
}
END_TEST

static int t_mknod(uint32_t dfid, const char *name, uint32_t mode, uint32_t major,
		   uint32_t minor)
{
	begin(P9_TMKNOD);
	p9_put_u32(&W, dfid);
	put_str(name);
	p9_put_u32(&W, mode);
	p9_put_u32(&W, major);
	p9_put_u32(&W, minor);
	p9_put_u32(&W, 0);
	return call(NULL);
}

static int t_truncate(uint32_t fid, uint64_t size)
{
	begin(P9_TSETATTR);
	p9_put_u32(&W, fid);
	p9_put_u32(&W, P9_SETATTR_SIZE);
	p9_put_u32(&W, 0);
	p9_put_u32(&W, 0);
	p9_put_u32(&W, 0);
	p9_put_u64(&W, size);
	for (int i = 0; i < 4; i++)
		p9_put_u64(&W, 0);
	return call(NULL);
}

/*
 * Rule: nothing but regular files and directories is opened for a client,
 * whoever made the node. /dev/zero's twin would hand out host device
 * bytes; the FIFO would block this thread in open(2) for good (the
 * test's timeout fails it).
 */
START_TEST(test_no_special_file_opens)
{
	char p[PATH_MAX];

	ck_assert_msg(geteuid() == 0, "needs root to make a device node");
	path_of(p, "zero");
	ck_assert_int_eq(mknod(p, S_IFCHR | 0666, makedev(1, 5)), 0);
	path_of(p, "fifo");
	ck_assert_int_eq(mkfifo(p, 0666), 0);
	ck_assert_int_eq(walk1(0, 1, "zero"), 1);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY), -ENXIO);
	ck_assert_int_eq(t_truncate(1, 0), -EINVAL); /* as truncate(2) says */
	ck_assert_int_eq(walk1(0, 2, "fifo"), 1);
	ck_assert_int_eq(t_lopen(2, P9_DOTL_WRONLY), -ENXIO);
	ck_assert_int_eq(t_truncate(2, 0), -EINVAL);
	/* Tlcreate of an existing name opens it: only if it is a regular file. */
	ck_assert_int_eq(t_walk(0, 3, 0, NULL, NULL), 0);
	ck_assert_int_eq(t_lcreate(3, "zero", P9_DOTL_RDONLY, 0644), -ENXIO);
	ck_assert_int_eq(t_lcreate(3, "fifo", P9_DOTL_RDONLY, 0644), -ENXIO);
	mkfile("f", "x");
	ck_assert_int_eq(t_walk(0, 4, 0, NULL, NULL), 0);
	ck_assert_int_eq(t_lcreate(4, "f", P9_DOTL_RDWR, 0644), 0);
}
END_TEST

/* Rule: device nodes with a real major:minor only on a `devices` share. */
START_TEST(test_mknod_policy)
{
	char p[PATH_MAX];
	struct stat st;

	ck_assert_int_eq(t_mknod(0, "zero", S_IFCHR | 0666, 1, 5), -EPERM);
	ck_assert_int_eq(t_mknod(0, "loop", S_IFBLK | 0666, 7, 0), -EPERM);
	path_of(p, "zero");
	ck_assert_int_eq(lstat(p, &st), -1);
	/* FIFOs, sockets and the overlayfs whiteout (char 0:0) always. */
	ck_assert_int_eq(t_mknod(0, "wh", S_IFCHR | 0000, 0, 0), 0);
	ck_assert_int_eq(t_mknod(0, "sock", S_IFSOCK | 0600, 0, 0), 0);
	ck_assert_int_eq(t_mknod(0, "fifo", S_IFIFO | 0600, 3, 4), 0);
	path_of(p, "fifo");
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_uint_eq(st.st_rdev, 0);
}
END_TEST

START_TEST(test_mknod_devices_share)
{
	char p[PATH_MAX];
	struct stat st;

	ck_assert_int_eq(t_mknod(0, "zero", S_IFCHR | 0666, 1, 5), 0);
	path_of(p, "zero");
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_uint_eq(st.st_rdev, makedev(1, 5));
	/* Made for the guest kernel to serve; still never opened here. */
	ck_assert_int_eq(walk1(0, 1, "zero"), 1);
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDWR), -ENXIO);
}
END_TEST

static void setup_devices(void)
{
	p9t_devices = true;
	fs_caps_allow_devices(true); /* what the command does for such a share */
	setup_opts(false);
}

START_TEST(test_link_rename_unlink_remove)
{
	char buf[16];

	mkfile("f", "data");
	ck_assert_int_eq(t_mkdir(0, "d", 0755), 0);
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(walk1(0, 2, "d"), 1);
	/* Tlink dfid fid name */
	begin(P9_TLINK);
	p9_put_u32(&W, 2);
	p9_put_u32(&W, 1);
	put_str("hard");
	ck_assert_int_eq(call(NULL), 0);
	read_host("d/hard", buf, sizeof(buf));
	ck_assert_str_eq(buf, "data");
	/* Trenameat */
	begin(P9_TRENAMEAT);
	p9_put_u32(&W, 2);
	put_str("hard");
	p9_put_u32(&W, 0);
	put_str("moved");
	ck_assert_int_eq(call(NULL), 0);
	ck_assert(host_exists("moved") && !host_exists("d/hard"));
	/* Trename fid dfid name: the file fid 1 names moves into d. */
	begin(P9_TRENAME);
	p9_put_u32(&W, 1);
	p9_put_u32(&W, 2);
	put_str("f2");
	ck_assert_int_eq(call(NULL), 0);
	ck_assert(host_exists("d/f2") && !host_exists("f"));
	/* The fid follows the file (it holds an fd, not a path). */
	ck_assert_int_eq(t_lopen(1, P9_DOTL_RDONLY), 0);
	ck_assert_int_eq(t_read(1, 0, sizeof(buf), buf), 4);
	/* Trename with a bad target name. */
	begin(P9_TRENAME);
	p9_put_u32(&W, 1);
	p9_put_u32(&W, 0);
	put_str("x/y");
	ck_assert_int_eq(call(NULL), -EINVAL);
	/* Tunlinkat: file, then directory needing AT_REMOVEDIR. */
	ck_assert_int_eq(t_unlinkat(0, "moved", 0), 0);
	ck_assert(!host_exists("moved"));
	ck_assert_int_eq(t_unlinkat(0, "d", 0), -EISDIR);
	ck_assert_int_eq(t_unlinkat(0, "missing", 0), -ENOENT);
	ck_assert_int_eq(t_unlinkat(0, "d", 0x1), -EINVAL);
	/* Tremove: removes the file and clunks the fid, even on failure. */
	begin(P9_TREMOVE);
	p9_put_u32(&W, 1);
	ck_assert_int_eq(call(NULL), 0);
	ck_assert(!host_exists("d/f2"));
	ck_assert_int_eq(t_clunk(1), -EBADF);
	begin(P9_TREMOVE);
	p9_put_u32(&W, 2);
	ck_assert_int_eq(call(NULL), 0);
	ck_assert(!host_exists("d"));
	/* The root itself cannot be removed. */
	ck_assert_int_eq(t_walk(0, 3, 0, NULL, NULL), 0);
	begin(P9_TREMOVE);
	p9_put_u32(&W, 3);
	ck_assert_int_eq(call(NULL), -EBUSY);
	ck_assert_int_eq(t_clunk(3), -EBADF);
}
END_TEST

START_TEST(test_setattr_and_statfs)
{
	char p[PATH_MAX];
	struct stat st;
	struct statfs sf;
	struct p9_rbuf r;

	mkfile("f", "0123456789");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	begin(P9_TSETATTR);
	p9_put_u32(&W, 1);
	p9_put_u32(&W, P9_SETATTR_MODE | P9_SETATTR_SIZE | P9_SETATTR_MTIME |
		       P9_SETATTR_MTIME_SET | P9_SETATTR_UID | P9_SETATTR_GID);
	p9_put_u32(&W, 0604);
	p9_put_u32(&W, geteuid());
	p9_put_u32(&W, getegid());
	p9_put_u64(&W, 3);
	p9_put_u64(&W, 0);
	p9_put_u64(&W, 0);
	p9_put_u64(&W, 1000000);
	p9_put_u64(&W, 5);
	ck_assert_int_eq(call(NULL), 0);
	path_of(p, "f");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0604);
	ck_assert_int_eq(st.st_size, 3);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1000000);
	ck_assert_int_eq(st.st_mtim.tv_nsec, 5);

	ck_assert_int_eq(statfs(root, &sf), 0);
	begin(P9_TSTATFS);
	p9_put_u32(&W, 0);
	ck_assert_int_eq(call(&r), 0);
	ck_assert_uint_eq(p9_get_u32(&r), (uint32_t)sf.f_type);
	ck_assert_uint_eq(p9_get_u32(&r), (uint32_t)sf.f_bsize);
	ck_assert(p9_get_u64(&r) == sf.f_blocks);
}
END_TEST

/* ---- xattrs ---- */

static int xattr_set(uint32_t fid, const char *name, const void *val, uint32_t len, uint32_t flags)
{
	int err;
	ck_assert_int_eq(t_walk(fid, 9, 0, NULL, NULL), 0);
	begin(P9_TXATTRCREATE);
	p9_put_u32(&W, 9);
	put_str(name);
	p9_put_u64(&W, len);
	p9_put_u32(&W, flags);
	err = call(NULL);
	if (err) {
		t_clunk(9);
		return err;
	}
	if (len)
		ck_assert_int_eq(t_write(9, 0, val, len), (int)len);
	return t_clunk(9);   /* the commit happens here */
}

static int xattr_get(uint32_t fid, const char *name, char *buf, size_t sz)
{
	struct p9_rbuf r;
	begin(P9_TXATTRWALK);
	p9_put_u32(&W, fid);
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

START_TEST(test_xattrs)
{
	char p[PATH_MAX], buf[256];

	mkfile("f", "");
	path_of(p, "f");
	if (setxattr(p, "user.probe", "1", 1, 0) < 0 && errno == ENOTSUP)
		UNIT_SKIP("no user xattrs on this filesystem");
	removexattr(p, "user.probe");
	ck_assert_int_eq(walk1(0, 1, "f"), 1);
	ck_assert_int_eq(xattr_set(1, "user.color", "blue", 4, 0), 0);
	ck_assert_int_eq(getxattr(p, "user.color", buf, sizeof(buf)), 4);
	ck_assert_int_eq(memcmp(buf, "blue", 4), 0);
	ck_assert_int_eq(xattr_get(1, "user.color", buf, sizeof(buf)), 4);
	ck_assert_int_eq(memcmp(buf, "blue", 4), 0);
	/* CREATE on an existing name fails at commit (clunk). */
	ck_assert_int_eq(xattr_set(1, "user.color", "red", 3, P9_XATTR_CREATE), -EEXIST);
	ck_assert_int_eq(setxattr(p, "user.size", "xx", 2, 0), 0);
	/* An empty name lists. */
	int n = xattr_get(1, "", buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert(memmem(buf, (size_t)n, "user.color\0", 11) && memmem(buf, (size_t)n, "user.size\0", 10));
	/* Size 0 removes (the Linux client's removexattr). */
	ck_assert_int_eq(xattr_set(1, "user.color", NULL, 0, 0), 0);
	ck_assert_int_eq(getxattr(p, "user.color", buf, sizeof(buf)), -1);
	ck_assert_int_eq(xattr_get(1, "user.color", buf, sizeof(buf)), -ENODATA);
	/* A value clunked before it was all written is not set. */
	ck_assert_int_eq(t_walk(1, 9, 0, NULL, NULL), 0);
	begin(P9_TXATTRCREATE);
	p9_put_u32(&W, 9);
	put_str("user.partial");
	p9_put_u64(&W, 10);
	p9_put_u32(&W, 0);
	ck_assert_int_eq(call(NULL), 0);
	ck_assert_int_eq(t_write(9, 0, "abc", 3), 3);
	ck_assert_int_eq(t_write(9, 8, "abc", 3), -ENOSPC);   /* past the size */
	ck_assert_int_eq(t_clunk(9), -EINVAL);
	ck_assert_int_eq(getxattr(p, "user.partial", buf, sizeof(buf)), -1);
	/* Privileged namespaces are not the guest's to write (file caps!). */
	ck_assert_int_eq(xattr_set(1, "security.capability", "x", 1, 0), -EOPNOTSUPP);
	ck_assert_int_eq(xattr_set(1, "trusted.overlay.opaque", "y", 1, 0), -EOPNOTSUPP);
	ck_assert_int_eq(xattr_set(1, "security.selinux", NULL, 0, 0), -EOPNOTSUPP);
	ck_assert_int_eq(xattr_set(1, "system.other", "x", 1, 0), -EOPNOTSUPP);
	/* Oversized values are refused up front. */
	ck_assert_int_eq(t_walk(1, 9, 0, NULL, NULL), 0);
	begin(P9_TXATTRCREATE);
	p9_put_u32(&W, 9);
	put_str("user.big");
	p9_put_u64(&W, 1 << 20);
	p9_put_u32(&W, 0);
	ck_assert_int_eq(call(NULL), -E2BIG);
}
END_TEST

static Suite *p9ops_suite(void)
{
	Suite *s = suite_create("p9ops");
	TCase *tc = tcase_create("files");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_write_read);
	tcase_add_test(tc, test_lopen_rules);
	tcase_add_test(tc, test_write_size_mismatch);
	tcase_add_test(tc, test_async_io_through_transport);
	tcase_add_test(tc, test_flush_waits_for_async_io);
	tcase_add_test(tc, test_fsync);
	tcase_add_test(tc, test_readdir_all_and_resume);
	tcase_add_test(tc, test_readdir_fills_buffer);
	suite_add_tcase(s, tc);

	tc = tcase_create("dirs_attrs");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_mkdir_mknod_symlink_readlink);
	tcase_add_test(tc, test_link_rename_unlink_remove);
	tcase_add_test(tc, test_setattr_and_statfs);
	tcase_add_test(tc, test_mknod_policy);
	tcase_add_test(tc, test_xattrs);
	suite_add_tcase(s, tc);

	tc = tcase_create("devices_share");
	tcase_add_checked_fixture(tc, setup_devices, teardown);
	/* The test makes a device node itself: CAP_MKNOD, kept for such a share. */
	tcase_add_test(tc, test_no_special_file_opens);
	tcase_add_test(tc, test_mknod_devices_share);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return unit_main(p9ops_suite());
}
