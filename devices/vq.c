// SPDX-License-Identifier: GPL-2.0-only
/* Split virtqueue, device side (see vq.h). */
#include "devices/vq.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs_log.h"

struct vq {
	const struct gmem *gm;
	struct virtio_notify notify;
	unsigned index;
	uint16_t size;
	bool event_idx, indirect;
	bool broken;
	unsigned lost_seen;     /* gmem_lost() when the queue was made */
	const char *name;
	/* Host views of the rings, validated once at creation: the guest
	 * cannot move them without a reset, which destroys this queue. */
	const struct vq_desc *desc;    /* guest */
	uint16_t *avail;               /* guest: flags, idx, ring[size], used_event */
	uint8_t *used;                 /* guest: flags, idx, ring[size], avail_event */
	uint16_t last_avail;           /* next avail slot we will consume */
	uint16_t used_idx;             /* next used slot we will fill */
	uint16_t used_published;       /* used->idx the guest can see */
	uint8_t *inflight;             /* per head: popped and not yet pushed */
};

static atomic_uint log_count;

void virtio_log(const char *dev, const char *fmt, ...)
{
	/* A guest can trigger these at will: keep the first lines, then
	 * one in a thousand, so the log stays useful and bounded. */
	unsigned n = atomic_fetch_add_explicit(&log_count, 1, memory_order_relaxed);
	va_list ap;

	if (n >= 100 && n % 1000)
		return;
	char msg[256];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fs_log(FS_LOG_WARN, "%s: %s", dev ? dev : "virtio", msg);
}

/* Guest-shared 16-bit fields: single loads/stores with the right order. */
static uint16_t load16_acquire(const uint16_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE); /* guest */
}

static uint16_t load16(const uint16_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED); /* guest */
}

static void store16(uint16_t *p, uint16_t v, int order)
{
	__atomic_store_n(p, v, order);
}

static uint16_t *used_idx_ptr(struct vq *vq)
{
	return (uint16_t *)(vq->used + 2);
}

static uint16_t *avail_event_ptr(struct vq *vq)
{
	return (uint16_t *)(vq->used + 4 + 8ULL * vq->size);
}

static void *ring_ptr(const struct gmem *gm, uint64_t gpa, uint64_t len,
		      uint64_t align, const char *what, const struct vq_config *c)
{
	void *p;

	if (gpa & (align - 1)) {
		virtio_log(c->name, "queue %u: %s ring 0x%llx not %llu-byte aligned",
			   c->index, what, (unsigned long long)gpa,
			   (unsigned long long)align);
		return NULL;
	}
	p = gmem_ptr(gm, gpa, len);
	if (!p)
		virtio_log(c->name, "queue %u: %s ring 0x%llx+%llu outside guest memory",
			   c->index, what, (unsigned long long)gpa,
			   (unsigned long long)len);
	return p;
}

int vq_create(struct vq **out, const struct gmem *gm,
	      const struct vq_config *cfg, const struct virtio_notify *notify)
{
	struct vq *vq;
	uint16_t n = cfg->size;

	*out = NULL;
	if (n == 0 || (n & (n - 1)) || n > VIRTIO_QUEUE_SIZE_MAX) {
		virtio_log(cfg->name, "queue %u: bad size %u", cfg->index, n);
		return -EINVAL;
	}
	vq = calloc(1, sizeof(*vq));
	if (!vq)
		return -ENOMEM;
	vq->inflight = calloc(n, 1);
	if (!vq->inflight) {
		free(vq);
		return -ENOMEM;
	}
	vq->gm = gm;
	vq->notify = *notify;
	vq->index = cfg->index;
	vq->size = n;
	vq->name = cfg->name ? cfg->name : "virtio";
	vq->lost_seen = gmem_lost();
	vq->event_idx = cfg->features & VIRTIO_FEAT_EVENT_IDX;
	vq->indirect = cfg->features & VIRTIO_FEAT_INDIRECT;
	vq->desc = ring_ptr(gm, cfg->desc, VQ_DESC_BYTES(n), 16, "descriptor", cfg);
	vq->avail = ring_ptr(gm, cfg->avail, VQ_AVAIL_BYTES(n), 2, "available", cfg);
	vq->used = ring_ptr(gm, cfg->used, VQ_USED_BYTES(n), 4, "used", cfg);
	if (!vq->desc || !vq->avail || !vq->used) {
		vq_destroy(vq);
		return -EINVAL;
	}
	/* A fresh queue starts where the driver's fresh rings start. */
	vq->last_avail = 0;
	vq->used_idx = vq->used_published = load16(used_idx_ptr(vq));
	*out = vq;
	return 0;
}

