// SPDX-License-Identifier: GPL-2.0-only
/* The frontend's side of VHOST_USER_PROTOCOL_F_SHMEM (see vu_shmem.h). */
#include "tests/vhost/vu_shmem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096u

struct shmem_config {
	uint32_t nregions, padding;
	uint64_t sizes[256];
} __attribute__((packed));

struct hdr {
	uint32_t request, flags, size;
} __attribute__((packed));

int vu_shmem_fe_reserve(struct vu_shmem_fe *s, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	s->win = p;
	s->size = size;
	s->sock = -1;
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

static bool range_ok(const struct vu_shmem_fe *s, uint64_t off, uint64_t len)
{
	return len && !(off % PAGE) && !(len % PAGE) && off < s->size && len <= s->size - off;
}

static int find(const struct vu_shmem_fe *s, uint64_t off, uint64_t len, bool *overlap)
{
	*overlap = false;
	for (unsigned i = 0; i < s->nmaps; i++) {
		if (s->map[i].off == off && s->map[i].len == len)
			return (int)i;
		if (off < s->map[i].off + s->map[i].len && s->map[i].off < off + len)
			*overlap = true;
	}
	return -1;
}

static uint64_t do_map(struct vu_shmem_fe *s, const struct vu_mmap_req *m, const int *fds,
		       unsigned nfds)
{
	struct stat st;
	bool overlap;
	int prot = PROT_READ | (m->flags & 1 ? PROT_WRITE : 0);

	if (nfds != 1)
		return EINVAL;
	if (m->shmid != 0 || m->flags & ~1ull || !range_ok(s, m->shm_offset, m->len) ||
	    m->fd_offset % PAGE)
		return EINVAL;
	find(s, m->shm_offset, m->len, &overlap);
	if (overlap || find(s, m->shm_offset, m->len, &overlap) >= 0)
		return EBUSY;
	if (fstat(fds[0], &st) < 0 || !S_ISREG(st.st_mode))
		return EBADF;
	if (s->fd_check && s->fd_check(s->fd_ctx, fds[0]) < 0)
		return EBADF;
	if (s->nmaps == VU_SHMEM_FE_MAX)
		return ENOSPC;
	if (mmap(s->win + m->shm_offset, m->len, prot, MAP_SHARED | MAP_FIXED, fds[0],
		 (off_t)m->fd_offset) == MAP_FAILED) {
		int e = errno;

		mmap(s->win + m->shm_offset, m->len, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		return (uint64_t)e;
	}
	s->map[s->nmaps].off = m->shm_offset;
	s->map[s->nmaps++].len = m->len;
	s->maps++;
	if (s->nmaps > s->max_live)
		s->max_live = s->nmaps;
	return 0;
}

static uint64_t do_unmap(struct vu_shmem_fe *s, const struct vu_mmap_req *m, unsigned nfds)
{
	bool overlap;
	int i;

	if (nfds || m->shmid != 0 || !range_ok(s, m->shm_offset, m->len))
		return EINVAL;
	i = find(s, m->shm_offset, m->len, &overlap);
	if (i < 0)
		return EINVAL;    /* the range must be one whole mapping */
	if (mmap(s->win + m->shm_offset, m->len, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
		return (uint64_t)errno;
	s->map[i] = s->map[--s->nmaps];
	s->unmaps++;
	return 0;
}

uint64_t vu_shmem_fe_request(struct vu_shmem_fe *s, uint32_t req, uint32_t size,
			     const void *payload, const int *fds, unsigned nfds)
{
	struct vu_mmap_req m;
	uint64_t r = EINVAL;

	pthread_mutex_lock(&s->lock);
	if (size == sizeof(m)) {
		memcpy(&m, payload, sizeof(m));
		if (req == VU_SHMEM_MAP)
			r = do_map(s, &m, fds, nfds);
		else if (req == VU_SHMEM_UNMAP)
			r = do_unmap(s, &m, nfds);
	}
	if (r)
		s->refused++;
	pthread_mutex_unlock(&s->lock);
	return r;
}

unsigned vu_shmem_fe_live(struct vu_shmem_fe *s)
{
	pthread_mutex_lock(&s->lock);
	unsigned n = s->nmaps;
	pthread_mutex_unlock(&s->lock);
	return n;
}

static int recv_all(int fd, void *buf, size_t len, int *fds, unsigned *nfds)
{
	size_t got = 0;

	while (got < len) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * 8)];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = { (char *)buf + got, len - got };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
				     .msg_controllen = sizeof(ctl.buf) };
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				int f;

				memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (fds && *nfds < 8)
					fds[(*nfds)++] = f;
				else
					close(f);
			}
		}
		got += (size_t)n;
	}
	return 0;
}

