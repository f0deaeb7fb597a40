// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the vhost-user backend's message parser
 * (transport/vhost_user.c) and what each message does to the backend
 * (transport/vhost_user_dev.c: memory table, rings started on real
 * workers, resets), as one frontend's stream of messages. A message the
 * parser refuses, or one the backend refuses, ends the stream as a
 * closed connection would; then the backend is released.
 *
 * Input: byte 0 bit 0 offers the CONFIG protocol feature (--tag), bit 1
 * a DAX window (--dax-window: SHMEM, the backend channel); then records
 * until the input ends:
 *   [0]     bits 0-3 how many fds come with the message (up to 9, one
 *           more than any message may carry), bit 4 they are eventfds
 *           (else dups of one 1 MiB memfd), bit 5 they alternate
 *   [1..3)  little-endian length L of the message
 *   [3..)   L bytes: the 12-byte header and the payload, as on the wire
 *
 * Findings (abort): any crash, a reply larger than a payload, or a file
 * descriptor left open after the release (counted in /proc/self/fd).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "devices/virtio.h"
#include "fs/resolve.h"
#include "transport/vhost_user.h"
#include "transport/vhost_user_dev.h"
#include "transport/vhost_user_shmem.h"

#define FZ_MEM (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cfg_read(struct virtio_dev *dev, uint32_t off, void *p, unsigned n)
{
	memset(p, 0x5a, n);
}

/* Rings run on real workers; the requests themselves are not the point. */
static int handle(struct virtio_dev *dev, unsigned q, struct fs_req *req,
		  const struct fs_transport *t)
{
	return 0;
}

static const struct virtio_dev_ops ops = {
	.name = "fuzz-fs", .device_id = VIRTIO_ID_FS,
	.queue_size_max = 1024, .config_size = 40, .config_read = cfg_read, .handle = handle,
};
static struct virtio_dev dev = { .ops = &ops, .num_queues = 2 };
static int memfd = -1;

static void die(const char *what)
{
	fprintf(stderr, "fuzz oracle: %s\n", what);
	abort();
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		die("no /proc/self/fd");
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static unsigned make_fds(uint8_t ctl, int *fds)
{
	unsigned n = ctl & 0xf;

	if (n > VU_MAX_FDS + 1)
		n = VU_MAX_FDS + 1;
	for (unsigned i = 0; i < n; i++) {
		bool efd = (ctl & 0x10) != 0;

		if (ctl & 0x20)
			efd = efd ^ (i & 1);
		fds[i] = efd ? eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : dup(memfd);
		if (fds[i] < 0)
			die("cannot make an fd");
	}
	return n;
}

/* One message: false when the connection would close. */
static bool one(struct vu_dev *d, const uint8_t *msg, size_t len, uint8_t ctl)
{
	int fds[VU_MAX_FDS + 1];
	unsigned n = make_fds(ctl, fds);
	struct vu_msg m, reply;
	const char *why = "";
	bool send;
	int rc;

	if (vu_msg_parse(msg, len, fds, n, &m, &why) < 0) {
		for (unsigned i = 0; i < n; i++)
			close(fds[i]);
		return false;
	}
	rc = vu_dev_handle(d, &m, &reply, &send);
	if (send && reply.hdr.size > sizeof(union vu_payload))
		die("reply larger than any payload");
	return rc == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vu_shmem dax;
	struct vu_dev d;
	size_t pos = 1;
	int before;

	if (size < 1)
		return 0;
	if (memfd < 0) {
		memfd = memfd_create("fuzz-guest", MFD_CLOEXEC);
		if (memfd < 0 || ftruncate(memfd, FZ_MEM) < 0)
			die("no memfd");
		/* The process's one fd of /proc/self/fd (vu_is_eventfd asks
		 * beneath it), opened at start as a server does, not a leak. */
		if (fs_proc_self_fd() < 0)
			die("no /proc/self/fd");
	}
	before = count_fds();
	vu_dev_init(&d, &dev, data[0] & 1);
	if (data[0] & 2) {
		vu_shmem_init(&dax, 2u << 20);
		vu_dev_set_shmem(&d, &dax);
	}
	while (pos + 3 <= size) {
		uint8_t ctl = data[pos];
		size_t len = (size_t)(data[pos + 1] | data[pos + 2] << 8);

		pos += 3;
		if (len > size - pos)
			len = size - pos;
		if (!one(&d, data + pos, len, ctl))
			break;
		pos += len;
	}
	vu_dev_release(&d);
	if (data[0] & 2)
		vu_shmem_destroy(&dax);   /* the channel a SET_BACKEND_REQ_FD handed over */
	if (count_fds() != before)
		die("a file descriptor outlived the connection");
	return 0;
}
