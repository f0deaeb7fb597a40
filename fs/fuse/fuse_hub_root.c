// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hub's own answers (see fuse_hub.h): INIT and DESTROY for the whole
 * file system, requests that name several shares (INTERRUPT, BATCH_FORGET)
 * and the synthetic root: a read-only directory listing one entry per
 * attached share, each entry the root of that share's server.
 *
 * The root refuses what would change it (EACCES for names, EPERM for its
 * attributes) and answers the ops whose ENOSYS a Linux client would take
 * as "never again, on the whole connection" (xattrs, ACCESS, STATX,
 * FSYNCDIR) with what an empty directory would say, so the shares keep
 * them.
 */
#include "fs/fuse/fuse_hub_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fs/resolve.h"

#define HUB_ENTRY_VALID 1  /* s: how soon a client sees a detach by name */

static size_t outcap(const struct fs_req *req)
{
	return fs_iov_len(req->out, req->nout);
}

/* The payload after the header, or -EINVAL when out has no room for it. */
static int reply(const struct fs_req *req, uint64_t unique, const void *data, size_t len)
{
	size_t hl = sizeof(struct fuse_out_header);

	if (outcap(req) < hl || len > outcap(req) - hl)
		return fuse_reply_err(req, outcap(req), unique, -EINVAL);
	if (len)
		fs_iov_write(req->out, req->nout, hl, data, len);
	return fuse_reply_hdr(req, unique, len);
}

/* One request of our own making to a share (held), with a reply buffer of ours. */
static int share_synth(struct fuse_hub *h, struct hub_share *sh, const struct fuse_in_header *like,
		       uint32_t opcode, uint64_t nodeid, const void *arg, size_t arglen,
		       void *out, size_t outlen)
{
	struct fuse_in_header in = *like;
	struct iovec iv[2] = { { &in, sizeof(in) }, { (void *)arg, arglen } };
	struct iovec ov = { out, outlen };
	struct fs_req req = { .in = iv, .nin = arglen ? 2 : 1, .out = &ov, .nout = outlen ? 1 : 0 };

	in.len = (uint32_t)(sizeof(in) + arglen);
	in.opcode = opcode;
	in.nodeid = nodeid;
	in.total_extlen = 0;
	return hub_share_call(h, sh, &req, NULL);
}

static uint64_t share_root_id(const struct hub_share *sh)
{
	return (uint64_t)sh->key << FUSE_HUB_ID_SHIFT | FUSE_ROOT_ID;
}

int hub_init(struct fuse_hub *h, struct fs_req *req, const struct fs_transport *t)
{
	uint8_t out[sizeof(struct fuse_out_header) + sizeof(struct fuse_init_out)];
	struct iovec ov = { out, sizeof(out) };
	struct fs_req mine = { .in = req->in, .nin = req->nin, .out = &ov, .nout = 1 };
	struct fuse_out_header oh;
	struct fuse_in_header in;
	size_t total = fs_iov_len(req->in, req->nin);
	int r;

	fs_iov_read(req->in, req->nin, 0, &in, sizeof(in));
	pthread_mutex_lock(&h->init_mu);
	r = fuse_server_handle(h->probe, &mine, t);
	memcpy(&oh, out, sizeof(oh));
	if (r >= (int)sizeof(oh) && oh.error == 0 && r > (int)sizeof(oh)) {
		/* Kept for the shares: each hears it before its first request. */
		size_t len = total < sizeof(h->init_req) ? total : sizeof(h->init_req);

		fs_iov_read(req->in, req->nin, 0, h->init_req, len);
		in.len = (uint32_t)len;
		in.total_extlen = 0;
		memcpy(h->init_req, &in, sizeof(in));
		h->init_len = len;
		atomic_store(&h->initialized, true);
		for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX; i++)
			atomic_store(&h->pool[i].ready, false);
	}
	pthread_mutex_unlock(&h->init_mu);
	if (r <= 0)
		return r;
	if ((size_t)r > outcap(req))
		return fuse_reply_err(req, outcap(req), in.unique, -EINVAL);
	fs_iov_write(req->out, req->nout, 0, out, (size_t)r);
	return r;
}

