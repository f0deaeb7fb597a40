// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE handlers for names and attributes: LOOKUP, FORGET, BATCH_FORGET,
 * GETATTR, SETATTR, READLINK, STATFS, ACCESS, the xattr ops, and the
 * attribute/entry encoding every reply shares. Everything works on the
 * inode's O_PATH fd (c->fd, held for the request) with AT_EMPTY_PATH; /proc is the fallback for kernels
 * without fchmodat2/faccessat2 (before 6.6 / 5.8) and the way to xattrs.
 */
#include "fs/fuse/fuse_int.h"
#include "fs/fuse/fuse_timed.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/creds.h"
#include "fs/fs_xattr.h"
#include "fs/fuse/fuse_watch.h"
#include "fs/resolve.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

int fuse_stat(int fd, struct stat *st)
{
	return fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/*
 * Without FUSE_SUBMOUNTS the client sees one st_dev for the whole share, so
 * inode numbers from other host filesystems get a per-device tag in their
 * top byte to keep them distinct.
 */
uint64_t fuse_attr_ino(struct fuse_server *s, const struct stat *st)
{
	unsigned tag;

	if (st->st_dev == s->root_dev || s->submounts)
		return st->st_ino;
	pthread_mutex_lock(&s->dev_mu);
	for (tag = 0; tag < s->ndevs && s->devs[tag] != st->st_dev; tag++)
		;
	if (tag == s->ndevs && s->ndevs < sizeof(s->devs) / sizeof(s->devs[0]))
		s->devs[s->ndevs++] = st->st_dev;
	pthread_mutex_unlock(&s->dev_mu);
	return ((uint64_t)st->st_ino & ((1ull << 56) - 1)) | ((uint64_t)(tag + 1) << 56);
}

void fuse_fill_attr(struct fuse_server *s, const struct stat *st,
		    const struct fuse_inode *ino, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = fuse_attr_ino(s, st);
	a->size = (uint64_t)st->st_size;
	a->blocks = (uint64_t)st->st_blocks;
	a->atime = (uint64_t)st->st_atim.tv_sec;
	a->mtime = (uint64_t)st->st_mtim.tv_sec;
	a->ctime = (uint64_t)st->st_ctim.tv_sec;
	a->atimensec = (uint32_t)st->st_atim.tv_nsec;
	a->mtimensec = (uint32_t)st->st_mtim.tv_nsec;
	a->ctimensec = (uint32_t)st->st_ctim.tv_nsec;
	a->mode = st->st_mode;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = (uint32_t)st->st_rdev;
	a->blksize = (uint32_t)st->st_blksize;
	if (ino->submount && s->submounts)
		a->flags |= FUSE_ATTR_SUBMOUNT;
	if (fuse_dax_wanted(s, ino, st))
		a->flags |= FUSE_ATTR_DAX;
}

void fuse_fill_entry(struct fuse_server *s, struct fuse_inode *ino,
		     const struct stat *st, struct fuse_entry_out *e)
{
	memset(e, 0, sizeof(*e));
	e->nodeid = fuse_itable_nodeid(&s->it, ino);
	e->generation = fuse_inode_gen(ino);
	fuse_watch_want(s->watch, ino);
	e->entry_valid = fuse_watch_lifetime(s, ino, st->st_ctim.tv_sec);
	e->attr_valid = e->entry_valid;
	fuse_fill_attr(s, st, ino, &e->attr);
}

/* struct stat from a statx of the basic fields, which the kernel always fills. */
static void stat_of(const struct statx *sx, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(sx->stx_dev_major, sx->stx_dev_minor);
	st->st_ino = sx->stx_ino;
	st->st_mode = sx->stx_mode;
	st->st_nlink = sx->stx_nlink;
	st->st_uid = sx->stx_uid;
	st->st_gid = sx->stx_gid;
	st->st_rdev = makedev(sx->stx_rdev_major, sx->stx_rdev_minor);
	st->st_size = (off_t)sx->stx_size;
	st->st_blksize = (blksize_t)sx->stx_blksize;
	st->st_blocks = (blkcnt_t)sx->stx_blocks;
	st->st_atim = (struct timespec){ sx->stx_atime.tv_sec, sx->stx_atime.tv_nsec };
	st->st_mtim = (struct timespec){ sx->stx_mtime.tv_sec, sx->stx_mtime.tv_nsec };
	st->st_ctim = (struct timespec){ sx->stx_ctime.tv_sec, sx->stx_ctime.tv_nsec };
}

/* One statx gives the attributes and the birth time the inode is checked by later. */
int fuse_enter_fd(struct fuse_server *s, struct fuse_inode *parent, int fd,
		  const char *name, struct fuse_entry_out *e)
{
	struct fuse_inode *ino;
	struct statx sx;
	struct stat st;
	int r;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_BASIC_STATS | STATX_BTIME, &sx) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	stat_of(&sx, &st);
	r = fuse_inode_lookup_add(&s->it, fd, &st, fuse_inode_btag(&sx), parent, name, &ino);
	if (r)
		return r;
	if (ino->submount && name)
		fuse_timed_gate(s, parent, name, st.st_dev);
	fuse_fill_entry(s, ino, &st, e);
	fuse_inode_put(&s->it, ino); /* the lookup count keeps it */
	return 0;
}

