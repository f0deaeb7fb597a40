// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE handlers that make, remove and move names: SYMLINK, MKNOD, MKDIR,
 * UNLINK, RMDIR, RENAME, RENAME2, LINK. Each runs as the caller (dispatch
 * sets the thread's fsuid/fsgid), so the host kernel checks permissions and
 * new objects get the caller's ownership. Every name is one component
 * checked by fs_name_check and used relative to the parent's O_PATH fd.
 */
#include "fs/fuse/fuse_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fs/resolve.h"

/* Replies with the entry of name, just made under the request's directory. */
static int reply_new_entry(struct fuse_call *c, const char *name)
{
	struct fuse_entry_out e;
	int r = fuse_lookup_entry(c->srv, c->ino, c->fd, name, &e);

	return r ? r : fuse_reply(c, &e, sizeof(e));
}

static int need_dir(struct fuse_call *c)
{
	return S_ISDIR(c->ino->type) ? 0 : -ENOTDIR;
}

/*
 * MKNOD, MKDIR and LINK: the op's fixed argument (insize bytes, copied
 * out) and the one name after it, made in the request's directory.
 */
static int dir_args(struct fuse_call *c, void *in, uint32_t insize, const char **name)
{
	uint32_t off = insize;
	int r;

	memcpy(in, c->arg, insize);
	r = fuse_arg_name(c, &off, name);
	return r ? r : need_dir(c);
}

int fuse_op_symlink(struct fuse_call *c)
{
	const char *name, *target;
	size_t tlen;
	uint32_t off = 0;
	int r = fuse_arg_name(c, &off, &name);

	if (r || (r = need_dir(c)))
		return r;
	r = fuse_arg_str(c, &off, &target, &tlen);
	if (r)
		return r;
	if (tlen == 0)
		return -ENOENT;
	if (tlen >= PATH_MAX)
		return -ENAMETOOLONG;
	/* The target is only text: the server never follows symlinks. */
	if (symlinkat(target, c->fd, name) < 0)
		return -errno;
	return reply_new_entry(c, name);
}

int fuse_op_mknod(struct fuse_call *c)
{
	struct fuse_mknod_in in;
	const char *name;
	int r = dir_args(c, &in, sizeof(in), &name);

	if (r)
		return r;
	mode_t mode = in.mode & ~in.umask;
	dev_t rdev = in.rdev;
	r = fs_mknod_allowed(mode, &rdev, c->srv->opts.devices);
	if (r)
		return r;
	if (mknodat(c->fd, name, mode, rdev) < 0)
		return -errno;
	return reply_new_entry(c, name);
}

int fuse_op_mkdir(struct fuse_call *c)
{
	struct fuse_mkdir_in in;
	const char *name;
	int r = dir_args(c, &in, sizeof(in), &name);

	if (r)
		return r;
	if (mkdirat(c->fd, name, in.mode & ~in.umask & 07777) < 0)
		return -errno;
	return reply_new_entry(c, name);
}

/*
 * The known inode name names under dirfd, referenced, with its fd held
 * in *f where f is given (f->fd -1 when it has none to hold: gone, or
 * stale): a name about to be removed, replaced or moved (fuse_inode.h).
 * NULL when the table does not know it.
 */
static struct fuse_inode *named(struct fuse_server *s, int dirfd, const char *name,
				struct fuse_ifd *f)
{
	struct fuse_inode *ino;
	struct stat st;

	if (f)
		f->fd = -1;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !(ino = fuse_inode_peek(&s->it, &st)))
		return NULL;
	if (f && fuse_inode_fd(&s->it, ino, f) < 0)
		f->fd = -1;
	return ino;
}

static void named_put(struct fuse_server *s, struct fuse_inode *ino, struct fuse_ifd *f)
{
	if (f && f->fd >= 0)
		fuse_inode_fd_put(f);
	if (ino)
		fuse_inode_put(&s->it, ino);
}

/* An inode the client may still use that just lost its name keeps its fd. */
static int remove_name(struct fuse_call *c, int flags)
{
	struct fuse_inode *victim;
	struct fuse_ifd vf;
	const char *name;
	uint32_t off = 0;
	int r = fuse_arg_name(c, &off, &name);

	if (r || (r = need_dir(c)))
		return r;
	victim = named(c->srv, c->fd, name, &vf);
	if (unlinkat(c->fd, name, flags) < 0) {
		r = -errno;
	} else {
		if (victim && vf.fd >= 0)
			fuse_inode_unlinked(&c->srv->it, victim, &vf);
		r = fuse_reply(c, NULL, 0);
	}
	named_put(c->srv, victim, &vf);
	return r;
}

