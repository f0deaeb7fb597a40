// SPDX-License-Identifier: GPL-2.0-only
/*
 * READ and WRITE: the data path. No locks: a handle is pinned with one
 * atomic reference, data moves straight between the file and the
 * transport's iovecs (no bounce buffer), and both take fs/fs_io.h's
 * ladder: preadv2/pwritev2 with RWF_NOWAIT first, which the page cache
 * answers at plain-call cost; what would block goes to the transport's
 * io_uring (when it offers one) and the request completes later through
 * its callback; without one the call blocks.
 */
#include "fs/fuse/fuse_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "fs/fs_io.h"

#define RW_MAX_IOV 1024 /* UIO_MAXIOV */
#define RW_MAX_SIZE (16u << 20)

/* A READ or WRITE gone to the transport's io_uring. */
struct fuse_aio {
	struct fs_aio aio;      /* first: the ladder hands it back */
	struct fuse_server *srv;
	struct fs_req *req;
	struct fs_transport t;
	struct fuse_handle *h;  /* the request's reference, until done */
	uint64_t unique;
	bool is_write;
	struct iovec iov[];
};
_Static_assert(offsetof(struct fuse_aio, aio) == 0, "the ladder hands back the aio");

/* The answer to a READ (payload already in place) or a WRITE of n bytes. */
static int rw_reply(const struct fs_req *req, uint64_t unique, bool is_write, size_t n)
{
	struct fuse_write_out out = { .size = (uint32_t)n };

	if (!is_write)
		return fuse_reply_hdr(req, unique, n);
	fs_iov_write(req->out, req->nout, sizeof(struct fuse_out_header), &out, sizeof(out));
	return fuse_reply_hdr(req, unique, sizeof(out));
}

/* On the transport's thread: the io_uring part finished. */
static void aio_done(struct fs_aio *fa, ssize_t res)
{
	struct fuse_aio *a = (struct fuse_aio *)fa;
	size_t outcap = fs_iov_len(a->req->out, a->req->nout);
	int len = res < 0 ? fuse_reply_err(a->req, outcap, a->unique, (int)res)
			  : rw_reply(a->req, a->unique, a->is_write, (size_t)res);

	fuse_handle_put(&a->srv->ht, a->h, &a->srv->it);
	a->t.complete(a->t.ctx, a->req, (uint32_t)len);
	free(a);
}

struct rw_call {
	struct fuse_call *c;
	struct fuse_handle *h;
	bool is_write;
};

/* The request's handle reference goes with the record. */
static struct fs_aio *aio_get(void *ctx, unsigned n)
{
	struct rw_call *rc = ctx;
	struct fuse_aio *a = malloc(sizeof(*a) + (size_t)n * sizeof(struct iovec));

	if (!a)
		return NULL;
	*a = (struct fuse_aio){
		.aio = { .done = aio_done, .iov = a->iov },
		.srv = rc->c->srv, .req = rc->c->req, .t = *rc->c->t, .h = rc->h,
		.unique = rc->c->h.unique, .is_write = rc->is_write,
	};
	return &a->aio;
}

static void aio_put(void *ctx, struct fs_aio *a)
{
	free(a);
}

/* Moves the data of a READ or WRITE; the reply, or FS_REQ_DEFERRED. */
static int rw(struct fuse_call *c, struct fuse_handle *h, bool is_write, uint64_t off,
	      struct iovec *iov, unsigned n)
{
	struct rw_call rc = { c, h, is_write };
	const struct fs_aio_alloc alloc = { aio_get, aio_put, &rc };
	struct fs_io io = {
		.is_write = is_write, .whole = true, .fd = h->fd, .off = off, .iov = iov, .n = n,
		.nowait_blocks = c->srv->params.test_nowait_blocks,
		.nowait_off = &h->nowait_off[is_write],
	};
	size_t moved;
	int r = fs_io_run(&io, c->t, &alloc, &moved);

	if (r == FS_REQ_DEFERRED)
		return r;  /* the handle reference went with it */
	if (r == 0)
		r = rw_reply(c->req, c->h.unique, is_write, moved);
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	return r;
}

int fuse_op_read(struct fuse_call *c)
{
	struct fuse_read_in in;
	struct iovec iov[RW_MAX_IOV];
	size_t hl = sizeof(struct fuse_out_header), size;
	struct fuse_handle *h;
	int k;

	memcpy(&in, c->arg, sizeof(in));
	if (in.offset > (uint64_t)INT64_MAX || c->outcap < hl)
		return -EINVAL;
	h = fuse_handle_get(&c->srv->ht, in.fh);
	if (!h)
		return -EBADF;
	size = in.size;
	if (size > c->outcap - hl)
		size = c->outcap - hl;
	if (size > RW_MAX_SIZE)
		size = RW_MAX_SIZE;
	k = (int)fs_iov_slice(c->req->out, c->req->nout, hl, size, iov, RW_MAX_IOV, NULL);
	if (fs_iov_len(iov, (unsigned)k) == 0) {
		fuse_handle_put(&c->srv->ht, h, &c->srv->it);
		return fuse_reply_hdr(c->req, c->h.unique, 0);
	}
	return rw(c, h, false, in.offset, iov, (unsigned)k);
}

int fuse_op_write(struct fuse_call *c)
{
	struct fuse_write_in in;
	struct iovec iov[RW_MAX_IOV];
	size_t at = sizeof(struct fuse_in_header) + sizeof(in);
	struct fuse_handle *h;
	int k, r;

	memcpy(&in, c->arg, sizeof(in));
	if (in.size != c->arglen - sizeof(in) || in.size > RW_MAX_SIZE ||
	    in.offset > (uint64_t)INT64_MAX - in.size ||
	    c->outcap < sizeof(struct fuse_out_header) + sizeof(struct fuse_write_out))
		return -EINVAL;
	/* guest: the payload is written straight from req->in */
	k = (int)fs_iov_slice(c->req->in, c->req->nin, at, in.size, iov, RW_MAX_IOV, NULL);
	if (fs_iov_len(iov, (unsigned)k) != in.size)
		return -EINVAL; /* more pieces than one pwritev takes */
	h = fuse_handle_get(&c->srv->ht, in.fh);
	if (!h)
		return -EBADF;
	r = (h->flags & O_ACCMODE) == O_RDONLY ? -EBADF : 0;
	/* Before the data lands, as the kernel's own write would. */
	if (!r && c->srv->killpriv_v2 && (in.write_flags & FUSE_WRITE_KILL_SUIDGID))
		r = fuse_kill_suidgid(h->fd);
	if (r) {
		fuse_handle_put(&c->srv->ht, h, &c->srv->it);
		return r;
	}
	if (in.size == 0) {
		fuse_handle_put(&c->srv->ht, h, &c->srv->it);
		return rw_reply(c->req, c->h.unique, true, 0);
	}
	return rw(c, h, true, in.offset, iov, (unsigned)k);
}
