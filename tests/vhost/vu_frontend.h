/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vu_frontend: the device side of a vhost-user-fs connection as a guest and
 * its VMM would drive it, for tests and benchmarks (not product code). It
 * plays QEMU's part (vhost-user messages, a memfd memory table handed over
 * with SCM_RIGHTS, kick/call eventfds) and the guest driver's part (split
 * virtqueues laid out in that memory), so any vhost-user-fs backend can be
 * driven without a VM: `stainless vhost-user-fs`, QEMU's C virtiofsd.
 *
 * Queue layout as Linux's virtio_fs uses it: hiprio at index 0 (FORGET,
 * INTERRUPT), request queues at 1..N (vu_setup_queues; vu_setup: one).
 * Buffers handed to vu_submit must come from vu_alloc: descriptors carry
 * guest-physical addresses of the table. Each queue's state is its own,
 * so N threads may drive N queues (one each) at once; vu_alloc is for
 * set-up, before they start.
 */
#ifndef STAINLESS_TESTS_VU_FRONTEND_H
#define STAINLESS_TESTS_VU_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define VU_NQUEUES    2         /* hiprio + one request queue: vu_setup */
#define VU_MAX_QUEUES 17        /* hiprio + 16 request queues */
#define VU_HIPRIO     0
#define VU_REQUEST    1
#define VU_QUEUE_SIZE 128

struct vring_desc;
struct vring_avail;
struct vring_used;

struct vu_queue {
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t *used_event, *avail_event;  /* with EVENT_IDX */
	uint16_t avail_idx;          /* next slot of the available ring */
	uint16_t kicked_idx;         /* avail_idx at the last kick */
	uint16_t last_used;          /* next used entry to reap */
	uint16_t free_head, nfree;   /* descriptor free list, chained by next */
	uint16_t chain_len[VU_QUEUE_SIZE];
	void *cookie[VU_QUEUE_SIZE]; /* per head, handed back by vu_reap */
	int kick, call;              /* eventfds shared with the backend */
	unsigned inflight;
};

struct vu_frontend {
	int sock;
	int memfd;
	uint8_t *mem;                /* the whole guest memory, mapped shared */
	size_t mem_size, brk;        /* vu_alloc's bump pointer */
	uint64_t gpa_base;
	uint64_t features;           /* virtio features as negotiated */
	uint64_t protocol_features;
	bool event_idx, reply_ack;
	unsigned nqueues;            /* rings in use: hiprio + request queues */
	struct vu_queue q[VU_MAX_QUEUES];
	/* Extensions (tests/vhost/vu_shmem.c), set between vu_connect and
	 * vu_setup: protocol bits offered beside MQ and REPLY_ACK, and a step
	 * run once SET_PROTOCOL_FEATURES is acked. */
	uint64_t extra_protocol;
	int (*after_protocol)(struct vu_frontend *fe);
	void *ext;
};

struct vu_done {
	void *cookie;
	uint32_t len;                /* bytes the backend wrote */
};

/* Flags of vu_setup. */
#define VU_NO_EVENT_IDX 1u       /* do not negotiate VIRTIO_RING_F_EVENT_IDX */
#define VU_BLOCKING_CALL 2u      /* call eventfds without EFD_NONBLOCK (as crosvm makes them) */
#define VU_SEALABLE_MEMORY 4u    /* a memfd that takes seals, none set (MFD_ALLOW_SEALING) */
#define VU_SEALED_MEMORY 8u      /* sealed against shrink and grow, as QEMU's seal=on */

/* Connects to a backend listening on PATH. */
int vu_connect(struct vu_frontend *fe, const char *path);
/* Negotiates features, hands over MEM_SIZE bytes of memfd memory and starts
 * both queues (the sequence QEMU's vhost-user-fs device sends). */
int vu_setup(struct vu_frontend *fe, size_t mem_size, unsigned flags);
/* The same with NREQ request queues (1..16): -ENOTSUP, after a line on
 * stderr, when the backend's GET_QUEUE_NUM offers fewer rings. Like QEMU,
 * every ring is set up before any is enabled. */
int vu_setup_queues(struct vu_frontend *fe, size_t mem_size, unsigned flags, unsigned nreq);
/* Closes the connection (the backend sees its frontend leave) and frees all. */
void vu_close(struct vu_frontend *fe);

/* SIZE bytes of guest memory, 64-byte aligned, zeroed; NULL when full. */
void *vu_alloc(struct vu_frontend *fe, size_t size);

/* Puts one chain on queue QI: the OUT buffers (device-readable) then the
 * IN buffers (device-writable). Not visible to the backend before vu_kick. */
int vu_submit(struct vu_frontend *fe, int qi, const struct iovec *out, int nout,
	      const struct iovec *in, int nin, void *cookie);
/* Publishes what was submitted, kicking the backend unless it asked not to. */
int vu_kick(struct vu_frontend *fe, int qi);
/* Up to MAX completions of queue QI; waits up to TIMEOUT_MS (-1: forever)
 * on the call eventfd when none is ready. Returns the count, 0 on timeout,
 * or -errno. */
int vu_reap(struct vu_frontend *fe, int qi, struct vu_done *done, int max, int timeout_ms);
/* Up to MAX completions the used ring of QI holds now; the call eventfd
 * is not looked at (nor its counter read). */
int vu_reap_ring(struct vu_frontend *fe, int qi, struct vu_done *done, int max);

/* For extensions: a message without a reply of its own (with REPLY_ACK its
 * status is awaited), and a request whose reply has exactly SIZE bytes. */
int vu_message(struct vu_frontend *fe, uint32_t req, const void *payload, uint32_t size, int fd);
int vu_query(struct vu_frontend *fe, uint32_t req, void *reply, uint32_t size);

/* Replaces queue QI's call eventfd with FD (the frontend's from now on), as
 * QEMU does whenever a guest masks or unmasks the queue's vector: once the
 * backend has it, an interrupt left on the old one is passed to FD, as
 * QEMU's unmask does, and the old one is closed. */
int vu_set_call(struct vu_frontend *fe, int qi, int fd);

#endif
