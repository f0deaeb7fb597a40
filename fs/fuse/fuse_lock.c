// SPDX-License-Identifier: GPL-2.0-only
/*
 * Real locks for FUSE clients: GETLK, SETLK, SETLKW and INTERRUPT.
 *
 * POSIX locks: every (inode, lock owner) pair gets its own open file
 * description on the host, and the lock is taken on it with the OFD fcntls
 * (F_OFD_SETLK...). The host kernel then arbitrates between client owners,
 * and between them and host processes, exactly as between host processes:
 * one owner's locks merge and split across its handles, different owners
 * conflict. FLUSH (a close in the client) unlocks and closes the owner's
 * OFD, which is POSIX's "any close drops the process's locks".
 * flock: on the handle's own fd (one client open file = one host one).
 *
 * A SETLKW that cannot be granted at once is parked (fs/fs_park.h): a
 * helper thread does the blocking wait and completes the request through
 * the transport, so the queue keeps serving. INTERRUPT (or a reset)
 * cancels it and returns at once; the helper answers EINTR.
 */
#include "fs/fuse/fuse_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"

/* Parked SETLKWs per server: each holds two fds and a helper thread. */
#define MAX_WAITERS 64
#define OFFSET_MAX INT64_MAX

struct fuse_lkwait {
	struct fs_park park; /* first: fs_park frees the record */
	struct fs_req *req;
	struct fs_transport t;
	uint64_t unique;
	bool is_flock;
	int flock_op;
	struct flock fl;
};
_Static_assert(offsetof(struct fuse_lkwait, park) == 0, "fs_park frees the record");

int fuse_lock_init(struct fuse_server *s)
{
	pthread_mutex_init(&s->lock_mu, NULL);
	int r = fs_park_set_init(&s->waits, MAX_WAITERS);
	if (r)
		pthread_mutex_destroy(&s->lock_mu);
	return r;
}

void fuse_lock_fini(struct fuse_server *s)
{
	fs_park_set_fini(&s->waits);
	pthread_mutex_destroy(&s->lock_mu);
}

/*
 * A dup of owner's OFD on ino (the caller closes it), made on first use;
 * -ENOENT when absent and !create. The dup keeps a concurrent FLUSH from
 * closing the fd under us.
 */
static int owner_fd(struct fuse_server *s, struct fuse_inode *ino, uint64_t owner,
		    bool create)
{
	struct fuse_lock_owner *o;
	int fd = -ENOENT;

	pthread_mutex_lock(&s->lock_mu);
	for (o = ino->owners; o && o->owner != owner; o = o->next)
		;
	if (!o && create) {
		/* The client checked the caller's access mode before asking. */
		static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY };
		struct fuse_ifd ifd;
		int ofd;

		/*
		 * Owners are client-chosen numbers: bound the fds they cost,
		 * and charge each to the budget like an open file.
		 */
		if (atomic_load(&s->it.nowners) >= s->it.max_owners ||
		    fuse_itable_charge(&s->it) < 0) {
			fd = -ENOLCK;
			goto out;
		}
		ofd = fuse_inode_fd(&s->it, ino, &ifd);
		if (ofd == 0) {
			ofd = -EACCES;
			for (unsigned i = 0; i < 3 && ofd < 0; i++)
				ofd = fuse_reopen(s, ifd.fd, modes[i]);
			fuse_inode_fd_put(&ifd);
		}
		if (ofd < 0) {
			fs_fd_refund();
			fd = ofd;
			goto out;
		}
		o = malloc(sizeof(*o));
		if (!o) {
			close(ofd);
			fs_fd_refund();
			fd = -ENOMEM;
			goto out;
		}
		o->owner = owner;
		o->fd = ofd;
		o->next = ino->owners;
		ino->owners = o;
		atomic_fetch_add(&s->it.nowners, 1);
	}
	if (o) {
		fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			fd = -errno;
	}
out:
	pthread_mutex_unlock(&s->lock_mu);
	return fd;
}

