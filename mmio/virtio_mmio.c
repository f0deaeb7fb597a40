// SPDX-License-Identifier: GPL-2.0-only
/* virtio-mmio version 2 transport (see virtio_mmio.h). */
#include "mmio/virtio_mmio.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "devices/vq.h"
#include "devices/worker.h"

struct vmmio_queue {
	uint16_t num;
	bool ready;
	bool ioeventfd;           /* KVM_IOEVENTFD assigned */
	uint64_t desc, avail, used;
	int kick_fd;
	struct vq *vq;
	struct worker *w;
};

struct vmmio {
	struct vmmio_config cfg;
	const struct virtio_dev_ops *ops;
	unsigned nq;              /* the device's queue count, fixed at creation */
	const char *name;
	int irq_fd;
	bool irqfd;               /* KVM_IRQFD assigned */
	/* Serialises register accesses from several vCPUs. The workers never
	 * take it: what they touch (status, isr) is atomic, so a reset can
	 * join them while holding it. */
	pthread_mutex_t lock;
	atomic_uint status;
	atomic_uint isr;
	atomic_uint config_gen;
	uint32_t dev_feat_sel, drv_feat_sel, queue_sel, shm_sel;
	uint64_t drv_features;
	struct virtio_notify notify;
	struct vmmio_queue q[VIRTIO_MAX_QUEUES];
};

static void raise_irq(struct vmmio *t, unsigned bit)
{
	atomic_fetch_or_explicit(&t->isr, bit, memory_order_release);
	/* With KVM this is the irqfd: the kernel injects, no exit. */
	eventfd_write(t->irq_fd, 1);
}

static void cb_vring_irq(void *ctx, unsigned q)
{
	raise_irq(ctx, VMMIO_INT_VRING);
}

static void cb_needs_reset(void *ctx, unsigned q, const char *why)
{
	struct vmmio *t = ctx;

	atomic_fetch_or(&t->status, VIRTIO_STATUS_NEEDS_RESET);
	raise_irq(t, VMMIO_INT_CONFIG);
}

static int set_ioeventfd(struct vmmio *t, unsigned qi, bool assign)
{
	struct kvm_ioeventfd io = {
		.datamatch = qi,
		.addr = t->cfg.base + VMMIO_QUEUE_NOTIFY,
		.len = 4,
		.fd = t->q[qi].kick_fd,
		.flags = KVM_IOEVENTFD_FLAG_DATAMATCH |
			 (assign ? 0 : KVM_IOEVENTFD_FLAG_DEASSIGN),
	};

	if (t->cfg.vm_fd < 0 || t->q[qi].ioeventfd == assign)
		return 0;
	if (ioctl(t->cfg.vm_fd, KVM_IOEVENTFD, &io) < 0) {
		int rc = -errno;

		virtio_log(t->name, "KVM_IOEVENTFD queue %u: %s", qi, strerror(-rc));
		return rc;
	}
	t->q[qi].ioeventfd = assign;
	return 0;
}

/*
 * A worker left behind in a slow request (worker_stop) may still have a
 * read armed on the queue's kick eventfd; the next worker gets a fresh one
 * so that no kick of the new driver lands in the old ring.
 */
static void renew_kick_fd(struct vmmio *t, unsigned qi)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	if (fd < 0) {
		virtio_log(t->name, "queue %u: new kick eventfd: %s", qi, strerror(errno));
		return;
	}
	close(t->q[qi].kick_fd);
	t->q[qi].kick_fd = fd;
}

static void stop_queues(struct vmmio *t)
{
	for (unsigned i = 0; i < t->nq; i++) {
		struct vmmio_queue *q = &t->q[i];
		bool left = worker_stop(q->w) == -ETIMEDOUT;

		q->w = NULL;
		vq_destroy(q->vq);
		q->vq = NULL;
		set_ioeventfd(t, i, false);
		if (left)
			renew_kick_fd(t, i);
	}
}

