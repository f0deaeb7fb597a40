/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio-vsock's state, shared by the device (virtio_vsock.c: queues,
 * packets from the guest) and its muxer (vsock_mux.c: the host sockets,
 * packets to the guest). One mutex guards all of it: the tx and rx
 * workers and the muxer each hold it only for non-blocking work.
 */
#ifndef STAINLESS_DEVICES_VSOCK_INT_H
#define STAINLESS_DEVICES_VSOCK_INT_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "devices/virtio_vsock.h"
#include "devices/vsock_wire.h"

/* "CONNECT 4294967295\n" is 19 bytes; a longer line is not one. */
#define VSOCK_LINE_MAX 32
/* Largest payload one packet may carry either way (Linux's own limit). */
#define VSOCK_MAX_PKT (64u * 1024)
/* RSTs owed for packets that match no connection, held until an rx
 * buffer takes them; more than this at once are dropped (the guest's
 * connect then times out instead of failing at once). */
#define VSOCK_RST_RING 64
/*
 * A host peer has this long to send its CONNECT line, and the guest as
 * long again to answer the REQUEST it turns into; past it the host socket
 * is closed (and the guest sent an RST), so a client that hangs or a
 * guest that never answers cannot keep a slot of max_conns for ever.
 */
#define VSOCK_HANDSHAKE_MS 10000
/* Host-initiated connections get local ports from here up. */
#define VSOCK_HOST_PORT_FIRST (1u << 30)

enum vsock_conn_state {
	VC_FREE,
	VC_HOST_LINE,      /* host connected; reading its CONNECT line */
	VC_HOST_WAIT,      /* REQUEST to the guest sent; awaiting RESPONSE */
	VC_GUEST_CONNECT,  /* the guest asked; the muxer connects to UDS_P */
	VC_ESTABLISHED,
};

/* Control packets a connection owes the guest, sent as rx buffers come. */
#define VC_PEND_REQUEST  0x01
#define VC_PEND_RESPONSE 0x02
#define VC_PEND_CREDIT   0x04
#define VC_PEND_SHUTDOWN 0x08
#define VC_PEND_RST      0x10  /* the connection is freed once it is sent */

struct vsock_conn {
	uint8_t state;
	uint8_t pend;
	bool guest_shut_send;     /* the guest will send no more */
	bool guest_shut_rcv;      /* ... nor read any more */
	bool host_eof;            /* the host peer will send no more */
	int fd;
	uint32_t host_port, guest_port;
	uint32_t peer_buf_alloc;  /* the guest's credit, from every packet */
	uint32_t peer_fwd_cnt;
	uint32_t tx_cnt;          /* payload bytes sent to the guest */
	uint32_t rx_cnt;          /* payload bytes taken from the guest */
	uint32_t fwd_cnt;         /* ... and written to the host peer */
	uint32_t fwd_sent;        /* fwd_cnt as the guest last heard it */
	uint8_t *buf;             /* rx_cnt - fwd_cnt bytes at buf + buf_off */
	uint32_t buf_off;
	uint64_t deadline_ms;     /* VC_HOST_LINE and VC_HOST_WAIT end by then */
	uint8_t line_len;
	char line[VSOCK_LINE_MAX];
};

struct vsock_req {
	struct fs_req *req;
	const struct fs_transport *t;
};

struct vsock {
	struct virtio_dev vdev;   /* first: the transport hands us this */
	uint32_t cid;
	unsigned max_conns;
	unsigned handshake_ms;    /* VSOCK_HANDSHAKE_MS unless a test says */
	struct vsock_host host;
	pthread_mutex_t lock;
	bool active;              /* DRIVER_OK until the next reset */
	struct vsock_conn *conns; /* max_conns entries */
	unsigned nr_conns;        /* not VC_FREE */
	uint32_t next_port;
	struct vsock_req rx[VSOCK_QUEUE_SIZE];  /* the guest's empty rx buffers */
	unsigned nr_rx;
	struct vsock_req ev[VSOCK_QUEUE_SIZE];  /* event buffers, held unused */
	unsigned nr_ev;
	struct { uint32_t guest_port, host_port; } rst[VSOCK_RST_RING];
	unsigned nr_rst;
	/* The muxer thread. */
	int wake_fd;              /* eventfd: something changed, look again */
	bool stop;
	bool mux_started;
	bool manual;              /* the fuzzer steps the muxer itself: no thread */
	pthread_t mux;
	struct pollfd *pfd;       /* max_conns + 2, the muxer's alone */
	struct vsock_conn **pfd_conn;
};

/* ---- vsock_conn.c (lock held) ---- */
struct vsock_conn *vsock_conn_find(struct vsock *vs, uint32_t guest_port, uint32_t host_port);
struct vsock_conn *vsock_conn_new(struct vsock *vs, enum vsock_conn_state st, int fd,
				  uint32_t guest_port, uint32_t host_port);
/* Close the host side and owe the guest an RST; freed once it is sent. */
void vsock_conn_reset(struct vsock *vs, struct vsock_conn *c);
/* Close the host side and forget the connection, telling the guest nothing. */
void vsock_conn_free(struct vsock *vs, struct vsock_conn *c);
/* An RST for ports that match no connection. */
void vsock_owe_rst(struct vsock *vs, uint32_t guest_port, uint32_t host_port);
/* Write what the host peer has not taken yet; -errno (EPIPE, ...) or 0. */
int vsock_conn_flush(struct vsock *vs, struct vsock_conn *c);
void vsock_wake(struct vsock *vs);
/* The host peer took n more of the guest's bytes. */
void vsock_forwarded(struct vsock *vs, struct vsock_conn *c, uint32_t n);
/* Once everything the guest sent is out, its SHUTDOWN takes effect. */
void vsock_guest_shutdown_done(struct vsock *vs, struct vsock_conn *c);

/* ---- vsock_mux.c ---- */
int vsock_mux_start(struct vsock *vs);
void vsock_mux_stop(struct vsock *vs);
/* One round of the muxer: owed packets out, then a poll of up to
 * timeout_ms (-1: until something happens) and what it found. Called with
 * the lock held; drops it around the poll. */
void vsock_mux_step(struct vsock *vs, int timeout_ms);
/*
 * The host's handshake line, "CONNECT <port>\n" (n bytes, the '\n'
 * included): the port, or -EINVAL for anything else (no digits, a sign,
 * leading garbage, a port above 2^32-1, trailing bytes).
 */
int64_t vsock_parse_connect(const char *line, unsigned n);

/* ---- vsock_host.c ---- */
/* Connect to "UDS_port" beside UDS, non-blocking: an fd or -errno. Only
 * on a thread whose working directory is UDS's folder (the muxer's). */
int vsock_host_connect(const struct vsock_host *h, uint32_t port);

#endif
