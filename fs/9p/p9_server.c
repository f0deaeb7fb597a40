// SPDX-License-Identifier: GPL-2.0-only
/*
 * 9P2000.L server: set-up, the request entry point (framing checks,
 * dispatch, the single reply path) and the session-level messages
 * (Tversion, Tauth, Tattach, Tflush, Tclunk). The other messages live in
 * one file per family: p9_walk.c, p9_io.c, p9_dir.c, p9_xattr.c, p9_lock.c.
 */
#include "fs/9p/p9_server.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs/9p/p9_impl.h"
#include "fs/9p/p9_trace.h"
#include "base/creds.h"
#include "fs/fs_log.h"
#include "fs/resolve.h"

int p9_server_create(struct p9_server **out, const char *root, const struct fs_options *opts)
{
	struct p9_server *srv;
	struct stat st;
	int err;

	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->root_fd = -1;
	srv->proc_fd = -1;
	srv->opts = *opts;
	srv->msize = opts->msize ? opts->msize : P9_MSIZE_DEFAULT;
	if (srv->msize < P9_MSIZE_MIN || srv->msize > P9_MSIZE_MAX) {
		err = -EINVAL;
		goto fail;
	}
	pthread_mutex_init(&srv->qid_lock, NULL);
	srv->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (srv->root_fd < 0) {
		err = -errno;
		goto fail;
	}
	if (fstat(srv->root_fd, &st) < 0) {
		err = -errno;
		goto fail;
	}
	err = fs_root_id_init(&srv->root_id, srv->root_fd);
	if (err)
		goto fail;
	srv->proc_fd = fs_proc_self_fd_dup();
	if (srv->proc_fd < 0) {
		err = srv->proc_fd;
		goto fail;
	}
	srv->root_path = strdup(root);
	srv->root_real = realpath(root, NULL);
	if (!srv->root_path || !srv->root_real) {
		err = -ENOMEM;
		goto fail;
	}
	/* The root's own device always gets prefix 0: most qids are plain inodes. */
	srv->prefix[0].dev = st.st_dev;
	srv->prefix[0].hi = 0;
	srv->nprefix = 1;
	/* Keys the fid hash so a client cannot choose numbers that collide. */
	if (getrandom(&srv->fidseed, sizeof(srv->fidseed), GRND_NONBLOCK) != sizeof(srv->fidseed))
		srv->fidseed = (uint32_t)time(NULL) ^ (uint32_t)(uintptr_t)srv;
	p9_users_preload();
	/* Here, not at session creation: that may be on a filtered thread. */
	err = fs_park_setup();
	if (err)
		goto fail;
	*out = srv;
	return 0;
fail:
	p9_server_destroy(srv);
	return err;
}

void p9_server_destroy(struct p9_server *srv)
{
	if (!srv)
		return;
	if (srv->root_fd >= 0)
		close(srv->root_fd);
	if (srv->proc_fd >= 0)
		close(srv->proc_fd);
	free(srv->root_path);
	free(srv->root_real);
	pthread_mutex_destroy(&srv->qid_lock);
	free(srv);
}

uint32_t p9_server_msize(const struct p9_server *srv)
{
	return srv->msize;
}

