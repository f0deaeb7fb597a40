/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A vhost-user frontend for the unit tests, playing QEMU: guest RAM is a
 * memfd it maps itself (so its ring addresses are its own virtual
 * addresses, as QEMU's are), rings are built there with the fake driver's
 * helpers, kick/call/err are eventfds, and messages go over a socketpair
 * to the real backend (transport/vhost_user_dev.c over the virtio-fs
 * device and its workers) running vu_serve() on a thread. The backend's
 * log (stderr) goes to a file the test can search.
 */
#ifndef STAINLESS_TESTS_UNIT_VU_TEST_FRONTEND_H
#define STAINLESS_TESTS_UNIT_VU_TEST_FRONTEND_H

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "devices/virtio_fs.h"
#include "tests/unit/fake_driver.h"
#include "transport/vhost_user.h"
#include "transport/vhost_user_dev.h"

#define VUF_MEM   (4u << 20)
#define VUF_QSIZE 16
#define VUF_WAIT  5000
#define VUF_RINGS 3               /* hiprio and two request queues */

struct vuf {
	int sock;                 /* frontend end */
	int bsock;                /* backend end, closed by the thread */
	pthread_t thr;
	int serve_rc;
	struct virtio_dev *vdev;
	struct vu_dev d;
	int memfd;
	struct fd_mem m;          /* host = our mapping of memfd, gpa FD_GPA_BASE */
	struct fake_vq vq[VUF_RINGS];
	int kick[VUF_RINGS], call[VUF_RINGS], err[VUF_RINGS];
	char dir[64];
	char log[80];
};

static inline int vuf_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;   /* the DIR's own fd */
}

static inline void *vuf_thread(void *arg)
{
	struct vuf *f = arg;

	f->serve_rc = vu_serve(&f->d, f->bsock, -1);
	close(f->bsock);   /* the frontend sees the connection close */
	return NULL;
}

/* Backend up (device over a fresh temp dir), guest memory made, no message yet. */
static inline void vuf_start(struct vuf *f, bool config)
{
	struct fs_options o;
	int sv[2], logfd;

	memset(f, 0, sizeof(*f));
	strcpy(f->dir, "/tmp/stainless-vuf-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	snprintf(f->log, sizeof(f->log), "%s.log", f->dir);
	logfd = open(f->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(logfd, 0);
	fflush(stderr);
	ck_assert_int_eq(dup2(logfd, 2), 2);
	close(logfd);
	fs_options_default(&o);
	ck_assert_int_eq(virtio_fs_create(&f->vdev, "vuftag", f->dir, &o), 0);
	/* As `stainless vhost-user-fs` offers them: the frontend picks. */
	ck_assert_int_eq(virtio_fs_offer_rings(f->vdev, VIRTIO_FS_MAX_REQUEST_QUEUES), 0);
	vu_dev_init(&f->d, f->vdev, config);
	f->memfd = memfd_create("vuf-guest", MFD_CLOEXEC);
	ck_assert_int_ge(f->memfd, 0);
	ck_assert_int_eq(ftruncate(f->memfd, VUF_MEM), 0);
	f->m.host = mmap(NULL, VUF_MEM, PROT_READ | PROT_WRITE, MAP_SHARED, f->memfd, 0);
	ck_assert_ptr_ne(f->m.host, MAP_FAILED);
	f->m.size = VUF_MEM;
	f->m.next = 0x1000;
	for (int q = 0; q < VUF_RINGS; q++) {
		f->kick[q] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);   /* as QEMU's */
		f->call[q] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		f->err[q] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		fvq_init(&f->vq[q], &f->m, VUF_QSIZE);
	}
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	f->sock = sv[0];
	f->bsock = sv[1];
	ck_assert_int_eq(pthread_create(&f->thr, NULL, vuf_thread, f), 0);
}

/* Frontend leaves; the backend's vu_serve returns; everything is released. */
static inline int vuf_finish(struct vuf *f)
{
	close(f->sock);
	pthread_join(f->thr, NULL);
	vu_dev_release(&f->d);
	virtio_dev_destroy(f->vdev);
	munmap(f->m.host, VUF_MEM);
	close(f->memfd);
	for (int q = 0; q < VUF_RINGS; q++) {
		close(f->kick[q]);
		close(f->call[q]);
		close(f->err[q]);
	}
	rmdir(f->dir);
	return f->serve_rc;
}

/* Did the backend log a line containing s? */
static inline bool vuf_logged(struct vuf *f, const char *s)
{
	char buf[16384];
	FILE *l = fopen(f->log, "r");
	size_t n;

	fflush(stderr);
	ck_assert_ptr_nonnull(l);
	n = fread(buf, 1, sizeof(buf) - 1, l);
	fclose(l);
	buf[n] = '\0';
	return strstr(buf, s) != NULL;
}

static inline void vuf_send(struct vuf *f, uint32_t req, uint32_t flags, const void *p,
			    uint32_t size, const int *fds, unsigned nfds)
{
	struct vu_hdr h = { .request = req, .flags = VU_VERSION | flags, .size = size };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)p, size } };
	union { char b[CMSG_SPACE(sizeof(int) * 16)]; struct cmsghdr a; } ctl;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = size ? 2 : 1 };

	if (nfds) {
		mh.msg_control = ctl.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	/* The backend may have closed already (a test of that): no SIGPIPE. */
	(void)sendmsg(f->sock, &mh, MSG_NOSIGNAL);
}

