/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio-9p (device ID 9): one request queue served by its worker calling
 * the transport-free 9P2000.L server in fs/. The config space carries the
 * mount tag (VIRTIO_9P_MOUNT_TAG). The device is one 9p client: one
 * session, whose fids a device reset forgets.
 */
#ifndef STAINLESS_DEVICES_VIRTIO_9P_H
#define STAINLESS_DEVICES_VIRTIO_9P_H

#include "devices/virtio.h"
#include "fs/fs_options.h"

#define VIRTIO_9P_TAG_MAX    255
#define VIRTIO_9P_QUEUE_SIZE 1024

/* 0 or -errno (-EINVAL: tag empty or too long; others from the server). */
int virtio_9p_create(struct virtio_dev **out, const char *tag, const char *dir,
		     const struct fs_options *opts);

#endif
