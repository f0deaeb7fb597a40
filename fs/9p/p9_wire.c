// SPDX-License-Identifier: GPL-2.0-only
/* Bounds-checked 9P encoding and iovec helpers (see p9_wire.h). */
#include "fs/9p/p9_wire.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "fs/fs_req.h"

void p9_rbuf_init(struct p9_rbuf *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->pos = 0;
	r->err = false;
}

/* Returns a pointer to the next n bytes, or NULL (and latches) if short. */
static const uint8_t *take(struct p9_rbuf *r, size_t n)
{
	if (r->err || r->len - r->pos < n) {
		r->err = true;
		return NULL;
	}
	const uint8_t *p = r->p + r->pos;
	r->pos += n;
	return p;
}

/* Every 9P integer is little-endian: n bytes, or 0 (latched) if short. */
static uint64_t get_le(struct p9_rbuf *r, size_t n)
{
	const uint8_t *p = take(r, n);
	uint64_t v = 0;

	for (size_t i = n; p && i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

uint8_t p9_get_u8(struct p9_rbuf *r)
{
	return (uint8_t)get_le(r, 1);
}

uint16_t p9_get_u16(struct p9_rbuf *r)
{
	return (uint16_t)get_le(r, 2);
}

uint32_t p9_get_u32(struct p9_rbuf *r)
{
	return (uint32_t)get_le(r, 4);
}

uint64_t p9_get_u64(struct p9_rbuf *r)
{
	return get_le(r, 8);
}

void p9_get_str(struct p9_rbuf *r, struct p9_str *s)
{
	uint16_t len = p9_get_u16(r);
	const uint8_t *p = take(r, len);

	s->s = p ? (const char *)p : "";
	s->len = p ? len : 0;
}

void p9_get_qid(struct p9_rbuf *r, struct p9_qid *q)
{
	q->type = p9_get_u8(r);
	q->version = p9_get_u32(r);
	q->path = p9_get_u64(r);
}

size_t p9_rbuf_left(const struct p9_rbuf *r)
{
	return r->err ? 0 : r->len - r->pos;
}

int p9_rbuf_error(const struct p9_rbuf *r)
{
	return r->err ? -EPROTO : 0;
}

int p9_str_copy(const struct p9_str *s, char *buf, size_t bufsz)
{
	if (memchr(s->s, '\0', s->len))
		return -EINVAL;
	if ((size_t)s->len + 1 > bufsz)
		return -ENAMETOOLONG;
	memcpy(buf, s->s, s->len);
	buf[s->len] = '\0';
	return 0;
}

bool p9_str_eq(const struct p9_str *s, const char *c)
{
	size_t n = strlen(c);

	return n == s->len && memcmp(s->s, c, n) == 0;
}

void p9_wbuf_init(struct p9_wbuf *w, void *p, size_t cap)
{
	w->p = p;
	w->cap = cap;
	w->pos = 0;
	w->err = false;
}

void *p9_put_reserve(struct p9_wbuf *w, size_t n)
{
	if (w->err || w->cap - w->pos < n) {
		w->err = true;
		return NULL;
	}
	void *p = w->p + w->pos;
	w->pos += n;
	return p;
}

/* v as n little-endian bytes (nothing, latched, if they do not fit). */
static void put_le(struct p9_wbuf *w, uint64_t v, size_t n)
{
	uint8_t *p = p9_put_reserve(w, n);

	for (size_t i = 0; p && i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

void p9_put_u8(struct p9_wbuf *w, uint8_t v)
{
	put_le(w, v, 1);
}

void p9_put_u16(struct p9_wbuf *w, uint16_t v)
{
	put_le(w, v, 2);
}

void p9_put_u32(struct p9_wbuf *w, uint32_t v)
{
	put_le(w, v, 4);
}

void p9_put_u64(struct p9_wbuf *w, uint64_t v)
{
	put_le(w, v, 8);
}

void p9_put_str(struct p9_wbuf *w, const char *s, size_t len)
{
	if (len > UINT16_MAX) {
		w->err = true;
		return;
	}
	p9_put_u16(w, (uint16_t)len);
	uint8_t *p = p9_put_reserve(w, len);
	if (p && len)
		memcpy(p, s, len);
}

void p9_put_cstr(struct p9_wbuf *w, const char *s)
{
	p9_put_str(w, s, strlen(s));
}

void p9_put_qid(struct p9_wbuf *w, const struct p9_qid *q)
{
	p9_put_u8(w, q->type);
	p9_put_u32(w, q->version);
	p9_put_u64(w, q->path);
}

size_t p9_wbuf_left(const struct p9_wbuf *w)
{
	return w->err ? 0 : w->cap - w->pos;
}

int p9_wbuf_error(const struct p9_wbuf *w)
{
	return w->err ? -ENOSPC : 0;
}

void p9_put_hdr(void *buf, uint32_t size, uint8_t type, uint16_t tag)
{
	struct p9_wire_hdr h = {
		.size = htole32(size),
		.type = type,
		.tag = htole16(tag),
	};

	memcpy(buf, &h, sizeof(h));
}

/* Writes Rlerror into req->out; 0 when even that does not fit. */
uint32_t p9_reply_error(struct fs_req *req, uint16_t tag, int err)
{
	uint8_t buf[P9_HDRSZ + 4];
	struct p9_wbuf w;

	p9_put_hdr(buf, sizeof(buf), P9_RLERROR, tag);
	p9_wbuf_init(&w, buf + P9_HDRSZ, 4);
	p9_put_u32(&w, (uint32_t)-err);
	if (fs_iov_len(req->out, req->nout) < sizeof(buf))
		return 0;
	fs_iov_write(req->out, req->nout, 0, buf, sizeof(buf));
	return sizeof(buf);
}
