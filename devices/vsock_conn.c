// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio-vsock's connection table (see vsock_int.h): finding, making and
 * ending connections, the credit bookkeeping of what the host peer took,
 * and draining what a slow peer left in a connection's buffer. Used by
 * the device (virtio_vsock.c) and its muxer (vsock_mux.c); calls neither.
 * Every function runs with the device's lock held.
 */
#include "devices/vsock_int.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* Tell the guest about freed buffer space once this much accumulated. */
#define VSOCK_CREDIT_THRESHOLD (VSOCK_BUF_ALLOC / 4)

void vsock_wake(struct vsock *vs)
{
	eventfd_write(vs->wake_fd, 1);
}

struct vsock_conn *vsock_conn_find(struct vsock *vs, uint32_t guest_port, uint32_t host_port)
{
	for (unsigned i = 0; i < vs->max_conns; i++) {
		struct vsock_conn *c = &vs->conns[i];

		/* A connection still reading its CONNECT line has no ports yet. */
		if (c->state != VC_FREE && c->state != VC_HOST_LINE &&
		    c->guest_port == guest_port &&
		    c->host_port == host_port)
			return c;
	}
	return NULL;
}

struct vsock_conn *vsock_conn_new(struct vsock *vs, enum vsock_conn_state st, int fd,
				  uint32_t guest_port, uint32_t host_port)
{
	for (unsigned i = 0; i < vs->max_conns; i++) {
		struct vsock_conn *c = &vs->conns[i];

		if (c->state != VC_FREE)
			continue;
		*c = (struct vsock_conn){
			.state = (uint8_t)st, .fd = fd,
			.guest_port = guest_port, .host_port = host_port,
		};
		vs->nr_conns++;
		return c;
	}
	return NULL;
}

void vsock_conn_free(struct vsock *vs, struct vsock_conn *c)
{
	if (c->state == VC_FREE)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	*c = (struct vsock_conn){ .state = VC_FREE, .fd = -1 };
	vs->nr_conns--;
}

void vsock_conn_reset(struct vsock *vs, struct vsock_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
	c->rx_cnt = c->fwd_cnt;
	c->pend = VC_PEND_RST;
	vsock_wake(vs);
}

void vsock_owe_rst(struct vsock *vs, uint32_t guest_port, uint32_t host_port)
{
	if (vs->nr_rst == VSOCK_RST_RING) {
		virtio_log("virtio-vsock", "too many RSTs owed at once; one dropped");
		return;
	}
	vs->rst[vs->nr_rst].guest_port = guest_port;
	vs->rst[vs->nr_rst].host_port = host_port;
	vs->nr_rst++;
	vsock_wake(vs);
}

/* The host peer took n more bytes: tell the guest when it adds up. */
void vsock_forwarded(struct vsock *vs, struct vsock_conn *c, uint32_t n)
{
	c->fwd_cnt += n;
	if (c->fwd_cnt - c->fwd_sent >= VSOCK_CREDIT_THRESHOLD && !(c->pend & VC_PEND_CREDIT)) {
		c->pend |= VC_PEND_CREDIT;
		vsock_wake(vs);
	}
}

/* Once everything the guest sent is out: its SHUTDOWN takes effect. */
void vsock_guest_shutdown_done(struct vsock *vs, struct vsock_conn *c)
{
	if (c->rx_cnt != c->fwd_cnt || !c->guest_shut_send)
		return;
	if (c->guest_shut_rcv || c->host_eof) {
		/* Both ways done: the spec's RST ends the connection. */
		vsock_conn_reset(vs, c);
		return;
	}
	shutdown(c->fd, SHUT_WR);
}

int vsock_conn_flush(struct vsock *vs, struct vsock_conn *c)
{
	while (c->rx_cnt != c->fwd_cnt) {
		ssize_t n = send(c->fd, c->buf + c->buf_off, c->rx_cnt - c->fwd_cnt,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		c->buf_off += (uint32_t)n;
		vsock_forwarded(vs, c, (uint32_t)n);
	}
	c->buf_off = 0;
	free(c->buf);
	c->buf = NULL;
	vsock_guest_shutdown_done(vs, c);
	vsock_wake(vs);
	return 0;
}

