// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio-vsock's muxer: the one thread that waits on the host side (the
 * listening socket UDS and every connection's socket) and writes every
 * packet the guest receives, into rx buffers the rx worker parked.
 *
 * It polls a connection's socket for reading only while the guest has
 * credit for it and an rx buffer is there, and then receives straight
 * into that buffer behind the header: bytes the guest cannot take yet stay
 * in the peer's socket. It polls for writing only while the connection
 * holds bytes the peer did not take (virtio_vsock.c buffers them).
 *
 * Guest connects to UDS_P happen here too, so only this thread needs a
 * working directory: it takes its own (unshare(CLONE_FS)) and moves it
 * into UDS's folder, opened before the sandbox (vsock_host.c).
 */
#include "devices/vsock_int.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/thread.h"

/* Host data packets one connection may fill per round, so one busy peer
 * cannot take every rx buffer while others wait. */
#define VSOCK_FILL_BURST 16

int64_t vsock_parse_connect(const char *line, unsigned n)
{
	static const char verb[] = "CONNECT ";
	uint64_t port = 0;
	unsigned i = sizeof(verb) - 1;

	if (n <= i + 1 || memcmp(line, verb, i) || line[n - 1] != '\n')
		return -EINVAL;
	for (; i < n - 1; i++) {
		if (line[i] < '0' || line[i] > '9')
			return -EINVAL;
		port = port * 10 + (uint64_t)(line[i] - '0');
		if (port > UINT32_MAX)
			return -EINVAL;
	}
	return (int64_t)port;
}

static uint32_t guest_credit(const struct vsock_conn *c)
{
	uint32_t in_flight = c->tx_cnt - c->peer_fwd_cnt;

	return in_flight >= c->peer_buf_alloc ? 0 : c->peer_buf_alloc - in_flight;
}

/* Scatter the header over the buffer's first bytes. */
static void put_hdr(const struct fs_req *req, const struct vsock_hdr *h)
{
	const uint8_t *p = (const uint8_t *)h;
	size_t done = 0;

	for (unsigned i = 0; i < req->nout && done < sizeof(*h); i++) {
		size_t l = req->out[i].iov_len < sizeof(*h) - done ? req->out[i].iov_len
								   : sizeof(*h) - done;

		memcpy(req->out[i].iov_base, p + done, l); /* guest */
		done += l;
	}
}

static size_t out_len(const struct fs_req *req)
{
	size_t n = 0;

	for (unsigned i = 0; i < req->nout; i++)
		n += req->out[i].iov_len;
	return n;
}

/* The next rx buffer that can hold a header; NULL when none is left. */
static struct vsock_req *rx_take(struct vsock *vs, size_t *len)
{
	while (vs->nr_rx) {
		struct vsock_req *r = &vs->rx[--vs->nr_rx];

		*len = out_len(r->req);
		if (*len >= sizeof(struct vsock_hdr))
			return r;
		r->t->complete(r->t->ctx, r->req, 0); /* too small for anything */
	}
	return NULL;
}

static struct vsock_hdr hdr_for(const struct vsock *vs, uint32_t guest_port,
				uint32_t host_port, uint16_t op)
{
	return (struct vsock_hdr){
		.src_cid = VSOCK_CID_HOST, .dst_cid = vs->cid,
		.src_port = host_port, .dst_port = guest_port,
		.type = VSOCK_TYPE_STREAM, .op = op, .buf_alloc = VSOCK_BUF_ALLOC,
	};
}

/* One control packet; false when no rx buffer is there for it. */
static bool rx_control(struct vsock *vs, struct vsock_conn *c, uint32_t guest_port,
		       uint32_t host_port, uint16_t op, uint32_t flags)
{
	struct vsock_hdr h = hdr_for(vs, guest_port, host_port, op);
	struct vsock_req *r;
	size_t len;

	if (!(r = rx_take(vs, &len)))
		return false;
	h.flags = flags;
	if (c) {
		h.fwd_cnt = c->fwd_cnt;
		c->fwd_sent = c->fwd_cnt;
	}
	put_hdr(r->req, &h);
	r->t->complete(r->t->ctx, r->req, sizeof(h));
	return true;
}