int p9_session_create(struct p9_session **out, struct p9_server *srv, uint32_t max_msg)
{
	struct p9_session *s;

	if (max_msg < P9_MSIZE_MIN)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->srv = srv;
	s->fidseed = srv->fidseed;
	atomic_init(&s->mem_used, 0);
	s->max_msg = max_msg < srv->msize ? max_msg : srv->msize;
	s->scratch = malloc(s->max_msg);
	s->reply = malloc(s->max_msg);
	if (!s->scratch || !s->reply) {
		free(s->scratch);
		free(s->reply);
		free(s);
		return -ENOMEM;
	}
	int err = p9_lock_init(s);
	if (err) {
		free(s->scratch);
		free(s->reply);
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void p9_session_destroy(struct p9_session *s)
{
	if (!s)
		return;
	p9_lock_cancel_all(s);
	p9_fid_clunk_all(s);
	p9_lock_fini(s);
	free(s->scratch);
	free(s->reply);
	free(s);
}

uint32_t p9_session_msize(const struct p9_session *s)
{
	return s->msize;
}

void p9_session_set_peer(struct p9_session *s, uid_t uid, gid_t gid, const gid_t *groups,
			 size_t ngroups)
{
	s->peer_known = true;
	s->peer_uid = uid;
	s->peer.uid = uid;
	s->peer.gid = gid;
	s->peer.ngroups = ngroups < P9_MAX_GROUPS ? ngroups : P9_MAX_GROUPS;
	if (s->peer.ngroups)
		memcpy(s->peer.groups, groups, s->peer.ngroups * sizeof(gid_t));
}

void p9_session_set_shares(struct p9_session *s, struct fs_fair_acct *fds, struct fs_fair_acct *bytes)
{
	s->fd_share = fds;
	s->mem_share = bytes;
	s->parked.fds = fds;
}

static int op_version(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t msize = p9_get_u32(&m->in);
	struct p9_str version;

	p9_get_str(&m->in, &version);
	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (msize < P9_MSIZE_MIN)
		return -EINVAL;
	/* A new Tversion starts a new session: nothing survives it. */
	p9_lock_cancel_all(s);
	p9_fid_clunk_all(s);
	s->msize = msize < s->max_msg ? msize : s->max_msg;
	p9_put_u32(&m->out, s->msize);
	if (p9_str_eq(&version, "9P2000.L")) {
		p9_put_cstr(&m->out, "9P2000.L");
	} else {
		p9_put_cstr(&m->out, "unknown");
		s->msize = 0;
	}
	return 0;
}

/*
 * Accepted anames: empty, "/", the share path as given or canonical (what
 * diod's tools and diodmount send), and "ctl", the name diod's load and
 * monitoring tools hard-code; the share is the only tree served, so every
 * accepted name means its root. Anything else names an export we do not
 * have.
 */
static bool aname_ok(const struct p9_server *srv, const struct p9_str *a)
{
	size_t n = a->len;

	if (n == 0 || p9_str_eq(a, "/") || p9_str_eq(a, "ctl"))
		return true;
	/* Tolerate one trailing slash on the share path. */
	if (n > 1 && a->s[n - 1] == '/')
		n--;
	struct p9_str trimmed = { a->s, (uint16_t)n };
	return p9_str_eq(&trimmed, srv->root_path) || p9_str_eq(&trimmed, srv->root_real);
}

static int op_attach(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t fid = p9_get_u32(&m->in);
	struct p9_str uname, aname;
	const struct p9_user *u;
	struct p9_fid *f;
	struct p9_qid qid;
	struct stat st;
	uid_t uid;
	int err;

	p9_get_u32(&m->in); /* afid: Tauth never succeeds, so it carries nothing */
	p9_get_str(&m->in, &uname);
	p9_get_str(&m->in, &aname);
	uint32_t n_uname = p9_get_u32(&m->in);
	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (!aname_ok(s->srv, &aname))
		return -ENOENT;
	/*
	 * Only root may act as someone else: a local process that can reach
	 * the socket must not become root (or anyone) by naming them.
	 */
	uid = p9_attach_uid(n_uname, &uname);
	if (s->peer_known && s->peer_uid != 0 && uid != s->peer_uid)
		return -EPERM;
	u = p9_user_get(s, uid);
	if (!u)
		return -EUSERS;
	err = p9_creds_for(u, u->gid);
	if (err)
		return err;
	err = p9_qid_of_fd(s, s->srv->root_fd, &qid, &st);
	if (err)
		return err;
	err = p9_fid_new(s, fid, &f);
	if (err)
		return err;
	f->pfd = p9_fd_dup(s, s->srv->root_fd);
	if (f->pfd < 0) {
		err = f->pfd;
		p9_fid_clunk(s, fid);
		return err;
	}
	f->mode = st.st_mode;
	f->user = u;
	p9_put_qid(&m->out, &qid);
	return 0;
}

static int op_flush(struct p9_msg *m)
{
	uint16_t oldtag = p9_get_u16(&m->in);

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	/* A parked lock is cancelled; Rflush follows its Rlerror(EINTR). */
	int r = p9_lock_flush(m, oldtag);
	if (r)
		return r;
	/* An I/O in flight cannot be recalled: Rflush follows its reply. */
	return p9_aio_flush(m, oldtag);
}

static int op_clunk(struct p9_msg *m)
{
	uint32_t fid = p9_get_u32(&m->in);
	struct p9_fid *f;
	int err = 0;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get(m->s, fid);
	if (!f)
		return -EBADF;
	if (f->kind == P9_FID_XWRITE)
		err = p9_xattr_commit(m->s, f);
	p9_fid_clunk(m->s, fid);
	return err;
}

typedef int p9_op_fn(struct p9_msg *m);

static p9_op_fn *const ops[256] = {
	[P9_TVERSION] = op_version,
	[P9_TATTACH] = op_attach,
	[P9_TFLUSH] = op_flush,
	[P9_TCLUNK] = op_clunk,
	[P9_TWALK] = p9_op_walk,
	[P9_TGETATTR] = p9_op_getattr,
	[P9_TSETATTR] = p9_op_setattr,
	[P9_TSTATFS] = p9_op_statfs,
	[P9_TREADLINK] = p9_op_readlink,
	[P9_TLOPEN] = p9_op_lopen,
	[P9_TLCREATE] = p9_op_lcreate,
	[P9_TREAD] = p9_op_read,
	[P9_TWRITE] = p9_op_write,
	[P9_TFSYNC] = p9_op_fsync,
	[P9_TREADDIR] = p9_op_readdir,
	[P9_TMKDIR] = p9_op_mkdir,
	[P9_TMKNOD] = p9_op_mknod,
	[P9_TSYMLINK] = p9_op_symlink,
	[P9_TLINK] = p9_op_link,
	[P9_TRENAME] = p9_op_rename,
	[P9_TRENAMEAT] = p9_op_renameat,
	[P9_TUNLINKAT] = p9_op_unlinkat,
	[P9_TREMOVE] = p9_op_remove,
	[P9_TXATTRWALK] = p9_op_xattrwalk,
	[P9_TXATTRCREATE] = p9_op_xattrcreate,
	[P9_TLOCK] = p9_op_lock,
	[P9_TGETLOCK] = p9_op_getlock,
};

/* Copies the message in (only the fixed header for Twrite) and checks framing. */
static int parse_frame(struct p9_msg *m, size_t total)
{
	struct p9_session *s = m->s;
	uint32_t limit = s->msize ? s->msize : s->max_msg;
	size_t want;

	if (m->size != total)
		return -EINVAL;      /* the size field disagrees with the buffer */
	if (m->size > limit)
		return -EMSGSIZE;
	want = m->type == P9_TWRITE && m->size >= P9_TWRITE_HDRSZ ? P9_TWRITE_HDRSZ : m->size;
	/* guest: copied before parsing, so it cannot change underneath us */
	fs_iov_read(m->req->in, m->req->nin, 0, s->scratch, want);
	p9_rbuf_init(&m->in, s->scratch + P9_HDRSZ, want - P9_HDRSZ);
	return 0;
}

static int handle(struct p9_session *s, struct fs_req *req, const struct fs_transport *t)
{
	uint8_t hdr[P9_HDRSZ];
	struct p9_msg m = { .s = s, .req = req, .t = t, .tag = P9_NOTAG };
	size_t total = fs_iov_len(req->in, req->nin);
	size_t outcap = fs_iov_len(req->out, req->nout);
	struct p9_rbuf r;
	int ret;

	if (total < P9_HDRSZ) {
		ret = -EINVAL;
		goto reply;
	}
	fs_iov_read(req->in, req->nin, 0, hdr, sizeof(hdr)); /* guest */
	p9_rbuf_init(&r, hdr, sizeof(hdr));
	m.size = p9_get_u32(&r);
	m.type = p9_get_u8(&r);
	m.tag = p9_get_u16(&r);
	ret = parse_frame(&m, total);
	if (ret == 0)  /* not one host call for a client with more than a passthrough needs */
		ret = fs_caps_limit_once();
	if (ret)
		goto reply;
	if (outcap > s->max_msg)
		outcap = s->max_msg;
	if (s->msize && outcap > s->msize)
		outcap = s->msize;
	if (outcap < P9_HDRSZ + 4) {
		ret = -ERANGE;
		goto reply;
	}
	p9_wbuf_init(&m.out, s->reply + P9_HDRSZ, outcap - P9_HDRSZ);
	if (m.type == P9_TAUTH) {
		/* No authentication: diod's clients read ENOENT as "not required". */
		ret = -ENOENT;
	} else if (!ops[m.type] || (m.type & 1)) {
		ret = -EOPNOTSUPP;
	} else if (!s->msize && m.type != P9_TVERSION) {
		ret = -EPROTO;       /* Tversion must come first */
	} else {
		if (m.type != P9_TVERSION && m.type != P9_TATTACH && m.type != P9_TFLUSH) {
			/* Every other T-message starts with the fid it acts on. */
			struct p9_rbuf peek = m.in;
			struct p9_fid *f = p9_fid_get(s, p9_get_u32(&peek));
			if (f && f->user)
				ret = p9_creds_for(f->user, f->user->gid);
		}
		if (ret == 0)
			ret = ops[m.type](&m);
	}
reply:
	if (ret == FS_REQ_DEFERRED)
		return FS_REQ_DEFERRED;
	if (ret == 0 && m.direct_len)
		return (int)m.direct_len;
	if (ret == 0 && p9_wbuf_error(&m.out))
		ret = -ERANGE;
	if (ret < 0)
		return (int)p9_reply_error(req, m.tag, ret);
	uint32_t len = (uint32_t)(P9_HDRSZ + m.out.pos);
	p9_put_hdr(s->reply, len, (uint8_t)(m.type + 1), m.tag);
	fs_iov_write(req->out, req->nout, 0, s->reply, len);
	return (int)len;
}

/* --log-level trace: apart, so that the untraced path carries none of it. */
__attribute__((noinline))
static int handle_traced(struct p9_session *s, struct fs_req *req, const struct fs_transport *t)
{
	struct p9_trace_head h;
	uint64_t t0;
	int r;

	/* Before: a deferred message may be finished and freed by another thread. */
	p9_trace_head(req, &h);
	t0 = fs_log_now_us();
	r = handle(s, req, t);
	p9_trace_request(&h, r == FS_REQ_DEFERRED ? NULL : req, r, t0);
	return r;
}

int p9_handle(struct p9_session *s, struct fs_req *req, const struct fs_transport *t)
{
	if (fs_log_tracing())
		return handle_traced(s, req, t);
	return handle(s, req, t);
}
