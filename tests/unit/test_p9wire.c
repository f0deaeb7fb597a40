// SPDX-License-Identifier: GPL-2.0-only
/*
 * 9P wire codec (fs/9p/p9_wire.c): round trips of every field type, the
 * little-endian layout, and every malformed case — each get past the end,
 * strings longer than what is left, puts past the capacity — plus the
 * iovec helpers with buffers split at every position.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs/9p/p9_wire.h"
#include "fs/fs_req.h"
#include "tests/unit/check_main.h"

START_TEST(test_round_trip)
{
	uint8_t buf[128];
	struct p9_wbuf w;
	struct p9_rbuf r;
	struct p9_qid q = { P9_QTDIR, 0x01020304, 0x1122334455667788ull }, q2;
	struct p9_str s;

	p9_wbuf_init(&w, buf, sizeof(buf));
	p9_put_u8(&w, 0xab);
	p9_put_u16(&w, 0xbeef);
	p9_put_u32(&w, 0xdeadbeef);
	p9_put_u64(&w, 0x0123456789abcdefull);
	p9_put_cstr(&w, "hello");
	p9_put_str(&w, "", 0);
	p9_put_qid(&w, &q);
	ck_assert_int_eq(p9_wbuf_error(&w), 0);
	ck_assert_uint_eq(w.pos, 1 + 2 + 4 + 8 + 7 + 2 + 13);

	p9_rbuf_init(&r, buf, w.pos);
	ck_assert_uint_eq(p9_get_u8(&r), 0xab);
	ck_assert_uint_eq(p9_get_u16(&r), 0xbeef);
	ck_assert_uint_eq(p9_get_u32(&r), 0xdeadbeef);
	ck_assert(p9_get_u64(&r) == 0x0123456789abcdefull);
	p9_get_str(&r, &s);
	ck_assert(p9_str_eq(&s, "hello"));
	p9_get_str(&r, &s);
	ck_assert_uint_eq(s.len, 0);
	p9_get_qid(&r, &q2);
	ck_assert_uint_eq(q2.type, q.type);
	ck_assert_uint_eq(q2.version, q.version);
	ck_assert(q2.path == q.path);
	ck_assert_int_eq(p9_rbuf_error(&r), 0);
	ck_assert_uint_eq(p9_rbuf_left(&r), 0);
}
END_TEST

START_TEST(test_little_endian_layout)
{
	uint8_t buf[16];
	struct p9_wbuf w;
	static const uint8_t want[] = { 0x04, 0x03, 0x02, 0x01, 0x02, 0x00, 'h', 'i' };

	p9_wbuf_init(&w, buf, sizeof(buf));
	p9_put_u32(&w, 0x01020304);
	p9_put_cstr(&w, "hi");
	ck_assert_int_eq(memcmp(buf, want, sizeof(want)), 0);

	p9_put_hdr(buf, 0x0b, P9_RLERROR, 0x1234);
	static const uint8_t hdr[] = { 0x0b, 0, 0, 0, P9_RLERROR, 0x34, 0x12 };
	ck_assert_int_eq(memcmp(buf, hdr, sizeof(hdr)), 0);
}
END_TEST

START_TEST(test_get_past_end_every_width)
{
	uint8_t buf[8] = { 0 };
	struct p9_rbuf r;
	static const size_t sizes[] = { 1, 2, 4, 8 };

	/* For each width, a buffer one byte short latches the error. */
	for (unsigned i = 0; i < 4; i++) {
		p9_rbuf_init(&r, buf, sizes[i] - 1);
		switch (sizes[i]) {
		case 1: ck_assert_uint_eq(p9_get_u8(&r), 0); break;
		case 2: ck_assert_uint_eq(p9_get_u16(&r), 0); break;
		case 4: ck_assert_uint_eq(p9_get_u32(&r), 0); break;
		case 8: ck_assert(p9_get_u64(&r) == 0); break;
		}
		ck_assert_int_eq(p9_rbuf_error(&r), -EPROTO);
		ck_assert_uint_eq(p9_rbuf_left(&r), 0);
	}
}
END_TEST

START_TEST(test_error_is_sticky)
{
	uint8_t buf[4] = { 1, 2, 3, 4 };
	struct p9_rbuf r;

	p9_rbuf_init(&r, buf, sizeof(buf));
	p9_get_u64(&r);             /* fails */
	ck_assert_uint_eq(p9_get_u8(&r), 0); /* would fit, but the error stays */
	ck_assert_int_eq(p9_rbuf_error(&r), -EPROTO);
}
END_TEST

START_TEST(test_string_longer_than_message)
{
	uint8_t buf[8] = { 10, 0, 'a', 'b', 'c' }; /* claims 10 bytes, has 3 */
	struct p9_rbuf r;
	struct p9_str s;

	p9_rbuf_init(&r, buf, 5);
	p9_get_str(&r, &s);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_int_eq(p9_rbuf_error(&r), -EPROTO);

	/* A string whose length field itself is cut. */
	p9_rbuf_init(&r, buf, 1);
	p9_get_str(&r, &s);
	ck_assert_int_eq(p9_rbuf_error(&r), -EPROTO);
}
END_TEST

START_TEST(test_qid_short)
{
	uint8_t buf[13] = { 0 };
	struct p9_rbuf r;
	struct p9_qid q;

	p9_rbuf_init(&r, buf, 12);
	p9_get_qid(&r, &q);
	ck_assert_int_eq(p9_rbuf_error(&r), -EPROTO);
	p9_rbuf_init(&r, buf, 13);
	p9_get_qid(&r, &q);
	ck_assert_int_eq(p9_rbuf_error(&r), 0);
}
END_TEST

