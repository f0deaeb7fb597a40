/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake virtio-vsock guest for the unit tests: the device on the real
 * virtio-mmio transport and workers, driven by fake_driver.h's rings, with
 * its UDS in a fresh temporary folder. The guest side speaks raw packets,
 * so a test can send anything a hostile driver could.
 */
#ifndef STAINLESS_TESTS_UNIT_VSOCK_DRIVER_H
#define STAINLESS_TESTS_UNIT_VSOCK_DRIVER_H

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "devices/virtio_vsock.h"
#include "devices/vsock_wire.h"
#include "tests/fd_count.h"
#include "tests/unit/fake_driver.h"

#define VD_CID 7
/* The device's handshake deadline for the next vd_start (0: its default). */
static unsigned vd_handshake_ms;
#define VD_QSIZE 256
#define VD_RXN 64
#define VD_RXBUF (sizeof(struct vsock_hdr) + 4096)
#define VD_FEAT (VIRTIO_FEAT_VERSION_1 | VIRTIO_FEAT_EVENT_IDX | VIRTIO_FEAT_INDIRECT)

struct vdrv {
	struct fd_mem mem;
	struct fake_vq q[VSOCK_NR_QUEUES];
	struct vmmio *t;
	struct virtio_dev *dev;
	uint64_t rxgpa[VD_RXN];
	uint16_t tx_next;         /* next free descriptor on tx */
	uint64_t tx_base;         /* where tx buffers start over */
	char dir[64];
	char uds[80];
	int fds_before;
};

static inline void vd_post_rx(struct vdrv *d, uint16_t i)
{
	fvq_set_desc(&d->q[VSOCK_Q_RX], i, d->rxgpa[i], VD_RXBUF, VQ_DESC_F_WRITE, 0);
	fvq_publish(&d->q[VSOCK_Q_RX], i);
}

static inline void vd_kick(struct vdrv *d, unsigned q)
{
	fd_wr(d->t, VMMIO_QUEUE_NOTIFY, q);
}

