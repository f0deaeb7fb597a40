// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsbattery, host side: the lock holder the guest must be refused by, and
 * the checks on what the guest left in the share, made on the host's own
 * view of the directory after the VMM has exited.
 */
#include "fsbattery.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static bool exists(const char *dir, const char *name)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

/* Waits for DIR/name until the deadline; false on timeout. */
static bool await(const char *dir, const char *name, double deadline)
{
	while (!exists(dir, name)) {
		if (fsb_now() > deadline)
			return false;
		usleep(50000);
	}
	return true;
}

/*
 * Holds a POSIX write lock (a classic process lock, not OFD: the server's
 * OFD locks must conflict with what ordinary host programs take) on
 * DIR/lock-posix and a flock on DIR/lock-flock, announces DIR/lock-ready,
 * and lets go of each FSB_HOLD_DELAY s after the guest asks
 * (release-posix, release-flock) -- or gives up after timeout s.
 */
int fsb_host_hold(const char *dir, int timeout)
{
	double deadline = fsb_now() + timeout;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char p[4200];
	int pfd, ffd;

	snprintf(p, sizeof(p), "%s/lock-posix", dir);
	pfd = open(p, O_RDWR | O_CREAT, 0666);
	snprintf(p, sizeof(p), "%s/lock-flock", dir);
	ffd = open(p, O_RDWR | O_CREAT, 0666);
	if (pfd < 0 || ffd < 0 || fcntl(pfd, F_SETLK, &fl) < 0 || flock(ffd, LOCK_EX | LOCK_NB) < 0) {
		printf("hold: cannot take the locks: %s\n", fsb_errname(errno));
		return 1;
	}
	snprintf(p, sizeof(p), "%s/lock-ready", dir);
	if (fsb_write_file(p, "", 0, 0644) < 0) {
		printf("hold: cannot write %s: %s\n", p, fsb_errname(errno));
		return 1;
	}
	printf("hold: holding a POSIX write lock and a flock\n");
	if (!await(dir, "release-posix", deadline)) {
		printf("hold: the guest never asked for the POSIX lock (timeout %ds)\n", timeout);
		return 1;
	}
	sleep(FSB_HOLD_DELAY);
	fl.l_type = F_UNLCK;
	fcntl(pfd, F_SETLK, &fl);
	printf("hold: released the POSIX lock\n");
	if (!await(dir, "release-flock", deadline)) {
		printf("hold: the guest never asked for the flock (timeout %ds)\n", timeout);
		return 1;
	}
	/* share-lib.inc's holder_finish waits for our exit once it reads this. */
	printf("hold: the guest asked for the flock\n");
	sleep(FSB_HOLD_DELAY);
	flock(ffd, LOCK_UN);
	printf("hold: released the flock\n");
	return 0;
}

int fsb_host_mkmany(const char *dir)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/many", dir);
	if (mkdir(p, 0755) < 0) {
		printf("mkmany: mkdir %s: %s\n", p, fsb_errname(errno));
		return 1;
	}
	for (int i = 0; i < FSB_MANY; i++) {
		snprintf(p, sizeof(p), "%s/many/f%05d", dir, i);
		if (mknod(p, S_IFREG | 0644, 0) < 0) {
			printf("mkmany: mknod %s: %s\n", p, fsb_errname(errno));
			return 1;
		}
	}
	return 0;
}

static int v_content(const struct fsb *b, const char *name, const char *want)
{
	char buf[4096];
	ssize_t n = fsb_read_file(fsb_path(b, "%s", name), buf, sizeof(buf));

	WANT(n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n),
	     "%s holds %zd bytes '%.40s', want '%s'", name, n, n > 0 ? buf : "", want);
	return 0;
}

