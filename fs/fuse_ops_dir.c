// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE handlers for directories: OPENDIR, READDIR, READDIRPLUS,
 * RELEASEDIR, FSYNCDIR. A READDIR(PLUS) seeks the handle's fd to the
 * client's offset (a getdents64 d_off cookie) and fills the whole reply in
 * one pass; entries that did not fit are read again next time from the
 * last offset sent, so no per-handle cursor state can go stale.
 */
#include "fs/fuse_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fs/resolve.h"

struct host_dirent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define DIR_REPLY_MAX (1u << 20)

FUSE_OP(opendir)
{
	struct fuse_open_out out = { 0 };
	int fd, r;

	if (!S_ISDIR(c->ino->type))
		return -ENOTDIR;
	/*
	 * Reopened through /proc rather than openat(fd, "."): looking up "."
	 * would also demand search permission, which opendir(3) does not.
	 * The open is permission-checked as the caller.
	 */
	fd = fuse_reopen(c->srv, c->ino->fd, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	r = fuse_handle_add(&c->srv->ht, fd, O_RDONLY, c->ino, &out.fh);
	if (r)
		return r;
	out.open_flags = fuse_open_flags_out(c->srv, true);
	return fuse_reply(c, &out, sizeof(out));
}

static bool is_dot(const char *n)
{
	return n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0));
}

/* Builds one record in rec; returns its size. */
static size_t make_record(struct fuse_server *s, struct fuse_handle *h, bool plus,
			  const struct host_dirent *d, size_t namelen, uint8_t *rec)
{
	struct fuse_dirent *de;
	size_t size;

	if (plus) {
		struct fuse_direntplus *dp = (struct fuse_direntplus *)rec;

		size = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET_DIRENTPLUS + namelen);
		memset(rec, 0, size);
		/*
		 * A failed lookup (raced unlink, full table) sends nodeid 0,
		 * which the client takes as "no attributes for this one".
		 */
		if (!is_dot(d->d_name) &&
		    fuse_lookup_entry(s, h->inode, d->d_name, &dp->entry_out) != 0)
			memset(&dp->entry_out, 0, sizeof(dp->entry_out));
		de = &dp->dirent;
		de->ino = dp->entry_out.nodeid ? dp->entry_out.attr.ino : d->d_ino;
	} else {
		size = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
		memset(rec, 0, size);
		de = (struct fuse_dirent *)rec;
		de->ino = d->d_ino;
	}
	de->off = (uint64_t)d->d_off;
	de->namelen = (uint32_t)namelen;
	de->type = d->d_type;
	memcpy(de->name, d->d_name, namelen);
	return size;
}

static int do_readdir(struct fuse_call *c, bool plus)
{
	struct fuse_read_in in;
	size_t hl = sizeof(struct fuse_out_header), size, pos = 0;
	_Alignas(8) uint8_t dbuf[16384];
	_Alignas(8) uint8_t rec[sizeof(struct fuse_direntplus) + NAME_MAX + 8];
	struct fuse_handle *h;
	bool full = false;
	int r = 0;

	memcpy(&in, c->arg, sizeof(in));
	if (in.offset > (uint64_t)INT64_MAX || c->outcap < hl)
		return -EINVAL;
	h = fuse_handle_get(&c->srv->ht, in.fh);
	if (!h)
		return -EBADF;
	if (!S_ISDIR(h->inode->type)) {
		fuse_handle_put(&c->srv->ht, h, &c->srv->it);
		return -ENOTDIR;
	}
	size = in.size;
	if (size > c->outcap - hl)
		size = c->outcap - hl;
	if (size > DIR_REPLY_MAX)
		size = DIR_REPLY_MAX;
	pthread_mutex_lock(&h->dir_mu);
	if (lseek(h->fd, (off_t)in.offset, SEEK_SET) < 0) {
		r = -errno;
		goto out;
	}
	while (!full) {
		long n = syscall(SYS_getdents64, h->fd, dbuf, sizeof(dbuf));

		if (n < 0) {
			if (pos == 0)
				r = -errno;
			break;
		}
		if (n == 0)
			break;
		for (long i = 0; i < n;) {
			const struct host_dirent *d = (const void *)(dbuf + i);
			size_t namelen = strnlen(d->d_name, NAME_MAX + 1);
			size_t need = FUSE_DIRENT_ALIGN((plus ? FUSE_NAME_OFFSET_DIRENTPLUS
							      : FUSE_NAME_OFFSET) + namelen);

			i += d->d_reclen;
			if (namelen > NAME_MAX)
				continue;
			/* Check the room first: a lookup must not be counted for nothing. */
			if (pos + need > size) {
				full = true;
				break;
			}
			size_t got = make_record(c->srv, h, plus, d, namelen, rec);
			fuse_out_copy(c->req, hl + pos, rec, got);
			pos += got;
		}
	}
	if (!r)
		r = fuse_reply_hdr(c->req, c->h.unique, pos);
out:
	pthread_mutex_unlock(&h->dir_mu);
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	return r;
}

FUSE_OP(readdir)
{
	return do_readdir(c, false);
}

FUSE_OP(readdirplus)
{
	return do_readdir(c, true);
}

FUSE_OP(releasedir)
{
	struct fuse_release_in in;

	memcpy(&in, c->arg, sizeof(in));
	int r = fuse_handle_release(&c->srv->ht, in.fh, &c->srv->it);
	return r ? r : fuse_reply(c, NULL, 0);
}

FUSE_OP(fsyncdir)
{
	struct fuse_fsync_in in;
	struct fuse_handle *h;
	int r;

	memcpy(&in, c->arg, sizeof(in));
	h = fuse_handle_get(&c->srv->ht, in.fh);
	if (!h)
		return -EBADF;
	r = (in.fsync_flags & FUSE_FSYNC_FDATASYNC) ? fdatasync(h->fd) : fsync(h->fd);
	r = r < 0 ? -errno : fuse_reply(c, NULL, 0);
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	return r;
}
