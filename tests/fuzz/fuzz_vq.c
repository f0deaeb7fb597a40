// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the split-virtqueue walker (devices/vq.c) over guest
 * memory the fuzzer writes. The rings may sit anywhere, overlap each
 * other, point outside memory or be misaligned; descriptors may loop,
 * nest, run out of range. The device pops every available chain, pushes
 * each back and goes on until the ring is empty or the queue is broken.
 *
 * Input: a 16-byte header, then the guest RAM (at FZ_GPA, exactly as many
 * bytes as follow, so ASan sees any host access past them).
 *   [0]     bits 0-3 log2 of the queue size (sizes above the maximum
 *           exercise vq_create's check), bit 4 INDIRECT_DESC, bit 5
 *           EVENT_IDX, bit 6 push each chain as soon as it is popped
 *           (else all at the end), bit 7 start at the indices in [8..12)
 *   [1]     how many rounds of pop-all/push/arm_notify (1 + [1] % 4)
 *   [2..8)  descriptor table, avail ring, used ring: little-endian u16
 *           offsets from FZ_GPA (past the RAM's end is allowed)
 *   [8..12) last_avail and used_idx for vq_set_base
 *
 * Findings (abort): an iovec outside the RAM or of length 0, more iovecs
 * than the queue size, in_len/out_len that differ from the iovecs' sums,
 * a head out of range, or a broken queue reported other than exactly once.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/gmem.h"
#include "devices/vq.h"

#define FZ_GPA 0x10000ULL
#define FZ_HDR 16u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int resets;

static void on_irq(void *ctx, unsigned q) {}
static void on_reset(void *ctx, unsigned q, const char *why) { resets++; }

static const struct virtio_notify notify = {
	.vring_irq = on_irq, .needs_reset = on_reset,
};

static void die(const char *what)
{
	fprintf(stderr, "fuzz oracle: %s\n", what);
	abort();
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void check_chain(const struct vq *vq, const struct vq_chain *c,
			const uint8_t *ram, size_t ramlen)
{
	uint64_t in = 0, out = 0;

	if (c->head >= vq_size(vq))
		die("chain head out of range");
	if (c->nin + c->nout > vq_size(vq))
		die("more iovecs than the queue has entries");
	for (unsigned i = 0; i < c->nin + c->nout; i++) {
		const uint8_t *b = c->iov[i].iov_base;
		size_t l = c->iov[i].iov_len;

		if (l == 0 || b < ram || b > ram + ramlen || l > (size_t)(ram + ramlen - b))
			die("iovec outside guest memory or empty");
		*(i < c->nin ? &in : &out) += l;
	}
	if (in != c->in_len || out != c->out_len)
		die("chain lengths differ from the sums of its iovecs");
}

/* Pops until empty or broken; returns the number of chains still held. */
static unsigned drain(struct vq *vq, struct vq_chain *c, uint16_t *held, bool push_now,
		      const uint8_t *ram, size_t ramlen)
{
	unsigned nheld = 0, limit = 2u * vq_size(vq) + 2;
	int rc;

	while (limit-- && (rc = vq_pop(vq, c)) > 0) {
		check_chain(vq, c, ram, ramlen);
		if (push_now) {
			vq_push(vq, c->head, c->out_len);
			vq_flush(vq);
		} else if (nheld < vq_size(vq)) {
			held[nheld++] = c->head;
		} else {
			die("popped more chains than the queue size without a push");
		}
	}
	if (vq_broken(vq) ? resets != 1 : resets != 0)
		die("a broken queue must be reported exactly once");
	return nheld;
}

static void run(struct vq *vq, const uint8_t *hdr, const uint8_t *ram, size_t ramlen)
{
	uint16_t n = vq_size(vq);
	struct iovec *iov = malloc(n * sizeof(*iov));  /* exactly vq_size() */
	uint16_t *held = malloc(n * sizeof(*held));
	struct vq_chain c = { .iov = iov };
	unsigned rounds = 1 + hdr[1] % 4;

	if (!iov || !held)
		die("malloc");
	if (hdr[0] & 0x80)
		vq_set_base(vq, le16(hdr + 8), le16(hdr + 10));
	while (rounds--) {
		unsigned nheld = drain(vq, &c, held, hdr[0] & 0x40, ram, ramlen);
		for (unsigned i = 0; i < nheld; i++)
			vq_push(vq, held[i], 0);
		vq_flush(vq);
		vq_arm_notify(vq);
	}
	if (vq_pop(vq, &c) == -EIO && resets != 1)
		die("a broken queue must be reported exactly once");
	free(held);
	free(iov);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gmem gm;
	struct vq *vq;
	uint8_t *ram;
	size_t ramlen;

	if (size <= FZ_HDR)
		return -1;
	ramlen = size - FZ_HDR;
	ram = malloc(ramlen);
	if (!ram)
		die("malloc");
	memcpy(ram, data + FZ_HDR, ramlen);
	gmem_init(&gm);
	if (gmem_add_region(&gm, FZ_GPA, ramlen, ram, -1, 0))
		die("gmem_add_region");
	struct vq_config cfg = {
		.index = 0,
		.size = (uint16_t)(1u << (data[0] & 15)),
		.desc = FZ_GPA + le16(data + 2),
		.avail = FZ_GPA + le16(data + 4),
		.used = FZ_GPA + le16(data + 6),
		.features = (data[0] & 0x10 ? VIRTIO_FEAT_INDIRECT : 0) |
			    (data[0] & 0x20 ? VIRTIO_FEAT_EVENT_IDX : 0),
		.name = "fuzz",
	};
	resets = 0;
	if (vq_create(&vq, &gm, &cfg, &notify) == 0) {
		run(vq, data, ram, ramlen);
		vq_destroy(vq);
	}
	free(ram);
	return 0;
}
