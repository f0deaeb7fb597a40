// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsbattery for `readonly` shares: the host lays out a known tree
 * (ro-setup), the guest checks every read works and every kind of write is
 * refused with EROFS by the server (readonly), and the host checks nothing
 * changed (ro-verify). The guest mounts read-write on purpose, so the
 * refusals come from the server, not from the guest's VFS.
 */
#include "fsbattery.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#define RO_TEXT "read-only data\n"
#define RO_MTIME 1200000000

int fsb_host_ro_setup(const char *dir)
{
	char p[4200];
	struct timespec ts[2] = { { RO_MTIME, 0 }, { RO_MTIME, 0 } };

	snprintf(p, sizeof(p), "%s/ro.txt", dir);
	if (fsb_write_file(p, RO_TEXT, strlen(RO_TEXT), 0644) < 0 || chmod(p, 0644) < 0)
		goto err;
	/* Best effort: the host's /tmp may lack user xattrs. */
	setxattr(p, "user.ro", "yes", 3, 0);
	if (utimensat(AT_FDCWD, p, ts, 0) < 0)
		goto err;
	snprintf(p, sizeof(p), "%s/rodir", dir);
	if (mkdir(p, 0755) < 0)
		goto err;
	snprintf(p, sizeof(p), "%s/rodir/inner", dir);
	if (fsb_write_file(p, "inner\n", 6, 0644) < 0)
		goto err;
	snprintf(p, sizeof(p), "%s/rolink", dir);
	if (symlink("ro.txt", p) < 0)
		goto err;
	return 0;
err:
	printf("FAIL ro-setup: %s: %s\n", p, fsb_errname(errno));
	return 1;
}

int fsb_guest_readonly(const struct fsb *b)
{
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	char buf[256], f[4200], d[4200];

	/* Used throughout: fsb_path's buffers rotate. */
	snprintf(f, sizeof(f), "%s/ro.txt", b->dir);
	snprintf(d, sizeof(d), "%s/rodir", b->dir);
	struct stat st;
	ssize_t n;
	int fd;

	/* Reads work. */
	n = fsb_read_file(f, buf, sizeof(buf));
	WANT(n == (ssize_t)strlen(RO_TEXT) && !strcmp(buf, RO_TEXT), "ro.txt reads %zd '%s'", n,
	     n > 0 ? buf : "");
	WANT(fsb_read_file(fsb_path(b, "rolink"), buf, sizeof(buf)) > 0 && !strcmp(buf, RO_TEXT),
	     "rolink does not read ro.txt");
	n = readlink(fsb_path(b, "rolink"), buf, sizeof(buf));
	WANT(n == 6 && !memcmp(buf, "ro.txt", 6), "readlink rolink gave %zd", n);
	WANT(fsb_read_file(fsb_path(b, "rodir/inner"), buf, sizeof(buf)) == 6, "rodir/inner");
	DIR *dh = opendir(d);
	WANT(dh, "opendir: %s", fsb_errname(errno));
	int ents = 0;
	while (readdir(dh))
		ents++;
	closedir(dh);
	WANT(ents == 3, "rodir lists %d entries, want 3", ents);
	WANT_OK(stat(f, &st));
	WANT(st.st_mtim.tv_sec == RO_MTIME, "ro.txt mtime %lld", (long long)st.st_mtim.tv_sec);
	n = getxattr(f, "user.ro", buf, sizeof(buf));
	if (n >= 0 || errno == ENODATA || errno == EOPNOTSUPP)
		fsb_note("getxattr: %s", n >= 0 ? "works" : fsb_errname(errno));
	else
		WANT(0, "getxattr: %s", fsb_errname(errno));

	/* Every write is EROFS. */
	WANT_ERR(open(fsb_path(b, "new"), O_WRONLY | O_CREAT, 0644), EROFS);
	WANT_ERR(open(f, O_WRONLY), EROFS);
	WANT_ERR(open(f, O_RDWR), EROFS);
	WANT_ERR(open(f, O_RDONLY | O_TRUNC), EROFS);
	WANT_ERR(truncate(f, 0), EROFS);
	WANT_ERR(mkdir(fsb_path(b, "newdir"), 0755), EROFS);
	WANT_ERR(mknod(fsb_path(b, "newnod"), S_IFREG | 0644, 0), EROFS);
	WANT_ERR(rmdir(fsb_path(b, "rodir")), EROFS);
	WANT_ERR(unlink(fsb_path(b, "rodir/inner")), EROFS);
	WANT_ERR(rename(f, fsb_path(b, "moved")), EROFS);
	WANT_ERR(link(f, fsb_path(b, "hard")), EROFS);
	WANT_ERR(symlink("x", fsb_path(b, "sym")), EROFS);
	WANT_ERR(chmod(f, 0600), EROFS);
	WANT_ERR(chown(f, 1, 1), EROFS);
	WANT_ERR(utimensat(AT_FDCWD, f, ts, 0), EROFS);
	WANT_ERR(utimensat(AT_FDCWD, f, NULL, 0), EROFS);
	if (b->kind == FSB_VIRTIOFS)
		WANT_ERR(open(fsb_path(b, "."), O_TMPFILE | O_RDWR, 0600), EROFS);
	WANT_ERR2(setxattr(f, "user.new", "v", 1, 0), EROFS, EOPNOTSUPP);
	WANT_ERR2(removexattr(f, "user.ro"), EROFS, EOPNOTSUPP);
	/* A read-only fd cannot write whatever the share says; what matters
	 * is that nothing above reached the host (ro-verify). */
	WANT_OK(fd = open(f, O_RDONLY));
	WANT_ERR(write(fd, "x", 1), EBADF);
	close(fd);
	return 0;
}

int fsb_host_ro_verify(const char *dir)
{
	char p[4200], buf[256];
	struct stat st;
	struct dirent *e;
	int n = 0;
	DIR *dh;

	fsb_test = "ro-verify";
	snprintf(p, sizeof(p), "%s/ro.txt", dir);
	if (fsb_read_file(p, buf, sizeof(buf)) < 0 || strcmp(buf, RO_TEXT) || stat(p, &st) < 0 ||
	    (st.st_mode & 07777) != 0644 || st.st_mtim.tv_sec != RO_MTIME || st.st_uid != 0) {
		fsb_fail("ro.txt changed on the host");
		return 1;
	}
	if (!(dh = opendir(dir))) {
		fsb_fail("opendir %s: %s", dir, fsb_errname(errno));
		return 1;
	}
	while ((e = readdir(dh))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		if (strcmp(e->d_name, "ro.txt") && strcmp(e->d_name, "rodir") &&
		    strcmp(e->d_name, "rolink")) {
			fsb_fail("the guest created %s on a readonly share", e->d_name);
			closedir(dh);
			return 1;
		}
	}
	closedir(dh);
	snprintf(p, sizeof(p), "%s/rodir/inner", dir);
	if (n != 3 || stat(p, &st) < 0) {
		fsb_fail("the share has %d entries or lost rodir/inner", n);
		return 1;
	}
	printf("ok ro-verify: the readonly share is unchanged on the host\n");
	return 0;
}