/*
 * A name whose inode the table already knows needs no new fd: one stat by
 * name finds it, as the fd's own stat would (the table matches device and
 * inode number either way), where open, fstat and close are three calls;
 * a name that is not there ends here too. The name is one checked
 * component, so the stat stays beneath dirfd as the open does. Anything
 * else (a new inode, an error other than ENOENT) takes the open, which
 * also gives the table the fd it keeps.
 */
int fuse_lookup_entry(struct fuse_server *s, struct fuse_inode *parent, int dirfd,
		      const char *name, struct fuse_entry_out *e)
{
	struct fuse_inode *ino;
	struct stat st;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		ino = fuse_inode_find(&s->it, &st);
		if (ino) {
			fuse_inode_moved(&s->it, ino, parent, name); /* a hard link, a host rename */
			if (ino->submount)
				fuse_timed_gate(s, parent, name, st.st_dev);
			fuse_fill_entry(s, ino, &st, e);
			fuse_inode_put(&s->it, ino); /* the lookup count keeps it */
			return 0;
		}
	} else if (errno == ENOENT) {
		return -ENOENT;
	}
	fd = fs_open_beneath(dirfd, name, O_PATH, 0);
	return fd < 0 ? fd : fuse_enter_fd(s, parent, fd, name, e);
}

int fuse_op_lookup(struct fuse_call *c)
{
	struct fuse_entry_out e;
	const char *name;
	uint32_t off = 0;
	int r = fuse_arg_name(c, &off, &name);

	if (r)
		return r;
	if (!S_ISDIR(c->ino->type))
		return -ENOTDIR;
	r = fuse_lookup_entry(c->srv, c->ino, c->fd, name, &e);
	/*
	 * Asked again after the lookup (dispatch asked before): a directory
	 * moved out of the share between the two gives the client nothing
	 * found there. One moved out and back within the lookup is not seen.
	 */
	if (!r && (r = fs_dir_inside(&c->srv->root_id, c->fd)) < 0)
		fuse_inode_forget(&c->srv->it, e.nodeid, 1);
	return r ? r : fuse_reply(c, &e, sizeof(e));
}

int fuse_op_forget(struct fuse_call *c)
{
	struct fuse_forget_in in;

	memcpy(&in, c->arg, sizeof(in));
	fuse_inode_forget(&c->srv->it, c->h.nodeid, in.nlookup);
	return 0;
}

int fuse_op_batch_forget(struct fuse_call *c)
{
	struct fuse_batch_forget_in in;
	struct fuse_forget_one one;

	memcpy(&in, c->arg, sizeof(in));
	/* A count the payload does not back is a malformed request: drop it. */
	if ((uint64_t)in.count * sizeof(one) > c->arglen - sizeof(in))
		return -EINVAL;
	for (uint32_t i = 0; i < in.count; i++) {
		memcpy(&one, c->arg + sizeof(in) + i * sizeof(one), sizeof(one));
		fuse_inode_forget(&c->srv->it, one.nodeid, one.nlookup);
	}
	return 0;
}

