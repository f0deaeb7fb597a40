// SPDX-License-Identifier: GPL-2.0-only
/* The NOWAIT-then-io_uring I/O ladder (see fs_io.h). */
#include "fs/fs_io.h"

#include <errno.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/vfs.h>

/* A file system in memory: nothing there waits for a device. */
static bool in_memory(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 &&
	       (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
}

/* The cheap try: bytes, or -1 with errno EAGAIN/EOPNOTSUPP when it would block. */
static ssize_t try_nowait(struct fs_io *io)
{
	ssize_t n;

	if (io->nowait_blocks) {
		errno = EAGAIN;
		return -1;
	}
	if (io->nowait_off &&
	    atomic_load_explicit(io->nowait_off, memory_order_relaxed) != FS_NOWAIT_UNKNOWN) {
		errno = EOPNOTSUPP;
		return -1;
	}
	n = io->is_write ? pwritev2(io->fd, io->iov, (int)io->n, (off_t)io->off, RWF_NOWAIT)
			 : preadv2(io->fd, io->iov, (int)io->n, (off_t)io->off, RWF_NOWAIT);
	if (n < 0 && errno == EOPNOTSUPP && io->nowait_off) {
		unsigned char st = in_memory(io->fd) ? FS_NOWAIT_REFUSED_MEMORY : FS_NOWAIT_REFUSED;

		atomic_store_explicit(io->nowait_off, st, memory_order_relaxed);
		errno = EOPNOTSUPP;
	}
	return n;
}

/* Moves io past k bytes that are done. */
static void advance(struct fs_io *io, size_t k)
{
	io->off += k;
	while (k && io->n) {
		if (k >= io->iov->iov_len) {
			k -= io->iov->iov_len;
			io->iov++;
			io->n--;
		} else {
			io->iov->iov_base = (uint8_t *)io->iov->iov_base + k;
			io->iov->iov_len -= k;
			k = 0;
		}
	}
}

/* The blocking rung: done bytes have moved already. */
static int run_blocking(struct fs_io *io, size_t want, size_t done, size_t *moved)
{
	while (done < want && io->n) {
		ssize_t n = io->is_write ? pwritev(io->fd, io->iov, (int)io->n, (off_t)io->off)
					 : preadv(io->fd, io->iov, (int)io->n, (off_t)io->off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (!done)
				return -errno;
			break;
		}
		done += (size_t)n;
		if (n == 0 || !io->whole)
			break;
		advance(io, (size_t)n);
	}
	*moved = done;
	return 0;
}

/*
 * The transport's io_uring finished. It already carries on after short
 * reads and writes of regular files itself, so a short count is final.
 */
static void aio_done(void *arg, int result)
{
	struct fs_aio *a = arg;

	if (result < 0)
		a->done(a, a->moved ? (ssize_t)a->moved : result);
	else
		a->done(a, (ssize_t)(a->moved + (size_t)result));
}

static int submit(struct fs_io *io, const struct fs_transport *t,
		  const struct fs_aio_alloc *alloc, size_t done)
{
	struct fs_aio *a = alloc->get(alloc->ctx, io->n);
	int r;

	if (!a)
		return -ENOMEM;
	memcpy(a->iov, io->iov, io->n * sizeof(*io->iov));
	a->moved = done;
	r = t->async->submit_rw(t->ctx, io->is_write, io->fd, a->iov, io->n, io->off,
				aio_done, a);
	if (r)
		alloc->put(alloc->ctx, a);
	return r;
}

int fs_io_run(struct fs_io *io, const struct fs_transport *t, const struct fs_aio_alloc *alloc,
	      size_t *moved)
{
	size_t want = fs_iov_len(io->iov, io->n), done = 0;
	ssize_t n = try_nowait(io);

	if (n >= 0) {
		done = (size_t)n;
		if (!io->whole || done == want || n == 0) {
			*moved = done;
			return 0;
		}
		advance(io, done); /* the rest would block */
	} else if (errno != EAGAIN && errno != EOPNOTSUPP) {
		return -errno;
	} else if (errno == EOPNOTSUPP && io->nowait_off &&
		   atomic_load_explicit(io->nowait_off, memory_order_relaxed) ==
			   FS_NOWAIT_REFUSED_MEMORY) {
		return run_blocking(io, want, done, moved); /* no disk to wait for */
	}
	if (t && t->complete && t->async && t->async->submit_rw && alloc &&
	    submit(io, t, alloc, done) == 0)
		return FS_REQ_DEFERRED;
	return run_blocking(io, want, done, moved);
}
