/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake virtio driver for unit tests and the queue benchmark: it plays
 * the guest. Guest memory is an anonymous mapping registered as one gmem
 * region; rings are laid out there exactly as a guest driver would, and
 * the transport is driven through its bus access function (vm_fd = -1).
 *
 * Each unit test is one .c file linked against libstainless.a, so this
 * header is #included (its functions are static) rather than linked.
 */
#ifndef STAINLESS_TESTS_FAKE_DRIVER_H
#define STAINLESS_TESTS_FAKE_DRIVER_H

#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "devices/gmem.h"
#include "devices/vq.h"
#include "mmio/virtio_mmio.h"

#define FD_GPA_BASE 0x40000000ULL

struct fd_mem {
	uint8_t *host;
	uint64_t size;
	uint64_t next;        /* bump allocator, offset from FD_GPA_BASE */
	struct gmem gm;
};

/* size bytes of fake guest RAM at FD_GPA_BASE. MAP_NORESERVE so tests may
 * ask for gigabytes they never touch (length-overflow checks). */
static inline int fd_mem_init(struct fd_mem *m, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	memset(m, 0, sizeof(*m));
	m->host = p;
	m->size = size;
	m->next = 0x1000; /* keep the first page free: tests probe edges */
	gmem_init(&m->gm);
	return gmem_add_region(&m->gm, FD_GPA_BASE, size, p, -1, 0);
}

static inline void fd_mem_free(struct fd_mem *m)
{
	munmap(m->host, m->size);
}

static inline uint64_t fd_alloc(struct fd_mem *m, uint64_t len, uint64_t align)
{
	uint64_t off = (m->next + align - 1) & ~(align - 1);

	m->next = off + len;
	return FD_GPA_BASE + off;
}

static inline void *fd_host(struct fd_mem *m, uint64_t gpa)
{
	return m->host + (gpa - FD_GPA_BASE);
}

/* One split ring as the driver sees it. */
struct fake_vq {
	struct fd_mem *m;
	uint16_t size;
	uint64_t desc, avail, used;
	uint16_t avail_idx;   /* driver's shadow of avail->idx */
	uint16_t used_seen;   /* used entries consumed so far */
};

static inline void fvq_init(struct fake_vq *v, struct fd_mem *m, uint16_t size)
{
	memset(v, 0, sizeof(*v));
	v->m = m;
	v->size = size;
	v->desc = fd_alloc(m, VQ_DESC_BYTES(size), 16);
	v->avail = fd_alloc(m, VQ_AVAIL_BYTES(size), 2);
	v->used = fd_alloc(m, VQ_USED_BYTES(size), 4);
}

static inline struct vq_desc *fvq_desc(struct fake_vq *v)
{
	return fd_host(v->m, v->desc);
}

static inline uint16_t *fvq_avail(struct fake_vq *v)
{
	return fd_host(v->m, v->avail);
}

static inline uint8_t *fvq_used(struct fake_vq *v)
{
	return fd_host(v->m, v->used);
}

static inline void fvq_set_desc(struct fake_vq *v, uint16_t i, uint64_t addr,
				uint32_t len, uint16_t flags, uint16_t next)
{
	fvq_desc(v)[i] = (struct vq_desc){
		.addr = addr, .len = len, .flags = flags, .next = next,
	};
}

/* Fill an indirect table (in guest memory at gpa) entry. */
static inline void fd_set_indirect(struct fd_mem *m, uint64_t table, uint16_t i,
				   uint64_t addr, uint32_t len, uint16_t flags,
				   uint16_t next)
{
	struct vq_desc *t = fd_host(m, table);

	t[i] = (struct vq_desc){ .addr = addr, .len = len, .flags = flags, .next = next };
}

/* Make `head` available: ring entry first, then the index (release). */
static inline void fvq_publish(struct fake_vq *v, uint16_t head)
{
	uint16_t *a = fvq_avail(v);

	a[2 + (v->avail_idx & (v->size - 1))] = head;
	v->avail_idx++;
	__atomic_store_n(&a[1], v->avail_idx, __ATOMIC_RELEASE);
}

/* Start both sides at `idx` (the device side via vq_set_base()). */
static inline void fvq_set_idx(struct fake_vq *v, uint16_t idx)
{
	v->avail_idx = v->used_seen = idx;
	__atomic_store_n(&fvq_avail(v)[1], idx, __ATOMIC_RELEASE);
	__atomic_store_n((uint16_t *)(fvq_used(v) + 2), idx, __ATOMIC_RELEASE);
}

