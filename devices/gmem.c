// SPDX-License-Identifier: GPL-2.0-only
/* Checked guest-physical memory accessor (see gmem.h). */
#include "devices/gmem.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

static atomic_uint lost;

void gmem_note_lost(void)
{
	atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
}

unsigned gmem_lost(void)
{
	return atomic_load_explicit(&lost, memory_order_relaxed);
}

void gmem_init(struct gmem *gm)
{
	memset(gm, 0, sizeof(*gm));
}

static int ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * The one range check: is [addr, addr+len) inside [base, base+size)?
 * Written so nothing can wrap: addr - base < size, then len fits in what
 * remains of the region.
 */
static bool range_inside(uint64_t base, uint64_t size, uint64_t addr, uint64_t len)
{
	return addr >= base && addr - base < size && len <= size - (addr - base);
}

int gmem_add(struct gmem *gm, const struct gmem_region *r)
{
	if (gm->nr >= GMEM_MAX_REGIONS)
		return -ENOSPC;
	if (r->size == 0 || r->gpa + r->size < r->gpa || !r->host)
		return -EINVAL;
	if (r->has_uva && r->uva + r->size < r->uva)
		return -EINVAL;
	for (unsigned i = 0; i < gm->nr; i++)
		if (ranges_overlap(r->gpa, r->size, gm->r[i].gpa, gm->r[i].size))
			return -EEXIST;
	gm->r[gm->nr++] = *r;
	return 0;
}

int gmem_add_region(struct gmem *gm, uint64_t gpa, uint64_t size, void *host,
		    int fd, uint64_t fd_offset)
{
	const struct gmem_region r = {
		.gpa = gpa, .size = size, .host = host, .fd = fd, .fd_offset = fd_offset,
	};

	return gmem_add(gm, &r);
}

int gmem_remove(struct gmem *gm, uint64_t gpa, uint64_t size, struct gmem_region *out)
{
	for (unsigned i = 0; i < gm->nr; i++) {
		if (gm->r[i].gpa != gpa || gm->r[i].size != size)
			continue;
		if (out)
			*out = gm->r[i];
		gm->r[i] = gm->r[--gm->nr];
		return 0;
	}
	return -ENOENT;
}

void *gmem_ptr(const struct gmem *gm, uint64_t gpa, uint64_t len)
{
	for (unsigned i = 0; i < gm->nr; i++) {
		const struct gmem_region *r = &gm->r[i];

		/* Regions do not overlap: the one holding gpa decides. */
		if (gpa < r->gpa || gpa - r->gpa >= r->size)
			continue;
		if (!range_inside(r->gpa, r->size, gpa, len))
			return NULL;
		return r->host + (gpa - r->gpa);
	}
	return NULL;
}

int gmem_uva_to_gpa(const struct gmem *gm, uint64_t uva, uint64_t len, uint64_t *gpa)
{
	for (unsigned i = 0; i < gm->nr; i++) {
		const struct gmem_region *r = &gm->r[i];

		/* uva ranges may alias each other; the first that holds all of it. */
		if (r->has_uva && range_inside(r->uva, r->size, uva, len)) {
			*gpa = r->gpa + (uva - r->uva);
			return 0;
		}
	}
	return -EFAULT;
}

int gmem_read(const struct gmem *gm, uint64_t gpa, void *dst, size_t len)
{
	const void *p = gmem_ptr(gm, gpa, len);

	if (!p)
		return -EFAULT;
	memcpy(dst, p, len); /* guest */
	return 0;
}

int gmem_write(const struct gmem *gm, uint64_t gpa, const void *src, size_t len)
{
	void *p = gmem_ptr(gm, gpa, len);

	if (!p)
		return -EFAULT;
	memcpy(p, src, len);
	return 0;
}
