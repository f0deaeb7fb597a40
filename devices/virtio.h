/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a virtio device is, apart from any transport.
 *
 * A device is a `struct virtio_dev` embedded in the device's own state and
 * described by a `static const struct virtio_dev_ops` table: its ID, its
 * features, its config space, how large its queues may be, the handler
 * that answers one request; the `struct virtio_dev` itself carries what
 * differs between instances: how many queues (a virtio-fs share's count
 * is an option), its shared-memory regions and per-queue request counts.
 * A transport (mmio/virtio_mmio.c, transport/vhost_user_dev.c) owns the register file
 * and the status state machine and drives the device only through this
 * table; the device reaches back to its transport only through the
 * `struct virtio_notify` callbacks it is handed (dependencies point down:
 * mmio -> devices -> fs).
 *
 * Requests use the fs/ contract (fs/fs_req.h): `in` is what the guest wrote
 * (device-readable descriptors), `out` the space for the reply
 * (device-writable descriptors). A handler returns the reply length, or
 * FS_REQ_DEFERRED after which it finishes the request later through the
 * `struct fs_transport` it was given (from any thread).
 */
#ifndef STAINLESS_DEVICES_VIRTIO_H
#define STAINLESS_DEVICES_VIRTIO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs/fs_req.h"
#include "base/thread.h"

/* Feature bits the transport and the queue core handle themselves. */
#define VIRTIO_BIT(n)          (1ULL << (n))
#define VIRTIO_FEAT_INDIRECT   VIRTIO_BIT(28)  /* VIRTIO_F_INDIRECT_DESC */
#define VIRTIO_FEAT_EVENT_IDX  VIRTIO_BIT(29)  /* VIRTIO_F_EVENT_IDX */
#define VIRTIO_FEAT_VERSION_1  VIRTIO_BIT(32)  /* VIRTIO_F_VERSION_1 */
#define VIRTIO_TRANSPORT_FEATURES \
	(VIRTIO_FEAT_INDIRECT | VIRTIO_FEAT_EVENT_IDX | VIRTIO_FEAT_VERSION_1)

/* Device status bits (virtio 1.x section 2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE  0x01
#define VIRTIO_STATUS_DRIVER       0x02
#define VIRTIO_STATUS_DRIVER_OK    0x04
#define VIRTIO_STATUS_FEATURES_OK  0x08
#define VIRTIO_STATUS_NEEDS_RESET  0x40
#define VIRTIO_STATUS_FAILED       0x80

/* virtio-fs: the hiprio queue and up to 16 request queues. */
#define VIRTIO_MAX_QUEUES    17
#define VIRTIO_MAX_SHM        4
/* Largest queue any device may offer; bounds per-queue allocations. */
#define VIRTIO_QUEUE_SIZE_MAX 1024

#define VIRTIO_ID_RNG 4
#define VIRTIO_ID_9P  9
#define VIRTIO_ID_FS  26
#define VIRTIO_ID_VSOCK 19

struct virtio_dev;

/*
 * Answer one request on queue `q`. Returns the number of bytes written into
 * req->out (clamped to its size by the caller), or FS_REQ_DEFERRED to keep
 * the request and finish it with t->complete(t->ctx, req, len) later.
 * req and its iovecs stay valid until then. Runs on the queue's worker
 * thread: handlers of different queues of one device run concurrently, so
 * state shared between queues needs its own synchronisation.
 */
typedef int virtio_handle_fn(struct virtio_dev *dev, unsigned q,
			     struct fs_req *req, const struct fs_transport *t);

