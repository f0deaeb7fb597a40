// SPDX-License-Identifier: GPL-2.0-only
/* A vhost-user frontend's memory table (see vhost_user_mem.h). */
#include "transport/vhost_user_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Every mapping of a region, for the SIGBUS handler: a table the handler
 * reads without locks (start 0: a free entry). The table, every retired
 * region and one table being built.
 */
#define VU_MAPS_MAX (2 * GMEM_MAX_REGIONS + VU_MEM_RETIRED_MAX)
static struct {
	_Atomic uintptr_t start;
	_Atomic size_t len;
} maps[VU_MAPS_MAX];

static bool maps_add(void *p, size_t len)
{
	for (unsigned i = 0; i < VU_MAPS_MAX; i++) {
		uintptr_t free_ = 0;
		if (atomic_compare_exchange_strong(&maps[i].start, &free_, (uintptr_t)p)) {
			atomic_store(&maps[i].len, len);
			return true;
		}
	}
	return false;
}

static void maps_remove(void *p)
{
	for (unsigned i = 0; i < VU_MAPS_MAX; i++)
		if (atomic_load(&maps[i].start) == (uintptr_t)p) {
			atomic_store(&maps[i].len, 0);
			atomic_store(&maps[i].start, 0);
			return;
		}
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	static const char msg[] = "stainless: vhost-user-fs: SIGBUS outside guest memory\n";

	(void)sig;
	(void)uc;
	for (unsigned i = 0; i < VU_MAPS_MAX; i++) {
		uintptr_t s = atomic_load(&maps[i].start);
		size_t len = atomic_load(&maps[i].len);
		if (s && a >= s && a - s < len) {
			/* Zero pages where the file went: the access completes on them. */
			if (mmap((void *)s, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
				break;
			gmem_note_lost();
			return;
		}
	}
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(128 + SIGBUS);
}

int vu_mem_guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL) < 0 ? -errno : 0;
}

void vu_mem_init(struct vu_mem *m)
{
	memset(m, 0, sizeof(*m));
	gmem_init(&m->gm);
}

static int fail(const char **why, const char *what, int rc)
{
	*why = what;
	return rc;
}

static void unmap_region(const struct gmem_region *g)
{
	/* The mapping starts fd_offset bytes before the region (below). */
	maps_remove(g->host - g->fd_offset);
	munmap(g->host - g->fd_offset, g->size + g->fd_offset);
	if (g->fd >= 0)
		close(g->fd);
}

/*
 * Maps one region. The frontend's offset need not be page aligned, so
 * the mapping starts at offset 0 of the file and the region lies
 * mmap_offset bytes in. The file must hold the whole region: touching a
 * page past its end would raise SIGBUS in this process.
 */
static int map_region(const struct vu_mem_region *d, int fd, struct gmem_region *g,
		      const char **why)
{
	uint64_t end = d->mmap_offset + d->size;
	struct stat st;
	void *p;

	if (d->size == 0)
		return fail(why, "memory region of size 0", -EINVAL);
	if (end < d->mmap_offset || d->gpa + d->size < d->gpa || d->uva + d->size < d->uva)
		return fail(why, "memory region wraps the 64-bit address space", -EINVAL);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return fail(why, "memory region fd is not a regular file (memfd, shm, hugetlbfs)",
			    -EINVAL);
	if ((uint64_t)st.st_size < end)
		return fail(why, "memory region runs past the end of its file", -EINVAL);
	/* A file that can still be sealed must be sealed against shrinking (see the .h). */
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals >= 0 && !(seals & F_SEAL_SEAL) && !(seals & F_SEAL_SHRINK))
		return fail(why, "memory region's memfd can be sealed but lacks F_SEAL_SHRINK", -EINVAL);
	p = mmap(NULL, (size_t)end, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail(why, "cannot mmap a memory region", -errno);
	if (!maps_add(p, (size_t)end)) {
		munmap(p, (size_t)end);
		return fail(why, "too many memory mappings at once", -ENOSPC);
	}
	*g = (struct gmem_region){
		.gpa = d->gpa, .size = d->size, .host = (uint8_t *)p + d->mmap_offset,
		.fd = fd, .fd_offset = d->mmap_offset, .has_uva = true, .uva = d->uva,
	};
	return 0;
}

