// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio-vsock against a hostile guest (vsock_driver.h): the connections
 * that work both ways, then one t_bad_* case per packet the protocol does
 * not allow -- each must end in RST (or a clean drop) and leave no fd
 * behind (vd_stop counts them).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>

#include "tests/unit/check_main.h"
#include "tests/unit/vsock_driver.h"

static struct vdrv d;

START_TEST(t_guest_connect_round_trip)
{
	struct vsock_hdr h;
	char buf[64];
	int lfd, fd;

	vd_start(&d, 0);
	lfd = vd_listen(&d, 5000);
	fd = vd_guest_connect(&d, lfd, 1234, 5000);
	vd_send(&d, vd_hdr(VSOCK_OP_RW, 1234, 5000), "hello", 5);
	ck_assert_int_eq(vd_host_read(fd, buf, sizeof(buf), 5000), 5);
	ck_assert_mem_eq(buf, "hello", 5);
	ck_assert_int_eq(write(fd, "world!", 6), 6);
	ck_assert_int_eq(vd_recv(&d, &h, buf, sizeof(buf), 5000), 6);
	ck_assert_uint_eq(h.op, VSOCK_OP_RW);
	ck_assert_uint_eq(h.dst_port, 1234);
	ck_assert_uint_eq(h.buf_alloc, VSOCK_BUF_ALLOC);
	ck_assert_mem_eq(buf, "world!", 6);
	/* The host half-closes: the guest hears SHUTDOWN(SEND) and can still send. */
	shutdown(fd, SHUT_WR);
	ck_assert_int_eq(vd_recv(&d, &h, NULL, 0, 5000), 0);
	ck_assert_uint_eq(h.op, VSOCK_OP_SHUTDOWN);
	ck_assert_uint_eq(h.flags, VSOCK_SHUTDOWN_SEND);
	vd_send(&d, vd_hdr(VSOCK_OP_RW, 1234, 5000), "late", 4);
	ck_assert_int_eq(vd_host_read(fd, buf, sizeof(buf), 5000), 4);
	/* The guest closes: RST ends it, the host sees EOF. */
	h = vd_hdr(VSOCK_OP_SHUTDOWN, 1234, 5000);
	h.flags = VSOCK_SHUTDOWN_RCV | VSOCK_SHUTDOWN_SEND;
	vd_send(&d, h, NULL, 0);
	vd_expect(&d, VSOCK_OP_RST, 1234, 5000);
	ck_assert_int_eq(vd_host_read(fd, buf, sizeof(buf), 5000), 0);
	close(fd);
	close(lfd);
	vd_stop(&d);
}
END_TEST

START_TEST(t_guest_connect_no_listener_rst)
{
	vd_start(&d, 0);
	vd_send(&d, vd_hdr(VSOCK_OP_REQUEST, 1, 4242), NULL, 0);
	vd_expect(&d, VSOCK_OP_RST, 1, 4242);
	vd_stop(&d);
}
END_TEST

START_TEST(t_guest_connect_only_uds_port)
{
	/* A file called UDS_P that is no socket, and a socket of another
	 * name in the folder: neither is reachable. */
	char path[160];
	int f, lfd;

	vd_start(&d, 0);
	snprintf(path, sizeof(path), "%s_77", d.uds);
	f = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ck_assert_int_ge(f, 0);
	close(f);
	vd_send(&d, vd_hdr(VSOCK_OP_REQUEST, 1, 77), NULL, 0);
	vd_expect(&d, VSOCK_OP_RST, 1, 77);
	lfd = vd_listen(&d, 78);
	snprintf(path, sizeof(path), "%s_78", d.uds);
	vd_send(&d, vd_hdr(VSOCK_OP_REQUEST, 1, 780), NULL, 0);
	vd_expect(&d, VSOCK_OP_RST, 1, 780);
	close(lfd);
	vd_stop(&d);
}
END_TEST

