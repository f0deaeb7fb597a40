/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The vhost-user message layer, backend side (QEMU's docs/interop/
 * vhost-user.rst): wire layouts, receiving one message with the file
 * descriptors that travel with it (SCM_RIGHTS), checking it, and sending
 * replies. Nothing here has a side effect on a device: vu_msg_check()
 * is a pure function of the bytes and the fd count, so the unit tests and
 * the fuzzer (tests/fuzz/fuzz_vhost_user.c) drive it directly. What a
 * message does is vhost_user_dev.c's business.
 *
 * A message is a 12-byte header (request, flags, payload size) followed
 * by the payload. A message whose size does not match what its request
 * carries, an unknown request, a wrong version or the wrong number of fds
 * is refused whole: the stream cannot be trusted after it, so the caller
 * closes the connection.
 */
#ifndef STAINLESS_TRANSPORT_VHOST_USER_H
#define STAINLESS_TRANSPORT_VHOST_USER_H

#include <stddef.h>
#include <stdint.h>

#define VU_VERSION          0x1u
#define VU_FLAG_VERSION     0x3u
#define VU_FLAG_REPLY       (1u << 2)
#define VU_FLAG_NEED_REPLY  (1u << 3)

enum vu_request {
	VU_GET_FEATURES = 1,
	VU_SET_FEATURES = 2,
	VU_SET_OWNER = 3,
	VU_RESET_OWNER = 4,
	VU_SET_MEM_TABLE = 5,
	VU_SET_LOG_BASE = 6,
	VU_SET_LOG_FD = 7,
	VU_SET_VRING_NUM = 8,
	VU_SET_VRING_ADDR = 9,
	VU_SET_VRING_BASE = 10,
	VU_GET_VRING_BASE = 11,
	VU_SET_VRING_KICK = 12,
	VU_SET_VRING_CALL = 13,
	VU_SET_VRING_ERR = 14,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM = 17,
	VU_SET_VRING_ENABLE = 18,
	VU_SET_BACKEND_REQ_FD = 21,
	VU_GET_CONFIG = 24,
	VU_SET_CONFIG = 25,
	VU_RESET_DEVICE = 34,
	VU_GET_MAX_MEM_SLOTS = 36,
	VU_ADD_MEM_REG = 37,
	VU_REM_MEM_REG = 38,
	VU_GET_SHMEM_CONFIG = 44,
	VU_REQUEST_MAX = 45,   /* one past the largest code this backend knows */
};

/* Virtio feature bit 30 on this transport: protocol features exist. */
#define VU_F_PROTOCOL_FEATURES (1ULL << 30)

/* Protocol feature bits. */
#define VU_PROTO_MQ                  (1ULL << 0)
#define VU_PROTO_REPLY_ACK           (1ULL << 3)
#define VU_PROTO_BACKEND_REQ         (1ULL << 5)
#define VU_PROTO_CONFIG              (1ULL << 9)
#define VU_PROTO_BACKEND_SEND_FD     (1ULL << 10)
#define VU_PROTO_RESET_DEVICE        (1ULL << 13)
#define VU_PROTO_CONFIGURE_MEM_SLOTS (1ULL << 15)
/* VIRTIO Shared Memory Regions (GET_SHMEM_CONFIG, BACKEND_SHMEM_MAP/UNMAP):
 * bit 22 as QEMU's merged vhost-user.rst numbers it (the v11 patches of
 * 2025 said 20; bit 21 became GPA_ADDRESSES). docs/dax.md says more. */
#define VU_PROTO_SHMEM               (1ULL << 22)

/* SET_VRING_KICK/CALL/ERR payload: ring index in the low byte; this bit
 * says no fd came along (polling mode, which this backend refuses). */
#define VU_VRING_IDX_MASK 0xffULL
#define VU_VRING_NOFD     (1ULL << 8)

/* SET_MEM_TABLE carries at most this many regions (and fds). */
#define VU_MAX_TABLE_REGIONS 8
#define VU_MAX_FDS           8
#define VU_MAX_CONFIG        256

struct vu_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;       /* payload bytes after the header */
} __attribute__((packed));
_Static_assert(sizeof(struct vu_hdr) == 12, "vhost-user header is 12 bytes");

struct vu_vring_state {
	uint32_t index;
	uint32_t num;
} __attribute__((packed));
_Static_assert(sizeof(struct vu_vring_state) == 8, "vring state is 8 bytes");

/* Ring addresses are the frontend's virtual addresses. */
struct vu_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc;
	uint64_t used;
	uint64_t avail;
	uint64_t log;
} __attribute__((packed));
_Static_assert(sizeof(struct vu_vring_addr) == 40, "vring address is 40 bytes");

