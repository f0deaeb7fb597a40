// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: what `stainless exec`'s host side does with a guest's
 * control bytes (cmd/exec_wire.c, as cmd/exec_relay.c reads them): the
 * bytes arrive in pieces of sizes taken from the input, into a buffer of
 * EXEC_GUEST_FRAME_MAX bytes; each whole frame goes through
 * exec_guest_msg().
 *
 * Findings (abort): a frame reported longer than the bytes held, a frame
 * accepted whose type is not EXIT or ERROR, a status outside 0..255, a
 * message with a byte that is not printable ASCII or not NUL-ended, a
 * header that waits for more than the buffer can ever hold without being
 * refused by the relay's bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/exec_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FINDING(...) do { fprintf(stderr, "fuzz_exec: " __VA_ARGS__); abort(); } while (0)

static void check(const struct exec_frame *f, const struct exec_result *r)
{
	int st = exec_result_status(r);

	if (f->type != EXEC_EXIT && f->type != EXEC_ERROR)
		FINDING("type %u accepted\n", f->type);
	if (st < 0 || st > 255)
		FINDING("status %d\n", st);
	if (r->msg[EXEC_MSG_MAX] != '\0')
		FINDING("message not NUL-ended\n");
	for (size_t i = 0; r->msg[i]; i++)
		if (r->msg[i] < 0x20 || r->msg[i] > 0x7e)
			FINDING("unprintable byte 0x%02x in the message\n", (unsigned char)r->msg[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t buf[EXEC_GUEST_FRAME_MAX];
	size_t len = 0, i = 0;

	while (i < size) {
		size_t piece = data[i++] % 64 + 1;
		struct exec_frame f;
		struct exec_result r;
		const char *why;
		int got;

		if (piece > size - i)
			piece = size - i;
		if (len == sizeof(buf))
			return 0;   /* the relay's bound: a protocol error */
		if (piece > sizeof(buf) - len)
			piece = sizeof(buf) - len;
		memcpy(buf + len, data + i, piece);
		len += piece;
		i += piece;
		while ((got = exec_frame_next(buf, len, &f)) > 0) {
			if ((size_t)got > len || f.len != (size_t)got - EXEC_HDR)
				FINDING("frame of %d bytes from %zu held\n", got, len);
			if (exec_guest_msg(&f, &r, &why) == 0)
				check(&f, &r);
			else if (!why)
				FINDING("refused without a reason\n");
			memmove(buf, buf + got, len - (size_t)got);
			len -= (size_t)got;
		}
		if (got < 0)
			return 0;
	}
	return 0;
}
