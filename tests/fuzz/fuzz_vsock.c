// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: virtio-vsock (devices/virtio_vsock.c, vsock_mux.c)
 * between a hostile guest and hostile host peers. The device is driven
 * through its ops table on this one thread -- its handler for the queues,
 * and the muxer stepped by hand (vs->manual) on one thread at a time -- so
 * a run is repeatable.
 * Host listeners wait at UDS_1 and UDS_2, so guest REQUESTs can succeed.
 *
 * Input: records of [kind][len][len bytes], kind % 8:
 *   0  a tx packet: the bytes, cut over up to three descriptors at the
 *      offsets in its first two bytes
 *   1  an rx buffer of 1 + (first byte * 64) bytes, cut in two at the second
 *   2  one round of the muxer (poll timeout 0)
 *   3  a driver reset, then the device activated again
 *   4  a host process connects to UDS and writes the bytes (the handshake)
 *   5  the last host process writes the bytes
 *   6  the last host process hangs up
 *   7  accept what reached UDS_1/UDS_2 and write the bytes there
 *
 * Findings (abort): a packet the device writes that is not a well-formed
 * host-to-guest header (CIDs, type, op, a len that is not what it
 * completed), a completion longer than its buffer or completed twice, and
 * any fd still open once the device is destroyed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "devices/vsock_int.h"
#include "tests/fd_count.h"

#define FZ_CID 9
#define FZ_MAX_RX 64
#define FZ_MAX_HOST 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_buf {
	struct fs_req req;
	struct iovec iov[2];
	uint8_t *mem;
	size_t len;
	bool done;
};

static char dir[64], uds[96];
static int listeners[2] = { -1, -1 };
static struct fz_buf rx[FZ_MAX_RX];
static unsigned nr_rx;

static void die(const char *what)
{
	fprintf(stderr, "fuzz oracle: %s\n", what);
	abort();
}

static void rx_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	struct fz_buf *b = req->cookie;
	struct vsock_hdr h;

	(void)ctx;
	if (b->done)
		die("an rx buffer completed twice");
	b->done = true;
	if (len > b->len)
		die("a completion longer than its buffer");
	if (!len)
		return;
	if (len < sizeof(h))
		die("a packet shorter than its header");
	memcpy(&h, b->mem, sizeof(h));
	if (h.src_cid != VSOCK_CID_HOST || h.dst_cid != FZ_CID || h.type != VSOCK_TYPE_STREAM ||
	    h.op < VSOCK_OP_REQUEST || h.op > VSOCK_OP_CREDIT_REQUEST ||
	    h.len != len - sizeof(h) || (h.op != VSOCK_OP_RW && h.len) ||
	    h.buf_alloc != VSOCK_BUF_ALLOC)
		die("a malformed packet to the guest");
}

static const struct fs_transport rx_t = { .complete = rx_complete };
static const struct fs_transport tx_t = { .complete = rx_complete };

static void add_rx(struct virtio_dev *dev, const uint8_t *p, size_t n)
{
	struct fz_buf *b;
	size_t cut;

	if (nr_rx == FZ_MAX_RX || n < 2)
		return;
	b = &rx[nr_rx++];
	b->len = 1 + (size_t)p[0] * 64;
	b->mem = malloc(b->len);
	cut = p[1] % (b->len + 1);
	b->iov[0] = (struct iovec){ b->mem, cut };
	b->iov[1] = (struct iovec){ b->mem + cut, b->len - cut };
	b->req = (struct fs_req){ .out = b->iov, .nout = 2, .cookie = b };
	if (dev->ops->handle(dev, VSOCK_Q_RX, &b->req, &rx_t) != FS_REQ_DEFERRED)
		b->done = true;
}

static void tx(struct virtio_dev *dev, const uint8_t *p, size_t n)
{
	struct iovec iov[3];
	struct fs_req req = { .in = iov };
	size_t a = n > 0 ? p[0] % (n + 1) : 0, b = n > 1 ? p[1] % (n + 1) : n;

	if (b < a) {
		size_t t = a;

		a = b;
		b = t;
	}
	/* Copies, so ASan sees a read past any of the three. */
	uint8_t *c0 = malloc(a + 1), *c1 = malloc(b - a + 1), *c2 = malloc(n - b + 1);

	memcpy(c0, p, a);
	memcpy(c1, p + a, b - a);
	memcpy(c2, p + b, n - b);
	iov[0] = (struct iovec){ c0, a };
	iov[1] = (struct iovec){ c1, b - a };
	iov[2] = (struct iovec){ c2, n - b };
	req.nin = 3;
	if (dev->ops->handle(dev, VSOCK_Q_TX, &req, &tx_t) == FS_REQ_DEFERRED)
		die("a tx packet deferred");
	free(c0);
	free(c1);
	free(c2);
}

