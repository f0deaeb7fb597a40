/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One thread per virtqueue, owning one io_uring.
 *
 * The worker sleeps in io_uring_enter with reads armed on three eventfds:
 * the queue's kick fd (signalled by KVM's ioeventfd, or by the transport in
 * tests), a stop fd, and a wake fd for requests completed on other threads.
 * When woken it drains every available chain, calls the device's handler
 * inline for each, publishes the used entries of everything that finished
 * (in completion order, so slow requests never hold back fast ones) and
 * raises at most one interrupt per batch.
 *
 * The worker offers the device fs/fs_req.h's `struct fs_transport`:
 *  - complete(ctx, req, len) finishes a deferred request; any thread;
 *  - async->submit_rw() queues a readv/writev on the worker's own ring;
 *    call it from the worker thread only (inside the handler or inside
 *    another I/O's done callback); done() then runs on the worker thread.
 *    The iovec array must stay valid until done() runs.
 *
 * Syscalls on the worker thread: io_uring_enter, eventfd writes (irqfd,
 * and none for completions made on the worker itself), plus the handler's
 * own. Each ring is created disabled and restricted to READ/READV/WRITEV
 * before it is enabled (base/uring.h), since seccomp cannot see io_uring
 * submissions; its three eventfds are fixed files.
 */
#ifndef STAINLESS_DEVICES_WORKER_H
#define STAINLESS_DEVICES_WORKER_H

#include "devices/virtio.h"
#include "devices/vq.h"

struct worker;

struct worker_config {
	struct virtio_dev *dev;   /* its ops->handle answers requests */
	unsigned q;               /* queue index handed to the handler */
	struct vq *vq;            /* not owned; must outlive worker_stop() */
	int kick_fd;              /* blocking eventfd; not owned */
};

/* Creates the ring and starts the thread. 0 or -errno. */
int worker_start(struct worker **out, const struct worker_config *cfg);

/*
 * Stops the thread after in-flight io_uring operations finish, and closes
 * the ring. Requests the device still holds as deferred may be completed
 * afterwards without harm (their used entries are dropped); the memory
 * behind the worker is freed when the last of them completes. A device
 * whose reset() cancels its deferred requests never sees that case.
 *
 * Never waits long for a handler: if one has not returned within
 * WORKER_STOP_GRACE_MS (worker.c), the thread is left to finish it alone
 * and end without touching the vq again, and this returns -ETIMEDOUT.
 * The ring it leaves behind may still hold a read armed on kick_fd, so
 * the caller must give the queue a new kick eventfd before it starts
 * another worker. 0 otherwise.
 */
int worker_stop(struct worker *w);

#endif