static int reply_attr(struct fuse_call *c)
{
	struct fuse_attr_out out = { 0 };
	struct stat st;
	int r = fuse_stat(c->fd, &st);

	if (r)
		return r;
	out.attr_valid = fuse_watch_lifetime(c->srv, c->ino, st.st_ctim.tv_sec);
	fuse_fill_attr(c->srv, &st, c->ino, &out.attr);
	return fuse_reply(c, &out, sizeof(out));
}

int fuse_op_getattr(struct fuse_call *c)
{
	return reply_attr(c);
}

static void sx_time(struct fuse_sx_time *t, const struct statx_timestamp *s)
{
	t->tv_sec = s->tv_sec;
	t->tv_nsec = s->tv_nsec;
}

/*
 * STATX: the host's statx(2) of the inode (or of the open file fh names),
 * so the client sees what a plain GETATTR cannot carry: the birth time,
 * attributes, the mount's own sync behaviour. Only the fields asked for
 * and which the host answered are marked valid.
 */
int fuse_op_statx(struct fuse_call *c)
{
	struct fuse_statx_in in;
	struct fuse_statx_out out = { 0 };
	struct fuse_handle *h = NULL;
	struct statx sx;
	struct stat st;
	int fd = c->fd, r;

	memcpy(&in, c->arg, sizeof(in));
	if (in.getattr_flags & FUSE_GETATTR_FH) {
		h = fuse_handle_get(&c->srv->ht, in.fh);
		if (!h)
			return -EBADF;
		fd = h->fd;
	}
	unsigned sync = in.sx_flags & AT_STATX_SYNC_TYPE;
	r = statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | sync,
		  (in.sx_mask & STATX_ALL) | STATX_BASIC_STATS, &sx);
	if (h)
		fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	if (r < 0)
		return -errno;
	/* The inode number goes through the same submount tagging as GETATTR's. */
	st.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st.st_ino = sx.stx_ino;
	out.stat = (struct fuse_statx){
		.mask = sx.stx_mask & (STATX_ALL | STATX_BASIC_STATS),
		.blksize = sx.stx_blksize, .attributes = sx.stx_attributes,
		.nlink = sx.stx_nlink, .uid = sx.stx_uid, .gid = sx.stx_gid,
		.mode = sx.stx_mode, .ino = fuse_attr_ino(c->srv, &st),
		.size = sx.stx_size, .blocks = sx.stx_blocks,
		.attributes_mask = sx.stx_attributes_mask,
		.rdev_major = sx.stx_rdev_major, .rdev_minor = sx.stx_rdev_minor,
		.dev_major = sx.stx_dev_major, .dev_minor = sx.stx_dev_minor,
	};
	sx_time(&out.stat.atime, &sx.stx_atime);
	sx_time(&out.stat.btime, &sx.stx_btime);
	sx_time(&out.stat.ctime, &sx.stx_ctime);
	sx_time(&out.stat.mtime, &sx.stx_mtime);
	out.attr_valid = fuse_watch_lifetime(c->srv, c->ino, sx.stx_ctime.tv_sec);
	return fuse_reply(c, &out, sizeof(out));
}

static int path_of(char *buf, size_t n, int fd)
{
	return snprintf(buf, n, "%d", fd) < (int)n ? 0 : -EINVAL;
}

