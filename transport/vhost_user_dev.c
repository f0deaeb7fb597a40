// SPDX-License-Identifier: GPL-2.0-only
/*
 * A virtio device over vhost-user: one named handler per request, listed
 * in a designated-initializer table, and the connection loop (see
 * vhost_user_dev.h). Handlers fill a reply and return 0, or return -errno
 * after one log line; the loop sends replies through vhost_user.c.
 */
#include "transport/vhost_user_dev.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "transport/vhost_user_ring.h"
#include "transport/vhost_user_shmem.h"

/* A handler's answer: no reply, a reply in *reply, or refused but the
 * connection stays (REPLY_ACK then says so). */
enum { VU_DONE = 0, VU_REPLIED = 1, VU_REFUSED = 2 };

typedef int vu_handler_fn(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply);

/* One line for the log, then rc. */
__attribute__((format(printf, 3, 4)))
static int refuse(struct vu_dev *d, int rc, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	virtio_log(d->name, "%s", line);
	return rc;
}

static int reply_u64(struct vu_msg *reply, uint64_t v)
{
	reply->p.u64 = v;
	reply->hdr.size = sizeof(v);
	return VU_REPLIED;
}

/* The ring a message names, or NULL after the log line. */
static struct vu_vring *ring_of(struct vu_dev *d, const struct vu_msg *m, uint32_t index)
{
	if (index < d->nrings)
		return &d->ring[index];
	virtio_log(d->name, "%s: vring index %" PRIu32 " out of range (%u rings)",
		   vu_request_name(m->hdr.request), index, d->nrings);
	return NULL;
}

/* Size, addresses and base are set only while the ring is stopped. */
static struct vu_vring *stopped_ring(struct vu_dev *d, const struct vu_msg *m, uint32_t index)
{
	struct vu_vring *r = ring_of(d, m, index);

	if (r && r->w) {
		virtio_log(d->name, "%s: vring %" PRIu32 " is running", vu_request_name(m->hdr.request),
			   index);
		return NULL;
	}
	return r;
}

static int h_get_features(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	return reply_u64(reply, d->features);
}

static int h_set_features(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	uint64_t v = m->p.u64;

	if (v & ~d->features)
		return refuse(d, -EINVAL, "SET_FEATURES 0x%" PRIx64 ": bits 0x%" PRIx64
			      " were never offered", v, v & ~d->features);
	/* Running queues were made with the old features: make them anew. */
	vu_ring_stop_all(d);
	d->acked = v;
	/* Without protocol features a ring is enabled from the start. */
	if (!(v & VU_F_PROTOCOL_FEATURES))
		for (unsigned i = 0; i < d->nrings; i++)
			d->ring[i].enabled = true;
	vu_ring_sync_all(d);
	return VU_DONE;
}

static int h_set_owner(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	return VU_DONE;
}

/* RESET_OWNER and RESET_DEVICE: rings and device back to their start;
 * the memory table and the protocol features stay. */
static int h_reset(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	for (unsigned i = 0; i < d->nrings; i++)
		vu_ring_clear(d, i);
	if (d->vdev->ops->reset)
		d->vdev->ops->reset(d->vdev);   /* answers parked requests first */
	vu_mem_drop_retired(&d->mem);
	d->mem.keep_retired = false;
	d->dirty = false;
	d->acked = 0;
	if (d->shmem)
		vu_shmem_reset(d->shmem);
	return VU_DONE;
}

static int h_set_mem_table(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	const struct vu_mem_table *t = &m->p.mem;
	const char *why = "";
	int rc;

	/* QEMU sends the same table again on every layout change it sees;
	 * nothing to stop for then. */
	if (vu_mem_same_table(&d->mem, t->r, t->nregions, m->fds))
		return VU_DONE;
	vu_ring_stop_all(d);
	rc = vu_mem_set_table(&d->mem, t->r, t->nregions, m->fds, &why);
	vu_ring_sync_all(d);
	if (rc < 0)
		return refuse(d, rc, "SET_MEM_TABLE: %s", why);
	return VU_DONE;
}

