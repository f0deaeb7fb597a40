// SPDX-License-Identifier: GPL-2.0-only
/* Is a held directory still inside the share (see fs_inside.h). */
#include "fs/fs_inside.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/creds.h"

/* A walk up this long is no share's: a loop or a hostile tree. */
#define FS_INSIDE_MAX_DEPTH 4096

int fs_root_id_init(struct fs_root_id *r, int rootfd)
{
	struct statx sx;

	if (statx(rootfd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO, &sx) < 0)
		return -errno;
	r->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	r->ino = sx.stx_ino;
	r->mount_root = (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
			(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	return 0;
}

static bool is_root(const struct fs_root_id *r, const struct stat *st)
{
	return st->st_dev == r->dev && st->st_ino == r->ino;
}

/* Without a mount root: up by ".." until the root (inside) or the top (moved out). */
static int walk_up(const struct fs_root_id *r, int dirfd)
{
	struct stat st, up;
	int fd = dirfd, ret = -ESTALE;

	if (fstat(fd, &st) < 0)
		return -errno;
	for (int depth = 0; depth < FS_INSIDE_MAX_DEPTH; depth++) {
		if (is_root(r, &st)) {
			ret = 0;
			break;
		}
		int next = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (next < 0) {
			ret = errno == ENOENT ? -ESTALE : -errno;
			break;
		}
		if (fd != dirfd)
			close(fd);
		fd = next;
		if (fstat(fd, &up) < 0) {
			ret = -errno;
			break;
		}
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			break; /* the top of the tree, and no share root on the way */
		st = up;
	}
	if (fd != dirfd)
		close(fd);
	return ret;
}

/*
 * As fsuid 0, as a reopen by name is (fuse_inode_name.c): a request may
 * run as a client who may not search the directory, and the question is
 * the server's, not the client's.
 */
int fs_dir_inside(const struct fs_root_id *r, int dirfd)
{
	uid_t was = fs_creds_raise();
	struct stat st;
	int ret;

	if (!r->mount_root)
		ret = walk_up(r, dirfd);
	/* The kernel's path_connected(): ".." of a directory moved out of the mount is ENOENT. */
	else if (fstatat(dirfd, "..", &st, AT_SYMLINK_NOFOLLOW) == 0)
		ret = 0;
	else
		ret = errno == ENOENT ? -ESTALE : -errno;
	fs_creds_lower(was);
	return ret;
}
