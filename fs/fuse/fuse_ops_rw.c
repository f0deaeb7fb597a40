// SPDX-License-Identifier: GPL-2.0-only
/*
 * READ and WRITE: the data path. No locks: a handle is pinned with one
 * atomic reference, data moves straight between the file and the
 * transport's iovecs (no bounce buffer). READ first tries preadv2 with
 * RWF_NOWAIT, which answers from the page cache at plain-pread cost; only
 * what would block goes to the transport's io_uring (when it offers one),
 * and the request completes later through its callback.
 */
#include "fs/fuse/fuse_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define RW_MAX_IOV 1024 /* UIO_MAXIOV */
#define RW_MAX_SIZE (16u << 20)

struct fuse_aread {
	struct fuse_server *srv;
	struct fs_req *req;
	struct fs_transport t;
	struct fuse_handle *h;
	uint64_t unique;
	uint64_t offset;
	size_t done;            /* bytes the RWF_NOWAIT try already got */
	struct iovec iov[];
};

static void iov_advance(struct iovec **iov, int *n, size_t k)
{
	while (k && *n) {
		if (k >= (*iov)->iov_len) {
			k -= (*iov)->iov_len;
			(*iov)++;
			(*n)--;
		} else {
			(*iov)->iov_base = (uint8_t *)(*iov)->iov_base + k;
			(*iov)->iov_len -= k;
			k = 0;
		}
	}
}

/* Blocking reads until want bytes, EOF or an error; returns bytes or -errno. */
static ssize_t read_rest(int fd, struct iovec *iov, int n, uint64_t off,
			 size_t done, size_t want)
{
	while (done < want && n > 0) {
		ssize_t r = preadv(fd, iov, n, (off_t)(off + done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return done ? (ssize_t)done : -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
		iov_advance(&iov, &n, (size_t)r);
	}
	return (ssize_t)done;
}

static void aread_finish(struct fuse_aread *a, ssize_t res)
{
	size_t outcap = fs_iov_len(a->req->out, a->req->nout);
	int len = res < 0 ? fuse_reply_err(a->req, outcap, a->unique, (int)res)
			  : fuse_reply_hdr(a->req, a->unique, (size_t)res);

	fuse_handle_put(&a->srv->ht, a->h, &a->srv->it);
	a->t.complete(a->t.ctx, a->req, (uint32_t)len);
	free(a);
}

/*
 * The transport's io_uring finished the read. io_uring already retries
 * short buffered reads of regular files itself, so a short count is EOF.
 */
static void aread_done(void *arg, int result)
{
	struct fuse_aread *a = arg;

	if (result < 0)
		aread_finish(a, a->done ? (ssize_t)a->done : result);
	else
		aread_finish(a, (ssize_t)(a->done + (size_t)result));
}

static int submit_async(struct fuse_call *c, struct fuse_handle *h,
			struct iovec *iov, int n, uint64_t off, size_t done)
{
	struct fuse_aread *a = malloc(sizeof(*a) + (size_t)n * sizeof(*iov));

	if (!a)
		return -ENOMEM;
	*a = (struct fuse_aread){
		.srv = c->srv, .req = c->req, .t = *c->t, .h = h,
		.unique = c->h.unique, .offset = off, .done = done,
	};
	memcpy(a->iov, iov, (size_t)n * sizeof(*iov));
	int r = c->t->async->submit_rw(c->t->ctx, false, h->fd, a->iov, (unsigned)n,
				       off + done, aread_done, a);
	if (r)
		free(a);
	return r;
}

int fuse_op_read(struct fuse_call *c)
{
	struct fuse_read_in in;
	struct iovec iovs[RW_MAX_IOV], *iov = iovs;
	size_t hl = sizeof(struct fuse_out_header), size;
	struct fuse_handle *h;
	ssize_t n = -1;
	int k, r;

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
	k = (int)fs_iov_slice(c->req->out, c->req->nout, hl, size, iovs, RW_MAX_IOV, NULL);
	size = fs_iov_len(iovs, (unsigned)k);
	if (size == 0) {
		r = fuse_reply_hdr(c->req, c->h.unique, 0);
		goto out;
	}
	if (!c->srv->params.test_nowait_blocks)
		n = preadv2(h->fd, iov, k, (off_t)in.offset, RWF_NOWAIT);
	else
		errno = EAGAIN;
	if (n == (ssize_t)size || n == 0) {
		r = fuse_reply_hdr(c->req, c->h.unique, (size_t)n);
		goto out;
	}
	if (n < 0 && errno != EAGAIN && errno != EOPNOTSUPP) {
		r = -errno;
		goto out;
	}
	size_t done = n > 0 ? (size_t)n : 0;
	iov_advance(&iov, &k, done);
	if (c->t && c->t->async && c->t->async->submit_rw && c->t->complete &&
	    submit_async(c, h, iov, k, in.offset, done) == 0)
		return FS_REQ_DEFERRED; /* the handle reference went with it */
	n = read_rest(h->fd, iov, k, in.offset, done, size);
	r = n < 0 ? (int)n : fuse_reply_hdr(c->req, c->h.unique, (size_t)n);
out:
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	return r;
}

int fuse_op_write(struct fuse_call *c)
{
	struct fuse_write_in in;
	struct fuse_write_out out = { 0 };
	struct iovec iovs[RW_MAX_IOV], *iov = iovs;
	size_t at = sizeof(struct fuse_in_header) + sizeof(in), done = 0;
	struct fuse_handle *h;
	int k, r = 0;

	memcpy(&in, c->arg, sizeof(in));
	if (in.size != c->arglen - sizeof(in) || in.size > RW_MAX_SIZE ||
	    in.offset > (uint64_t)INT64_MAX - in.size)
		return -EINVAL;
	k = (int)fs_iov_slice(c->req->in, c->req->nin, at, in.size, iovs, RW_MAX_IOV, NULL);
	if (fs_iov_len(iovs, (unsigned)k) != in.size)
		return -EINVAL; /* more pieces than one pwritev takes */
	h = fuse_handle_get(&c->srv->ht, in.fh);
	if (!h)
		return -EBADF;
	if ((h->flags & O_ACCMODE) == O_RDONLY) {
		r = -EBADF;
		goto out;
	}
	if (c->srv->killpriv_v2 && (in.write_flags & FUSE_WRITE_KILL_SUIDGID)) {
		r = fuse_kill_suidgid(h->fd);
		if (r)
			goto out;
	}
	while (done < in.size) {
		ssize_t n = pwritev(h->fd, iov, k, (off_t)(in.offset + done)); /* guest */

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (!done)
				r = -errno;
			break;
		}
		if (n == 0)
			break;
		done += (size_t)n;
		iov_advance(&iov, &k, (size_t)n);
	}
	if (!r) {
		out.size = (uint32_t)done;
		r = fuse_reply(c, &out, sizeof(out));
	}
out:
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	return r;
}