static inline uint16_t fvq_used_idx(struct fake_vq *v)
{
	return __atomic_load_n((uint16_t *)(fvq_used(v) + 2), __ATOMIC_ACQUIRE);
}

static inline struct vq_used_elem fvq_used_elem(struct fake_vq *v, uint16_t i)
{
	struct vq_used_elem e;

	memcpy(&e, fvq_used(v) + 4 + 8 * (i & (v->size - 1)), sizeof(e));
	return e;
}

static inline void fvq_set_used_event(struct fake_vq *v, uint16_t ev)
{
	__atomic_store_n(&fvq_avail(v)[2 + v->size], ev, __ATOMIC_SEQ_CST);
}

static inline uint16_t fvq_avail_event(struct fake_vq *v)
{
	return __atomic_load_n((uint16_t *)(fvq_used(v) + 4 + 8 * v->size),
			       __ATOMIC_SEQ_CST);
}

static inline void fvq_set_avail_flags(struct fake_vq *v, uint16_t f)
{
	__atomic_store_n(&fvq_avail(v)[0], f, __ATOMIC_SEQ_CST);
}

/* ---- transport side ---- */

static inline uint32_t fd_rd(struct vmmio *t, uint64_t off)
{
	uint32_t v = 0xdeadbeef;

	vmmio_bus_access(t, off, &v, 4, false);
	return v;
}

static inline void fd_wr(struct vmmio *t, uint64_t off, uint32_t v)
{
	vmmio_bus_access(t, off, &v, 4, true);
}

/* ACKNOWLEDGE, DRIVER, features, FEATURES_OK. Returns the status read
 * back, so a refused negotiation shows as a missing FEATURES_OK. */
static inline uint32_t fd_negotiate(struct vmmio *t, uint64_t features)
{
	fd_wr(t, VMMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE);
	fd_wr(t, VMMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	fd_wr(t, VMMIO_DRV_FEATURES_SEL, 0);
	fd_wr(t, VMMIO_DRV_FEATURES, (uint32_t)features);
	fd_wr(t, VMMIO_DRV_FEATURES_SEL, 1);
	fd_wr(t, VMMIO_DRV_FEATURES, (uint32_t)(features >> 32));
	fd_wr(t, VMMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
			       VIRTIO_STATUS_FEATURES_OK);
	return fd_rd(t, VMMIO_STATUS);
}

static inline void fd_setup_queue(struct vmmio *t, unsigned q, struct fake_vq *v)
{
	fd_wr(t, VMMIO_QUEUE_SEL, q);
	fd_wr(t, VMMIO_QUEUE_NUM, v->size);
	fd_wr(t, VMMIO_QUEUE_DESC_LOW, (uint32_t)v->desc);
	fd_wr(t, VMMIO_QUEUE_DESC_HIGH, (uint32_t)(v->desc >> 32));
	fd_wr(t, VMMIO_QUEUE_AVAIL_LOW, (uint32_t)v->avail);
	fd_wr(t, VMMIO_QUEUE_AVAIL_HIGH, (uint32_t)(v->avail >> 32));
	fd_wr(t, VMMIO_QUEUE_USED_LOW, (uint32_t)v->used);
	fd_wr(t, VMMIO_QUEUE_USED_HIGH, (uint32_t)(v->used >> 32));
	fd_wr(t, VMMIO_QUEUE_READY, 1);
}

static inline uint32_t fd_driver_ok(struct vmmio *t)
{
	uint32_t st = fd_rd(t, VMMIO_STATUS);

	fd_wr(t, VMMIO_STATUS, st | VIRTIO_STATUS_DRIVER_OK);
	return fd_rd(t, VMMIO_STATUS);
}

/* Wait up to ms for an eventfd; returns its counter (0 on timeout). */
static inline uint64_t fd_wait_efd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t v = 0;

	if (poll(&p, 1, ms) == 1 && read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	return v;
}

/* Spin (with short sleeps) until the used index reaches `want`. */
static inline int fvq_wait_used(struct fake_vq *v, uint16_t want, int ms)
{
	for (int i = 0; i < ms * 10; i++) {
		if (fvq_used_idx(v) == want)
			return 0;
		usleep(100);
	}
	return -1;
}

#endif
