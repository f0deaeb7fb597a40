/* SPDX-License-Identifier: GPL-2.0-only */
/* --log-level trace for FUSE: one line per request, as virtiofsd -d prints. */
#ifndef STAINLESS_FS_FUSE_FUSE_TRACE_H
#define STAINLESS_FS_FUSE_FUSE_TRACE_H

#include <stdint.h>

#include "fs/fs_req.h"

/* "LOOKUP", ...; "op-N" for a number the table does not name. */
const char *fuse_opcode_name(uint32_t opcode, char *buf, size_t len);

struct fuse_in_header;

/*
 * After the server handled a request (in: its header, copied before; r:
 * the server's return; t0_us: fs_log_now_us() before): the result from
 * the reply's header (its error, else the length). req NULL for a
 * deferred request, which is no longer ours to read.
 */
void fuse_trace_request(const struct fuse_in_header *in, const struct fs_req *req, int r,
			uint64_t t0_us);

#endif
