// SPDX-License-Identifier: GPL-2.0-only
/* Strict JSON reader and writer helpers (see json.h). */
#include "cmd/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct json_parser {
	struct json_doc *d;
	size_t pos;
};

static int perr(struct json_parser *p, const char *what)
{
	snprintf(p->d->err, sizeof(p->d->err), "invalid JSON at byte %zu: %s", p->pos, what);
	return -EINVAL;
}

static void skip_ws(struct json_parser *p)
{
	const char *t = p->d->text;

	while (p->pos < p->d->len && (t[p->pos] == ' ' || t[p->pos] == '\t' ||
				      t[p->pos] == '\n' || t[p->pos] == '\r'))
		p->pos++;
}

static int new_tok(struct json_parser *p, enum json_type type, unsigned *idx)
{
	struct json_doc *d = p->d;

	if (d->ntok >= JSON_TOKENS_MAX)
		return perr(p, "too many values (at most 512)");
	*idx = d->ntok++;
	d->tok[*idx] = (struct json_tok){ .type = (uint8_t)type, .start = (uint32_t)p->pos };
	return 0;
}

static int hex4(const char *s, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
	}
	*out = v;
	return 0;
}

/*
 * One escape at s (just after the backslash, n bytes left): its length in
 * the text, and the code point. Surrogate pairs must come whole.
 */
static int read_escape(const char *s, size_t n, unsigned *cp)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	unsigned lo;

	if (n < 1)
		return -EINVAL;
	if (s[0] != 'u') {
		e = strchr(from, s[0]);
		if (!e || !s[0])
			return -EINVAL;
		*cp = (unsigned char)to[e - from];
		return 1;
	}
	if (n < 5 || hex4(s + 1, cp) < 0)
		return -EINVAL;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return -EINVAL;
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 5;
	if (n < 11 || s[5] != '\\' || s[6] != 'u' || hex4(s + 7, &lo) < 0 ||
	    lo < 0xdc00 || lo > 0xdfff)
		return -EINVAL;
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 11;
}

static int parse_string(struct json_parser *p, unsigned *idx)
{
	const char *t = p->d->text;
	unsigned cp;
	int rc;

	p->pos++; /* the opening quote */
	if ((rc = new_tok(p, JSON_STRING, idx)) < 0)
		return rc;
	while (p->pos < p->d->len && t[p->pos] != '"') {
		unsigned char c = (unsigned char)t[p->pos];

		if (c < 0x20)
			return perr(p, "control character in a string");
		if (c == '\\') {
			rc = read_escape(t + p->pos + 1, p->d->len - p->pos - 1, &cp);
			if (rc < 0)
				return perr(p, "bad escape in a string");
			p->pos += (size_t)rc;
		}
		p->pos++;
	}
	if (p->pos >= p->d->len)
		return perr(p, "unterminated string");
	p->d->tok[*idx].len = (uint32_t)(p->pos - p->d->tok[*idx].start);
	p->pos++;
	return 0;
}