void fuse_lock_drop_owner(struct fuse_server *s, struct fuse_inode *ino, uint64_t owner)
{
	struct fuse_lock_owner **p, *o = NULL;

	pthread_mutex_lock(&s->lock_mu);
	for (p = &ino->owners; *p; p = &(*p)->next) {
		if ((*p)->owner == owner) {
			o = *p;
			*p = o->next;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock_mu);
	if (!o)
		return;
	/* Unlock explicitly: a parked waiter's dup may keep the OFD open. */
	struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET };
	fcntl(o->fd, F_OFD_SETLK, &fl);
	close(o->fd);
	fs_fd_refund();
	free(o);
	atomic_fetch_sub(&s->it.nowners, 1);
}

/* The client's lock range as a struct flock; -EINVAL when it makes no sense. */
static int to_flock(const struct fuse_file_lock *lk, struct flock *fl)
{
	if (lk->type != F_RDLCK && lk->type != F_WRLCK && lk->type != F_UNLCK)
		return -EINVAL;
	if (lk->start > (uint64_t)OFFSET_MAX || lk->end > (uint64_t)OFFSET_MAX ||
	    lk->start > lk->end)
		return -EINVAL;
	*fl = (struct flock){
		.l_type = (short)lk->type,
		.l_whence = SEEK_SET,
		.l_start = (off_t)lk->start,
		.l_len = lk->end == (uint64_t)OFFSET_MAX ? 0 : (off_t)(lk->end - lk->start + 1),
	};
	return 0;
}

int fuse_op_getlk(struct fuse_call *c)
{
	struct fuse_lk_in in;
	struct fuse_lk_out out = { 0 };
	struct fuse_handle *h;
	struct flock fl;
	int fd, r;

	memcpy(&in, c->arg, sizeof(in));
	if (in.lk_flags & FUSE_LK_FLOCK)
		return -EINVAL; /* flock has no test operation */
	r = to_flock(&in.lk, &fl);
	if (r)
		return r;
	h = fuse_handle_get(&c->srv->ht, in.fh);
	if (!h)
		return -EBADF;
	fd = owner_fd(c->srv, h->inode, in.owner, true);
	if (fd < 0) {
		r = fd;
		goto out;
	}
	r = fcntl(fd, F_OFD_GETLK, &fl) < 0 ? -errno : 0;
	close(fd);
	if (r)
		goto out;
	out.lk.type = (uint32_t)fl.l_type;
	if (fl.l_type != F_UNLCK) {
		out.lk.start = (uint64_t)fl.l_start;
		out.lk.end = fl.l_len == 0 ? (uint64_t)OFFSET_MAX
					   : (uint64_t)(fl.l_start + fl.l_len - 1);
		/* OFD holders have no pid (-1); a host process holder has one. */
		out.lk.pid = fl.l_pid > 0 ? (uint32_t)fl.l_pid : 0;
	}
	r = fuse_reply(c, &out, sizeof(out));
out:
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	return r;
}

static int lkwait_wait(struct fs_park *p, int fd)
{
	struct fuse_lkwait *w = (struct fuse_lkwait *)p;
	int k = w->is_flock ? flock(fd, w->flock_op) : fcntl(fd, F_OFD_SETLKW, &w->fl);

	return k == 0 ? 0 : -errno;
}

static void lkwait_undo(struct fs_park *p, int fd)
{
	struct fuse_lkwait *w = (struct fuse_lkwait *)p;
	struct flock un = w->fl;

	un.l_type = F_UNLCK;
	if (w->is_flock)
		flock(fd, LOCK_UN);
	else
		fcntl(fd, F_OFD_SETLK, &un);
}

static void lkwait_answer(struct fs_park *p, int r)
{
	struct fuse_lkwait *w = (struct fuse_lkwait *)p;
	size_t outcap = fs_iov_len(w->req->out, w->req->nout);
	int len = r ? fuse_reply_err(w->req, outcap, w->unique, r)
		    : fuse_reply_hdr(w->req, w->unique, 0);

	w->t.complete(w->t.ctx, w->req, (uint32_t)len);
}