struct vu_mem_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint64_t mmap_offset;
} __attribute__((packed));
_Static_assert(sizeof(struct vu_mem_region) == 32, "memory region is 32 bytes");

struct vu_mem_table {
	uint32_t nregions;
	uint32_t padding;
	struct vu_mem_region r[VU_MAX_TABLE_REGIONS];
} __attribute__((packed));
_Static_assert(sizeof(struct vu_mem_table) == 8 + 32 * VU_MAX_TABLE_REGIONS, "memory table");

/* ADD_MEM_REG / REM_MEM_REG. */
struct vu_mem_single {
	uint64_t padding;
	struct vu_mem_region r;
} __attribute__((packed));
_Static_assert(sizeof(struct vu_mem_single) == 40, "single memory region is 40 bytes");

struct vu_config {
	uint32_t offset;
	uint32_t size;
	uint32_t flags;
	uint8_t data[VU_MAX_CONFIG];
} __attribute__((packed));
#define VU_CONFIG_HDR 12u

/* GET_SHMEM_CONFIG's reply: sizes indexed by shmid, nregions the non-zero ones. */
#define VU_MAX_SHMEM_REGIONS 256
struct vu_shmem_config {
	uint32_t nregions;
	uint32_t padding;
	uint64_t sizes[VU_MAX_SHMEM_REGIONS];
} __attribute__((packed));
_Static_assert(sizeof(struct vu_shmem_config) == 2056, "shmem config is 2056 bytes");

/* Backend requests (on the channel SET_BACKEND_REQ_FD hands over). */
enum vu_backend_request {
	VU_BACKEND_SHMEM_MAP = 9,
	VU_BACKEND_SHMEM_UNMAP = 10,
};

/* BACKEND_SHMEM_MAP / UNMAP: map len bytes of the fd at fd_offset, at
 * shm_offset of region shmid. Flags bit 0: read-write, else read-only. */
#define VU_MMAP_RW 1ull
struct vu_mmap {
	uint8_t shmid;
	uint8_t padding[7];
	uint64_t fd_offset;
	uint64_t shm_offset;
	uint64_t len;
	uint64_t flags;
} __attribute__((packed));
_Static_assert(sizeof(struct vu_mmap) == 40, "mmap request is 40 bytes");

union vu_payload {
	uint64_t u64;
	struct vu_vring_state state;
	struct vu_vring_addr addr;
	struct vu_mem_table mem;
	struct vu_mem_single reg;
	struct vu_config cfg;
	struct vu_shmem_config shmem;   /* the largest: a reply, never received */
};
/* The largest payload a frontend's request carries (replies may be larger). */
#define VU_PAYLOAD_MAX ((uint32_t)(sizeof(struct vu_mem_table) > sizeof(struct vu_config) ? \
				   sizeof(struct vu_mem_table) : sizeof(struct vu_config)))

struct vu_msg {
	struct vu_hdr hdr;
	union vu_payload p;
	int fds[VU_MAX_FDS];
	unsigned nfds;
};

/* "SET_MEM_TABLE", or "unknown" for a code this backend does not know. */
const char *vu_request_name(uint32_t request);

/*
 * Is this a well-formed message this backend knows? Checks the version
 * bits, the request code, the payload size against what the request
 * carries and the fd count against what it needs. 0, or -EPROTO with
 * *why set to one line for the log. Pure: touches nothing but *why.
 */
int vu_msg_check(const struct vu_msg *m, const char **why);

/*
 * Builds *m from bytes (header then payload) and fds, as vu_msg_recv
 * does after reading, and checks it. The fds are recorded, not owned:
 * the caller closes them when this fails. 0 or -EPROTO with *why.
 */
int vu_msg_parse(const uint8_t *buf, size_t len, const int *fds, unsigned nfds,
		 struct vu_msg *m, const char **why);

/*
 * Reads one message from a connected stream socket. 0; -ECONNRESET when
 * the peer closed it (between messages); -EPROTO (*why) for a malformed
 * one; other -errno. On any failure no fd it carried stays open. The fds
 * of a message that succeeded are the caller's (vu_msg_close_fds).
 */
int vu_msg_recv(int sock, struct vu_msg *m, const char **why);

/* Closes the fds m still holds (entries set to -1 were taken). */
void vu_msg_close_fds(struct vu_msg *m);

/* Sends a reply to req: its request code, REPLY flag, size bytes of
 * payload. 0 or -errno. */
int vu_msg_reply(int sock, const struct vu_msg *req, const void *payload, uint32_t size);

#endif