/* A packet that breaks a rule on a live connection: RST, host side closed. */
static void expect_rst_on_live(struct vsock_hdr bad, const void *payload, uint32_t plen,
			       uint32_t hlen_override)
{
	int lfd, fd;

	vd_start(&d, 0);
	lfd = vd_listen(&d, 9);
	fd = vd_guest_connect(&d, lfd, 50, 9);
	if (hlen_override)
		vd_send_raw(&d, &bad, sizeof(bad), payload, plen, 0);
	else
		vd_send(&d, bad, payload, plen);
	vd_expect(&d, VSOCK_OP_RST, 50, 9);
	ck_assert(vd_host_closed(fd));
	vd_expect_nothing(&d);
	close(fd);
	close(lfd);
	vd_stop(&d);
}

START_TEST(t_bad_len_beyond_payload)
{
	struct vsock_hdr h = vd_hdr(VSOCK_OP_RW, 50, 9);

	h.len = 100; /* but 10 bytes follow */
	expect_rst_on_live(h, "0123456789", 10, 1);
}
END_TEST

START_TEST(t_bad_len_on_control_op)
{
	struct vsock_hdr h = vd_hdr(VSOCK_OP_CREDIT_UPDATE, 50, 9);

	h.len = 4;
	expect_rst_on_live(h, "abcd", 4, 1);
}
END_TEST

START_TEST(t_bad_unknown_op)
{
	expect_rst_on_live(vd_hdr(99, 50, 9), NULL, 0, 0);
}
END_TEST

START_TEST(t_bad_invalid_op)
{
	expect_rst_on_live(vd_hdr(VSOCK_OP_INVALID, 50, 9), NULL, 0, 0);
}
END_TEST

START_TEST(t_bad_type_seqpacket)
{
	struct vsock_hdr h = vd_hdr(VSOCK_OP_RW, 50, 9);

	h.type = 2;
	expect_rst_on_live(h, "x", 1, 0);
}
END_TEST

START_TEST(t_bad_src_cid)
{
	struct vsock_hdr h = vd_hdr(VSOCK_OP_RW, 50, 9);

	h.src_cid = VD_CID + 1;
	expect_rst_on_live(h, "x", 1, 0);
}
END_TEST

START_TEST(t_bad_dst_cid)
{
	struct vsock_hdr h = vd_hdr(VSOCK_OP_RW, 50, 9);

	h.dst_cid = 1;
	expect_rst_on_live(h, "x", 1, 0);
}
END_TEST

START_TEST(t_bad_second_request)
{
	expect_rst_on_live(vd_hdr(VSOCK_OP_REQUEST, 50, 9), NULL, 0, 0);
}
END_TEST

START_TEST(t_bad_response_on_guest_connection)
{
	expect_rst_on_live(vd_hdr(VSOCK_OP_RESPONSE, 50, 9), NULL, 0, 0);
}
END_TEST

START_TEST(t_bad_data_beyond_credit)
{
	static char chunk[4096];
	bool rst = false;
	int lfd, fd;

	vd_start(&d, 0);
	lfd = vd_listen(&d, 9);
	fd = vd_guest_connect(&d, lfd, 50, 9);
	/* The peer reads nothing: its socket fills, then our buffer, exactly
	 * to the credit we advertised, and not one byte more. */
	for (unsigned sent = 0; sent < 4u << 20 && !rst; sent += sizeof(chunk)) {
		struct vsock_hdr h;

		vd_send(&d, vd_hdr(VSOCK_OP_RW, 50, 9), chunk, sizeof(chunk));
		/* The guest ignores the credit updates the socket's own buffer
		 * earns it; the buffer behind that is all it gets. */
		while (!rst && vd_recv(&d, &h, NULL, 0, 0) >= 0) {
			ck_assert(h.op == VSOCK_OP_CREDIT_UPDATE || h.op == VSOCK_OP_RST);
			rst = h.op == VSOCK_OP_RST;
		}
	}
	ck_assert(rst);
	ck_assert(vd_host_closed(fd));
	close(fd);
	close(lfd);
	vd_stop(&d);
}
END_TEST

