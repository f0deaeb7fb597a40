/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio-vsock (device ID 19) with Firecracker's hybrid Unix-socket
 * backend, which Kata's runtime already speaks (`run --vsock CID,UDS`):
 *
 *  - host -> guest: a host process connects to the Unix socket UDS and
 *    writes "CONNECT <port>\n"; once the guest's listener on that port
 *    accepted (REQUEST -> RESPONSE), it reads "OK <host port>\n" and the
 *    connection is a byte stream. A refused connection (no listener:
 *    the guest answers RST) or a malformed line closes the host socket.
 *  - guest -> host: connect(VMADDR_CID_HOST, P) in the guest reaches a
 *    listener on the Unix socket "UDS_P" if there is one, else the guest
 *    sees ECONNRESET.
 *
 * Stream sockets only (no SEQPACKET feature). Flow control is the spec's
 * credit: the guest is never sent more than it advertised, and each
 * connection advertises VSOCK_BUF_ALLOC bytes of host buffer, which is all
 * the VMM ever holds for it (see virtio_vsock.c).
 */
#ifndef STAINLESS_DEVICES_VIRTIO_VSOCK_H
#define STAINLESS_DEVICES_VIRTIO_VSOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#include "devices/virtio.h"

#define VSOCK_QUEUE_SIZE 256
/* Per-connection host buffer advertised to the guest (buf_alloc). */
#define VSOCK_BUF_ALLOC (256u * 1024)
#define VSOCK_CONNS_DEFAULT 64
#define VSOCK_CONNS_MAX 1024

/* What --vsock (and the API's vsock object) ask for. cid 0: no device. */
struct vsock_config {
	uint32_t cid;
	unsigned max_conns;
	unsigned handshake_ms;    /* 0: VSOCK_HANDSHAKE_MS (vsock_int.h); tests shorten it */
	char uds[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/*
 * Parse "CID,UDS[,conns=N]" into *c: CID in 3..2^32-2, UDS a path short
 * enough that "UDS_4294967295" still fits a Unix socket address. 0, or
 * -EINVAL with a one-line reason in err. No side effects.
 */
int vsock_parse_config(const char *val, struct vsock_config *c, char *err, size_t errlen);

/*
 * What the device needs from the host file system, opened before the
 * sandbox closes it off: the listening socket bound at UDS, and a
 * directory fd of UDS's folder, the only place guest connects go.
 */
struct vsock_host {
	int listen_fd;
	int dir_fd;
	char base[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* UDS's last component */
};

/* Bind UDS (a stale socket there is replaced; anything else refuses) and
 * open its folder. 0 or -errno. */
int vsock_host_open(struct vsock_host *h, const struct vsock_config *c);
void vsock_host_close(struct vsock_host *h);

/* A new device in *out that owns h's fds from now on (also on failure).
 * 0 or -errno. Free with virtio_dev_destroy(). */
int virtio_vsock_create(struct virtio_dev **out, const struct vsock_config *c,
			struct vsock_host *h);

#endif