static int h_get_max_mem_slots(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	return reply_u64(reply, GMEM_MAX_REGIONS);
}

static int h_add_mem_reg(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	const char *why = "";
	int rc;

	vu_ring_stop_all(d);
	rc = vu_mem_add(&d->mem, &m->p.reg.r, &m->fds[0], &why);
	vu_ring_sync_all(d);
	if (rc < 0)
		return refuse(d, rc, "ADD_MEM_REG gpa 0x%" PRIx64 " size 0x%" PRIx64 ": %s",
			      m->p.reg.r.gpa, m->p.reg.r.size, why);
	return VU_DONE;
}

static int h_rem_mem_reg(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	const char *why = "";
	int rc;

	vu_ring_stop_all(d);
	rc = vu_mem_remove(&d->mem, &m->p.reg.r, &why);
	/* A ring whose memory just left fails here, with its own line. */
	vu_ring_sync_all(d);
	if (rc < 0)
		return refuse(d, rc, "REM_MEM_REG gpa 0x%" PRIx64 " size 0x%" PRIx64 ": %s",
			      m->p.reg.r.gpa, m->p.reg.r.size, why);
	return VU_DONE;
}

static int h_set_vring_num(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	struct vu_vring *r = stopped_ring(d, m, m->p.state.index);
	uint32_t n = m->p.state.num;

	if (!r)
		return -EINVAL;
	if (n == 0 || (n & (n - 1)) || n > d->vdev->ops->queue_size_max)
		return refuse(d, -EINVAL, "SET_VRING_NUM %" PRIu32 ": not a power of two in 1..%u",
			      n, d->vdev->ops->queue_size_max);
	r->num = (uint16_t)n;
	return VU_DONE;
}

static int h_set_vring_addr(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	const struct vu_vring_addr *a = &m->p.addr;
	struct vu_vring *r = stopped_ring(d, m, a->index);
	const char *why = "";
	uint64_t gpa[3];

	if (!r)
		return -EINVAL;
	if (d->mem.gm.nr == 0)
		return refuse(d, -EINVAL, "SET_VRING_ADDR %" PRIu32 " before SET_MEM_TABLE", a->index);
	if (r->num == 0)
		return refuse(d, -EINVAL, "SET_VRING_ADDR %" PRIu32 " before SET_VRING_NUM", a->index);
	if (vu_ring_translate(d, r->num, a, gpa, &why) < 0)
		return refuse(d, -EFAULT, "SET_VRING_ADDR %" PRIu32 ": %s", a->index, why);
	r->addr = *a;
	r->addr_set = true;
	return VU_DONE;
}

static int h_set_vring_base(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	struct vu_vring *r = stopped_ring(d, m, m->p.state.index);

	if (!r)
		return -EINVAL;
	if (m->p.state.num > UINT16_MAX)
		return refuse(d, -EINVAL, "SET_VRING_BASE %" PRIu32 ": base %" PRIu32
			      " beyond a 16-bit index", m->p.state.index, m->p.state.num);
	r->base = (uint16_t)m->p.state.num;
	return VU_DONE;
}

/* Stops the ring and says where the frontend resumes it. */
static int h_get_vring_base(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	struct vu_vring *r = ring_of(d, m, m->p.state.index);

	if (!r)
		return -EINVAL;
	vu_ring_stop(d, m->p.state.index);
	r->started = false;
	r->failed = false;
	if (r->kick_fd >= 0)
		close(r->kick_fd);
	r->kick_fd = -1;
	reply->p.state = (struct vu_vring_state){ .index = m->p.state.index, .num = r->base };
	reply->hdr.size = sizeof(reply->p.state);
	return VU_REPLIED;
}

