/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The HTTP/1.1 request parser and reply writer of the API socket: strict
 * (CRLF line ends, one Content-Length, no chunked bodies, no obsolete line
 * folding) and bounded (8 KiB of request line and headers, 32 headers,
 * 64 KiB of body). It works on the bytes received so far and says whether
 * a request is complete, needs more bytes, or is refused with a status.
 */
#ifndef STAINLESS_CMD_HTTP_H
#define STAINLESS_CMD_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_HEAD_MAX    8192
#define HTTP_BODY_MAX    (64u * 1024)
#define HTTP_HEADERS_MAX 32
#define HTTP_PATH_MAX    256
#define HTTP_REQ_MAX     (HTTP_HEAD_MAX + HTTP_BODY_MAX)

/* http_parse's answer when the bytes so far are a good start. */
#define HTTP_MORE 1

struct http_req {
	char method[8];
	char path[HTTP_PATH_MAX];
	size_t head_len;          /* request line and headers, blank line included */
	size_t body_len;          /* Content-Length */
	const char *body;         /* into the caller's buffer, once complete */
	bool expect_continue;     /* "Expect: 100-continue": send 100 before the body */
	bool head_done;
};

/*
 * Parse buf[0..len). Returns 0 with r filled when a whole request is
 * there (head_len + body_len bytes), HTTP_MORE when more bytes are needed
 * (r->head_done tells whether the head was complete), or -EINVAL with
 * *status (400, 413, 431, 501, 505) and *why, a reason for the client.
 */
int http_parse(const char *buf, size_t len, struct http_req *r, int *status, const char **why);

const char *http_reason(int status);

/*
 * A whole reply into out: the status line, Content-Type and Length when
 * there is a body (a 204 has none), "Connection: close" (one request per
 * connection). Returns its length, or 0 when it does not fit.
 */
size_t http_reply(char *out, size_t size, int status, const char *body);

#endif
