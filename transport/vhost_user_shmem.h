/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio-fs's DAX window over vhost-user (VHOST_USER_PROTOCOL_F_SHMEM):
 * the window lives in the frontend's address space, not ours. The
 * frontend learns its size with GET_SHMEM_CONFIG (one region, shmid 0,
 * VIRTIO_FS_SHMCAP_ID_CACHE) and hands over a backend channel with
 * SET_BACKEND_REQ_FD; the FUSE server's SETUPMAPPING / REMOVEMAPPING then
 * become BACKEND_SHMEM_MAP (with the file's fd) / BACKEND_SHMEM_UNMAP
 * requests on that channel, each waiting for the frontend's REPLY_ACK.
 *
 * What the frontend is sent is checked here first, as the protocol asks:
 * whole pages, inside the window, never over a live mapping (a request
 * for exactly a live range replaces it: UNMAP, then MAP, as Linux asks
 * again to make a read mapping writable), an UNMAP only of exactly a live
 * range, at most VU_SHMEM_MAX_MAPS live mappings, and only a regular
 * file's fd (the server opened it beneath the share; a guest never names
 * an fd). A frontend that does not answer within VU_SHMEM_ACK_MS, or
 * answers out of step, loses the channel: every later mapping fails.
 *
 * The FUSE requests run on the queue workers, several at once: one
 * request at a time goes out on the channel (a mutex), and the table is
 * changed only under it.
 */
#ifndef STAINLESS_TRANSPORT_VHOST_USER_SHMEM_H
#define STAINLESS_TRANSPORT_VHOST_USER_SHMEM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "fs/fuse/fuse_server.h"
#include "transport/vhost_user.h"

#define VU_SHMEM_MAX_MAPS 1024   /* Linux asks 2 MiB at a time: a 2 GiB window */
#define VU_SHMEM_ACK_MS   5000
#define VU_SHMEM_PAGE     4096u

/* Every bit the window needs from the frontend. */
#define VU_SHMEM_PROTO (VU_PROTO_SHMEM | VU_PROTO_BACKEND_REQ | VU_PROTO_BACKEND_SEND_FD | \
			VU_PROTO_REPLY_ACK)

struct vu_shmem_range {
	uint64_t off, len;
};

struct vu_shmem {
	pthread_mutex_t lock;
	uint64_t size;               /* the window's bytes */
	int sock;                    /* the backend channel; -1: none (yet, or lost) */
	bool lost;                   /* it was lost: mappings fail with EIO */
	int ack_ms;                  /* VU_SHMEM_ACK_MS; tests shorten it */
	unsigned nmaps;
	struct vu_shmem_range map[VU_SHMEM_MAX_MAPS];
	uint64_t sent;               /* requests the frontend acknowledged (tests, the log) */
};

/* A window of size bytes (a positive multiple of VU_SHMEM_PAGE). 0 or -EINVAL. */
int vu_shmem_init(struct vu_shmem *s, uint64_t size);
void vu_shmem_destroy(struct vu_shmem *s);

/* GET_SHMEM_CONFIG's reply. */
void vu_shmem_config(const struct vu_shmem *s, struct vu_shmem_config *out);

/* SET_BACKEND_REQ_FD: the channel is fd's from now on (the old one closed,
 * the table forgotten). Takes fd. */
void vu_shmem_set_channel(struct vu_shmem *s, int fd);

/* The device was reset: the frontend unmaps every mapping itself
 * (vhost-user.rst: "mappings are automatically unmapped by the front-end
 * across device reset"), so the table starts empty. */
void vu_shmem_reset(struct vu_shmem *s);

/* The FUSE server's DAX hook (ctx: the struct vu_shmem). */
extern const struct fuse_dax_ops vu_shmem_dax_ops;

#endif
