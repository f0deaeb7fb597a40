// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd/http.c: the API socket's request parser. Whole requests, requests
 * arriving a byte at a time, and every malformed or oversized one refused
 * with its status (400, 413, 431, 501, 505) rather than waited on.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/http.h"
#include "tests/unit/check_main.h"

static struct http_req req;
static int status;
static const char *why;

static int parse(const char *s)
{
	status = 0;
	why = NULL;
	return http_parse(s, strlen(s), &req, &status, &why);
}

START_TEST(test_http_put_with_body)
{
	const char *s = "PUT /boot-source HTTP/1.1\r\nHost: localhost\r\n"
			"Content-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}";

	ck_assert_int_eq(parse(s), 0);
	ck_assert_str_eq(req.method, "PUT");
	ck_assert_str_eq(req.path, "/boot-source");
	ck_assert_uint_eq(req.body_len, 7);
	ck_assert(memcmp(req.body, "{\"a\":1}", 7) == 0);
	ck_assert_uint_eq(req.head_len + req.body_len, strlen(s));
}
END_TEST

START_TEST(test_http_get_without_headers)
{
	ck_assert_int_eq(parse("GET / HTTP/1.0\r\n\r\n"), 0);
	ck_assert_str_eq(req.path, "/");
	ck_assert_uint_eq(req.body_len, 0);
}
END_TEST

/* Every prefix of a good request is "more", never an error. */
START_TEST(test_http_byte_at_a_time)
{
	const char *s = "PUT /fs/data HTTP/1.1\r\ncontent-length: 2\r\nExpect: 100-continue\r\n\r\n{}";
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++) {
		int rc = http_parse(s, i, &req, &status, &why);

		ck_assert_msg(rc == HTTP_MORE, "prefix %zu: %d %s", i, rc, rc < 0 ? why : "");
	}
	ck_assert_int_eq(http_parse(s, n, &req, &status, &why), 0);
	ck_assert(req.expect_continue);
	ck_assert_str_eq(req.path, "/fs/data");
}
END_TEST

static const struct { const char *text; int status; } bad[] = {
	{ "GET /\r\n\r\n", 400 },
	{ "GET  / HTTP/1.1\r\n\r\n", 400 },
	{ "GET nopath HTTP/1.1\r\n\r\n", 400 },
	{ "GET / HTTP/2.0\r\n\r\n", 400 },
	{ "GET / HTTP/1.2\r\n\r\n", 505 },
	{ "GET / HTTX/1.1\r\n\r\n", 400 },
	{ "GET /?a=b HTTP/1.1\r\n\r\n", 400 },
	{ "GET /%2e HTTP/1.1\r\n\r\n", 400 },
	{ "LONGMETHOD / HTTP/1.1\r\n\r\n", 405 },
	{ "GET / HTTP/1.1\nHost: x\n\n", 400 },
	{ "GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400 },
	{ "GET / HTTP/1.1\r\n: empty\r\n\r\n", 400 },
	{ "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400 },
	{ "PUT / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400 },
	{ "PUT / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400 },
	{ "PUT / HTTP/1.1\r\nContent-Length:\r\n\r\n", 400 },
	{ "PUT / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", 400 },
	{ "PUT / HTTP/1.1\r\nContent-Length: 65537\r\n\r\n", 413 },
	{ "PUT / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413 },
	{ "PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501 },
	{ "PUT / HTTP/1.1\r\nExpect: something\r\n\r\n", 400 },
	{ "GET / HTTP/1.1\r\nA: b\x01\r\n\r\n", 400 },
};

START_TEST(test_http_malformed_refused)
{
	ck_assert_msg(parse(bad[_i].text) == -EINVAL, "accepted case %d", _i);
	ck_assert_msg(status == bad[_i].status, "case %d: status %d, want %d (%s)", _i, status,
		      bad[_i].status, why);
	ck_assert(why && *why);
}
END_TEST

START_TEST(test_http_head_bounded)
{
	static char s[HTTP_HEAD_MAX + 64];
	size_t n = (size_t)snprintf(s, sizeof(s), "GET / HTTP/1.1\r\nX: ");

	memset(s + n, 'a', sizeof(s) - n);
	ck_assert_int_eq(http_parse(s, sizeof(s), &req, &status, &why), -EINVAL);
	ck_assert_int_eq(status, 431);
}
END_TEST

START_TEST(test_http_header_count_bounded)
{
	static char s[4096];
	size_t n = (size_t)snprintf(s, sizeof(s), "GET / HTTP/1.1\r\n");

	for (int i = 0; i <= HTTP_HEADERS_MAX; i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "X%d: y\r\n", i);
	n += (size_t)snprintf(s + n, sizeof(s) - n, "\r\n");
	ck_assert_int_eq(http_parse(s, n, &req, &status, &why), -EINVAL);
	ck_assert_int_eq(status, 431);
}
END_TEST

START_TEST(test_http_reply_shapes)
{
	char out[512];
	size_t n;

	n = http_reply(out, sizeof(out), 204, NULL);
	ck_assert_uint_gt(n, 0);
	ck_assert(strncmp(out, "HTTP/1.1 204 No Content\r\n", 25) == 0);
	ck_assert(!strstr(out, "Content-Length"));
	n = http_reply(out, sizeof(out), 400, "{\"fault_message\":\"x\"}");
	ck_assert(strstr(out, "HTTP/1.1 400 Bad Request\r\n"));
	ck_assert(strstr(out, "Content-Length: 21\r\n"));
	ck_assert(strcmp(out + n - 21, "{\"fault_message\":\"x\"}") == 0);
	ck_assert_uint_eq(http_reply(out, 16, 200, "{}"), 0);
}
END_TEST

static Suite *http_suite(void)
{
	Suite *s = suite_create("api_http");
	TCase *tc = tcase_create("http");

	tcase_add_test(tc, test_http_put_with_body);
	tcase_add_test(tc, test_http_get_without_headers);
	tcase_add_test(tc, test_http_byte_at_a_time);
	tcase_add_loop_test(tc, test_http_malformed_refused, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_http_head_bounded);
	tcase_add_test(tc, test_http_header_count_bounded);
	tcase_add_test(tc, test_http_reply_shapes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(http_suite());
}
