/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vu_shmem: the frontend's side of VHOST_USER_PROTOCOL_F_SHMEM for a
 * vu_frontend (tests and benchmarks, not product code), as QEMU's
 * vhost-user.rst defines it: GET_SHMEM_CONFIG sizes the window (one
 * region, shmid 0: virtio-fs's DAX cache), which is reserved here
 * (PROT_NONE); SET_BACKEND_REQ_FD hands the backend one end of a socket
 * pair, and a thread serves its BACKEND_SHMEM_MAP / UNMAP requests:
 * each one checked (shmid, whole pages, inside the window, no overlap, an
 * UNMAP only of a whole mapping, exactly one fd with a MAP and none with
 * an UNMAP, a regular file, and, when the test says which, the file it
 * expects), then mmap(MAP_FIXED) of the fd over the window or PROT_NONE
 * back, and acked (0, or the errno). Counters say what the backend asked.
 */
#ifndef STAINLESS_TESTS_VU_SHMEM_H
#define STAINLESS_TESTS_VU_SHMEM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/vhost/vu_frontend.h"

#define VU_GET_SHMEM_CONFIG   44
#define VU_SET_BACKEND_REQ_FD 21
#define VU_SHMEM_MAP          9
#define VU_SHMEM_UNMAP        10
#define VU_PROTO_BACKEND_REQ     (1ull << 5)
#define VU_PROTO_BACKEND_SEND_FD (1ull << 10)
#define VU_PROTO_SHMEM           (1ull << 22)
#define VU_SHMEM_FE_MAX 8192

struct vu_mmap_req {
	uint8_t shmid;
	uint8_t padding[7];
	uint64_t fd_offset, shm_offset, len, flags;
} __attribute__((packed));

struct vu_shmem_fe {
	uint8_t *win;
	uint64_t size;
	int sock;                     /* our end of the backend channel */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	unsigned nmaps;
	struct { uint64_t off, len; } map[VU_SHMEM_FE_MAX];
	/* What the backend asked: maps and unmaps done, requests refused, the most live. */
	unsigned maps, unmaps, refused, max_live;
	/* Optional: is fd the file the test expects (0) or not (-errno)? */
	int (*fd_check)(void *ctx, int fd);
	void *fd_ctx;
};

/* Before vu_setup: offer SHMEM, BACKEND_REQ, BACKEND_SEND_FD; once acked,
 * size and reserve the window and start serving the channel. */
void vu_shmem_fe_attach(struct vu_frontend *fe, struct vu_shmem_fe *s);
/* A window of size bytes without a backend (the hostile-backend tests). */
int vu_shmem_fe_reserve(struct vu_shmem_fe *s, uint64_t size);
/* One backend request as the channel thread serves it: 0 or the errno it acks. */
uint64_t vu_shmem_fe_request(struct vu_shmem_fe *s, uint32_t req, uint32_t size,
			     const void *payload, const int *fds, unsigned nfds);
/* Live mappings now. */
unsigned vu_shmem_fe_live(struct vu_shmem_fe *s);
/* Stops the thread (after vu_close: the backend closed its end) and unmaps. */
void vu_shmem_fe_close(struct vu_shmem_fe *s);

#endif