START_TEST(t_bad_packets_for_no_connection)
{
	struct vsock_hdr rst = vd_hdr(VSOCK_OP_RST, 3, 4);

	vd_start(&d, 0);
	vd_send(&d, vd_hdr(VSOCK_OP_RW, 3, 4), "abc", 3);
	vd_expect(&d, VSOCK_OP_RST, 3, 4);
	vd_send(&d, vd_hdr(VSOCK_OP_SHUTDOWN, 3, 4), NULL, 0);
	vd_expect(&d, VSOCK_OP_RST, 3, 4);
	vd_send(&d, vd_hdr(VSOCK_OP_CREDIT_REQUEST, 3, 4), NULL, 0);
	vd_expect(&d, VSOCK_OP_RST, 3, 4);
	/* An RST is never answered: two devices could ping-pong forever. */
	vd_send(&d, rst, NULL, 0);
	rst.src_cid = 99;
	vd_send(&d, rst, NULL, 0);
	vd_expect_nothing(&d);
	vd_stop(&d);
}
END_TEST

START_TEST(t_bad_short_packet_dropped)
{
	char tiny[20] = { 0 };

	vd_start(&d, 0);
	vd_send_raw(&d, tiny, sizeof(tiny), NULL, 0, 0);
	vd_expect_nothing(&d);
	vd_stop(&d);
}
END_TEST

START_TEST(t_header_split_across_descriptors)
{
	struct vsock_hdr h = vd_hdr(VSOCK_OP_REQUEST, 60, 61);
	char buf[16];
	int lfd, fd;

	vd_start(&d, 0);
	lfd = vd_listen(&d, 61);
	vd_send_raw(&d, &h, sizeof(h), NULL, 0, 10);
	vd_expect(&d, VSOCK_OP_RESPONSE, 60, 61);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	h = vd_hdr(VSOCK_OP_RW, 60, 61);
	h.len = 7;
	vd_send_raw(&d, &h, sizeof(h), "split!!", 7, 43);
	ck_assert_int_eq(vd_host_read(fd, buf, sizeof(buf), 5000), 7);
	ck_assert_mem_eq(buf, "split!!", 7);
	close(fd);
	close(lfd);
	vd_stop(&d);
}
END_TEST

START_TEST(t_guest_that_stops_reading_gets_only_its_credit)
{
	static char big[1 << 20];
	struct vsock_hdr h = vd_hdr(VSOCK_OP_REQUEST, 70, 71);
	unsigned got = 0;
	ssize_t put;
	int lfd, fd, n;

	vd_start(&d, 0);
	lfd = vd_listen(&d, 71);
	h.buf_alloc = 8192;
	vd_send(&d, h, NULL, 0);
	vd_expect(&d, VSOCK_OP_RESPONSE, 70, 71);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	put = send(fd, big, sizeof(big), MSG_DONTWAIT);
	ck_assert_int_gt(put, 8192);
	while ((n = vd_recv(&d, &h, NULL, 0, 300)) >= 0) {
		ck_assert_uint_eq(h.op, VSOCK_OP_RW);
		got += (unsigned)n;
	}
	ck_assert_uint_eq(got, 8192);
	/* It read 4 KiB: exactly that much more comes. */
	h = vd_hdr(VSOCK_OP_CREDIT_UPDATE, 70, 71);
	h.buf_alloc = 8192;
	h.fwd_cnt = 4096;
	vd_send(&d, h, NULL, 0);
	while ((n = vd_recv(&d, &h, NULL, 0, 300)) >= 0)
		got += (unsigned)n;
	ck_assert_uint_eq(got, 8192 + 4096);
	close(fd);
	close(lfd);
	vd_stop(&d);
}
END_TEST

