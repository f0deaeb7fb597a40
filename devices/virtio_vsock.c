// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio-vsock: the queues and the packets the guest sends (see
 * virtio_vsock.h for the host convention, vsock_mux.c for the host side).
 *
 * Threads: the rx, tx and event queues each have their worker
 * (devices/worker.c) and the device has one muxer thread; all of them run
 * under the "vsock" seccomp role (ops->thread_role). The rx worker parks
 * the guest's empty buffers in vs->rx and leaves them deferred; the muxer
 * fills them (control packets, then host data read straight into them)
 * and completes them. The tx worker answers each guest packet inline:
 * data goes to the host peer with one sendmsg straight from the guest's
 * buffers, and only what the peer's socket does not take at once is
 * copied, into the connection's buffer, which the muxer drains when the
 * socket is writable again.
 *
 * Bounds: the guest may have at most VSOCK_BUF_ALLOC unforwarded bytes per
 * connection (its credit; more is an RST), so that buffer never holds more,
 * and it exists only while a peer is slow. Host data is read only as far as
 * the guest's own credit and an rx buffer allow, so a guest that stops
 * reading leaves the bytes in the host peer's socket, not in the VMM. At
 * most max_conns connections exist; more are refused (RST, or the host
 * connection closed).
 *
 * Every packet the guest sends that the protocol does not allow in the
 * connection's state -- a bad length, an unknown op or type, a wrong CID,
 * data beyond credit, a packet for no connection -- is answered with RST
 * (except an RST itself) and ends that connection. A device reset closes
 * every host fd.
 */
#include "devices/vsock_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* Bytes [skip, skip+len) of the chain's readable part as iovecs in v. */
static unsigned iov_slice(const struct fs_req *req, size_t skip, size_t len,
			  struct iovec *v, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < req->nin && len && n < max; i++) {
		size_t l = req->in[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		v[n].iov_base = (char *)req->in[i].iov_base + skip;
		v[n].iov_len = l - skip < len ? l - skip : len;
		len -= v[n].iov_len;
		skip = 0;
		n++;
	}
	return n;
}

/* A guest RW: straight to the peer, the rest into the buffer (one copy). */
static void conn_data(struct vsock *vs, struct vsock_conn *c, const struct fs_req *req,
		      uint32_t len)
{
	struct iovec v[VSOCK_QUEUE_SIZE];
	unsigned nv = iov_slice(req, sizeof(struct vsock_hdr), len, v, VSOCK_QUEUE_SIZE);
	uint32_t queued = c->rx_cnt - c->fwd_cnt;
	size_t sent = 0;

	if (queued + len > VSOCK_BUF_ALLOC) {
		vsock_conn_reset(vs, c); /* beyond the credit we gave */
		return;
	}
	c->rx_cnt += len;
	if (!queued) {
		struct msghdr mh = { .msg_iov = v, .msg_iovlen = nv };
		ssize_t n = sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL); /* guest */

		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			vsock_conn_reset(vs, c);
			return;
		}
		sent = n > 0 ? (size_t)n : 0;
		vsock_forwarded(vs, c, (uint32_t)sent);
		if (sent == len)
			return;
	}
	if (!c->buf && !(c->buf = malloc(VSOCK_BUF_ALLOC))) {
		vsock_conn_reset(vs, c);
		return;
	}
	if (c->buf_off + queued + (len - sent) > VSOCK_BUF_ALLOC) {
		memmove(c->buf, c->buf + c->buf_off, queued);
		c->buf_off = 0;
	}
	for (unsigned i = 0, at = c->buf_off + queued; i < nv; i++) {
		size_t l = v[i].iov_len;

		if (sent >= l) {
			sent -= l;
			continue;
		}
		memcpy(c->buf + at, (char *)v[i].iov_base + sent, l - sent); /* guest */
		at += (unsigned)(l - sent);
		sent = 0;
	}
	vsock_wake(vs); /* the muxer now waits for the socket to drain */
}

static void conn_shutdown(struct vsock *vs, struct vsock_conn *c, uint32_t flags)
{
	if (flags & VSOCK_SHUTDOWN_SEND)
		c->guest_shut_send = true;
	if (flags & VSOCK_SHUTDOWN_RCV)
		c->guest_shut_rcv = true;
	if (c->guest_shut_rcv && !c->guest_shut_send)
		return; /* it only stopped reading: we simply send nothing more */
	vsock_guest_shutdown_done(vs, c);
}

