// SPDX-License-Identifier: GPL-2.0-only
/*
 * POSIX record locks: Tlock, Tgetlock, and the parking of blocking locks.
 *
 * Locks are open-file-description (OFD) locks on the fid's open file, so
 * they belong to the client's fid, conflict with every other fid and with
 * POSIX locks taken by host processes, and vanish when the fid's file is
 * closed, just as a process's locks vanish with the process.
 *
 * A blocking lock that conflicts is parked (see p9_server.h for why, and
 * fs/fs_park.h for how): a helper thread waits in F_OFD_SETLKW on a dup of
 * the fid's open file (same description, so the lock is still the fid's)
 * and completes the request through the transport. Tflush cancels it and
 * is itself answered by the helper, right after the Rlerror(EINTR) of the
 * lock it flushed. The dups are charged to the fd budget and the waiter
 * (its record and its helper's stack) to the session's byte budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/9p/p9_impl.h"

struct p9_parked {
	struct fs_park park; /* first: fs_park frees the record */
	struct p9_session *s;
	struct fs_req *req;
	struct fs_transport t;
	uint16_t tag;
	struct flock fl;
};
_Static_assert(offsetof(struct p9_parked, park) == 0, "fs_park frees the record");

/*
 * A parked waiter's share of the byte budget. Past the budget (or the fd
 * budget, for its dups) the lock is answered BLOCKED, as past P9_MAX_PARKED.
 */
#define PARKED_COST (sizeof(struct p9_parked) + FS_PARK_STACK)

static int parse_lock(struct p9_rbuf *in, uint8_t type, uint64_t start, uint64_t len,
		      struct flock *fl)
{
	if (p9_rbuf_error(in))
		return -EPROTO;
	memset(fl, 0, sizeof(*fl));
	switch (type) {
	case P9_LOCK_TYPE_RDLCK: fl->l_type = F_RDLCK; break;
	case P9_LOCK_TYPE_WRLCK: fl->l_type = F_WRLCK; break;
	case P9_LOCK_TYPE_UNLCK: fl->l_type = F_UNLCK; break;
	default: return -EINVAL;
	}
	if (start > INT64_MAX || len > INT64_MAX)
		return -EINVAL;
	fl->l_whence = SEEK_SET;
	fl->l_start = (off_t)start;
	fl->l_len = (off_t)len;  /* 0 means "to the end", in both worlds */
	fl->l_pid = 0;           /* required for OFD locks */
	return 0;
}

static uint32_t lock_reply(struct fs_req *req, uint16_t tag, uint8_t status)
{
	uint8_t buf[P9_HDRSZ + 1];

	p9_put_hdr(buf, sizeof(buf), P9_RLOCK, tag);
	buf[P9_HDRSZ] = status;
	return (uint32_t)fs_iov_write(req->out, req->nout, 0, buf, sizeof(buf));
}

static int parked_wait(struct fs_park *fp, int fd)
{
	struct p9_parked *p = (struct p9_parked *)fp;

	return fcntl(fd, F_OFD_SETLKW, &p->fl) == 0 ? 0 : -errno;
}

static void parked_undo(struct fs_park *fp, int fd)
{
	struct p9_parked *p = (struct p9_parked *)fp;
	struct flock un = p->fl;

	un.l_type = F_UNLCK;
	fcntl(fd, F_OFD_SETLK, &un);
}

static void parked_answer(struct fs_park *fp, int err)
{
	struct p9_parked *p = (struct p9_parked *)fp;
	uint32_t len = err ? p9_reply_error(p->req, p->tag, err)
			   : lock_reply(p->req, p->tag, P9_LOCK_SUCCESS);

	p->t.complete(p->t.ctx, p->req, len);
	p9_mem_refund(p->s, PARKED_COST);
}

static const struct fs_park_ops parked_ops = {
	.wait = parked_wait,
	.undo = parked_undo,
	.answer = parked_answer,
};

/* Hands a conflicting blocking lock to a helper; false when it could not. */
static bool park(struct p9_msg *m, int fd, const struct flock *fl)
{
	struct p9_session *s = m->s;
	struct p9_parked *p;
	int dfd;

	if (!m->t || !m->t->complete)
		return false;
	if (p9_mem_charge(s, PARKED_COST))
		return false;
	p = calloc(1, sizeof(*p));
	dfd = p ? p9_fd_dup(s, fd) : -ENOMEM;
	if (dfd < 0)
		goto fail;
	p->park.ops = &parked_ops;
	p->park.key = m->tag;
	p->s = s;
	p->req = m->req;
	p->t = *m->t;
	p->tag = m->tag;
	p->fl = *fl;
	if (fs_park_start(&s->parked, &p->park, dfd) == 0)
		return true;
	p9_fd_close(s, dfd);
fail:
	free(p);
	p9_mem_refund(s, PARKED_COST);
	return false;
}

