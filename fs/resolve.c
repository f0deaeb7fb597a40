// SPDX-License-Identifier: GPL-2.0-only
/* One-component resolution and per-thread credentials (see resolve.h). */
#include "fs/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/fsuid.h>
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

int fs_creds_set(uid_t uid, gid_t gid, const gid_t *groups, size_t ngroups)
{
	if (geteuid() != 0)
		return 0;
	/* Groups first, while fsuid is still 0 and we may change them. */
	if (syscall(SYS_setgroups, ngroups, groups) < 0)
		return -errno;
	setfsgid(gid);
	if ((gid_t)setfsgid((gid_t)-1) != gid)
		return -EPERM;
	setfsuid(uid);
	if ((uid_t)setfsuid((uid_t)-1) != uid)
		return -EPERM;
	return 0;
}

void fs_creds_reset(void)
{
	if (geteuid() != 0)
		return;
	setfsuid(0);
	setfsgid(0);
	syscall(SYS_setgroups, 0, NULL);
}
