// SPDX-License-Identifier: GPL-2.0-only
/*
 * vu_frontend: vhost-user messages (docs/interop/vhost-user.rst in QEMU)
 * and split virtqueues (virtio 1.x, 2.7) from the frontend's side. See
 * vu_frontend.h for what it is for.
 */
#include "tests/vhost/vu_frontend.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

enum {
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_SET_MEM_TABLE = 5,
	VHOST_USER_SET_VRING_NUM = 8,
	VHOST_USER_SET_VRING_ADDR = 9,
	VHOST_USER_SET_VRING_BASE = 10,
	VHOST_USER_SET_VRING_KICK = 12,
	VHOST_USER_SET_VRING_CALL = 13,
	VHOST_USER_GET_PROTOCOL_FEATURES = 15,
	VHOST_USER_SET_PROTOCOL_FEATURES = 16,
	VHOST_USER_GET_QUEUE_NUM = 17,
	VHOST_USER_SET_VRING_ENABLE = 18,
};

#define VHOST_USER_VERSION        0x1u
#define VHOST_USER_REPLY          (1u << 2)
#define VHOST_USER_NEED_REPLY     (1u << 3)
#define VHOST_USER_F_PROTOCOL_FEATURES 30
#define VHOST_USER_PROTOCOL_F_MQ        0
#define VHOST_USER_PROTOCOL_F_REPLY_ACK 3
/* Guest-physical base of the table: not 0, so a backend that confuses
 * guest-physical with frontend-virtual addresses fails loudly. */
#define VU_GPA_BASE 0x40000000ull

struct vu_state { uint32_t index, num; };
struct vu_addr {
	uint32_t index, flags;
	uint64_t desc, used, avail, log;
};
struct vu_region { uint64_t gpa, size, uaddr, mmap_offset; };
struct vu_mem { uint32_t nregions, padding; struct vu_region region[1]; };

struct vu_msg {
	uint32_t request, flags, size;
	union {
		uint64_t u64;
		struct vu_state state;
		struct vu_addr addr;
		struct vu_mem mem;
	} p;
} __attribute__((packed));
#define VU_HDRSZ 12
_Static_assert(sizeof(struct vu_addr) == 40, "vhost_vring_addr layout");
_Static_assert(sizeof(struct vu_region) == 32, "vhost-user memory region layout");
_Static_assert(offsetof(struct vu_msg, p) == VU_HDRSZ, "vhost-user header layout");

static int send_msg(struct vu_frontend *fe, uint32_t req, uint32_t flags,
		    const void *payload, uint32_t size, int fd)
{
	struct vu_msg m = { .request = req, .flags = VHOST_USER_VERSION | flags, .size = size };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &m, VU_HDRSZ + size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (size)
		memcpy(&m.p, payload, size);
	if (fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	ssize_t n = sendmsg(fe->sock, &mh, MSG_NOSIGNAL);
	if (n < 0)
		return -errno;
	return n == (ssize_t)iov.iov_len ? 0 : -EIO;
}

static int read_full(int fd, void *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		got += (size_t)n;
	}
	return 0;
}

/* Reads the reply to REQ; its payload must be exactly 8 bytes (every reply
 * this frontend asks for is a u64: a value or REPLY_ACK's status). */
static int recv_u64(struct vu_frontend *fe, uint32_t req, uint64_t *val)
{
	struct vu_msg m;
	int err = read_full(fe->sock, &m, VU_HDRSZ);
	if (err)
		return err;
	if (m.request != req || !(m.flags & VHOST_USER_REPLY) || m.size != 8) {
		fprintf(stderr, "vu_frontend: odd reply to request %u: request %u flags %#x size %u\n",
			req, m.request, m.flags, m.size);
		return -EPROTO;
	}
	if ((err = read_full(fe->sock, &m.p.u64, 8)))
		return err;
	*val = m.p.u64;
	return 0;
}

