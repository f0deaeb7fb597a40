/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small strict JSON (RFC 8259) reader for the API socket and the config
 * file, and the few writer helpers their replies need. The reader fills a
 * fixed token table: no allocation, a bounded nesting depth, one error
 * message naming the byte where the text stopped being JSON.
 *
 * Tokens are in document order. An object's members follow it as
 * key, value, key, value ...; every token records `next`, the index of
 * the first token after its whole subtree, so a caller skips a value in
 * one step:
 *	for (k = obj + 1; k < d->tok[obj].next; k = d->tok[k + 1].next)
 *		key k, value k + 1
 */
#ifndef STAINLESS_CMD_JSON_H
#define STAINLESS_CMD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_TOKENS_MAX 512
#define JSON_DEPTH_MAX  8
#define JSON_TEXT_MAX   (64u * 1024)

enum json_type { JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_NUMBER, JSON_TRUE, JSON_FALSE,
		 JSON_NULL };

struct json_tok {
	uint8_t type;       /* enum json_type */
	uint32_t start;     /* byte offset; a string's first byte after the quote */
	uint32_t len;       /* bytes; a string's raw (still escaped) length */
	uint32_t next;      /* index of the first token after this subtree */
};

struct json_doc {
	const char *text;
	size_t len;
	unsigned ntok;
	struct json_tok tok[JSON_TOKENS_MAX];
	char err[96];
};

/* Parse text[0..len) as one JSON value: 0, or -EINVAL with d->err set. */
int json_parse(struct json_doc *d, const char *text, size_t len);

const char *json_type_name(enum json_type t);

/*
 * A string token unescaped into buf (NUL-terminated). -E2BIG when it does
 * not fit, -EINVAL for a \u0000 (no NUL reaches a path or a tag).
 */
int json_str(const struct json_doc *d, unsigned i, char *buf, size_t size);
/* Whether string token i, unescaped, equals s. */
bool json_str_eq(const struct json_doc *d, unsigned i, const char *s);
/* A non-negative integer token (no fraction, no exponent) up to UINT64_MAX. */
int json_u64(const struct json_doc *d, unsigned i, uint64_t *out);

/* Output into a fixed buffer; once it overflows, `full` stays set. */
struct json_out {
	char *buf;
	size_t size, len;
	bool full;
};

void json_out_init(struct json_out *o, char *buf, size_t size);
void json_out_raw(struct json_out *o, const char *s);
void json_out_fmt(struct json_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a quoted JSON string, every control byte escaped. */
void json_out_str(struct json_out *o, const char *s);

#endif
