// SPDX-License-Identifier: GPL-2.0-only
/*
 * The vhost-user message layer (transport/vhost_user.c): the checker on
 * every request shape, each malformed kind refused with its reason, and
 * the socket reader, which must leave no received fd open when it
 * refuses a message (counted in /proc/self/fd).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/unit/check_main.h"
#include "transport/vhost_user.h"

/* A message from bytes; returns vu_msg_parse's result, why in *why. */
static int parse(uint32_t req, uint32_t flags, const void *p, uint32_t size, unsigned nfds,
		 const char **why)
{
	uint8_t buf[sizeof(struct vu_hdr) + 512];
	struct vu_hdr h = { .request = req, .flags = flags, .size = size };
	int fds[12] = { 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111 };
	struct vu_msg m;

	*why = "";
	memcpy(buf, &h, sizeof(h));
	if (size <= 512 && p)
		memcpy(buf + sizeof(h), p, size);
	return vu_msg_parse(buf, sizeof(h) + (size <= 512 ? size : 0), fds, nfds, &m, why);
}

static void ok(uint32_t req, const void *p, uint32_t size, unsigned nfds)
{
	const char *why;

	ck_assert_msg(parse(req, VU_VERSION, p, size, nfds, &why) == 0, "%s refused: %s",
		      vu_request_name(req), why);
}

static void refused(uint32_t req, uint32_t flags, const void *p, uint32_t size, unsigned nfds,
		    const char *reason)
{
	const char *why;

	ck_assert_int_eq(parse(req, flags, p, size, nfds, &why), -EPROTO);
	ck_assert_msg(strstr(why, reason), "%s: '%s', expected '%s'", vu_request_name(req), why,
		      reason);
}

START_TEST(t_every_shape_accepted)
{
	uint64_t u = 3;
	struct vu_vring_state s = { 1, 16 };
	struct vu_vring_addr a = { 0 };
	struct vu_mem_table t = { .nregions = 2 };
	struct vu_mem_single r = { 0 };
	struct { uint32_t off, size, flags; uint8_t d[8]; } c = { 0, 8, 0, { 0 } };

	ok(VU_GET_FEATURES, NULL, 0, 0);
	ok(VU_SET_FEATURES, &u, 8, 0);
	ok(VU_SET_OWNER, NULL, 0, 0);
	ok(VU_RESET_OWNER, NULL, 0, 0);
	ok(VU_RESET_DEVICE, NULL, 0, 0);
	ok(VU_SET_MEM_TABLE, &t, 8 + 64, 2);
	ok(VU_SET_VRING_NUM, &s, 8, 0);
	ok(VU_SET_VRING_ADDR, &a, 40, 0);
	ok(VU_SET_VRING_BASE, &s, 8, 0);
	ok(VU_GET_VRING_BASE, &s, 8, 0);
	ok(VU_SET_VRING_KICK, &u, 8, 1);
	ok(VU_SET_VRING_CALL, &u, 8, 1);
	ok(VU_SET_VRING_ERR, &u, 8, 1);
	u = 1 | VU_VRING_NOFD;
	ok(VU_SET_VRING_CALL, &u, 8, 0);
	ok(VU_GET_PROTOCOL_FEATURES, NULL, 0, 0);
	ok(VU_SET_PROTOCOL_FEATURES, &u, 8, 0);
	ok(VU_GET_QUEUE_NUM, NULL, 0, 0);
	ok(VU_SET_VRING_ENABLE, &s, 8, 0);
	ok(VU_GET_CONFIG, &c, sizeof(c), 0);
	ok(VU_GET_MAX_MEM_SLOTS, NULL, 0, 0);
	ok(VU_ADD_MEM_REG, &r, 40, 1);
	ok(VU_REM_MEM_REG, &r, 40, 0);
	ok(VU_REM_MEM_REG, &r, 40, 1);
}
END_TEST