/* The eventfd of a KICK/CALL/ERR message, or -1 with the no-fd flag. */
static int vring_fd(struct vu_dev *d, struct vu_msg *m, struct vu_vring **r)
{
	int fd = -1;

	*r = ring_of(d, m, (uint32_t)(m->p.u64 & VU_VRING_IDX_MASK));
	if (!*r)
		return -EINVAL;
	if (m->p.u64 & VU_VRING_NOFD)
		return -1;
	fd = m->fds[0];
	if (!vu_is_eventfd(fd))
		return refuse(d, -EINVAL, "%s: the fd is not an eventfd",
			      vu_request_name(m->hdr.request));
	m->fds[0] = -1;
	return fd;
}

static int h_set_vring_kick(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	unsigned i = (unsigned)(m->p.u64 & VU_VRING_IDX_MASK);
	struct vu_vring *r;
	int fd = vring_fd(d, m, &r);

	if (fd < -1 || !r)
		return fd < -1 ? fd : -EINVAL;
	if (fd < 0)
		return refuse(d, -EINVAL, "SET_VRING_KICK %u without a kick fd: polling is not served", i);
	vu_ring_stop(d, i);
	if (r->kick_fd >= 0)
		close(r->kick_fd);
	r->kick_fd = fd;
	r->started = true;
	r->failed = false;
	vu_ring_sync(d, i);
	return VU_DONE;
}

static int h_set_vring_call(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	struct vu_vring *r;
	int fd = vring_fd(d, m, &r);

	if (fd < -1 || !r)
		return fd < -1 ? fd : -EINVAL;
	vu_efd_set(&r->call, fd);
	return VU_DONE;
}

static int h_set_vring_err(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	struct vu_vring *r;
	int fd = vring_fd(d, m, &r);

	if (fd < -1 || !r)
		return fd < -1 ? fd : -EINVAL;
	vu_efd_set(&r->err, fd);
	return VU_DONE;
}

static int h_get_protocol_features(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	return reply_u64(reply, d->proto);
}

static int h_set_protocol_features(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	if (m->p.u64 & ~d->proto)
		return refuse(d, -EINVAL, "SET_PROTOCOL_FEATURES 0x%" PRIx64 ": bits 0x%" PRIx64
			      " were never offered", m->p.u64, m->p.u64 & ~d->proto);
	d->proto_acked = m->p.u64;
	return VU_DONE;
}

static int h_get_queue_num(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	return reply_u64(reply, d->nrings);
}

static int h_set_vring_enable(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	struct vu_vring *r = ring_of(d, m, m->p.state.index);

	if (!r)
		return -EINVAL;
	if (m->p.state.num > 1)
		return refuse(d, -EINVAL, "SET_VRING_ENABLE %" PRIu32 ": %" PRIu32 " is neither 0 nor 1",
			      m->p.state.index, m->p.state.num);
	r->enabled = m->p.state.num;
	vu_ring_sync(d, m->p.state.index);
	return VU_DONE;
}

static int h_get_config(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	const struct vu_config *c = &m->p.cfg;
	uint32_t size = d->vdev->ops->config_size;

	if (!(d->proto_acked & VU_PROTO_CONFIG))
		return refuse(d, -EINVAL, "GET_CONFIG without the CONFIG protocol feature");
	if (c->offset > size || c->size > size - c->offset) {
		virtio_log(d->name, "GET_CONFIG offset %" PRIu32 " size %" PRIu32
			   " outside the %" PRIu32 "-byte config space", c->offset, c->size, size);
		reply->hdr.size = 0;   /* an empty reply is how the protocol says no */
		return VU_REPLIED;
	}
	reply->p.cfg = (struct vu_config){ .offset = c->offset, .size = c->size, .flags = c->flags };
	if (d->vdev->ops->config_read)
		d->vdev->ops->config_read(d->vdev, c->offset, reply->p.cfg.data, c->size);
	reply->hdr.size = VU_CONFIG_HDR + c->size;
	return VU_REPLIED;
}

