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
 *
 * A frontend that shrinks its memory file after handing it over. Where
 * the fd can still take seals (a memfd made with MFD_ALLOW_SEALING whose
 * seals are not sealed) it must carry F_SEAL_SHRINK, or the region is
 * refused: QEMU's memory-backend-memfd seals shrink, grow and seal itself
 * by default (seal=on) and, with seal=off, makes a memfd that takes no
 * seals, so neither is refused; nor are files that take none (/dev/shm,
 * hugetlbfs). Where nothing forbids the shrink, touching a page past the
 * new end raises SIGBUS in whatever thread touched it, deep inside a
 * server that handles the request in place. vu_mem_guard_install()'s
 * handler, for a fault inside a mapped region, replaces the whole
 * mapping with anonymous zero pages and counts the memory lost
 * (gmem_note_lost()): the faulting access then completes on those pages,
 * the request is answered into memory no one reads, and every ring stops
 * as broken at its next pop. Why not jump out of the request
 * (sigsetjmp): the fault may come in any server code, holding any lock or
 * allocation, and nothing that unwinds past those is sound; the copy
 * goes on instead, on memory that is merely wrong, which the checked
 * accessor and the servers already treat as hostile input. Why not
 * fstat() before each access: the frontend can shrink the file right
 * after. A fault anywhere else is no frontend's doing: one line, and the
 * process ends as the signal would have ended it (status 128 + SIGBUS).
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
 * Installs the SIGBUS handler (see the top), once per process, before any
 * thread's seccomp filter (it needs sigaction; the handler itself only
 * mmap()s and writes). 0 or -errno.
 */
int vu_mem_guard_install(void);

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
