// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-session fid table, qid construction, and per-request credentials.
 *
 * A fid number is an index into a table that grows on demand up to
 * P9_MAX_FIDS: the Linux and diod clients hand out the smallest free
 * number, so the table stays dense and a lookup is one bounds check and
 * one load. Each slot holds fds, never a path, so a rename on the host
 * cannot make a fid point somewhere else.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/p9_impl.h"
#include "fs/resolve.h"

struct p9_fid *p9_fid_get(struct p9_session *s, uint32_t fid)
{
	if (fid >= s->nfids || !s->fids[fid] || s->fids[fid]->kind == P9_FID_NONE)
		return NULL;
	return s->fids[fid];
}

struct p9_fid *p9_fid_get_file(struct p9_session *s, uint32_t fid, int *err)
{
	struct p9_fid *f = p9_fid_get(s, fid);

	if (!f || f->kind != P9_FID_FILE) {
		*err = -EBADF;
		return NULL;
	}
	return f;
}

/* A file fid opened by Tlopen or Tlcreate: what Tfsync, Treaddir and the locks act on. */
struct p9_fid *p9_fid_get_open(struct p9_session *s, uint32_t fid, int *err)
{
	struct p9_fid *f = p9_fid_get_file(s, fid, err);

	if (f && f->ofd < 0) {
		*err = -EBADF;
		return NULL;
	}
	return f;
}

int p9_fid_new(struct p9_session *s, uint32_t fid, struct p9_fid **out)
{
	if (fid == P9_NOFID || fid >= P9_MAX_FIDS)
		return -EMFILE;
	if (p9_fid_get(s, fid))
		return -EEXIST;
	if (fid >= s->nfids) {
		uint32_t n = s->nfids ? s->nfids : 64;
		while (n <= fid)
			n *= 2;
		if (n > P9_MAX_FIDS)
			n = P9_MAX_FIDS;
		struct p9_fid **t = realloc(s->fids, n * sizeof(*t));
		if (!t)
			return -ENOMEM;
		memset(t + s->nfids, 0, (n - s->nfids) * sizeof(*t));
		s->fids = t;
		s->nfids = n;
	}
	if (!s->fids[fid]) {
		s->fids[fid] = calloc(1, sizeof(struct p9_fid));
		if (!s->fids[fid])
			return -ENOMEM;
	}
	struct p9_fid *f = s->fids[fid];
	memset(f, 0, sizeof(*f));
	f->kind = P9_FID_FILE;
	f->pfd = -1;
	f->ofd = -1;
	*out = f;
	return 0;
}

/*
 * Where a walk's result goes (Twalk, Txattrwalk): an empty file fid for
 * f's user, f itself when newfid is the same number, else a new fid.
 */
int p9_fid_newfid(struct p9_session *s, struct p9_fid *f, uint32_t fid, uint32_t newfid,
		  struct p9_fid **out)
{
	const struct p9_user *u = f->user;

	if (newfid == fid) {
		p9_fid_release(f);
		f->kind = P9_FID_FILE;
		*out = f;
	} else {
		int err = p9_fid_new(s, newfid, out);
		if (err)
			return err;
	}
	(*out)->user = u;
	return 0;
}

/* Drops what a fid holds; the slot stays allocated for reuse. */
void p9_fid_release(struct p9_fid *f)
{
	if (f->pfd >= 0)
		close(f->pfd);
	if (f->ofd >= 0)
		close(f->ofd);
	free(f->xname);
	free(f->xbuf);
	memset(f, 0, sizeof(*f));
	f->kind = P9_FID_NONE;
	f->pfd = -1;
	f->ofd = -1;
}

int p9_fid_clunk(struct p9_session *s, uint32_t fid)
{
	struct p9_fid *f = p9_fid_get(s, fid);

	if (!f)
		return -EBADF;
	p9_fid_release(f);
	return 0;
}

void p9_fid_clunk_all(struct p9_session *s)
{
	for (uint32_t i = 0; i < s->nfids; i++) {
		if (s->fids[i]) {
			if (s->fids[i]->kind != P9_FID_NONE)
				p9_fid_release(s->fids[i]);
			free(s->fids[i]);
			s->fids[i] = NULL;
		}
	}
}

/*
 * qid.path must be unique across every filesystem mounted under the share:
 * the top 16 bits carry a small number standing for (st_dev, inode bits
 * 48..63), the low 48 bits the inode. The root's device is prefix 0.
 */