static int h_set_config(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	virtio_log(d->name, "SET_CONFIG: the config space is read-only; refused");
	return VU_REFUSED;
}

/* The DAX window's backend channel. Without every bit the window needs
 * (REPLY_ACK among them: each map waits for its ack) it is kept closed. */
static int h_set_backend_req_fd(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	if (!d->shmem || !(d->proto_acked & VU_PROTO_BACKEND_REQ))
		return refuse(d, -EINVAL, "SET_BACKEND_REQ_FD without the BACKEND_REQ protocol feature");
	if ((d->proto_acked & VU_SHMEM_PROTO) != VU_SHMEM_PROTO) {
		virtio_log(d->name, "SET_BACKEND_REQ_FD: DAX needs SHMEM, BACKEND_SEND_FD and "
			   "REPLY_ACK too; no window");
		return VU_DONE;
	}
	vu_shmem_set_channel(d->shmem, m->fds[0]);
	m->fds[0] = -1;
	return VU_DONE;
}

static int h_get_shmem_config(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply)
{
	if (!d->shmem || !(d->proto_acked & VU_PROTO_SHMEM))
		return refuse(d, -EINVAL, "GET_SHMEM_CONFIG without the SHMEM protocol feature");
	vu_shmem_config(d->shmem, &reply->p.shmem);
	reply->hdr.size = sizeof(reply->p.shmem);
	return VU_REPLIED;
}

static vu_handler_fn *const handlers[VU_REQUEST_MAX] = {
	[VU_GET_FEATURES] = h_get_features,
	[VU_SET_FEATURES] = h_set_features,
	[VU_SET_OWNER] = h_set_owner,
	[VU_RESET_OWNER] = h_reset,
	[VU_SET_MEM_TABLE] = h_set_mem_table,
	[VU_SET_VRING_NUM] = h_set_vring_num,
	[VU_SET_VRING_ADDR] = h_set_vring_addr,
	[VU_SET_VRING_BASE] = h_set_vring_base,
	[VU_GET_VRING_BASE] = h_get_vring_base,
	[VU_SET_VRING_KICK] = h_set_vring_kick,
	[VU_SET_VRING_CALL] = h_set_vring_call,
	[VU_SET_VRING_ERR] = h_set_vring_err,
	[VU_GET_PROTOCOL_FEATURES] = h_get_protocol_features,
	[VU_SET_PROTOCOL_FEATURES] = h_set_protocol_features,
	[VU_GET_QUEUE_NUM] = h_get_queue_num,
	[VU_SET_VRING_ENABLE] = h_set_vring_enable,
	[VU_GET_CONFIG] = h_get_config,
	[VU_SET_CONFIG] = h_set_config,
	[VU_RESET_DEVICE] = h_reset,
	[VU_GET_MAX_MEM_SLOTS] = h_get_max_mem_slots,
	[VU_ADD_MEM_REG] = h_add_mem_reg,
	[VU_REM_MEM_REG] = h_rem_mem_reg,
	[VU_SET_BACKEND_REQ_FD] = h_set_backend_req_fd,
	[VU_GET_SHMEM_CONFIG] = h_get_shmem_config,
};

void vu_dev_init(struct vu_dev *d, struct virtio_dev *vdev, bool offer_config)
{
	memset(d, 0, sizeof(*d));
	d->vdev = vdev;
	d->name = "vhost-user-fs";
	if (vdev->ops->device_id != VIRTIO_ID_FS)
		d->name = vdev->ops->name;
	d->features = VIRTIO_TRANSPORT_FEATURES | VU_F_PROTOCOL_FEATURES | vdev->ops->features;
	d->proto = VU_PROTO_MQ | VU_PROTO_REPLY_ACK | VU_PROTO_RESET_DEVICE |
		   VU_PROTO_CONFIGURE_MEM_SLOTS | (offer_config ? VU_PROTO_CONFIG : 0);
	d->nrings = virtio_dev_num_queues(vdev);
	vu_mem_init(&d->mem);
	vu_ring_notify_init(d);
	for (unsigned i = 0; i < VIRTIO_MAX_QUEUES; i++) {
		d->ring[i].kick_fd = -1;
		vu_efd_init(&d->ring[i].call);
		vu_efd_init(&d->ring[i].err);
	}
}