int hub_destroy_op(struct fuse_hub *h, struct fs_req *req, const struct fs_transport *t)
{
	struct fuse_in_header in;

	fs_iov_read(req->in, req->nin, 0, &in, sizeof(in));
	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX; i++) {
		struct hub_share *sh = hub_share_get(&h->entries[i]);
		uint8_t out[sizeof(struct fuse_out_header)];

		if (!sh)
			continue;
		if (atomic_load(&sh->ready))
			(void)share_synth(h, sh, &in, FUSE_DESTROY, 0, NULL, 0, out, sizeof(out));
		hub_share_put(sh);
	}
	pthread_mutex_lock(&h->init_mu);
	h->init_len = 0;
	atomic_store(&h->initialized, false);
	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX; i++)
		atomic_store(&h->pool[i].ready, false);
	pthread_mutex_unlock(&h->init_mu);
	return fuse_server_handle(h->probe, req, t);
}

/* One FORGET to whichever share nodeid names (none: nothing to forget). */
static void forget_one(struct fuse_hub *h, const struct fuse_in_header *like, uint64_t nodeid,
		       uint64_t nlookup)
{
	struct fuse_forget_in fi = { .nlookup = nlookup };
	struct hub_share *sh = hub_share_get(&h->by_key[nodeid >> FUSE_HUB_ID_SHIFT]);

	if (!sh)
		return;
	(void)share_synth(h, sh, like, FUSE_FORGET, nodeid, &fi, sizeof(fi), NULL, 0);
	hub_share_put(sh);
}

int hub_fan_out(struct fuse_hub *h, struct fs_req *req, const struct fuse_in_header *in,
		size_t total)
{
	struct fuse_batch_forget_in bf = { 0 };
	size_t off = sizeof(*in) + sizeof(bf);

	if (in->opcode == FUSE_INTERRUPT) {
		/* Unique ids are the client's, so only the share that holds it acts. */
		for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX; i++) {
			struct hub_share *sh = hub_share_get(&h->entries[i]);

			if (sh) {
				if (atomic_load(&sh->ready))
					(void)hub_share_call(h, sh, req, NULL);
				hub_share_put(sh);
			}
		}
		return 0;
	}
	fs_iov_read(req->in, req->nin, sizeof(*in), &bf, sizeof(bf));
	for (uint32_t i = 0; i < bf.count && off + sizeof(struct fuse_forget_one) <= total; i++) {
		struct fuse_forget_one one;

		fs_iov_read(req->in, req->nin, off, &one, sizeof(one));
		off += sizeof(one);
		if (one.nodeid >> FUSE_HUB_ID_SHIFT)
			forget_one(h, in, one.nodeid, one.nlookup);
	}
	return 0;
}

static void root_attr(const struct fuse_hub *h, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = FUSE_ROOT_ID;
	a->mode = S_IFDIR | 0555;
	a->nlink = 2;
	a->uid = h->uid;
	a->gid = h->gid;
	a->blksize = 4096;
	a->atime = a->mtime = a->ctime = (uint64_t)h->made.tv_sec;
	a->atimensec = a->mtimensec = a->ctimensec = (uint32_t)h->made.tv_nsec;
}

static int root_getattr(struct fuse_hub *h, const struct fs_req *req, uint64_t unique)
{
	struct fuse_attr_out out = { .attr_valid = HUB_ENTRY_VALID };

	root_attr(h, &out.attr);
	return reply(req, unique, &out, sizeof(out));
}

static int root_statx(struct fuse_hub *h, const struct fs_req *req, uint64_t unique)
{
	struct fuse_statx_out out = { .attr_valid = HUB_ENTRY_VALID };
	struct fuse_attr a;
	struct fuse_statx *sx = &out.stat;

	root_attr(h, &a);
	sx->mask = STATX_BASIC_STATS;
	sx->blksize = a.blksize;
	sx->nlink = a.nlink;
	sx->uid = a.uid;
	sx->gid = a.gid;
	sx->mode = (uint16_t)a.mode;
	sx->ino = a.ino;
	sx->atime.tv_sec = sx->mtime.tv_sec = sx->ctime.tv_sec = (int64_t)a.mtime;
	sx->atime.tv_nsec = sx->mtime.tv_nsec = sx->ctime.tv_nsec = a.mtimensec;
	return reply(req, unique, &out, sizeof(out));
}

