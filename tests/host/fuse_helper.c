// SPDX-License-Identifier: GPL-2.0-only
/*
 * Small checks the shell cannot make, for tests/host/fuse_posix.sh (built
 * by the test with cc). Each subcommand exits 0 when the check holds and
 * prints why otherwise.
 *   posix-hold FILE SECS     hold a POSIX write lock on FILE for SECS
 *   posix-try FILE           exit 0 if a POSIX write lock is REFUSED now
 *   posix-getlk FILE         exit 0 if F_GETLK reports a conflicting lock
 *   posix-wait FILE          block in F_SETLKW until granted
 *   posix-wait-intr FILE     F_SETLKW interrupted by a caught SIGALRM after
 *                            1 s must fail with EINTR (the server answers
 *                            the kernel's INTERRUPT; the lock is still held)
 *   posix-owners FILE        two fds of one process share an owner: the
 *                            second may lock over the first; closing
 *                            either drops the lock (POSIX close rule)
 *   mmap FILE                shared mapping writes are seen by pread
 *   sparse FILE              SEEK_DATA/SEEK_HOLE find the written extents
 *   tmpfile DIR              O_TMPFILE: write, read back, link it in
 *   statx FILE               statx agrees with stat
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "fuse_helper: %s: %s\n", what, strerror(errno));
	return 1;
}

static int wrlock(int fd, int cmd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	return fcntl(fd, cmd, &fl);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static int posix_wait_intr(const char *path)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	int fd = open(path, O_RDWR);

	if (fd < 0)
		return fail("open");
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	if (wrlock(fd, F_SETLKW) == 0) {
		fprintf(stderr, "fuse_helper: F_SETLKW was granted, not interrupted\n");
		return 1;
	}
	return errno == EINTR ? 0 : fail("setlkw");
}

static int posix_owners(const char *path)
{
	int a = open(path, O_RDWR), b = open(path, O_RDWR);

	if (a < 0 || b < 0)
		return fail("open");
	if (wrlock(a, F_SETLK) < 0 || wrlock(b, F_SETLK) < 0)
		return fail("same owner relock");
	close(b);
	/* The lock must be gone now: a child (another owner) can take it. */
	pid_t p = fork();
	if (p == 0) {
		int c = open(path, O_RDWR);
		_exit(c >= 0 && wrlock(c, F_SETLK) == 0 ? 0 : 1);
	}
	int st;
	waitpid(p, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "fuse_helper: close did not drop the lock\n");
		return 1;
	}
	close(a);
	return 0;
}

static int do_mmap(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	char buf[8192];

	if (fd < 0 || ftruncate(fd, 8192) < 0)
		return fail("open/ftruncate");
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return fail("mmap");
	for (int i = 0; i < 8192; i++)
		m[i] = (char)('a' + i % 26);
	if (msync(m, 8192, MS_SYNC) < 0)
		return fail("msync");
	int fd2 = open(path, O_RDONLY);
	if (fd2 < 0 || pread(fd2, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return fail("pread");
	if (memcmp(buf, m, sizeof(buf)) != 0) {
		fprintf(stderr, "fuse_helper: mmap writes not seen by read\n");
		return 1;
	}
	munmap(m, 8192);
	return 0;
}

static int sparse(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	const off_t mb = 1 << 20;

	if (fd < 0)
		return fail("open");
	if (pwrite(fd, "x", 1, 4 * mb) != 1 || fsync(fd) < 0)
		return fail("pwrite");
	off_t d = lseek(fd, 0, SEEK_DATA), h = lseek(fd, 4 * mb, SEEK_HOLE);
	if (d < 0 || h < 0)
		return fail("lseek");
	/* Filesystems may round extents to blocks, never past them. */
	if (d > 4 * mb || d < 4 * mb - 65536 || h <= 4 * mb) {
		fprintf(stderr, "fuse_helper: SEEK_DATA=%lld SEEK_HOLE=%lld\n",
			(long long)d, (long long)h);
		return 1;
	}
	if (lseek(fd, 0, SEEK_HOLE) != 0) {
		fprintf(stderr, "fuse_helper: no hole at 0\n");
		return 1;
	}
	return 0;
}

static int tmpfile_check(const char *dir)
{
	char buf[16], proc[64], dst[4096];
	int fd = open(dir, O_TMPFILE | O_RDWR, 0600);

	if (fd < 0)
		return fail("O_TMPFILE");
	if (pwrite(fd, "tmpdata", 7, 0) != 7 || pread(fd, buf, 7, 0) != 7 ||
	    memcmp(buf, "tmpdata", 7) != 0)
		return fail("tmpfile io");
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	snprintf(dst, sizeof(dst), "%s/linked_tmpfile", dir);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, dst, AT_SYMLINK_FOLLOW) < 0)
		return fail("linkat tmpfile");
	return 0;
}

static int statx_check(const char *path)
{
	struct statx sx;
	struct stat st;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) < 0 ||
	    lstat(path, &st) < 0)
		return fail("statx");
	if (sx.stx_size != (uint64_t)st.st_size || sx.stx_ino != st.st_ino ||
	    sx.stx_mode != st.st_mode || sx.stx_nlink != st.st_nlink ||
	    sx.stx_mtime.tv_sec != st.st_mtim.tv_sec) {
		fprintf(stderr, "fuse_helper: statx and stat disagree\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *cmd = argv[1], *path = argv[2];

	if (strcmp(cmd, "posix-hold") == 0 && argc == 4) {
		int fd = open(path, O_RDWR | O_CREAT, 0644);
		if (fd < 0 || wrlock(fd, F_SETLK) < 0)
			return fail("hold");
		printf("locked\n");
		fflush(stdout);
		sleep((unsigned)atoi(argv[3]));
		return 0;
	}
	if (strcmp(cmd, "posix-try") == 0) {
		int fd = open(path, O_RDWR);
		if (fd < 0)
			return fail("open");
		if (wrlock(fd, F_SETLK) == 0) {
			fprintf(stderr, "fuse_helper: lock granted while held\n");
			return 1;
		}
		return (errno == EAGAIN || errno == EACCES) ? 0 : fail("setlk");
	}
	if (strcmp(cmd, "posix-getlk") == 0) {
		int fd = open(path, O_RDWR);
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		if (fd < 0 || fcntl(fd, F_GETLK, &fl) < 0)
			return fail("getlk");
		if (fl.l_type == F_UNLCK) {
			fprintf(stderr, "fuse_helper: GETLK saw no conflict\n");
			return 1;
		}
		return 0;
	}
	if (strcmp(cmd, "posix-wait") == 0) {
		int fd = open(path, O_RDWR);
		if (fd < 0 || wrlock(fd, F_SETLKW) < 0)
			return fail("setlkw");
		return 0;
	}
	if (strcmp(cmd, "posix-wait-intr") == 0)
		return posix_wait_intr(path);
	if (strcmp(cmd, "posix-owners") == 0)
		return posix_owners(path);
	if (strcmp(cmd, "mmap") == 0)
		return do_mmap(path);
	if (strcmp(cmd, "sparse") == 0)
		return sparse(path);
	if (strcmp(cmd, "tmpfile") == 0)
		return tmpfile_check(path);
	if (strcmp(cmd, "statx") == 0)
		return statx_check(path);
	return 2;
}
