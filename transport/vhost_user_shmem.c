// SPDX-License-Identifier: GPL-2.0-only
/* virtio-fs's DAX window over vhost-user (see vhost_user_shmem.h). */
#include "transport/vhost_user_shmem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "devices/virtio.h"

int vu_shmem_init(struct vu_shmem *s, uint64_t size)
{
	memset(s, 0, sizeof(*s));
	s->sock = -1;
	if (size == 0 || size % VU_SHMEM_PAGE)
		return -EINVAL;
	s->size = size;
	s->ack_ms = VU_SHMEM_ACK_MS;
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void vu_shmem_destroy(struct vu_shmem *s)
{
	if (s->sock >= 0)
		close(s->sock);
	s->sock = -1;
	pthread_mutex_destroy(&s->lock);
}

void vu_shmem_config(const struct vu_shmem *s, struct vu_shmem_config *out)
{
	memset(out, 0, sizeof(*out));
	out->nregions = 1;
	out->sizes[0] = s->size;     /* shmid 0: VIRTIO_FS_SHMCAP_ID_CACHE */
}

void vu_shmem_set_channel(struct vu_shmem *s, int fd)
{
	pthread_mutex_lock(&s->lock);
	if (s->sock >= 0)
		close(s->sock);
	s->sock = fd;
	s->lost = false;
	s->nmaps = 0;
	pthread_mutex_unlock(&s->lock);
}

void vu_shmem_reset(struct vu_shmem *s)
{
	pthread_mutex_lock(&s->lock);
	s->nmaps = 0;
	pthread_mutex_unlock(&s->lock);
}

/* The channel is out of step or gone: no request goes out on it again. */
static int lose_channel(struct vu_shmem *s, const char *why)
{
	virtio_log("vhost-user-fs", "DAX: backend channel %s; no more mappings", why);
	close(s->sock);
	s->sock = -1;
	s->lost = true;
	s->nmaps = 0;
	return -EIO;
}

static int send_request(int sock, uint32_t req, const struct vu_mmap *mm, int fd)
{
	struct vu_hdr h = { .request = req, .flags = VU_VERSION | VU_FLAG_NEED_REPLY,
			    .size = sizeof(*mm) };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)mm, sizeof(*mm) } };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do {
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)(sizeof(h) + sizeof(*mm)) ? 0 : -EIO;
}

/* len bytes within the ack's deadline; fds a frontend sends along are dropped
 * by recv() (no control buffer). 0 or -EIO. */
static int recv_timed(int sock, void *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	size_t got = 0;

	while (got < len) {
		int r = poll(&p, 1, ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		ssize_t n = recv(sock, (uint8_t *)buf + got, len - got, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -EIO;
		got += (size_t)n;
	}
	return 0;
}

/* One request and its ack, under the lock: 0, -EREMOTEIO (refused), -EIO (channel lost). */
static int call(struct vu_shmem *s, uint32_t req, const struct vu_mmap *mm, int fd)
{
	struct vu_hdr h;
	uint64_t status;

	if (s->sock < 0)
		return -EIO;
	if (send_request(s->sock, req, mm, fd) < 0)
		return lose_channel(s, "closed");
	if (recv_timed(s->sock, &h, sizeof(h), s->ack_ms) < 0)
		return lose_channel(s, "gave no answer in time");
	if (h.request != req || (h.flags & (VU_FLAG_VERSION | VU_FLAG_REPLY)) !=
	    (VU_VERSION | VU_FLAG_REPLY) || h.size != sizeof(status))
		return lose_channel(s, "answered out of step");
	if (recv_timed(s->sock, &status, sizeof(status), s->ack_ms) < 0)
		return lose_channel(s, "gave no answer in time");
	if (status)
		return -EREMOTEIO;
	s->sent++;
	return 0;
}

/* Guest-chosen offsets: whole pages, non-empty, inside the window, no sum wraps. */
static bool range_ok(const struct vu_shmem *s, uint64_t off, uint64_t len)
{
	return len && !(off % VU_SHMEM_PAGE) && !(len % VU_SHMEM_PAGE) && off < s->size &&
	       len <= s->size - off;
}

/* The live mapping exactly [off, off+len): its index; -1 none; -2 an overlap. */
static int find(const struct vu_shmem *s, uint64_t off, uint64_t len)
{
	for (unsigned i = 0; i < s->nmaps; i++) {
		const struct vu_shmem_range *m = &s->map[i];

		if (m->off == off && m->len == len)
			return (int)i;
		if (off < m->off + m->len && m->off < off + len)
			return -2;
	}
	return -1;
}

static void forget(struct vu_shmem *s, int i)
{
	s->map[i] = s->map[--s->nmaps];
}

static int unmap_one(struct vu_shmem *s, int i)
{
	struct vu_mmap mm = { .shm_offset = s->map[i].off, .len = s->map[i].len };
	int r = call(s, VU_BACKEND_SHMEM_UNMAP, &mm, -1);

	if (r == 0)
		forget(s, i);
	return r;
}

/* Only what the server opened beneath the share, with the access asked for. */
static int fd_ok(int fd, bool writable)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fstat(fd, &st) < 0 || fl < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((fl & O_ACCMODE) == O_WRONLY || (writable && (fl & O_ACCMODE) != O_RDWR))
		return -EACCES;   /* the frontend's mmap would fail on it */
	return 0;
}

/* Room at [moffset, moffset+len) under the lock: 0, or why not. Exactly
 * a live range is made room for by unmapping it (replaced, not overlapped). */
static int make_room(struct vu_shmem *s, uint64_t moffset, uint64_t len)
{
	int i;

	if (s->sock < 0)
		return s->lost ? -EIO : -ENOSYS;   /* lost, or no frontend maps it (yet) */
	i = find(s, moffset, len);
	if (i == -2)
		return -EBUSY;                      /* the protocol refuses maps over maps */
	if (i >= 0)
		return unmap_one(s, i);
	return s->nmaps == VU_SHMEM_MAX_MAPS ? -ENOSPC : 0;
}

static int shmem_map(void *ctx, int fd, uint64_t foffset, uint64_t len, uint64_t moffset,
		     bool writable)
{
	struct vu_shmem *s = ctx;
	struct vu_mmap mm = { .fd_offset = foffset, .shm_offset = moffset, .len = len,
			      .flags = writable ? VU_MMAP_RW : 0 };
	int r;

	if (!range_ok(s, moffset, len) || foffset % VU_SHMEM_PAGE || foffset > INT64_MAX - len)
		return -EINVAL;
	r = fd_ok(fd, writable);
	if (r)
		return r;
	pthread_mutex_lock(&s->lock);
	r = make_room(s, moffset, len);
	if (r == 0)
		r = call(s, VU_BACKEND_SHMEM_MAP, &mm, fd);
	if (r == 0)
		s->map[s->nmaps++] = (struct vu_shmem_range){ moffset, len };
	pthread_mutex_unlock(&s->lock);
	return r == -EREMOTEIO ? -EIO : r;
}

static int shmem_unmap(void *ctx, uint64_t moffset, uint64_t len)
{
	struct vu_shmem *s = ctx;
	int i, r;

	if (!range_ok(s, moffset, len))
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	i = find(s, moffset, len);
	/* The protocol unmaps whole mappings only; Linux removes what it set up. */
	r = i < 0 ? -EINVAL : unmap_one(s, i);
	pthread_mutex_unlock(&s->lock);
	return r == -EREMOTEIO ? -EIO : r;
}

const struct fuse_dax_ops vu_shmem_dax_ops = {
	.setup_mapping = shmem_map,
	.remove_mapping = shmem_unmap,
};