/* LOOKUP of a share's name: its server's root, which the client mounts apart. */
static int root_lookup(struct fuse_hub *h, const struct fs_req *req,
		       const struct fuse_in_header *in, const char *name)
{
	uint8_t out[sizeof(struct fuse_out_header) + sizeof(struct fuse_attr_out)];
	struct fuse_getattr_in gi = { 0 };
	struct fuse_entry_out e = { .entry_valid = HUB_ENTRY_VALID };
	struct fuse_out_header oh;
	struct fuse_attr_out ao;
	struct hub_share *sh = NULL;
	int r;

	if (fs_name_check(name, strlen(name)) < 0)
		return fuse_reply_err(req, outcap(req), in->unique,
				      !strcmp(name, "..") || !strcmp(name, ".") ? -EINVAL : -ENOENT);
	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX && !sh; i++) {
		sh = hub_share_get(&h->entries[i]);
		if (sh && strcmp(sh->name, name)) {
			hub_share_put(sh);
			sh = NULL;
		}
	}
	if (!sh)
		return fuse_reply_err(req, outcap(req), in->unique, -ENOENT);
	r = share_synth(h, sh, in, FUSE_GETATTR, share_root_id(sh), &gi, sizeof(gi), out, sizeof(out));
	e.nodeid = share_root_id(sh);
	hub_share_put(sh);
	memcpy(&oh, out, sizeof(oh));
	if (r < (int)sizeof(oh))
		return fuse_reply_err(req, outcap(req), in->unique, -EIO);
	if (oh.error)
		return fuse_reply_err(req, outcap(req), in->unique, oh.error);
	if (r != (int)sizeof(out))
		return fuse_reply_err(req, outcap(req), in->unique, -EIO);
	memcpy(&ao, out + sizeof(oh), sizeof(ao));
	e.attr_valid = ao.attr_valid;
	e.attr = ao.attr;
	e.attr.flags |= FUSE_ATTR_SUBMOUNT;
	return reply(req, in->unique, &e, sizeof(e));
}

/* Appends one entry (plus: with no entry_out, "not looked up") at *pos; false when full. */
static bool put_dirent(uint8_t *buf, size_t cap, size_t *pos, bool plus, uint64_t ino,
		       uint64_t off, const char *name)
{
	size_t namelen = strlen(name);
	size_t head = plus ? sizeof(struct fuse_entry_out) : 0;
	size_t size = head + FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
	struct fuse_dirent d = { .ino = ino, .off = off, .namelen = (uint32_t)namelen, .type = 4 };

	if (size > cap - *pos)
		return false;
	memset(buf + *pos, 0, size);
	memcpy(buf + *pos + head, &d, sizeof(d));
	memcpy(buf + *pos + head + FUSE_NAME_OFFSET, name, namelen);
	*pos += size;
	return true;
}

/* Offsets: 1 after ".", 2 after "..", 3 + i after entry i (stable across attaches). */
static int root_readdir(struct fuse_hub *h, const struct fs_req *req,
			const struct fuse_in_header *in, bool plus)
{
	struct fuse_read_in ri = { 0 };
	uint8_t buf[8192];
	size_t cap, pos = 0;
	bool room = true;

	fs_iov_read(req->in, req->nin, sizeof(*in), &ri, sizeof(ri));
	cap = ri.size < sizeof(buf) ? ri.size : sizeof(buf);
	if (outcap(req) < sizeof(struct fuse_out_header))
		return 0;
	if (cap > outcap(req) - sizeof(struct fuse_out_header))
		cap = outcap(req) - sizeof(struct fuse_out_header);
	if (ri.offset == 0)
		room = put_dirent(buf, cap, &pos, plus, FUSE_ROOT_ID, 1, ".");
	if (room && ri.offset <= 1)
		room = put_dirent(buf, cap, &pos, plus, FUSE_ROOT_ID, 2, "..");
	for (uint64_t i = ri.offset > 2 ? ri.offset - 2 : 0; room && i < FUSE_HUB_SHARES_MAX; i++) {
		struct hub_share *sh = hub_share_get(&h->entries[i]);

		if (!sh)
			continue;
		room = put_dirent(buf, cap, &pos, plus, (uint64_t)sh->key + 1, i + 3, sh->name);
		hub_share_put(sh);
	}
	return reply(req, in->unique, buf, pos);
}