struct virtio_dev_ops {
	const char *name;
	uint32_t device_id;
	uint64_t features;        /* device-specific bits; transport adds its own */
	uint16_t queue_size_max;  /* power of two, <= VIRTIO_QUEUE_SIZE_MAX */
	uint32_t config_size;     /* bytes of device config space */
	/* The seccomp role of its queues' workers; 0 (FS_ROLE_NONE) means
	 * FS_ROLE_QUEUE. A device whose handlers make other calls than the
	 * file-system servers' names its own. */
	enum fs_role thread_role;
	/* Config space, offset and size already checked against config_size.
	 * NULL readers read zeros; NULL writers ignore writes. */
	void (*config_read)(struct virtio_dev *dev, uint32_t off, void *data,
			    unsigned size);
	void (*config_write)(struct virtio_dev *dev, uint32_t off,
			     const void *data, unsigned size);
	/* Called once at DRIVER_OK with the negotiated features; -errno fails
	 * the device (status NEEDS_RESET). May be NULL. */
	int (*activate)(struct virtio_dev *dev, uint64_t features);
	virtio_handle_fn *handle;
	/* A queue's worker answered all it had and is about to wait: work
	 * ahead for the driver's likely next request. May be NULL. */
	void (*idle)(struct virtio_dev *dev, unsigned q);
	/* The driver reset the device: workers are already stopped. */
	void (*reset)(struct virtio_dev *dev);
	/* `run --stats`: more words for the device's line (" name=value"...,
	 * at most len bytes with the NUL). May be NULL. */
	void (*stats)(const struct virtio_dev *dev, char *buf, size_t len);
	void (*destroy)(struct virtio_dev *dev);
};

/* A shared-memory region (virtio 1.2 section 2.10): DAX windows. The
 * device sets id, len and the host mapping that backs the region; the VMM
 * places it at a guest-physical base (its own KVM memory slot). */
struct virtio_shm {
	uint8_t id;
	uint64_t len;
	uint64_t base;
	void *host;
};

/*
 * Requests a queue's worker took off the ring since the device was made
 * (`run --stats`). Only the worker of that queue writes it, so the count
 * is a plain load and store (relaxed: no locked instruction), atomic only
 * so that a reader on another thread sees whole values; 64 bytes apart so
 * that the workers of one device never write to one cache line (padding,
 * not _Alignas: devices are calloc'ed).
 */
struct virtio_queue_count {
	_Atomic uint64_t requests;
	uint8_t pad[56];
};

struct virtio_dev {
	const struct virtio_dev_ops *ops;
	unsigned num_queues;      /* set by the create function; 1..VIRTIO_MAX_QUEUES */
	unsigned nr_shm;
	struct virtio_shm shm[VIRTIO_MAX_SHM];
	struct virtio_queue_count count[VIRTIO_MAX_QUEUES];
};

/* How many queues this device has: every transport asks here. */
static inline unsigned virtio_dev_num_queues(const struct virtio_dev *dev)
{
	return dev->num_queues;
}

/* Worker of queue q only: one more request taken. */
static inline void virtio_dev_count_request(struct virtio_dev *dev, unsigned q)
{
	_Atomic uint64_t *n = &dev->count[q].requests;

	atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* Any thread: requests queue q has carried. */
static inline uint64_t virtio_dev_requests(const struct virtio_dev *dev, unsigned q)
{
	return atomic_load_explicit(&((struct virtio_dev *)dev)->count[q].requests,
				    memory_order_relaxed);
}

/*
 * How the queue core and the workers reach the transport. Both callbacks
 * may be called from a worker thread while a vCPU thread is inside the
 * transport; the transport keeps the state they touch atomic.
 */
struct virtio_notify {
	/* Used buffers were published on queue q: interrupt the guest. */
	void (*vring_irq)(void *ctx, unsigned q);
	/* The guest broke queue q: set DEVICE_NEEDS_RESET and raise a
	 * config-change interrupt. `why` is one short line for the log. */
	void (*needs_reset)(void *ctx, unsigned q, const char *why);
	void *ctx;
};

/* One line to stderr, prefixed with the device name; rate-limited so a
 * hostile guest cannot flood the log. */
void virtio_log(const char *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void virtio_dev_destroy(struct virtio_dev *dev)
{
	if (dev && dev->ops->destroy)
		dev->ops->destroy(dev);
}

#endif
