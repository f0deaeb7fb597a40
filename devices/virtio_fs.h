/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio-fs (device ID 26): the hiprio queue at index 0 (FORGET,
 * INTERRUPT) and request queues 1..N, each served by its own worker
 * calling the one transport-free FUSE server in fs/, which is safe under
 * concurrent queues. The config space carries the mount tag and N.
 */
#ifndef STAINLESS_DEVICES_VIRTIO_FS_H
#define STAINLESS_DEVICES_VIRTIO_FS_H

#include "devices/virtio.h"
#include "fs/fs_options.h"

#define VIRTIO_FS_TAG_MAX     36
#define VIRTIO_FS_QUEUE_SIZE  1024
/* Linux >= 6.11 spreads its CPUs over the request queues (6.1 used one). */
#define VIRTIO_FS_MAX_REQUEST_QUEUES (VIRTIO_MAX_QUEUES - 1)

/*
 * 0 or -errno (-EINVAL: tag empty or too long, or opts->queues above
 * VIRTIO_FS_MAX_REQUEST_QUEUES; others from the server). The device has
 * opts->queues request queues (0: one) and its config says so. With
 * opts->dax_size the device has a DAX window, shared-memory region 0,
 * whose host mapping (dev->shm[0].host) the VMM maps into the guest.
 */
int virtio_fs_create(struct virtio_dev **out, const char *tag, const char *dir,
		     const struct fs_options *opts);

/*
 * The same with a window that lives elsewhere (vhost-user: the frontend's):
 * no local window is made, whatever opts->dax_size says, and the server's
 * SETUPMAPPING / REMOVEMAPPING go to dax (ctx) instead.
 */
struct fuse_dax_ops;
int virtio_fs_create_dax(struct virtio_dev **out, const char *tag, const char *dir,
			 const struct fs_options *opts, const struct fuse_dax_ops *dax, void *ctx);

/*
 * The same device answered by a FUSE hub (fs/fuse/fuse_hub.h) whose shares
 * are found beneath dir (which the host calls host_dir, when confined):
 * its root lists what is attached to *hub, which the device owns
 * (destroyed with it). No DAX window.
 */
struct fuse_hub;
int virtio_fs_create_hub(struct virtio_dev **out, const char *tag, const char *dir,
			 const char *host_dir, const struct fs_options *opts,
			 struct fuse_hub **hub);

/*
 * Offers rings for n request queues (>= the config's count, at most
 * VIRTIO_FS_MAX_REQUEST_QUEUES) while the config still announces what
 * opts->queues said: over vhost-user the frontend decides how many it
 * wires up (QEMU's num-request-queues), the config reaches only frontends
 * that ask for it. Before a transport is attached. 0 or -EINVAL.
 */
int virtio_fs_offer_rings(struct virtio_dev *dev, unsigned n);

#endif
