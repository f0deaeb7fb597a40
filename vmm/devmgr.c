// SPDX-License-Identifier: GPL-2.0-only
/* The device manager of `stainless run` (see devmgr.h). */
#include "vmm/devmgr.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "devices/gmem.h"
#include "devices/virtio.h"
#include "devices/virtio_9p.h"
#include "devices/virtio_fs.h"
#include "devices/virtio_rng.h"
#include "devices/virtio_vsock.h"
#include "mmio/virtio_mmio.h"
#include "base/fail.h"
#include "vmm/kvm.h"

#include <linux/kvm.h>

#define SERIAL_PORT_BASE 0x3f8
#define DEFAULT_CMDLINE  "console=ttyS0 reboot=k panic=-1"

/* Device memory regions are placed on SHM_ALIGN boundaries. */
static uint64_t shm_align_up(uint64_t v)
{
	return (v + SHM_ALIGN - 1) & ~(SHM_ALIGN - 1);
}

/* The guest-physical address width KVM reports, 36 if it says nothing. */
static unsigned phys_bits(const struct kvm *kvm)
{
	for (unsigned i = 0; i < kvm->cpuid->nent; i++)
		if (kvm->cpuid->entries[i].function == 0x80000008)
			return kvm->cpuid->entries[i].eax & 0xff;
	return 36;
}

/* The UART's interrupt line: COM1's IRQ on the in-kernel IOAPIC. */
static void serial_irq(void *ctx, int level)
{
	struct devmgr *d = ctx;

	kvm_irq_line(d->kvm, SERIAL_IRQ, level);
}

/* The keyboard's interrupt line: IRQ 1, as on a PC. */
static void i8042_irq(void *ctx, int level)
{
	struct devmgr *d = ctx;

	kvm_irq_line(d->kvm, I8042_KBD_IRQ, level);
}

/*
 * Give each of a device's shared-memory regions (a DAX window) its own
 * memory slot above RAM, 1 GiB aligned, and tell the transport where.
 */
static int place_shm(struct devmgr *d, struct devmgr_virtio *v, const char *name)
{
	for (unsigned i = 0; i < v->dev->nr_shm; i++) {
		struct virtio_shm *shm = &v->dev->shm[i];
		uint64_t gpa = d->next_shm_gpa, span = shm_align_up(shm->len);
		unsigned bits = phys_bits(d->kvm);
		int rc;

		if (gpa + span > (1ull << bits))
			return fail(-ENOSPC, "%s: a %llu MiB window does not fit in the "
					   "guest's %u-bit physical address space", name,
					   (unsigned long long)(shm->len >> 20), bits);
		rc = kvm_add_memslot(d->kvm, gpa, shm->len, shm->host);
		d->has_dax |= rc == 0;
		if (rc == 0)
			rc = vmmio_set_shm_base(v->transport, shm->id, gpa);
		if (rc < 0)
			return fail(rc, "%s: cannot map its shared memory: %s", name,
					   strerror(-rc));
		d->next_shm_gpa = gpa + span;
	}
	return 0;
}

/* Puts dev (taken, destroyed on failure) on the next virtio-mmio window. */
static int attach_virtio(struct devmgr *d, struct virtio_dev *dev, const char *name)
{
	struct devmgr_virtio *v = &d->virtio[d->nr_virtio];
	size_t used = strlen(d->cmdline);
	int rc;

	if (d->nr_virtio >= DEVMGR_MAX_VIRTIO) {
		virtio_dev_destroy(dev);
		return fail(-ENOSPC, "%s: too many devices (at most %d)", name,
				   DEVMGR_MAX_VIRTIO);
	}
	struct vmmio_config c = {
		.vm_fd = d->kvm->vm_fd,
		.base = VIRTIO_MMIO_BASE + d->nr_virtio * VIRTIO_MMIO_SIZE,
		.gsi = VIRTIO_IRQ_FIRST + d->nr_virtio,
		.gm = d->gmem,
		.dev = dev,
	};
	rc = vmmio_create(&v->transport, &c);
	if (rc < 0) {
		virtio_dev_destroy(dev);
		return fail(rc, "%s: virtio-mmio transport: %s", name, strerror(-rc));
	}
	v->dev = dev;
	d->nr_virtio++;
	if ((rc = place_shm(d, v, name)) < 0)
		return rc;
	rc = bus_register(&d->mmio, c.base, VMMIO_WINDOW_SIZE, vmmio_bus_access,
			  v->transport, name);
	if (rc < 0)
		return fail(rc, "%s: cannot map its registers: %s", name, strerror(-rc));
	d->cmdline[used++] = ' ';
	rc = vmmio_cmdline(v->transport, d->cmdline + used, sizeof(d->cmdline) - used);
	if (rc < 0)
		return fail(rc, "%s: command line full", name);
	return 0;
}