void vq_destroy(struct vq *vq)
{
	if (!vq)
		return;
	free(vq->inflight);
	free(vq);
}

uint16_t vq_size(const struct vq *vq)
{
	return vq->size;
}

bool vq_broken(const struct vq *vq)
{
	return vq->broken;
}

void vq_set_base(struct vq *vq, uint16_t last_avail, uint16_t used_idx)
{
	vq->last_avail = last_avail;
	vq->used_idx = vq->used_published = used_idx;
}

uint16_t vq_last_avail(const struct vq *vq)
{
	return vq->last_avail;
}

uint16_t vq_used_idx(const struct vq *vq)
{
	return vq->used_idx;
}

void vq_fail(struct vq *vq, const char *why)
{
	if (vq->broken)
		return;
	vq->broken = true;
	virtio_log(vq->name, "queue %u: %s; queue stopped, device needs reset",
		   vq->index, why);
	if (vq->notify.needs_reset)
		vq->notify.needs_reset(vq->notify.ctx, vq->index, why);
}

/* Copy descriptor i of a table out of guest memory before looking at it. */
static struct vq_desc read_desc(const struct vq_desc *table, unsigned i)
{
	struct vq_desc d;

	memcpy(&d, (const void *)&table[i], sizeof(d)); /* guest */
	return d;
}

/*
 * Walk the chain starting at `head` into c->iov. Returns NULL or the
 * reason the chain is invalid. Bounds: a direct chain visits at most
 * `size` descriptors and an indirect table at most its own entry count
 * (itself at most `size`), which is also what stops loops.
 */
static const char *walk_chain(struct vq *vq, uint16_t head, struct vq_chain *c)
{
	const struct vq_desc *table = vq->desc;
	unsigned tn = vq->size, steps = 0, idx = head;
	uint64_t in_len = 0, out_len = 0;
	bool in_indirect = false;

	c->head = head;
	c->nin = c->nout = 0;
	for (;;) {
		struct vq_desc d;
		void *p;

		if (idx >= tn)
			return in_indirect ? "indirect descriptor index out of range"
					   : "descriptor index out of range";
		if (++steps > tn)
			return "descriptor chain loops or is longer than the queue";
		d = read_desc(table, idx);
		if (d.flags & VQ_DESC_F_INDIRECT) {
			if (!vq->indirect)
				return "indirect descriptor without VIRTIO_F_INDIRECT_DESC";
			if (in_indirect)
				return "nested indirect descriptor";
			if (steps != 1 || (d.flags & VQ_DESC_F_NEXT))
				return "indirect descriptor not alone in its chain";
			if (d.len == 0 || d.len % sizeof(struct vq_desc) ||
			    d.len / sizeof(struct vq_desc) > vq->size)
				return "indirect table of bad size";
			table = gmem_ptr(vq->gm, d.addr, d.len);
			if (!table)
				return "indirect table outside guest memory";
			tn = d.len / sizeof(struct vq_desc);
			idx = 0;
			steps = 0;
			in_indirect = true;
			continue;
		}
		p = gmem_ptr(vq->gm, d.addr, d.len);
		if (!p)
			return "buffer outside guest memory";
		if (d.flags & VQ_DESC_F_WRITE) {
			out_len += d.len;
			if (d.len)
				c->iov[c->nin + c->nout++] =
					(struct iovec){ .iov_base = p, .iov_len = d.len };
		} else {
			if (c->nout)
				return "readable descriptor after a writable one";
			in_len += d.len;
			if (d.len)
				c->iov[c->nin++] =
					(struct iovec){ .iov_base = p, .iov_len = d.len };
		}
		/* Used lengths are 32-bit: a chain must describe < 4 GiB. */
		if (in_len > UINT32_MAX || out_len > UINT32_MAX ||
		    in_len + out_len > UINT32_MAX)
			return "chain length overflows 32 bits";
		if (!(d.flags & VQ_DESC_F_NEXT))
			break;
		idx = d.next;
	}
	c->in_len = (uint32_t)in_len;
	c->out_len = (uint32_t)out_len;
	return NULL;
}

