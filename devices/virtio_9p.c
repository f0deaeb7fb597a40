// SPDX-License-Identifier: GPL-2.0-only
/* virtio-9p device glue (see virtio_9p.h). */
#include "devices/virtio_9p.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs/9p/p9_server.h"

#define VIRTIO_9P_MOUNT_TAG VIRTIO_BIT(0)

struct virtio_9p {
	struct virtio_dev vdev;     /* first: the transport hands us this */
	struct p9_server *srv;
	struct p9_session *session;
	uint32_t max_msg;
	uint32_t config_size;
	/* le16 tag length, then the tag (no NUL) */
	uint8_t config[2 + VIRTIO_9P_TAG_MAX];
};

static void p9dev_config_read(struct virtio_dev *dev, uint32_t off, void *data,
			      unsigned size)
{
	struct virtio_9p *p = (struct virtio_9p *)dev;

	/* The transport checks against ops->config_size, which covers the
	 * longest tag; bytes past this tag read as zero. */
	memset(data, 0, size);
	if (off < p->config_size)
		memcpy(data, p->config + off,
		       size < p->config_size - off ? size : p->config_size - off);
}

static int p9dev_handle(struct virtio_dev *dev, unsigned q, struct fs_req *req,
			const struct fs_transport *t)
{
	struct virtio_9p *p = (struct virtio_9p *)dev;

	if (!p->session)
		return 0; /* a reset could not make a new session: say nothing */
	return p9_handle(p->session, req, t);
}

/* The driver reset the device (the worker is stopped): a new mount is a
 * new client, so its fids start from nothing. */
static void p9dev_reset(struct virtio_dev *dev)
{
	struct virtio_9p *p = (struct virtio_9p *)dev;

	p9_session_destroy(p->session);
	p->session = NULL;
	if (p9_session_create(&p->session, p->srv, p->max_msg) < 0)
		virtio_log("virtio-9p", "cannot create a session after reset");
}

static void p9dev_destroy(struct virtio_dev *dev)
{
	struct virtio_9p *p = (struct virtio_9p *)dev;

	p9_session_destroy(p->session);
	p9_server_destroy(p->srv);
	free(p);
}

static const struct virtio_dev_ops p9dev_ops = {
	.name = "virtio-9p",
	.device_id = VIRTIO_ID_9P,
	.features = VIRTIO_9P_MOUNT_TAG,
	.queue_size_max = VIRTIO_9P_QUEUE_SIZE,
	.config_size = 2 + VIRTIO_9P_TAG_MAX,
	.config_read = p9dev_config_read,
	.handle = p9dev_handle,
	.reset = p9dev_reset,
	.destroy = p9dev_destroy,
};

int virtio_9p_create(struct virtio_dev **out, const char *tag, const char *dir,
		     const struct fs_options *opts)
{
	size_t len = strlen(tag);
	struct virtio_9p *p;
	uint16_t le_len;
	int rc;

	if (len == 0 || len > VIRTIO_9P_TAG_MAX)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	rc = p9_server_create(&p->srv, dir, opts);
	if (rc < 0)
		goto fail;
	p->max_msg = p9_server_msize(p->srv);
	rc = p9_session_create(&p->session, p->srv, p->max_msg);
	if (rc < 0)
		goto fail;
	p->vdev.ops = &p9dev_ops;
	p->vdev.num_queues = 1;
	le_len = htole16((uint16_t)len);
	memcpy(p->config, &le_len, 2);
	memcpy(p->config + 2, tag, len);
	p->config_size = (uint32_t)(2 + len);
	*out = &p->vdev;
	return 0;
fail:
	p9_server_destroy(p->srv);
	free(p);
	return rc;
}