int p9_op_lock(struct p9_msg *m)
{
	uint32_t fid = p9_get_u32(&m->in);
	uint8_t type = p9_get_u8(&m->in);
	uint32_t flags = p9_get_u32(&m->in);
	uint64_t start = p9_get_u64(&m->in);
	uint64_t len = p9_get_u64(&m->in);
	struct p9_str client;
	struct p9_fid *f;
	struct flock fl;
	int err;

	p9_get_u32(&m->in); /* proc_id: the owner is the fid, not a guest pid */
	p9_get_str(&m->in, &client);
	err = parse_lock(&m->in, type, start, len, &fl);
	if (err)
		return err;
	f = p9_fid_get_open(m->s, fid, &err);
	if (!f)
		return err;
	if (fcntl(f->ofd, F_OFD_SETLK, &fl) == 0) {
		p9_put_u8(&m->out, P9_LOCK_SUCCESS);
		return 0;
	}
	if (errno != EAGAIN && errno != EACCES)
		return -errno;
	if ((flags & P9_LOCK_FLAGS_BLOCK) && park(m, f->ofd, &fl))
		return FS_REQ_DEFERRED;
	/* Non-blocking, or no room to park: the client retries on BLOCKED. */
	p9_put_u8(&m->out, P9_LOCK_BLOCKED);
	return 0;
}

int p9_op_getlock(struct p9_msg *m)
{
	uint32_t fid = p9_get_u32(&m->in);
	uint8_t type = p9_get_u8(&m->in);
	uint64_t start = p9_get_u64(&m->in);
	uint64_t len = p9_get_u64(&m->in);
	uint32_t proc_id = p9_get_u32(&m->in);
	struct p9_str client;
	struct p9_fid *f;
	struct flock fl;
	int err;

	p9_get_str(&m->in, &client);
	err = parse_lock(&m->in, type, start, len, &fl);
	if (err)
		return err;
	f = p9_fid_get_open(m->s, fid, &err);
	if (!f)
		return err;
	/* Linux's v9fs always asks with type UNLCK (posix_test_lock has
	 * already overwritten the caller's type), which F_OFD_GETLK refuses
	 * with EINVAL: probe for a write lock, which every lock conflicts
	 * with. */
	if (fl.l_type == F_UNLCK)
		fl.l_type = F_WRLCK;
	if (fcntl(f->ofd, F_OFD_GETLK, &fl) < 0)
		return -errno;
	if (fl.l_type == F_UNLCK) {
		p9_put_u8(&m->out, P9_LOCK_TYPE_UNLCK);
		p9_put_u64(&m->out, start);
		p9_put_u64(&m->out, len);
		p9_put_u32(&m->out, proc_id);
		p9_put_str(&m->out, client.s, client.len);
		return 0;
	}
	/* A conflicting lock: its owner is the host's or another fid's, unnamed. */
	p9_put_u8(&m->out, fl.l_type == F_RDLCK ? P9_LOCK_TYPE_RDLCK : P9_LOCK_TYPE_WRLCK);
	p9_put_u64(&m->out, (uint64_t)fl.l_start);
	p9_put_u64(&m->out, (uint64_t)fl.l_len);
	p9_put_u32(&m->out, (uint32_t)fl.l_pid);
	p9_put_str(&m->out, "", 0);
	return 0;
}

/*
 * Tflush of a parked lock: FS_REQ_DEFERRED, its helper sends Rflush right
 * after the lock's Rlerror(EINTR). 0 when nothing is parked under oldtag,
 * or when the transport takes no deferred answer: then the lock has been
 * answered when this returns.
 */
int p9_lock_flush(struct p9_msg *m, uint16_t oldtag)
{
	struct p9_session *s = m->s;
	uint8_t buf[P9_HDRSZ];

	if (!m->t || !m->t->complete) {
		fs_park_cancel_wait(&s->parked, oldtag);
		return 0;
	}
	p9_put_hdr(buf, sizeof(buf), P9_RFLUSH, m->tag);
	struct fs_park_follow f = {
		.req = m->req, .t = *m->t,
		.len = (uint32_t)fs_iov_write(m->req->out, m->req->nout, 0, buf, sizeof(buf)),
	};
	/* Tags are reused, so one not parked is not remembered. */
	return fs_park_cancel(&s->parked, oldtag, &f, false) ? FS_REQ_DEFERRED : 0;
}

int p9_lock_init(struct p9_session *s)
{
	return fs_park_set_init(&s->parked, P9_MAX_PARKED);
}

void p9_lock_cancel_all(struct p9_session *s)
{
	fs_park_cancel_all(&s->parked);
}

void p9_lock_fini(struct p9_session *s)
{
	fs_park_set_fini(&s->parked);
}
