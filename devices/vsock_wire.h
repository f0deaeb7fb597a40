/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio-vsock's wire format (virtio 1.2 section 5.10): the packet header
 * every rx and tx buffer starts with, its operations, and the device's
 * config space. Little-endian, and x86_64 hosts only, so the fields are
 * read as they lie.
 */
#ifndef STAINLESS_DEVICES_VSOCK_WIRE_H
#define STAINLESS_DEVICES_VSOCK_WIRE_H

#include <stdint.h>

/* Queues: the device fills rx, the driver fills tx, event carries resets. */
enum { VSOCK_Q_RX, VSOCK_Q_TX, VSOCK_Q_EVENT, VSOCK_NR_QUEUES };

#define VSOCK_CID_HOST 2          /* VMADDR_CID_HOST */
#define VSOCK_CID_GUEST_MIN 3     /* 0-2 are reserved */

#define VSOCK_TYPE_STREAM 1

enum vsock_op {
	VSOCK_OP_INVALID,
	VSOCK_OP_REQUEST,
	VSOCK_OP_RESPONSE,
	VSOCK_OP_RST,
	VSOCK_OP_SHUTDOWN,
	VSOCK_OP_RW,
	VSOCK_OP_CREDIT_UPDATE,
	VSOCK_OP_CREDIT_REQUEST,
};

#define VSOCK_SHUTDOWN_RCV  1     /* the sender will receive no more */
#define VSOCK_SHUTDOWN_SEND 2     /* the sender will send no more */

struct vsock_hdr {
	uint64_t src_cid;
	uint64_t dst_cid;
	uint32_t src_port;
	uint32_t dst_port;
	uint32_t len;
	uint16_t type;
	uint16_t op;
	uint32_t flags;
	uint32_t buf_alloc;
	uint32_t fwd_cnt;
} __attribute__((packed));
_Static_assert(sizeof(struct vsock_hdr) == 44, "virtio_vsock_hdr is 44 bytes");

struct vsock_config_space {
	uint64_t guest_cid;
} __attribute__((packed));
_Static_assert(sizeof(struct vsock_config_space) == 8, "virtio_vsock_config is 8 bytes");

#endif
