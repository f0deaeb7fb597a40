// SPDX-License-Identifier: GPL-2.0-only
/* `stainless exec`'s control frames (see exec_wire.h). */
#include "cmd/exec_wire.h"

#include <errno.h>
#include <string.h>

void exec_put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void exec_put_u32(uint8_t *p, uint32_t v)
{
	exec_put_u16(p, (uint16_t)v);
	exec_put_u16(p + 2, (uint16_t)(v >> 16));
}

void exec_put_u64(uint8_t *p, uint64_t v)
{
	exec_put_u32(p, (uint32_t)v);
	exec_put_u32(p + 4, (uint32_t)(v >> 32));
}

uint16_t exec_get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

uint32_t exec_get_u32(const uint8_t *p)
{
	return exec_get_u16(p) | (uint32_t)exec_get_u16(p + 2) << 16;
}

uint64_t exec_get_u64(const uint8_t *p)
{
	return exec_get_u32(p) | (uint64_t)exec_get_u32(p + 4) << 32;
}

int exec_frame_next(const uint8_t *buf, size_t n, struct exec_frame *f)
{
	size_t len;

	if (n < EXEC_HDR)
		return 0;
	if (buf[1] != 0)
		return -EPROTO;
	len = exec_get_u16(buf + 2);
	if (n - EXEC_HDR < len)
		return 0;
	f->type = buf[0];
	f->len = (uint16_t)len;
	f->data = buf + EXEC_HDR;
	return (int)(EXEC_HDR + len);
}

int exec_frame_put(uint8_t *buf, size_t cap, size_t *used, uint8_t type, const void *data,
		   size_t len)
{
	if (len > EXEC_LEN_MAX)
		return -E2BIG;
	if (*used > cap || cap - *used < EXEC_HDR + len)
		return -ENOSPC;
	buf += *used;
	buf[0] = type;
	buf[1] = 0;
	exec_put_u16(buf + 2, (uint16_t)len);
	if (len)
		memcpy(buf + EXEC_HDR, data, len);
	*used += EXEC_HDR + len;
	return 0;
}

static int bad(const char **why, const char *what)
{
	*why = what;
	return -EPROTO;
}

int exec_guest_msg(const struct exec_frame *f, struct exec_result *r, const char **why)
{
	const uint8_t *d = f->data; /* guest */

	memset(r, 0, sizeof(*r));
	switch (f->type) {
	case EXEC_EXIT:
		if (f->len != 2)
			return bad(why, "an EXIT frame that is not 2 bytes");
		if (d[0] == 0) {
			r->how = EXEC_EXITED;
		} else if (d[0] == 1) {
			if (d[1] < 1 || d[1] > 64)
				return bad(why, "an EXIT frame with a signal out of 1..64");
			r->how = EXEC_KILLED;
		} else {
			return bad(why, "an EXIT frame that is neither an exit nor a signal");
		}
		r->value = d[1];
		return 0;
	case EXEC_ERROR:
		if (f->len < 1 || f->len > 1 + EXEC_MSG_MAX)
			return bad(why, "an ERROR frame of a bad size");
		if (d[0] != 126 && d[0] != 127)
			return bad(why, "an ERROR frame whose code is not 126 or 127");
		r->how = EXEC_FAILED;
		r->value = d[0];
		for (unsigned i = 1; i < f->len; i++)
			r->msg[i - 1] = d[i] >= 0x20 && d[i] < 0x7f ? (char)d[i] : '?';
		return 0;
	}
	return bad(why, "a frame of a type the guest may not send");
}

int exec_result_status(const struct exec_result *r)
{
	return r->how == EXEC_KILLED ? 128 + r->value : r->value;
}
