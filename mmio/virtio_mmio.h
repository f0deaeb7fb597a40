/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The virtio-mmio transport, version 2 (virtio 1.2 section 4.2), modern
 * only. It owns the register file and the device-status state machine and
 * drives a `struct virtio_dev` only through its ops table.
 *
 * Data path: QueueNotify is bound to each ready queue's kick eventfd with
 * KVM_IOEVENTFD (datamatch = queue index), so a kick never leaves the
 * kernel; interrupts go out through KVM_IRQFD on the GSI the VMM chose.
 * At DRIVER_OK each ready queue gets a `struct vq` and a worker thread
 * (devices/worker.h). Writing 0 to Status resets from any state: workers
 * stop, queues are forgotten, ioeventfds removed, the device's reset() runs.
 *
 * Without KVM (vm_fd < 0, the unit tests) a QueueNotify write signals the
 * kick eventfd from the register handler, and interrupts are plain writes
 * to the irq eventfd (vmmio_irq_fd()), which a test can read.
 *
 * How the VMM uses it (set-up, before any vCPU runs):
 *
 *     struct virtio_dev *rng;
 *     virtio_rng_create(&rng);              // 0 or -ENOMEM
 *     struct vmmio *t;
 *     struct vmmio_config c = {
 *         .vm_fd = vm_fd, .base = 0xd0000000, .gsi = 5, .gm = &gm,
 *         .dev = rng,
 *     };
 *     char frag[64];
 *
 *     if (!rng || vmmio_create(&t, &c) < 0) ...fail...
 *     bus_register(&mmio_bus, c.base, VMMIO_WINDOW_SIZE,
 *                  vmmio_bus_access, t, "virtio-rng");
 *     vmmio_cmdline(t, frag, sizeof(frag));   append to the kernel cmdline
 *     ...run the guest...
 *     vmmio_destroy(t);                        stops workers, closes fds
 *     virtio_dev_destroy(rng);                 the device is not the transport's
 *
 * A device with shared-memory regions (DAX) lists them in dev->shm[] with
 * id and len before vmmio_create(); the VMM maps each and tells the
 * transport where with vmmio_set_shm_base() before the guest boots.
 */
#ifndef STAINLESS_MMIO_VIRTIO_MMIO_H
#define STAINLESS_MMIO_VIRTIO_MMIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/gmem.h"
#include "devices/virtio.h"
#include "mmio/bus.h"

#define VMMIO_WINDOW_SIZE 0x1000ULL
#define VMMIO_MAGIC       0x74726976u   /* "virt" */
#define VMMIO_VERSION     2u
#define VMMIO_VENDOR_ID   0x534c5453u   /* "STLS" */

/* Register offsets (virtio 1.2 table 4.1). */
enum {
	VMMIO_MAGIC_VALUE      = 0x000, VMMIO_VERSION_REG     = 0x004,
	VMMIO_DEVICE_ID        = 0x008, VMMIO_VENDOR          = 0x00c,
	VMMIO_DEV_FEATURES     = 0x010, VMMIO_DEV_FEATURES_SEL = 0x014,
	VMMIO_DRV_FEATURES     = 0x020, VMMIO_DRV_FEATURES_SEL = 0x024,
	VMMIO_QUEUE_SEL        = 0x030, VMMIO_QUEUE_NUM_MAX   = 0x034,
	VMMIO_QUEUE_NUM        = 0x038, VMMIO_QUEUE_READY     = 0x044,
	VMMIO_QUEUE_NOTIFY     = 0x050, VMMIO_INT_STATUS      = 0x060,
	VMMIO_INT_ACK          = 0x064, VMMIO_STATUS          = 0x070,
	VMMIO_QUEUE_DESC_LOW   = 0x080, VMMIO_QUEUE_DESC_HIGH = 0x084,
	VMMIO_QUEUE_AVAIL_LOW  = 0x090, VMMIO_QUEUE_AVAIL_HIGH = 0x094,
	VMMIO_QUEUE_USED_LOW   = 0x0a0, VMMIO_QUEUE_USED_HIGH = 0x0a4,
	VMMIO_SHM_SEL          = 0x0ac, VMMIO_SHM_LEN_LOW     = 0x0b0,
	VMMIO_SHM_LEN_HIGH     = 0x0b4, VMMIO_SHM_BASE_LOW    = 0x0b8,
	VMMIO_SHM_BASE_HIGH    = 0x0bc, VMMIO_CONFIG_GEN      = 0x0fc,
	VMMIO_CONFIG           = 0x100,
};

#define VMMIO_INT_VRING  1u
#define VMMIO_INT_CONFIG 2u

struct vmmio_config {
	int vm_fd;                /* KVM VM fd; < 0: no KVM (tests) */
	uint64_t base;            /* guest-physical base of the 4 KiB window */
	unsigned gsi;             /* interrupt line, also the cmdline IRQ */
	const struct gmem *gm;    /* guest memory; must outlive the transport */
	struct virtio_dev *dev;   /* not owned; must outlive the transport */
};

struct vmmio;

/* Creates eventfds and, with KVM, the irqfd. 0 or -errno. */
int vmmio_create(struct vmmio **out, const struct vmmio_config *cfg);
/* Stops workers, removes ioeventfds and the irqfd, closes fds, frees. */
void vmmio_destroy(struct vmmio *t);

/* The bus_access_fn to register with opaque = the transport. Registers
 * are 32-bit and aligned; config space takes 8/16/32-bit aligned access. */
void vmmio_bus_access(void *opaque, uint64_t off, void *data, unsigned size,
		      bool is_write);

/* "virtio_mmio.device=4K@0xADDR:IRQ" into buf; length or -ENOSPC. */
int vmmio_cmdline(const struct vmmio *t, char *buf, size_t len);

/* Where the VMM placed shared-memory region `id`. 0 or -ENOENT. */
int vmmio_set_shm_base(struct vmmio *t, uint8_t id, uint64_t gpa);

/* The device's config space changed: bump ConfigGeneration, interrupt. */
void vmmio_config_changed(struct vmmio *t);

/* For tests and diagnostics. */
struct vmmio_queue_info {
	uint16_t num;
	bool ready;
	bool running;             /* a worker serves it */
	uint64_t desc, avail, used;
};
int vmmio_queue_info(struct vmmio *t, unsigned q, struct vmmio_queue_info *out);
uint32_t vmmio_status(const struct vmmio *t);
/* The features the driver wrote (meaningful once FEATURES_OK is set). */
uint64_t vmmio_features(struct vmmio *t);
int vmmio_irq_fd(const struct vmmio *t);
int vmmio_kick_fd(const struct vmmio *t, unsigned q);

#endif