START_TEST(t_wrong_sizes_refused)
{
	uint8_t z[64] = { 0 };
	struct vu_mem_table t = { .nregions = 2 };
	struct { uint32_t off, size, flags; uint8_t d[8]; } c = { 0, 9, 0, { 0 } };

	refused(VU_GET_FEATURES, VU_VERSION, z, 8, 0, "payload where the request takes none");
	refused(VU_SET_FEATURES, VU_VERSION, z, 4, 0, "not 8 bytes");
	refused(VU_SET_FEATURES, VU_VERSION, z, 16, 0, "not 8 bytes");
	refused(VU_SET_VRING_NUM, VU_VERSION, z, 4, 0, "vring state is not 8 bytes");
	refused(VU_SET_VRING_ADDR, VU_VERSION, z, 32, 0, "vring address is not 40 bytes");
	refused(VU_ADD_MEM_REG, VU_VERSION, z, 32, 1, "memory region is not 40 bytes");
	refused(VU_SET_MEM_TABLE, VU_VERSION, &t, 8 + 32, 2, "does not match its region count");
	refused(VU_SET_MEM_TABLE, VU_VERSION, &t, 4, 0, "shorter than its count");
	t.nregions = 0;
	refused(VU_SET_MEM_TABLE, VU_VERSION, &t, 8, 0, "no regions or more than 8");
	uint8_t nine[8 + 32 * 9] = { 9 };
	refused(VU_SET_MEM_TABLE, VU_VERSION, nine, sizeof(nine), 8, "larger than any request");
	refused(VU_GET_CONFIG, VU_VERSION, &c, sizeof(c), 0, "does not match its length field");
	c.size = 300;
	refused(VU_GET_CONFIG, VU_VERSION, &c, sizeof(c), 0, "larger than 256 bytes");
	refused(VU_GET_CONFIG, VU_VERSION, &c, 8, 0, "too short");
	/* Larger than any payload: refused before anything is copied. */
	refused(VU_SET_FEATURES, VU_VERSION, NULL, 100000, 0, "larger than any request");
}
END_TEST

START_TEST(t_bad_headers_refused)
{
	uint64_t u = 0;

	refused(VU_SET_FEATURES, 0, &u, 8, 0, "not protocol version 1");
	refused(VU_SET_FEATURES, 2, &u, 8, 0, "not protocol version 1");
	refused(VU_SET_FEATURES, VU_VERSION | VU_FLAG_REPLY, &u, 8, 0, "a reply where a request");
	refused(0, VU_VERSION, NULL, 0, 0, "unknown or unsupported request");
	refused(99, VU_VERSION, NULL, 0, 0, "unknown or unsupported request");
	refused(UINT32_MAX, VU_VERSION, NULL, 0, 0, "unknown or unsupported request");
	refused(VU_SET_LOG_BASE, VU_VERSION, &u, 8, 0, "unknown or unsupported request");
	ck_assert_str_eq(vu_request_name(VU_SET_LOG_BASE), "SET_LOG_BASE");
	ck_assert_str_eq(vu_request_name(12345), "unknown");
	/* NEED_REPLY is a request's to set. */
	ck_assert_int_eq(parse(VU_SET_FEATURES, VU_VERSION | VU_FLAG_NEED_REPLY, &u, 8, 0,
			       &(const char *){ "" }), 0);
}
END_TEST

START_TEST(t_fd_counts_refused)
{
	uint64_t u = 1;
	struct vu_mem_table t = { .nregions = 2 };
	struct vu_mem_single r = { 0 };

	refused(VU_SET_FEATURES, VU_VERSION, &u, 8, 1, "with a request that takes none");
	refused(VU_SET_MEM_TABLE, VU_VERSION, &t, 8 + 64, 1, "one file descriptor per region");
	refused(VU_SET_MEM_TABLE, VU_VERSION, &t, 8 + 64, 3, "one file descriptor per region");
	refused(VU_ADD_MEM_REG, VU_VERSION, &r, 40, 0, "exactly one file descriptor");
	refused(VU_REM_MEM_REG, VU_VERSION, &r, 40, 2, "more than one");
	refused(VU_SET_VRING_KICK, VU_VERSION, &u, 8, 0, "vring file descriptor missing");
	u = 1 | VU_VRING_NOFD;
	refused(VU_SET_VRING_KICK, VU_VERSION, &u, 8, 1, "sent with the no-fd flag");
	u = 1ULL << 20;
	refused(VU_SET_VRING_CALL, VU_VERSION, &u, 8, 1, "unknown bits set");
	refused(VU_GET_FEATURES, VU_VERSION, NULL, 0, 9, "more than 8 file descriptors");
}
END_TEST

/* ---- the socket reader --------------------------------------------------- */