static int root_statfs(const struct fs_req *req, uint64_t unique)
{
	struct fuse_statfs_out out = { .st = { .bsize = 4096, .frsize = 4096, .namelen = 255 } };

	return reply(req, unique, &out, sizeof(out));
}

static int root_listxattr(const struct fs_req *req, const struct fuse_in_header *in)
{
	struct fuse_getxattr_in gi = { 0 };
	struct fuse_getxattr_out out = { .size = 0 };

	fs_iov_read(req->in, req->nin, sizeof(*in), &gi, sizeof(gi));
	return gi.size ? reply(req, in->unique, NULL, 0) : reply(req, in->unique, &out, sizeof(out));
}

static int root_access(const struct fs_req *req, const struct fuse_in_header *in)
{
	struct fuse_access_in ai = { 0 };

	fs_iov_read(req->in, req->nin, sizeof(*in), &ai, sizeof(ai));
	return ai.mask & W_OK ? fuse_reply_err(req, outcap(req), in->unique, -EACCES)
			      : reply(req, in->unique, NULL, 0);
}

int hub_root_op(struct fuse_hub *h, struct fs_req *req, const struct fuse_in_header *in,
		size_t total)
{
	struct fuse_open_out oo = { 0 };
	char name[NAME_MAX + 2] = "";
	size_t arglen = total - sizeof(*in);
	int err;

	if (!atomic_load(&h->initialized))
		return in->opcode == FUSE_FORGET ? 0 : fuse_reply_err(req, outcap(req), in->unique, -EIO);
	switch (in->opcode) {
	case FUSE_FORGET:
		return 0;  /* the root is never forgotten */
	case FUSE_LOOKUP:
		if (arglen > NAME_MAX + 1)
			return fuse_reply_err(req, outcap(req), in->unique, -ENAMETOOLONG);
		fs_iov_read(req->in, req->nin, sizeof(*in), name, arglen);
		name[arglen] = 0;
		return root_lookup(h, req, in, name);
	case FUSE_GETATTR:
		return root_getattr(h, req, in->unique);
	case FUSE_STATX:
		return root_statx(h, req, in->unique);
	case FUSE_OPENDIR:
		return reply(req, in->unique, &oo, sizeof(oo));
	case FUSE_READDIR:
	case FUSE_READDIRPLUS:
		return root_readdir(h, req, in, in->opcode == FUSE_READDIRPLUS);
	case FUSE_RELEASEDIR:
	case FUSE_FSYNCDIR:
	case FUSE_SYNCFS:
	case FUSE_FLUSH:
		return reply(req, in->unique, NULL, 0);
	case FUSE_STATFS:
		return root_statfs(req, in->unique);
	case FUSE_ACCESS:
		return root_access(req, in);
	case FUSE_GETXATTR:
		err = -ENODATA;
		break;
	case FUSE_LISTXATTR:
		return root_listxattr(req, in);
	case FUSE_MKDIR: case FUSE_MKNOD: case FUSE_CREATE: case FUSE_SYMLINK: case FUSE_LINK:
	case FUSE_UNLINK: case FUSE_RMDIR: case FUSE_RENAME: case FUSE_RENAME2: case FUSE_TMPFILE:
		err = -EACCES;
		break;
	case FUSE_GETLK: case FUSE_SETLK: case FUSE_SETLKW:
		err = -ENOLCK;
		break;
	case FUSE_IOCTL: case FUSE_POLL: case FUSE_BMAP:
	case FUSE_SETUPMAPPING: case FUSE_REMOVEMAPPING:
		err = -ENOSYS;  /* what every share says too */
		break;
	default:
		err = -EPERM;
		break;
	}
	return fuse_reply_err(req, outcap(req), in->unique, err);
}