uint64_t p9_qid_path(struct p9_session *s, dev_t dev, uint64_t ino)
{
	struct p9_server *srv = s->srv;
	uint64_t hi = ino >> 48, prefix;
	unsigned i;

	if (s->last_valid && s->last_dev == dev && s->last_hi == hi)
		return (s->last_prefix << 48) | (ino & 0xffffffffffffull);
	pthread_mutex_lock(&srv->qid_lock);
	for (i = 0; i < srv->nprefix; i++)
		if (srv->prefix[i].dev == dev && srv->prefix[i].hi == hi)
			break;
	if (i == srv->nprefix && i < P9_QID_PREFIXES) {
		srv->prefix[i].dev = dev;
		srv->prefix[i].hi = hi;
		srv->nprefix++;
	}
	pthread_mutex_unlock(&srv->qid_lock);
	/* Table full: fall back to a hash, unique enough to keep clients sane. */
	prefix = i < P9_QID_PREFIXES ? i : 0xffff ^ ((dev * 0x9e3779b97f4a7c15ull + hi) >> 52);
	s->last_dev = dev;
	s->last_hi = hi;
	s->last_prefix = prefix & 0xffff;
	s->last_valid = true;
	return (s->last_prefix << 48) | (ino & 0xffffffffffffull);
}

int p9_qid_from_stat(struct p9_session *s, const struct stat *st, struct p9_qid *q)
{
	q->type = S_ISDIR(st->st_mode) ? P9_QTDIR : S_ISLNK(st->st_mode) ? P9_QTSYMLINK : P9_QTFILE;
	/* Clients use version only as a cache hint; 0 means "do not cache by it". */
	q->version = 0;
	q->path = p9_qid_path(s, st->st_dev, st->st_ino);
	return 0;
}

int p9_qid_of_fd(struct p9_session *s, int fd, struct p9_qid *q, struct stat *st)
{
	struct stat tmp;

	if (!st)
		st = &tmp;
	if (fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return p9_qid_from_stat(s, st, q);
}

bool p9_is_root(const struct p9_server *srv, const struct stat *st)
{
	return st->st_dev == srv->root_dev && st->st_ino == srv->root_ino;
}

/* The user an attach names: n_uname when given, else the uname string. */
const struct p9_user *p9_user_get(struct p9_session *s, uid_t uid, const struct p9_str *uname)
{
	struct passwd pw, *res = NULL;
	char buf[2048], name[256];
	struct p9_user *u;

	if (uid == (uid_t)P9_NONUNAME) {
		/*
		 * Only a name (the kernel's first attach sends "nobody" and no
		 * number): a name unknown here gets nobody's rights, never root's.
		 */
		if (p9_str_copy(uname, name, sizeof(name)) == 0 &&
		    getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 && res)
			uid = res->pw_uid;
		else
			uid = 65534;
		res = NULL;
	}
	for (unsigned i = 0; i < s->nusers; i++)
		if (s->users[i].uid == uid)
			return &s->users[i];
	if (s->nusers == P9_MAX_USERS)
		return NULL;
	u = &s->users[s->nusers];
	u->uid = uid;
	/* A guest user unknown here gets no group rights beyond "other". */
	u->gid = 65534;
	u->ngroups = 0;
	if (!res && (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0))
		res = NULL;
	if (res) {
		int n = P9_MAX_GROUPS;
		u->gid = res->pw_gid;
		if (getgrouplist(res->pw_name, res->pw_gid, u->groups, &n) < 0)
			n = P9_MAX_GROUPS;
		u->ngroups = (size_t)n;
	}
	s->nusers++;
	return u;
}

/* The credentials this thread last set, to skip the syscalls when unchanged. */
static __thread struct p9_user cur_creds;
static __thread gid_t cur_gid;
static __thread bool cur_valid;

void p9_creds_forget(void)
{
	cur_valid = false;
}

int p9_creds_for(const struct p9_user *u, gid_t gid)
{
	int err;

	if (cur_valid && cur_creds.uid == u->uid && cur_gid == gid &&
	    cur_creds.ngroups == u->ngroups &&
	    memcmp(cur_creds.groups, u->groups, u->ngroups * sizeof(gid_t)) == 0)
		return 0;
	err = fs_creds_set(u->uid, gid, u->groups, u->ngroups);
	if (err) {
		cur_valid = false;
		return err;
	}
	cur_creds = *u;
	cur_gid = gid;
	cur_valid = true;
	return 0;
}

void p9_proc_path(int fd, char *buf, size_t sz)
{
	snprintf(buf, sz, "/proc/self/fd/%d", fd);
}

/* Opens the file an O_PATH fd names, if it may be opened (fs_reopen). */
int p9_reopen(struct p9_session *s, int pfd, int flags)
{
	return fs_reopen(s->srv->proc_fd, pfd, flags);
}

/* Reads one path component, checked: no '/', NUL, ".", ".." or "". */
int p9_get_name(struct p9_rbuf *in, char *buf)
{
	struct p9_str name;
	int err;

	p9_get_str(in, &name);
	if (p9_rbuf_error(in))
		return -EPROTO;
	err = fs_name_check(name.s, name.len);
	if (err)
		return err;
	memcpy(buf, name.s, name.len);
	buf[name.len] = '\0';
	return 0;
}
