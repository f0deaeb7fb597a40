// SPDX-License-Identifier: GPL-2.0-only
/* The vhost-user message layer (see vhost_user.h). */
#include "transport/vhost_user.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* How a request's payload is laid out, and the fds that come with it. */
enum vu_shape {
	SH_NONE,        /* no payload */
	SH_U64,
	SH_STATE,
	SH_ADDR,
	SH_MEM_TABLE,   /* nregions regions, one fd each */
	SH_REG,         /* one region */
	SH_CONFIG,      /* 12 bytes + size bytes */
};

enum vu_fds {
	FD_NONE,
	FD_TABLE,       /* one per region */
	FD_ONE,
	FD_MAYBE,       /* 0 or 1 (REM_MEM_REG: QEMU sends none, others one) */
	FD_VRING,       /* one unless the payload says VU_VRING_NOFD */
};

struct vu_rule {
	const char *name;
	enum vu_shape shape;
	enum vu_fds fds;
};

/* The requests this backend serves; a code without a rule is refused. */
static const struct vu_rule rules[VU_REQUEST_MAX] = {
	[VU_GET_FEATURES]          = { "GET_FEATURES", SH_NONE, FD_NONE },
	[VU_SET_FEATURES]          = { "SET_FEATURES", SH_U64, FD_NONE },
	[VU_SET_OWNER]             = { "SET_OWNER", SH_NONE, FD_NONE },
	[VU_RESET_OWNER]           = { "RESET_OWNER", SH_NONE, FD_NONE },
	[VU_SET_MEM_TABLE]         = { "SET_MEM_TABLE", SH_MEM_TABLE, FD_TABLE },
	[VU_SET_VRING_NUM]         = { "SET_VRING_NUM", SH_STATE, FD_NONE },
	[VU_SET_VRING_ADDR]        = { "SET_VRING_ADDR", SH_ADDR, FD_NONE },
	[VU_SET_VRING_BASE]        = { "SET_VRING_BASE", SH_STATE, FD_NONE },
	[VU_GET_VRING_BASE]        = { "GET_VRING_BASE", SH_STATE, FD_NONE },
	[VU_SET_VRING_KICK]        = { "SET_VRING_KICK", SH_U64, FD_VRING },
	[VU_SET_VRING_CALL]        = { "SET_VRING_CALL", SH_U64, FD_VRING },
	[VU_SET_VRING_ERR]         = { "SET_VRING_ERR", SH_U64, FD_VRING },
	[VU_GET_PROTOCOL_FEATURES] = { "GET_PROTOCOL_FEATURES", SH_NONE, FD_NONE },
	[VU_SET_PROTOCOL_FEATURES] = { "SET_PROTOCOL_FEATURES", SH_U64, FD_NONE },
	[VU_GET_QUEUE_NUM]         = { "GET_QUEUE_NUM", SH_NONE, FD_NONE },
	[VU_SET_VRING_ENABLE]      = { "SET_VRING_ENABLE", SH_STATE, FD_NONE },
	[VU_GET_CONFIG]            = { "GET_CONFIG", SH_CONFIG, FD_NONE },
	[VU_SET_CONFIG]            = { "SET_CONFIG", SH_CONFIG, FD_NONE },
	[VU_RESET_DEVICE]          = { "RESET_DEVICE", SH_NONE, FD_NONE },
	[VU_GET_MAX_MEM_SLOTS]     = { "GET_MAX_MEM_SLOTS", SH_NONE, FD_NONE },
	[VU_ADD_MEM_REG]           = { "ADD_MEM_REG", SH_REG, FD_ONE },
	[VU_REM_MEM_REG]           = { "REM_MEM_REG", SH_REG, FD_MAYBE },
	[VU_SET_BACKEND_REQ_FD]    = { "SET_BACKEND_REQ_FD", SH_NONE, FD_ONE },
	[VU_GET_SHMEM_CONFIG]      = { "GET_SHMEM_CONFIG", SH_NONE, FD_NONE },
};