/*
 * The muxer's rounds run on a thread of their own, as in the device: it
 * has its working directory in the sockets' folder (guest connects name
 * UDS_P relative to it), while libFuzzer's thread keeps the cwd it reads
 * its corpus by. The hand-off is synchronous, so runs still repeat.
 */
static sem_t step_go, step_done;
static struct vsock *step_vs;

static void *stepper(void *arg)
{
	(void)arg;
	if (unshare(CLONE_FS) < 0 || chdir(dir) < 0)
		die("the stepper cannot enter the scratch folder");
	for (;;) {
		sem_wait(&step_go);
		pthread_mutex_lock(&step_vs->lock);
		vsock_mux_step(step_vs, 0);
		pthread_mutex_unlock(&step_vs->lock);
		sem_post(&step_done);
	}
	return NULL;
}

static void step(struct virtio_dev *dev)
{
	step_vs = (struct vsock *)dev;
	sem_post(&step_go);
	sem_wait(&step_done);
}

static int host_connect(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", uds);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void drain_listeners(const uint8_t *p, size_t n)
{
	for (unsigned i = 0; i < 2; i++) {
		int fd;

		while ((fd = accept4(listeners[i], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
			if (n)
				(void)send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
			close(fd);
		}
	}
}

static void init_once(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (listeners[0] >= 0)
		return;
	pthread_t t;

	snprintf(dir, sizeof(dir), "/tmp/fuzz-vsock.XXXXXX");
	if (!mkdtemp(dir))
		die("no scratch folder");
	sem_init(&step_go, 0, 0);
	sem_init(&step_done, 0, 0);
	if (pthread_create(&t, NULL, stepper, NULL))
		die("no stepper thread");
	snprintf(uds, sizeof(uds), "%s/v", dir);
	for (unsigned i = 0; i < 2; i++) {
		listeners[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		snprintf(a.sun_path, sizeof(a.sun_path), "%s_%u", uds, i + 1);
		unlink(a.sun_path);
		if (bind(listeners[i], (struct sockaddr *)&a, sizeof(a)) < 0 ||
		    listen(listeners[i], 64) < 0)
			die("no host listener");
	}
}

static void run(struct virtio_dev *dev, const uint8_t *data, size_t size)
{
	int host[FZ_MAX_HOST], nh = 0;

	while (size >= 2) {
		unsigned kind = data[0] % 8;
		size_t n = data[1] < size - 2 ? data[1] : size - 2;
		const uint8_t *p = data + 2;

		data += 2 + n;
		size -= 2 + n;
		switch (kind) {
		case 0: tx(dev, p, n); break;
		case 1: add_rx(dev, p, n); break;
		case 2: step(dev); break;
		case 3:
			dev->ops->reset(dev);
			dev->ops->activate(dev, VIRTIO_FEAT_VERSION_1);
			break;
		case 4:
			if (nh < FZ_MAX_HOST && (host[nh] = host_connect()) >= 0) {
				(void)send(host[nh], p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
				nh++;
			}
			break;
		case 5:
			if (nh)
				(void)send(host[nh - 1], p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
			break;
		case 6:
			if (nh)
				close(host[--nh]);
			break;
		case 7: drain_listeners(p, n); break;
		}
	}
	while (nh)
		close(host[--nh]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vsock_config c = { .cid = FZ_CID, .max_conns = 4 };
	struct virtio_dev *dev = NULL;
	struct vsock_host h;
	int before;

	init_once();
	drain_listeners(NULL, 0);
	before = test_count_fds();
	snprintf(c.uds, sizeof(c.uds), "%s", uds);
	if (vsock_host_open(&h, &c) < 0 || virtio_vsock_create(&dev, &c, &h) < 0)
		die("cannot make the device");
	((struct vsock *)dev)->manual = true;
	dev->ops->activate(dev, VIRTIO_FEAT_VERSION_1);
	run(dev, data, size);
	virtio_dev_destroy(dev);
	drain_listeners(NULL, 0);
	for (unsigned i = 0; i < nr_rx; i++) {
		if (!rx[i].done)
			die("an rx buffer the device never gave back");
		free(rx[i].mem);
	}
	nr_rx = 0;
	memset(rx, 0, sizeof(rx));
	if (test_count_fds() != before)
		die("an fd left open");
	return 0;
}
