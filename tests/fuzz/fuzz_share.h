/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The share both protocol fuzzers serve, and the oracle they share.
 *
 *   BASE/secret          outside the share: its bytes must never appear in
 *                        a reply, and its content and mtime never change
 *   BASE/shares/         holds only the share, so nothing may appear or
 *                        vanish here but the share itself
 *   BASE/shares/s/       the share, rebuilt for every input:
 *       file             a regular file
 *       dir/inner        a directory with a file in it
 *       dir/up2          -> ../../../secret
 *       up               -> ../../secret
 *       abs              -> BASE/secret (absolute)
 *       root             -> /
 *       etc              -> /etc
 *
 * A fresh tree per input keeps every input reproducible on its own: a
 * RENAME or UNLINK found earlier cannot change what a later input sees.
 * Each target includes this header once (its functions are static) and
 * calls fz_check_outside() after removing the tree.
 */
#ifndef STAINLESS_TESTS_FUZZ_FUZZ_SHARE_H
#define STAINLESS_TESTS_FUZZ_FUZZ_SHARE_H

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fs/fs_park.h"

/* Long and unlike anything else in the tree, so a match is no accident. */
#define FZ_SECRET "stainless-fuzz-SECRET-9f4e2b7c1d0a-must-never-leak\n"

static char fz_base[64], fz_secret[96], fz_shares[96], fz_share[104];
static struct stat fz_secret_st, fz_shares_st;
static int fz_sentinel;
static struct stat fz_sentinel_st;

static void fz_die(const char *what)
{
	fprintf(stderr, "fuzz oracle: %s\n", what);
	abort();
}

static void fz_write_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data))
		fz_die("cannot write a fixture file");
	close(fd);
}

/*
 * fds: after destroy the process holds none into the tree (the server
 * leaked one) and the sentinel, opened before any server, is still the
 * same open file (the server closed an fd it did not own). Other fds
 * come and go: libFuzzer keeps pipes to its symbolizer.
 */
static void fz_open_sentinel(void)
{
	fz_sentinel = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fz_sentinel < 0 || fstat(fz_sentinel, &fz_sentinel_st))
		fz_die("cannot open /dev/null");
}

static void fz_check_fds(void)
{
	struct stat st;
	struct dirent *e;
	DIR *d;

	if (fstat(fz_sentinel, &st) || st.st_ino != fz_sentinel_st.st_ino ||
	    st.st_rdev != fz_sentinel_st.st_rdev)
		fz_die("the server closed an fd it did not own");
	d = opendir("/proc/self/fd");
	if (!d)
		fz_die("cannot list /proc/self/fd");
	while ((e = readdir(d))) {
		char lp[300], what[PATH_MAX];
		ssize_t k;

		if (atoi(e->d_name) == fs_park_reserved_fd())
			continue;  /* fs_park's own, kept for the process (fs_park.h) */
		snprintf(lp, sizeof(lp), "/proc/self/fd/%s", e->d_name);
		k = readlink(lp, what, sizeof(what) - 1);
		if (k <= 0)
			continue;
		what[k] = 0;
		if (!strncmp(what, fz_base, strlen(fz_base)) || !strcmp(what, "/") ||
		    !strncmp(what, "/etc", 4)) {
			fprintf(stderr, "fd %s: %s\n", e->d_name, what);
			fz_die("an fd leaked past the server's destroy");
		}
	}
	closedir(d);
}

/* At a clean exit; after a finding the folder stays for a look. */
static void fz_remove_base(void)
{
	unlink(fz_secret);
	rmdir(fz_shares);
	rmdir(fz_base);
}

/*
 * Once per process: the secret and the folder that holds the shares, on
 * tmpfs (/dev/shm) where there is one that keeps user xattrs: rebuilding
 * the tree on ext4 costs most of an input (inode allocation, and FSYNC
 * reaching the disk); tmpfs runs the FUSE target several times faster.
 */
