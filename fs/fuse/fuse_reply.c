// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE server's one reply path and the helpers every handler uses to
 * read its arguments. Handlers (fuse_ops_*.c, fuse_lock.c) and the
 * dispatcher (fuse_server.c) call these; nothing here calls back up.
 */
#include "fs/fuse/fuse_int.h"

#include <errno.h>
#include <string.h>

#include "fs/resolve.h"

int fuse_reply_hdr(const struct fs_req *req, uint64_t unique, size_t payload)
{
	struct fuse_out_header oh = {
		.len = (uint32_t)(sizeof(oh) + payload),
		.unique = unique,
	};

	fs_iov_write(req->out, req->nout, 0, &oh, sizeof(oh));
	return (int)oh.len;
}

/* Every error leaves through here. */
int fuse_reply_err(const struct fs_req *req, size_t outcap, uint64_t unique, int err)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh),
		.error = err,
		.unique = unique,
	};

	if (outcap < sizeof(oh))
		return 0; /* nowhere to say it */
	fs_iov_write(req->out, req->nout, 0, &oh, sizeof(oh));
	return sizeof(oh);
}

int fuse_reply2(struct fuse_call *c, const void *a, size_t alen,
		const void *b, size_t blen)
{
	size_t hl = sizeof(struct fuse_out_header);

	if (c->outcap < hl || alen + blen > c->outcap - hl)
		return -EINVAL;
	if (alen)
		fs_iov_write(c->req->out, c->req->nout, hl, a, alen);
	if (blen)
		fs_iov_write(c->req->out, c->req->nout, hl + alen, b, blen);
	return fuse_reply_hdr(c->req, c->h.unique, alen + blen);
}

int fuse_reply(struct fuse_call *c, const void *data, size_t len)
{
	return fuse_reply2(c, data, len, NULL, 0);
}

int fuse_arg_str(struct fuse_call *c, uint32_t *off, const char **s, size_t *len)
{
	if (*off >= c->arglen)
		return -EINVAL;
	const char *p = (const char *)c->arg + *off;
	const char *nul = memchr(p, '\0', c->arglen - *off);

	if (!nul)
		return -EINVAL;
	*s = p;
	*len = (size_t)(nul - p);
	*off += (uint32_t)*len + 1;
	return 0;
}

int fuse_arg_name(struct fuse_call *c, uint32_t *off, const char **name)
{
	size_t len;
	int r = fuse_arg_str(c, off, name, &len);

	return r ? r : fs_name_check(*name, len);
}

int fuse_reopen(struct fuse_server *s, int fd, int flags)
{
	/* Only regular files and directories: fs_reopen checks fd's type. */
	return fs_reopen(s->proc_fd, fd, flags);
}

uint32_t fuse_open_flags_out(const struct fuse_server *s, bool dir)
{
	switch (s->opts.cache) {
	case FS_CACHE_NEVER:
	case FS_CACHE_METADATA:     /* data never cached: only attributes are */
		return dir ? 0 : FOPEN_DIRECT_IO;
	case FS_CACHE_ALWAYS:
		return dir ? (FOPEN_CACHE_DIR | FOPEN_KEEP_CACHE) : FOPEN_KEEP_CACHE;
	default:
		return 0;
	}
}
