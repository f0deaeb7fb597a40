// SPDX-License-Identifier: GPL-2.0-only
/* The per-message trace line of the 9p server (see p9_trace.h). */
#include "fs/9p/p9_trace.h"

#include <stdio.h>

#include "fs/9p/p9_wire.h"
#include "fs/fs_log.h"

static const char *const names[] = {
	[P9_TSTATFS] = "Tstatfs", [P9_TLOPEN] = "Tlopen", [P9_TLCREATE] = "Tlcreate",
	[P9_TSYMLINK] = "Tsymlink", [P9_TMKNOD] = "Tmknod", [P9_TRENAME] = "Trename",
	[P9_TREADLINK] = "Treadlink", [P9_TGETATTR] = "Tgetattr", [P9_TSETATTR] = "Tsetattr",
	[P9_TXATTRWALK] = "Txattrwalk", [P9_TXATTRCREATE] = "Txattrcreate",
	[P9_TREADDIR] = "Treaddir", [P9_TFSYNC] = "Tfsync", [P9_TLOCK] = "Tlock",
	[P9_TGETLOCK] = "Tgetlock", [P9_TLINK] = "Tlink", [P9_TMKDIR] = "Tmkdir",
	[P9_TRENAMEAT] = "Trenameat", [P9_TUNLINKAT] = "Tunlinkat", [P9_TVERSION] = "Tversion",
	[P9_TAUTH] = "Tauth", [P9_TATTACH] = "Tattach", [P9_TFLUSH] = "Tflush",
	[P9_TWALK] = "Twalk", [P9_TOPEN] = "Topen", [P9_TCREATE] = "Tcreate",
	[P9_TREAD] = "Tread", [P9_TWRITE] = "Twrite", [P9_TCLUNK] = "Tclunk",
	[P9_TREMOVE] = "Tremove", [P9_TSTAT] = "Tstat", [P9_TWSTAT] = "Twstat",
};

static uint32_t le32(const uint8_t *b)
{
	return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

void p9_trace_head(const struct fs_req *req, struct p9_trace_head *h)
{
	uint8_t b[P9_HDRSZ + 4] = { 0 };
	size_t n = fs_iov_read(req->in, req->nin, 0, b, sizeof(b)); /* guest: a copy */

	h->type = b[4];
	h->fid = n == sizeof(b) && h->type != P9_TVERSION ? le32(b + P9_HDRSZ) : P9_NOFID;
}

void p9_trace_request(const struct p9_trace_head *h, const struct fs_req *req, int r,
		      uint64_t t0_us)
{
	uint8_t b[P9_HDRSZ + 4];
	char buf[16];
	const char *op = h->type < sizeof(names) / sizeof(names[0]) ? names[h->type] : NULL;
	int result = r;

	if (!op) {
		snprintf(buf, sizeof(buf), "type-%u", h->type);
		op = buf;
	}
	/* An Rlerror's ecode is the result; else the reply's length. */
	if (req && r >= (int)sizeof(b) &&
	    fs_iov_read(req->out, req->nout, 0, b, sizeof(b)) == sizeof(b) && b[4] == P9_RLERROR)
		result = -(int)le32(b + P9_HDRSZ);
	fs_log_request("9p", op, h->fid, result, fs_log_now_us() - t0_us);
}
