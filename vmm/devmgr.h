/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device manager of `stainless run`: where each device lives in the
 * guest and how it raises interrupts. It owns the port and MMIO buses, the
 * legacy devices (8250 UART on COM1, i8042 for reset and the keyboard),
 * and the virtio devices, each on its own virtio-mmio window (VIRTIO_MMIO_BASE upward,
 * one IOAPIC pin each from VIRTIO_IRQ_FIRST) with its shared-memory
 * regions (DAX windows) in memory slots above RAM; and it writes what the
 * guest must be told about them on its kernel command line (no ACPI).
 */
#ifndef STAINLESS_VMM_DEVMGR_H
#define STAINLESS_VMM_DEVMGR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmio/bus.h"
#include "vmm/vm_config.h"
#include "vmm/i8042.h"
#include "vmm/layout.h"
#include "vmm/serial.h"

struct gmem;
struct kvm;
struct virtio_dev;
struct vmmio;

#define DEVMGR_MAX_VIRTIO (IOAPIC_PINS - VIRTIO_IRQ_FIRST)

struct devmgr_virtio {
	struct virtio_dev *dev;
	struct vmmio *transport;
	char label[64];           /* "virtio-fs tag=TAG" for --stats; "" = ops->name */
};

struct devmgr {
	struct kvm *kvm;
	struct gmem *gmem;
	struct bus pio, mmio;
	struct serial serial;
	struct i8042 i8042;
	struct devmgr_virtio virtio[DEVMGR_MAX_VIRTIO];
	unsigned nr_virtio;
	uint64_t next_shm_gpa;    /* where the next device memory region goes */
	bool has_dax;             /* a device memory region is mapped */
	bool stats;               /* --stats: per-queue request counts at exit */
	bool vsock_open;          /* vsock_host holds --vsock's sockets, not yet a device's */
	struct vsock_host vsock_host;
	char cmdline[DEVMGR_MAX_VIRTIO * 48]; /* " virtio_mmio.device=..." each */
};

struct devmgr_config {
	struct kvm *kvm;
	struct gmem *gmem;
	uint64_t ram_end;         /* first guest-physical address above RAM */
	int console_fd;           /* the UART's output */
	void (*reset)(void *ctx); /* the guest asked for a reset (i8042) */
	void *ctx;
	const struct vm_config *cfg; /* --rng, --fs, --9p, --cpus, --stats */
};

/*
 * What a device reaches on the host that the sandbox hides: --vsock's
 * listening socket and folder. Before sandbox_lockdown(); 0, or -errno
 * after one clear line on stderr.
 */
int devmgr_open_host(struct devmgr *d, const struct vm_config *cfg);

/*
 * Creates and places every device cfg asks for. 0, or -errno after one
 * clear line on stderr; devmgr_destroy() cleans up either way.
 */
int devmgr_setup(struct devmgr *d, const struct devmgr_config *c);

/* Stops the devices' workers and frees them (before guest memory goes);
 * with --stats first prints one line per device on stderr:
 * "stainless run: stats: virtio-fs tag=TAG q0=N q1=N ..." (requests each
 * queue carried; for virtio-fs q0 is hiprio, q1.. the request queues). */
void devmgr_destroy(struct devmgr *d);

/*
 * The guest's kernel command line: base (the user's, or DEFAULT_CMDLINE
 * when empty) and what the devices add. 0 or -E2BIG.
 */
int devmgr_guest_cmdline(const struct devmgr *d, const char *base, char *buf, size_t n);

#endif
