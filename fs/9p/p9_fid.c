// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-session fid table, the session's byte budget, the fds fids
 * keep, qid construction, and per-request credentials.
 *
 * A fid number is the client's: any u32 but NOFID. The table is an open
 * addressing hash keyed by the number, linear probing, never more than
 * half full, so a lookup is one hash and, nearly always, one probe. The
 * hash is seeded per server: the Linux client's small dense numbers
 * spread as evenly as any, and a client cannot pick numbers that pile up
 * in one run of slots. Each fid holds fds, never a path, so a rename on
 * the host cannot make a fid point somewhere else.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "fs/9p/p9_impl.h"
#include "base/creds.h"
#include "fs/resolve.h"

/* murmur3's finaliser: every input bit moves every output bit. */
static uint32_t slot_of(const struct p9_session *s, uint32_t fid)
{
	uint32_t h = fid ^ s->fidseed;

	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h & (s->fidcap - 1);
}

/* The slot holding fid, or the empty slot where it would go. */
static uint32_t find_slot(const struct p9_session *s, uint32_t fid)
{
	uint32_t mask = s->fidcap - 1, i = slot_of(s, fid);

	while (s->fidtab[i].f && s->fidtab[i].fid != fid)
		i = (i + 1) & mask;
	return i;
}

struct p9_fid *p9_fid_get(struct p9_session *s, uint32_t fid)
{
	if (!s->nlive)
		return NULL;
	return s->fidtab[find_slot(s, fid)].f;
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

/* Doubles the table (charged to the budget; it only shrinks on reset). */
static int grow(struct p9_session *s)
{
	uint32_t oldcap = s->fidcap, cap = oldcap ? oldcap * 2 : 64;
	struct p9_fid_slot *old = s->fidtab, *t;
	int err = p9_mem_charge(s, (cap - oldcap) * sizeof(*t));

	if (err)
		return err;
	t = calloc(cap, sizeof(*t));
	if (!t) {
		p9_mem_refund(s, (cap - oldcap) * sizeof(*t));
		return -ENOMEM;
	}
	s->fidtab = t;
	s->fidcap = cap;
	for (uint32_t i = 0; i < oldcap; i++)
		if (old[i].f)
			t[find_slot(s, old[i].fid)] = old[i];
	free(old);
	return 0;
}

/* A new, empty file fid: -EINVAL for NOFID, -EEXIST, -EMFILE, -ENOMEM. */
int p9_fid_new(struct p9_session *s, uint32_t fid, struct p9_fid **out)
{
	struct p9_fid *f;
	int err;

	if (fid == P9_NOFID)
		return -EINVAL;
	if (p9_fid_get(s, fid))
		return -EEXIST;
	if (s->nlive >= P9_MAX_LIVE_FIDS)
		return -EMFILE;
	if (2 * (s->nlive + 1) > s->fidcap && (err = grow(s)))
		return err;
	err = p9_mem_charge(s, sizeof(*f));
	if (err)
		return err;
	f = calloc(1, sizeof(*f));
	if (!f) {
		p9_mem_refund(s, sizeof(*f));
		return -ENOMEM;
	}
	f->fid = fid;
	f->kind = P9_FID_FILE;
	f->pfd = -1;
	f->ofd = -1;
	s->fidtab[find_slot(s, fid)] = (struct p9_fid_slot){ fid, f };
	s->nlive++;
	*out = f;
	return 0;
}

/* Drops what a fid holds (its fds and xattr buffer), keeping its number. */
static void release(struct p9_session *s, struct p9_fid *f)
{
	uint32_t fid = f->fid;

	p9_fd_close(s, f->pfd);
	p9_fd_close(s, f->ofd);
	free(f->xname);
	free(f->xbuf);
	p9_mem_refund(s, f->xcost);
	memset(f, 0, sizeof(*f));
	f->fid = fid;
	f->kind = P9_FID_NONE;
	f->pfd = -1;
	f->ofd = -1;
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
		release(s, f);
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

/*
 * Empties slot i without tombstones: each later entry of the run moves
 * back into the hole unless its home slot lies after the hole.
 */
static void unlink_slot(struct p9_session *s, uint32_t i)
{
	uint32_t mask = s->fidcap - 1;

	for (uint32_t j = (i + 1) & mask; s->fidtab[j].f; j = (j + 1) & mask) {
		uint32_t home = slot_of(s, s->fidtab[j].fid);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			s->fidtab[i] = s->fidtab[j];
			i = j;
		}
	}
	s->fidtab[i].f = NULL;
}

int p9_fid_clunk(struct p9_session *s, uint32_t fid)
{
	uint32_t i;
	struct p9_fid *f;

	if (!s->nlive)
		return -EBADF;
	i = find_slot(s, fid);
	f = s->fidtab[i].f;
	if (!f)
		return -EBADF;
	release(s, f);
	free(f);
	p9_mem_refund(s, sizeof(*f));
	unlink_slot(s, i);
	s->nlive--;
	return 0;
}

void p9_fid_clunk_all(struct p9_session *s)
{
	for (uint32_t i = 0; i < s->fidcap; i++) {
		struct p9_fid *f = s->fidtab[i].f;
		if (f) {
			release(s, f);
			free(f);
			p9_mem_refund(s, sizeof(*f));
		}
	}
	p9_mem_refund(s, s->fidcap * sizeof(*s->fidtab));
	free(s->fidtab);
	s->fidtab = NULL;
	s->fidcap = 0;
	s->nlive = 0;
}

/*
 * The byte budget (P9_SESSION_BYTES): charged before an allocation the
 * client asked for, refunded when it is freed. Atomic because a parked
 * lock's helper thread refunds its own waiter.
 */
int p9_mem_charge(struct p9_session *s, size_t n)
{
	size_t used = atomic_load_explicit(&s->mem_used, memory_order_relaxed);

	do {
		if (n > P9_SESSION_BYTES - used)
			return -ENOMEM;
	} while (!atomic_compare_exchange_weak_explicit(&s->mem_used, &used, used + n,
			memory_order_relaxed, memory_order_relaxed));
	/* And the session's fair share of the process's bytes, when it has one. */
	if (fs_fair_charge(s->mem_share, n)) {
		atomic_fetch_sub_explicit(&s->mem_used, n, memory_order_relaxed);
		return -ENOMEM;
	}
	return 0;
}

void p9_mem_refund(struct p9_session *s, size_t n)
{
	fs_fair_refund(s->mem_share, n);
	atomic_fetch_sub_explicit(&s->mem_used, n, memory_order_relaxed);
}

/* A dup of fd for a fid to keep, charged to the fd budget: fd or -errno. */
int p9_fd_dup(struct p9_session *s, int fd)
{
	int err = fs_fd_charge_to(s->fd_share), nfd;

	if (err)
		return err;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (nfd < 0) {
		err = -errno;
		fs_fd_refund_to(s->fd_share);
		return err;
	}
	return nfd;
}

/* Closes an fd a fid kept (or -1) and gives its charge back. */
void p9_fd_close(struct p9_session *s, int fd)
{
	if (fd < 0)
		return;
	close(fd);
	fs_fd_refund_to(s->fd_share);
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
	return st->st_dev == srv->root_id.dev && st->st_ino == srv->root_id.ino;
}

int p9_dir_inside(const struct p9_session *s, int dirfd)
{
	return fs_dir_inside(&s->srv->root_id, dirfd);
}

/*
 * The uid an attach names: n_uname when given, else the uname string
 * looked up here. The kernel's first attach sends "nobody" and no number;
 * a name unknown here gets nobody's uid, never root's.
 */
uid_t p9_attach_uid(uint32_t n_uname, const struct p9_str *uname)
{
	struct passwd pw, *res = NULL;
	char buf[2048], name[256];

	if (n_uname != P9_NONUNAME)
		return (uid_t)n_uname;
	if (p9_str_copy(uname, name, sizeof(name)) == 0 &&
	    getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 && res)
		return res->pw_uid;
	return 65534;
}

void p9_users_preload(void)
{
	struct passwd pw, *res = NULL;
	char buf[2048];
	gid_t groups[4];
	int n = 4;

	/* A name no database has walks every source in nsswitch.conf for
	 * passwd, getgrouplist every one for groups: each module is loaded. */
	(void)getpwnam_r("stainless-nss-preload", &pw, buf, sizeof(buf), &res);
	(void)getgrouplist("stainless-nss-preload", 65534, groups, &n);
}

/* The session's record of uid: its groups looked up once; NULL when full. */
const struct p9_user *p9_user_get(struct p9_session *s, uid_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[2048];
	struct p9_user *u;

	for (unsigned i = 0; i < s->nusers; i++)
		if (s->users[i].uid == uid)
			return &s->users[i];
	if (s->nusers == P9_MAX_USERS)
		return NULL;
	u = &s->users[s->nusers];
	if (s->peer_known && s->peer_uid != 0 && uid == s->peer_uid) {
		/* The peer's own groups, as the kernel knows them, not the database's. */
		*u = s->peer;
		s->nusers++;
		return u;
	}
	u->uid = uid;
	/* A guest user unknown here gets no group rights beyond "other". */
	u->gid = 65534;
	u->ngroups = 0;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0)
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

/*
 * The group a new file of u's is made with: the one the client asked for,
 * except that a peer other than root (p9_session_set_peer) may ask only
 * for a group it is in; otherwise its own gid (a set-group-ID directory
 * still hands its group down: the host kernel does that).
 */
gid_t p9_create_gid(const struct p9_session *s, const struct p9_user *u, gid_t gid)
{
	if (!s->peer_known || s->peer_uid == 0 || gid == u->gid)
		return gid;
	for (size_t i = 0; i < u->ngroups; i++)
		if (u->groups[i] == gid)
			return gid;
	return u->gid;
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
