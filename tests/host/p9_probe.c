// SPDX-License-Identifier: GPL-2.0-only
/*
 * p9_probe: the lock and xattr system calls the kernel 9p mount test needs
 * and that busybox lacks (no flock, setfattr or getfattr applets). Built
 * static so it also runs in a bare initramfs.
 *
 *   p9_probe hold FILE READYFILE SECS   POSIX write lock, touch READYFILE,
 *                                       hold SECS seconds, exit (releases)
 *   p9_probe try FILE                   F_SETLK write lock: exit 0 if granted,
 *                                       3 if refused (EAGAIN/EACCES)
 *   p9_probe wait FILE                  F_SETLKW; prints the seconds waited
 *   p9_probe flock-try FILE             flock(LOCK_EX|LOCK_NB): 0 or 3
 *   p9_probe xset FILE NAME VALUE | xget FILE NAME | xlist FILE | xrm FILE NAME
 *   p9_probe asuser UID GID PROG [ARGS...]   run PROG as UID:GID, no groups
 *                                       (busybox su needs a passwd entry)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static int die(const char *what)
{
	fprintf(stderr, "p9_probe: %s: %s\n", what, strerror(errno));
	return 1;
}

static int lockfd(const char *path)
{
	int fd = open(path, O_RDWR);
	if (fd < 0)
		exit(die(path));
	return fd;
}

int main(int argc, char **argv)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char buf[4096];
	ssize_t n;

	if (argc < 3)
		return fprintf(stderr, "usage: p9_probe hold|try|wait|flock-try|xset|xget|xlist|xrm FILE ...\n"), 2;
	const char *cmd = argv[1], *file = argv[2];
	if (!strcmp(cmd, "asuser") && argc >= 5) {
		gid_t gid = (gid_t)atoi(argv[3]);
		if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid((uid_t)atoi(argv[2])) < 0)
			return die("dropping to the user");
		execvp(argv[4], argv + 4);
		return die(argv[4]);
	}
	if (!strcmp(cmd, "hold") && argc == 5) {
		int fd = lockfd(file);
		if (fcntl(fd, F_SETLK, &fl) < 0)
			return die("F_SETLK");
		close(open(argv[3], O_WRONLY | O_CREAT, 0644));
		sleep((unsigned)atoi(argv[4]));
		return 0;
	}
	if (!strcmp(cmd, "try")) {
		if (fcntl(lockfd(file), F_SETLK, &fl) == 0)
			return 0;
		return errno == EAGAIN || errno == EACCES ? 3 : die("F_SETLK");
	}
	if (!strcmp(cmd, "wait")) {
		struct timespec a, b;
		int fd = lockfd(file);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (fcntl(fd, F_SETLKW, &fl) < 0)
			return die("F_SETLKW");
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%.2f\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
		return 0;
	}
	if (!strcmp(cmd, "flock-try")) {
		if (flock(lockfd(file), LOCK_EX | LOCK_NB) == 0)
			return 0;
		return errno == EWOULDBLOCK ? 3 : die("flock");
	}
	if (!strcmp(cmd, "xset") && argc == 5)
		return setxattr(file, argv[3], argv[4], strlen(argv[4]), 0) < 0 ? die("setxattr") : 0;
	if (!strcmp(cmd, "xget") && argc == 4) {
		n = getxattr(file, argv[3], buf, sizeof(buf));
		if (n < 0)
			return die("getxattr");
		printf("%.*s\n", (int)n, buf);
		return 0;
	}
	if (!strcmp(cmd, "xlist")) {
		n = listxattr(file, buf, sizeof(buf));
		if (n < 0)
			return die("listxattr");
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
			printf("%s\n", buf + i);
		return 0;
	}
	if (!strcmp(cmd, "xrm") && argc == 4)
		return removexattr(file, argv[3]) < 0 ? die("removexattr") : 0;
	fprintf(stderr, "p9_probe: bad command\n");
	return 2;
}