START_TEST(t_credit_update_when_the_peer_drains)
{
	static char chunk[4096], sink[1 << 20];
	struct vsock_hdr h;
	int lfd, fd;

	vd_start(&d, 0);
	lfd = vd_listen(&d, 9);
	fd = vd_guest_connect(&d, lfd, 50, 9);
	for (unsigned i = 0; i < 32; i++)
		vd_send(&d, vd_hdr(VSOCK_OP_RW, 50, 9), chunk, sizeof(chunk));
	while (vd_host_read(fd, sink, sizeof(sink), 200) > 0)
		;
	/* 128 KiB forwarded: past the threshold, so an update came. */
	ck_assert_int_eq(vd_recv(&d, &h, NULL, 0, 5000), 0);
	ck_assert_uint_eq(h.op, VSOCK_OP_CREDIT_UPDATE);
	ck_assert_uint_ge(h.fwd_cnt, VSOCK_BUF_ALLOC / 4);
	close(fd);
	close(lfd);
	vd_stop(&d);
}
END_TEST

START_TEST(t_connection_limit)
{
	int lfd, a, b;

	vd_start(&d, 2);
	lfd = vd_listen(&d, 9);
	a = vd_guest_connect(&d, lfd, 1, 9);
	b = vd_guest_connect(&d, lfd, 2, 9);
	vd_send(&d, vd_hdr(VSOCK_OP_REQUEST, 3, 9), NULL, 0);
	vd_expect(&d, VSOCK_OP_RST, 3, 9);
	close(a);
	close(b);
	close(lfd);
	vd_stop(&d);
}
END_TEST

START_TEST(t_reset_drops_every_connection)
{
	int lfd, fds[4], base;
	char buf[8];

	vd_start(&d, 0);
	lfd = vd_listen(&d, 9);
	base = test_count_fds();
	for (unsigned i = 0; i < 4; i++)
		fds[i] = vd_guest_connect(&d, lfd, 100 + i, 9);
	/* One of them holds buffered bytes the peer never read. */
	for (unsigned i = 0; i < 64; i++) {
		static char chunk[4096];

		vd_send(&d, vd_hdr(VSOCK_OP_RW, 100, 9), chunk, sizeof(chunk));
	}
	fd_wr(d.t, VMMIO_STATUS, 0);
	for (unsigned i = 1; i < 4; i++)
		ck_assert_int_eq(vd_host_read(fds[i], buf, sizeof(buf), 5000), 0);
	for (unsigned i = 0; i < 4; i++)
		close(fds[i]);
	/* Only the worker's fresh kick fds are new: every connection's is gone. */
	ck_assert_int_le(test_count_fds(), base);
	close(lfd);
	vd_stop(&d);
}
END_TEST

static Suite *vsock_suite(void)
{
	Suite *s = suite_create("vsock");
	TCase *ok = tcase_create("connections");
	TCase *bad = tcase_create("hostile guest");

	tcase_set_timeout(ok, 30);
	tcase_set_timeout(bad, 30);
	tcase_add_test(ok, t_guest_connect_round_trip);
	tcase_add_test(ok, t_guest_connect_no_listener_rst);
	tcase_add_test(ok, t_guest_connect_only_uds_port);
	tcase_add_test(ok, t_header_split_across_descriptors);
	tcase_add_test(ok, t_guest_that_stops_reading_gets_only_its_credit);
	tcase_add_test(ok, t_credit_update_when_the_peer_drains);
	tcase_add_test(ok, t_connection_limit);
	tcase_add_test(ok, t_reset_drops_every_connection);
	tcase_add_test(bad, t_bad_len_beyond_payload);
	tcase_add_test(bad, t_bad_len_on_control_op);
	tcase_add_test(bad, t_bad_unknown_op);
	tcase_add_test(bad, t_bad_invalid_op);
	tcase_add_test(bad, t_bad_type_seqpacket);
	tcase_add_test(bad, t_bad_src_cid);
	tcase_add_test(bad, t_bad_dst_cid);
	tcase_add_test(bad, t_bad_second_request);
	tcase_add_test(bad, t_bad_response_on_guest_connection);
	tcase_add_test(bad, t_bad_data_beyond_credit);
	tcase_add_test(bad, t_bad_packets_for_no_connection);
	tcase_add_test(bad, t_bad_short_packet_dropped);
	suite_add_tcase(s, ok);
	suite_add_tcase(s, bad);
	return s;
}

int main(void)
{
	return unit_main(vsock_suite());
}