/* Status 0: back to the state right after creation. */
static void device_reset(struct vmmio *t)
{
	stop_queues(t);
	for (unsigned i = 0; i < t->nq; i++) {
		struct vmmio_queue *q = &t->q[i];
		uint64_t stale;

		*q = (struct vmmio_queue){
			.num = t->ops->queue_size_max, .kick_fd = q->kick_fd,
		};
		/* Drop kicks meant for the old rings; poll first since the
		 * fd blocks (io_uring reads it) and the vCPU must not. */
		struct pollfd p = { .fd = q->kick_fd, .events = POLLIN };

		if (poll(&p, 1, 0) == 1 && (p.revents & POLLIN))
			(void)!read(q->kick_fd, &stale, sizeof(stale));
	}
	if (t->ops->reset)
		t->ops->reset(t->cfg.dev);
	t->dev_feat_sel = t->drv_feat_sel = t->queue_sel = t->shm_sel = 0;
	t->drv_features = 0;
	atomic_store(&t->isr, 0);
	atomic_store(&t->status, 0);
}

static uint64_t offered_features(const struct vmmio *t)
{
	return t->ops->features | VIRTIO_TRANSPORT_FEATURES;
}

static void driver_ok(struct vmmio *t)
{
	int rc = 0;

	if (t->ops->activate)
		rc = t->ops->activate(t->cfg.dev, t->drv_features);
	if (rc < 0) {
		virtio_log(t->name, "activation failed: %s", strerror(-rc));
		cb_needs_reset(t, 0, "activation failed");
		return;
	}
	for (unsigned i = 0; i < t->nq; i++) {
		struct vmmio_queue *q = &t->q[i];
		struct vq_config vc = {
			.index = i, .size = q->num, .desc = q->desc,
			.avail = q->avail, .used = q->used,
			.features = t->drv_features, .name = t->name,
		};
		struct worker_config wc;

		if (!q->ready)
			continue;
		rc = vq_create(&q->vq, t->cfg.gm, &vc, &t->notify);
		if (rc < 0)
			break;
		wc = (struct worker_config){
			.dev = t->cfg.dev, .q = i, .vq = q->vq, .kick_fd = q->kick_fd,
		};
		rc = worker_start(&q->w, &wc);
		if (rc < 0) {
			virtio_log(t->name, "queue %u: worker: %s", i, strerror(-rc));
			break;
		}
	}
	if (rc < 0) {
		/* Nothing half-running: stop what started, tell the driver. */
		stop_queues(t);
		cb_needs_reset(t, 0, "queue set-up failed");
	}
}

static void write_status(struct vmmio *t, uint32_t val)
{
	uint32_t old = atomic_load(&t->status);
	uint32_t added;

	if (val == 0) {
		device_reset(t);
		return;
	}
	/* NEEDS_RESET is the device's to set, never the driver's. */
	val = (val & ~VIRTIO_STATUS_NEEDS_RESET) | (old & VIRTIO_STATUS_NEEDS_RESET);
	if ((val & old) != old) {
		virtio_log(t->name, "status 0x%x clears bits of 0x%x without reset; ignored",
			   val, old);
		return;
	}
	added = val & ~old;
	if ((added & VIRTIO_STATUS_FEATURES_OK)) {
		const char *why = NULL;

		if (!(val & VIRTIO_STATUS_DRIVER))
			why = "FEATURES_OK before DRIVER";
		else if (!(t->drv_features & VIRTIO_FEAT_VERSION_1))
			why = "FEATURES_OK without VIRTIO_F_VERSION_1 (legacy drivers unsupported)";
		else if (t->drv_features & ~offered_features(t))
			why = "FEATURES_OK with features the device did not offer";
		if (why) {
			/* Leaving the bit clear is how the spec refuses. */
			virtio_log(t->name, "%s; refused", why);
			val &= ~VIRTIO_STATUS_FEATURES_OK;
		}
	}
	if ((added & VIRTIO_STATUS_DRIVER_OK) && !(val & VIRTIO_STATUS_FEATURES_OK)) {
		virtio_log(t->name, "DRIVER_OK before FEATURES_OK; ignored");
		return;
	}
	atomic_store(&t->status, val);
	if (added & VIRTIO_STATUS_DRIVER_OK)
		driver_ok(t);
}

/* Queue registers are writable only between FEATURES_OK and DRIVER_OK and
 * only while the selected queue is not ready. */
static struct vmmio_queue *setup_queue(struct vmmio *t, const char *reg)
{
	uint32_t st = atomic_load(&t->status);
	struct vmmio_queue *q;

	if (t->queue_sel >= t->nq) {
		virtio_log(t->name, "%s on queue %u that does not exist; ignored",
			   reg, t->queue_sel);
		return NULL;
	}
	if (!(st & VIRTIO_STATUS_FEATURES_OK) || (st & VIRTIO_STATUS_DRIVER_OK)) {
		virtio_log(t->name, "%s outside queue set-up (status 0x%x); ignored",
			   reg, st);
		return NULL;
	}
	q = &t->q[t->queue_sel];
	if (q->ready) {
		virtio_log(t->name, "%s while queue %u is ready; ignored", reg,
			   t->queue_sel);
		return NULL;
	}
	return q;
}