/* The next reply's payload into p (at most max bytes): its size, or -1. */
static inline int vuf_reply(struct vuf *f, uint32_t req, void *p, uint32_t max)
{
	struct pollfd pf = { .fd = f->sock, .events = POLLIN };
	struct vu_hdr h;

	if (poll(&pf, 1, VUF_WAIT) != 1 || recv(f->sock, &h, sizeof(h), MSG_WAITALL) != sizeof(h))
		return -1;
	ck_assert_uint_eq(h.request, req);
	ck_assert_uint_eq(h.flags, VU_VERSION | VU_FLAG_REPLY);
	ck_assert_uint_le(h.size, max);
	if (h.size && recv(f->sock, p, h.size, MSG_WAITALL) != (ssize_t)h.size)
		return -1;
	return (int)h.size;
}

static inline uint64_t vuf_get_u64(struct vuf *f, uint32_t req)
{
	uint64_t v = 0;

	vuf_send(f, req, 0, NULL, 0, NULL, 0);
	ck_assert_int_eq(vuf_reply(f, req, &v, sizeof(v)), 8);
	return v;
}

static inline void vuf_set_u64(struct vuf *f, uint32_t req, uint64_t v)
{
	vuf_send(f, req, 0, &v, sizeof(v), NULL, 0);
}

static inline void vuf_state(struct vuf *f, uint32_t req, uint32_t index, uint32_t num)
{
	struct vu_vring_state s = { index, num };

	vuf_send(f, req, 0, &s, sizeof(s), NULL, 0);
}

/* Did the backend close the connection (within the wait)? */
static inline bool vuf_closed(struct vuf *f)
{
	struct pollfd pf = { .fd = f->sock, .events = POLLIN };
	char c;

	return poll(&pf, 1, VUF_WAIT) == 1 && recv(f->sock, &c, 1, MSG_DONTWAIT) == 0;
}

/* Is the connection still served? A GET_QUEUE_NUM round trip. */
static inline bool vuf_alive(struct vuf *f)
{
	uint64_t v = 0;

	vuf_send(f, VU_GET_QUEUE_NUM, 0, NULL, 0, NULL, 0);
	return vuf_reply(f, VU_GET_QUEUE_NUM, &v, sizeof(v)) == 8 &&
	       v == 1 + VIRTIO_FS_MAX_REQUEST_QUEUES;
}

static inline uint64_t vuf_uva(struct vuf *f, uint64_t gpa)
{
	return (uint64_t)(uintptr_t)fd_host(&f->m, gpa);
}

static inline struct vu_mem_region vuf_region(struct vuf *f)
{
	return (struct vu_mem_region){
		.gpa = FD_GPA_BASE, .size = VUF_MEM, .uva = vuf_uva(f, FD_GPA_BASE), .mmap_offset = 0,
	};
}

/* Features, protocol features (REPLY_ACK among them), owner, memory table. */
static inline void vuf_negotiate(struct vuf *f)
{
	uint64_t feat = vuf_get_u64(f, VU_GET_FEATURES);
	struct vu_mem_table t = { .nregions = 1, .r = { vuf_region(f) } };

	ck_assert_uint_ne(feat & VU_F_PROTOCOL_FEATURES, 0);
	vuf_set_u64(f, VU_SET_FEATURES, feat);
	vuf_set_u64(f, VU_SET_PROTOCOL_FEATURES, vuf_get_u64(f, VU_GET_PROTOCOL_FEATURES) &
		    (VU_PROTO_MQ | VU_PROTO_REPLY_ACK | VU_PROTO_CONFIGURE_MEM_SLOTS |
		     VU_PROTO_CONFIG));
	vuf_send(f, VU_SET_OWNER, 0, NULL, 0, NULL, 0);
	vuf_send(f, VU_SET_MEM_TABLE, 0, &t, 8 + 32, &f->memfd, 1);
}

