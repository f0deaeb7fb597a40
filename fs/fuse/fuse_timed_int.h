/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside requests with a deadline (fuse_timed.h), shared by its pieces:
 *   fuse_timed.c        which requests take a helper, set-up, reset, teardown
 *   fuse_timed_dev.c    devices: their class, the table of them, a request's inode
 *   fuse_timed_pool.c   the helper threads: run a job, send or undo its reply
 *   fuse_timed_watch.c  the deadline watcher: answers EIO, fences devices
 *
 * A job's life, all of its state under tm->mu:
 *   queued  -> running (a helper took it) -> done (its reply went out, or
 *              it was answered by the deadline and the late reply undone)
 *   queued  -> expired: the watcher answers it and frees it (it never ran)
 *   running -> expired: the watcher answers it; the job stays the
 *              helper's, who frees it when its call returns.
 * `answered` decides, once, who writes into the transport's buffer: the
 * one that sets it. Nobody touches req or its buffers after that answer.
 */
#ifndef STAINLESS_FS_FUSE_FUSE_TIMED_INT_H
#define STAINLESS_FS_FUSE_FUSE_TIMED_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "fs/fuse/fuse_int.h"
#include "fs/fuse/fuse_timed.h"

enum dev_class { DEV_UNKNOWN, DEV_LOCAL, DEV_REMOTE };

struct timed_dev {
	dev_t dev;
	enum dev_class cls;
	bool fenced;
	bool probing;            /* one request let through to see if it answers */
	uint64_t probe_at;       /* ns: the next probe, while fenced */
};

struct timed_gate {
	uint64_t parent;         /* nodeid of the directory holding the mount point */
	dev_t dev;               /* the device mounted there */
	char name[NAME_MAX + 1];
};

struct timed_job {
	struct timed_job *next;
	struct fs_req *req;      /* the transport's: untouched once answered */
	struct fs_transport t;   /* the transport's */
	size_t outcap;           /* of req->out */
	struct fs_req breq;      /* the copies the handler sees */
	struct iovec bin, bout;
	uint64_t unique, deadline, epoch;
	uint32_t opcode;
	dev_t dev;
	bool running, answered, probe;
	size_t bytes;
	/* The request's bytes, then room for the reply. */
	uint8_t data[];
};

struct fuse_timed {
	struct fuse_server *srv;
	fuse_timed_handle_fn *handle;
	size_t max_request;
	pthread_mutex_t mu;
	pthread_cond_t work, tick, gone;
	struct timed_job *qhead, *qtail, *running;
	unsigned nqueued, nhelpers, nidle;
	size_t bytes;
	bool watching, stopping;
	uint64_t timeout_ns, epoch;
	unsigned long expired;
	struct timed_dev devs[FUSE_TIMED_DEVS];
	unsigned ndevs;
	struct timed_gate gates[FUSE_TIMED_GATES];
	unsigned ngates;
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline struct timespec abs_of(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u),
				  .tv_nsec = (long)(ns % 1000000000u) };
}

/* fuse_timed_dev.c: a device's class by its fd's file-system type. */
enum dev_class timed_class_of_fd(int fd);
/* Under tm->mu. NULL when the table is full (then: remote, never fenced). */
struct timed_dev *timed_dev_find(struct fuse_timed *tm, dev_t dev, bool add);
/* The inode a request is about: its nodeid, and the device it lives on. */
bool timed_inode_of(struct fuse_server *s, const struct fuse_in_header *h,
		    const struct fs_req *req, uint64_t *nodeid, dev_t *dev);

/* fuse_timed_pool.c, under tm->mu: one more helper for the queue, unless one idles or all run. */
void timed_wake_helper(struct fuse_timed *tm);

/* fuse_timed_watch.c, under tm->mu: start the watcher unless it runs. */
void timed_wake_watcher(struct fuse_timed *tm);
/*
 * Under tm->mu (dropped and taken again): answers EIO every job past its
 * deadline (all of them with all), fencing the devices of those that ran;
 * *next: the earliest deadline left.
 */
void timed_answer_all(struct fuse_timed *tm, uint64_t now, bool all, uint64_t *next);

#endif
