// SPDX-License-Identifier: GPL-2.0-only
/*
 * Requests with a deadline (see fuse_timed.h): which requests take a
 * helper (the device they are on, a mount point they name), the fence's
 * EIO at once, set-up, reset and teardown. The devices are in
 * fuse_timed_dev.c, the helpers in fuse_timed_pool.c, the deadline in
 * fuse_timed_watch.c.
 */
#include "fs/fuse/fuse_timed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fuse/fuse_timed_int.h"

int fuse_timed_init(struct fuse_server *s, unsigned timeout_sec, int root_fd, dev_t root_dev,
		    fuse_timed_handle_fn *handle, size_t max_request)
{
	struct fuse_timed *tm;

	if (!timeout_sec)
		return 0;
	tm = calloc(1, sizeof(*tm));
	if (!tm)
		return -ENOMEM;
	tm->srv = s;
	tm->handle = handle;
	tm->max_request = max_request;
	tm->timeout_ns = (uint64_t)timeout_sec * 1000000000u;
	pthread_condattr_t ca;

	/* Deadlines are on the monotonic clock: so must the timed waits be. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&tm->mu, NULL);
	pthread_cond_init(&tm->work, &ca);
	pthread_cond_init(&tm->tick, &ca);
	pthread_cond_init(&tm->gone, &ca);
	pthread_condattr_destroy(&ca);
	/* Asked now, while setting up: a share root on NFS offloads everything. */
	timed_dev_find(tm, root_dev, true)->cls = timed_class_of_fd(root_fd);
	s->timed = tm;
	return 0;
}

/* ---- which requests take a helper -------------------------------------- */

/* Never a helper: no host call on an inode, or a wait that is parked already. */
static bool never(uint32_t op)
{
	switch (op) {
	case FUSE_INIT: case FUSE_DESTROY: case FUSE_FORGET: case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT: case FUSE_SETLKW: case FUSE_REMOVEMAPPING:
		return true;
	}
	return false;
}

/*
 * Under tm->mu. A request on a local directory that holds a mount point
 * reaches the mounted device when it names the mount point (LOOKUP) or
 * stats every entry (READDIRPLUS): it is that device's request.
 */
static bool gate_dev(struct fuse_timed *tm, const struct fuse_in_header *h,
		     const struct fs_req *req, uint64_t nodeid, dev_t *dev)
{
	char name[NAME_MAX + 2];
	size_t n = 0;

	if (h->opcode == FUSE_LOOKUP) {
		n = fs_iov_read(req->in, req->nin, sizeof(*h), name, sizeof(name) - 1); /* guest */
		name[n] = 0;
	}
	for (unsigned i = 0; i < tm->ngates; i++) {
		struct timed_gate *g = &tm->gates[i];

		if (g->parent != nodeid)
			continue;
		if (h->opcode == FUSE_READDIRPLUS ||
		    (h->opcode == FUSE_LOOKUP && strcmp(g->name, name) == 0)) {
			*dev = g->dev;
			return true;
		}
	}
	return false;
}

void fuse_timed_gate(struct fuse_server *s, struct fuse_inode *parent, const char *name,
		     dev_t dev)
{
	struct fuse_timed *tm = s->timed;
	uint64_t nodeid = fuse_inode_nodeid(parent);

	if (!tm || strlen(name) > NAME_MAX)
		return;
	pthread_mutex_lock(&tm->mu);
	for (unsigned i = 0; i < tm->ngates; i++) {
		if (tm->gates[i].parent == nodeid && strcmp(tm->gates[i].name, name) == 0) {
			tm->gates[i].dev = dev;
			goto out;
		}
	}
	if (tm->ngates < FUSE_TIMED_GATES) {
		struct timed_gate *g = &tm->gates[tm->ngates++];

		g->parent = nodeid;
		g->dev = dev;
		strcpy(g->name, name);
	}
out:
	pthread_mutex_unlock(&tm->mu);
}

static int enqueue(struct fuse_timed *tm, struct fs_req *req, const struct fs_transport *t,
		   const struct fuse_in_header *h, dev_t dev, bool probe, size_t outcap)
{
	size_t inlen = h->len, cap = tm->max_request + 4096;
	size_t outlen = outcap < cap ? outcap : cap;
	struct timed_job *j;

	if (tm->nqueued >= FUSE_TIMED_QUEUED || tm->bytes + inlen + outlen > FUSE_TIMED_BYTES ||
	    tm->stopping)
		return -EIO;
	j = malloc(sizeof(*j) + inlen + outlen);
	if (!j)
		return -EIO;
	memset(j, 0, sizeof(*j));
	j->req = req;
	j->t = *t;
	j->outcap = outcap;
	fs_iov_read(req->in, req->nin, 0, j->data, inlen); /* guest: one copy, read once */
	j->bin = (struct iovec){ j->data, inlen };
	j->bout = (struct iovec){ j->data + inlen, outlen };
	j->breq = (struct fs_req){ .in = &j->bin, .nin = 1, .out = &j->bout, .nout = 1, .cookie = j };
	j->unique = h->unique;
	j->opcode = h->opcode;
	j->dev = dev;
	j->probe = probe;
	j->epoch = tm->epoch;
	j->bytes = inlen + outlen;
	j->deadline = now_ns() + tm->timeout_ns;
	tm->bytes += j->bytes;
	if (tm->qtail)
		tm->qtail->next = j;
	else
		tm->qhead = j;
	tm->qtail = j;
	tm->nqueued++;
	timed_wake_helper(tm);
	timed_wake_watcher(tm);
	pthread_cond_signal(&tm->tick);
	return FS_REQ_DEFERRED;
}