/* The guest accepted a host connection: "OK <port>\n", as Firecracker. */
static void host_ok(struct vsock *vs, struct vsock_conn *c)
{
	char line[24];
	int n = snprintf(line, sizeof(line), "OK %u\n", c->host_port);

	/* A fresh socket's buffer takes a line this short at once. */
	if (send(c->fd, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n)
		vsock_conn_reset(vs, c);
	vsock_wake(vs);
}

/* A packet for an existing connection, in the state it is in. */
static void conn_packet(struct vsock *vs, struct vsock_conn *c, const struct vsock_hdr *h,
			const struct fs_req *req)
{
	if (c->pend & VC_PEND_RST)
		return; /* already ending: the guest hears RST next */
	c->peer_buf_alloc = h->buf_alloc;
	c->peer_fwd_cnt = h->fwd_cnt;
	switch (h->op) {
	case VSOCK_OP_RST:
		vsock_conn_free(vs, c);
		return;
	case VSOCK_OP_RESPONSE:
		if (c->state != VC_HOST_WAIT)
			break;
		c->state = VC_ESTABLISHED;
		c->pend &= (uint8_t)~VC_PEND_REQUEST;
		host_ok(vs, c);
		return;
	case VSOCK_OP_RW:
		if (c->state != VC_ESTABLISHED || c->guest_shut_send)
			break;
		conn_data(vs, c, req, h->len);
		return;
	case VSOCK_OP_SHUTDOWN:
		if (c->state != VC_ESTABLISHED)
			break;
		conn_shutdown(vs, c, h->flags);
		return;
	case VSOCK_OP_CREDIT_REQUEST:
	case VSOCK_OP_CREDIT_UPDATE:
		if (c->state != VC_ESTABLISHED)
			break;
		if (h->op == VSOCK_OP_CREDIT_REQUEST)
			c->pend |= VC_PEND_CREDIT;
		vsock_wake(vs); /* the muxer may read more for it now */
		return;
	}
	vsock_conn_reset(vs, c);
}

/* A guest REQUEST: a connection to UDS_<dst_port>, made by the muxer. */
static void guest_request(struct vsock *vs, const struct vsock_hdr *h)
{
	struct vsock_conn *c = vsock_conn_new(vs, VC_GUEST_CONNECT, -1, h->src_port,
					      h->dst_port);

	if (!c) {
		vsock_owe_rst(vs, h->src_port, h->dst_port);
		return;
	}
	c->peer_buf_alloc = h->buf_alloc;
	c->peer_fwd_cnt = h->fwd_cnt;
	vsock_wake(vs);
}

/* Copy the header out of the (possibly split) readable part. */
static bool read_hdr(const struct fs_req *req, struct vsock_hdr *h, size_t *total)
{
	uint8_t *p = (uint8_t *)h;
	size_t got = 0;

	*total = 0;
	for (unsigned i = 0; i < req->nin; i++) {
		size_t l = req->in[i].iov_len;
		size_t take = l < sizeof(*h) - got ? l : sizeof(*h) - got;

		memcpy(p + got, req->in[i].iov_base, take); /* guest */
		got += take;
		*total += l;
	}
	return got == sizeof(*h);
}

static void tx_packet(struct vsock *vs, const struct fs_req *req)
{
	struct vsock_hdr h;
	struct vsock_conn *c;
	size_t total;

	if (!read_hdr(req, &h, &total))
		return; /* not even a header: nothing to answer */
	if (!vs->active)
		return;
	c = vsock_conn_find(vs, h.src_port, h.dst_port);
	if (h.src_cid != vs->cid || h.dst_cid != VSOCK_CID_HOST ||
	    h.type != VSOCK_TYPE_STREAM || h.len > total - sizeof(h) ||
	    h.len > VSOCK_MAX_PKT || (h.op != VSOCK_OP_RW && h.len)) {
		if (c)
			vsock_conn_reset(vs, c);
		else if (h.op != VSOCK_OP_RST)
			vsock_owe_rst(vs, h.src_port, h.dst_port);
		return;
	}
	if (c) {
		if (h.op == VSOCK_OP_REQUEST)
			vsock_conn_reset(vs, c); /* a second REQUEST for a live pair */
		else
			conn_packet(vs, c, &h, req);
	} else if (h.op == VSOCK_OP_REQUEST) {
		guest_request(vs, &h);
	} else if (h.op != VSOCK_OP_RST) {
		vsock_owe_rst(vs, h.src_port, h.dst_port);
	}
}

static int vsock_handle(struct virtio_dev *dev, unsigned q, struct fs_req *req,
			const struct fs_transport *t)
{
	struct vsock *vs = (struct vsock *)dev;
	struct vsock_req *pool = q == VSOCK_Q_RX ? vs->rx : vs->ev;
	unsigned *nr = q == VSOCK_Q_RX ? &vs->nr_rx : &vs->nr_ev;
	int rc = FS_REQ_DEFERRED;

	pthread_mutex_lock(&vs->lock);
	if (q == VSOCK_Q_TX) {
		tx_packet(vs, req);
		rc = 0;
	} else if (*nr < VSOCK_QUEUE_SIZE) {
		/* A head is in flight once, and the ring holds at most this many. */
		pool[(*nr)++] = (struct vsock_req){ .req = req, .t = t };
		if (q == VSOCK_Q_RX)
			vsock_wake(vs);
	} else {
		rc = 0;
	}
	pthread_mutex_unlock(&vs->lock);
	return rc;
}

static void vsock_config_read(struct virtio_dev *dev, uint32_t off, void *data, unsigned size)
{
	struct vsock_config_space cs = { .guest_cid = ((struct vsock *)dev)->cid };

	memcpy(data, (uint8_t *)&cs + off, size);
}

static int vsock_activate(struct virtio_dev *dev, uint64_t features)
{
	struct vsock *vs = (struct vsock *)dev;
	int rc = 0;

	(void)features;
	pthread_mutex_lock(&vs->lock);
	vs->active = true;
	pthread_mutex_unlock(&vs->lock);
	if (!vs->manual && !vs->mux_started && (rc = vsock_mux_start(vs)) == 0)
		vs->mux_started = true;
	vsock_wake(vs);
	return rc;
}

/* Give back held buffers (their used entries go nowhere after a reset). */
static void give_back(struct vsock_req *pool, unsigned *nr)
{
	for (unsigned i = 0; i < *nr; i++)
		pool[i].t->complete(pool[i].t->ctx, pool[i].req, 0);
	*nr = 0;
}

/* The workers are stopped: drop every connection and every buffer. */
static void vsock_reset(struct virtio_dev *dev)
{
	struct vsock *vs = (struct vsock *)dev;

	pthread_mutex_lock(&vs->lock);
	vs->active = false;
	for (unsigned i = 0; vs->conns && i < vs->max_conns; i++)
		vsock_conn_free(vs, &vs->conns[i]);
	vs->nr_rst = 0;
	give_back(vs->rx, &vs->nr_rx);
	give_back(vs->ev, &vs->nr_ev);
	pthread_mutex_unlock(&vs->lock);
	vsock_wake(vs);
}

static void vsock_destroy(struct virtio_dev *dev)
{
	struct vsock *vs = (struct vsock *)dev;

	if (vs->mux_started)
		vsock_mux_stop(vs);
	vsock_reset(dev);
	vsock_host_close(&vs->host);
	if (vs->wake_fd >= 0)
		close(vs->wake_fd);
	pthread_mutex_destroy(&vs->lock);
	free(vs->pfd);
	free(vs->pfd_conn);
	free(vs->conns);
	free(vs);
}

static const struct virtio_dev_ops vsock_ops = {
	.name = "virtio-vsock",
	.device_id = VIRTIO_ID_VSOCK,
	.features = 0,            /* stream only: no VIRTIO_VSOCK_F_SEQPACKET */
	.queue_size_max = VSOCK_QUEUE_SIZE,
	.config_size = sizeof(struct vsock_config_space),
	.thread_role = FS_ROLE_VSOCK,
	.config_read = vsock_config_read,
	.activate = vsock_activate,
	.handle = vsock_handle,
	.reset = vsock_reset,
	.destroy = vsock_destroy,
};

int virtio_vsock_create(struct virtio_dev **out, const struct vsock_config *c,
			struct vsock_host *h)
{
	struct vsock *vs = calloc(1, sizeof(*vs));
	unsigned n = c->max_conns ? c->max_conns : VSOCK_CONNS_DEFAULT;

	if (!vs || c->cid < VSOCK_CID_GUEST_MIN || n > VSOCK_CONNS_MAX) {
		free(vs);
		vsock_host_close(h);
		return vs ? -EINVAL : -ENOMEM;
	}
	vs->vdev.ops = &vsock_ops;
	vs->vdev.num_queues = VSOCK_NR_QUEUES;
	vs->cid = c->cid;
	vs->max_conns = n;
	vs->handshake_ms = c->handshake_ms ? c->handshake_ms : VSOCK_HANDSHAKE_MS;
	vs->host = *h;
	h->listen_fd = h->dir_fd = -1;
	vs->next_port = VSOCK_HOST_PORT_FIRST;
	pthread_mutex_init(&vs->lock, NULL);
	vs->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	vs->conns = calloc(n, sizeof(*vs->conns));
	vs->pfd = calloc(n + 2, sizeof(*vs->pfd));
	vs->pfd_conn = calloc(n + 2, sizeof(*vs->pfd_conn));
	if (vs->wake_fd < 0 || !vs->conns || !vs->pfd || !vs->pfd_conn) {
		int rc = vs->wake_fd < 0 ? -errno : -ENOMEM;

		vsock_destroy(&vs->vdev);
		return rc;
	}
	for (unsigned i = 0; i < n; i++)
		vs->conns[i].fd = -1;
	*out = &vs->vdev;
	return 0;
}