void vu_dev_set_shmem(struct vu_dev *d, struct vu_shmem *s)
{
	d->shmem = s;
	d->proto |= VU_PROTO_SHMEM | VU_PROTO_BACKEND_REQ | VU_PROTO_BACKEND_SEND_FD;
}

bool vu_dev_ring_running(const struct vu_dev *d, unsigned index)
{
	return index < d->nrings && d->ring[index].w;
}

int vu_dev_handle(struct vu_dev *d, struct vu_msg *m, struct vu_msg *reply, bool *send)
{
	vu_handler_fn *h = m->hdr.request < VU_REQUEST_MAX ? handlers[m->hdr.request] : NULL;
	int rc;

	*send = false;
	memset(&reply->hdr, 0, sizeof(reply->hdr));
	rc = h ? h(d, m, reply) : refuse(d, -EPROTO, "request %" PRIu32 " has no handler",
					m->hdr.request);
	vu_msg_close_fds(m);
	if (rc == VU_REPLIED) {
		*send = true;
		return 0;
	}
	/* REPLY_ACK: a request that has no reply of its own gets 0 or 1. */
	if ((m->hdr.flags & VU_FLAG_NEED_REPLY) && (d->proto_acked & VU_PROTO_REPLY_ACK)) {
		reply_u64(reply, rc == VU_DONE ? 0 : 1);
		*send = true;
	}
	return rc < 0 ? rc : 0;
}

/* Waits for the next message or the stop fd: 1 message, 0 stop, -errno. */
static int wait_msg(int sock, int stop_fd)
{
	struct pollfd p[2] = { { .fd = sock, .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };

	for (;;) {
		if (poll(p, stop_fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (stop_fd >= 0 && p[1].revents)
			return 0;
		return 1;
	}
}

int vu_serve(struct vu_dev *d, int sock, int stop_fd)
{
	struct vu_msg m, reply;
	const char *why = "";
	bool send;
	int rc;

	for (;;) {
		rc = wait_msg(sock, stop_fd);
		if (rc <= 0)
			return rc;
		rc = vu_msg_recv(sock, &m, &why);
		if (rc == -ECONNRESET)
			return 0;
		if (rc == -EPROTO)
			return refuse(d, rc, "message %" PRIu32 " (%s, %" PRIu32 " bytes): %s; "
				      "closing the connection", m.hdr.request,
				      vu_request_name(m.hdr.request), m.hdr.size, why);
		if (rc < 0)
			return refuse(d, rc, "receive: %s; closing the connection", strerror(-rc));
		if (d->trace)
			virtio_log(d->name, "%s (%" PRIu32 " bytes, %u fds)",
				   vu_request_name(m.hdr.request), m.hdr.size, m.nfds);
		rc = vu_dev_handle(d, &m, &reply, &send);
		if (send && vu_msg_reply(sock, &m, &reply.p, reply.hdr.size) < 0)
			return refuse(d, -EPIPE, "%s: the reply could not be sent; closing",
				      vu_request_name(m.hdr.request));
		if (rc < 0)
			return refuse(d, rc, "%s refused; closing the connection",
				      vu_request_name(m.hdr.request));
	}
}

void vu_dev_release(struct vu_dev *d)
{
	for (unsigned i = 0; i < d->nrings; i++)
		vu_ring_clear(d, i);
	/* Parked requests are answered into guest memory: before unmapping. */
	if (d->vdev->ops->reset)
		d->vdev->ops->reset(d->vdev);
	vu_mem_release(&d->mem);
}