/* Requests a frontend may send that this backend does not serve, named
 * in the log so the refusal says what was asked. */
static const char *const unserved[] = {
	[VU_SET_LOG_BASE] = "SET_LOG_BASE", [VU_SET_LOG_FD] = "SET_LOG_FD",
	[19] = "SEND_RARP", [20] = "NET_SET_MTU",
	[22] = "IOTLB_MSG", [23] = "SET_VRING_ENDIAN", [31] = "GET_INFLIGHT_FD",
	[32] = "SET_INFLIGHT_FD", [35] = "VRING_KICK", [39] = "SET_STATUS",
	[40] = "GET_STATUS", [42] = "SET_DEVICE_STATE_FD", [43] = "CHECK_DEVICE_STATE",
};

static const struct vu_rule *rule_of(uint32_t request)
{
	if (request >= VU_REQUEST_MAX || !rules[request].name)
		return NULL;
	return &rules[request];
}

const char *vu_request_name(uint32_t request)
{
	const struct vu_rule *r = rule_of(request);

	if (r)
		return r->name;
	if (request < sizeof(unserved) / sizeof(unserved[0]) && unserved[request])
		return unserved[request];
	return "unknown";
}

static int bad(const char **why, const char *what)
{
	*why = what;
	return -EPROTO;
}

static int check_size(const struct vu_msg *m, enum vu_shape shape, const char **why)
{
	uint32_t size = m->hdr.size;

	switch (shape) {
	case SH_NONE:
		return size == 0 ? 0 : bad(why, "payload where the request takes none");
	case SH_U64:
		return size == 8 ? 0 : bad(why, "payload is not 8 bytes");
	case SH_STATE:
		return size == sizeof(struct vu_vring_state) ? 0 : bad(why, "vring state is not 8 bytes");
	case SH_ADDR:
		return size == sizeof(struct vu_vring_addr) ? 0 : bad(why, "vring address is not 40 bytes");
	case SH_REG:
		return size == sizeof(struct vu_mem_single) ? 0 : bad(why, "memory region is not 40 bytes");
	case SH_MEM_TABLE:
		if (size < 8)
			return bad(why, "memory table shorter than its count");
		if (m->p.mem.nregions == 0 || m->p.mem.nregions > VU_MAX_TABLE_REGIONS)
			return bad(why, "memory table with no regions or more than 8");
		return size == 8 + 32 * m->p.mem.nregions ? 0
			: bad(why, "memory table size does not match its region count");
	case SH_CONFIG:
		if (size < VU_CONFIG_HDR || m->p.cfg.size > VU_MAX_CONFIG)
			return bad(why, "config message too short or larger than 256 bytes");
		return size == VU_CONFIG_HDR + m->p.cfg.size ? 0
			: bad(why, "config message size does not match its length field");
	}
	return bad(why, "no such payload shape");
}

static int check_fds(const struct vu_msg *m, enum vu_fds fds, const char **why)
{
	unsigned n = m->nfds;

	switch (fds) {
	case FD_NONE:
		return n == 0 ? 0 : bad(why, "file descriptors with a request that takes none");
	case FD_ONE:
		return n == 1 ? 0 : bad(why, "request needs exactly one file descriptor");
	case FD_MAYBE:
		return n <= 1 ? 0 : bad(why, "more than one file descriptor");
	case FD_TABLE:
		return n == m->p.mem.nregions ? 0
			: bad(why, "memory table without one file descriptor per region");
	case FD_VRING:
		if (m->p.u64 & ~(VU_VRING_IDX_MASK | VU_VRING_NOFD))
			return bad(why, "vring fd message with unknown bits set");
		if (m->p.u64 & VU_VRING_NOFD)
			return n == 0 ? 0 : bad(why, "file descriptor sent with the no-fd flag");
		return n == 1 ? 0 : bad(why, "vring file descriptor missing");
	}
	return bad(why, "no such fd rule");
}