static int open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void send_raw(int s, const void *buf, size_t len, const int *fds, unsigned nfds)
{
	union { char b[CMSG_SPACE(sizeof(int) * 16)]; struct cmsghdr a; } ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds) {
		mh.msg_control = ctl.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	ck_assert_int_eq(sendmsg(s, &mh, 0), (ssize_t)len);
}

START_TEST(t_recv_takes_fds_and_replies)
{
	struct __attribute__((packed)) { struct vu_hdr h; uint64_t idx; } msg = {
		{ VU_SET_VRING_KICK, VU_VERSION, 8 }, 1,
	};
	int sv[2], efd = eventfd(0, EFD_CLOEXEC);
	struct vu_msg m;
	const char *why = "";
	struct vu_hdr rh;
	uint64_t v = 0;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	send_raw(sv[0], &msg, sizeof(msg), &efd, 1);
	ck_assert_int_eq(vu_msg_recv(sv[1], &m, &why), 0);
	ck_assert_uint_eq(m.nfds, 1);
	ck_assert_int_ne(m.fds[0], efd);
	ck_assert_int_eq(eventfd_write(m.fds[0], 5), 0);       /* the same eventfd */
	ck_assert_int_eq(eventfd_read(efd, &v), 0);
	ck_assert_uint_eq(v, 5);
	vu_msg_close_fds(&m);
	v = 0x1234;
	ck_assert_int_eq(vu_msg_reply(sv[1], &m, &v, 8), 0);
	ck_assert_int_eq(recv(sv[0], &rh, sizeof(rh), MSG_WAITALL), (ssize_t)sizeof(rh));
	ck_assert_uint_eq(rh.request, VU_SET_VRING_KICK);
	ck_assert_uint_eq(rh.flags, VU_VERSION | VU_FLAG_REPLY);
	ck_assert_uint_eq(rh.size, 8);
	/* The peer leaves between messages: ECONNRESET, nothing else. */
	close(sv[0]);
	ck_assert_int_eq(vu_msg_recv(sv[1], &m, &why), -ECONNRESET);
	close(sv[1]);
	close(efd);
}
END_TEST

/* Each refusal after fds arrived leaves none of them open. */
START_TEST(t_recv_refusals_leak_no_fds)
{
	int sv[2], fds[12], before;
	struct vu_msg m;
	const char *why;
	struct __attribute__((packed)) { struct vu_hdr h; uint64_t v; } big = { { VU_SET_FEATURES, VU_VERSION, 100000 }, 0 };
	struct __attribute__((packed)) { struct vu_hdr h; uint64_t v; } nofd = { { VU_SET_FEATURES, VU_VERSION, 8 }, 0 };
	struct vu_hdr cut = { VU_SET_FEATURES, VU_VERSION, 8 };

	for (int i = 0; i < 12; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	before = open_fds();
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* fds with a request that takes none */
	send_raw(sv[0], &nofd, sizeof(nofd), fds, 2);
	ck_assert_int_eq(vu_msg_recv(sv[1], &m, &why), -EPROTO);
	/* a payload size no request has */
	send_raw(sv[0], &big, sizeof(big), fds, 3);
	ck_assert_int_eq(vu_msg_recv(sv[1], &m, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "larger than any request"));
	close(sv[0]);
	close(sv[1]);
	/* more fds than any message carries (the kernel truncates) */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	send_raw(sv[0], &nofd, sizeof(nofd), fds, 12);
	ck_assert_int_eq(vu_msg_recv(sv[1], &m, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "more file descriptors"));
	close(sv[0]);
	close(sv[1]);
	/* the peer leaves inside a payload, fds already sent */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	send_raw(sv[0], &cut, sizeof(cut), fds, 1);
	close(sv[0]);
	ck_assert_int_eq(vu_msg_recv(sv[1], &m, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "closed inside a payload"));
	close(sv[1]);
	ck_assert_int_eq(open_fds(), before);
	for (int i = 0; i < 12; i++)
		close(fds[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vhost_user");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, t_every_shape_accepted);
	tcase_add_test(tc, t_wrong_sizes_refused);
	tcase_add_test(tc, t_bad_headers_refused);
	tcase_add_test(tc, t_fd_counts_refused);
	suite_add_tcase(s, tc);
	tc = tcase_create("socket");
	tcase_add_test(tc, t_recv_takes_fds_and_replies);
	tcase_add_test(tc, t_recv_refusals_leak_no_fds);
	suite_add_tcase(s, tc);
	return unit_main(s);
}
