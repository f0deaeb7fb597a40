// SPDX-License-Identifier: GPL-2.0-only
/* virtio-fs DAX window (see dax.h). */
#include "devices/dax.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int dax_window_create(struct dax_window *w, uint64_t size, const char *name)
{
	char n[64];
	void *p;

	memset(w, 0, sizeof(*w));
	w->memfd = -1;
	if (size == 0 || size % DAX_PAGE)
		return -EINVAL;
	snprintf(n, sizeof(n), "stainless-dax-%s", name);
	w->memfd = memfd_create(n, MFD_CLOEXEC);
	if (w->memfd < 0)
		return -errno;
	if (ftruncate(w->memfd, (off_t)size) < 0)
		goto fail;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, w->memfd, 0);
	if (p == MAP_FAILED)
		goto fail;
	w->host = p;
	w->size = size;
	return 0;
fail:;
	int rc = -errno;

	close(w->memfd);
	w->memfd = -1;
	return rc;
}

void dax_window_destroy(struct dax_window *w)
{
	if (w->host)
		munmap(w->host, w->size);
	if (w->memfd >= 0)
		close(w->memfd);
	w->host = NULL;
	w->memfd = -1;
}

/* Guest-chosen offsets: whole pages, non-empty, inside the window, and
 * written so no sum can wrap. */
static bool range_ok(const struct dax_window *w, uint64_t moffset, uint64_t len)
{
	return len && !(moffset % DAX_PAGE) && !(len % DAX_PAGE) &&
	       moffset < w->size && len <= w->size - moffset;
}

int dax_map(struct dax_window *w, int fd, uint64_t foffset, uint64_t len,
	    uint64_t moffset, bool writable)
{
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);

	if (!range_ok(w, moffset, len) || foffset % DAX_PAGE || foffset > INT64_MAX - len)
		return -EINVAL;
	if (mmap(w->host + moffset, len, prot, MAP_SHARED | MAP_FIXED, fd,
		 (off_t)foffset) == MAP_FAILED)
		return -errno;
	atomic_fetch_add_explicit(&w->maps, 1, memory_order_relaxed);
	return 0;
}

int dax_unmap(struct dax_window *w, uint64_t moffset, uint64_t len)
{
	if (!range_ok(w, moffset, len))
		return -EINVAL;
	if (mmap(w->host + moffset, len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED | MAP_NORESERVE, w->memfd, (off_t)moffset) == MAP_FAILED)
		return -errno;
	atomic_fetch_add_explicit(&w->unmaps, 1, memory_order_relaxed);
	return 0;
}