/*
 * After a rename: the moved inode's place follows it; with EXCHANGE the
 * other one's too, else an inode renamed over loses its name. One inode
 * under both names is a rename that does nothing.
 */
static void renamed(struct fuse_call *c, struct fuse_inode *nd, const char *oldname,
		    const char *newname, uint32_t flags, struct fuse_inode *moved,
		    struct fuse_inode *victim, struct fuse_ifd *vf)
{
	if (moved == victim)
		return;
	if (moved)
		fuse_inode_moved(&c->srv->it, moved, nd, newname);
	if (victim && (flags & RENAME_EXCHANGE))
		fuse_inode_moved(&c->srv->it, victim, c->ino, oldname);
	else if (victim && vf->fd >= 0)
		fuse_inode_unlinked(&c->srv->it, victim, vf);
}

int fuse_op_unlink(struct fuse_call *c)
{
	return remove_name(c, 0);
}

int fuse_op_rmdir(struct fuse_call *c)
{
	return remove_name(c, AT_REMOVEDIR);
}

static int do_rename(struct fuse_call *c, uint64_t newdir, uint32_t flags,
		     uint32_t off)
{
	const char *oldname, *newname;
	struct fuse_inode *nd;
	struct fuse_ifd nfd;
	int r;

	if (flags & ~(uint32_t)(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	r = fuse_arg_name(c, &off, &oldname);
	if (r || (r = fuse_arg_name(c, &off, &newname)) || (r = need_dir(c)))
		return r;
	nd = fuse_inode_get(&c->srv->it, newdir);
	if (!nd)
		return -ENOENT;
	if (!S_ISDIR(nd->type))
		r = -ENOTDIR;
	else if ((r = fuse_inode_fd(&c->srv->it, nd, &nfd)) == 0 &&
		 (r = fs_dir_inside(&c->srv->root_id, nfd.fd)) < 0)
		fuse_inode_fd_put(&nfd);
	else if (r == 0) {
		struct fuse_ifd vf;
		struct fuse_inode *moved = named(c->srv, c->fd, oldname, NULL);
		struct fuse_inode *victim = named(c->srv, nfd.fd, newname, &vf);

		if (renameat2(c->fd, oldname, nfd.fd, newname, flags) < 0) {
			r = -errno;
		} else {
			renamed(c, nd, oldname, newname, flags, moved, victim, &vf);
			r = fuse_reply(c, NULL, 0);
		}
		named_put(c->srv, victim, &vf);
		named_put(c->srv, moved, NULL);
		fuse_inode_fd_put(&nfd);
	}
	fuse_inode_put(&c->srv->it, nd);
	return r;
}

int fuse_op_rename(struct fuse_call *c)
{
	struct fuse_rename_in in;

	memcpy(&in, c->arg, sizeof(in));
	return do_rename(c, in.newdir, 0, sizeof(in));
}

int fuse_op_rename2(struct fuse_call *c)
{
	struct fuse_rename2_in in;

	memcpy(&in, c->arg, sizeof(in));
	return do_rename(c, in.newdir, in.flags, sizeof(in));
}

int fuse_op_link(struct fuse_call *c)
{
	struct fuse_link_in in;
	struct fuse_inode *old;
	struct fuse_ifd ofd = { .fd = -1 };
	const char *name;
	char num[16];
	int r = dir_args(c, &in, sizeof(in), &name);

	if (r)
		return r;
	old = fuse_inode_get(&c->srv->it, in.oldnodeid);
	if (!old)
		return -ENOENT;
	if (S_ISDIR(old->type)) {
		r = -EPERM;
		goto out;
	}
	r = fuse_inode_fd(&c->srv->it, old, &ofd);
	if (r)
		goto out;
	/*
	 * AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH, which a thread running
	 * with a non-root fsuid lacks; the /proc magic link needs nothing
	 * and names exactly the inode we hold.
	 */
	if (linkat(ofd.fd, "", c->fd, name, AT_EMPTY_PATH) < 0) {
		if (errno != ENOENT && errno != EPERM) {
			r = -errno;
			goto out;
		}
		snprintf(num, sizeof(num), "%d", ofd.fd);
		if (linkat(c->srv->proc_fd, num, c->fd, name, AT_SYMLINK_FOLLOW) < 0) {
			r = -errno;
			goto out;
		}
	}
	r = reply_new_entry(c, name);
out:
	if (ofd.fd >= 0)
		fuse_inode_fd_put(&ofd);
	fuse_inode_put(&c->srv->it, old);
	return r;
}