static size_t digits(struct json_parser *p)
{
	size_t n = 0;

	while (p->pos < p->d->len && p->d->text[p->pos] >= '0' && p->d->text[p->pos] <= '9') {
		p->pos++;
		n++;
	}
	return n;
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static int parse_number(struct json_parser *p, unsigned *idx)
{
	const char *t = p->d->text;
	size_t start = p->pos;
	int rc;

	if ((rc = new_tok(p, JSON_NUMBER, idx)) < 0)
		return rc;
	if (t[p->pos] == '-')
		p->pos++;
	if (p->pos < p->d->len && t[p->pos] == '0')
		p->pos++;
	else if (digits(p) == 0)
		return perr(p, "bad number");
	if (p->pos < p->d->len && t[p->pos] == '.') {
		p->pos++;
		if (digits(p) == 0)
			return perr(p, "bad number");
	}
	if (p->pos < p->d->len && (t[p->pos] == 'e' || t[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->d->len && (t[p->pos] == '+' || t[p->pos] == '-'))
			p->pos++;
		if (digits(p) == 0)
			return perr(p, "bad number");
	}
	p->d->tok[*idx].len = (uint32_t)(p->pos - start);
	return 0;
}

static int parse_word(struct json_parser *p, unsigned *idx)
{
	static const struct { const char *w; enum json_type t; } words[] = {
		{ "true", JSON_TRUE }, { "false", JSON_FALSE }, { "null", JSON_NULL },
	};

	for (unsigned i = 0; i < 3; i++) {
		size_t n = strlen(words[i].w);

		if (p->d->len - p->pos >= n && memcmp(p->d->text + p->pos, words[i].w, n) == 0) {
			int rc = new_tok(p, words[i].t, idx);

			if (rc < 0)
				return rc;
			p->d->tok[*idx].len = (uint32_t)n;
			p->pos += n;
			return 0;
		}
	}
	return perr(p, "expected a value");
}

static int parse_value(struct json_parser *p, unsigned depth);

/* Keys compared raw: two spellings of one key are refused by the caller's
 * unknown-field check or taken as the same field twice, never merged. */
static bool dup_key(const struct json_doc *d, unsigned obj, unsigned key)
{
	const struct json_tok *k = &d->tok[key];

	for (unsigned i = obj + 1; i < key; i = d->tok[i + 1].next)
		if (d->tok[i].len == k->len &&
		    memcmp(d->text + d->tok[i].start, d->text + k->start, k->len) == 0)
			return true;
	return false;
}

static int parse_container(struct json_parser *p, unsigned depth, bool is_obj)
{
	char close = is_obj ? '}' : ']';
	unsigned idx, key;
	int rc;

	if (depth >= JSON_DEPTH_MAX)
		return perr(p, "nested too deeply (at most 8 levels)");
	if ((rc = new_tok(p, is_obj ? JSON_OBJECT : JSON_ARRAY, &idx)) < 0)
		return rc;
	p->pos++;
	skip_ws(p);
	if (p->pos < p->d->len && p->d->text[p->pos] == close) {
		p->pos++;
		goto done;
	}
	for (;;) {
		skip_ws(p);
		if (is_obj) {
			if (p->pos >= p->d->len || p->d->text[p->pos] != '"')
				return perr(p, "expected a member name in quotes");
			if ((rc = parse_string(p, &key)) < 0)
				return rc;
			p->d->tok[key].next = key + 1;
			if (dup_key(p->d, idx, key))
				return perr(p, "duplicate member name");
			skip_ws(p);
			if (p->pos >= p->d->len || p->d->text[p->pos] != ':')
				return perr(p, "expected ':'");
			p->pos++;
		}
		if ((rc = parse_value(p, depth + 1)) < 0)
			return rc;
		skip_ws(p);
		if (p->pos < p->d->len && p->d->text[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->d->len && p->d->text[p->pos] == close) {
			p->pos++;
			break;
		}
		return perr(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
done:
	p->d->tok[idx].len = (uint32_t)(p->pos - p->d->tok[idx].start);
	p->d->tok[idx].next = p->d->ntok;
	return 0;
}

static int parse_value(struct json_parser *p, unsigned depth)
{
	unsigned idx;
	char c;
	int rc;

	skip_ws(p);
	if (p->pos >= p->d->len)
		return perr(p, "unexpected end");
	c = p->d->text[p->pos];
	if (c == '{' || c == '[')
		return parse_container(p, depth, c == '{');
	if (c == '"')
		rc = parse_string(p, &idx);
	else if (c == '-' || (c >= '0' && c <= '9'))
		rc = parse_number(p, &idx);
	else
		rc = parse_word(p, &idx);
	if (rc == 0)
		p->d->tok[idx].next = idx + 1;
	return rc;
}

int json_parse(struct json_doc *d, const char *text, size_t len)
{
	struct json_parser p = { .d = d };
	int rc;

	d->text = text;
	d->len = len;
	d->ntok = 0;
	d->err[0] = '\0';
	if (len > JSON_TEXT_MAX)
		return perr(&p, "document larger than 64 KiB");
	if ((rc = parse_value(&p, 0)) < 0)
		return rc;
	skip_ws(&p);
	if (p.pos != len)
		return perr(&p, "text after the value");
	return 0;
}

const char *json_type_name(enum json_type t)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
		[JSON_NUMBER] = "a number", [JSON_TRUE] = "a boolean", [JSON_FALSE] = "a boolean",
		[JSON_NULL] = "null",
	};

	return (unsigned)t <= JSON_NULL ? names[t] : "?";
}

static size_t put_utf8(unsigned cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

int json_str(const struct json_doc *d, unsigned i, char *buf, size_t size)
{
	const struct json_tok *t = &d->tok[i];
	const char *s = d->text + t->start;
	size_t n = 0;
	char u[4];

	if (t->type != JSON_STRING || size == 0)
		return -EINVAL;
	for (size_t k = 0; k < t->len; k++) {
		size_t w = 1;
		unsigned cp = (unsigned char)s[k];
		int adv = 0;

		if (s[k] == '\\') {
			/* json_parse checked every escape already. */
			adv = read_escape(s + k + 1, t->len - k - 1, &cp);
			if (adv < 0 || cp == 0)
				return -EINVAL;
			k += (size_t)adv;
			w = put_utf8(cp, u);
		} else {
			u[0] = s[k];
		}
		if (n + w >= size)
			return -E2BIG;
		memcpy(buf + n, u, w);
		n += w;
	}
	buf[n] = '\0';
	return 0;
}

bool json_str_eq(const struct json_doc *d, unsigned i, const char *s)
{
	char buf[256];

	return strlen(s) < sizeof(buf) && json_str(d, i, buf, sizeof(buf)) == 0 &&
	       strcmp(buf, s) == 0;
}

int json_u64(const struct json_doc *d, unsigned i, uint64_t *out)
{
	const struct json_tok *t = &d->tok[i];
	uint64_t v = 0;

	if (t->type != JSON_NUMBER)
		return -EINVAL;
	for (uint32_t k = 0; k < t->len; k++) {
		char c = d->text[t->start + k];

		if (c < '0' || c > '9')
			return -EINVAL; /* a sign, a fraction or an exponent */
		if (v > (UINT64_MAX - (uint64_t)(c - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(c - '0');
	}
	*out = v;
	return 0;
}

void json_out_init(struct json_out *o, char *buf, size_t size)
{
	*o = (struct json_out){ .buf = buf, .size = size };
	if (size)
		buf[0] = '\0';
}

static void out_bytes(struct json_out *o, const char *s, size_t n)
{
	if (o->full || o->len + n >= o->size) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

void json_out_raw(struct json_out *o, const char *s)
{
	out_bytes(o, s, strlen(s));
}

void json_out_fmt(struct json_out *o, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		o->full = true;
	else
		out_bytes(o, tmp, (size_t)n);
}

void json_out_str(struct json_out *o, const char *s)
{
	char esc[8];

	out_bytes(o, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			out_bytes(o, esc, 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			out_bytes(o, esc, 6);
		} else {
			out_bytes(o, s, 1);
		}
	}
	out_bytes(o, "\"", 1);
}
