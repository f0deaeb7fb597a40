// SPDX-License-Identifier: GPL-2.0-only
/*
 * Extended attributes: Txattrwalk and Txattrcreate, and the reads, writes
 * and clunk of the fids they make.
 *
 * 9P2000.L moves xattr values as file data: Txattrwalk fetches a value (or,
 * with an empty name, the name list) into a new fid that Tread then reads;
 * Txattrcreate turns a fid into a sink that Twrite fills and Tclunk
 * commits with setxattr. A size-0 create means removexattr, which is how
 * the Linux client expresses removal. Which names reach the host, and as
 * what, is fs_xattr.h's policy: names are translated at Txattrwalk and
 * Txattrcreate, lists after the host's listxattr. Values are buffered (at
 * most P9_XATTR_MAX, the kernel's own limit) so a fid never holds more
 * than it, and every buffer is charged to the session's byte budget until
 * its fid is clunked.
 *
 * The host calls go through /proc/self/fd/N: O_PATH fds are refused by
 * f*xattr, and the path form follows the magic link to the very inode the
 * fid holds.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "fs/fs_xattr.h"
#include "fs/9p/p9_impl.h"

static int get_xname(struct p9_rbuf *in, char *buf)
{
	struct p9_str s;
	int err;

	p9_get_str(in, &s);
	if (p9_rbuf_error(in))
		return -EPROTO;
	err = p9_str_copy(&s, buf, XATTR_NAME_MAX + 1);
	return err == -ENAMETOOLONG ? -ERANGE : err;
}

/* The host's name for a client's, in place (fs_xattr_to_host). */
static int host_xname(const struct p9_session *s, char name[XATTR_NAME_MAX + 1],
		      enum fs_xattr_use use)
{
	char host[XATTR_NAME_MAX + 1];
	int err = fs_xattr_to_host(name, use, s->srv->opts.xattr_map, host, sizeof(host));

	if (!err)
		memcpy(name, host, strlen(host) + 1);
	return err;
}

/*
 * Reads a value or list, sized first, retried if it grew in between. The
 * buffer is charged to the session's budget; *cost says how much.
 */
static int fetch(struct p9_session *s, const char *path, const char *name, uint8_t **out,
		 size_t *outlen, size_t *cost)
{
	for (int tries = 0; tries < 4; tries++) {
		ssize_t n = name[0] ? getxattr(path, name, NULL, 0) : listxattr(path, NULL, 0);
		size_t sz = n > 0 ? (size_t)n : 1;
		uint8_t *buf;
		int err;

		if (n < 0)
			return -errno;
		if ((size_t)n > P9_XATTR_MAX)
			return -E2BIG;
		err = p9_mem_charge(s, sz);
		if (err)
			return err;
		buf = malloc(sz);
		ssize_t got = !buf ? -1 : name[0] ? getxattr(path, name, buf, (size_t)n)
						  : listxattr(path, (char *)buf, (size_t)n);
		if (got >= 0) {
			*out = buf;
			*outlen = (size_t)got;
			*cost = sz;
			return 0;
		}
		err = buf ? -errno : -ENOMEM;
		free(buf);
		p9_mem_refund(s, sz);
		if (err != -ERANGE)
			return err;
	}
	return -ERANGE;
}