static int v_files(const struct fsb *b)
{
	struct stat a, c;
	char buf[64];
	ssize_t n;

	if (v_content(b, "keep/file.txt", FSB_FILE_TEXT) || v_content(b, "keep/renamed", "new") ||
	    v_content(b, "keep/hard1", "linked\n") || v_content(b, "keep/synced", "SYNCED\n") ||
	    v_content(b, "keep/dir/d2/f", "f"))
		return -1;
	WANT_OK(stat(fsb_path(b, "keep/dir/sub"), &a));
	WANT(S_ISDIR(a.st_mode) && (a.st_mode & 07777) == 0750, "keep/dir/sub mode %o", a.st_mode);
	WANT_OK(stat(fsb_path(b, "keep/hard1"), &a));
	WANT_OK(stat(fsb_path(b, "keep/hard2"), &c));
	WANT(a.st_ino == c.st_ino && a.st_nlink == 2, "hard1/hard2: nlink %lu, same inode %d",
	     (unsigned long)a.st_nlink, a.st_ino == c.st_ino);
	n = readlink(fsb_path(b, "keep/sym"), buf, sizeof(buf));
	WANT(n == 8 && !memcmp(buf, "file.txt", 8), "keep/sym is not a link to file.txt");
	n = readlink(fsb_path(b, "keep/guest-esc"), buf, sizeof(buf));
	WANT(n == 13 && !memcmp(buf, "../secret.txt", 13),
	     "keep/guest-esc does not hold its target verbatim");
	WANT_OK(stat(fsb_path(b, "keep/attr"), &a));
	WANT((a.st_mode & 07777) == FSB_ATTR_MODE && a.st_uid == FSB_ATTR_UID &&
		     a.st_gid == FSB_ATTR_GID,
	     "keep/attr: mode %o owner %u:%u", a.st_mode & 07777, a.st_uid, a.st_gid);
	WANT(a.st_mtim.tv_sec == FSB_MTIME_SEC &&
		     a.st_mtim.tv_nsec == (b->kind == FSB_9P ? 0 : FSB_MTIME_NSEC),
	     "keep/attr mtime %lld.%09ld", (long long)a.st_mtim.tv_sec, a.st_mtim.tv_nsec);
	if (b->kind == FSB_VIRTIOFS) {
		if (v_content(b, "keep/exch-a", "B") || v_content(b, "keep/exch-b", "A") ||
		    v_content(b, "keep/tmpfile", "tmpfile data\n"))
			return -1;
		WANT_OK(stat(fsb_path(b, "keep/falloc"), &a));
		WANT(a.st_size == 1 << 20 || access(fsb_path(b, "host-no-fallocate"), F_OK) == 0,
		     "keep/falloc size %lld", (long long)a.st_size);
	}
	return 0;
}

static int v_xattr(const struct fsb *b)
{
	const char *p = fsb_path(b, "keep/xattr");
	char buf[256];
	ssize_t n;

	n = getxattr(p, "user.stainless", buf, sizeof(buf));
	if (b->xattr && access(fsb_path(b, "host-no-xattr"), F_OK) == 0)
		return 0;
	if (!b->xattr) {
		WANT(n < 0, "the guest set an xattr on a share without xattr");
		return 0;
	}
	WANT(n == 7 && !memcmp(buf, "value-1", 7), "user.stainless: %zd (%s)", n,
	     n < 0 ? fsb_errname(errno) : "wrong value");
	n = getxattr(p, "user.empty", buf, sizeof(buf));
	if (b->kind == FSB_9P)
		WANT(n < 0, "user.empty exists (9p cannot set empty values)");
	else
		WANT(n == 0, "user.empty: %zd (%s)", n, n < 0 ? fsb_errname(errno) : "not empty");
	WANT(getxattr(p, "user.removed", buf, sizeof(buf)) < 0 && errno == ENODATA,
	     "user.removed is still there");
	n = getxattr(fsb_path(b, "keep"), "user.dir", buf, sizeof(buf));
	WANT(n == 1 && buf[0] == 'd', "keep has no user.dir");
	return 0;
}

