// SPDX-License-Identifier: GPL-2.0-only
/* Checked guest-physical memory accessor (see gmem.h). */
#include "devices/gmem.h"

#include <errno.h>
#include <string.h>

void gmem_init(struct gmem *gm)
{
	memset(gm, 0, sizeof(*gm));
}

static int ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

int gmem_add_region(struct gmem *gm, uint64_t gpa, uint64_t size, void *host,
		    int fd, uint64_t fd_offset)
{
	if (gm->nr >= GMEM_MAX_REGIONS)
		return -ENOSPC;
	if (size == 0 || gpa + size < gpa || !host)
		return -EINVAL;
	for (unsigned i = 0; i < gm->nr; i++)
		if (ranges_overlap(gpa, size, gm->r[i].gpa, gm->r[i].size))
			return -EEXIST;
	gm->r[gm->nr++] = (struct gmem_region){
		.gpa = gpa, .size = size, .host = host,
		.fd = fd, .fd_offset = fd_offset,
	};
	return 0;
}

void *gmem_ptr(const struct gmem *gm, uint64_t gpa, uint64_t len)
{
	for (unsigned i = 0; i < gm->nr; i++) {
		const struct gmem_region *r = &gm->r[i];

		/* Written so nothing can wrap: gpa - r->gpa < r->size, then
		 * len fits in what remains of the region. */
		if (gpa < r->gpa || gpa - r->gpa >= r->size)
			continue;
		if (len > r->size - (gpa - r->gpa))
			return NULL;
		return r->host + (gpa - r->gpa);
	}
	return NULL;
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