int p9_op_xattrwalk(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t fid = p9_get_u32(&m->in);
	uint32_t newfid = p9_get_u32(&m->in);
	char name[XATTR_NAME_MAX + 1], path[32];
	int err = get_xname(&m->in, name);
	struct p9_fid *f, *nf;
	uint8_t *buf = NULL;
	size_t len = 0, cost = 0;

	if (err)
		return err;
	f = p9_fid_get_file(s, fid, &err);
	if (!f)
		return err;
	if (newfid != fid && p9_fid_get(s, newfid))
		return -EEXIST;
	err = name[0] ? host_xname(s, name, FS_XATTR_GET) : 0;
	if (err)
		return err;
	p9_proc_path(f->pfd, path, sizeof(path));
	err = fetch(s, path, name, &buf, &len, &cost);
	if (err)
		return err;
	if (!name[0])  /* the client's view of the list, never longer: in place */
		len = (size_t)fs_xattr_list_from_host((char *)buf, len, s->srv->opts.xattr_map,
						      (char *)buf, len);
	err = p9_fid_newfid(s, f, fid, newfid, &nf);
	if (err) {
		free(buf);
		p9_mem_refund(s, cost);
		return err;
	}
	nf->kind = P9_FID_XREAD;
	nf->xbuf = buf;
	nf->xsize = len;
	nf->xcost = cost;
	p9_put_u64(&m->out, len);
	return 0;
}

int p9_op_xattrcreate(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t fid = p9_get_u32(&m->in);
	char name[XATTR_NAME_MAX + 1];
	int err = get_xname(&m->in, name);
	uint64_t size = p9_get_u64(&m->in);
	uint32_t flags = p9_get_u32(&m->in);
	struct p9_fid *f;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (err)
		return err;
	if (!name[0])
		return -EINVAL;
	err = host_xname(s, name, FS_XATTR_SET);
	if (err)
		return err;
	f = p9_fid_get_file(s, fid, &err);
	if (!f)
		return err;
	if (s->srv->opts.readonly)
		return -EROFS;
	if (flags & ~(P9_XATTR_CREATE | P9_XATTR_REPLACE))
		return -EINVAL;
	if (size > P9_XATTR_MAX)
		return -E2BIG;
	/* Pinned until Tclunk, so charged: a client holding many would grow us. */
	size_t cost = strlen(name) + 1 + (size ? size : 1);
	err = p9_mem_charge(s, cost);
	if (err)
		return err;
	f->xname = strdup(name);
	f->xbuf = malloc(size ? size : 1);
	if (!f->xname || !f->xbuf) {
		free(f->xname);
		free(f->xbuf);
		f->xname = NULL;
		f->xbuf = NULL;
		p9_mem_refund(s, cost);
		return -ENOMEM;
	}
	f->xcost = cost;
	f->kind = P9_FID_XWRITE;
	f->xsize = size;
	f->xfilled = 0;
	f->xflags = (int)flags;
	return 0;
}

int p9_xattr_read(struct p9_msg *m, struct p9_fid *f, uint64_t off, uint32_t count)
{
	size_t n = 0;

	if (off < f->xsize)
		n = f->xsize - off;
	if (n > count)
		n = count;
	if (n + 4 > p9_wbuf_left(&m->out))
		n = p9_wbuf_left(&m->out) >= 4 ? p9_wbuf_left(&m->out) - 4 : 0;
	p9_put_u32(&m->out, (uint32_t)n);
	uint8_t *dst = p9_put_reserve(&m->out, n);
	if (dst && n)
		memcpy(dst, f->xbuf + off, n);
	return 0;
}

int p9_xattr_write(struct p9_msg *m, struct p9_fid *f, uint64_t off, uint32_t count)
{
	if (off > f->xsize || count > f->xsize - off)
		return -ENOSPC;
	/* guest: the value is data, copied once into the fid's buffer */
	fs_iov_read(m->req->in, m->req->nin, P9_TWRITE_HDRSZ, f->xbuf + off, count);
	if (off + count > f->xfilled)
		f->xfilled = off + count;
	p9_put_u32(&m->out, count);
	return 0;
}

int p9_xattr_commit(struct p9_session *s, struct p9_fid *f)
{
	char path[32];

	if (f->xfilled != f->xsize)
		return -EINVAL;     /* clunked before the whole value was written */
	p9_proc_path(f->pfd, path, sizeof(path));
	if (f->xsize == 0)
		return removexattr(path, f->xname) < 0 ? -errno : 0;
	return setxattr(path, f->xname, f->xbuf, f->xsize, f->xflags) < 0 ? -errno : 0;
}