int vq_pop(struct vq *vq, struct vq_chain *c)
{
	uint16_t avail_idx, head;
	const char *why;

	if (vq->broken)
		return -EIO;
	if (gmem_lost() != vq->lost_seen) {
		vq_fail(vq, "guest memory went away (its file was truncated)");
		return -EIO;
	}
	/* Acquire: the ring entry and descriptors the driver wrote before
	 * bumping idx are visible once we see the new idx. */
	avail_idx = load16_acquire(&vq->avail[1]);
	if (avail_idx == vq->last_avail)
		return 0;
	if ((uint16_t)(avail_idx - vq->last_avail) > vq->size) {
		vq_fail(vq, "available index moved more than the queue size ahead");
		return -EIO;
	}
	head = load16(&vq->avail[2 + (vq->last_avail & (vq->size - 1))]);
	if (head >= vq->size) {
		vq_fail(vq, "available ring names a descriptor out of range");
		return -EIO;
	}
	if (vq->inflight[head]) {
		vq_fail(vq, "descriptor chain made available twice");
		return -EIO;
	}
	why = walk_chain(vq, head, c);
	if (why) {
		vq_fail(vq, why);
		return -EIO;
	}
	vq->last_avail++;
	vq->inflight[head] = 1;
	return 1;
}

void vq_push(struct vq *vq, uint16_t head, uint32_t len)
{
	struct vq_used_elem e = { .id = head, .len = len };
	uint8_t *slot;

	if (vq->broken)
		return;
	if (head >= vq->size || !vq->inflight[head]) {
		vq_fail(vq, "device returned a chain it does not hold");
		return;
	}
	vq->inflight[head] = 0;
	slot = vq->used + 4 + 8ULL * (vq->used_idx & (vq->size - 1));
	memcpy(slot, &e, sizeof(e)); /* guest */
	vq->used_idx++;
}

/* virtio 1.x 2.7.7.2: interrupt iff used_event lies in (old, new]. */
static bool need_event(uint16_t event, uint16_t new_idx, uint16_t old_idx)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old_idx);
}

void vq_flush(struct vq *vq)
{
	uint16_t old = vq->used_published, now = vq->used_idx;
	bool irq;

	if (old == now)
		return;
	/* Release: used elements before the index that publishes them. */
	store16(used_idx_ptr(vq), now, __ATOMIC_RELEASE);
	vq->used_published = now;
	/* Full barrier: our index store must be visible before we read the
	 * driver's suppression state, or we race with a driver that just
	 * re-enabled interrupts and would then sleep forever. */
	atomic_thread_fence(memory_order_seq_cst);
	if (vq->event_idx)
		irq = need_event(load16(&vq->avail[2 + vq->size]), now, old);
	else
		irq = !(load16(&vq->avail[0]) & VQ_AVAIL_F_NO_INTERRUPT);
	if (irq && vq->notify.vring_irq)
		vq->notify.vring_irq(vq->notify.ctx, vq->index);
}

bool vq_arm_notify(struct vq *vq)
{
	if (vq->broken)
		return false;
	if (vq->event_idx)
		store16(avail_event_ptr(vq), vq->last_avail, __ATOMIC_RELAXED);
	/* Publish avail_event before re-reading avail->idx: a driver that
	 * added a buffer just before it read our old avail_event did not
	 * kick, and we must see its buffer now instead. */
	atomic_thread_fence(memory_order_seq_cst);
	return load16_acquire(&vq->avail[1]) != vq->last_avail;
}