static int set_mode(struct fuse_call *c, int hfd, mode_t mode)
{
	char num[16];

	if (hfd >= 0)
		return fchmod(hfd, mode) < 0 ? -errno : 0;
	if (syscall(SYS_fchmodat2, c->fd, "", mode, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -errno;
	if (S_ISLNK(c->ino->type))
		return -EOPNOTSUPP;
	path_of(num, sizeof(num), c->fd);
	return fchmodat(c->srv->proc_fd, num, mode, 0) < 0 ? -errno : 0;
}

/* HANDLE_KILLPRIV_V2: the server clears set-id bits the writer may not keep. */
int fuse_kill_suidgid(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	mode_t m = st.st_mode;
	if (!S_ISREG(m))
		return 0;
	if ((m & S_ISUID) || (m & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		return fchmod(fd, m & ~(mode_t)(S_ISUID | S_ISGID) & 07777) < 0 ? -errno : 0;
	return 0;
}

static int set_size(struct fuse_call *c, struct fuse_handle *h, uint64_t size,
		    bool kill)
{
	int fd, r = 0;

	if (size > (uint64_t)INT64_MAX)
		return -EINVAL;
	if (h && (h->flags & O_ACCMODE) != O_RDONLY) {
		fd = h->fd;
	} else {
		if (!S_ISREG(c->ino->type))
			return S_ISDIR(c->ino->type) ? -EISDIR : -EINVAL;
		fd = fuse_reopen(c->srv, c->fd, O_WRONLY);
		if (fd < 0)
			return fd;
	}
	if (ftruncate(fd, (off_t)size) < 0)
		r = -errno;
	else if (kill)
		r = fuse_kill_suidgid(fd);
	if (!h || fd != h->fd)
		close(fd);
	return r;
}

static int set_times(struct fuse_call *c, int hfd, const struct fuse_setattr_in *in)
{
	struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT } };

	if (in->valid & FATTR_ATIME_NOW)
		ts[0].tv_nsec = UTIME_NOW;
	else if (in->valid & FATTR_ATIME) {
		if (in->atimensec >= 1000000000u)
			return -EINVAL;
		ts[0] = (struct timespec){ (time_t)in->atime, in->atimensec };
	}
	if (in->valid & FATTR_MTIME_NOW)
		ts[1].tv_nsec = UTIME_NOW;
	else if (in->valid & FATTR_MTIME) {
		if (in->mtimensec >= 1000000000u)
			return -EINVAL;
		ts[1] = (struct timespec){ (time_t)in->mtime, in->mtimensec };
	}
	if (hfd >= 0)
		return futimens(hfd, ts) < 0 ? -errno : 0;
	return utimensat(c->fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ?
	       -errno : 0;
}

/*
 * chown/chgrp. A SETATTR carries the caller's uid and primary gid only, so
 * a chgrp to a group the caller holds as a supplementary one would fail
 * the host's check. Every client of this server checks that itself first
 * (Linux's virtiofs always mounts with default_permissions, fuse-mount
 * mounts with it), and the group asked for is added to the caller's
 * groups for this one call: the host kernel still requires that the
 * caller own the file. This grants a guest nothing it lacks -- its kernel
 * could as well name that group as the caller's primary one -- and a
 * host user of fuse-mount nothing the host kernel did not already allow.
 */
static int set_owner(struct fuse_call *c, const struct fuse_setattr_in *in)
{
	uid_t u = (in->valid & FATTR_UID) ? in->uid : (uid_t)-1;
	gid_t g = (in->valid & FATTR_GID) ? in->gid : (gid_t)-1;

	if ((in->valid & FATTR_GID) && (c->h.uid || c->h.gid) && in->gid != c->h.gid) {
		gid_t groups[FUSE_MAX_SUPP_GROUPS + 1];
		unsigned n = c->ngroups;
		int r;

		memcpy(groups, c->groups, n * sizeof(groups[0]));
		groups[n++] = in->gid;
		r = fs_creds_set(c->h.uid, c->h.gid, groups, n);
		if (r)
			return r;
	}
	/* dispatch() resets the credentials after the handler, these too. */
	return fchownat(c->fd, "", u, g, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

int fuse_op_setattr(struct fuse_call *c)
{
	struct fuse_setattr_in in;
	struct fuse_handle *h = NULL;
	int r = 0;

	memcpy(&in, c->arg, sizeof(in));
	if (in.valid & FATTR_FH) {
		h = fuse_handle_get(&c->srv->ht, in.fh);
		if (!h)
			return -EBADF;
		if (h->inode != c->ino) {
			r = -EBADF;
			goto out;
		}
	}
	int hfd = h ? h->fd : -1;
	if (in.valid & FATTR_MODE) {
		r = set_mode(c, hfd, in.mode & 07777);
		if (r)
			goto out;
	}
	if (in.valid & (FATTR_UID | FATTR_GID)) {
		r = set_owner(c, &in);
		if (r)
			goto out;
	}
	if (in.valid & FATTR_SIZE) {
		r = set_size(c, h, in.size,
			     c->srv->killpriv_v2 && (in.valid & FATTR_KILL_SUIDGID));
		if (r)
			goto out;
	}
	if (in.valid & (FATTR_ATIME | FATTR_MTIME | FATTR_ATIME_NOW | FATTR_MTIME_NOW)) {
		r = set_times(c, hfd, &in);
		if (r)
			goto out;
	}
	fuse_inode_rekey(&c->srv->it, c->ino, c->fd); /* an overlayfs copy-up */
	r = reply_attr(c);
out:
	if (h)
		fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	return r;
}

int fuse_op_readlink(struct fuse_call *c)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (!S_ISLNK(c->ino->type))
		return -EINVAL;
	n = readlinkat(c->fd, "", buf, sizeof(buf));
	if (n < 0)
		return -errno;
	return fuse_reply(c, buf, (size_t)n);
}

int fuse_op_statfs(struct fuse_call *c)
{
	struct fuse_statfs_out out = { 0 };
	struct statfs sf;

	if (fstatfs(c->fd, &sf) < 0)
		return -errno;
	out.st.blocks = sf.f_blocks;
	out.st.bfree = sf.f_bfree;
	out.st.bavail = sf.f_bavail;
	out.st.files = sf.f_files;
	out.st.ffree = sf.f_ffree;
	out.st.bsize = (uint32_t)sf.f_bsize;
	out.st.namelen = (uint32_t)sf.f_namelen;
	out.st.frsize = (uint32_t)sf.f_frsize;
	return fuse_reply(c, &out, sizeof(out));
}

int fuse_op_access(struct fuse_call *c)
{
	struct fuse_access_in in;
	char num[16];

	memcpy(&in, c->arg, sizeof(in));
	if (in.mask & ~(uint32_t)(R_OK | W_OK | X_OK))
		return -EINVAL;
	if ((in.mask & W_OK) && c->srv->opts.readonly)
		return -EROFS;
	/* AT_EACCESS: check as the fsuid/fsgid this thread runs with. */
	if (syscall(SYS_faccessat2, c->fd, "", in.mask,
		    AT_EMPTY_PATH | AT_EACCESS) == 0)
		return fuse_reply(c, NULL, 0);
	if (errno != ENOSYS)
		return -errno;
	path_of(num, sizeof(num), c->fd);
	if (faccessat(c->srv->proc_fd, num, (int)in.mask, AT_EACCESS) < 0)
		return -errno;
	return fuse_reply(c, NULL, 0);
}

/*
 * Extended attributes, only for shares with `xattr`; otherwise ENOSYS,
 * which the client remembers (answering EOPNOTSUPP itself from then on).
 * Which names reach the host, and as what, is fs_xattr.h's policy.
 * The xattr calls take no dirfd before Linux 6.13 and refuse O_PATH fds,
 * so they go through /proc/self/fd/N of the inode's O_PATH fd: the magic
 * link names exactly the inode we hold (a symlink itself, never its
 * target). SETXATTR is the compat layout: FUSE_SETXATTR_EXT is not
 * negotiated.
 */
static int xattr_name(struct fuse_call *c, uint32_t *off, enum fs_xattr_use use,
		      char host[XATTR_NAME_MAX + 1])
{
	const char *name;
	size_t len;
	int r = fuse_arg_str(c, off, &name, &len);

	if (r)
		return r;
	if (len == 0 || len > XATTR_NAME_MAX)
		return -ERANGE;
	return fs_xattr_to_host(name, use, c->srv->opts.xattr_map, host, XATTR_NAME_MAX + 1);
}

static void proc_path(const struct fuse_call *c, char *buf, size_t n)
{
	snprintf(buf, n, "/proc/self/fd/%d", c->fd);
}

int fuse_op_setxattr(struct fuse_call *c)
{
	struct fuse_setxattr_in in = { 0 };
	char name[XATTR_NAME_MAX + 1];
	uint32_t off = FUSE_COMPAT_SETXATTR_IN_SIZE;
	char path[40];
	int r;

	if (!c->srv->opts.xattr)
		return -ENOSYS;
	memcpy(&in, c->arg, FUSE_COMPAT_SETXATTR_IN_SIZE);
	r = xattr_name(c, &off, FS_XATTR_SET, name);
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
	fuse_inode_rekey(&c->srv->it, c->ino, c->fd); /* an overlayfs copy-up */
	return fuse_reply(c, NULL, 0);
}

/* GETXATTR and LISTXATTR: size 0 asks for the length, else for the bytes. */
static int reply_sized(struct fuse_call *c, uint32_t want, const char *buf, ssize_t n)
{
	if (n < 0)
		return (int)n;
	if (want == 0) {
		struct fuse_getxattr_out out = { .size = (uint32_t)n };
		return fuse_reply(c, &out, sizeof(out));
	}
	return fuse_reply(c, buf, (size_t)n);
}

int fuse_op_getxattr(struct fuse_call *c)
{
	struct fuse_getxattr_in in;
	char name[XATTR_NAME_MAX + 1], path[40];
	uint32_t off = sizeof(in);
	char *buf = NULL;
	ssize_t n;
	int r;

	if (!c->srv->opts.xattr)
		return -ENOSYS;
	memcpy(&in, c->arg, sizeof(in));
	r = xattr_name(c, &off, FS_XATTR_GET, name);
	if (r)
		return r;
	if (in.size > XATTR_SIZE_MAX)
		in.size = XATTR_SIZE_MAX;
	if (in.size && !(buf = malloc(in.size)))
		return -ENOMEM;
	proc_path(c, path, sizeof(path));
	n = getxattr(path, name, buf, in.size);
	r = reply_sized(c, in.size, buf, n < 0 ? -errno : n);
	free(buf);
	return r;
}

/*
 * The client sees the host list translated (fs_xattr_list_from_host),
 * which may fit a buffer the host list would not, and its size probe must
 * count the translation: so the whole host list is read every time
 * (XATTR_LIST_MAX holds any; a longer one is E2BIG from the host).
 */
int fuse_op_listxattr(struct fuse_call *c)
{
	struct fuse_getxattr_in in;
	char path[40];
	char *buf;
	ssize_t n;
	int r;

	if (!c->srv->opts.xattr)
		return -ENOSYS;
	memcpy(&in, c->arg, sizeof(in));
	buf = malloc(XATTR_LIST_MAX);
	if (!buf)
		return -ENOMEM;
	proc_path(c, path, sizeof(path));
	n = listxattr(path, buf, XATTR_LIST_MAX);
	if (n < 0)
		n = -errno;
	else
		n = fs_xattr_list_from_host(buf, (size_t)n, c->srv->opts.xattr_map, buf,
					    in.size > XATTR_LIST_MAX ? XATTR_LIST_MAX : in.size);
	r = reply_sized(c, in.size, buf, n);
	free(buf);
	return r;
}

int fuse_op_removexattr(struct fuse_call *c)
{
	char name[XATTR_NAME_MAX + 1], path[40];
	uint32_t off = 0;
	int r;

	if (!c->srv->opts.xattr)
		return -ENOSYS;
	r = xattr_name(c, &off, FS_XATTR_SET, name);
	if (r)
		return r;
	proc_path(c, path, sizeof(path));
	if (removexattr(path, name) < 0)
		return -errno;
	return fuse_reply(c, NULL, 0);
}
