// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hub's share as requests reach it (see fuse_hub.h): holding it against
 * a detach, the client's INIT replayed before its first request, and the
 * transports its server is handed, which count the requests it has not
 * answered yet so that a detach can wait for them.
 */
#include "fs/fuse/fuse_hub_int.h"

#include <errno.h>

struct hub_share *hub_share_get(_Atomic(struct hub_share *) *at)
{
	struct hub_share *sh = atomic_load(at);

	if (!sh)
		return NULL;
	/* The pool's entries are never freed, so a stale one only counts for nothing. */
	atomic_fetch_add(&sh->calls, 1);
	if (atomic_load(at) != sh) {
		atomic_fetch_sub(&sh->calls, 1);
		return NULL;
	}
	return sh;
}

void hub_share_put(struct hub_share *sh)
{
	atomic_fetch_sub(&sh->calls, 1);
}

/* A deferred answer of the share's server: the transport's, then one less unanswered. */
static void tp_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	struct hub_tp *tp = ctx;
	const struct fs_transport *o = atomic_load(&tp->orig);

	o->complete(o->ctx, req, len);
	atomic_fetch_sub(&tp->sh->pending, 1);
}

static int tp_submit_rw(void *ctx, bool is_write, int fd, const struct iovec *iov,
			unsigned iovcnt, uint64_t offset, fs_io_done_fn *done, void *arg)
{
	const struct fs_transport *o = atomic_load(&((struct hub_tp *)ctx)->orig);

	return o->async->submit_rw(o->ctx, is_write, fd, iov, iovcnt, offset, done, arg);
}

static const struct fs_async_ops tp_async = { .submit_rw = tp_submit_rw };

/* The share's stand-in for transport t (one per queue, made on its first request). */
static const struct fs_transport *tp_for(struct hub_share *sh, const struct fs_transport *t)
{
	const struct fs_transport *got = NULL;

	if (!t)
		return NULL;
	for (unsigned i = 0; i < HUB_TPS; i++)
		if (atomic_load(&sh->tps[i].orig) == t)
			return &sh->tps[i].t;
	pthread_mutex_lock(&sh->tp_mu);
	for (unsigned i = 0; i < HUB_TPS && !got; i++) {
		struct hub_tp *tp = &sh->tps[i];
		const struct fs_transport *o = atomic_load(&tp->orig);

		if (o == t) {
			got = &tp->t;
		} else if (!o) {
			tp->sh = sh;
			tp->t = (struct fs_transport){
				.complete = t->complete ? tp_complete : NULL,
				.async = t->async && t->async->submit_rw ? &tp_async : NULL,
				.ctx = tp,
			};
			atomic_store(&tp->orig, t);
			got = &tp->t;
		}
	}
	pthread_mutex_unlock(&sh->tp_mu);
	return got;
}

/* One request to the share's server; the share is held (hub_share_get). */
static int share_handle(struct hub_share *sh, struct fs_req *req, const struct fs_transport *t)
{
	int r;

	atomic_fetch_add(&sh->pending, 1);
	r = fuse_server_handle(sh->srv, req, t);
	if (r != FS_REQ_DEFERRED)
		atomic_fetch_sub(&sh->pending, 1);
	return r;
}

/* The share first hears from the client: it gets the client's INIT, as the hub did. */
static void share_ready(struct fuse_hub *h, struct hub_share *sh)
{
	uint8_t out[sizeof(struct fuse_out_header) + sizeof(struct fuse_init_out)];
	struct iovec in_iov, out_iov = { out, sizeof(out) };
	struct fs_req req = { .in = &in_iov, .nin = 1, .out = &out_iov, .nout = 1 };

	if (atomic_load_explicit(&sh->ready, memory_order_acquire))
		return;
	pthread_mutex_lock(&sh->init_mu);
	pthread_mutex_lock(&h->init_mu);
	in_iov = (struct iovec){ h->init_req, h->init_len };
	if (!atomic_load(&sh->ready) && h->init_len) {
		(void)share_handle(sh, &req, NULL);
		atomic_store_explicit(&sh->ready, true, memory_order_release);
	}
	pthread_mutex_unlock(&h->init_mu);
	pthread_mutex_unlock(&sh->init_mu);
}

int hub_share_call(struct fuse_hub *h, struct hub_share *sh, struct fs_req *req,
		   const struct fs_transport *t)
{
	const struct fs_transport *st = tp_for(sh, t);

	if (t && !st)
		return -EBUSY;  /* more queues than stand-ins: never with a virtio-fs device */
	share_ready(h, sh);
	return share_handle(sh, req, st);
}
