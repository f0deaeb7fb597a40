/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The contract between a transport and a protocol server (FUSE or 9p).
 *
 * A transport (a virtqueue worker, a vhost-user backend, /dev/fuse, a
 * socket) hands the server one request at a time as iovecs: `in` holds the
 * request bytes, `out` the space for the reply. Servers never know which
 * transport they serve. They copy headers out of `in` before parsing them
 * (for a guest, `in` is memory the guest can change under us).
 *
 * A server's handle function returns the reply length (>= 0), written into
 * `out`, or FS_REQ_DEFERRED when it keeps the request and will finish it
 * later through the transport's completion callback (a blocking lock that
 * must wait, an io_uring read that went async). A deferred request may be
 * completed from another thread; the transport's callback must allow that.
 */
#ifndef STAINLESS_FS_FS_REQ_H
#define STAINLESS_FS_FS_REQ_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

/*
 * The one "deferred" result of every server and transport: outside both
 * the reply lengths (>= 0) and -errno (-1 .. -4095), so no error can be
 * mistaken for it.
 */
#define FS_REQ_DEFERRED INT_MIN

struct fs_req {
	const struct iovec *in;
	unsigned nin;
	const struct iovec *out;
	unsigned nout;
	void *cookie; /* the transport's; handed back on completion */
};

/* Finishes a deferred request: reply_len bytes were written into req->out. */
typedef void fs_complete_fn(void *ctx, struct fs_req *req, uint32_t reply_len);

/*
 * Optional asynchronous I/O offered by a transport that owns an io_uring.
 * submit_rw() queues a readv/writev and returns 0, after which done(arg,
 * result) runs later on the transport's thread; or it returns -errno and
 * the server does the I/O itself. A server tries the cheap synchronous path
 * first (preadv2 with RWF_NOWAIT) and only submits what would block.
 */
typedef void fs_io_done_fn(void *arg, int result);

struct fs_async_ops {
	int (*submit_rw)(void *ctx, bool is_write, int fd,
			 const struct iovec *iov, unsigned iovcnt,
			 uint64_t offset, fs_io_done_fn *done, void *arg);
};

struct fs_transport {
	fs_complete_fn *complete;
	const struct fs_async_ops *async; /* NULL: no async I/O offered */
	void *ctx;
};

/*
 * What both servers do with a request's iovecs: the total length
 * (saturating; a transport's lengths are checked, but be safe), copies at
 * a byte offset, and slices that let preadv/pwritev reach them directly.
 */
static inline size_t fs_iov_len(const struct iovec *iov, unsigned n)
{
	size_t total = 0;

	for (unsigned i = 0; i < n; i++) {
		if (SIZE_MAX - total < iov[i].iov_len)
			return SIZE_MAX;
		total += iov[i].iov_len;
	}
	return total;
}

/* One copier for both directions: into dst from iov, or into iov from src. */
static inline size_t fs_iov_copy(const struct iovec *iov, unsigned n, size_t off, size_t len,
				 void *dst, const void *src)
{
	size_t done = 0;

	for (unsigned i = 0; i < n && done < len; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		size_t chunk = iov[i].iov_len - off;
		if (chunk > len - done)
			chunk = len - done;
		if (dst)
			memcpy((uint8_t *)dst + done, (const uint8_t *)iov[i].iov_base + off, chunk);
		else
			memcpy((uint8_t *)iov[i].iov_base + off, (const uint8_t *)src + done, chunk);
		done += chunk;
		off = 0;
	}
	return done;
}

/* Copies up to len bytes at byte off of iov into dst; returns bytes copied. */
static inline size_t fs_iov_read(const struct iovec *iov, unsigned n, size_t off,
				 void *dst, size_t len)
{
	return fs_iov_copy(iov, n, off, len, dst, NULL);
}

/* Copies up to len bytes from src into iov at byte off; returns bytes copied. */
static inline size_t fs_iov_write(const struct iovec *iov, unsigned n, size_t off,
				  const void *src, size_t len)
{
	return fs_iov_copy(iov, n, off, len, NULL, src);
}

/*
 * Describes bytes [off, off+len) of iov as at most max entries in out.
 * Returns the number of entries and sets *got (when not NULL) to the bytes
 * covered, less than len when iov is shorter or max entries are not enough.
 */
static inline unsigned fs_iov_slice(const struct iovec *iov, unsigned n, size_t off, size_t len,
				    struct iovec *out, unsigned max, size_t *got)
{
	unsigned k = 0;
	size_t done = 0;

	for (unsigned i = 0; i < n && done < len && k < max; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		size_t chunk = iov[i].iov_len - off;
		if (chunk > len - done)
			chunk = len - done;
		out[k].iov_base = (uint8_t *)iov[i].iov_base + off;
		out[k].iov_len = chunk;
		k++;
		done += chunk;
		off = 0;
	}
	if (got)
		*got = done;
	return k;
}

#endif
