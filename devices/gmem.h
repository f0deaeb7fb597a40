/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Checked guest-physical memory. Every access a device (or a vhost-user
 * peer's transport) makes to guest memory goes through gmem_ptr() or the
 * copy helpers, which validate the whole [gpa, gpa+len) range, overflow
 * included, against a table of regions. Guest memory is shared with a
 * running guest, so callers copy headers out before parsing them.
 *
 * A vhost-user frontend names its rings by its own virtual addresses;
 * regions it describes carry that address too (uva), and gmem_uva_to_gpa()
 * translates through the same range check.
 *
 * The table is not locked: change it only while nothing reads it (the
 * in-VMM table is built before the vCPUs start; the vhost-user backend
 * stops its rings around a change).
 */
#ifndef STAINLESS_DEVICES_GMEM_H
#define STAINLESS_DEVICES_GMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A vhost-user frontend may describe this many (libvhost-user's limit). */
#define GMEM_MAX_REGIONS 32

struct gmem_region {
	uint64_t gpa;
	uint64_t size;
	uint8_t *host;
	int fd;            /* backing fd (memfd) or -1; not owned */
	uint64_t fd_offset;
	bool has_uva;      /* vhost-user: the frontend's address of gpa */
	uint64_t uva;
};

struct gmem {
	unsigned nr;
	struct gmem_region r[GMEM_MAX_REGIONS];
};

void gmem_init(struct gmem *gm);
/* Regions must not overlap and must not wrap the 64-bit space (nor may
 * their uva range). 0, -EINVAL, -EEXIST (overlap) or -ENOSPC. */
int gmem_add(struct gmem *gm, const struct gmem_region *r);
int gmem_add_region(struct gmem *gm, uint64_t gpa, uint64_t size, void *host,
		    int fd, uint64_t fd_offset);
/* Removes the region that is exactly [gpa, gpa+size) into *out (may be
 * NULL): 0 or -ENOENT. */
int gmem_remove(struct gmem *gm, uint64_t gpa, uint64_t size, struct gmem_region *out);
/*
 * Guest memory that went away under its mapping (a vhost-user frontend
 * truncated its memory file): the transport that noticed counts it
 * (async-signal-safe: from its SIGBUS handler), and every queue created
 * before it stops as broken at its next pop (vq.c), since what it reads
 * from then on is not the guest's.
 */
void gmem_note_lost(void);
unsigned gmem_lost(void);

/* Host pointer for [gpa, gpa+len) if it lies inside one region, else NULL. */
void *gmem_ptr(const struct gmem *gm, uint64_t gpa, uint64_t len);
/* The gpa of frontend address [uva, uva+len) inside one region: 0 or -EFAULT. */
int gmem_uva_to_gpa(const struct gmem *gm, uint64_t uva, uint64_t len, uint64_t *gpa);
/* 0 or -EFAULT. */
int gmem_read(const struct gmem *gm, uint64_t gpa, void *dst, size_t len);
int gmem_write(const struct gmem *gm, uint64_t gpa, const void *src, size_t len);

#endif