bool fuse_timed_take(struct fuse_server *s, struct fs_req *req, const struct fs_transport *t,
		     int *r)
{
	struct fuse_timed *tm = s->timed;
	struct fuse_in_header h;
	struct timed_dev *d;
	uint64_t nodeid;
	dev_t dev;
	bool probe = false;
	size_t outcap;

	if (!tm || !t || !t->complete ||
	    fs_iov_read(req->in, req->nin, 0, &h, sizeof(h)) != sizeof(h) || /* guest */
	    h.len != fs_iov_len(req->in, req->nin) || never(h.opcode) ||
	    !atomic_load_explicit(&s->initialized, memory_order_acquire) ||
	    !timed_inode_of(s, &h, req, &nodeid, &dev))
		return false; /* handle() answers what is malformed */
	outcap = fs_iov_len(req->out, req->nout);
	pthread_mutex_lock(&tm->mu);
	d = timed_dev_find(tm, dev, true);
	if (d && d->cls == DEV_LOCAL) {
		if (!gate_dev(tm, &h, req, nodeid, &dev))
			goto inline_;
		d = timed_dev_find(tm, dev, true);
		if (d && d->cls == DEV_LOCAL)
			goto inline_;
	}
	/*
	 * A RELEASE is the client's last word on a handle: refused, the
	 * handle and its fd would stay for good. It waits for a helper.
	 */
	if (d && d->fenced && h.opcode != FUSE_RELEASE && h.opcode != FUSE_RELEASEDIR) {
		uint64_t now = now_ns();

		if (d->probing || now < d->probe_at || tm->nhelpers >= FUSE_TIMED_HELPERS) {
			pthread_mutex_unlock(&tm->mu);
			*r = fuse_reply_err(req, outcap, h.unique, -EIO);
			return true;
		}
		d->probing = probe = true;
	}
	*r = enqueue(tm, req, t, &h, dev, probe, outcap);
	if (*r != FS_REQ_DEFERRED && d && probe)
		d->probing = false;
	pthread_mutex_unlock(&tm->mu);
	if (*r != FS_REQ_DEFERRED)
		*r = fuse_reply_err(req, outcap, h.unique, *r);
	return true;
inline_:
	pthread_mutex_unlock(&tm->mu);
	return false;
}

/* ---- reset and teardown ------------------------------------------------ */

void fuse_timed_reset(struct fuse_server *s)
{
	struct fuse_timed *tm = s->timed;
	uint64_t next;

	if (!tm)
		return;
	pthread_mutex_lock(&tm->mu);
	tm->epoch++;
	timed_answer_all(tm, now_ns(), true, &next);
	tm->ngates = 0;
	pthread_mutex_unlock(&tm->mu);
}

bool fuse_timed_fini(struct fuse_server *s)
{
	struct fuse_timed *tm = s->timed;
	uint64_t next;
	bool stuck;

	if (!tm)
		return true;
	pthread_mutex_lock(&tm->mu);
	tm->stopping = true;
	tm->epoch++;
	timed_answer_all(tm, now_ns(), true, &next);
	pthread_cond_broadcast(&tm->work);
	pthread_cond_broadcast(&tm->tick);
	/* Idle helpers and the watcher go at once; a stuck one may never. */
	struct timespec until = abs_of(now_ns() + 2000000000u);
	while ((tm->nhelpers || tm->watching) &&
	       pthread_cond_timedwait(&tm->gone, &tm->mu, &until) == 0)
		;
	stuck = tm->nhelpers || tm->watching;
	pthread_mutex_unlock(&tm->mu);
	if (stuck)
		return false; /* the process is ending: leave s to the stuck helper */
	pthread_mutex_destroy(&tm->mu);
	pthread_cond_destroy(&tm->work);
	pthread_cond_destroy(&tm->tick);
	pthread_cond_destroy(&tm->gone);
	free(tm);
	s->timed = NULL;
	return true;
}

unsigned fuse_timed_helpers(struct fuse_server *s)
{
	unsigned n;

	if (!s->timed)
		return 0;
	pthread_mutex_lock(&s->timed->mu);
	n = s->timed->nhelpers;
	pthread_mutex_unlock(&s->timed->mu);
	return n;
}

unsigned long fuse_timed_expired(struct fuse_server *s)
{
	unsigned long n;

	if (!s->timed)
		return 0;
	pthread_mutex_lock(&s->timed->mu);
	n = s->timed->expired;
	pthread_mutex_unlock(&s->timed->mu);
	return n;
}