/* The most urgent packet c owes; false when out of rx buffers. */
static bool conn_owed(struct vsock *vs, struct vsock_conn *c)
{
	static const struct { uint8_t bit; uint16_t op; uint32_t flags; } order[] = {
		{ VC_PEND_RST, VSOCK_OP_RST, 0 },
		{ VC_PEND_REQUEST, VSOCK_OP_REQUEST, 0 },
		{ VC_PEND_RESPONSE, VSOCK_OP_RESPONSE, 0 },
		{ VC_PEND_SHUTDOWN, VSOCK_OP_SHUTDOWN, VSOCK_SHUTDOWN_SEND },
		{ VC_PEND_CREDIT, VSOCK_OP_CREDIT_UPDATE, 0 },
	};

	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(c->pend & order[i].bit))
			continue;
		if (!rx_control(vs, c, c->guest_port, c->host_port, order[i].op, order[i].flags))
			return false;
		if (order[i].bit == VC_PEND_RST) {
			vsock_conn_free(vs, c);
			return true;
		}
		c->pend &= (uint8_t)~order[i].bit;
	}
	return true;
}

/* Guest connects the tx worker accepted: reach UDS_P now. */
static void guest_connects(struct vsock *vs)
{
	for (unsigned i = 0; i < vs->max_conns; i++) {
		struct vsock_conn *c = &vs->conns[i];
		int fd;

		if (c->state != VC_GUEST_CONNECT || c->pend & VC_PEND_RST)
			continue;
		fd = vsock_host_connect(&vs->host, c->host_port);
		if (fd < 0) {
			if (fd != -ENOENT && fd != -ECONNREFUSED)
				virtio_log("virtio-vsock", "guest connect to host port %u: %s",
					   c->host_port, strerror(-fd));
			vsock_conn_reset(vs, c); /* no listener there: the guest sees RST */
			continue;
		}
		c->fd = fd;
		c->state = VC_ESTABLISHED;
		c->pend |= VC_PEND_RESPONSE;
	}
}

/* Everything owed that needs no host I/O, as far as rx buffers go. */
static void rx_fill_control(struct vsock *vs)
{
	while (vs->nr_rst) {
		unsigned k = vs->nr_rst - 1;

		if (!rx_control(vs, NULL, vs->rst[k].guest_port, vs->rst[k].host_port,
				VSOCK_OP_RST, 0))
			return;
		vs->nr_rst = k;
	}
	for (unsigned i = 0; i < vs->max_conns; i++)
		if (vs->conns[i].state != VC_FREE && vs->conns[i].pend && !conn_owed(vs, &vs->conns[i]))
			return;
}

/* The host peer sent no more: the guest hears SHUTDOWN(SEND). */
static void host_eof(struct vsock *vs, struct vsock_conn *c)
{
	c->host_eof = true;
	if (c->guest_shut_send && c->rx_cnt == c->fwd_cnt)
		vsock_conn_reset(vs, c); /* both ways done */
	else
		c->pend |= VC_PEND_SHUTDOWN;
}

