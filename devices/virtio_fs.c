// SPDX-License-Identifier: GPL-2.0-only
/* virtio-fs device glue (see virtio_fs.h). */
#include "devices/virtio_fs.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices/dax.h"
#include "fs/fuse/fuse_hub.h"
#include "fs/fuse/fuse_server.h"

#define VIRTIO_FS_SHMCAP_ID_CACHE 0  /* the DAX window's region id */

struct virtio_fs_config {
	uint8_t tag[VIRTIO_FS_TAG_MAX];   /* not NUL-terminated when full */
	uint32_t num_request_queues;      /* little-endian */
} __attribute__((packed));
_Static_assert(sizeof(struct virtio_fs_config) == 40, "virtio-fs config is 40 bytes");

struct virtio_fs {
	struct virtio_dev vdev;   /* first: the transport hands us this */
	struct fuse_server *srv;
	struct fuse_hub *hub;       /* instead of srv: --fs-hub */
	struct virtio_fs_config config;
	struct dax_window dax;      /* size 0: no DAX window */
};

static void fs_config_read(struct virtio_dev *dev, uint32_t off, void *data, unsigned size)
{
	struct virtio_fs *fs = (struct virtio_fs *)dev;

	memcpy(data, (const uint8_t *)&fs->config + off, size);
}

/* Every queue carries FUSE requests: hiprio ones (FORGET, INTERRUPT) are
 * answered by the same server, which is thread-safe across queues. */
static int fs_handle(struct virtio_dev *dev, unsigned q, struct fs_req *req,
		     const struct fs_transport *t)
{
	struct virtio_fs *fs = (struct virtio_fs *)dev;

	if (fs->hub)
		return fuse_hub_handle(fs->hub, req, t);
	return fuse_server_handle(fs->srv, req, t);
}

static void fs_idle(struct virtio_dev *dev, unsigned q)
{
	struct virtio_fs *fs = (struct virtio_fs *)dev;

	(void)q;
	if (fs->hub)
		(void)fuse_hub_idle(fs->hub);
	else
		(void)fuse_server_idle(fs->srv);
}

/* The driver reset the device (workers already stopped): the next mount
 * starts with INIT and must not see the old inodes or handles. */
static void fs_reset(struct virtio_dev *dev)
{
	struct virtio_fs *fs = (struct virtio_fs *)dev;

	if (fs->hub)
		fuse_hub_reset(fs->hub);
	else
		fuse_server_reset(fs->srv);
}

static void fs_destroy(struct virtio_dev *dev)
{
	struct virtio_fs *fs = (struct virtio_fs *)dev;

	fuse_server_destroy(fs->srv);
	fuse_hub_destroy(fs->hub);
	dax_window_destroy(&fs->dax);
	free(fs);
}

/* FUSE_SETUPMAPPING / FUSE_REMOVEMAPPING land here (see fuse_dax_ops). */
static int fs_dax_setup(void *ctx, int fd, uint64_t foffset, uint64_t len,
			uint64_t moffset, bool writable)
{
	return dax_map(&((struct virtio_fs *)ctx)->dax, fd, foffset, len, moffset, writable);
}

static int fs_dax_remove(void *ctx, uint64_t moffset, uint64_t len)
{
	return dax_unmap(&((struct virtio_fs *)ctx)->dax, moffset, len);
}

/* With a window: how many ranges the guest had mapped and put back. */
static void fs_stats(const struct virtio_dev *dev, char *buf, size_t len)
{
	const struct virtio_fs *fs = (const struct virtio_fs *)dev;

	if (!fs->dax.size || !len) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, len, " dax-maps=%llu dax-unmaps=%llu",
		 (unsigned long long)atomic_load(&fs->dax.maps),
		 (unsigned long long)atomic_load(&fs->dax.unmaps));
}

static const struct fuse_dax_ops fs_dax_ops = {
	.setup_mapping = fs_dax_setup,
	.remove_mapping = fs_dax_remove,
};

