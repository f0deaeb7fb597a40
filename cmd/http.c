// SPDX-License-Identifier: GPL-2.0-only
/* HTTP/1.1 request parsing for the API socket (see http.h). */
#include "cmd/http.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int refuse(int *status, const char **why, int code, const char *reason)
{
	*status = code;
	*why = reason;
	return -EINVAL;
}

/* RFC 9110 tchar: what a method and a header name are made of. */
static bool is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static const char *find_crlf(const char *s, const char *end)
{
	for (const char *p = s; p + 1 < end; p++) {
		if (p[0] == '\r' && p[1] == '\n')
			return p;
		if (p[0] == '\n' || p[0] == '\r' || p[0] == '\0')
			return NULL; /* a bare LF or CR, or a NUL: not HTTP */
	}
	return NULL;
}

/* METHOD SP /path SP HTTP/1.x */
static int parse_request_line(const char *s, const char *eol, struct http_req *r,
			      int *status, const char **why)
{
	const char *sp1, *sp2, *p;
	size_t n;

	for (p = s; p < eol && is_tchar(*p); p++)
		;
	sp1 = p;
	n = (size_t)(sp1 - s);
	if (n == 0 || sp1 >= eol || *sp1 != ' ')
		return refuse(status, why, 400, "malformed request line");
	if (n >= sizeof(r->method))
		return refuse(status, why, 405, "unknown method");
	memcpy(r->method, s, n);
	r->method[n] = '\0';
	for (p = sp1 + 1; p < eol && *p > ' ' && *p < 0x7f; p++)
		;
	sp2 = p;
	n = (size_t)(sp2 - sp1 - 1);
	if (n == 0 || sp2 >= eol || *sp2 != ' ' || sp1[1] != '/')
		return refuse(status, why, 400, "malformed request target (expected /path)");
	if (n >= sizeof(r->path))
		return refuse(status, why, 400, "request path too long (at most 255 bytes)");
	memcpy(r->path, sp1 + 1, n);
	r->path[n] = '\0';
	if (strpbrk(r->path, "?#%"))
		return refuse(status, why, 400, "query strings, fragments and %-escapes are not supported");
	n = (size_t)(eol - sp2 - 1);
	if (n != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return refuse(status, why, 400, "malformed HTTP version");
	if (sp2[8] != '1' && sp2[8] != '0')
		return refuse(status, why, 505, "only HTTP/1.0 and HTTP/1.1");
	return 0;
}

static bool name_is(const char *name, size_t n, const char *want)
{
	return strlen(want) == n && strncasecmp(name, want, n) == 0;
}

static int parse_header(const char *s, const char *eol, struct http_req *r, bool *have_len,
			int *status, const char **why)
{
	const char *colon = s, *v, *ve;
	size_t n;

	while (colon < eol && is_tchar(*colon))
		colon++;
	if (colon == s || colon >= eol || *colon != ':')
		return refuse(status, why, 400, "malformed header line");
	n = (size_t)(colon - s);
	for (v = colon + 1; v < eol && (*v == ' ' || *v == '\t'); v++)
		;
	for (ve = eol; ve > v && (ve[-1] == ' ' || ve[-1] == '\t'); ve--)
		;
	for (const char *p = v; p < ve; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			return refuse(status, why, 400, "control character in a header value");
	if (name_is(s, n, "Content-Length")) {
		size_t len = 0;

		if (*have_len)
			return refuse(status, why, 400, "more than one Content-Length");
		if (v == ve)
			return refuse(status, why, 400, "empty Content-Length");
		for (const char *p = v; p < ve; p++) {
			if (*p < '0' || *p > '9')
				return refuse(status, why, 400, "Content-Length is not a number");
			if (len > HTTP_BODY_MAX)
				break; /* already too large; no overflow below */
			len = len * 10 + (size_t)(*p - '0');
		}
		if (len > HTTP_BODY_MAX)
			return refuse(status, why, 413, "request body larger than 64 KiB");
		r->body_len = len;
		*have_len = true;
	} else if (name_is(s, n, "Transfer-Encoding")) {
		return refuse(status, why, 501, "Transfer-Encoding is not supported; send Content-Length");
	} else if (name_is(s, n, "Expect")) {
		if ((size_t)(ve - v) != 12 || strncasecmp(v, "100-continue", 12) != 0)
			return refuse(status, why, 400, "unsupported Expect header");
		r->expect_continue = true;
	}
	return 0;
}

static const char *find_head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i + 3 < len; i++)
		if (memcmp(buf + i, "\r\n\r\n", 4) == 0)
			return buf + i;
	return NULL;
}

int http_parse(const char *buf, size_t len, struct http_req *r, int *status, const char **why)
{
	size_t scan = len < HTTP_HEAD_MAX ? len : HTTP_HEAD_MAX;
	const char *end = find_head_end(buf, scan), *line, *eol;
	bool have_len = false;
	unsigned nhdr = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!end) {
		/* Refuse garbage early, not only once 8 KiB have come. */
		eol = find_crlf(buf, buf + scan);
		if (!eol && memchr(buf, '\n', scan))
			return refuse(status, why, 400, "lines must end in CRLF");
		if (len >= HTTP_HEAD_MAX)
			return refuse(status, why, 431, "request line and headers larger than 8 KiB");
		return HTTP_MORE;
	}
	end += 2; /* the last header's CRLF; the blank line follows */
	eol = find_crlf(buf, end);
	if (!eol)
		return refuse(status, why, 400, "malformed request line");
	if ((rc = parse_request_line(buf, eol, r, status, why)) < 0)
		return rc;
	for (line = eol + 2; line < end; line = eol + 2) {
		eol = find_crlf(line, end);
		if (!eol)
			return refuse(status, why, 400, "lines must end in CRLF");
		if (*line == ' ' || *line == '\t')
			return refuse(status, why, 400, "folded header lines are not supported");
		if (++nhdr > HTTP_HEADERS_MAX)
			return refuse(status, why, 431, "more than 32 headers");
		if ((rc = parse_header(line, eol, r, &have_len, status, why)) < 0)
			return rc;
	}
	r->head_len = (size_t)(end - buf) + 2;
	r->head_done = true;
	if (len < r->head_len + r->body_len)
		return HTTP_MORE;
	r->body = buf + r->head_len;
	return 0;
}

const char *http_reason(int status)
{
	switch (status) {
	case 100: return "Continue";
	case 200: return "OK";
	case 204: return "No Content";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 413: return "Payload Too Large";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default:  return "Error";
	}
}

size_t http_reply(char *out, size_t size, int status, const char *body)
{
	int n;

	if (status == 204 || !body)
		n = snprintf(out, size, "HTTP/1.1 %d %s\r\nServer: stainless\r\n"
			     "Connection: close\r\n\r\n", status, http_reason(status));
	else
		n = snprintf(out, size, "HTTP/1.1 %d %s\r\nServer: stainless\r\n"
			     "Content-Type: application/json\r\nContent-Length: %zu\r\n"
			     "Connection: close\r\n\r\n%s", status, http_reason(status),
			     strlen(body), body);
	return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}