START_TEST(test_str_copy_checks)
{
	char out[8];
	struct p9_str ok = { "abc", 3 }, nul = { "a\0b", 3 }, big = { "abcdefgh", 8 };

	ck_assert_int_eq(p9_str_copy(&ok, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "abc");
	ck_assert_int_eq(p9_str_copy(&nul, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(p9_str_copy(&big, out, sizeof(out)), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_put_past_capacity)
{
	uint8_t buf[6];
	struct p9_wbuf w;

	p9_wbuf_init(&w, buf, sizeof(buf));
	p9_put_u32(&w, 1);
	ck_assert_int_eq(p9_wbuf_error(&w), 0);
	p9_put_u32(&w, 2);          /* 8 > 6 */
	ck_assert_int_eq(p9_wbuf_error(&w), -ENOSPC);
	ck_assert_uint_eq(w.pos, 4);
	ck_assert_uint_eq(p9_wbuf_left(&w), 0);

	p9_wbuf_init(&w, buf, sizeof(buf));
	p9_put_cstr(&w, "hello");   /* 2 + 5 > 6 */
	ck_assert_int_eq(p9_wbuf_error(&w), -ENOSPC);

	p9_wbuf_init(&w, buf, sizeof(buf));
	ck_assert_ptr_null(p9_put_reserve(&w, 7));
	ck_assert_int_eq(p9_wbuf_error(&w), -ENOSPC);
}
END_TEST

START_TEST(test_put_string_too_long_for_u16)
{
	uint8_t *buf = malloc(70000);
	char *s = malloc(65536);
	struct p9_wbuf w;

	memset(s, 'x', 65536);
	p9_wbuf_init(&w, buf, 70000);
	p9_put_str(&w, s, 65536);
	ck_assert_int_eq(p9_wbuf_error(&w), -ENOSPC);
	free(buf);
	free(s);
}
END_TEST

START_TEST(test_layout_asserts)
{
	ck_assert_uint_eq(sizeof(struct p9_wire_hdr), 7);
	ck_assert_uint_eq(sizeof(struct p9_wire_qid), 13);
	ck_assert_uint_eq(sizeof(struct p9_wire_twrite), 23);
	ck_assert_uint_eq(sizeof(struct p9_wire_rread), 11);
}
END_TEST

/* A 64-byte pattern split into three iovecs at every pair of cut points. */
START_TEST(test_iov_split_anywhere)
{
	uint8_t src[64], dst[64], back[64];

	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 1);
	for (unsigned a = 0; a <= 64; a++) {
		for (unsigned b = a; b <= 64; b += 5) {
			struct iovec v[3] = {
				{ dst, a }, { dst + a, b - a }, { dst + b, 64 - b },
			};
			memset(dst, 0, sizeof(dst));
			ck_assert_uint_eq(fs_iov_len(v, 3), 64);
			ck_assert_uint_eq(fs_iov_write(v, 3, 3, src, 50), 50);
			ck_assert_int_eq(memcmp(dst + 3, src, 50), 0);
			ck_assert_uint_eq(fs_iov_read(v, 3, 3, back, 50), 50);
			ck_assert_int_eq(memcmp(back, src, 50), 0);
			/* Past the end: only what is there. */
			ck_assert_uint_eq(fs_iov_read(v, 3, 60, back, 50), 4);

			struct iovec s[3];
			size_t got;
			unsigned k = fs_iov_slice(v, 3, 10, 40, s, 3, &got);
			ck_assert_uint_eq(got, 40);
			ck_assert_uint_eq(fs_iov_len(s, k), 40);
			ck_assert_ptr_eq(s[0].iov_base, dst + 10);
		}
	}
}
END_TEST

START_TEST(test_iov_slice_limits)
{
	uint8_t buf[30];
	struct iovec v[3] = { { buf, 10 }, { buf + 10, 10 }, { buf + 20, 10 } };
	struct iovec s[2];
	size_t got;

	/* Not enough entries: the slice is shorter, never overruns s[]. */
	unsigned k = fs_iov_slice(v, 3, 0, 30, s, 2, &got);
	ck_assert_uint_eq(k, 2);
	ck_assert_uint_eq(got, 20);
	/* Asking past the end. */
	k = fs_iov_slice(v, 3, 25, 30, s, 2, &got);
	ck_assert_uint_eq(k, 1);
	ck_assert_uint_eq(got, 5);
	k = fs_iov_slice(v, 3, 40, 5, s, 2, &got);
	ck_assert_uint_eq(k, 0);
	ck_assert_uint_eq(got, 0);
}
END_TEST

static Suite *p9wire_suite(void)
{
	Suite *s = suite_create("p9wire");
	TCase *tc = tcase_create("codec");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_little_endian_layout);
	tcase_add_test(tc, test_layout_asserts);
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_test(tc, test_get_past_end_every_width);
	tcase_add_test(tc, test_error_is_sticky);
	tcase_add_test(tc, test_string_longer_than_message);
	tcase_add_test(tc, test_qid_short);
	tcase_add_test(tc, test_str_copy_checks);
	tcase_add_test(tc, test_put_past_capacity);
	tcase_add_test(tc, test_put_string_too_long_for_u16);
	suite_add_tcase(s, tc);

	tc = tcase_create("iovec");
	tcase_add_test(tc, test_iov_split_anywhere);
	tcase_add_test(tc, test_iov_slice_limits);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(p9wire_suite());
}