/* Ring q set up at base, not enabled yet: QEMU's vhost_virtqueue_start. */
static inline void vuf_ring_setup(struct vuf *f, unsigned q, uint32_t base)
{
	struct fake_vq *v = &f->vq[q];
	struct vu_vring_addr a = {
		.index = q, .desc = vuf_uva(f, v->desc), .used = vuf_uva(f, v->used),
		.avail = vuf_uva(f, v->avail),
	};
	uint64_t idx = q;

	vuf_state(f, VU_SET_VRING_NUM, q, v->size);
	vuf_state(f, VU_SET_VRING_BASE, q, base);
	vuf_send(f, VU_SET_VRING_ADDR, 0, &a, sizeof(a), NULL, 0);
	vuf_send(f, VU_SET_VRING_KICK, 0, &idx, 8, &f->kick[q], 1);
	vuf_send(f, VU_SET_VRING_CALL, 0, &idx, 8, &f->call[q], 1);
	vuf_send(f, VU_SET_VRING_ERR, 0, &idx, 8, &f->err[q], 1);
}

/* Ring q set up at base and enabled. */
static inline void vuf_ring_at(struct vuf *f, unsigned q, uint32_t base)
{
	vuf_ring_setup(f, q, base);
	vuf_state(f, VU_SET_VRING_ENABLE, q, 1);
}

/* Rings 0..n-1 at base[q] (0 when base is NULL), enabled only once all are
 * set up: how QEMU's vhost_dev_start starts a multi-queue device. */
static inline void vuf_rings_start(struct vuf *f, unsigned n, const uint32_t *base)
{
	for (unsigned q = 0; q < n; q++)
		vuf_ring_setup(f, q, base ? base[q] : 0);
	for (unsigned q = 0; q < n; q++)
		vuf_state(f, VU_SET_VRING_ENABLE, q, 1);
}

static inline void vuf_ring(struct vuf *f, unsigned q)
{
	vuf_ring_at(f, q, 0);
}

/* GET_VRING_BASE: stops ring q; where it stopped. */
static inline uint32_t vuf_stop_ring(struct vuf *f, unsigned q)
{
	struct vu_vring_state s = { 0, 0 };

	vuf_state(f, VU_GET_VRING_BASE, q, 0);
	ck_assert_int_eq(vuf_reply(f, VU_GET_VRING_BASE, &s, sizeof(s)), 8);
	return s.num;
}

/* QEMU's vhost_dev_stop: every ring disabled, then each stopped; where
 * each stopped into base[q] (when base is not NULL). */
static inline void vuf_rings_stop(struct vuf *f, unsigned n, uint32_t *base)
{
	for (unsigned q = 0; q < n; q++)
		vuf_state(f, VU_SET_VRING_ENABLE, q, 0);
	for (unsigned q = 0; q < n; q++) {
		uint32_t b = vuf_stop_ring(f, q);

		if (base)
			base[q] = b;
	}
}

/*
 * FUSE_INIT on queue q as a two-descriptor chain at head: kick, wait for
 * the call eventfd. The used length, or -1 when no answer came.
 */
static inline int vuf_fuse_init(struct vuf *f, unsigned q, uint16_t head, uint64_t unique,
				int32_t *error)
{
	struct fake_vq *v = &f->vq[q];
	struct {
		struct fuse_in_header h;
		struct fuse_init_in i;
	} req = {
		.h = { .len = sizeof(req), .opcode = FUSE_INIT, .unique = unique },
		.i = { .major = FUSE_KERNEL_VERSION, .minor = 31, .max_readahead = 65536 },
	};
	uint64_t in = fd_alloc(&f->m, sizeof(req), 8), out = fd_alloc(&f->m, 4096, 8);
	uint16_t want = (uint16_t)(fvq_used_idx(v) + 1);
	struct fuse_out_header *o = fd_host(&f->m, out);

	memcpy(fd_host(&f->m, in), &req, sizeof(req));
	fvq_set_desc(v, head, in, sizeof(req), VQ_DESC_F_NEXT, (uint16_t)(head + 1));
	fvq_set_desc(v, (uint16_t)(head + 1), out, 4096, VQ_DESC_F_WRITE, 0);
	fvq_set_used_event(v, (uint16_t)(want - 1));   /* EVENT_IDX: call me for this one */
	fvq_publish(v, head);
	eventfd_write(f->kick[q], 1);
	if (fd_wait_efd(f->call[q], VUF_WAIT) == 0 || fvq_used_idx(v) != want)
		return -1;
	ck_assert_uint_eq(o->unique, unique);
	*error = o->error;
	return (int)fvq_used_elem(v, (uint16_t)(want - 1)).len;
}

#endif
