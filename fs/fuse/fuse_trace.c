// SPDX-License-Identifier: GPL-2.0-only
/* The per-request trace line of the FUSE server (see fuse_trace.h). */
#include "fs/fuse/fuse_trace.h"

#include <linux/fuse.h>
#include <stdio.h>

#include "fs/fs_log.h"

static const char *const names[] = {
	[FUSE_LOOKUP] = "LOOKUP", [FUSE_FORGET] = "FORGET", [FUSE_GETATTR] = "GETATTR",
	[FUSE_SETATTR] = "SETATTR", [FUSE_READLINK] = "READLINK", [FUSE_SYMLINK] = "SYMLINK",
	[FUSE_MKNOD] = "MKNOD", [FUSE_MKDIR] = "MKDIR", [FUSE_UNLINK] = "UNLINK",
	[FUSE_RMDIR] = "RMDIR", [FUSE_RENAME] = "RENAME", [FUSE_LINK] = "LINK",
	[FUSE_OPEN] = "OPEN", [FUSE_READ] = "READ", [FUSE_WRITE] = "WRITE",
	[FUSE_STATFS] = "STATFS", [FUSE_RELEASE] = "RELEASE", [FUSE_FSYNC] = "FSYNC",
	[FUSE_SETXATTR] = "SETXATTR", [FUSE_GETXATTR] = "GETXATTR",
	[FUSE_LISTXATTR] = "LISTXATTR", [FUSE_REMOVEXATTR] = "REMOVEXATTR",
	[FUSE_FLUSH] = "FLUSH", [FUSE_INIT] = "INIT", [FUSE_OPENDIR] = "OPENDIR",
	[FUSE_READDIR] = "READDIR", [FUSE_RELEASEDIR] = "RELEASEDIR",
	[FUSE_FSYNCDIR] = "FSYNCDIR", [FUSE_GETLK] = "GETLK", [FUSE_SETLK] = "SETLK",
	[FUSE_SETLKW] = "SETLKW", [FUSE_ACCESS] = "ACCESS", [FUSE_CREATE] = "CREATE",
	[FUSE_INTERRUPT] = "INTERRUPT", [FUSE_BMAP] = "BMAP", [FUSE_DESTROY] = "DESTROY",
	[FUSE_IOCTL] = "IOCTL", [FUSE_POLL] = "POLL", [FUSE_NOTIFY_REPLY] = "NOTIFY_REPLY",
	[FUSE_BATCH_FORGET] = "BATCH_FORGET", [FUSE_FALLOCATE] = "FALLOCATE",
	[FUSE_READDIRPLUS] = "READDIRPLUS", [FUSE_RENAME2] = "RENAME2", [FUSE_LSEEK] = "LSEEK",
	[FUSE_COPY_FILE_RANGE] = "COPY_FILE_RANGE", [FUSE_SETUPMAPPING] = "SETUPMAPPING",
	[FUSE_REMOVEMAPPING] = "REMOVEMAPPING", [FUSE_SYNCFS] = "SYNCFS",
	[FUSE_TMPFILE] = "TMPFILE",
};

const char *fuse_opcode_name(uint32_t opcode, char *buf, size_t len)
{
	if (opcode < sizeof(names) / sizeof(names[0]) && names[opcode])
		return names[opcode];
	snprintf(buf, len, "op-%u", opcode);
	return buf;
}

void fuse_trace_request(const struct fuse_in_header *in, const struct fs_req *req, int r,
			uint64_t t0_us)
{
	struct fuse_out_header out;
	char buf[16];
	int result = r;

	if (req && r >= (int)sizeof(out) &&
	    fs_iov_read(req->out, req->nout, 0, &out, sizeof(out)) == sizeof(out) && out.error)
		result = out.error;
	fs_log_request("fuse", fuse_opcode_name(in->opcode, buf, sizeof(buf)), in->nodeid, result,
		       fs_log_now_us() - t0_us);
}