/* A region leaves the table: unmapped now, or kept while requests may
 * still point into it. */
static int retire(struct vu_mem *m, const struct gmem_region *g, const char **why)
{
	if (!m->keep_retired) {
		unmap_region(g);
		return 0;
	}
	if (m->nretired >= VU_MEM_RETIRED_MAX)
		return fail(why, "too many memory table changes while rings run", -ENOSPC);
	m->retired[m->nretired++] = *g;
	return 0;
}

static const char *add_why(int rc)
{
	return rc == -EEXIST ? "memory regions overlap" :
	       rc == -ENOSPC ? "more memory regions than GET_MAX_MEM_SLOTS" :
			       "memory region wraps the 64-bit address space";
}

int vu_mem_set_table(struct vu_mem *m, const struct vu_mem_region *r, unsigned n,
		     int *fds, const char **why)
{
	struct gmem next;
	unsigned i;
	int rc = 0;

	gmem_init(&next);
	for (i = 0; i < n && rc == 0; i++) {
		struct gmem_region g;

		rc = map_region(&r[i], fds[i], &g, why);
		if (rc)
			break;
		fds[i] = -1;
		rc = gmem_add(&next, &g);
		if (rc) {
			*why = add_why(rc);
			unmap_region(&g);
		}
	}
	if (rc) {
		for (unsigned k = 0; k < next.nr; k++)
			unmap_region(&next.r[k]);
		for (unsigned k = 0; k < n; k++)
			if (fds[k] >= 0) {
				close(fds[k]);
				fds[k] = -1;
			}
		return rc;
	}
	if (m->keep_retired && m->nretired + m->gm.nr > VU_MEM_RETIRED_MAX) {
		for (unsigned k = 0; k < next.nr; k++)
			unmap_region(&next.r[k]);
		return fail(why, "too many memory table changes while rings run", -ENOSPC);
	}
	for (unsigned k = 0; k < m->gm.nr; k++)
		(void)retire(m, &m->gm.r[k], why);   /* room checked above */
	m->gm = next;
	return 0;
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool vu_mem_same_table(const struct vu_mem *m, const struct vu_mem_region *r,
		       unsigned n, const int *fds)
{
	if (m->gm.nr != n)
		return false;
	for (unsigned i = 0; i < n; i++) {
		const struct gmem_region *g = &m->gm.r[i];

		if (g->gpa != r[i].gpa || g->size != r[i].size || g->uva != r[i].uva ||
		    g->fd_offset != r[i].mmap_offset || !same_file(g->fd, fds[i]))
			return false;
	}
	return true;
}

int vu_mem_add(struct vu_mem *m, const struct vu_mem_region *r, int *fd, const char **why)
{
	struct gmem_region g;
	int rc = map_region(r, *fd, &g, why);

	if (rc) {
		close(*fd);
		*fd = -1;
		return rc;
	}
	*fd = -1;
	rc = gmem_add(&m->gm, &g);
	if (rc) {
		*why = add_why(rc);
		unmap_region(&g);
	}
	return rc;
}

int vu_mem_remove(struct vu_mem *m, const struct vu_mem_region *r, const char **why)
{
	struct gmem_region g;

	if (gmem_remove(&m->gm, r->gpa, r->size, &g) < 0)
		return fail(why, "REM_MEM_REG names no region in the table", -ENOENT);
	if (retire(m, &g, why) < 0) {
		/* Nowhere to keep it: back into the table rather than lose it. */
		(void)gmem_add(&m->gm, &g);
		return -ENOSPC;
	}
	return 0;
}

void vu_mem_drop_retired(struct vu_mem *m)
{
	for (unsigned i = 0; i < m->nretired; i++)
		unmap_region(&m->retired[i]);
	m->nretired = 0;
}

void vu_mem_release(struct vu_mem *m)
{
	vu_mem_drop_retired(m);
	for (unsigned i = 0; i < m->gm.nr; i++)
		unmap_region(&m->gm.r[i]);
	gmem_init(&m->gm);
}
