// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE extended attributes: SETXATTR, GETXATTR, LISTXATTR, REMOVEXATTR,
 * only for shares with `xattr`; otherwise ENOSYS, which the client
 * remembers (and answers EOPNOTSUPP itself from then on).
 *
 * The xattr calls take no dirfd before Linux 6.13 and refuse O_PATH fds,
 * so they go through /proc/self/fd/N of the inode's O_PATH fd: the magic
 * link names exactly the inode we hold (a symlink itself, never its
 * target), so nothing outside the share is reachable this way.
 * SETXATTR is the compat layout: FUSE_SETXATTR_EXT is not negotiated.
 */
#include "fs/fuse_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

static int xattr_name(struct fuse_call *c, uint32_t *off, const char **name)
{
	size_t len;
	int r = fuse_arg_str(c, off, name, &len);

	if (r)
		return r;
	if (len == 0 || len > XATTR_NAME_MAX)
		return -ERANGE;
	return 0;
}

static void proc_path(const struct fuse_call *c, char *buf, size_t n)
{
	snprintf(buf, n, "/proc/self/fd/%d", c->ino->fd);
}

FUSE_OP(setxattr)
{
	struct fuse_setxattr_in in = { 0 };
	const char *name;
	uint32_t off = FUSE_COMPAT_SETXATTR_IN_SIZE;
	char path[40];
	int r;

	if (!c->srv->opts.xattr)
		return -ENOSYS;
	memcpy(&in, c->arg, FUSE_COMPAT_SETXATTR_IN_SIZE);
	r = xattr_name(c, &off, &name);
	if (r)
		return r;
	if (in.size > XATTR_SIZE_MAX)
		return -E2BIG;
	if ((uint64_t)off + in.size != c->arglen)
		return -EINVAL;
	if (in.flags & ~(uint32_t)(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	proc_path(c, path, sizeof(path));
	if (setxattr(path, name, c->arg + off, in.size, (int)in.flags) < 0)
		return -errno;
	return fuse_reply(c, NULL, 0);
}

/* GETXATTR and LISTXATTR: size 0 asks for the length, else for the bytes. */
static int reply_sized(struct fuse_call *c, uint32_t want, const char *name)
{
	char path[40];
	char *buf = NULL;
	ssize_t n;
	int r;

	proc_path(c, path, sizeof(path));
	if (want > XATTR_SIZE_MAX)
		want = XATTR_SIZE_MAX;
	if (want) {
		buf = malloc(want);
		if (!buf)
			return -ENOMEM;
	}
	n = name ? getxattr(path, name, buf, want) : listxattr(path, buf, want);
	if (n < 0) {
		r = -errno;
	} else if (want == 0) {
		struct fuse_getxattr_out out = { .size = (uint32_t)n };
		r = fuse_reply(c, &out, sizeof(out));
	} else {
		r = fuse_reply(c, buf, (size_t)n);
	}
	free(buf);
	return r;
}

FUSE_OP(getxattr)
{
	struct fuse_getxattr_in in;
	const char *name;
	uint32_t off = sizeof(in);
	int r;

	if (!c->srv->opts.xattr)
		return -ENOSYS;
	memcpy(&in, c->arg, sizeof(in));
	r = xattr_name(c, &off, &name);
	return r ? r : reply_sized(c, in.size, name);
}

FUSE_OP(listxattr)
{
	struct fuse_getxattr_in in;

	if (!c->srv->opts.xattr)
		return -ENOSYS;
	memcpy(&in, c->arg, sizeof(in));
	return reply_sized(c, in.size, NULL);
}

FUSE_OP(removexattr)
{
	const char *name;
	uint32_t off = 0;
	char path[40];
	int r;

	if (!c->srv->opts.xattr)
		return -ENOSYS;
	r = xattr_name(c, &off, &name);
	if (r)
		return r;
	proc_path(c, path, sizeof(path));
	if (removexattr(path, name) < 0)
		return -errno;
	return fuse_reply(c, NULL, 0);
}
