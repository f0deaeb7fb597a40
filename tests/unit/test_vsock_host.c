// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host side of virtio-vsock's Unix-socket convention, with a fake
 * guest (vsock_driver.h) answering: "CONNECT <port>\n" -> REQUEST ->
 * RESPONSE -> "OK <port>\n", a refusal, and every malformed line a host
 * process could write (each closes that connection, nothing reaches the
 * guest, the device keeps serving). Also --vsock's parser.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>

#include "devices/vsock_int.h"
#include "tests/unit/check_main.h"
#include "tests/unit/vsock_driver.h"

static struct vdrv d;

/* The host's CONNECT reaches the guest as a REQUEST: its ports. */
static void host_request(int fd, uint32_t port, uint32_t *host_port)
{
	struct vsock_hdr h;
	char line[32];
	int n = snprintf(line, sizeof(line), "CONNECT %u\n", port);

	ck_assert_int_eq(write(fd, line, (size_t)n), n);
	ck_assert_int_eq(vd_recv(&d, &h, NULL, 0, 5000), 0);
	ck_assert_uint_eq(h.op, VSOCK_OP_REQUEST);
	ck_assert_uint_eq(h.dst_port, port);
	ck_assert_uint_ge(h.src_port, VSOCK_HOST_PORT_FIRST);
	*host_port = h.src_port;
}

START_TEST(t_host_connect_round_trip)
{
	struct vsock_hdr h;
	char buf[64], want[32];
	uint32_t hp;
	int fd, n;

	vd_start(&d, 0);
	fd = vd_host_connect(&d);
	host_request(fd, 52, &hp);
	/* Bytes right behind the line are the stream's, not the handshake's. */
	ck_assert_int_eq(write(fd, "early", 5), 5);
	vd_send(&d, vd_hdr(VSOCK_OP_RESPONSE, 52, hp), NULL, 0);
	n = snprintf(want, sizeof(want), "OK %u\n", hp);
	ck_assert_int_eq(vd_host_read(fd, buf, (size_t)n, 5000), n);
	ck_assert_mem_eq(buf, want, (size_t)n);
	ck_assert_int_eq(vd_recv(&d, &h, buf, sizeof(buf), 5000), 5);
	ck_assert_uint_eq(h.op, VSOCK_OP_RW);
	ck_assert_mem_eq(buf, "early", 5);
	vd_send(&d, vd_hdr(VSOCK_OP_RW, 52, hp), "pong", 4);
	ck_assert_int_eq(vd_host_read(fd, buf, sizeof(buf), 5000), 4);
	ck_assert_mem_eq(buf, "pong", 4);
	/* The host goes away: the guest hears SHUTDOWN, answers RST. */
	close(fd);
	ck_assert_int_eq(vd_recv(&d, &h, NULL, 0, 5000), 0);
	ck_assert_uint_eq(h.op, VSOCK_OP_SHUTDOWN);
	vd_send(&d, vd_hdr(VSOCK_OP_RST, 52, hp), NULL, 0);
	vd_expect_nothing(&d);
	vd_stop(&d);
}
END_TEST

START_TEST(t_host_connect_refused_closes)
{
	char buf[8];
	uint32_t hp;
	int fd;

	vd_start(&d, 0);
	fd = vd_host_connect(&d);
	host_request(fd, 53, &hp);
	vd_send(&d, vd_hdr(VSOCK_OP_RST, 53, hp), NULL, 0);
	ck_assert_int_eq(vd_host_read(fd, buf, sizeof(buf), 5000), 0);
	close(fd);
	vd_stop(&d);
}
END_TEST

START_TEST(t_host_ports_distinct)
{
	uint32_t a, b;
	int fa, fb;

	vd_start(&d, 0);
	fa = vd_host_connect(&d);
	host_request(fa, 1, &a);
	fb = vd_host_connect(&d);
	host_request(fb, 1, &b);
	ck_assert_uint_ne(a, b);
	close(fa);
	close(fb);
	vd_stop(&d);
}
END_TEST

static const char *const bad_lines[] = {
	"HELLO\n",
	"CONNECT\n",
	"CONNECT \n",
	"CONNECT abc\n",
	"CONNECT -1\n",
	"CONNECT +5\n",
	"CONNECT 4294967296\n",
	"CONNECT 99999999999999999999\n",
	"CONNECT 5 \n",
	"connect 5\n",
	"CONNECT 0x10\n",
	"CONNECT 5\r\n",
	"CONNECT 000000000000000000000000000000005\n",  /* past the line limit */
	"CONNECT 12345678901234567890123456789012345678901234567890", /* no '\n' */
};