static int v_data(const struct fsb *b)
{
	static unsigned char buf[FSB_BIG_CHUNK];
	uint64_t gen = FSB_GEN_SEED, want = FSB_SUM_SEED, got = FSB_SUM_SEED;
	char sum[64], mine[32];
	off_t o;
	int fd;

	for (size_t done = 0; done < FSB_BIG_SIZE; done += FSB_BIG_CHUNK) {
		fsb_gen(&gen, buf, FSB_BIG_CHUNK);
		want = fsb_sum(want, buf, FSB_BIG_CHUNK);
	}
	WANT_OK(fd = open(fsb_path(b, "keep/big.bin"), O_RDONLY));
	ssize_t n;
	size_t total = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		got = fsb_sum(got, buf, (size_t)n);
		total += (size_t)n;
	}
	close(fd);
	snprintf(mine, sizeof(mine), "%016llx\n", (unsigned long long)got);
	WANT(fsb_read_file(fsb_path(b, "keep/big.sum"), sum, sizeof(sum)) > 0,
	     "no keep/big.sum from the guest");
	WANT(total == FSB_BIG_SIZE && got == want && !strcmp(sum, mine),
	     "big.bin: %zu bytes, host sum %.16s, guest %.16s, expected %016llx", total, mine, sum,
	     (unsigned long long)want);

	/* Holes the guest left are holes on the host too. */
	WANT_OK(fd = open(fsb_path(b, "keep/sparse"), O_RDONLY));
	o = lseek(fd, 0, SEEK_HOLE);
	WANT(o == 4096, "keep/sparse: first hole at %lld on the host", (long long)o);
	o = lseek(fd, 4096, SEEK_DATA);
	WANT(o == 1 << 20, "keep/sparse: second data at %lld on the host", (long long)o);
	close(fd);

	if (b->mmap) {
		WANT_OK(fd = open(fsb_path(b, "keep/mmap"), O_RDONLY));
		n = read(fd, buf, 65536);
		close(fd);
		WANT(n == 65536, "keep/mmap is %zd bytes", n);
		for (size_t i = 0; i < 65536; i++)
			WANT(buf[i] == (unsigned char)(i * 7 + 3), "keep/mmap byte %zu", i);
	}
	return 0;
}

/*
 * keep/file.txt's birth time as the guest saw it (t_statx) against the
 * host's: equal when the host has one and the guest's kernel asks for it
 * (STATX over FUSE since Linux 6.6), absent when the host has none.
 */
static int v_birth(const struct fsb *b)
{
	char line[160], rel[64], what[32];
	unsigned maj = 0, min = 0, nsec = 0;
	long long sec = 0;
	struct statx sx;

	if (b->kind != FSB_VIRTIOFS)
		return 0;   /* v9fs reports no birth time */
	if (fsb_read_file(fsb_path(b, "keep/btime"), line, sizeof(line)) <= 0) {
		printf("note verify-birth: the guest did not run its statx test\n");
		return 0;
	}
	WANT(sscanf(line, "%63s %31s %u", rel, what, &nsec) >= 2 &&
		     sscanf(rel, "%u.%u", &maj, &min) == 2,
	     "keep/btime reads '%s'", line);
	WANT_OK(statx(AT_FDCWD, fsb_path(b, "keep/file.txt"), 0, STATX_BTIME, &sx));
	bool host = sx.stx_mask & STATX_BTIME, asks = maj > 6 || (maj == 6 && min >= 6);
	if (!host) {
		WANT(!strcmp(what, "none"), "the guest saw a birth time (%s) the host has not", what);
		return 0;
	}
	if (!asks)
		return 0;   /* an older client never asks: nothing to compare */
	sec = strtoll(what, NULL, 10);
	WANT(sec == sx.stx_btime.tv_sec && nsec == sx.stx_btime.tv_nsec,
	     "guest (Linux %s) saw birth time %lld.%09u, the host has %lld.%09u", rel, sec, nsec,
	     (long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
	return 0;
}

/* Every fNNNNN below n, once, and nothing else in DIR/sub. */
static int v_names(const struct fsb *b, const char *sub, int n)
{
	static unsigned char seen[FSB_MANY];
	DIR *d = opendir(fsb_path(b, "%s", sub));
	struct dirent *e;
	int count = 0, i;

	WANT(d, "opendir %s: %s", sub, fsb_errname(errno));
	memset(seen, 0, sizeof(seen));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (sscanf(e->d_name, "f%5d", &i) == 1 && i >= 0 && i < n)
			seen[i]++;
		count++;
	}
	closedir(d);
	WANT(count == n, "%s/ has %d entries on the host, want %d", sub, count, n);
	for (i = 0; i < n; i++)
		WANT(seen[i] == 1, "%s/f%05d missing on the host", sub, i);
	return 0;
}

static int v_many(const struct fsb *b)
{
	return v_names(b, "many", FSB_MANY) || v_names(b, "made", FSB_MADE) ? -1 : 0;
}

int fsb_host_verify(const struct fsb *b)
{
	static const struct fsb_case checks[] = {
		{ "verify-files", v_files }, { "verify-xattr", v_xattr },
		{ "verify-data", v_data },   { "verify-many", v_many },
		{ "verify-birth", v_birth },
	};
	int failed = 0;

	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		fsb_test = checks[i].name;
		if (checks[i].fn(b) == 0)
			printf("ok %s\n", checks[i].name);
		else
			failed++;
	}
	return failed;
}
