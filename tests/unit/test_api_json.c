// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd/json.c: the strict JSON reader of the API socket and the config
 * file. Every RFC 8259 form it must take, every malformed text it must
 * refuse with the byte it stopped at, and its fixed budgets (depth,
 * tokens, size) holding.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/json.h"
#include "tests/unit/check_main.h"

static struct json_doc doc;

static int parse(const char *s)
{
	return json_parse(&doc, s, strlen(s));
}

START_TEST(test_json_object_walk)
{
	const char *s = " {\"a\": 1, \"b\": [true, false, null], \"c\": {\"d\": \"e\"}} ";
	unsigned k, n = 0;

	ck_assert_int_eq(parse(s), 0);
	ck_assert_int_eq(doc.tok[0].type, JSON_OBJECT);
	ck_assert_uint_eq(doc.tok[0].next, doc.ntok);
	for (k = 1; k < doc.tok[0].next; k = doc.tok[k + 1].next)
		n++;
	ck_assert_uint_eq(n, 3);
	ck_assert(json_str_eq(&doc, 1, "a"));
	ck_assert_int_eq(doc.tok[2].type, JSON_NUMBER);
	ck_assert(json_str_eq(&doc, 3, "b"));
	ck_assert_int_eq(doc.tok[4].type, JSON_ARRAY);
	ck_assert_uint_eq(doc.tok[4].next, 8);
	ck_assert_int_eq(doc.tok[5].type, JSON_TRUE);
	ck_assert_int_eq(doc.tok[7].type, JSON_NULL);
	ck_assert(json_str_eq(&doc, 8, "c"));
	ck_assert(json_str_eq(&doc, 11, "e"));
}
END_TEST

START_TEST(test_json_scalars_at_top)
{
	ck_assert_int_eq(parse("\"x\""), 0);
	ck_assert_int_eq(parse("0"), 0);
	ck_assert_int_eq(parse("-1.5e+3"), 0);
	ck_assert_int_eq(parse("[]"), 0);
	ck_assert_int_eq(parse("{}"), 0);
	ck_assert_uint_eq(doc.ntok, 1);
}
END_TEST

START_TEST(test_json_escapes)
{
	char buf[64];

	ck_assert_int_eq(parse("\"a\\\"b\\\\c\\/d\\n\\u00e9\\ud83d\\ude00\""), 0);
	ck_assert_int_eq(json_str(&doc, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "a\"b\\c/d\n\xc3\xa9\xf0\x9f\x98\x80");
	ck_assert_int_eq(json_str(&doc, 0, buf, 4), -E2BIG);
	/* A NUL never reaches a path. */
	ck_assert_int_eq(parse("\"a\\u0000b\""), 0);
	ck_assert_int_eq(json_str(&doc, 0, buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(test_json_integers)
{
	uint64_t v;

	ck_assert_int_eq(parse("18446744073709551615"), 0);
	ck_assert_int_eq(json_u64(&doc, 0, &v), 0);
	ck_assert(v == UINT64_MAX);
	ck_assert_int_eq(parse("18446744073709551616"), 0);
	ck_assert_int_eq(json_u64(&doc, 0, &v), -ERANGE);
	ck_assert_int_eq(parse("-1"), 0);
	ck_assert_int_eq(json_u64(&doc, 0, &v), -EINVAL);
	ck_assert_int_eq(parse("1.0"), 0);
	ck_assert_int_eq(json_u64(&doc, 0, &v), -EINVAL);
	ck_assert_int_eq(parse("1e3"), 0);
	ck_assert_int_eq(json_u64(&doc, 0, &v), -EINVAL);
}
END_TEST

static const char *const bad_texts[] = {
	"", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{'a':1}",
	"01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "True", "\"abc", "\"a\tb\"",
	"\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
	"1 2", "{}{}", "[1 2]", "{\"a\":1,\"a\":2}", "NaN", "Infinity", "\"\n\"",
};

START_TEST(test_json_malformed_refused)
{
	const char *s = bad_texts[_i];

	ck_assert_msg(parse(s) == -EINVAL, "accepted '%s'", s);
	ck_assert_msg(strstr(doc.err, "invalid JSON at byte"), "no position for '%s': %s", s,
		      doc.err);
}
END_TEST

START_TEST(test_json_depth_bounded)
{
	ck_assert_int_eq(parse("[[[[[[[[1]]]]]]]]"), 0);  /* 8 levels */
	ck_assert_int_eq(parse("[[[[[[[[[1]]]]]]]]]"), -EINVAL);
	ck_assert(strstr(doc.err, "nested too deeply"));
}
END_TEST

START_TEST(test_json_tokens_bounded)
{
	static char s[4096];
	size_t n = 0;

	s[n++] = '[';
	for (int i = 0; i < JSON_TOKENS_MAX; i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s0", i ? "," : "");
	s[n++] = ']';
	ck_assert_int_eq(json_parse(&doc, s, n), -EINVAL);
	ck_assert(strstr(doc.err, "too many values"));
}
END_TEST

START_TEST(test_json_size_bounded)
{
	static char s[JSON_TEXT_MAX + 2];

	memset(s, ' ', sizeof(s));
	s[0] = '0';
	ck_assert_int_eq(json_parse(&doc, s, sizeof(s)), -EINVAL);
	ck_assert(strstr(doc.err, "64 KiB"));
}
END_TEST

START_TEST(test_json_out_escapes_and_overflow)
{
	char buf[32];
	struct json_out o;

	json_out_init(&o, buf, sizeof(buf));
	json_out_str(&o, "a\"\\\n\x01");
	ck_assert(!o.full);
	ck_assert_str_eq(buf, "\"a\\\"\\\\\\u000a\\u0001\"");
	json_out_init(&o, buf, 8);
	json_out_str(&o, "0123456789");
	ck_assert(o.full);
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("api_json");
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, test_json_object_walk);
	tcase_add_test(tc, test_json_scalars_at_top);
	tcase_add_test(tc, test_json_escapes);
	tcase_add_test(tc, test_json_integers);
	tcase_add_loop_test(tc, test_json_malformed_refused, 0,
			    (int)(sizeof(bad_texts) / sizeof(bad_texts[0])));
	tcase_add_test(tc, test_json_depth_bounded);
	tcase_add_test(tc, test_json_tokens_bounded);
	tcase_add_test(tc, test_json_size_bounded);
	tcase_add_test(tc, test_json_out_escapes_and_overflow);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(json_suite());
}