static int get_u64(struct vu_frontend *fe, uint32_t req, uint64_t *val)
{
	int err = send_msg(fe, req, 0, NULL, 0, -1);
	return err ? err : recv_u64(fe, req, val);
}

/* A message without a reply of its own; with REPLY_ACK, the backend's
 * status is awaited so a refusal shows at the message that caused it. */
static int set(struct vu_frontend *fe, uint32_t req, const void *payload, uint32_t size, int fd)
{
	uint64_t status;
	int err = send_msg(fe, req, fe->reply_ack ? VHOST_USER_NEED_REPLY : 0, payload, size, fd);
	if (err || !fe->reply_ack)
		return err;
	if ((err = recv_u64(fe, req, &status)))
		return err;
	if (status) {
		fprintf(stderr, "vu_frontend: backend refused request %u (status %llu)\n",
			req, (unsigned long long)status);
		return -EREMOTEIO;
	}
	return 0;
}

int vu_message(struct vu_frontend *fe, uint32_t req, const void *payload, uint32_t size, int fd)
{
	return set(fe, req, payload, size, fd);
}

int vu_query(struct vu_frontend *fe, uint32_t req, void *reply, uint32_t size)
{
	struct vu_msg m;
	int err = send_msg(fe, req, 0, NULL, 0, -1);

	if (!err)
		err = read_full(fe->sock, &m, VU_HDRSZ);
	if (err)
		return err;
	if (m.request != req || !(m.flags & VHOST_USER_REPLY) || m.size != size) {
		fprintf(stderr, "vu_frontend: odd reply to request %u: request %u flags %#x size %u\n",
			req, m.request, m.flags, m.size);
		return -EPROTO;
	}
	return read_full(fe->sock, reply, size);
}

int vu_connect(struct vu_frontend *fe, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(fe, 0, sizeof(*fe));
	fe->memfd = -1;
	for (int i = 0; i < VU_MAX_QUEUES; i++)
		fe->q[i].kick = fe->q[i].call = -1;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fe->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fe->sock < 0)
		return -errno;
	if (connect(fe->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;
		close(fe->sock);
		fe->sock = -1;
		return err;
	}
	return 0;
}

static int negotiate(struct vu_frontend *fe, unsigned flags)
{
	uint64_t offered, want = 1ull << VIRTIO_F_VERSION_1 | 1ull << VHOST_USER_F_PROTOCOL_FEATURES;
	int err;

	if (!(flags & VU_NO_EVENT_IDX))
		want |= 1ull << VIRTIO_RING_F_EVENT_IDX;
	if ((err = set(fe, VHOST_USER_SET_OWNER, NULL, 0, -1)) ||
	    (err = get_u64(fe, VHOST_USER_GET_FEATURES, &offered)))
		return err;
	fe->features = offered & want;
	fe->event_idx = fe->features & 1ull << VIRTIO_RING_F_EVENT_IDX;
	if (fe->features & 1ull << VHOST_USER_F_PROTOCOL_FEATURES) {
		uint64_t p, nq = VU_NQUEUES;   /* without MQ: one request queue */
		if ((err = get_u64(fe, VHOST_USER_GET_PROTOCOL_FEATURES, &p)))
			return err;
		fe->protocol_features = p & (1ull << VHOST_USER_PROTOCOL_F_MQ |
					     1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK | fe->extra_protocol);
		if ((err = set(fe, VHOST_USER_SET_PROTOCOL_FEATURES, &fe->protocol_features, 8, -1)))
			return err;
		fe->reply_ack = fe->protocol_features & 1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK;
		if (fe->after_protocol && (err = fe->after_protocol(fe)))
			return err;
		if (fe->protocol_features & 1ull << VHOST_USER_PROTOCOL_F_MQ &&
		    (err = get_u64(fe, VHOST_USER_GET_QUEUE_NUM, &nq)))
			return err;
		if (nq < fe->nqueues) {
			fprintf(stderr, "vu_frontend: backend offers %llu queues (GET_QUEUE_NUM), need %u\n",
				(unsigned long long)nq, fe->nqueues);
			return -ENOTSUP;
		}
	} else if (fe->nqueues > VU_NQUEUES) {
		fprintf(stderr, "vu_frontend: backend has no protocol features: one request queue\n");
		return -ENOTSUP;
	}
	return set(fe, VHOST_USER_SET_FEATURES, &fe->features, 8, -1);
}