START_TEST(t_host_bad_line_closes)
{
	const char *line = bad_lines[_i];
	uint32_t hp;
	int fd, ok;

	vd_start(&d, 0);
	fd = vd_host_connect(&d);
	ck_assert_int_eq(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	ck_assert(vd_host_closed(fd));
	vd_expect_nothing(&d);
	close(fd);
	/* ... and the next host connection is served as usual. */
	ok = vd_host_connect(&d);
	host_request(ok, 8, &hp);
	close(ok);
	vd_stop(&d);
}
END_TEST

START_TEST(t_host_hangs_up_mid_line)
{
	uint32_t hp;
	int fd;

	vd_start(&d, 0);
	fd = vd_host_connect(&d);
	ck_assert_int_eq(write(fd, "CONN", 4), 4);
	close(fd);
	vd_expect_nothing(&d);
	fd = vd_host_connect(&d);
	host_request(fd, 9, &hp);
	close(fd);
	vd_stop(&d);
}
END_TEST

/*
 * A host client that connects and never finishes its line, and one whose
 * REQUEST the guest never answers, each lose their slot at the deadline:
 * with a single slot, the next client is served.
 */
START_TEST(t_host_handshake_deadline)
{
	struct timespec t0, t1;
	uint32_t hp;
	int fd, next;

	vd_handshake_ms = 300;
	vd_start(&d, 1);
	fd = vd_host_connect(&d);
	ck_assert_int_eq(write(fd, "CONN", 4), 4);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert(vd_host_closed(fd));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_ge((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000, 250);
	vd_expect_nothing(&d);
	close(fd);
	/* The guest hears the REQUEST but never answers: RST at the deadline. */
	fd = vd_host_connect(&d);
	host_request(fd, 11, &hp);
	ck_assert(vd_host_closed(fd));
	vd_expect(&d, VSOCK_OP_RST, 11, hp);
	close(fd);
	next = vd_host_connect(&d);
	host_request(next, 12, &hp);
	close(next);
	vd_stop(&d);
	vd_handshake_ms = 0;
}
END_TEST

START_TEST(t_parse_connect)
{
	ck_assert_int_eq(vsock_parse_connect("CONNECT 0\n", 10), 0);
	ck_assert_int_eq(vsock_parse_connect("CONNECT 4294967295\n", 19), 4294967295LL);
	ck_assert_int_eq(vsock_parse_connect("CONNECT 4294967296\n", 19), -EINVAL);
	ck_assert_int_eq(vsock_parse_connect("CONNECT 1", 9), -EINVAL);
	ck_assert_int_eq(vsock_parse_connect("CONNECT \n", 9), -EINVAL);
	ck_assert_int_eq(vsock_parse_connect("\n", 1), -EINVAL);
	ck_assert_int_eq(vsock_parse_connect("", 0), -EINVAL);
}
END_TEST

START_TEST(t_parse_config)
{
	struct vsock_config c;
	char err[128];
	char longp[200];

	ck_assert_int_eq(vsock_parse_config("3,/run/v.sock", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.cid, 3);
	ck_assert_str_eq(c.uds, "/run/v.sock");
	ck_assert_uint_eq(c.max_conns, VSOCK_CONNS_DEFAULT);
	ck_assert_int_eq(vsock_parse_config("42,v.sock,conns=8", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.max_conns, 8);
	ck_assert_str_eq(c.uds, "v.sock");
	ck_assert_int_eq(vsock_parse_config("2,/v", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(vsock_parse_config("4294967295,/v", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(vsock_parse_config("4294967296,/v", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(vsock_parse_config("x,/v", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(vsock_parse_config("3", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(vsock_parse_config("3,", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(vsock_parse_config("3,/dir/", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(vsock_parse_config("3,/v,conns=0", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(vsock_parse_config("3,/v,conns=5000", &c, err, sizeof(err)), -EINVAL);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '3';
	longp[1] = ',';
	longp[sizeof(longp) - 1] = '\0';
	ck_assert_int_eq(vsock_parse_config(longp, &c, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "UDS"));
}
END_TEST

START_TEST(t_host_open_refuses_a_file)
{
	struct vsock_config c = { .cid = 3 };
	struct vsock_host h;
	char dir[] = "/tmp/vsock-unit.XXXXXX";
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(c.uds, sizeof(c.uds), "%s/f", dir);
	fd = open(c.uds, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(fd);
	ck_assert_int_eq(vsock_host_open(&h, &c), -EEXIST);
	unlink(c.uds);
	/* A stale socket is replaced. */
	ck_assert_int_eq(vsock_host_open(&h, &c), 0);
	vsock_host_close(&h);
	ck_assert_int_eq(vsock_host_open(&h, &c), 0);
	vsock_host_close(&h);
	unlink(c.uds);
	rmdir(dir);
}
END_TEST

static Suite *vsock_host_suite(void)
{
	Suite *s = suite_create("vsock-host");
	TCase *tc = tcase_create("handshake");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_host_connect_round_trip);
	tcase_add_test(tc, t_host_connect_refused_closes);
	tcase_add_test(tc, t_host_ports_distinct);
	tcase_add_loop_test(tc, t_host_bad_line_closes, 0,
			    (int)(sizeof(bad_lines) / sizeof(bad_lines[0])));
	tcase_add_test(tc, t_host_hangs_up_mid_line);
	tcase_add_test(tc, t_host_handshake_deadline);
	tcase_add_test(tc, t_parse_connect);
	tcase_add_test(tc, t_parse_config);
	tcase_add_test(tc, t_host_open_refuses_a_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(vsock_host_suite());
}
