// SPDX-License-Identifier: GPL-2.0-only
/*
 * Directories: Treaddir, and the changes Tmkdir, Tmknod, Tsymlink, Tlink,
 * Trename, Trenameat, Tunlinkat, Tremove. Every new name is one checked
 * component created beneath a directory fd the client walked to.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fs/9p/p9_impl.h"
#include "fs/resolve.h"

/* The directory fid a create or unlink acts in, with the write checks done. */
static struct p9_fid *dir_fid(struct p9_msg *m, uint32_t fid, int *err)
{
	struct p9_fid *f = p9_fid_get_file(m->s, fid, err);

	if (!f)
		return NULL;
	if (!S_ISDIR(f->mode)) {
		*err = -ENOTDIR;
		return NULL;
	}
	if (m->s->srv->opts.readonly) {
		*err = -EROFS;
		return NULL;
	}
	*err = p9_dir_inside(m->s, f->pfd);
	return *err ? NULL : f;
}

/*
 * The directory a new name is made in (Tmkdir, Tmknod, Tsymlink), with the
 * client's user and the requested group taken on so the new file is theirs.
 */
static struct p9_fid *make_dir_fid(struct p9_msg *m, uint32_t fid, uint32_t gid, int *err)
{
	struct p9_fid *d = dir_fid(m, fid, err);

	if (!d)
		return NULL;
	*err = p9_creds_for(d->user, p9_create_gid(m->s, d->user, gid));
	return *err ? NULL : d;
}

static int reply_qid_of(struct p9_msg *m, int dirfd, const char *name)
{
	struct p9_qid qid;
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	p9_qid_from_stat(m->s, &st, &qid);
	p9_put_qid(&m->out, &qid);
	return 0;
}

int p9_op_mkdir(struct p9_msg *m)
{
	uint32_t dfid = p9_get_u32(&m->in);
	char name[NAME_MAX + 1];
	int err = p9_get_name(&m->in, name);
	uint32_t mode = p9_get_u32(&m->in);
	uint32_t gid = p9_get_u32(&m->in);
	struct p9_fid *d;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (err)
		return err;
	d = make_dir_fid(m, dfid, gid, &err);
	if (!d)
		return err;
	if (mkdirat(d->pfd, name, mode & 07777) < 0)
		return -errno;
	return reply_qid_of(m, d->pfd, name);
}

int p9_op_mknod(struct p9_msg *m)
{
	uint32_t dfid = p9_get_u32(&m->in);
	char name[NAME_MAX + 1];
	int err = p9_get_name(&m->in, name);
	uint32_t mode = p9_get_u32(&m->in);
	uint32_t major = p9_get_u32(&m->in);
	uint32_t minor = p9_get_u32(&m->in);
	uint32_t gid = p9_get_u32(&m->in);
	struct p9_fid *d;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (err)
		return err;
	dev_t rdev = makedev(major, minor);
	err = fs_mknod_allowed(mode, &rdev, m->s->srv->opts.devices);
	if (err)
		return err;
	d = make_dir_fid(m, dfid, gid, &err);
	if (!d)
		return err;
	if (mknodat(d->pfd, name, mode & (S_IFMT | 07777), rdev) < 0)
		return -errno;
	return reply_qid_of(m, d->pfd, name);
}

int p9_op_symlink(struct p9_msg *m)
{
	uint32_t dfid = p9_get_u32(&m->in);
	char name[NAME_MAX + 1], target[PATH_MAX];
	int err = p9_get_name(&m->in, name);
	struct p9_str tgt;
	struct p9_fid *d;

	p9_get_str(&m->in, &tgt);
	uint32_t gid = p9_get_u32(&m->in);
	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (err)
		return err;
	/* The target is only text for the guest to resolve; never followed here. */
	err = p9_str_copy(&tgt, target, sizeof(target));
	if (err)
		return err;
	if (tgt.len == 0)
		return -ENOENT;
	d = make_dir_fid(m, dfid, gid, &err);
	if (!d)
		return err;
	if (symlinkat(target, d->pfd, name) < 0)
		return -errno;
	return reply_qid_of(m, d->pfd, name);
}

