// SPDX-License-Identifier: GPL-2.0-only
/*
 * POSIX record locks: Tlock, Tgetlock, and the parking of blocking locks.
 *
 * Locks are open-file-description (OFD) locks on the fid's open file, so
 * they belong to the client's fid, conflict with every other fid and with
 * POSIX locks taken by host processes, and vanish when the fid's file is
 * closed, just as a process's locks vanish with the process.
 *
 * A blocking lock that conflicts is parked (see p9_server.h for why):
 * a helper thread waits in F_OFD_SETLKW on a dup of the fid's open file
 * (same description, so the lock is still the fid's) and completes the
 * request through the transport. Tflush sets the request's cancel flag
 * and signals the helper until it has answered, then returns. The dup is
 * charged to the fd budget and the waiter to the session's byte budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs/9p/p9_impl.h"
#include "fs/creds.h"
#include "fs/fs_thread.h"

struct p9_parked {
	struct p9_parked *next;
	struct p9_session *s;
	struct fs_req *req;
	const struct fs_transport *t;
	uint16_t tag;
	int fd;
	struct flock fl;
	pthread_t thr;
	atomic_bool cancel;
};

/*
 * A parked waiter's share of the byte budget: its record and its helper's
 * stack. Past the budget (or the fd budget, for its dup) the lock is
 * answered BLOCKED, as past P9_MAX_PARKED.
 */
#define PARK_STACK (64u * 1024)
#define PARKED_COST (sizeof(struct p9_parked) + PARK_STACK)

static void cancel_handler(int sig)
{
	(void)sig;  /* only here to make a blocked fcntl return EINTR */
}

static pthread_once_t signal_once = PTHREAD_ONCE_INIT;

static void install_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cancel_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;  /* no SA_RESTART: the wait must be interrupted */
	sigaction(P9_CANCEL_SIGNAL, &sa, NULL);
}

void p9_lock_init_signal(void)
{
	pthread_once(&signal_once, install_handler);
}

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

static void *park_thread(void *arg)
{
	struct p9_parked *p = arg;
	struct p9_session *s = p->s;
	sigset_t set;
	uint32_t len;
	/* Its parker's limit is inherited; this holds even if that changed. */
	int err = fs_caps_limit();

	(void)pthread_setname_np(pthread_self(), "lock-wait");

	sigemptyset(&set);
	sigaddset(&set, P9_CANCEL_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (!err) {
		/* Checked before each wait: a signal sent before fcntl is lost. */
		if (atomic_load(&p->cancel)) {
			err = -EINTR;
			break;
		}
		if (fcntl(p->fd, F_OFD_SETLKW, &p->fl) == 0)
			break;
		if (errno != EINTR) {
			err = -errno;
			break;
		}
	}
	len = err ? p9_reply_error(p->req, p->tag, err) : lock_reply(p->req, p->tag, P9_LOCK_SUCCESS);
	p->t->complete(p->t->ctx, p->req, len);
	p9_fd_close(p->fd);
	pthread_mutex_lock(&s->lock);
	for (struct p9_parked **pp = &s->parked; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	s->nparked--;
	pthread_cond_broadcast(&s->cond);
	p9_mem_refund(s, PARKED_COST);
	pthread_mutex_unlock(&s->lock);
	free(p);
	return NULL;
}

/* Hands a conflicting blocking lock to a helper; 0 when it could not. */
static int park(struct p9_msg *m, int fd, const struct flock *fl)
{
	struct p9_session *s = m->s;
	struct p9_parked *p;
	pthread_attr_t attr;
	int err;

	if (!m->t || !m->t->complete)
		return 0;
	if (p9_mem_charge(s, PARKED_COST))
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p) {
		p9_mem_refund(s, PARKED_COST);
		return 0;
	}
	p->s = s;
	p->req = m->req;
	p->t = m->t;
	p->tag = m->tag;
	p->fl = *fl;
	atomic_init(&p->cancel, false);
	p->fd = p9_fd_dup(fd);
	if (p->fd < 0) {
		free(p);
		p9_mem_refund(s, PARKED_COST);
		return 0;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, PARK_STACK);
	pthread_mutex_lock(&s->lock);
	if (s->nparked >= P9_MAX_PARKED) {
		err = EBUSY;
	} else {
		p->next = s->parked;
		s->parked = p;
		s->nparked++;
		err = -fs_thread_create(&p->thr, &attr, FS_ROLE_LOCK_WAIT, park_thread, p);
		if (err) {
			s->parked = p->next;
			s->nparked--;
		}
	}
	pthread_mutex_unlock(&s->lock);
	pthread_attr_destroy(&attr);
	if (err) {
		p9_fd_close(p->fd);
		free(p);
		p9_mem_refund(s, PARKED_COST);
		return 0;
	}
	return 1;
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

static bool still_parked(struct p9_session *s, struct p9_parked *p)
{
	for (struct p9_parked *q = s->parked; q; q = q->next)
		if (q == p)
			return true;
	return false;
}

/* Caller holds s->lock. Signals p's helper until it has answered and gone. */
static void cancel_wait(struct p9_session *s, struct p9_parked *p)
{
	atomic_store(&p->cancel, true);
	while (still_parked(s, p)) {
		struct timespec ts;
		pthread_kill(p->thr, P9_CANCEL_SIGNAL);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->cond, &s->lock, &ts);
	}
}

int p9_lock_flush(struct p9_session *s, uint16_t oldtag)
{
	int found = 0;

	pthread_mutex_lock(&s->lock);
	for (struct p9_parked *p = s->parked; p; p = p->next) {
		if (p->tag == oldtag) {
			cancel_wait(s, p);
			found = 1;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return found;
}

void p9_lock_cancel_all(struct p9_session *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->parked)
		cancel_wait(s, s->parked);
	pthread_mutex_unlock(&s->lock);
}