static inline void vd_start(struct vdrv *d, unsigned conns)
{
	struct vsock_config c = { .cid = VD_CID, .max_conns = conns,
				  .handshake_ms = vd_handshake_ms };
	struct vmmio_config mc = { .vm_fd = -1, .base = 0xd0000000, .gsi = 5, .gm = &d->mem.gm };
	struct vsock_host h;

	memset(d, 0, sizeof(*d));
	d->fds_before = test_count_fds();
	snprintf(d->dir, sizeof(d->dir), "/tmp/vsock-unit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d->dir));
	snprintf(d->uds, sizeof(d->uds), "%s/v.sock", d->dir);
	snprintf(c.uds, sizeof(c.uds), "%s", d->uds);
	ck_assert_int_eq(vsock_host_open(&h, &c), 0);
	ck_assert_int_eq(virtio_vsock_create(&d->dev, &c, &h), 0);
	ck_assert_int_eq(fd_mem_init(&d->mem, 8 << 20), 0);
	mc.dev = d->dev;
	for (unsigned q = 0; q < VSOCK_NR_QUEUES; q++)
		fvq_init(&d->q[q], &d->mem, VD_QSIZE);
	for (unsigned i = 0; i < VD_RXN; i++)
		d->rxgpa[i] = fd_alloc(&d->mem, VD_RXBUF, 8);
	d->tx_base = d->mem.next;
	ck_assert_int_eq(vmmio_create(&d->t, &mc), 0);
	ck_assert_uint_ne(fd_negotiate(d->t, VD_FEAT) & VIRTIO_STATUS_FEATURES_OK, 0);
	for (unsigned q = 0; q < VSOCK_NR_QUEUES; q++)
		fd_setup_queue(d->t, q, &d->q[q]);
	ck_assert_uint_eq(fd_driver_ok(d->t) & VIRTIO_STATUS_NEEDS_RESET, 0);
	for (uint16_t i = 0; i < VD_RXN; i++)
		vd_post_rx(d, i);
	vd_kick(d, VSOCK_Q_RX);
}

/* Everything closed again: the process holds the fds it held before. */
static inline void vd_stop(struct vdrv *d)
{
	char path[512];
	DIR *dir;
	struct dirent *e;

	vmmio_destroy(d->t);
	virtio_dev_destroy(d->dev);
	fd_mem_free(&d->mem);
	ck_assert_int_eq(test_count_fds(), d->fds_before);
	if ((dir = opendir(d->dir))) {
		while ((e = readdir(dir)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", d->dir, e->d_name);
				unlink(path);
			}
		closedir(dir);
	}
	rmdir(d->dir);
}

static inline struct vsock_hdr vd_hdr(uint16_t op, uint32_t src_port, uint32_t dst_port)
{
	return (struct vsock_hdr){
		.src_cid = VD_CID, .dst_cid = VSOCK_CID_HOST, .src_port = src_port,
		.dst_port = dst_port, .type = VSOCK_TYPE_STREAM, .op = op,
		.buf_alloc = 64 * 1024,
	};
}

/*
 * One tx packet: the header (split after `split` bytes over two
 * descriptors when split is 1..43) and a payload descriptor of plen bytes
 * (h->len is the caller's: tests lie about it). Waits until it is used.
 */
static inline void vd_send_raw(struct vdrv *d, const void *pkt, uint32_t hlen,
			       const void *payload, uint32_t plen, uint32_t split)
{
	struct fake_vq *v = &d->q[VSOCK_Q_TX];
	uint16_t head = d->tx_next, i = head, want = (uint16_t)(v->avail_idx + 1);
	uint64_t b = fd_alloc(&d->mem, hlen + plen + 16, 8);
	uint8_t *p = fd_host(&d->mem, b);
	uint32_t first = split && split < hlen ? split : hlen;

	memcpy(p, pkt, hlen);
	if (plen)
		memcpy(p + hlen, payload, plen);
	fvq_set_desc(v, i, b, first, 0, 0);
	if (first < hlen) {
		fvq_desc(v)[i].flags |= VQ_DESC_F_NEXT;
		fvq_desc(v)[i].next = (uint16_t)((i + 1) % VD_QSIZE);
		i = (uint16_t)((i + 1) % VD_QSIZE);
		fvq_set_desc(v, i, b + first, hlen - first, 0, 0);
	}
	if (plen) {
		fvq_desc(v)[i].flags |= VQ_DESC_F_NEXT;
		fvq_desc(v)[i].next = (uint16_t)((i + 1) % VD_QSIZE);
		i = (uint16_t)((i + 1) % VD_QSIZE);
		fvq_set_desc(v, i, b + hlen, plen, 0, 0);
	}
	d->tx_next = (uint16_t)((i + 1) % VD_QSIZE);
	fvq_publish(v, head);
	vd_kick(d, VSOCK_Q_TX);
	ck_assert_int_eq(fvq_wait_used(v, want, 5000), 0);
	/* The bump allocator only grows: start over well before 8 MiB. */
	if (d->mem.next > (6u << 20))
		d->mem.next = d->tx_base;
}

static inline void vd_send(struct vdrv *d, struct vsock_hdr h, const void *payload,
			   uint32_t plen)
{
	h.len = plen;
	vd_send_raw(d, &h, sizeof(h), payload, plen, 0);
}

/*
 * The next packet the device wrote into rx, within ms: its payload length
 * (copied to payload, up to max) or -1 when none came. The buffer goes
 * straight back to the device.
 */
static inline int vd_recv(struct vdrv *d, struct vsock_hdr *h, void *payload, size_t max, int ms)
{
	struct fake_vq *v = &d->q[VSOCK_Q_RX];
	struct vq_used_elem e;
	uint8_t *b;
	int n;

	/* Several may have come at once: any entry past the last one seen. */
	for (int i = 0; fvq_used_idx(v) == v->used_seen; i++) {
		if (i >= ms * 10)
			return -1;
		usleep(100);
	}
	e = fvq_used_elem(v, v->used_seen++);
	ck_assert_uint_lt(e.id, VD_RXN);
	ck_assert_uint_ge(e.len, sizeof(*h));
	b = fd_host(&d->mem, d->rxgpa[e.id]);
	memcpy(h, b, sizeof(*h));
	ck_assert_uint_eq(h->len, e.len - sizeof(*h));
	ck_assert_uint_eq(h->src_cid, VSOCK_CID_HOST);
	ck_assert_uint_eq(h->dst_cid, VD_CID);
	n = (int)h->len;
	if (payload)
		memcpy(payload, b + sizeof(*h), (size_t)n < max ? (size_t)n : max);
	vd_post_rx(d, (uint16_t)e.id);
	vd_kick(d, VSOCK_Q_RX);
	return n;
}

/* Expect a packet with op (and for RST/RESPONSE the ports swapped). */
static inline void vd_expect(struct vdrv *d, uint16_t op, uint32_t guest_port, uint32_t host_port)
{
	struct vsock_hdr h;

	ck_assert_int_ge(vd_recv(d, &h, NULL, 0, 5000), 0);
	ck_assert_uint_eq(h.op, op);
	ck_assert_uint_eq(h.dst_port, guest_port);
	ck_assert_uint_eq(h.src_port, host_port);
}

static inline void vd_expect_nothing(struct vdrv *d)
{
	struct vsock_hdr h;

	ck_assert_int_eq(vd_recv(d, &h, NULL, 0, 200), -1);
}

/* A host listener at UDS_port. */
static inline int vd_listen(struct vdrv *d, uint32_t port)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s_%u", d->uds, port);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	return fd;
}

/* A host process connecting to UDS. */
static inline int vd_host_connect(struct vdrv *d)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", d->uds);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Read from a host socket with a timeout: bytes, 0 at EOF, -1 with
 * errno (ETIMEDOUT when nothing came). */
static inline int vd_host_read(int fd, void *buf, size_t n, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	return (int)recv(fd, buf, n, MSG_DONTWAIT);
}

/* The VMM closed it: EOF, or a reset when it left our bytes unread. */
static inline bool vd_host_closed(int fd)
{
	char buf[64];
	int n;

	while ((n = vd_host_read(fd, buf, sizeof(buf), 5000)) > 0)
		;
	return n == 0 || errno == ECONNRESET;
}

/* A guest-initiated connection guest_port -> UDS_host_port, established. */
static inline int vd_guest_connect(struct vdrv *d, int lfd, uint32_t guest_port, uint32_t host_port)
{
	int fd;

	vd_send(d, vd_hdr(VSOCK_OP_REQUEST, guest_port, host_port), NULL, 0);
	vd_expect(d, VSOCK_OP_RESPONSE, guest_port, host_port);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	return fd;
}

#endif
