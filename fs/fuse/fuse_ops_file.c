// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE handlers for open files: OPEN, CREATE, TMPFILE, RELEASE, FLUSH,
 * FSYNC, FALLOCATE, LSEEK, COPY_FILE_RANGE, SYNCFS and the DAX hook
 * (SETUPMAPPING/REMOVEMAPPING). READ and WRITE live in fuse_ops_rw.c.
 */
#include "fs/fuse/fuse_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fs/resolve.h"

/* The open(2) flags a client may ask the host for. */
static int host_flags(const struct fuse_server *s, uint32_t f, int *out)
{
	int fl = (int)(f & (O_ACCMODE | O_APPEND | O_TRUNC | O_SYNC | O_DSYNC |
			    O_NOATIME | O_LARGEFILE));

	if ((fl & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;
	/* Dropped by default, as virtiofsd does: tmpfs and others refuse it. */
	if (s->opts.direct_io)
		fl |= (int)(f & O_DIRECT);
	if (s->opts.readonly && ((fl & O_ACCMODE) != O_RDONLY || (fl & O_TRUNC)))
		return -EROFS;
	/*
	 * With a writeback cache the client reads pages to fill partial
	 * writes and computes append offsets itself.
	 */
	if (s->writeback) {
		if ((fl & O_ACCMODE) == O_WRONLY)
			fl = (fl & ~O_ACCMODE) | O_RDWR;
		fl &= ~O_APPEND;
	}
	*out = fl;
	return 0;
}

static uint32_t file_open_flags(const struct fuse_server *s)
{
	uint32_t f = fuse_open_flags_out(s, false);

	if (f & FOPEN_DIRECT_IO)
		f |= FOPEN_PARALLEL_DIRECT_WRITES;
	return f;
}

int fuse_op_open(struct fuse_call *c)
{
	struct fuse_open_in in;
	struct fuse_open_out out = { 0 };
	int fl, fd, r;

	memcpy(&in, c->arg, sizeof(in));
	r = host_flags(c->srv, in.flags, &fl);
	if (r)
		return r;
	if (S_ISDIR(c->ino->type))
		return -EISDIR; /* OPENDIR opens directories */
	fd = fuse_reopen(c->srv, c->fd, fl);
	if (fd < 0)
		return fd;
	if (c->srv->killpriv_v2 && (in.open_flags & FUSE_OPEN_KILL_SUIDGID) &&
	    (fl & O_TRUNC)) {
		r = fuse_kill_suidgid(fd);
		if (r) {
			close(fd);
			return r;
		}
	}
	if ((fl & O_ACCMODE) != O_RDONLY || (fl & O_TRUNC))
		fuse_inode_rekey(&c->srv->it, c->ino, fd); /* an overlayfs copy-up */
	fuse_dax_opened(c->ino, fl);
	r = fuse_handle_add(&c->srv->ht, fd, fl, c->ino, &out.fh);
	if (r)
		return r;
	out.open_flags = file_open_flags(c->srv);
	fuse_passthrough_reply(c->srv, c->ino, &out);
	return fuse_reply(c, &out, sizeof(out));
}

/* CREATE and TMPFILE: enter the new file's inode, then open a handle. */
static int reply_created(struct fuse_call *c, int fd, int fl, const char *name)
{
	struct fuse_entry_out e;
	struct fuse_open_out out = { .open_flags = file_open_flags(c->srv) };
	struct fuse_inode *ino;
	int pfd = fuse_reopen(c->srv, fd, O_PATH);
	int r;

	if (pfd < 0) {
		close(fd);
		return pfd;
	}
	r = fuse_enter_fd(c->srv, c->ino, pfd, name, &e);
	if (r) {
		close(fd);
		return r;
	}
	ino = fuse_inode_get(&c->srv->it, e.nodeid);
	if (!ino) {
		close(fd);
		return -ENOENT; /* forgotten already by a misbehaving client */
	}
	/* Created or opened for writing: not read-mostly, from this reply on. */
	fuse_dax_opened(ino, O_RDWR);
	e.attr.flags &= ~(uint32_t)FUSE_ATTR_DAX;
	r = fuse_handle_add(&c->srv->ht, fd, fl, ino, &out.fh);
	if (r == 0)
		fuse_passthrough_reply(c->srv, ino, &out);
	fuse_inode_put(&c->srv->it, ino);
	if (r) {
		fuse_inode_forget(&c->srv->it, e.nodeid, 1);
		return r;
	}
	return fuse_reply2(c, &e, sizeof(e), &out, sizeof(out));
}

int fuse_op_create(struct fuse_call *c)
{
	struct fuse_create_in in;
	const char *name;
	uint32_t off = sizeof(in);
	int fl, fd, r;

	memcpy(&in, c->arg, sizeof(in));
	r = fuse_arg_name(c, &off, &name);
	if (r || (r = host_flags(c->srv, in.flags, &fl)))
		return r;
	if (!S_ISDIR(c->ino->type))
		return -ENOTDIR;
	bool created;
	fd = fs_create_beneath(c->srv->proc_fd, c->fd, name, fl,
			       (in.mode & ~in.umask) & 07777, in.flags & O_EXCL, &created);
	if (fd < 0)
		return fd;
	/* O_CREAT|O_TRUNC of an existing set-id file truncates it, as OPEN does. */
	if (!created && c->srv->killpriv_v2 && (in.open_flags & FUSE_OPEN_KILL_SUIDGID) &&
	    (fl & O_TRUNC)) {
		r = fuse_kill_suidgid(fd);
		if (r) {
			close(fd);
			return r;
		}
	}
	return reply_created(c, fd, fl, name);
}

int fuse_op_tmpfile(struct fuse_call *c)
{
	struct fuse_create_in in;
	int fl, fd, r;

	memcpy(&in, c->arg, sizeof(in));
	r = host_flags(c->srv, in.flags, &fl);
	if (r)
		return r;
	if (!S_ISDIR(c->ino->type))
		return -ENOTDIR;
	if ((fl & O_ACCMODE) == O_RDONLY)
		return -EINVAL; /* O_TMPFILE needs write access */
	fd = openat(c->fd, ".", (fl & ~O_TRUNC) | O_TMPFILE | O_CLOEXEC,
		    (in.mode & ~in.umask) & 07777);
	if (fd < 0)
		return -errno;
	return reply_created(c, fd, fl, NULL); /* no name: its fd is kept for life */
}

/* The referenced handle fh, or NULL (reply EBADF). */
static struct fuse_handle *handle(struct fuse_call *c, uint64_t fh)
{
	return fuse_handle_get(&c->srv->ht, fh);
}

static void handle_put(struct fuse_call *c, struct fuse_handle *h)
{
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
}

int fuse_op_release(struct fuse_call *c)
{
	struct fuse_release_in in;
	struct fuse_handle *h;

	memcpy(&in, c->arg, sizeof(in));
	h = handle(c, in.fh);
	if (!h)
		return -EBADF;
	if (in.release_flags & FUSE_RELEASE_FLOCK_UNLOCK)
		flock(h->fd, LOCK_UN);
	if (in.release_flags & FUSE_RELEASE_FLUSH)
		fuse_lock_drop_owner(c->srv, h->inode, in.lock_owner);
	fuse_passthrough_release(c->srv, h);
	handle_put(c, h);
	int r = fuse_handle_release(&c->srv->ht, in.fh, &c->srv->it);
	return r ? r : fuse_reply(c, NULL, 0);
}

int fuse_op_flush(struct fuse_call *c)
{
	struct fuse_flush_in in;
	struct fuse_handle *h;

	memcpy(&in, c->arg, sizeof(in));
	h = handle(c, in.fh);
	if (!h)
		return -EBADF;
	/* close(2) in the client: POSIX drops that process's locks on the file. */
	fuse_lock_drop_owner(c->srv, h->inode, in.lock_owner);
	handle_put(c, h);
	return fuse_reply(c, NULL, 0);
}

int fuse_op_fsync(struct fuse_call *c)
{
	struct fuse_fsync_in in;
	struct fuse_handle *h;
	int r;

	memcpy(&in, c->arg, sizeof(in));
	h = handle(c, in.fh);
	if (!h)
		return -EBADF;
	r = (in.fsync_flags & FUSE_FSYNC_FDATASYNC) ? fdatasync(h->fd) : fsync(h->fd);
	r = r < 0 ? -errno : fuse_reply(c, NULL, 0);
	handle_put(c, h);
	return r;
}

int fuse_op_fallocate(struct fuse_call *c)
{
	struct fuse_fallocate_in in;
	struct fuse_handle *h;
	int r;

	memcpy(&in, c->arg, sizeof(in));
	if (in.offset > (uint64_t)INT64_MAX || in.length == 0 ||
	    in.length > (uint64_t)INT64_MAX - in.offset)
		return -EINVAL;
	h = handle(c, in.fh);
	if (!h)
		return -EBADF;
	r = fallocate(h->fd, (int)in.mode, (off_t)in.offset, (off_t)in.length);
	r = r < 0 ? -errno : fuse_reply(c, NULL, 0);
	handle_put(c, h);
	return r;
}

int fuse_op_lseek(struct fuse_call *c)
{
	struct fuse_lseek_in in;
	struct fuse_lseek_out out;
	struct fuse_handle *h;
	off_t o;
	int r;

	memcpy(&in, c->arg, sizeof(in));
	if (in.offset > (uint64_t)INT64_MAX)
		return -EINVAL;
	/* The handle's file position is shared; only absolute answers mean anything. */
	if (in.whence != SEEK_SET && in.whence != SEEK_END &&
	    in.whence != SEEK_DATA && in.whence != SEEK_HOLE)
		return -EINVAL;
	h = handle(c, in.fh);
	if (!h)
		return -EBADF;
	o = lseek(h->fd, (off_t)in.offset, (int)in.whence);
	if (o < 0) {
		r = -errno;
	} else {
		out.offset = (uint64_t)o;
		r = fuse_reply(c, &out, sizeof(out));
	}
	handle_put(c, h);
	return r;
}

int fuse_op_copy_file_range(struct fuse_call *c)
{
	struct fuse_copy_file_range_in in;
	struct fuse_write_out out = { 0 };
	struct fuse_handle *hi, *ho;
	int r;

	memcpy(&in, c->arg, sizeof(in));
	if (in.flags || in.off_in > (uint64_t)INT64_MAX || in.off_out > (uint64_t)INT64_MAX)
		return -EINVAL;
	hi = handle(c, in.fh_in);
	if (!hi)
		return -EBADF;
	ho = handle(c, in.fh_out);
	if (!ho) {
		handle_put(c, hi);
		return -EBADF;
	}
	loff_t oi = (loff_t)in.off_in, oo = (loff_t)in.off_out;
	size_t len = in.len > (1u << 30) ? (1u << 30) : (size_t)in.len;
	ssize_t n = copy_file_range(hi->fd, &oi, ho->fd, &oo, len, 0);
	if (n < 0) {
		r = -errno;
	} else {
		out.size = (uint32_t)n;
		r = fuse_reply(c, &out, sizeof(out));
	}
	handle_put(c, ho);
	handle_put(c, hi);
	return r;
}

int fuse_op_syncfs(struct fuse_call *c)
{
	int fd, r;

	/* syncfs(2) refuses O_PATH fds; any real fd on the filesystem will do. */
	if (S_ISDIR(c->ino->type))
		fd = openat(c->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		fd = fuse_reopen(c->srv, c->fd, O_RDONLY);
	if (fd == -1)
		fd = -errno;
	if (fd < 0)
		return fd;
	r = syncfs(fd) < 0 ? -errno : fuse_reply(c, NULL, 0);
	close(fd);
	return r;
}

/*
 * The DAX hook: answered only once a device handed in its window
 * callbacks (fuse_server_params.dax); the mapping itself is the device's.
 * Linux names the file by nodeid and sends fh = -1 ("not used"), so the
 * inode is reopened with the access the mapping needs; a real fh, when
 * sent, must allow that access itself.
 */
int fuse_op_setupmapping(struct fuse_call *c)
{
	const struct fuse_dax_ops *dax = c->srv->params.dax;
	struct fuse_setupmapping_in in;
	struct fuse_handle *h;
	bool wr;
	int fd, r;

	if (!dax)
		return -ENOSYS;
	memcpy(&in, c->arg, sizeof(in));
	if ((in.foffset | in.len | in.moffset) & 4095 || in.len == 0 ||
	    in.foffset > (uint64_t)INT64_MAX - in.len)
		return -EINVAL;
	wr = in.flags & FUSE_SETUPMAPPING_FLAG_WRITE;
	if (wr && c->srv->opts.readonly)
		return -EROFS;
	if (in.fh == UINT64_MAX) {
		if (!S_ISREG(c->ino->type))
			return -EINVAL;
		fd = fuse_reopen(c->srv, c->fd, wr ? O_RDWR : O_RDONLY);
		if (fd < 0)
			return fd;
		/* The mapping holds its own reference to the file. */
		r = dax->setup_mapping(c->srv->params.dax_ctx, fd, in.foffset, in.len,
				       in.moffset, wr);
		close(fd);
		return r ? r : fuse_reply(c, NULL, 0);
	}
	h = handle(c, in.fh);
	if (!h)
		return -EBADF;
	if (wr && (h->flags & O_ACCMODE) == O_RDONLY)
		r = -EACCES;
	else
		r = dax->setup_mapping(c->srv->params.dax_ctx, h->fd, in.foffset,
				       in.len, in.moffset, wr);
	handle_put(c, h);
	return r ? r : fuse_reply(c, NULL, 0);
}

int fuse_op_removemapping(struct fuse_call *c)
{
	const struct fuse_dax_ops *dax = c->srv->params.dax;
	struct fuse_removemapping_in in;
	struct fuse_removemapping_one one;

	if (!dax)
		return -ENOSYS;
	memcpy(&in, c->arg, sizeof(in));
	if ((uint64_t)in.count * sizeof(one) > c->arglen - sizeof(in))
		return -EINVAL;
	for (uint32_t i = 0; i < in.count; i++) {
		memcpy(&one, c->arg + sizeof(in) + i * sizeof(one), sizeof(one));
		int r = dax->remove_mapping(c->srv->params.dax_ctx, one.moffset, one.len);
		if (r)
			return r;
	}
	return fuse_reply(c, NULL, 0);
}