static void set_half(uint64_t *v, bool high, uint32_t val)
{
	if (high)
		*v = (*v & 0xffffffffULL) | ((uint64_t)val << 32);
	else
		*v = (*v & ~0xffffffffULL) | val;
}

static void write_queue_ready(struct vmmio *t, uint32_t val)
{
	uint32_t st = atomic_load(&t->status);
	struct vmmio_queue *q;

	if (val == 0 && t->queue_sel < t->nq &&
	    !(st & VIRTIO_STATUS_DRIVER_OK)) {
		/* Before DRIVER_OK nothing runs on the queue yet. */
		q = &t->q[t->queue_sel];
		set_ioeventfd(t, t->queue_sel, false);
		q->ready = false;
		return;
	}
	q = setup_queue(t, "QueueReady");
	if (!q || val != 1)
		return;
	if (set_ioeventfd(t, t->queue_sel, true) < 0)
		return; /* stays not ready: the driver sees it */
	q->ready = true;
}

static void write_notify(struct vmmio *t, uint32_t qi)
{
	if (qi >= t->nq || !t->q[qi].ready) {
		virtio_log(t->name, "notify on queue %u that is not ready; ignored", qi);
		return;
	}
	/* Reached only without KVM, or if the ioeventfd did not match. */
	eventfd_write(t->q[qi].kick_fd, 1);
}

static void write_reg(struct vmmio *t, uint64_t off, uint32_t val)
{
	struct vmmio_queue *q;

	switch (off) {
	case VMMIO_DEV_FEATURES_SEL: t->dev_feat_sel = val; return;
	case VMMIO_DRV_FEATURES_SEL: t->drv_feat_sel = val; return;
	case VMMIO_QUEUE_SEL:        t->queue_sel = val; return;
	case VMMIO_SHM_SEL:          t->shm_sel = val; return;
	case VMMIO_STATUS:           write_status(t, val); return;
	case VMMIO_QUEUE_NOTIFY:     write_notify(t, val); return;
	case VMMIO_QUEUE_READY:      write_queue_ready(t, val); return;
	case VMMIO_INT_ACK:
		atomic_fetch_and(&t->isr, ~val);
		return;
	case VMMIO_DRV_FEATURES: {
		uint32_t st = atomic_load(&t->status);

		if (!(st & VIRTIO_STATUS_DRIVER) || (st & VIRTIO_STATUS_FEATURES_OK)) {
			virtio_log(t->name, "DriverFeatures write in status 0x%x; ignored", st);
			return;
		}
		if (t->drv_feat_sel > 1) {
			if (val)
				virtio_log(t->name, "DriverFeatures word %u: no such features",
					   t->drv_feat_sel);
			return;
		}
		set_half(&t->drv_features, t->drv_feat_sel == 1, val);
		return;
	}
	case VMMIO_QUEUE_NUM:
		q = setup_queue(t, "QueueNum");
		if (!q)
			return;
		if (val == 0 || (val & (val - 1)) || val > t->ops->queue_size_max) {
			virtio_log(t->name, "QueueNum %u: not a power of two in 1..%u; ignored",
				   val, t->ops->queue_size_max);
			return;
		}
		q->num = (uint16_t)val;
		return;
	case VMMIO_QUEUE_DESC_LOW: case VMMIO_QUEUE_DESC_HIGH:
	case VMMIO_QUEUE_AVAIL_LOW: case VMMIO_QUEUE_AVAIL_HIGH:
	case VMMIO_QUEUE_USED_LOW: case VMMIO_QUEUE_USED_HIGH: {
		static const char *const names[] = { "QueueDesc", "QueueAvail", "QueueUsed" };
		unsigned which = (unsigned)(off - VMMIO_QUEUE_DESC_LOW) / 0x10;
		uint64_t *addr;

		q = setup_queue(t, names[which]);
		if (!q)
			return;
		addr = which == 0 ? &q->desc : which == 1 ? &q->avail : &q->used;
		set_half(addr, off & 4, val);
		return;
	}
	}
	virtio_log(t->name, "write 0x%x to read-only or unknown register 0x%03" PRIx64
		   "; ignored", val, off);
}

