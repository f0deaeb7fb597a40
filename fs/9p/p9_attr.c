// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attributes of what a fid names: Tgetattr, Tsetattr, Tstatfs, Treadlink.
 * A size change reopens the file through fs_reopen (regular files only).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fs/9p/p9_impl.h"
#include "fs/resolve.h"

int p9_op_getattr(struct p9_msg *m)
{
	uint32_t fid = p9_get_u32(&m->in);
	struct p9_fid *f;
	struct statx stx;
	struct p9_qid qid;
	int err = 0;

	p9_get_u64(&m->in); /* request_mask: everything is cheap, so all is sent */
	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_file(m->s, fid, &err);
	if (!f)
		return err;
	if (statx(f->pfd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_BASIC_STATS | STATX_BTIME, &stx) < 0)
		return -errno;
	qid.type = S_ISDIR(stx.stx_mode) ? P9_QTDIR : S_ISLNK(stx.stx_mode) ? P9_QTSYMLINK : P9_QTFILE;
	qid.version = 0;
	qid.path = p9_qid_path(m->s, makedev(stx.stx_dev_major, stx.stx_dev_minor), stx.stx_ino);
	p9_put_u64(&m->out, P9_GETATTR_BASIC | ((stx.stx_mask & STATX_BTIME) ? P9_GETATTR_BTIME : 0));
	p9_put_qid(&m->out, &qid);
	p9_put_u32(&m->out, stx.stx_mode);
	p9_put_u32(&m->out, stx.stx_uid);
	p9_put_u32(&m->out, stx.stx_gid);
	p9_put_u64(&m->out, stx.stx_nlink);
	p9_put_u64(&m->out, makedev(stx.stx_rdev_major, stx.stx_rdev_minor));
	p9_put_u64(&m->out, stx.stx_size);
	p9_put_u64(&m->out, stx.stx_blksize);
	p9_put_u64(&m->out, stx.stx_blocks);
	p9_put_u64(&m->out, (uint64_t)stx.stx_atime.tv_sec);
	p9_put_u64(&m->out, stx.stx_atime.tv_nsec);
	p9_put_u64(&m->out, (uint64_t)stx.stx_mtime.tv_sec);
	p9_put_u64(&m->out, stx.stx_mtime.tv_nsec);
	p9_put_u64(&m->out, (uint64_t)stx.stx_ctime.tv_sec);
	p9_put_u64(&m->out, stx.stx_ctime.tv_nsec);
	p9_put_u64(&m->out, (uint64_t)stx.stx_btime.tv_sec);
	p9_put_u64(&m->out, stx.stx_btime.tv_nsec);
	p9_put_u64(&m->out, 0); /* gen */
	p9_put_u64(&m->out, 0); /* data_version */
	return 0;
}