static const struct fs_park_ops lkwait_ops = {
	.wait = lkwait_wait,
	.undo = lkwait_undo,
	.answer = lkwait_answer,
};

/* Hands a lock that must wait to a helper thread; takes fd. */
static int park(struct fuse_call *c, int fd, bool is_flock, int op,
		const struct flock *fl)
{
	struct fuse_server *s = c->srv;
	struct fuse_lkwait *w;
	int r;

	/* A parked wait holds its fd for as long as the client likes. */
	if (fuse_itable_charge(&s->it) < 0) {
		close(fd);
		return -ENOLCK;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		r = -ENOMEM;
		goto fail;
	}
	w->park.ops = &lkwait_ops;
	w->park.key = c->h.unique;
	w->req = c->req;
	w->t = *c->t;
	w->unique = c->h.unique;
	w->is_flock = is_flock;
	w->flock_op = op;
	if (fl)
		w->fl = *fl;
	r = fs_park_start(&s->waits, &w->park, fd);
	if (r == 0)
		return FS_REQ_DEFERRED;
	free(w);
fail:
	close(fd);
	fs_fd_refund();
	return r;
}

static int setlk(struct fuse_call *c, bool wait)
{
	struct fuse_lk_in in;
	struct fuse_handle *h;
	struct flock fl;
	int fd, r;

	memcpy(&in, c->arg, sizeof(in));
	r = to_flock(&in.lk, &fl);
	if (r)
		return r;
	/* Without a completion callback nothing can be parked: wait inline. */
	bool can_park = c->t && c->t->complete;
	h = fuse_handle_get(&c->srv->ht, in.fh);
	if (!h)
		return -EBADF;
	if (in.lk_flags & FUSE_LK_FLOCK) {
		int op = fl.l_type == F_RDLCK ? LOCK_SH : fl.l_type == F_WRLCK ? LOCK_EX : LOCK_UN;
		if (flock(h->fd, op | ((wait && !can_park) ? 0 : LOCK_NB)) == 0)
			r = 0;
		else if (errno == EWOULDBLOCK && wait)
			r = (fd = fcntl(h->fd, F_DUPFD_CLOEXEC, 0)) < 0 ? -errno :
			    park(c, fd, true, op, NULL);
		else
			r = -errno;
		goto out;
	}
	fd = owner_fd(c->srv, h->inode, in.owner, fl.l_type != F_UNLCK);
	if (fd == -ENOENT && fl.l_type == F_UNLCK) {
		r = 0; /* this owner never locked anything here */
		goto out;
	}
	if (fd < 0) {
		r = fd;
		goto out;
	}
	if (fcntl(fd, (wait && !can_park) ? F_OFD_SETLKW : F_OFD_SETLK, &fl) == 0) {
		r = 0;
	} else if ((errno == EAGAIN || errno == EACCES) && wait) {
		r = park(c, fd, false, 0, &fl);
		fd = -1;
	} else {
		r = -errno;
	}
	if (fd >= 0)
		close(fd);
out:
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	if (r == 0)
		r = fuse_reply(c, NULL, 0);
	return r;
}

int fuse_op_setlk(struct fuse_call *c)
{
	return setlk(c, false);
}

int fuse_op_setlkw(struct fuse_call *c)
{
	return setlk(c, true);
}

int fuse_op_interrupt(struct fuse_call *c)
{
	struct fuse_interrupt_in in;

	memcpy(&in, c->arg, sizeof(in));
	/*
	 * Returns at once: the helper answers EINTR. Uniques are never
	 * reused, so one not parked yet is remembered for its SETLKW,
	 * which another queue may still be handing over.
	 */
	fs_park_cancel(&c->srv->waits, in.unique, NULL, true);
	return 0;
}

void fuse_lock_cancel_all(struct fuse_server *s)
{
	fs_park_cancel_all(&s->waits);
}