static void *serve(void *arg)
{
	struct vu_shmem_fe *s = arg;

	for (;;) {
		struct hdr h;
		uint8_t payload[256];
		int fds[8];
		unsigned nfds = 0;

		if (recv_all(s->sock, &h, sizeof(h), fds, &nfds) < 0 || h.size > sizeof(payload) ||
		    recv_all(s->sock, payload, h.size, fds, &nfds) < 0)
			break;
		uint64_t st = vu_shmem_fe_request(s, h.request, h.size, payload, fds, nfds);
		for (unsigned i = 0; i < nfds; i++)
			close(fds[i]);
		if (h.flags & (1u << 3)) {     /* NEED_REPLY */
			struct { struct hdr h; uint64_t st; } __attribute__((packed)) r = {
				{ h.request, 0x1u | (1u << 2), 8 }, st };
			if (send(s->sock, &r, sizeof(r), MSG_NOSIGNAL) != sizeof(r))
				break;
		}
	}
	return NULL;
}

static int after_protocol(struct vu_frontend *fe)
{
	struct vu_shmem_fe *s = fe->ext;
	struct shmem_config cfg;
	int sv[2], err;

	if (!(fe->protocol_features & VU_PROTO_SHMEM)) {
		fprintf(stderr, "vu_shmem: the backend does not offer SHMEM\n");
		return -ENOTSUP;
	}
	if ((err = vu_query(fe, VU_GET_SHMEM_CONFIG, &cfg, sizeof(cfg))))
		return err;
	if (cfg.nregions != 1 || !cfg.sizes[0] || cfg.sizes[0] % PAGE) {
		fprintf(stderr, "vu_shmem: odd shmem config: %u regions, region 0 %llu bytes\n",
			cfg.nregions, (unsigned long long)cfg.sizes[0]);
		return -EPROTO;
	}
	if ((err = vu_shmem_fe_reserve(s, cfg.sizes[0])))
		return err;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	err = vu_message(fe, VU_SET_BACKEND_REQ_FD, NULL, 0, sv[1]);
	close(sv[1]);
	s->sock = sv[0];
	if (err)
		return err;
	if (pthread_create(&s->thread, NULL, serve, s))
		return -EAGAIN;
	s->running = true;
	return 0;
}

void vu_shmem_fe_attach(struct vu_frontend *fe, struct vu_shmem_fe *s)
{
	memset(s, 0, sizeof(*s));
	s->sock = -1;
	fe->extra_protocol = VU_PROTO_SHMEM | VU_PROTO_BACKEND_REQ | VU_PROTO_BACKEND_SEND_FD;
	fe->after_protocol = after_protocol;
	fe->ext = s;
}

void vu_shmem_fe_close(struct vu_shmem_fe *s)
{
	if (s->sock >= 0)
		shutdown(s->sock, SHUT_RDWR);
	if (s->running)
		pthread_join(s->thread, NULL);
	if (s->sock >= 0)
		close(s->sock);
	if (s->win)
		munmap(s->win, s->size);
	s->win = NULL;
	s->sock = -1;
	s->running = false;
}
