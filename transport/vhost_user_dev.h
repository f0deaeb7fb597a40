/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A virtio device served over vhost-user, backend side: the state a
 * frontend (QEMU, cloud-hypervisor, the project's own harness) sets up
 * with messages -- features, the memory table, and per ring its size,
 * addresses, base, kick/call/err eventfds and enable bit -- and the rings
 * themselves, each served by the same per-queue io_uring worker
 * (devices/worker.h) and the same device ops table (devices/virtio.h) as
 * the in-VMM virtio-mmio transport. One code path, two transports.
 *
 * A ring runs while it has been started (SET_VRING_KICK, until
 * GET_VRING_BASE stops it), is enabled (SET_VRING_ENABLE once protocol
 * features are negotiated, else from the start) and has not failed. A
 * ring whose addresses leave the memory table or whose worker cannot start
 * fails: one log line, its err eventfd is signalled, and it stays stopped
 * until the frontend starts it again. A message the backend cannot honour
 * (wrong ring index, rings configured before memory, overlapping regions,
 * bits never offered) is fatal: one log line and the connection closes.
 *
 * A frontend says nothing when the guest resets the device (QEMU stops
 * every ring with GET_VRING_BASE and starts them again, as it does around
 * a VM pause): when the rings stopped after serving requests and a
 * request ring starts again from base 0 with every request ring at 0 (a
 * fresh driver's rings), the device is reset (the FUSE session forgotten)
 * before that ring runs. After a pause the request ring resumes where it
 * stopped, past the INIT it carried, never at 0. With several request
 * rings (vhost-user-fs offers 16; the frontend uses what it wires up) the
 * rule looks at all of them, so it needs every ring's base before the
 * first one runs again: QEMU disables every ring before it stops them and
 * enables them only once all are set up.
 *
 * Runs on one thread (the connection's); only the ring workers run
 * beside it, and the eventfds they signal are swapped safely under them.
 */
#ifndef STAINLESS_TRANSPORT_VHOST_USER_DEV_H
#define STAINLESS_TRANSPORT_VHOST_USER_DEV_H

#include <stdatomic.h>
#include <stdbool.h>

#include "devices/virtio.h"
#include "transport/vhost_user.h"
#include "transport/vhost_user_mem.h"

struct vq;
struct vu_shmem;
struct worker;

/* An eventfd a worker may signal while the connection thread replaces it. */
struct vu_efd {
	atomic_int fd;               /* -1: none (vhost_user_ring.c's encoding) */
	atomic_uint busy;            /* signallers inside; a futex a swap sleeps on */
};

struct vu_vring {
	uint16_t num;
	bool addr_set, enabled, started, failed;
	struct vu_vring_addr addr;   /* frontend addresses */
	uint16_t base;               /* next avail entry when it (re)starts */
	int kick_fd;
	struct vu_efd call, err;
	struct vq *vq;               /* while running */
	struct worker *w;
};

struct vu_dev {
	struct virtio_dev *vdev;     /* not owned */
	const char *name;
	uint64_t features, acked;
	uint64_t proto, proto_acked;
	bool trace;                  /* log every request (--log-level debug) */
	bool dirty;                  /* a ring stopped with requests served */
	unsigned nrings;
	struct vu_mem mem;
	struct vu_shmem *shmem;      /* the DAX window's channel; NULL: none */
	struct virtio_notify notify;
	struct vu_vring ring[VIRTIO_MAX_QUEUES];
};

/* offer_config: offer the CONFIG protocol feature (virtiofsd: --tag). */
void vu_dev_init(struct vu_dev *d, struct virtio_dev *vdev, bool offer_config);

/* Offer the DAX window s (vhost_user_shmem.h): SHMEM, BACKEND_REQ and
 * BACKEND_SEND_FD join the protocol features; not owned. */
void vu_dev_set_shmem(struct vu_dev *d, struct vu_shmem *s);

/*
 * Acts on one checked message (vu_msg_check). *send says whether reply
 * (its hdr.size and payload) goes back. Fds of m not taken are closed.
 * 0, or -errno after a log line: close the connection.
 */
int vu_dev_handle(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply, bool *send);

/* Is this ring running (tests, the log)? */
bool vu_dev_ring_running(const struct vu_dev *d, unsigned index);

/*
 * Serves one connection until the frontend closes it (0), stop_fd
 * (e.g. a signalfd; -1 for none) becomes readable (0), or a message is
 * refused (-errno, logged).
 */
int vu_serve(struct vu_dev *d, int sock, int stop_fd);

/* Stops every ring, resets the device, closes every fd, unmaps memory. */
void vu_dev_release(struct vu_dev *d);

#endif