static int set_size(struct p9_session *s, struct p9_fid *f, uint64_t size)
{
	int fd, err = 0;

	if (size > INT64_MAX)
		return -EFBIG;
	if (S_ISDIR(f->mode))
		return -EISDIR;
	if (!S_ISREG(f->mode))
		return -EINVAL;
	fd = p9_reopen(s, f->pfd, O_WRONLY);
	if (fd < 0)
		return fd;
	if (ftruncate(fd, (off_t)size) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int set_times(struct p9_session *s, struct p9_fid *f, uint32_t valid,
		     const struct timespec given[2])
{
	struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT } };
	char name[16];

	if (valid & P9_SETATTR_ATIME)
		ts[0] = (valid & P9_SETATTR_ATIME_SET) ? given[0] : (struct timespec){ .tv_nsec = UTIME_NOW };
	if (valid & P9_SETATTR_MTIME)
		ts[1] = (valid & P9_SETATTR_MTIME_SET) ? given[1] : (struct timespec){ .tv_nsec = UTIME_NOW };
	if (utimensat(f->pfd, "", ts, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != EINVAL || S_ISLNK(f->mode))
		return -errno;
	/* Older kernels: no AT_EMPTY_PATH here; go through the fd's /proc entry. */
	snprintf(name, sizeof(name), "%d", f->pfd);
	return utimensat(s->srv->proc_fd, name, ts, 0) < 0 ? -errno : 0;
}

int p9_op_setattr(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t fid = p9_get_u32(&m->in);
	uint32_t valid = p9_get_u32(&m->in);
	uint32_t mode = p9_get_u32(&m->in);
	uint32_t uid = p9_get_u32(&m->in);
	uint32_t gid = p9_get_u32(&m->in);
	uint64_t size = p9_get_u64(&m->in);
	struct timespec ts[2];
	struct p9_fid *f;
	int err = 0;

	ts[0].tv_sec = (time_t)p9_get_u64(&m->in);
	ts[0].tv_nsec = (long)p9_get_u64(&m->in);
	ts[1].tv_sec = (time_t)p9_get_u64(&m->in);
	ts[1].tv_nsec = (long)p9_get_u64(&m->in);
	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_file(s, fid, &err);
	if (!f)
		return err;
	if (s->srv->opts.readonly)
		return -EROFS;
	if (valid & P9_SETATTR_MODE) {
		char name[16];
		if (S_ISLNK(f->mode))
			return -EOPNOTSUPP;
		snprintf(name, sizeof(name), "%d", f->pfd);
		if (fchmodat(s->srv->proc_fd, name, mode & 07777, 0) < 0)
			return -errno;
	}
	if (valid & (P9_SETATTR_UID | P9_SETATTR_GID)) {
		if (fchownat(f->pfd, "", (valid & P9_SETATTR_UID) ? uid : (uid_t)-1,
			     (valid & P9_SETATTR_GID) ? gid : (gid_t)-1,
			     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	if (valid & P9_SETATTR_SIZE) {
		err = set_size(s, f, size);
		if (err)
			return err;
	}
	if (valid & (P9_SETATTR_ATIME | P9_SETATTR_MTIME)) {
		err = set_times(s, f, valid, ts);
		if (err)
			return err;
	}
	if (valid == P9_SETATTR_CTIME) {
		/* ctime alone: a no-op chown is the one call that only touches it. */
		if (fchownat(f->pfd, "", (uid_t)-1, (gid_t)-1, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	return 0;
}

int p9_op_statfs(struct p9_msg *m)
{
	uint32_t fid = p9_get_u32(&m->in);
	struct p9_fid *f;
	struct statfs sf;
	uint64_t fsid;
	int err = 0;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_file(m->s, fid, &err);
	if (!f)
		return err;
	if (fstatfs(f->pfd, &sf) < 0)
		return -errno;
	memcpy(&fsid, &sf.f_fsid, sizeof(fsid));
	p9_put_u32(&m->out, (uint32_t)sf.f_type);
	p9_put_u32(&m->out, (uint32_t)sf.f_bsize);
	p9_put_u64(&m->out, sf.f_blocks);
	p9_put_u64(&m->out, sf.f_bfree);
	p9_put_u64(&m->out, sf.f_bavail);
	p9_put_u64(&m->out, sf.f_files);
	p9_put_u64(&m->out, sf.f_ffree);
	p9_put_u64(&m->out, fsid);
	p9_put_u32(&m->out, (uint32_t)sf.f_namelen);
	return 0;
}

int p9_op_readlink(struct p9_msg *m)
{
	uint32_t fid = p9_get_u32(&m->in);
	char buf[PATH_MAX];
	struct p9_fid *f;
	ssize_t n;
	int err = 0;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_file(m->s, fid, &err);
	if (!f)
		return err;
	if (!S_ISLNK(f->mode))
		return -EINVAL;
	n = readlinkat(f->pfd, "", buf, sizeof(buf));
	if (n < 0)
		return -errno;
	p9_put_str(&m->out, buf, (size_t)n);
	return 0;
}
