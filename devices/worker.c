// SPDX-License-Identifier: GPL-2.0-only
/* Per-virtqueue io_uring worker (see worker.h). */
#include "devices/worker.h"

#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/thread.h"
#include "base/uring.h"

/* user_data tags for the three eventfd reads; async ops carry a pointer,
 * which is never this small. */
enum { TAG_KICK = 1, TAG_STOP = 2, TAG_WAKE = 3 };
/* The eventfds are the ring's fixed files 0..2, in this order. */
enum { FIXED_KICK, FIXED_STOP, FIXED_WAKE, NR_FIXED };

/*
 * How long worker_stop() waits for a handler to return. A request runs
 * host system calls inline, and one may not come back for long (a hung
 * network file system under the share, a disk in error recovery); a
 * reset or a shutdown must not wait for it, since the vCPU that asked
 * for the reset waits in turn. After this the thread is left to finish
 * its request on its own and then end, touching no ring. Its late reply
 * may still land in buffers the guest reuses after the reset, as DMA in
 * flight would on a real device reset too: the guest's own memory, never
 * the host's.
 */
#define WORKER_STOP_GRACE_MS 1000

/* exit_state: whichever of the thread and worker_stop() comes second frees. */
enum { W_RUNNING, W_EXITED, W_LEFT };

/* One per descriptor head: a head is in flight at most once (vq.c). */
struct wslot {
	struct fs_req req;
	struct iovec *iov;          /* size entries reserved in iov_pool */
	struct wslot *next;         /* on the completed stack */
	uint32_t reply_len;
	uint32_t out_len;
	uint16_t head;
};

struct wop {
	fs_io_done_fn *done;
	void *arg;
	struct wop *next;           /* free list */
};

struct worker {
	struct virtio_dev *dev;
	unsigned q;
	struct vq *vq;
	uint16_t size;
	int kick_fd, stop_fd, wake_fd;
	struct io_uring ring;
	pthread_t thread;
	pthread_t self;             /* set by the thread itself */
	struct wslot *slots;
	struct iovec *iov_pool;
	struct iovec *scratch;
	struct wop *ops, *free_ops;
	unsigned nr_ops, ops_inflight;
	uint64_t kick_buf, stop_buf, wake_buf;
	bool stopping;              /* the thread's view of stop_asked */
	/* Touched by other threads: */
	atomic_bool stop_asked;
	atomic_int exit_state;
	_Atomic(struct wslot *) done;  /* completed deferred requests */
	atomic_int refs;               /* 1 for the owner + 1 per deferred */
	atomic_bool thread_gone;
	struct fs_transport t;
};

static void worker_free(struct worker *w)
{
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	free(w->ops);
	free(w->scratch);
	free(w->iov_pool);
	free(w->slots);
	free(w);
}

static void worker_put(struct worker *w)
{
	if (atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) == 1)
		worker_free(w);
}

/*
 * Stopping means the driver reset the device: its rings are no longer
 * ours. Read on the thread before each ring access, so a thread that was
 * left behind in a slow handler touches nothing once that handler returns.
 */
static bool stop_seen(struct worker *w)
{
	if (!w->stopping && atomic_load_explicit(&w->stop_asked, memory_order_acquire))
		w->stopping = true;
	return w->stopping;
}

/* fs_transport.complete: any thread. Lock-free push, then a wake-up
 * unless we are the worker itself (it reaps before it sleeps). */
static void worker_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	struct worker *w = ctx;
	struct wslot *s = req->cookie;
	struct wslot *old = atomic_load_explicit(&w->done, memory_order_relaxed);

	s->reply_len = len;
	do {
		s->next = old;
	} while (!atomic_compare_exchange_weak_explicit(&w->done, &old, s,
			memory_order_release, memory_order_relaxed));
	if (atomic_load_explicit(&w->thread_gone, memory_order_acquire) ||
	    !pthread_equal(pthread_self(), w->self))
		eventfd_write(w->wake_fd, 1);
	worker_put(w);
}

/* The ring and the owner's reference, once the thread is done with them. */
static void worker_release(struct worker *w)
{
	atomic_store_explicit(&w->thread_gone, true, memory_order_release);
	io_uring_queue_exit(&w->ring);
	close(w->stop_fd);
	worker_put(w);
}

static struct io_uring_sqe *get_sqe(struct worker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	if (!sqe) {
		/* SQ full of unsubmitted entries: hand them to the kernel. */
		io_uring_submit(&w->ring);
		sqe = io_uring_get_sqe(&w->ring);
	}
	return sqe;
}

static int worker_submit_rw(void *ctx, bool is_write, int fd,
			    const struct iovec *iov, unsigned iovcnt,
			    uint64_t offset, fs_io_done_fn *done, void *arg)
{
	struct worker *w = ctx;
	struct io_uring_sqe *sqe;
	struct wop *op;

	if (!pthread_equal(pthread_self(), w->self) || stop_seen(w))
		return -EPERM;
	op = w->free_ops;
	if (!op)
		return -EBUSY; /* the server falls back to synchronous I/O */
	sqe = get_sqe(w);
	if (!sqe)
		return -EBUSY;
	w->free_ops = op->next;
	op->done = done;
	op->arg = arg;
	if (is_write)
		io_uring_prep_writev(sqe, fd, iov, iovcnt, offset);
	else
		io_uring_prep_readv(sqe, fd, iov, iovcnt, offset);
	io_uring_sqe_set_data(sqe, op);
	w->ops_inflight++;
	return 0;
}

