/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The split virtqueue (virtio 1.x section 2.7), device side.
 *
 * A `struct vq` is owned by exactly one thread (its worker) once created;
 * nothing in it is locked. The guest shares the rings with us and may
 * change them at any moment, so every descriptor is copied out before it is
 * checked and every guest-controlled index and length is checked before it
 * is used. Any violation marks the queue broken: the transport is told
 * (DEVICE_NEEDS_RESET plus a config-change interrupt), one line is logged,
 * and the queue serves nothing more until the driver resets the device.
 *
 * Usage on the worker:
 *     while ((rc = vq_pop(vq, &chain)) > 0) { ...; vq_push(vq, head, len); }
 *     vq_flush(vq);                      one interrupt for the whole batch
 *     if (!vq_arm_notify(vq)) sleep;     else more arrived: drain again
 */
#ifndef STAINLESS_DEVICES_VQ_H
#define STAINLESS_DEVICES_VQ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "devices/gmem.h"
#include "devices/virtio.h"

/* Wire layout of the split ring (little-endian; x86_64 hosts only). */
struct vq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};
_Static_assert(sizeof(struct vq_desc) == 16, "virtq_desc is 16 bytes");

struct vq_used_elem {
	uint32_t id;
	uint32_t len;
};
_Static_assert(sizeof(struct vq_used_elem) == 8, "virtq_used_elem is 8 bytes");

#define VQ_DESC_F_NEXT      1
#define VQ_DESC_F_WRITE     2
#define VQ_DESC_F_INDIRECT  4
#define VQ_AVAIL_F_NO_INTERRUPT 1
#define VQ_USED_F_NO_NOTIFY 1

/* Ring sizes in bytes for a queue of n entries (event fields included). */
#define VQ_DESC_BYTES(n)  (16ULL * (n))
#define VQ_AVAIL_BYTES(n) (6ULL + 2ULL * (n))
#define VQ_USED_BYTES(n)  (6ULL + 8ULL * (n))

struct vq_config {
	unsigned index;      /* queue number, for the log and callbacks */
	uint16_t size;       /* power of two, 1..VIRTIO_QUEUE_SIZE_MAX */
	uint64_t desc, avail, used;  /* guest-physical ring addresses */
	uint64_t features;   /* negotiated: EVENT_IDX and INDIRECT matter */
	const char *name;    /* device name for the log */
};

/*
 * One descriptor chain: `iov[0..nin)` are device-readable, `iov[nin..nin+
 * nout)` device-writable (zero-length descriptors are dropped). The iovecs
 * point into guest memory and stay valid while guest memory is mapped.
 */
struct vq_chain {
	uint16_t head;
	unsigned nin, nout;
	uint32_t in_len, out_len;
	struct iovec *iov;   /* caller-provided, vq_size() entries */
};

struct vq;

/* Checks the ring addresses (alignment, inside guest memory) and the size.
 * -EINVAL after logging why; -ENOMEM. */
int vq_create(struct vq **out, const struct gmem *gm,
	      const struct vq_config *cfg, const struct virtio_notify *notify);
void vq_destroy(struct vq *vq);

uint16_t vq_size(const struct vq *vq);
bool vq_broken(const struct vq *vq);

/*
 * Take the next available chain into *c (c->iov must hold vq_size()
 * entries). 1: a chain; 0: the ring is empty; -EIO: the queue is (now)
 * broken. The same head cannot be popped again until it is pushed back.
 */
int vq_pop(struct vq *vq, struct vq_chain *c);
/* Return a chain: writes its used entry, not yet visible to the guest. */
void vq_push(struct vq *vq, uint16_t head, uint32_t len);
/* Make pushed entries visible and interrupt the guest if it wants one
 * (EVENT_IDX used_event, else VRING_AVAIL_F_NO_INTERRUPT). */
void vq_flush(struct vq *vq);
/*
 * Before the worker sleeps: ask for a kick when the next buffer arrives
 * (EVENT_IDX: avail_event = what we consumed). Returns true when buffers
 * arrived meanwhile, so the caller must drain again instead of sleeping.
 */
bool vq_arm_notify(struct vq *vq);
/* Where to resume (vhost-user SET_VRING_BASE, tests of index wrap-around):
 * the next avail entry to consume and the next used entry to fill. */
void vq_set_base(struct vq *vq, uint16_t last_avail, uint16_t used_idx);
/* The same two, read back when a vhost-user ring stops (GET_VRING_BASE)
 * or restarts; only while no worker runs on the queue. */
uint16_t vq_last_avail(const struct vq *vq);
uint16_t vq_used_idx(const struct vq *vq);
/* Mark broken from outside the walk (e.g. a bogus used length). */
void vq_fail(struct vq *vq, const char *why);

#endif
