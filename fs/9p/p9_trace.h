/* SPDX-License-Identifier: GPL-2.0-only */
/* --log-level trace for 9p: one line per message, as for FUSE. */
#ifndef STAINLESS_FS_9P_P9_TRACE_H
#define STAINLESS_FS_9P_P9_TRACE_H

#include <stdint.h>

#include "fs/fs_req.h"

/* What a trace line needs of a T-message, copied before it is handled. */
struct p9_trace_head {
	uint8_t type;
	uint32_t fid;   /* the first field of most T-messages; P9_NOFID when short */
};

void p9_trace_head(const struct fs_req *req, struct p9_trace_head *h);
/* req NULL for a deferred message, which is no longer ours to read. */
void p9_trace_request(const struct p9_trace_head *h, const struct fs_req *req, int r,
		      uint64_t t0_us);

#endif
