/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data path of both servers (FUSE READ/WRITE, 9p Tread/Twrite): one
 * read or write between a file and a request's iovecs, the cheap way
 * first. preadv2/pwritev2 with RWF_NOWAIT answers from the page cache at
 * the cost of a plain call; what would block (EAGAIN), or what the file
 * cannot say without blocking (EOPNOTSUPP: most buffered writes), goes to
 * the transport's io_uring (t->async) and completes later on the
 * transport's thread, so the queue is not stalled by the disk; without
 * async I/O, or when the transport refuses it, the call blocks here.
 * A file in memory (tmpfs, ramfs) that refuses RWF_NOWAIT has no disk to
 * wait for: its calls run here at once, as an io_uring submission would
 * only hand them to a kernel worker (bench-vhost read4k QD1 on tmpfs:
 * 18.8 backend CPU-us per read through io_uring, a plain call ~2).
 */
#ifndef STAINLESS_FS_FS_IO_H
#define STAINLESS_FS_FS_IO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "fs/fs_req.h"

struct fs_aio;

/* What a file answered RWF_NOWAIT with (struct fs_io's nowait_off). */
typedef _Atomic unsigned char fs_nowait_state;
enum {
	FS_NOWAIT_UNKNOWN,        /* not refused so far */
	FS_NOWAIT_REFUSED,        /* refused, may block: io_uring */
	FS_NOWAIT_REFUSED_MEMORY, /* refused, but the file is in memory: inline */
};

/* result: the bytes moved in all (before and by the async part), or -errno. */
typedef void fs_aio_done_fn(struct fs_aio *a, ssize_t result);

/*
 * What an I/O that went async keeps until it completes. The caller's
 * record for the request holds it, and room for its iovecs: the caller's
 * array (on its stack) is gone by then, the memory it names is not (a
 * transport keeps a request's buffers until it is completed).
 */
struct fs_aio {
	fs_aio_done_fn *done;     /* set by the caller */
	struct iovec *iov;        /* set by the caller: room for n */
	size_t moved;             /* bytes the NOWAIT try moved first */
};

/* Hands out the caller's record for an I/O that goes async (fs_io.run). */
struct fs_aio_alloc {
	/* n iovecs to keep; NULL: no record (a budget is spent), block instead. */
	struct fs_aio *(*get)(void *ctx, unsigned n);
	/* The transport refused the submission after all. */
	void (*put)(void *ctx, struct fs_aio *a);
	void *ctx;
};

struct fs_io {
	bool is_write;
	/*
	 * Carry on after a short count until all of it, end of file or an
	 * error (FUSE, whose client takes a short count as the end); else
	 * the first call's count is the answer (9p's Rread/Rwrite count).
	 */
	bool whole;
	bool nowait_blocks;       /* test only: the NOWAIT try would block */
	/*
	 * Optional, per open file and direction (0 when opened): what the
	 * file said to RWF_NOWAIT once it refused it (EOPNOTSUPP, which does
	 * not change for a file), so later calls skip a try that cannot
	 * succeed and know whether the file may block (FS_NOWAIT_*).
	 */
	fs_nowait_state *nowait_off;
	int fd;
	uint64_t off;
	struct iovec *iov;        /* the caller's; advanced past what moved */
	unsigned n;
};

/*
 * Runs io. Returns 0 with *moved bytes (a short count only at end of
 * file, or after an error once something moved), -errno when nothing
 * moved, or FS_REQ_DEFERRED: the I/O went to t's io_uring and
 * a->done(a, result) runs on t's thread (with some transports even
 * before this returns: a record is complete when alloc->get hands it
 * out). t NULL, or without async or complete: never deferred.
 */
int fs_io_run(struct fs_io *io, const struct fs_transport *t, const struct fs_aio_alloc *alloc,
	      size_t *moved);

#endif