static const struct fs_async_ops worker_async = {
	.submit_rw = worker_submit_rw,
};

static void arm_read(struct worker *w, int fixed, uint64_t *buf, uintptr_t tag)
{
	struct io_uring_sqe *sqe = get_sqe(w);

	/* The SQ always has room for these three: it is sized for them plus
	 * every async op. */
	io_uring_prep_read(sqe, fixed, buf, sizeof(*buf), 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, (void *)tag);
}

static void finish(struct worker *w, struct wslot *s, uint32_t len)
{
	if (stop_seen(w))
		return;
	/* A device cannot claim it wrote more than the guest gave it. */
	if (len > s->out_len)
		len = s->out_len;
	vq_push(w->vq, s->head, len);
}

/* Publish deferred completions in the order they completed. */
static void reap_done(struct worker *w)
{
	struct wslot *s = atomic_exchange_explicit(&w->done, NULL,
						   memory_order_acquire);
	struct wslot *rev = NULL;

	while (s) {
		struct wslot *next = s->next;

		s->next = rev;
		rev = s;
		s = next;
	}
	for (s = rev; s; s = s->next)
		finish(w, s, s->reply_len);
}

static void drain(struct worker *w)
{
	struct vq_chain c = { .iov = w->scratch };

	while (!stop_seen(w) && vq_pop(w->vq, &c) > 0) {
		struct wslot *s = &w->slots[c.head];
		int rc;

		memcpy(s->iov, c.iov, (c.nin + c.nout) * sizeof(*c.iov));
		s->head = c.head;
		s->out_len = c.out_len;
		s->req = (struct fs_req){
			.in = s->iov, .nin = c.nin,
			.out = s->iov + c.nin, .nout = c.nout,
			.cookie = s,
		};
		virtio_dev_count_request(w->dev, w->q);
		/* Counted before the call: the handler may complete it on
		 * another thread before it even returns. */
		atomic_fetch_add_explicit(&w->refs, 1, memory_order_relaxed);
		rc = w->dev->ops->handle(w->dev, w->q, &s->req, &w->t);
		if (rc == FS_REQ_DEFERRED)
			continue;
		atomic_fetch_sub_explicit(&w->refs, 1, memory_order_relaxed);
		finish(w, s, rc > 0 ? (uint32_t)rc : 0);
	}
}

static void handle_cqe(struct worker *w, struct io_uring_cqe *cqe)
{
	uintptr_t tag = (uintptr_t)io_uring_cqe_get_data(cqe);
	struct wop *op;

	switch (tag) {
	case TAG_KICK:
		if (cqe->res < 0 && cqe->res != -EINTR && cqe->res != -EAGAIN) {
			/* Re-arming a read that keeps failing would spin. */
			virtio_log(w->dev->ops->name, "queue %u: kick read: %s; queue idle",
				   w->q, strerror(-cqe->res));
			return;
		}
		if (!stop_seen(w))
			arm_read(w, FIXED_KICK, &w->kick_buf, TAG_KICK);
		return;
	case TAG_WAKE:
		if (!stop_seen(w))
			arm_read(w, FIXED_WAKE, &w->wake_buf, TAG_WAKE);
		return;
	case TAG_STOP:
		w->stopping = true;
		return;
	}
	op = (struct wop *)tag;
	w->ops_inflight--;
	op->done(op->arg, cqe->res);
	op->next = w->free_ops;
	w->free_ops = op;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct io_uring_cqe *cqe;
	unsigned head, n;

	char name[16];

	/* "virtio-rng/q0" in top, perf, gdb and the kernel's seccomp log. */
	snprintf(name, sizeof(name), "%s/q%u", w->dev->ops->name ? w->dev->ops->name : "vq", w->q);
	(void)pthread_setname_np(pthread_self(), name);
	w->self = pthread_self();
	arm_read(w, FIXED_KICK, &w->kick_buf, TAG_KICK);
	arm_read(w, FIXED_STOP, &w->stop_buf, TAG_STOP);
	arm_read(w, FIXED_WAKE, &w->wake_buf, TAG_WAKE);
	for (;;) {
		bool again;

		drain(w);
		reap_done(w);
		if (!stop_seen(w))
			vq_flush(w->vq);
		/* The answers are out; what the device does now overlaps the guest. */
		if (!stop_seen(w) && w->dev->ops->idle)
			w->dev->ops->idle(w->dev, w->q);
		if (stop_seen(w) && w->ops_inflight == 0)
			break;
		/* Kicks that raced with the drain are seen here, not lost. */
		again = !stop_seen(w) && vq_arm_notify(w->vq);
		io_uring_submit_and_wait(&w->ring, again ? 0 : 1);
		n = 0;
		io_uring_for_each_cqe(&w->ring, head, cqe) {
			handle_cqe(w, cqe);
			n++;
		}
		io_uring_cq_advance(&w->ring, n);
	}
	if (atomic_exchange(&w->exit_state, W_EXITED) == W_LEFT)
		worker_release(w);
	return NULL;
}