static uint32_t read_shm(struct vmmio *t, uint64_t off)
{
	const struct virtio_dev *d = t->cfg.dev;

	for (unsigned i = 0; i < d->nr_shm && i < VIRTIO_MAX_SHM; i++) {
		uint64_t v;

		if (d->shm[i].id != t->shm_sel)
			continue;
		v = off <= VMMIO_SHM_LEN_HIGH ? d->shm[i].len : d->shm[i].base;
		return (off & 4) ? (uint32_t)(v >> 32) : (uint32_t)v;
	}
	return 0xffffffffu; /* no such region: length (and base) all ones */
}

static uint32_t read_reg(struct vmmio *t, uint64_t off)
{
	switch (off) {
	case VMMIO_MAGIC_VALUE:   return VMMIO_MAGIC;
	case VMMIO_VERSION_REG:   return VMMIO_VERSION;
	case VMMIO_DEVICE_ID:     return t->ops->device_id;
	case VMMIO_VENDOR:        return VMMIO_VENDOR_ID;
	case VMMIO_DEV_FEATURES:
		return t->dev_feat_sel > 1 ? 0 :
		       (uint32_t)(offered_features(t) >> (32 * t->dev_feat_sel));
	case VMMIO_QUEUE_NUM_MAX:
		return t->queue_sel < t->nq ? t->ops->queue_size_max : 0;
	case VMMIO_QUEUE_READY:
		return t->queue_sel < t->nq && t->q[t->queue_sel].ready;
	case VMMIO_INT_STATUS:    return atomic_load(&t->isr);
	case VMMIO_STATUS:        return atomic_load(&t->status);
	case VMMIO_CONFIG_GEN:    return atomic_load(&t->config_gen);
	case VMMIO_SHM_LEN_LOW: case VMMIO_SHM_LEN_HIGH:
	case VMMIO_SHM_BASE_LOW: case VMMIO_SHM_BASE_HIGH:
		return read_shm(t, off);
	}
	virtio_log(t->name, "read of write-only or unknown register 0x%03" PRIx64
		   "; reads 0", off);
	return 0;
}

static void config_access(struct vmmio *t, uint32_t off, void *data,
			  unsigned size, bool is_write)
{
	struct virtio_dev *d = t->cfg.dev;

	if ((size != 1 && size != 2 && size != 4) || (off & (size - 1)) ||
	    off >= t->ops->config_size || size > t->ops->config_size - off) {
		virtio_log(t->name, "config %s of %u bytes at 0x%x: bad width, "
			   "alignment or range; ignored", is_write ? "write" : "read",
			   size, off);
		if (!is_write)
			memset(data, 0, size);
		return;
	}
	if (is_write) {
		if (t->ops->config_write)
			t->ops->config_write(d, off, data, size);
	} else if (t->ops->config_read) {
		t->ops->config_read(d, off, data, size);
	} else {
		memset(data, 0, size);
	}
}

void vmmio_bus_access(void *opaque, uint64_t off, void *data, unsigned size,
		      bool is_write)
{
	struct vmmio *t = opaque;
	uint32_t v;

	pthread_mutex_lock(&t->lock);
	if (off >= VMMIO_CONFIG) {
		config_access(t, (uint32_t)(off - VMMIO_CONFIG), data, size, is_write);
	} else if (size != 4 || (off & 3)) {
		virtio_log(t->name, "%u-byte %s at register 0x%03" PRIx64
			   ": registers are aligned 32-bit; ignored", size,
			   is_write ? "write" : "read", off);
		if (!is_write)
			memset(data, 0, size);
	} else if (is_write) {
		memcpy(&v, data, 4);
		write_reg(t, off, v);
	} else {
		v = read_reg(t, off);
		memcpy(data, &v, 4);
	}
	pthread_mutex_unlock(&t->lock);
}

