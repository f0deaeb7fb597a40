// SPDX-License-Identifier: GPL-2.0-only
/* MMIO/PIO address-range dispatch (see bus.h). */
#include "mmio/bus.h"

#include <errno.h>
#include <string.h>

int bus_register(struct bus *bus, uint64_t base, uint64_t len,
		 bus_access_fn *access, void *opaque, const char *name)
{
	if (bus->nr >= BUS_MAX_RANGES)
		return -ENOSPC;
	if (len == 0 || base + len < base || !access)
		return -EINVAL;
	for (unsigned i = 0; i < bus->nr; i++) {
		const struct bus_range *r = &bus->r[i];

		if (base < r->base + r->len && r->base < base + len)
			return -EEXIST;
	}
	bus->r[bus->nr++] = (struct bus_range){
		.base = base, .len = len, .access = access,
		.opaque = opaque, .name = name,
	};
	return 0;
}

bool bus_dispatch(const struct bus *bus, uint64_t addr, void *data,
		  unsigned size, bool is_write)
{
	for (unsigned i = 0; i < bus->nr; i++) {
		const struct bus_range *r = &bus->r[i];

		if (addr < r->base || addr - r->base >= r->len)
			continue;
		if (size > r->len - (addr - r->base))
			break; /* straddles the end of the range */
		r->access(r->opaque, addr - r->base, data, size, is_write);
		return true;
	}
	if (!is_write)
		memset(data, 0xff, size);
	return false;
}
