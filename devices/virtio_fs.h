/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio-fs (device ID 26): one hiprio queue (FORGET, INTERRUPT) and
 * request queues, each served by its own worker calling the transport-free
 * FUSE server in fs/. The config space carries the mount tag.
 */
#ifndef STAINLESS_DEVICES_VIRTIO_FS_H
#define STAINLESS_DEVICES_VIRTIO_FS_H

#include "devices/virtio.h"
#include "fs/fs_options.h"

#define VIRTIO_FS_TAG_MAX     36
#define VIRTIO_FS_QUEUE_SIZE  1024
/* Linux 6.1's driver drives one request queue; more would sit idle. */
#define VIRTIO_FS_REQUEST_QUEUES 1

/*
 * 0 or -errno (-EINVAL: tag empty or too long; others from the server).
 * With opts->dax_size the device has a DAX window, shared-memory region 0,
 * whose host mapping (dev->shm[0].host) the VMM maps into the guest.
 */
int virtio_fs_create(struct virtio_dev **out, const char *tag, const char *dir,
		     const struct fs_options *opts);

#endif
