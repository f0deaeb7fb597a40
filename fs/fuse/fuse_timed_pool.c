// SPDX-License-Identifier: GPL-2.0-only
/*
 * The helpers of requests with a deadline (fuse_timed_int.h): at most
 * FUSE_TIMED_HELPERS threads that take queued jobs, class a device seen
 * the first time, run the handler on the job's copies, and send its reply
 * when in time or give back what a late one handed out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread.h"
#include "fs/fuse/fuse_timed_int.h"

static void *helper_main(void *arg);

/* Under tm->mu (fuse_timed_int.h). */
void timed_wake_helper(struct fuse_timed *tm)
{
	pthread_attr_t attr;
	pthread_t th;

	if (tm->nidle >= tm->nqueued) {
		pthread_cond_signal(&tm->work);
		return;
	}
	if (tm->nhelpers >= FUSE_TIMED_HELPERS)
		return; /* the deadline answers what waits too long */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (fs_thread_create(&th, &attr, FS_ROLE_TIMED_CALL, helper_main, tm) == 0)
		tm->nhelpers++;
	pthread_attr_destroy(&attr);
}

/*
 * The client was told EIO, so it never learnt what a late reply handed
 * out: give back the lookup counts and open files that reply names.
 */
static void undo(struct fuse_server *s, const struct timed_job *j, uint32_t len)
{
	const uint8_t *p = j->bout.iov_base;
	struct fuse_out_header oh;
	struct fuse_entry_out e;
	struct fuse_open_out o;
	size_t hl = sizeof(oh);

	if (len < hl)
		return;
	memcpy(&oh, p, hl);
	if (oh.error || oh.len > len)
		return;
	switch (j->opcode) {
	case FUSE_LOOKUP: case FUSE_MKDIR: case FUSE_MKNOD: case FUSE_SYMLINK: case FUSE_LINK:
	case FUSE_CREATE: case FUSE_TMPFILE:
		if (len < hl + sizeof(e))
			return;
		memcpy(&e, p + hl, sizeof(e));
		if (e.nodeid)
			fuse_inode_forget(&s->it, e.nodeid, 1);
		if (j->opcode != FUSE_CREATE && j->opcode != FUSE_TMPFILE)
			return;
		hl += sizeof(e);
		/* CREATE opened a file too */
		__attribute__((fallthrough));
	case FUSE_OPEN: case FUSE_OPENDIR:
		if (len < hl + sizeof(o))
			return;
		memcpy(&o, p + hl, sizeof(o));
		fuse_handle_release(&s->ht, o.fh, &s->it);
		return;
	case FUSE_READDIRPLUS:
		/* Every entry with a nodeid counted a lookup. */
		for (size_t off = hl; off + sizeof(struct fuse_direntplus) <= len;) {
			struct fuse_direntplus dp;

			memcpy(&dp, p + off, sizeof(dp));
			if (dp.entry_out.nodeid)
				fuse_inode_forget(&s->it, dp.entry_out.nodeid, 1);
			off += FUSE_DIRENTPLUS_SIZE(&dp);
			if (dp.dirent.namelen == 0)
				break;
		}
		return;
	}
}

/* Under tm->mu: j leaves the running list. */
static void unlist_running(struct fuse_timed *tm, struct timed_job *j)
{
	for (struct timed_job **pp = &tm->running; *pp; pp = &(*pp)->next) {
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	}
}

/* The handler's reply is in j's bounce buffer: send it, or undo it if late. */
static void job_done(struct fuse_timed *tm, struct timed_job *j, uint32_t len)
{
	struct timed_dev *d;
	bool late, gone;

	pthread_mutex_lock(&tm->mu);
	late = j->answered;
	j->answered = true;
	unlist_running(tm, j);
	gone = j->epoch != tm->epoch;
	d = timed_dev_find(tm, j->dev, false);
	/* It answered after all (late or in time): the device is alive. */
	if (d && (late || j->probe)) {
		d->fenced = false;
		d->probing = false;
	}
	tm->bytes -= j->bytes;
	pthread_cond_broadcast(&tm->gone);
	/* The last one: the watcher, asleep until its deadline, may go now. */
	if (!tm->qhead && !tm->running)
		pthread_cond_signal(&tm->tick);
	pthread_mutex_unlock(&tm->mu);
	if (!late) {
		fs_iov_write(j->req->out, j->req->nout, 0, j->bout.iov_base, len);
		j->t.complete(j->t.ctx, j->req, len);
	} else if (!gone) {
		undo(tm->srv, j, len);
	}
	free(j);
}

/* A handler on a helper deferred after all: its completion comes here. */
static void helper_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	struct timed_job *j = req->cookie;

	job_done(ctx, j, len);
}

/* A device seen the first time: ask its type, on the helper (it may hang). */
static void classify(struct fuse_timed *tm, struct timed_job *j)
{
	struct fuse_server *s = tm->srv;
	struct fuse_in_header h;
	struct fuse_inode *ino;
	struct fuse_ifd f;
	struct timed_dev *d;
	enum dev_class cls = DEV_REMOTE;
	uint64_t nodeid;
	dev_t dev;

	pthread_mutex_lock(&tm->mu);
	d = timed_dev_find(tm, j->dev, false);
	bool known = !d || d->cls != DEV_UNKNOWN;
	pthread_mutex_unlock(&tm->mu);
	memcpy(&h, j->data, sizeof(h));
	if (known || !timed_inode_of(s, &h, &j->breq, &nodeid, &dev) || dev != j->dev)
		return; /* a mount point's lookup: its device is asked by its own requests */
	ino = fuse_inode_get(&s->it, nodeid);
	if (!ino)
		return;
	if (fuse_inode_fd(&s->it, ino, &f) == 0) {
		cls = timed_class_of_fd(f.fd);
		fuse_inode_fd_put(&f);
	}
	fuse_inode_put(&s->it, ino);
	pthread_mutex_lock(&tm->mu);
	d = timed_dev_find(tm, j->dev, false);
	if (d)
		d->cls = cls;
	pthread_mutex_unlock(&tm->mu);
}

static void *helper_main(void *arg)
{
	struct fuse_timed *tm = arg;
	const struct fs_transport bt = { .complete = helper_complete, .ctx = tm };

	(void)pthread_setname_np(pthread_self(), "timed-call");
	pthread_mutex_lock(&tm->mu);
	for (;;) {
		struct timed_job *j = tm->qhead;

		if (!j) {
			struct timespec until = abs_of(now_ns() + 1000000000u);
			int w;

			/* Idle a second for the next one, then go: no thread outlives its work. */
			if (tm->stopping)
				break;
			tm->nidle++;
			w = pthread_cond_timedwait(&tm->work, &tm->mu, &until);
			tm->nidle--;
			if (w && !tm->qhead)
				break;
			continue;
		}
		tm->qhead = j->next;
		if (!tm->qhead)
			tm->qtail = NULL;
		tm->nqueued--;
		j->running = true;
		j->next = tm->running;
		tm->running = j;
		pthread_mutex_unlock(&tm->mu);

		classify(tm, j);
		int r = tm->handle(tm->srv, &j->breq, &bt);
		if (r != FS_REQ_DEFERRED)
			job_done(tm, j, r > 0 ? (uint32_t)r : 0);
		pthread_mutex_lock(&tm->mu);
	}
	tm->nhelpers--;
	pthread_cond_broadcast(&tm->gone);
	pthread_mutex_unlock(&tm->mu);
	return NULL;
}
