/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A vhost-user frontend's memory table, mapped into this process: each
 * region arrives as (gpa, size, frontend address, offset) with an fd
 * (SCM_RIGHTS), is checked, mmapped MAP_SHARED and entered into the same
 * checked accessor the in-VMM devices use (devices/gmem.h), which then
 * translates guest addresses and the frontend's ring addresses alike.
 *
 * Requests a ring's worker still holds (a parked lock waiting for its
 * reply) keep pointers into the regions they came from, so while a device
 * may hold such requests (vu_mem.keep_retired) a replaced or removed
 * region is not unmapped but retired, and unmapped at vu_mem_drop_retired()
 * after a device reset or at vu_mem_release().
 *
 * Not locked: the caller stops every ring that reads the table before it
 * changes it.
 */
#ifndef STAINLESS_TRANSPORT_VHOST_USER_MEM_H
#define STAINLESS_TRANSPORT_VHOST_USER_MEM_H

#include <stdbool.h>

#include "devices/gmem.h"
#include "transport/vhost_user.h"

/* Mappings kept after they left the table; more changes fail. */
#define VU_MEM_RETIRED_MAX 64

struct vu_mem {
	struct gmem gm;             /* region fds are owned here */
	bool keep_retired;
	unsigned nretired;
	struct gmem_region retired[VU_MEM_RETIRED_MAX];
};

void vu_mem_init(struct vu_mem *m);

/*
 * Replaces the table with n regions, taking fds[0..n) (each set to -1 once
 * taken: closed on failure, owned by the table on success). On failure the
 * old table stays. 0 or -errno with *why.
 */
int vu_mem_set_table(struct vu_mem *m, const struct vu_mem_region *r, unsigned n,
		     int *fds, const char **why);
/* Is the table already exactly this (same ranges and the same files)? */
bool vu_mem_same_table(const struct vu_mem *m, const struct vu_mem_region *r,
		       unsigned n, const int *fds);
/* One region more (CONFIGURE_MEM_SLOTS), taking *fd as above. */
int vu_mem_add(struct vu_mem *m, const struct vu_mem_region *r, int *fd, const char **why);
/* The region with this gpa and size leaves the table. */
int vu_mem_remove(struct vu_mem *m, const struct vu_mem_region *r, const char **why);

void vu_mem_drop_retired(struct vu_mem *m);
/* Unmaps and closes everything. */
void vu_mem_release(struct vu_mem *m);

#endif
