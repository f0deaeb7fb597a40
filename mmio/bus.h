/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address-range dispatch for the exits vCPUs take to userspace: MMIO
 * (KVM_EXIT_MMIO) and port I/O (KVM_EXIT_IO) each have their own bus.
 * Ranges are registered during set-up, before any vCPU runs, and never
 * change afterwards, so lookups take no lock; a device that keeps state
 * locks it itself.
 */
#ifndef STAINLESS_MMIO_BUS_H
#define STAINLESS_MMIO_BUS_H

#include <stdbool.h>
#include <stdint.h>

#define BUS_MAX_RANGES 64

/* off is relative to the range base; size is 1, 2, 4 or 8. */
typedef void bus_access_fn(void *opaque, uint64_t off, void *data,
			   unsigned size, bool is_write);

struct bus_range {
	uint64_t base;
	uint64_t len;
	bus_access_fn *access;
	void *opaque;
	const char *name;
};

struct bus {
	unsigned nr;
	struct bus_range r[BUS_MAX_RANGES];
};

int bus_register(struct bus *bus, uint64_t base, uint64_t len,
		 bus_access_fn *access, void *opaque, const char *name);
/*
 * Dispatch one access. Returns false when nothing claims the address;
 * then reads see all-ones, like an unclaimed bus, and writes are dropped.
 */
bool bus_dispatch(const struct bus *bus, uint64_t addr, void *data,
		  unsigned size, bool is_write);

#endif