static void fz_setup_base(const char *tag)
{
	const char *dir = "/dev/shm";
	char probe[64];

	snprintf(probe, sizeof(probe), "%s/stainless-fuzz-probe.%d", dir, (int)getpid());
	int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || fsetxattr(fd, "user.probe", "1", 1, 0))
		dir = "/tmp";
	if (fd >= 0) {
		close(fd);
		unlink(probe);
	}
	snprintf(fz_base, sizeof(fz_base), "%s/stainless-%s.XXXXXX", dir, tag);
	if (!mkdtemp(fz_base))
		fz_die("mkdtemp");
	snprintf(fz_secret, sizeof(fz_secret), "%s/secret", fz_base);
	snprintf(fz_shares, sizeof(fz_shares), "%s/shares", fz_base);
	snprintf(fz_share, sizeof(fz_share), "%s/s", fz_shares);
	fz_write_file(fz_secret, FZ_SECRET);
	if (mkdir(fz_shares, 0755) || stat(fz_secret, &fz_secret_st))
		fz_die("cannot set up the base folder");
	/* Fix the mtime in the past so a rewrite "within the same tick"
	 * still shows. */
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	if (utimensat(AT_FDCWD, fz_secret, ts, 0) || stat(fz_secret, &fz_secret_st))
		fz_die("cannot set the secret's mtime");
	atexit(fz_remove_base);
}

static void fz_build_tree(void)
{
	char p[PATH_MAX];
	static const struct { const char *name, *target; } links[] = {
		{ "up", "../../secret" }, { "root", "/" }, { "etc", "/etc" },
		{ "dir/up2", "../../../secret" },
	};

	if (mkdir(fz_share, 0755))
		fz_die("mkdir share");
	snprintf(p, sizeof(p), "%s/file", fz_share);
	fz_write_file(p, "hello from the share\n");
	snprintf(p, sizeof(p), "%s/dir", fz_share);
	if (mkdir(p, 0755))
		fz_die("mkdir dir");
	snprintf(p, sizeof(p), "%s/dir/inner", fz_share);
	fz_write_file(p, "inner\n");
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", fz_share, links[i].name);
		if (symlink(links[i].target, p))
			fz_die("symlink");
	}
	snprintf(p, sizeof(p), "%s/abs", fz_share);
	if (symlink(fz_secret, p))
		fz_die("symlink abs");
}

static int fz_rm_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	/* The guest may have left a directory without search permission;
	 * as root that does not stop us, otherwise restore it first. */
	int r = type == FTW_DP || type == FTW_DNR ? rmdir(path) : unlink(path);

	if (r)
		fprintf(stderr, "cannot remove %s (type %d): %m\n", path, type);
	return r;
}

static void fz_remove_tree(void)
{
	if (nftw(fz_share, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0) {
		perror(fz_share);
		fz_die("cannot remove the share tree");
	}
}

/* Names in a directory besides "." and "..", or -1. */
static int fz_dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Whatever the server did, the secret and the folders around the share
 * must look exactly as before, and every fd the input opened is closed. */
static void fz_check_outside(void)
{
	struct stat st;
	char buf[sizeof(FZ_SECRET) + 16];
	int fd = open(fz_secret, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		fz_die("the secret is gone");
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != (ssize_t)strlen(FZ_SECRET) || memcmp(buf, FZ_SECRET, (size_t)n))
		fz_die("the secret's content changed");
	if (lstat(fz_secret, &st) || st.st_mtim.tv_sec != fz_secret_st.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != fz_secret_st.st_mtim.tv_nsec ||
	    st.st_mode != fz_secret_st.st_mode || st.st_uid != fz_secret_st.st_uid ||
	    st.st_ino != fz_secret_st.st_ino)
		fz_die("the secret's mtime, mode, owner or inode changed");
	if (fz_dir_entries(fz_base) != 2 || fz_dir_entries(fz_shares) != 0)
		fz_die("something appeared or vanished beside the secret or the share");
	fz_check_fds();
}

/* After every reply: not one copy of the secret's bytes. */
static void fz_check_reply(const void *p, size_t n)
{
	if (memmem(p, n, FZ_SECRET, strlen(FZ_SECRET) - 1))
		fz_die("a reply carries the secret");
}

#endif
