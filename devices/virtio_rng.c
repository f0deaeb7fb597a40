// SPDX-License-Identifier: GPL-2.0-only
/* virtio-rng: entropy from the host's getrandom() (see virtio_rng.h). */
#include "devices/virtio_rng.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

struct virtio_rng {
	struct virtio_dev vdev;   /* first: the transport hands us this */
};

/* Fill one guest buffer; returns bytes written. */
static size_t rng_fill(void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = getrandom((char *)buf + done, len - done, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

static int rng_handle(struct virtio_dev *dev, unsigned q, struct fs_req *req,
		      const struct fs_transport *t)
{
	size_t total = 0;

	/* Readable descriptors carry nothing for this device: ignore them. */
	for (unsigned i = 0; i < req->nout && total < RNG_MAX_PER_REQUEST; i++) {
		size_t len = req->out[i].iov_len;
		size_t n;

		if (len > RNG_MAX_PER_REQUEST - total)
			len = RNG_MAX_PER_REQUEST - total;
		n = rng_fill(req->out[i].iov_base, len); /* guest */
		total += n;
		if (n < len)
			break;
	}
	return (int)total;
}

static void rng_destroy(struct virtio_dev *dev)
{
	free((struct virtio_rng *)dev);
}

static const struct virtio_dev_ops rng_ops = {
	.name = "virtio-rng",
	.device_id = VIRTIO_ID_RNG,
	.features = 0,
	.queue_size_max = RNG_QUEUE_SIZE,
	.config_size = 0,
	.handle = rng_handle,
	.destroy = rng_destroy,
};

int virtio_rng_create(struct virtio_dev **out)
{
	struct virtio_rng *rng = calloc(1, sizeof(*rng));

	if (!rng)
		return -ENOMEM;
	rng->vdev.ops = &rng_ops;
	rng->vdev.num_queues = 1;
	*out = &rng->vdev;
	return 0;
}
