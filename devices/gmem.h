/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Checked guest-physical memory. Every access a device (or a vhost-user
 * peer's transport) makes to guest memory goes through gmem_ptr() or the
 * copy helpers, which validate the whole [gpa, gpa+len) range, overflow
 * included, against one region. Guest memory is shared with a running
 * guest, so callers copy headers out before parsing them.
 */
#ifndef STAINLESS_DEVICES_GMEM_H
#define STAINLESS_DEVICES_GMEM_H

#include <stddef.h>
#include <stdint.h>

#define GMEM_MAX_REGIONS 8

struct gmem_region {
	uint64_t gpa;
	uint64_t size;
	uint8_t *host;
	int fd;            /* backing fd (memfd) or -1; not owned */
	uint64_t fd_offset;
};

struct gmem {
	unsigned nr;
	struct gmem_region r[GMEM_MAX_REGIONS];
};

void gmem_init(struct gmem *gm);
/* Regions must not overlap and must not wrap the 64-bit space. */
int gmem_add_region(struct gmem *gm, uint64_t gpa, uint64_t size, void *host,
		    int fd, uint64_t fd_offset);
/* Host pointer for [gpa, gpa+len) if it lies inside one region, else NULL. */
void *gmem_ptr(const struct gmem *gm, uint64_t gpa, uint64_t len);
/* 0 or -EFAULT. */
int gmem_read(const struct gmem *gm, uint64_t gpa, void *dst, size_t len);
int gmem_write(const struct gmem *gm, uint64_t gpa, const void *src, size_t len);

#endif