int p9_op_link(struct p9_msg *m)
{
	uint32_t dfid = p9_get_u32(&m->in);
	uint32_t fid = p9_get_u32(&m->in);
	char name[NAME_MAX + 1], num[16];
	int err = p9_get_name(&m->in, name);
	struct p9_fid *d, *f;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (err)
		return err;
	d = dir_fid(m, dfid, &err);
	if (!d)
		return err;
	f = p9_fid_get_file(m->s, fid, &err);
	if (!f)
		return err;
	if (S_ISDIR(f->mode))
		return -EPERM;
	if (linkat(f->pfd, "", d->pfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOENT && errno != EPERM)
		return -errno;
	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH, gone under a non-root fsuid. */
	snprintf(num, sizeof(num), "%d", f->pfd);
	return linkat(m->s->srv->proc_fd, num, d->pfd, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
}

/*
 * Finds the directory and name of the file a fid holds, for the two
 * messages that name a file only by fid (Trename, Tremove). The kernel
 * knows the file's current path; it is re-resolved beneath the root with
 * no symlinks and checked to still be the same inode.
 */
static int locate(struct p9_session *s, struct p9_fid *f, int *dirfd, char *name)
{
	char path[PATH_MAX], root[PATH_MAX], link[32];
	struct stat want, got;
	ssize_t n, rn;

	p9_proc_path(f->pfd, link, sizeof(link));
	n = readlink(link, path, sizeof(path) - 1);
	p9_proc_path(s->srv->root_fd, link, sizeof(link));
	rn = readlink(link, root, sizeof(root) - 1);
	if (n < 0 || rn < 0)
		return -errno;
	path[n] = root[rn] = '\0';
	if (rn == 1)
		rn = 0;  /* the share is "/": every path starts with it */
	if (strncmp(path, root, (size_t)rn) != 0 || path[rn] != '/')
		return n == rn ? -EBUSY : -ESTALE;
	char *rel = path + rn + 1;
	char *slash = strrchr(rel, '/');
	const char *base = slash ? slash + 1 : rel;
	if (fs_name_check(base, strlen(base)) < 0)
		return -ESTALE;
	strcpy(name, base);
	if (!slash) {
		*dirfd = fcntl(s->srv->root_fd, F_DUPFD_CLOEXEC, 0);
	} else {
		struct open_how how = {
			.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		*slash = '\0';
		*dirfd = (int)syscall(SYS_openat2, s->srv->root_fd, rel, &how, sizeof(how));
	}
	if (*dirfd < 0)
		return -errno;
	if (fstat(f->pfd, &want) < 0 || fstatat(*dirfd, name, &got, AT_SYMLINK_NOFOLLOW) < 0 ||
	    want.st_dev != got.st_dev || want.st_ino != got.st_ino) {
		close(*dirfd);
		return -ESTALE;
	}
	return 0;
}

int p9_op_rename(struct p9_msg *m)
{
	uint32_t fid = p9_get_u32(&m->in);
	uint32_t dfid = p9_get_u32(&m->in);
	char name[NAME_MAX + 1], old[NAME_MAX + 1];
	int err = p9_get_name(&m->in, name);
	struct p9_fid *f, *d;
	int olddir;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (err)
		return err;
	f = p9_fid_get_file(m->s, fid, &err);
	if (!f)
		return err;
	d = dir_fid(m, dfid, &err);
	if (!d)
		return err;
	err = locate(m->s, f, &olddir, old);
	if (err)
		return err;
	if (renameat(olddir, old, d->pfd, name) < 0)
		err = -errno;
	close(olddir);
	return err;
}

int p9_op_renameat(struct p9_msg *m)
{
	uint32_t ofid = p9_get_u32(&m->in);
	char oldname[NAME_MAX + 1], newname[NAME_MAX + 1];
	int err = p9_get_name(&m->in, oldname);
	uint32_t nfid = p9_get_u32(&m->in);
	int err2 = p9_get_name(&m->in, newname);
	struct p9_fid *od, *nd;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (err || err2)
		return err ? err : err2;
	od = dir_fid(m, ofid, &err);
	if (!od)
		return err;
	nd = dir_fid(m, nfid, &err);
	if (!nd)
		return err;
	return renameat(od->pfd, oldname, nd->pfd, newname) < 0 ? -errno : 0;
}

int p9_op_unlinkat(struct p9_msg *m)
{
	uint32_t dfid = p9_get_u32(&m->in);
	char name[NAME_MAX + 1];
	int err = p9_get_name(&m->in, name);
	uint32_t flags = p9_get_u32(&m->in);
	struct p9_fid *d;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (err)
		return err;
	if (flags & ~(uint32_t)P9_DOTL_AT_REMOVEDIR)
		return -EINVAL;
	d = dir_fid(m, dfid, &err);
	if (!d)
		return err;
	return unlinkat(d->pfd, name, (flags & P9_DOTL_AT_REMOVEDIR) ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
}

int p9_op_remove(struct p9_msg *m)
{
	uint32_t fid = p9_get_u32(&m->in);
	char name[NAME_MAX + 1];
	struct p9_fid *f;
	int err = 0, dirfd;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_file(m->s, fid, &err);
	if (!f)
		return err;
	if (m->s->srv->opts.readonly) {
		err = -EROFS;
	} else {
		err = locate(m->s, f, &dirfd, name);
		if (!err) {
			if (unlinkat(dirfd, name, S_ISDIR(f->mode) ? AT_REMOVEDIR : 0) < 0)
				err = -errno;
			close(dirfd);
		}
	}
	/* Tremove clunks the fid whether or not the remove worked. */
	p9_fid_clunk(m->s, fid);
	return err;
}

static uint8_t dtype_qid(unsigned char t)
{
	return t == DT_DIR ? P9_QTDIR : t == DT_LNK ? P9_QTSYMLINK : P9_QTFILE;
}

/*
 * Fills the reply with as many entries as fit, in one pass over
 * getdents64. Each entry's offset is the kernel's d_off, so a later
 * Treaddir from any offset handed out resumes exactly; the directory fd's
 * position is tracked to skip the lseek on sequential reads.
 */
/*
 * Puts the dirent64 records buf[0..n) into the reply as 9p entries while
 * they fit in room bytes; *last is the offset after the last one put.
 * True when one did not fit.
 */
static bool put_dirents(struct p9_msg *m, const uint8_t *buf, size_t n, dev_t dev,
			size_t room, int64_t *last)
{
	size_t start = m->out.pos;

	for (size_t pos = 0; pos < n;) {
		const struct dirent64 *d = (const struct dirent64 *)(buf + pos);
		size_t nlen = strlen(d->d_name);
		struct p9_qid q = {
			.type = dtype_qid(d->d_type),
			.path = p9_qid_path(m->s, dev, d->d_ino),
		};

		if (m->out.pos - start + P9_DIRENT_FIXEDSZ + nlen > room)
			return true;
		p9_put_qid(&m->out, &q);
		p9_put_u64(&m->out, (uint64_t)d->d_off);
		p9_put_u8(&m->out, d->d_type);
		p9_put_str(&m->out, d->d_name, nlen);
		*last = d->d_off;
		pos += d->d_reclen;
	}
	return false;
}

int p9_op_readdir(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t fid = p9_get_u32(&m->in);
	uint64_t off = p9_get_u64(&m->in);
	uint32_t count = p9_get_u32(&m->in);
	struct p9_fid *f;
	struct stat st;
	int err = 0;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_open(s, fid, &err);
	if (!f)
		return err;
	if (!S_ISDIR(f->mode))
		return -ENOTDIR;
	if (off > INT64_MAX)
		return -EINVAL;
	err = p9_dir_inside(s, f->ofd);
	if (err)
		return err;
	if (fstat(f->ofd, &st) < 0)
		return -errno;
	uint8_t *countp = p9_put_reserve(&m->out, 4);
	if (!countp)
		return -ERANGE;
	if (count > p9_wbuf_left(&m->out))
		count = (uint32_t)p9_wbuf_left(&m->out);
	if ((int64_t)off != f->dir_next && lseek(f->ofd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	f->dir_next = (int64_t)off;

	/* The request is parsed: its copy's space holds the getdents batch. */
	uint8_t *buf = s->scratch;
	size_t bufsz = count < 1024 ? 1024 : count;
	size_t start = m->out.pos;
	int64_t last = (int64_t)off;
	bool full = false;

	if (bufsz > s->max_msg)
		bufsz = s->max_msg;
	while (!full) {
		/*
		 * Ask the kernel for about what still fits: a dirent64 is
		 * within a few bytes of its 9p entry, and whatever is read
		 * beyond the reply is read again next time (bench-9p: a full
		 * buffer each call made tmpfs produce 1.7x the entries sent).
		 * The slack keeps room for one NAME_MAX entry.
		 */
		size_t room = count - (m->out.pos - start);
		size_t want = room + room / 8 + 512;
		ssize_t n = getdents64(f->ofd, buf, want < bufsz ? want : bufsz);
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		full = put_dirents(m, buf, (size_t)n, st.st_dev, room, &last);
	}
	if (full || err) {
		/* The kernel read ahead of what was sent: go back to the last sent. */
		if (lseek(f->ofd, (off_t)last, SEEK_SET) < 0 && !err)
			err = -errno;
	}
	f->dir_next = last;
	uint32_t used = (uint32_t)(m->out.pos - start);
	if (used == 0 && (err || full))
		return err ? err : -EINVAL;   /* error, or count too small for one entry */
	uint32_t le = htole32(used);
	memcpy(countp, &le, 4);
	return 0;
}
