/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio-rng (device ID 4): one queue whose buffers the device fills with
 * bytes from the host's getrandom(). The VMM exposes it as `--rng`.
 */
#ifndef STAINLESS_DEVICES_VIRTIO_RNG_H
#define STAINLESS_DEVICES_VIRTIO_RNG_H

#include "devices/virtio.h"

#define RNG_QUEUE_SIZE 64
/* Bytes served per request at most, so one greedy buffer cannot keep the
 * worker in getrandom() for long; the guest simply asks again. */
#define RNG_MAX_PER_REQUEST (64u * 1024)

/* A new device in *out: 0 or -ENOMEM. Free with virtio_dev_destroy(). */
int virtio_rng_create(struct virtio_dev **out);

#endif