static const struct virtio_dev_ops fs_ops = {
	.name = "virtio-fs",
	.device_id = VIRTIO_ID_FS,
	.features = 0,
	.queue_size_max = VIRTIO_FS_QUEUE_SIZE,
	.config_size = sizeof(struct virtio_fs_config),
	.config_read = fs_config_read,
	.handle = fs_handle,
	.idle = fs_idle,
	.reset = fs_reset,
	.stats = fs_stats,
	.destroy = fs_destroy,
};

int virtio_fs_create(struct virtio_dev **out, const char *tag, const char *dir,
		     const struct fs_options *opts)
{
	return virtio_fs_create_dax(out, tag, dir, opts, NULL, NULL);
}

int virtio_fs_create_dax(struct virtio_dev **out, const char *tag, const char *dir,
			 const struct fs_options *opts, const struct fuse_dax_ops *dax, void *ctx)
{
	struct fuse_server_params params = { 0 };
	size_t len = strlen(tag);
	unsigned nreq = opts->queues ? opts->queues : 1;
	struct virtio_fs *fs;
	int rc;

	if (len == 0 || len > VIRTIO_FS_TAG_MAX || nreq > VIRTIO_FS_MAX_REQUEST_QUEUES)
		return -EINVAL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->dax.memfd = -1;
	params.dax = dax;
	params.dax_ctx = ctx;
	params.watches = opts->watches;  /* no notify: change-aware lifetimes (fuse_watch.h) */
	if (opts->dax_size && !dax) {
		rc = dax_window_create(&fs->dax, opts->dax_size, tag);
		if (rc < 0)
			goto fail;
		params.dax = &fs_dax_ops;
		params.dax_ctx = fs;
		fs->vdev.nr_shm = 1;
		fs->vdev.shm[0] = (struct virtio_shm){
			.id = VIRTIO_FS_SHMCAP_ID_CACHE, .len = fs->dax.size, .host = fs->dax.host,
		};
	}
	rc = fuse_server_create_params(&fs->srv, dir, opts, &params);
	if (rc < 0)
		goto fail;
	fs->vdev.ops = &fs_ops;
	fs->vdev.num_queues = 1 + nreq;   /* hiprio at 0, requests at 1..nreq */
	memcpy(fs->config.tag, tag, len);
	fs->config.num_request_queues = htole32(nreq);
	*out = &fs->vdev;
	return 0;
fail:
	dax_window_destroy(&fs->dax);
	free(fs);
	return rc;
}

int virtio_fs_create_hub(struct virtio_dev **out, const char *tag, const char *dir,
			 const char *host_dir, const struct fs_options *opts,
			 struct fuse_hub **hub)
{
	struct fs_options o = *opts;
	size_t len = strlen(tag);
	unsigned nreq = opts->queues ? opts->queues : 1;
	struct virtio_fs *fs;
	int fd, rc;

	if (len == 0 || len > VIRTIO_FS_TAG_MAX || nreq > VIRTIO_FS_MAX_REQUEST_QUEUES ||
	    opts->dax_size)
		return -EINVAL;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fs = calloc(1, sizeof(*fs));
	if (!fs) {
		close(fd);
		return -ENOMEM;
	}
	fs->dax.memfd = -1;
	o.queues = 0;  /* the hub serves every queue alike */
	rc = fuse_hub_create(&fs->hub, fd, host_dir ? host_dir : dir, &o);
	if (rc < 0) {
		free(fs);
		return rc;
	}
	fs->vdev.ops = &fs_ops;
	fs->vdev.num_queues = 1 + nreq;
	memcpy(fs->config.tag, tag, len);
	fs->config.num_request_queues = htole32(nreq);
	*hub = fs->hub;
	*out = &fs->vdev;
	return 0;
}

int virtio_fs_offer_rings(struct virtio_dev *dev, unsigned n)
{
	struct virtio_fs *fs = (struct virtio_fs *)dev;

	if (n < le32toh(fs->config.num_request_queues) || n > VIRTIO_FS_MAX_REQUEST_QUEUES)
		return -EINVAL;
	dev->num_queues = 1 + n;
	return 0;
}