static int setup_shares(struct devmgr *d, const struct vm_config *cfg)
{
	for (unsigned i = 0; i < cfg->nr_shares; i++) {
		const struct vm_share *sh = &cfg->shares[i];
		struct fs_options o = sh->opts;
		struct virtio_dev *dev = NULL;
		struct fuse_hub *hub = NULL;
		int rc;

		/* One request queue per vCPU: Linux maps each CPU to one. */
		if (!sh->is_9p && !o.queues)
			o.queues = cfg->cpus < FS_QUEUES_MAX ? cfg->cpus : FS_QUEUES_MAX;
		if (sh->is_hub)
			rc = virtio_fs_create_hub(&dev, sh->tag, sh->dir, sh->host_dir, &o, &hub);
		else
			rc = sh->is_9p ? virtio_9p_create(&dev, sh->tag, sh->dir, &o)
				       : virtio_fs_create(&dev, sh->tag, sh->dir, &o);
		if (rc < 0)
			return fail(rc, "%s %s=%s: cannot share it: %s",
					   sh->is_9p ? "--9p" : sh->is_hub ? "--fs-hub" : "--fs",
					   sh->tag, sh->dir, strerror(-rc));
		if (sh->is_hub && sh->hub_out)
			*sh->hub_out = hub;
		if ((rc = attach_virtio(d, dev, sh->is_9p ? "virtio-9p" : "virtio-fs")) < 0)
			return rc;
		snprintf(d->virtio[d->nr_virtio - 1].label, sizeof(d->virtio[0].label),
			 "%s tag=%s", sh->is_9p ? "virtio-9p" : "virtio-fs", sh->tag);
	}
	return 0;
}

int devmgr_open_host(struct devmgr *d, const struct vm_config *cfg)
{
	int rc;

	if (!cfg->vsock.cid)
		return 0;
	if ((rc = vsock_host_open(&d->vsock_host, &cfg->vsock)) < 0)
		return fail(rc, "--vsock: cannot listen on %s: %s", cfg->vsock.uds,
				   strerror(-rc));
	d->vsock_open = true;
	return 0;
}

static int setup_vsock(struct devmgr *d, const struct vm_config *cfg)
{
	struct virtio_dev *dev;
	int rc;

	if (!d->vsock_open)
		return 0;
	d->vsock_open = false; /* the device owns the sockets now */
	rc = virtio_vsock_create(&dev, &cfg->vsock, &d->vsock_host);
	if (rc < 0)
		return fail(rc, "virtio-vsock: cannot create device: %s", strerror(-rc));
	return attach_virtio(d, dev, "virtio-vsock");
}

int devmgr_setup(struct devmgr *d, const struct devmgr_config *c)
{
	int rc;

	d->kvm = c->kvm;
	d->gmem = c->gmem;
	d->stats = c->cfg->stats;
	/* Device memory (DAX windows) starts above all RAM. */
	d->next_shm_gpa = shm_align_up(c->ram_end);
	serial_init(&d->serial, c->console_fd, serial_irq, d);
	rc = bus_register(&d->pio, SERIAL_PORT_BASE, SERIAL_PORTS, serial_access,
			  &d->serial, "ttyS0");
	i8042_init(&d->i8042, c->reset, c->ctx, i8042_irq, d);
	if (rc == 0)
		rc = bus_register(&d->pio, I8042_DATA_PORT, I8042_PORTS, i8042_access, &d->i8042,
				  "i8042");
	if (rc < 0)
		return fail(rc, "cannot register legacy devices: %s", strerror(-rc));
	if (c->cfg->rng) {
		struct virtio_dev *rng;

		rc = virtio_rng_create(&rng);
		if (rc < 0)
			return fail(rc, "virtio-rng: cannot create device: %s", strerror(-rc));
		if ((rc = attach_virtio(d, rng, "virtio-rng")) < 0)
			return rc;
	}
	if ((rc = setup_vsock(d, c->cfg)) < 0)
		return rc;
	return setup_shares(d, c->cfg);
}

/* One line per device: how many requests each queue carried, and the device's own counts. */
static void print_stats(const struct devmgr *d, FILE *f)
{
	for (unsigned i = 0; i < d->nr_virtio; i++) {
		const struct devmgr_virtio *v = &d->virtio[i];
		char line[512];
		int n = snprintf(line, sizeof(line), "stainless run: stats: %s",
				 v->label[0] ? v->label : v->dev->ops->name);

		for (unsigned q = 0; q < virtio_dev_num_queues(v->dev) && n > 0 &&
		     (size_t)n < sizeof(line); q++)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " q%u=%llu", q,
				      (unsigned long long)virtio_dev_requests(v->dev, q));
		if (v->dev->ops->stats && n > 0 && (size_t)n < sizeof(line))
			v->dev->ops->stats(v->dev, line + n, sizeof(line) - (size_t)n);
		fprintf(f, "%s\n", line);
	}
}

void devmgr_destroy(struct devmgr *d)
{
	/* Workers stop before the memory they serve goes away. */
	for (unsigned i = 0; i < d->nr_virtio; i++)
		vmmio_destroy(d->virtio[i].transport);
	/* Every worker is stopped: the counts are final. */
	if (d->stats)
		print_stats(d, stderr);
	for (unsigned i = 0; i < d->nr_virtio; i++)
		virtio_dev_destroy(d->virtio[i].dev);
	d->nr_virtio = 0;
	if (d->vsock_open)
		vsock_host_close(&d->vsock_host);
	d->vsock_open = false;
	serial_destroy(&d->serial);
	i8042_destroy(&d->i8042);
}

int devmgr_guest_cmdline(const struct devmgr *d, const char *base, char *buf, size_t n)
{
	int rc = snprintf(buf, n, "%s%s", *base ? base : DEFAULT_CMDLINE, d->cmdline);

	return rc < 0 || (size_t)rc >= n ? -E2BIG : 0;
}
