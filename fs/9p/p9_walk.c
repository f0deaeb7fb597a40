// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming and attributes: Twalk, Tgetattr, Tsetattr, Tstatfs, Treadlink.
 *
 * A walk resolves one component at a time beneath the fd the fid holds
 * (fs_open_beneath: no symlink following, no magic links, no escape), and
 * ".." is the server's business: it never climbs above the share root.
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

/*
 * The parent of a directory that is not the root. A host process may have
 * moved the directory out of the share since it was walked to, so check
 * that climbing from the parent reaches the root before "/": EXDEV
 * otherwise, the answer openat2 gives for a beneath escape.
 */
static int walk_dotdot(struct p9_server *srv, int cur, int *out)
{
	struct stat st, pst;
	int fd, probe, up;

	fd = openat(cur, "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	probe = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (probe < 0) {
		close(fd);
		return -errno;
	}
	for (int depth = 0; depth < PATH_MAX / 2; depth++) {
		if (fstat(probe, &st) < 0)
			break;
		if (p9_is_root(srv, &st)) {
			close(probe);
			*out = fd;
			return 0;
		}
		up = openat(probe, "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (up < 0)
			break;
		close(probe);
		probe = up;
		if (fstat(probe, &pst) < 0 || (pst.st_dev == st.st_dev && pst.st_ino == st.st_ino))
			break;       /* reached "/" without passing the root */
	}
	close(probe);
	close(fd);
	return -EXDEV;
}

int p9_op_walk(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t fid = p9_get_u32(&m->in);
	uint32_t newfid = p9_get_u32(&m->in);
	uint16_t nwname = p9_get_u16(&m->in);
	struct p9_str names[P9_MAXWELEM];
	struct p9_fid *f, *nf;
	struct p9_qid qids[P9_MAXWELEM];
	struct stat st;
	int err = 0, cur, next = -1;
	uint16_t i;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (nwname > P9_MAXWELEM)
		return -EINVAL;
	for (i = 0; i < nwname; i++)
		p9_get_str(&m->in, &names[i]);
	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_file(s, fid, &err);
	if (!f)
		return err;
	if (newfid != fid && p9_fid_get(s, newfid))
		return -EEXIST;
	/* The fd the walk ends on is kept by newfid: charged now, before any work. */
	cur = p9_fd_dup(f->pfd);
	if (cur < 0)
		return cur;
	st.st_mode = f->mode;
	for (i = 0; i < nwname; i++) {
		if (!S_ISDIR(st.st_mode)) {
			err = -ENOTDIR;
			break;
		}
		if (p9_str_eq(&names[i], ".")) {
			/* diod's tools walk "." when listing: the same directory. */
			next = fcntl(cur, F_DUPFD_CLOEXEC, 0);
			err = next < 0 ? -errno : 0;
		} else if (p9_str_eq(&names[i], "..")) {
			if (fstat(cur, &st) < 0) {
				err = -errno;
				break;
			}
			err = p9_is_root(s->srv, &st) ? -EXDEV : walk_dotdot(s->srv, cur, &next);
		} else {
			char name[NAME_MAX + 1];
			err = fs_name_check(names[i].s, names[i].len);
			if (!err) {
				memcpy(name, names[i].s, names[i].len);
				name[names[i].len] = '\0';
				next = fs_open_beneath(cur, name, O_PATH, 0);
				err = next < 0 ? next : 0;
			}
		}
		if (err)
			break;
		close(cur);  /* its charge passes to next */
		cur = next;
		err = p9_qid_of_fd(s, cur, &qids[i], &st);
		if (err)
			break;
	}
	if (err && i == 0) {
		p9_fd_close(cur);
		return err;
	}
	if (i == nwname) {
		/* Whole walk done: newfid names the result (replacing fid if equal). */
		err = p9_fid_newfid(s, f, fid, newfid, &nf);
		if (err) {
			p9_fd_close(cur);
			return err;
		}
		nf->pfd = cur;
		nf->mode = st.st_mode;
	} else {
		p9_fd_close(cur);  /* partial walk: the qids so far, newfid untouched */
	}
	p9_put_u16(&m->out, i);
	for (uint16_t k = 0; k < i; k++)
		p9_put_qid(&m->out, &qids[k]);
	return 0;
}

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