/* Host bytes straight into one rx buffer; false when c should wait. */
static bool rx_data(struct vsock *vs, struct vsock_conn *c)
{
	struct iovec v[VSOCK_QUEUE_SIZE];
	uint32_t room = guest_credit(c);
	struct vsock_req *r;
	struct vsock_hdr h;
	size_t len, skip = sizeof(h);
	unsigned nv = 0;
	ssize_t n;

	if (!room || !(r = rx_take(vs, &len)))
		return false;
	room = room < VSOCK_MAX_PKT ? room : VSOCK_MAX_PKT;
	for (unsigned i = 0; i < r->req->nout && room && nv < VSOCK_QUEUE_SIZE; i++) {
		size_t l = r->req->out[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		v[nv].iov_base = (char *)r->req->out[i].iov_base + skip;
		v[nv].iov_len = l - skip < room ? l - skip : room;
		room -= (uint32_t)v[nv++].iov_len;
		skip = 0;
	}
	if (!nv) {
		vs->nr_rx++; /* a header-only buffer: leave it for control packets */
		return false;
	}
	n = recvmsg(c->fd, &(struct msghdr){ .msg_iov = v, .msg_iovlen = nv }, MSG_DONTWAIT);
	if (n <= 0) {
		vs->nr_rx++; /* the buffer stays ours for the next packet */
		if (n == 0)
			host_eof(vs, c);
		else if (errno != EAGAIN && errno != EINTR)
			vsock_conn_reset(vs, c);
		return false;
	}
	h = hdr_for(vs, c->guest_port, c->host_port, VSOCK_OP_RW);
	h.len = (uint32_t)n;
	h.fwd_cnt = c->fwd_cnt;
	c->fwd_sent = c->fwd_cnt;
	c->tx_cnt += (uint32_t)n;
	put_hdr(r->req, &h);
	r->t->complete(r->t->ctx, r->req, (uint32_t)(sizeof(h) + (size_t)n));
	return true;
}

static uint32_t host_port_new(struct vsock *vs)
{
	for (;;) {
		uint32_t p = vs->next_port++;
		bool used = false;

		if (vs->next_port == UINT32_MAX)
			vs->next_port = VSOCK_HOST_PORT_FIRST;
		for (unsigned i = 0; i < vs->max_conns && !used; i++)
			used = vs->conns[i].state != VC_FREE && vs->conns[i].host_port == p;
		if (!used)
			return p;
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The host's "CONNECT <port>\n", a byte at a time so that what follows the
 * line stays in the socket for the guest. */
static void host_line(struct vsock *vs, struct vsock_conn *c)
{
	int64_t port;

	while (c->line_len < VSOCK_LINE_MAX) {
		ssize_t n = recv(c->fd, &c->line[c->line_len], 1, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0)
			break;
		if (c->line[c->line_len++] != '\n')
			continue;
		port = vsock_parse_connect(c->line, c->line_len);
		if (port < 0)
			break;
		c->guest_port = (uint32_t)port;
		c->host_port = host_port_new(vs);
		c->state = VC_HOST_WAIT;
		c->deadline_ms = now_ms() + vs->handshake_ms;
		c->pend |= VC_PEND_REQUEST;
		return;
	}
	vsock_conn_free(vs, c); /* garbage, too long, or gone: just close */
}

static void host_accept(struct vsock *vs)
{
	while (vs->active && vs->nr_conns < vs->max_conns) {
		int fd = accept4(vs->host.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		struct vsock_conn *c = vsock_conn_new(vs, VC_HOST_LINE, fd, 0, 0);

		if (!c) {
			close(fd);
			return;
		}
		c->deadline_ms = now_ms() + vs->handshake_ms;
	}
}

/*
 * Ends the handshakes past their deadline; returns how long the poll may
 * wait for the next one (or timeout_ms when none is sooner).
 */
static int handshake_deadlines(struct vsock *vs, int timeout_ms)
{
	uint64_t now = now_ms();

	for (unsigned i = 0; i < vs->max_conns; i++) {
		struct vsock_conn *c = &vs->conns[i];

		if (c->state != VC_HOST_LINE && c->state != VC_HOST_WAIT)
			continue;
		if (c->pend & VC_PEND_RST)
			continue;
		if (c->deadline_ms <= now) {
			if (c->state == VC_HOST_LINE)
				vsock_conn_free(vs, c);   /* the guest never heard of it */
			else
				vsock_conn_reset(vs, c);
			continue;
		}
		if (timeout_ms < 0 || c->deadline_ms - now < (uint64_t)timeout_ms)
			timeout_ms = (int)(c->deadline_ms - now);
	}
	return timeout_ms;
}

static short conn_events(const struct vsock *vs, const struct vsock_conn *c)
{
	short ev = 0;

	if (c->fd < 0 || c->pend & VC_PEND_RST)
		return 0;
	if (c->state == VC_HOST_LINE)
		return POLLIN;
	if (c->state != VC_ESTABLISHED)
		return 0;
	if (!c->host_eof && !c->guest_shut_rcv && vs->nr_rx && guest_credit(c))
		ev |= POLLIN;
	if (c->rx_cnt != c->fwd_cnt)
		ev |= POLLOUT;
	return ev;
}

static unsigned poll_set(struct vsock *vs)
{
	unsigned n = 2;

	vs->pfd[0] = (struct pollfd){ .fd = vs->wake_fd, .events = POLLIN };
	vs->pfd[1] = (struct pollfd){ .fd = -1 };
	if (vs->active && vs->nr_conns < vs->max_conns)
		vs->pfd[1] = (struct pollfd){ .fd = vs->host.listen_fd, .events = POLLIN };
	for (unsigned i = 0; i < vs->max_conns; i++) {
		struct vsock_conn *c = &vs->conns[i];
		short ev = conn_events(vs, c);

		if (!ev)
			continue;
		vs->pfd[n] = (struct pollfd){ .fd = c->fd, .events = ev };
		vs->pfd_conn[n++] = c;
	}
	return n;
}

static void poll_done(struct vsock *vs, unsigned n)
{
	uint64_t v;

	if (vs->pfd[0].revents)
		(void)eventfd_read(vs->wake_fd, &v);
	if (vs->pfd[1].revents)
		host_accept(vs);
	for (unsigned i = 2; i < n; i++) {
		struct vsock_conn *c = vs->pfd_conn[i];
		short re = vs->pfd[i].revents;

		/* The tx worker may have closed it meanwhile; only we open fds,
		 * so the same number is still the same socket. */
		if (!re || c->fd != vs->pfd[i].fd)
			continue;
		if (c->state == VC_HOST_LINE) {
			host_line(vs, c);
			continue;
		}
		if (re & (POLLOUT | POLLERR | POLLHUP) && vs->pfd[i].events & POLLOUT &&
		    vsock_conn_flush(vs, c) < 0) {
			vsock_conn_reset(vs, c);
			continue;
		}
		for (unsigned k = 0; k < VSOCK_FILL_BURST && c->state == VC_ESTABLISHED &&
		     c->fd >= 0 && !c->host_eof && vs->pfd[i].events & POLLIN; k++)
			if (!rx_data(vs, c))
				break;
	}
}

void vsock_mux_step(struct vsock *vs, int timeout_ms)
{
	unsigned n;

	if (vs->active) {
		guest_connects(vs);
		timeout_ms = handshake_deadlines(vs, timeout_ms);
		rx_fill_control(vs);
	}
	n = poll_set(vs);
	pthread_mutex_unlock(&vs->lock);
	if (poll(vs->pfd, n, timeout_ms) < 0 && errno != EINTR)
		virtio_log("virtio-vsock", "poll: %s", strerror(errno));
	pthread_mutex_lock(&vs->lock);
	if (vs->active)
		poll_done(vs, n);
	else
		(void)eventfd_read(vs->wake_fd, &(uint64_t){ 0 });
}

static void *mux_main(void *arg)
{
	struct vsock *vs = arg;

	(void)pthread_setname_np(pthread_self(), "vsock-mux");
	/* Our own working directory, in UDS's folder: guest connects name
	 * "UDS_P" relative to it, whatever the sandbox left of the tree. */
	if (unshare(CLONE_FS) < 0 || fchdir(vs->host.dir_fd) < 0)
		virtio_log("virtio-vsock", "cannot enter the socket's folder (%s): "
			   "guest connects will be refused", strerror(errno));
	pthread_mutex_lock(&vs->lock);
	while (!vs->stop)
		vsock_mux_step(vs, -1);
	pthread_mutex_unlock(&vs->lock);
	return NULL;
}

int vsock_mux_start(struct vsock *vs)
{
	sigset_t all, old;
	int rc;

	/* Started from a vCPU thread at DRIVER_OK: signals are not ours. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = fs_thread_create(&vs->mux, NULL, FS_ROLE_VSOCK, mux_main, vs);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void vsock_mux_stop(struct vsock *vs)
{
	pthread_mutex_lock(&vs->lock);
	vs->stop = true;
	pthread_mutex_unlock(&vs->lock);
	vsock_wake(vs);
	pthread_join(vs->mux, NULL);
}