int vu_msg_check(const struct vu_msg *m, const char **why)
{
	const struct vu_rule *r;
	int rc;

	if ((m->hdr.flags & VU_FLAG_VERSION) != VU_VERSION)
		return bad(why, "not protocol version 1");
	if (m->hdr.flags & VU_FLAG_REPLY)
		return bad(why, "a reply where a request belongs");
	if (m->hdr.size > VU_PAYLOAD_MAX)
		return bad(why, "payload larger than any request carries");
	if (m->nfds > VU_MAX_FDS)
		return bad(why, "more than 8 file descriptors");
	r = rule_of(m->hdr.request);
	if (!r)
		return bad(why, "unknown or unsupported request");
	rc = check_size(m, r->shape, why);
	return rc ? rc : check_fds(m, r->fds, why);
}

int vu_msg_parse(const uint8_t *buf, size_t len, const int *fds, unsigned nfds,
		 struct vu_msg *m, const char **why)
{
	memset(m, 0, sizeof(*m));
	if (len < sizeof(m->hdr))
		return bad(why, "shorter than a header");
	memcpy(&m->hdr, buf, sizeof(m->hdr));
	if (m->hdr.size > VU_PAYLOAD_MAX)
		return bad(why, "payload larger than any request carries");
	if (len - sizeof(m->hdr) != m->hdr.size)
		return bad(why, "payload length differs from the header's size");
	if (nfds > VU_MAX_FDS)
		return bad(why, "more than 8 file descriptors");
	memcpy(&m->p, buf + sizeof(m->hdr), m->hdr.size);
	for (unsigned i = 0; i < nfds; i++)
		m->fds[i] = fds[i];
	m->nfds = nfds;
	return vu_msg_check(m, why);
}

void vu_msg_close_fds(struct vu_msg *m)
{
	for (unsigned i = 0; i < m->nfds; i++) {
		if (m->fds[i] >= 0)
			close(m->fds[i]);
		m->fds[i] = -1;
	}
	m->nfds = 0;
}

/* Reads exactly len bytes (no fds). 0, -ECONNRESET at EOF, -errno. */
static int read_full(int sock, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = recv(sock, (uint8_t *)buf + done, len - done, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		done += (size_t)n;
	}
	return 0;
}

/* The header, with whatever fds came along with its first byte. */
static int recv_header(int sock, struct vu_msg *m, const char **why)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * VU_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { &m->hdr, sizeof(m->hdr) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	ssize_t n;

	do {
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k && m->nfds < VU_MAX_FDS; i++)
			memcpy(&m->fds[m->nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	if (mh.msg_flags & MSG_CTRUNC)
		return bad(why, "more file descriptors than any request carries");
	if ((size_t)n < sizeof(m->hdr)) {
		int rc = read_full(sock, (uint8_t *)&m->hdr + n, sizeof(m->hdr) - (size_t)n);

		if (rc)
			return rc == -ECONNRESET ? bad(why, "connection closed inside a header") : rc;
	}
	return 0;
}

int vu_msg_recv(int sock, struct vu_msg *m, const char **why)
{
	int rc;

	memset(m, 0, sizeof(*m));
	rc = recv_header(sock, m, why);
	if (rc == 0 && m->hdr.size > VU_PAYLOAD_MAX)
		rc = bad(why, "payload larger than any request carries");
	if (rc == 0) {
		rc = read_full(sock, &m->p, m->hdr.size);
		if (rc == -ECONNRESET)
			rc = bad(why, "connection closed inside a payload");
	}
	if (rc == 0)
		rc = vu_msg_check(m, why);
	if (rc)
		vu_msg_close_fds(m);
	return rc;
}

int vu_msg_reply(int sock, const struct vu_msg *req, const void *payload, uint32_t size)
{
	struct vu_hdr h = {
		.request = req->hdr.request, .flags = VU_VERSION | VU_FLAG_REPLY, .size = size,
	};
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, size } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = size ? 2 : 1 };
	size_t want = sizeof(h) + size;
	ssize_t n;

	do {
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* A unix stream socket takes a message this small whole or not at all. */
	return (size_t)n == want ? 0 : -EIO;
}