/*
 * The ring runs only what this worker issues (anything else fails
 * -EACCES): reads of its three eventfds, which are fixed files, and the
 * server's async readv/writev on the files it has open, which are not
 * known when the ring is made.
 */
static int ring_init(struct worker *w)
{
	static const uint8_t ops[] = { IORING_OP_READ, IORING_OP_READV, IORING_OP_WRITEV };
	const int files[NR_FIXED] = { [FIXED_KICK] = w->kick_fd, [FIXED_STOP] = w->stop_fd,
				      [FIXED_WAKE] = w->wake_fd };
	const struct fs_uring_policy pol = {
		.ops = ops, .nops = sizeof(ops), .files = files, .nfiles = NR_FIXED,
	};

	return fs_uring_init(&w->ring, w->nr_ops + 4, NULL, &pol);
}

static int worker_alloc(struct worker *w, uint16_t size)
{
	w->slots = calloc(size, sizeof(*w->slots));
	/* size*size iovecs: a chain holds at most `size` buffers. Only the
	 * pages of slots in use are ever touched. */
	w->iov_pool = calloc((size_t)size * size, sizeof(*w->iov_pool));
	w->scratch = calloc(size, sizeof(*w->scratch));
	w->nr_ops = 2u * size;
	w->ops = calloc(w->nr_ops, sizeof(*w->ops));
	if (!w->slots || !w->iov_pool || !w->scratch || !w->ops)
		return -ENOMEM;
	for (unsigned i = 0; i < size; i++)
		w->slots[i].iov = w->iov_pool + (size_t)i * size;
	for (unsigned i = 0; i < w->nr_ops; i++) {
		w->ops[i].next = w->free_ops;
		w->free_ops = &w->ops[i];
	}
	return 0;
}

/*
 * Start the thread with every signal blocked: it is usually created on a
 * vCPU thread (at DRIVER_OK), whose mask it would inherit, and process-wide
 * signals belong to the main thread, not to a queue.
 */
static int spawn(struct worker *w)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = fs_thread_create(&w->thread, NULL,
			      w->dev->ops->thread_role ? w->dev->ops->thread_role : FS_ROLE_QUEUE,
			      worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int worker_start(struct worker **out, const struct worker_config *cfg)
{
	struct worker *w;
	int rc;

	*out = NULL;
	if (!cfg->dev || !cfg->dev->ops->handle || !cfg->vq || cfg->kick_fd < 0)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->dev = cfg->dev;
	w->q = cfg->q;
	w->vq = cfg->vq;
	w->size = vq_size(cfg->vq);
	w->kick_fd = cfg->kick_fd;
	w->stop_fd = w->wake_fd = -1;
	atomic_init(&w->refs, 1);
	w->t = (struct fs_transport){
		.complete = worker_complete, .async = &worker_async, .ctx = w,
	};
	rc = worker_alloc(w, w->size);
	if (rc)
		goto err_free;
	w->stop_fd = eventfd(0, EFD_CLOEXEC);
	w->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (w->stop_fd < 0 || w->wake_fd < 0) {
		rc = -errno;
		goto err_fds;
	}
	rc = ring_init(w);
	if (rc)
		goto err_fds;
	rc = spawn(w);
	if (rc)
		goto err_ring;
	*out = w;
	return 0;

err_ring:
	io_uring_queue_exit(&w->ring);
err_fds:
	if (w->stop_fd >= 0)
		close(w->stop_fd);
err_free:
	worker_free(w);
	return rc;
}

int worker_stop(struct worker *w)
{
	const char *name;
	struct timespec ts;
	pthread_t thread;
	unsigned q;

	if (!w)
		return 0;
	/* Once the thread is left (W_LEFT) it frees w when it ends. */
	name = w->dev->ops->name;
	q = w->q;
	thread = w->thread;
	atomic_store_explicit(&w->stop_asked, true, memory_order_release);
	eventfd_write(w->stop_fd, 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WORKER_STOP_GRACE_MS / 1000;
	ts.tv_nsec += (WORKER_STOP_GRACE_MS % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(thread, NULL, &ts) == 0) {
		worker_release(w);
		return 0;
	}
	if (atomic_exchange(&w->exit_state, W_LEFT) == W_EXITED) {
		pthread_join(thread, NULL); /* it was leaving just now */
		worker_release(w);
		return 0;
	}
	virtio_log(name, "queue %u: a request is still running after %u ms; "
		   "its thread finishes it alone and ends", q, WORKER_STOP_GRACE_MS);
	pthread_detach(thread);
	return -ETIMEDOUT;
}