static int share_memory(struct vu_frontend *fe, size_t size, unsigned flags)
{
	fe->memfd = memfd_create("vu_frontend", MFD_CLOEXEC |
				 (flags & (VU_SEALABLE_MEMORY | VU_SEALED_MEMORY) ? MFD_ALLOW_SEALING : 0));
	if (fe->memfd < 0 || ftruncate(fe->memfd, (off_t)size) < 0)
		return -errno;
	if ((flags & VU_SEALED_MEMORY) &&
	    fcntl(fe->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		return -errno;
	fe->mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fe->memfd, 0);
	if (fe->mem == MAP_FAILED) {
		fe->mem = NULL;
		return -errno;
	}
	fe->mem_size = size;
	fe->gpa_base = VU_GPA_BASE;
	struct vu_mem m = { .nregions = 1, .region[0] = {
		.gpa = fe->gpa_base, .size = size, .uaddr = (uintptr_t)fe->mem } };
	return set(fe, VHOST_USER_SET_MEM_TABLE, &m, sizeof(m), fe->memfd);
}

static uint64_t gpa_of(const struct vu_frontend *fe, const void *p)
{
	return fe->gpa_base + (uint64_t)((const uint8_t *)p - fe->mem);
}

/* Lays out ring QI in guest memory and hands it to the backend. The call
 * fd goes before the kick fd: the ring starts on SET_VRING_KICK and may
 * complete a request at once. Enabled later (enable_queue). */
static int start_queue(struct vu_frontend *fe, unsigned qi, unsigned flags)
{
	struct vu_queue *q = &fe->q[qi];
	const unsigned n = VU_QUEUE_SIZE;
	int err;

	q->desc = vu_alloc(fe, sizeof(struct vring_desc) * n);
	q->avail = vu_alloc(fe, sizeof(uint16_t) * (3 + n));
	q->used = vu_alloc(fe, sizeof(uint16_t) * 3 + sizeof(struct vring_used_elem) * n);
	if (!q->desc || !q->avail || !q->used)
		return -ENOMEM;
	/* EVENT_IDX's fields sit just past each ring (virtio 1.x, 2.7.7.2). */
	q->used_event = &q->avail->ring[n];
	q->avail_event = (uint16_t *)((uint8_t *)q->used + offsetof(struct vring_used, ring) +
				      sizeof(struct vring_used_elem) * n);
	for (unsigned i = 0; i < n; i++)
		q->desc[i].next = (uint16_t)(i + 1);
	q->free_head = 0;
	q->nfree = (uint16_t)n;
	q->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q->call = eventfd(0, EFD_CLOEXEC | (flags & VU_BLOCKING_CALL ? 0 : EFD_NONBLOCK));
	if (q->kick < 0 || q->call < 0)
		return -errno;

	struct vu_state num = { qi, n }, base = { qi, 0 };
	struct vu_addr addr = { .index = qi, .desc = (uintptr_t)q->desc,
				.used = (uintptr_t)q->used, .avail = (uintptr_t)q->avail };
	uint64_t idx = qi;
	if ((err = set(fe, VHOST_USER_SET_VRING_NUM, &num, sizeof(num), -1)) ||
	    (err = set(fe, VHOST_USER_SET_VRING_BASE, &base, sizeof(base), -1)) ||
	    (err = set(fe, VHOST_USER_SET_VRING_ADDR, &addr, sizeof(addr), -1)) ||
	    (err = set(fe, VHOST_USER_SET_VRING_CALL, &idx, 8, q->call)) ||
	    (err = set(fe, VHOST_USER_SET_VRING_KICK, &idx, 8, q->kick)))
		return err;
	return 0;
}

static int enable_queue(struct vu_frontend *fe, unsigned qi)
{
	struct vu_state on = { qi, 1 };
	int err;

	/* With protocol features a ring starts disabled (vhost-user.rst, "Ring states"). */
	if (fe->features & 1ull << VHOST_USER_F_PROTOCOL_FEATURES &&
	    (err = set(fe, VHOST_USER_SET_VRING_ENABLE, &on, sizeof(on), -1)))
		return err;
	/* Some backends start a ring on its first kick, not on SET_VRING_KICK. */
	return eventfd_write(fe->q[qi].kick, 1) < 0 ? -errno : 0;
}

int vu_setup_queues(struct vu_frontend *fe, size_t mem_size, unsigned flags, unsigned nreq)
{
	int err;

	if (nreq < 1 || nreq > VU_MAX_QUEUES - 1)
		return -EINVAL;
	fe->nqueues = 1 + nreq;
	err = negotiate(fe, flags);
	if (!err)
		err = share_memory(fe, mem_size, flags);
	for (unsigned i = 0; !err && i < fe->nqueues; i++)
		err = start_queue(fe, i, flags);
	for (unsigned i = 0; !err && i < fe->nqueues; i++)
		err = enable_queue(fe, i);
	return err;
}

int vu_setup(struct vu_frontend *fe, size_t mem_size, unsigned flags)
{
	return vu_setup_queues(fe, mem_size, flags, 1);
}

void vu_close(struct vu_frontend *fe)
{
	for (int i = VU_MAX_QUEUES - 1; i >= 0; i--) {
		if (fe->q[i].call >= 0)
			close(fe->q[i].call);
		if (fe->q[i].kick >= 0)
			close(fe->q[i].kick);
	}
	if (fe->mem)
		munmap(fe->mem, fe->mem_size);
	if (fe->memfd >= 0)
		close(fe->memfd);
	if (fe->sock >= 0)
		close(fe->sock);
	memset(fe, 0, sizeof(*fe));
	fe->sock = fe->memfd = -1;
}

void *vu_alloc(struct vu_frontend *fe, size_t size)
{
	size_t at = (fe->brk + 63) & ~(size_t)63;
	if (!fe->mem || size > fe->mem_size || at > fe->mem_size - size)
		return NULL;
	fe->brk = at + size;
	memset(fe->mem + at, 0, size);
	return fe->mem + at;
}

static bool in_memory(const struct vu_frontend *fe, const struct iovec *v)
{
	const uint8_t *p = v->iov_base;
	return p >= fe->mem && v->iov_len <= fe->mem_size &&
	       (size_t)(p - fe->mem) <= fe->mem_size - v->iov_len && v->iov_len <= UINT32_MAX;
}

int vu_submit(struct vu_frontend *fe, int qi, const struct iovec *out, int nout,
	      const struct iovec *in, int nin, void *cookie)
{
	struct vu_queue *q = &fe->q[qi];
	int total = nout + nin;

	if (total < 1 || total > q->nfree)
		return -ENOSPC;
	for (int i = 0; i < total; i++)
		if (!in_memory(fe, i < nout ? &out[i] : &in[i - nout]))
			return -EFAULT;
	uint16_t head = q->free_head, d = head, last = head;
	for (int i = 0; i < total; i++) {
		const struct iovec *v = i < nout ? &out[i] : &in[i - nout];
		struct vring_desc *desc = &q->desc[d];
		desc->addr = gpa_of(fe, v->iov_base);
		desc->len = (uint32_t)v->iov_len;
		desc->flags = (uint16_t)((i >= nout ? VRING_DESC_F_WRITE : 0) |
					 (i + 1 < total ? VRING_DESC_F_NEXT : 0));
		last = d;
		d = desc->next;  /* the free list runs through next */
	}
	q->free_head = q->desc[last].next;
	q->nfree = (uint16_t)(q->nfree - total);
	q->chain_len[head] = (uint16_t)total;
	q->cookie[head] = cookie;
	q->avail->ring[q->avail_idx % VU_QUEUE_SIZE] = head;
	q->avail_idx++;
	q->inflight++;
	return 0;
}

int vu_kick(struct vu_frontend *fe, int qi)
{
	struct vu_queue *q = &fe->q[qi];
	uint16_t old = q->kicked_idx, now = q->avail_idx;
	bool kick;

	if (old == now)
		return 0;
	/* Descriptors and ring entries before the index that publishes them. */
	__atomic_store_n(&q->avail->idx, now, __ATOMIC_RELEASE);
	/* The index before the backend's suppression state: a backend going
	 * idle writes its flag/event and then re-reads the index. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	q->kicked_idx = now;
	if (fe->event_idx) {
		kick = vring_need_event(__atomic_load_n(q->avail_event, __ATOMIC_RELAXED), now, old);
	} else {
		kick = !(__atomic_load_n(&q->used->flags, __ATOMIC_RELAXED) & VRING_USED_F_NO_NOTIFY);
	}
	return kick && eventfd_write(q->kick, 1) < 0 ? -errno : 0;
}

/* Takes what the used ring holds, freeing each chain's descriptors. */
static int drain(struct vu_queue *q, struct vu_done *done, int max)
{
	uint16_t end = __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE);
	int n = 0;

	for (; q->last_used != end && n < max; q->last_used++, n++) {
		struct vring_used_elem e = q->used->ring[q->last_used % VU_QUEUE_SIZE];
		uint16_t head = (uint16_t)e.id, d = head;
		if (e.id >= VU_QUEUE_SIZE || !q->chain_len[head]) {
			fprintf(stderr, "vu_frontend: backend returned descriptor %u, not in flight\n", e.id);
			return -EPROTO;
		}
		for (unsigned i = 1; i < q->chain_len[head]; i++)
			d = q->desc[d].next;
		q->desc[d].next = q->free_head;
		q->free_head = head;
		q->nfree = (uint16_t)(q->nfree + q->chain_len[head]);
		q->chain_len[head] = 0;
		q->inflight--;
		done[n].cookie = q->cookie[head];
		done[n].len = e.len;
	}
	return n;
}

int vu_reap(struct vu_frontend *fe, int qi, struct vu_done *done, int max, int timeout_ms)
{
	struct vu_queue *q = &fe->q[qi];

	for (;;) {
		int n = drain(q, done, max);
		if (n)
			return n;
		if (fe->event_idx) {
			/* Ask for a call at the next entry, then look once more: an
			 * entry pushed before the backend saw the request has no call. */
			__atomic_store_n(q->used_event, q->last_used, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			if (__atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE) != q->last_used)
				continue;
		}
		struct pollfd p = { .fd = q->call, .events = POLLIN };
		int r = poll(&p, 1, timeout_ms);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == 0)
			return 0;
		eventfd_t v;
		(void)eventfd_read(q->call, &v);
	}
}

int vu_reap_ring(struct vu_frontend *fe, int qi, struct vu_done *done, int max)
{
	return drain(&fe->q[qi], done, max);
}

int vu_set_call(struct vu_frontend *fe, int qi, int fd)
{
	struct vu_queue *q = &fe->q[qi];
	struct pollfd p = { .fd = q->call, .events = POLLIN }, n = { .fd = fd, .events = POLLOUT };
	uint64_t idx = (uint64_t)qi;
	eventfd_t v;
	int err = set(fe, VHOST_USER_SET_VRING_CALL, &idx, 8, fd);

	if (err)
		return err;
	/* A full counter on the new one means an interrupt is pending there already. */
	if (poll(&p, 1, 0) == 1 && eventfd_read(q->call, &v) == 0 && poll(&n, 1, 0) == 1 &&
	    eventfd_write(fd, 1) < 0)
		err = -errno;
	close(q->call);
	q->call = fd;
	return err;
}