int vmmio_create(struct vmmio **out, const struct vmmio_config *cfg)
{
	const struct virtio_dev_ops *ops;
	struct vmmio *t;
	unsigned i, nq;
	int rc;

	*out = NULL;
	if (!cfg->dev || !cfg->dev->ops || !cfg->gm)
		return -EINVAL;
	ops = cfg->dev->ops;
	nq = virtio_dev_num_queues(cfg->dev);
	if (nq == 0 || nq > VIRTIO_MAX_QUEUES || ops->queue_size_max == 0 ||
	    (ops->queue_size_max & (ops->queue_size_max - 1)) ||
	    ops->queue_size_max > VIRTIO_QUEUE_SIZE_MAX ||
	    ops->config_size > VMMIO_WINDOW_SIZE - VMMIO_CONFIG ||
	    cfg->dev->nr_shm > VIRTIO_MAX_SHM)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->cfg = *cfg;
	t->ops = ops;
	t->nq = nq;
	t->name = ops->name ? ops->name : "virtio";
	t->irq_fd = -1;
	t->notify = (struct virtio_notify){
		.vring_irq = cb_vring_irq, .needs_reset = cb_needs_reset, .ctx = t,
	};
	for (i = 0; i < VIRTIO_MAX_QUEUES; i++)
		t->q[i] = (struct vmmio_queue){ .num = ops->queue_size_max, .kick_fd = -1 };
	pthread_mutex_init(&t->lock, NULL);
	for (i = 0; i < nq; i++) {
		/* Blocking: older kernels fail io_uring reads of an
		 * O_NONBLOCK eventfd with -EAGAIN instead of polling it. */
		t->q[i].kick_fd = eventfd(0, EFD_CLOEXEC);
		if (t->q[i].kick_fd < 0)
			goto err_errno;
	}
	t->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->irq_fd < 0)
		goto err_errno;
	if (cfg->vm_fd >= 0) {
		struct kvm_irqfd irqfd = { .fd = (uint32_t)t->irq_fd, .gsi = cfg->gsi };

		if (ioctl(cfg->vm_fd, KVM_IRQFD, &irqfd) < 0)
			goto err_errno;
		t->irqfd = true;
	}
	*out = t;
	return 0;

err_errno:
	rc = -errno;
	vmmio_destroy(t);
	return rc;
}

void vmmio_destroy(struct vmmio *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	stop_queues(t);
	pthread_mutex_unlock(&t->lock);
	if (t->irqfd) {
		struct kvm_irqfd irqfd = {
			.fd = (uint32_t)t->irq_fd, .gsi = t->cfg.gsi,
			.flags = KVM_IRQFD_FLAG_DEASSIGN,
		};

		ioctl(t->cfg.vm_fd, KVM_IRQFD, &irqfd);
	}
	for (unsigned i = 0; i < VIRTIO_MAX_QUEUES; i++)
		if (t->q[i].kick_fd >= 0)
			close(t->q[i].kick_fd);
	if (t->irq_fd >= 0)
		close(t->irq_fd);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

int vmmio_cmdline(const struct vmmio *t, char *buf, size_t len)
{
	int n = snprintf(buf, len, "virtio_mmio.device=4K@0x%" PRIx64 ":%u",
			 t->cfg.base, t->cfg.gsi);

	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

int vmmio_set_shm_base(struct vmmio *t, uint8_t id, uint64_t gpa)
{
	struct virtio_dev *d = t->cfg.dev;

	for (unsigned i = 0; i < d->nr_shm && i < VIRTIO_MAX_SHM; i++) {
		if (d->shm[i].id == id) {
			d->shm[i].base = gpa;
			return 0;
		}
	}
	return -ENOENT;
}

void vmmio_config_changed(struct vmmio *t)
{
	atomic_fetch_add(&t->config_gen, 1);
	raise_irq(t, VMMIO_INT_CONFIG);
}

uint32_t vmmio_status(const struct vmmio *t)
{
	return atomic_load(&((struct vmmio *)t)->status);
}

int vmmio_irq_fd(const struct vmmio *t)
{
	return t->irq_fd;
}

int vmmio_kick_fd(const struct vmmio *t, unsigned q)
{
	return q < t->nq ? t->q[q].kick_fd : -1;
}

int vmmio_queue_info(struct vmmio *t, unsigned qi, struct vmmio_queue_info *out)
{
	const struct vmmio_queue *q;

	if (qi >= t->nq)
		return -ENOENT;
	pthread_mutex_lock(&t->lock);
	q = &t->q[qi];
	*out = (struct vmmio_queue_info){
		.num = q->num, .ready = q->ready, .running = q->w != NULL,
		.desc = q->desc, .avail = q->avail, .used = q->used,
	};
	pthread_mutex_unlock(&t->lock);
	return 0;
}

uint64_t vmmio_features(struct vmmio *t)
{
	uint64_t f;

	pthread_mutex_lock(&t->lock);
	f = t->drv_features;
	pthread_mutex_unlock(&t->lock);
	return f;
}
