// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsbattery guest tests, part one: namespace and metadata operations. Each
 * test leaves its results under DIR/keep/ with fixed names and values so the
 * host can check them after the guest is gone (fsbattery_host.c). Where a
 * client (not the server) lacks a feature, the test asserts the client's
 * real answer, named in a comment, instead of skipping it.
 */
#include "fsbattery.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#endif

static int same_content(const char *path, const char *want)
{
	char buf[4096];
	ssize_t n = fsb_read_file(path, buf, sizeof(buf));

	if (n < 0) {
		fsb_fail("read %s: %s", path, fsb_errname(errno));
		return -1;
	}
	if ((size_t)n != strlen(want) || memcmp(buf, want, (size_t)n) != 0) {
		fsb_fail("%s holds '%.60s' (%zd bytes), want '%s'", path, buf, n, want);
		return -1;
	}
	return 0;
}

static int t_files(const struct fsb *b)
{
	const char *p = fsb_path(b, "keep/file.txt"), *s = fsb_path(b, "scratch");
	char buf[64] = { 0 }, zero[64] = { 0 };
	struct stat st;
	int fd;

	WANT_OK(fd = open(p, O_CREAT | O_EXCL | O_RDWR, 0644));
	WANT(write(fd, "hello", 5) == 5, "write: %s", fsb_errname(errno));
	WANT(pwrite(fd, " world", 6, 5) == 6, "pwrite: %s", fsb_errname(errno));
	WANT(pread(fd, buf, sizeof(buf), 0) == 11 && memcmp(buf, "hello world", 11) == 0,
	     "pread gave '%s'", buf);
	WANT_ERR(open(p, O_CREAT | O_EXCL | O_RDWR, 0644), EEXIST);
	WANT_OK(ftruncate(fd, 5));
	WANT_OK(fstat(fd, &st));
	WANT(st.st_size == 5, "size %lld after ftruncate(5)", (long long)st.st_size);
	WANT_OK(ftruncate(fd, 8192));
	WANT(pread(fd, buf, sizeof(buf), 100) == sizeof(buf) && !memcmp(buf, zero, sizeof(buf)),
	     "the extended part is not zeros");
	close(fd);
	WANT_OK(truncate(p, 0));
	WANT_OK(stat(p, &st));
	WANT(st.st_size == 0, "size %lld after truncate(0)", (long long)st.st_size);

	WANT_OK(fd = open(p, O_WRONLY | O_APPEND));
	WANT(write(fd, "ab", 2) == 2 && write(fd, "cd", 2) == 2, "append: %s", fsb_errname(errno));
	close(fd);
	if (same_content(p, "abcd"))
		return -1;
	WANT_OK(fd = open(p, O_WRONLY | O_TRUNC));
	WANT(write(fd, FSB_FILE_TEXT, strlen(FSB_FILE_TEXT)) == (ssize_t)strlen(FSB_FILE_TEXT),
	     "write: %s", fsb_errname(errno));
	close(fd);
	if (same_content(p, FSB_FILE_TEXT))
		return -1;

	WANT_OK(fsb_write_file(s, "x", 1, 0600));
	WANT_OK(unlink(s));
	WANT_ERR(stat(s, &st), ENOENT);
	WANT_ERR(open(s, O_RDONLY), ENOENT);
	WANT_ERR(unlink(s), ENOENT);
	return 0;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int t_dirs(const struct fsb *b)
{
	struct stat st;
	int n;

	WANT_OK(mkdir(fsb_path(b, "d1"), 0755));
	WANT_ERR(mkdir(fsb_path(b, "d1"), 0755), EEXIST);
	WANT_OK(mkdir(fsb_path(b, "d1/d2"), 0700));
	WANT_OK(fsb_write_file(fsb_path(b, "d1/d2/f"), "f", 1, 0644));
	WANT_ERR(rmdir(fsb_path(b, "d1")), ENOTEMPTY);
	WANT_OK(rename(fsb_path(b, "d1"), fsb_path(b, "keep/dir")));
	WANT_OK(stat(fsb_path(b, "keep/dir/d2/f"), &st));
	WANT_OK(mkdir(fsb_path(b, "keep/dir/sub"), 0750));
	WANT_OK(stat(fsb_path(b, "keep/dir/sub"), &st));
	WANT(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0750, "keep/dir/sub has mode %o",
	     st.st_mode);
	WANT_ERR(rmdir(fsb_path(b, "keep/dir/d2/f")), ENOTDIR);
	WANT_ERR(unlink(fsb_path(b, "keep/dir/sub")), EISDIR);
	WANT_ERR(mkdir(fsb_path(b, "no-such-dir/x"), 0755), ENOENT);
	n = count_entries(fsb_path(b, "keep/dir"));
	WANT(n == 2, "keep/dir lists %d entries, want 2 (d2, sub)", n);
	WANT_OK(mkdir(fsb_path(b, "gone"), 0755));
	WANT_OK(rmdir(fsb_path(b, "gone")));
	WANT_ERR(stat(fsb_path(b, "gone"), &st), ENOENT);
	return 0;
}

static int t_rename(const struct fsb *b)
{
	struct stat st;

	WANT_OK(fsb_write_file(fsb_path(b, "r-src"), "new", 3, 0644));
	WANT_OK(fsb_write_file(fsb_path(b, "r-dst"), "old", 3, 0644));
	WANT_OK(rename(fsb_path(b, "r-src"), fsb_path(b, "r-dst")));
	WANT_ERR(stat(fsb_path(b, "r-src"), &st), ENOENT);
	if (same_content(fsb_path(b, "r-dst"), "new"))
		return -1;
	WANT_OK(rename(fsb_path(b, "r-dst"), fsb_path(b, "keep/renamed")));

	/* Directories: over an empty one works, over a full one does not. */
	WANT_OK(mkdir(fsb_path(b, "rd1"), 0755));
	WANT_OK(fsb_write_file(fsb_path(b, "rd1/inside"), "i", 1, 0644));
	WANT_OK(mkdir(fsb_path(b, "rd2"), 0755));
	WANT_OK(rename(fsb_path(b, "rd1"), fsb_path(b, "rd2")));
	WANT_OK(stat(fsb_path(b, "rd2/inside"), &st));
	WANT_OK(mkdir(fsb_path(b, "rd3"), 0755));
	WANT_ERR2(rename(fsb_path(b, "rd3"), fsb_path(b, "rd2")), ENOTEMPTY, EEXIST);
	WANT_ERR(rename(fsb_path(b, "keep/renamed"), fsb_path(b, "rd3")), EISDIR);
	WANT_ERR(rename(fsb_path(b, "rd3"), fsb_path(b, "keep/renamed")), ENOTDIR);

	WANT_OK(fsb_write_file(fsb_path(b, "x-a"), "A", 1, 0644));
	WANT_OK(fsb_write_file(fsb_path(b, "x-b"), "B", 1, 0644));
	if (b->kind == FSB_9P) {
		/* Linux's v9fs_vfs_rename refuses every flag (9P2000.L has no
		 * renameat2); the server never sees the request. */
		WANT_ERR(syscall(SYS_renameat2, AT_FDCWD, fsb_path(b, "x-a"), AT_FDCWD,
				 fsb_path(b, "x-c"), RENAME_NOREPLACE), EINVAL);
		fsb_note("9p client: renameat2 flags -> EINVAL (v9fs has no RENAME2)");
		return 0;
	}
	WANT_ERR(syscall(SYS_renameat2, AT_FDCWD, fsb_path(b, "x-a"), AT_FDCWD,
			 fsb_path(b, "x-b"), RENAME_NOREPLACE), EEXIST);
	WANT_OK(syscall(SYS_renameat2, AT_FDCWD, fsb_path(b, "x-a"), AT_FDCWD,
			fsb_path(b, "x-c"), RENAME_NOREPLACE));
	WANT_OK(syscall(SYS_renameat2, AT_FDCWD, fsb_path(b, "x-c"), AT_FDCWD,
			fsb_path(b, "x-b"), RENAME_EXCHANGE));
	if (same_content(fsb_path(b, "x-c"), "B") || same_content(fsb_path(b, "x-b"), "A"))
		return -1;
	WANT_ERR(syscall(SYS_renameat2, AT_FDCWD, fsb_path(b, "x-c"), AT_FDCWD,
			 fsb_path(b, "x-none"), RENAME_EXCHANGE), ENOENT);
	WANT_OK(rename(fsb_path(b, "x-c"), fsb_path(b, "keep/exch-a")));
	WANT_OK(rename(fsb_path(b, "x-b"), fsb_path(b, "keep/exch-b")));
	return 0;
}

static int t_links(const struct fsb *b)
{
	const char *h1 = fsb_path(b, "keep/hard1"), *h2 = fsb_path(b, "keep/hard2");
	const char *h3 = fsb_path(b, "keep/hard3");
	struct stat s1, s2;

	WANT_OK(fsb_write_file(h1, "linked\n", 7, 0644));
	WANT_OK(link(h1, h2));
	WANT_OK(stat(h1, &s1));
	WANT_OK(stat(h2, &s2));
	WANT(s1.st_nlink == 2 && s2.st_nlink == 2, "nlink %lu/%lu, want 2", (unsigned long)s1.st_nlink,
	     (unsigned long)s2.st_nlink);
	WANT(s1.st_ino == s2.st_ino, "hard links have inodes %llu and %llu",
	     (unsigned long long)s1.st_ino, (unsigned long long)s2.st_ino);
	WANT_ERR(link(h1, h2), EEXIST);
	WANT_OK(link(h2, h3));
	WANT_OK(stat(h1, &s1));
	WANT(s1.st_nlink == 3, "nlink %lu after a third link", (unsigned long)s1.st_nlink);
	WANT_OK(unlink(h3));
	WANT_OK(stat(h1, &s1));
	WANT(s1.st_nlink == 2, "nlink %lu after unlinking one", (unsigned long)s1.st_nlink);
	if (same_content(h2, "linked\n"))
		return -1;
	WANT_ERR(link(fsb_path(b, "keep"), fsb_path(b, "dirlink")), EPERM);
	WANT_ERR(link(fsb_path(b, "no-such"), fsb_path(b, "x")), ENOENT);
	return 0;
}

static int t_symlinks(const struct fsb *b)
{
	const char *s = fsb_path(b, "keep/sym");
	char buf[4096], target[1001];
	struct stat st;
	ssize_t n;

	WANT_OK(symlink("file.txt", s));
	n = readlink(s, buf, sizeof(buf));
	WANT(n == 8 && memcmp(buf, "file.txt", 8) == 0, "readlink gave %zd '%.*s'", n,
	     (int)(n > 0 ? n : 0), buf);
	WANT_OK(lstat(s, &st));
	WANT(S_ISLNK(st.st_mode) && st.st_size == 8, "lstat: mode %o size %lld", st.st_mode,
	     (long long)st.st_size);
	WANT_OK(stat(s, &st));
	WANT(S_ISREG(st.st_mode), "stat does not follow the link: mode %o", st.st_mode);
	if (same_content(s, FSB_FILE_TEXT))
		return -1;
	WANT_ERR(symlink("elsewhere", s), EEXIST);
	WANT_ERR(open(s, O_RDONLY | O_NOFOLLOW), ELOOP);

	WANT_OK(symlink("no-such-file", fsb_path(b, "keep/dangling")));
	WANT_ERR(open(fsb_path(b, "keep/dangling"), O_RDONLY), ENOENT);

	memset(target, 't', 1000);
	target[1000] = 0;
	WANT_OK(symlink(target, fsb_path(b, "longlink")));
	n = readlink(fsb_path(b, "longlink"), buf, sizeof(buf));
	WANT(n == 1000 && memcmp(buf, target, 1000) == 0, "a 1000-byte target read back as %zd",
	     n);
	WANT_OK(unlink(fsb_path(b, "longlink")));
	return 0;
}

/* The host's clock when it set the share up (the guest has no RTC). */
static long long host_now(const struct fsb *b)
{
	char buf[64];

	if (fsb_read_file(fsb_path(b, "host-now"), buf, sizeof(buf)) <= 0)
		return -1;
	return atoll(buf);
}

static int t_attrs(const struct fsb *b)
{
	const char *p = fsb_path(b, "keep/attr"), *q = fsb_path(b, "keep/now");
	struct timespec ts[2] = { { FSB_ATIME_SEC, FSB_ATIME_NSEC },
				  { FSB_MTIME_SEC, FSB_MTIME_NSEC } };
	struct stat st;
	long long hn = host_now(b);
	int fd;

	WANT_OK(fsb_write_file(p, "attr", 4, 0644));
	WANT_OK(chmod(p, 0600));
	WANT_OK(stat(p, &st));
	WANT((st.st_mode & 07777) == 0600, "mode %o after chmod 0600", st.st_mode & 07777);
	WANT_OK(fd = open(p, O_RDONLY));
	WANT_OK(fchmod(fd, FSB_ATTR_MODE));
	close(fd);
	WANT_OK(chown(p, FSB_ATTR_UID, FSB_ATTR_GID));
	WANT_OK(utimensat(AT_FDCWD, p, ts, 0));
	WANT_OK(stat(p, &st));
	WANT((st.st_mode & 07777) == FSB_ATTR_MODE, "mode %o, want %o", st.st_mode & 07777,
	     FSB_ATTR_MODE);
	WANT(st.st_uid == FSB_ATTR_UID && st.st_gid == FSB_ATTR_GID, "owner %u:%u", st.st_uid,
	     st.st_gid);
	/* Linux 6.1's v9fs leaves s_time_gran at 1 s, so the guest's VFS
	 * truncates the times it sets to whole seconds before the server
	 * sees them. */
	long mns = b->kind == FSB_9P ? 0 : FSB_MTIME_NSEC, ans = b->kind == FSB_9P ? 0 : FSB_ATIME_NSEC;
	WANT(st.st_mtim.tv_sec == FSB_MTIME_SEC && st.st_mtim.tv_nsec == mns,
	     "mtime %lld.%09ld", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	WANT(st.st_atim.tv_sec == FSB_ATIME_SEC && st.st_atim.tv_nsec == ans,
	     "atime %lld.%09ld", (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec);
	if (b->kind == FSB_9P)
		fsb_note("9p client: times set in whole seconds (s_time_gran)");

	/* UTIME_NOW is the server's clock; UTIME_OMIT leaves atime alone. */
	WANT_OK(fsb_write_file(q, "now", 3, 0644));
	WANT_OK(utimensat(AT_FDCWD, q, ts, 0));
	struct timespec now[2] = { { 0, UTIME_OMIT }, { 0, UTIME_NOW } };
	WANT_OK(utimensat(AT_FDCWD, q, now, 0));
	WANT_OK(stat(q, &st));
	WANT(st.st_atim.tv_sec == FSB_ATIME_SEC, "UTIME_OMIT changed atime to %lld",
	     (long long)st.st_atim.tv_sec);
	WANT(st.st_mtim.tv_sec != FSB_MTIME_SEC, "UTIME_NOW left mtime at the old value");
	if (hn > 0) {
		WANT(st.st_mtim.tv_sec >= hn - 5 && st.st_mtim.tv_sec <= hn + 3600,
		     "UTIME_NOW gave mtime %lld, host time at set-up was %lld",
		     (long long)st.st_mtim.tv_sec, hn);
		fsb_note("UTIME_NOW = host set-up time + %llds", (long long)st.st_mtim.tv_sec - hn);
	}
	WANT_OK(utimensat(AT_FDCWD, q, NULL, 0));
	return 0;
}

static int t_xattr(const struct fsb *b)
{
	const char *p = fsb_path(b, "keep/xattr"), *d = fsb_path(b, "keep");
	char buf[8192], big[4000];
	ssize_t n;

	WANT_OK(fsb_write_file(p, "x", 1, 0644));
	if (b->xattr && access(fsb_path(b, "host-no-xattr"), F_OK) == 0) {
		/* The host's directory cannot keep user.* xattrs (tmpfs before
		 * Linux 6.6): the server must pass the host's answer on. */
		WANT_ERR(setxattr(p, "user.stainless", "v", 1, 0), EOPNOTSUPP);
		fsb_note("the host directory has no user xattrs: EOPNOTSUPP passed on");
		return 0;
	}
	if (!b->xattr) {
		/* The server answers ENOSYS without `xattr`; the kernel turns
		 * that into EOPNOTSUPP and stops asking. */
		WANT_ERR(setxattr(p, "user.stainless", "v", 1, 0), EOPNOTSUPP);
		WANT_ERR(getxattr(p, "user.stainless", buf, sizeof(buf)), EOPNOTSUPP);
		WANT_ERR(listxattr(p, buf, sizeof(buf)), EOPNOTSUPP);
		WANT_ERR(removexattr(p, "user.stainless"), EOPNOTSUPP);
		fsb_note("share without xattr: EOPNOTSUPP");
		return 0;
	}
	WANT_OK(setxattr(p, "user.stainless", "value-1", 7, XATTR_CREATE));
	WANT_ERR(setxattr(p, "user.stainless", "value-2", 7, XATTR_CREATE), EEXIST);
	WANT_ERR(setxattr(p, "user.missing", "v", 1, XATTR_REPLACE), ENODATA);
	n = getxattr(p, "user.stainless", NULL, 0);
	WANT(n == 7, "size probe gave %zd (%s), want 7", n, n < 0 ? fsb_errname(errno) : "");
	n = getxattr(p, "user.stainless", buf, sizeof(buf));
	WANT(n == 7 && memcmp(buf, "value-1", 7) == 0, "getxattr gave %zd", n);
	WANT_ERR(getxattr(p, "user.stainless", buf, 3), ERANGE);
	if (b->kind == FSB_9P) {
		/* 9P2000.L has no empty values: Linux sends removexattr as a
		 * zero-length TXATTRCREATE, so setting "" removes the name. */
		WANT_ERR(setxattr(p, "user.empty", "", 0, 0), ENODATA);
		fsb_note("9p: an empty value means remove (ENODATA when absent)");
	} else {
		WANT_OK(setxattr(p, "user.empty", "", 0, 0));
		n = getxattr(p, "user.empty", buf, sizeof(buf));
		WANT(n == 0, "empty value read back as %zd (%s)", n,
		     n < 0 ? fsb_errname(errno) : "");
	}
	memset(big, 'b', sizeof(big));
	WANT_OK(setxattr(p, "user.big", big, sizeof(big), 0));
	n = getxattr(p, "user.big", buf, sizeof(buf));
	WANT(n == (ssize_t)sizeof(big) && memcmp(buf, big, sizeof(big)) == 0,
	     "4000-byte value read back as %zd", n);
	WANT_OK(setxattr(p, "user.removed", "r", 1, 0));
	n = listxattr(p, buf, sizeof(buf));
	WANT(n > 0, "listxattr: %s", fsb_errname(errno));
	const char *want[] = { "user.stainless", "user.big", "user.removed", "user.empty" };
	for (size_t i = 0; i < (b->kind == FSB_9P ? 3u : 4u); i++) {
		bool seen = false;
		for (ssize_t o = 0; o < n; o += (ssize_t)strlen(buf + o) + 1)
			seen |= strcmp(buf + o, want[i]) == 0;
		WANT(seen, "listxattr lacks %s", want[i]);
	}
	WANT_OK(removexattr(p, "user.removed"));
	WANT_OK(removexattr(p, "user.big"));
	WANT_ERR(getxattr(p, "user.removed", buf, sizeof(buf)), ENODATA);
	WANT_ERR(removexattr(p, "user.removed"), ENODATA);
	WANT_OK(setxattr(d, "user.dir", "d", 1, 0));
	n = getxattr(d, "user.dir", buf, sizeof(buf));
	WANT(n == 1 && buf[0] == 'd', "directory xattr read back as %zd", n);
	return 0;
}

static int t_mmap(const struct fsb *b)
{
	const char *p = fsb_path(b, "keep/mmap");
	const size_t len = 65536;
	unsigned char *m, buf[4096];
	int fd, fd2;

	/* A private read-only mapping works on every client. */
	WANT_OK(fd = open(fsb_path(b, "keep/file.txt"), O_RDONLY));
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	WANT(m != MAP_FAILED, "MAP_PRIVATE: %s", fsb_errname(errno));
	WANT(memcmp(m, FSB_FILE_TEXT, strlen(FSB_FILE_TEXT)) == 0, "MAP_PRIVATE reads '%.20s'", m);
	munmap(m, 4096);
	close(fd);

	WANT_OK(fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644));
	WANT_OK(ftruncate(fd, (off_t)len));
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!b->mmap) {
		int e = errno;
		close(fd);
		unlink(p);
		/* cache=never opens files FOPEN_DIRECT_IO, and a FUSE client
		 * before 6.6 (no DIRECT_IO_ALLOW_MMAP) refuses shared mappings
		 * of those (ENODEV); v9fs without cache=mmap maps read-only
		 * (generic_file_readonly_mmap: EINVAL). */
		int want = b->kind == FSB_9P ? EINVAL : ENODEV;
		WANT(m == MAP_FAILED && e == want, "MAP_SHARED gave %s, want %s (client limit)",
		     m == MAP_FAILED ? fsb_errname(e) : "a mapping", fsb_errname(want));
		fsb_note("client refuses MAP_SHARED here: %s", fsb_errname(want));
		return 0;
	}
	WANT(m != MAP_FAILED, "MAP_SHARED: %s", fsb_errname(errno));
	for (size_t i = 0; i < len; i++)
		m[i] = (unsigned char)(i * 7 + 3);
	WANT_OK(msync(m, len, MS_SYNC));
	WANT_OK(fd2 = open(p, O_RDONLY));
	for (size_t off = 0; off < len; off += sizeof(buf)) {
		WANT(pread(fd2, buf, sizeof(buf), (off_t)off) == sizeof(buf), "pread at %zu", off);
		for (size_t i = 0; i < sizeof(buf); i++)
			WANT(buf[i] == (unsigned char)((off + i) * 7 + 3),
			     "byte %zu reads %u through read()", off + i, buf[i]);
	}
	close(fd2);
	munmap(m, len);
	close(fd);
	return 0;
}

static int t_statx(const struct fsb *b)
{
	const char *p = fsb_path(b, "keep/file.txt");
	const unsigned want = STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_UID | STATX_GID |
			      STATX_SIZE | STATX_INO | STATX_MTIME;
	struct statx sx;
	struct stat st;
	int fd;

	WANT_OK(stat(p, &st));
	for (int i = 0; i < 3; i++) {
		int fl = i == 0 ? AT_STATX_SYNC_AS_STAT : i == 1 ? AT_STATX_FORCE_SYNC
								  : AT_STATX_DONT_SYNC;
		WANT_OK(statx(AT_FDCWD, p, fl, STATX_BASIC_STATS, &sx));
		WANT((sx.stx_mask & want) == want, "stx_mask %#x lacks %#x", sx.stx_mask,
		     want & ~sx.stx_mask);
		WANT(sx.stx_ino == st.st_ino && sx.stx_size == (uint64_t)st.st_size &&
			     sx.stx_mode == st.st_mode && sx.stx_nlink == st.st_nlink &&
			     sx.stx_uid == st.st_uid && sx.stx_mtime.tv_sec == st.st_mtim.tv_sec &&
			     sx.stx_mtime.tv_nsec == (uint32_t)st.st_mtim.tv_nsec,
		     "statx (flags %#x) disagrees with stat", fl);
	}
	WANT_OK(statx(AT_FDCWD, fsb_path(b, "keep/sym"), AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx));
	WANT(S_ISLNK(sx.stx_mode), "statx(AT_SYMLINK_NOFOLLOW) mode %o", sx.stx_mode);
	WANT_OK(fd = open(p, O_RDONLY));
	WANT_OK(statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, &sx));
	WANT(sx.stx_size == strlen(FSB_FILE_TEXT), "statx(AT_EMPTY_PATH) size %llu",
	     (unsigned long long)sx.stx_size);
	close(fd);
	WANT_ERR(statx(AT_FDCWD, fsb_path(b, "no-such"), 0, STATX_BASIC_STATS, &sx), ENOENT);
	/*
	 * The birth time, which only STATX carries (Linux >= 6.6 asks for it
	 * over FUSE): what the guest saw is left for the host to compare with
	 * its own statx (v_birth in fsbattery_host.c), with the kernel release.
	 */
	if (b->kind == FSB_VIRTIOFS) {
		struct utsname u;
		char line[160];
		int n;

		WANT_OK(statx(AT_FDCWD, p, AT_STATX_FORCE_SYNC, STATX_BTIME, &sx));
		uname(&u);
		if (sx.stx_mask & STATX_BTIME)
			n = snprintf(line, sizeof(line), "%s %lld %u\n", u.release,
				     (long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
		else
			n = snprintf(line, sizeof(line), "%s none\n", u.release);
		WANT_OK(fsb_write_file(fsb_path(b, "keep/btime"), line, (size_t)n, 0644));
	}
	/* FORCE_SYNC asks the server every time: a round-trip figure. */
	double t0 = fsb_now();
	for (int i = 0; i < 20; i++)
		WANT_OK(statx(AT_FDCWD, p, AT_STATX_FORCE_SYNC, STATX_SIZE, &sx));
	fsb_note("getattr round trip %.2f ms", (fsb_now() - t0) * 1000 / 20);
	return 0;
}

static int t_sync(const struct fsb *b)
{
	int fd, dfd;

	WANT_OK(fd = open(fsb_path(b, "keep/synced"), O_RDWR | O_CREAT | O_TRUNC, 0644));
	WANT(write(fd, "synced\n", 7) == 7, "write: %s", fsb_errname(errno));
	WANT_OK(fsync(fd));
	WANT(pwrite(fd, "SYNCED\n", 7, 0) == 7, "pwrite: %s", fsb_errname(errno));
	WANT_OK(fdatasync(fd));
	WANT_OK(syncfs(fd));
	close(fd);
	WANT_OK(dfd = open(fsb_path(b, "keep"), O_RDONLY | O_DIRECTORY));
	WANT_OK(fsync(dfd));
	close(dfd);
	sync();
	return same_content(fsb_path(b, "keep/synced"), "SYNCED\n");
}

const struct fsb_case fsb_guest_cases[] = {
	{ "files", t_files },     { "dirs", t_dirs },   { "rename", t_rename },
	{ "links", t_links },     { "symlinks", t_symlinks }, { "attrs", t_attrs },
	{ "xattr", t_xattr },     { "mmap", t_mmap },   { "statx", t_statx },
	{ "sync", t_sync },       { NULL, NULL },
};
