// SPDX-License-Identifier: GPL-2.0-only
/*
 * One-component resolution beneath the share and the type checks on what
 * is opened (see resolve.h).
 */
#include "fs/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int fs_name_check(const char *name, size_t len)
{
	if (len == 0)
		return -EINVAL;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	if (memchr(name, '/', len) || memchr(name, '\0', len))
		return -EINVAL;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return -EINVAL;
	return 0;
}

int fs_open_beneath(int dirfd, const char *name, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	do {
		fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
	} while (fd < 0 && errno == EAGAIN);
	return fd < 0 ? -errno : (int)fd;
}

int fs_openable(const struct stat *st)
{
	if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode))
		return 0;
	return S_ISLNK(st->st_mode) ? -ELOOP : -ENXIO;
}

int fs_reopen(int proc_fd, int pfd, int flags)
{
	struct stat st;
	char num[16];
	int fd, r;

	if (fstat(pfd, &st) < 0)
		return -errno;
	r = fs_openable(&st);
	if (r)
		return r;
	if (S_ISDIR(st.st_mode) && ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC)))
		return -EISDIR;
	snprintf(num, sizeof(num), "%d", pfd);
	fd = openat(proc_fd, num, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int fs_proc_self_fd(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static int fd = -1;
	int r;

	pthread_mutex_lock(&mu);
	if (fd < 0)
		fd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = fd < 0 ? -errno : fd;
	pthread_mutex_unlock(&mu);
	return r;
}

int fs_proc_self_fd_dup(void)
{
	int fd = fs_proc_self_fd();

	if (fd < 0)
		return fd;
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

int fs_create_beneath(int proc_fd, int dirfd, const char *name, int flags,
		      mode_t mode, bool excl, bool *created)
{
	/*
	 * Between our EEXIST and our look at the entry someone may unlink
	 * it; then creating it is right again. A few rounds settle any race
	 * that is not a deliberate loop, which gets EAGAIN.
	 */
	for (int round = 0; round < 4; round++) {
		int fd = fs_open_beneath(dirfd, name, flags | O_CREAT | O_EXCL, mode);

		if (fd >= 0 || fd != -EEXIST || excl) {
			*created = fd >= 0;
			return fd;
		}
		int pfd = fs_open_beneath(dirfd, name, O_PATH, 0);
		if (pfd == -ENOENT)
			continue;
		if (pfd < 0)
			return pfd;
		fd = fs_reopen(proc_fd, pfd, flags);
		close(pfd);
		*created = false;
		return fd;
	}
	return -EAGAIN;
}

int fs_mknod_allowed(mode_t mode, dev_t *rdev, bool devices)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
	case S_IFIFO:
	case S_IFSOCK:
		*rdev = 0;
		return 0;
	case S_IFCHR:
		return *rdev == 0 || devices ? 0 : -EPERM;
	case S_IFBLK:
		return devices ? 0 : -EPERM;
	default:
		return -EINVAL;
	}
}
