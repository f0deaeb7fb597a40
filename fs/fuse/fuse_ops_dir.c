// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE handlers for directories: OPENDIR, READDIR, READDIRPLUS,
 * RELEASEDIR, FSYNCDIR. A READDIR(PLUS) seeks the handle's fd to the
 * client's offset (a getdents64 d_off cookie) and fills the whole reply in
 * one pass.
 *
 * Entries read from the host that did not fit are kept in the serving
 * thread's continuation buffer, tagged with the offset the client will ask
 * for next and a stamp, unique across the server, that the READDIR also
 * left on its handle. The next READDIR that finds both (the same handle,
 * nobody else reading it in between, a client reading on) starts from them
 * without a seek, exactly where the fd stands; anything else seeks and
 * reads afresh, so the buffer can never serve entries out of place. On a
 * 10,000-entry directory this saves a third of the getdents64 work and
 * every lseek.
 *
 * Read-ahead: a READDIR that stopped because its reply was full marks its
 * handle; when the transport next runs out of requests it calls
 * fuse_dir_read_ahead() (the server's idle work), which tops the buffer up from the host while the
 * client is still unpacking the reply, under the same conditions (the same
 * handle, still open, nobody reading it since). The next READDIR then only
 * copies. Reading a large directory is getdents64 on the host and the
 * client's own parsing, one after the other; this overlaps the two.
 */
#include "fs/fuse/fuse_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
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
/* Two replies' worth for the usual 32 KiB READDIR: one to send, one ahead. */
#define DIR_BUF 65536

/* One per serving thread: host entries read but not yet sent. */
struct dir_rest {
	uint64_t stamp;         /* also in the handle's dir_stamp while current */
	int64_t resume_off;     /* the offset a client reading on sends */
	uint32_t pos, len;      /* unsent entries: buf[pos, len) */
	bool ahead;             /* read ahead on ahead_fh when idle */
	struct fuse_server *ahead_srv;
	uint64_t ahead_fh;
	_Alignas(8) uint8_t buf[DIR_BUF];
};

static _Atomic uint64_t dir_stamps;  /* 0 is never handed out */
static pthread_key_t dir_rest_key;
static pthread_once_t dir_rest_once = PTHREAD_ONCE_INIT;

static void dir_rest_key_make(void)
{
	/* Freed when its thread ends (workers come and go with resets). */
	(void)pthread_key_create(&dir_rest_key, free);
}

/* This thread's buffer; made on first use when make is set, else NULL. */
static struct dir_rest *dir_rest_get(bool make)
{
	struct dir_rest *dr;

	pthread_once(&dir_rest_once, dir_rest_key_make);
	dr = pthread_getspecific(dir_rest_key);
	if (!dr && make && (dr = calloc(1, sizeof(*dr))) && pthread_setspecific(dir_rest_key, dr)) {
		free(dr);
		dr = NULL;
	}
	return dr;
}

int fuse_op_opendir(struct fuse_call *c)
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
	fd = fuse_reopen(c->srv, c->fd, O_RDONLY | O_DIRECTORY);
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
		 * which the client takes as "no attributes for this one". The
		 * names are looked up under the open directory itself: its
		 * inode's O_PATH fd may be out of the cache.
		 */
		if (!is_dot(d->d_name) &&
		    fuse_lookup_entry(s, h->inode, h->fd, d->d_name, &dp->entry_out) != 0)
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

/*
 * Takes the continuation if it belongs to this read (see the top of the
 * file); otherwise seeks the fd. Returns 0 or -errno.
 */
static int dir_resume(struct dir_rest *dr, const struct fuse_handle *h, uint64_t offset)
{
	if (dr->pos < dr->len && dr->stamp == h->dir_stamp && dr->resume_off == (int64_t)offset)
		return 0;
	dr->pos = dr->len = 0;
	return lseek(h->fd, (off_t)offset, SEEK_SET) < 0 ? -errno : 0;
}

/*
 * How much to ask getdents64 for when the buffer is empty: about what the
 * reply can hold, not the whole buffer. A host entry is about the size of
 * a READDIR record and a fifth of a READDIRPLUS one; reading far beyond
 * that is wasted whenever the next request on this thread is for another
 * handle (clients reading several directories at once, a queue shared by
 * many readers: the continuation then holds the wrong handle's entries and
 * is dropped). bench-vhost readdirplus at QD16 (16 handles on one queue)
 * read 64 KiB per 4 KiB reply before. Sequential reading loses nothing:
 * what was read and not sent stays in the continuation, and idle
 * read-ahead tops it up.
 */
static size_t fresh_read(size_t reply, bool plus)
{
	size_t want = plus ? reply / 2 : reply;

	return want < 1024 ? 1024 : want > DIR_BUF ? DIR_BUF : want;
}

static int do_readdir(struct fuse_call *c, bool plus)
{
	struct fuse_read_in in;
	size_t hl = sizeof(struct fuse_out_header), size, pos = 0;
	_Alignas(8) uint8_t rec[sizeof(struct fuse_direntplus) + NAME_MAX + 8];
	struct fuse_handle *h;
	struct dir_rest *dr;
	bool full = false;
	int r;

	memcpy(&in, c->arg, sizeof(in));
	if (in.offset > (uint64_t)INT64_MAX || c->outcap < hl)
		return -EINVAL;
	dr = dir_rest_get(true);
	if (!dr)
		return -ENOMEM;
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
	r = dir_resume(dr, h, in.offset);
	while (!r && !full) {
		if (dr->pos == dr->len) {
			long n = syscall(SYS_getdents64, h->fd, dr->buf, fresh_read(size, plus));

			if (n <= 0) {
				if (n < 0 && pos == 0)
					r = -errno;
				break;
			}
			dr->pos = 0;
			dr->len = (uint32_t)n;
		}
		while (dr->pos < dr->len) {
			const struct host_dirent *d = (const void *)(dr->buf + dr->pos);
			size_t namelen = strnlen(d->d_name, NAME_MAX + 1);
			size_t need = FUSE_DIRENT_ALIGN((plus ? FUSE_NAME_OFFSET_DIRENTPLUS
							      : FUSE_NAME_OFFSET) + namelen);

			if (namelen <= NAME_MAX) {
				/* Room first: a lookup must not be counted for nothing. */
				if (pos + need > size) {
					full = true;
					break;
				}
				size_t got = make_record(c->srv, h, plus, d, namelen, rec);
				fs_iov_write(c->req->out, c->req->nout, hl + pos, rec, got);
				pos += got;
				dr->resume_off = d->d_off;
			}
			dr->pos += d->d_reclen;
		}
	}
	dr->stamp = h->dir_stamp = atomic_fetch_add(&dir_stamps, 1) + 1;
	dr->ahead = !r && full;
	dr->ahead_srv = c->srv;
	dr->ahead_fh = in.fh;
	if (!r)
		r = fuse_reply_hdr(c->req, c->h.unique, pos);
	pthread_mutex_unlock(&h->dir_mu);
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	return r;
}

bool fuse_dir_read_ahead(struct fuse_server *s)
{
	struct dir_rest *dr;
	struct fuse_handle *h;
	bool worked = false;

	dr = dir_rest_get(false);
	if (!dr || !dr->ahead || dr->ahead_srv != s)
		return false;
	dr->ahead = false;
	h = fuse_handle_get(&s->ht, dr->ahead_fh);
	if (!h)
		return false;       /* released meanwhile */
	/* Busy means another thread reads it now: its stamp will differ anyway. */
	if (pthread_mutex_trylock(&h->dir_mu) == 0) {
		if (h->dir_stamp == dr->stamp && dr->len - dr->pos <= DIR_BUF / 2) {
			uint32_t rest = dr->len - dr->pos;
			long n;

			memmove(dr->buf, dr->buf + dr->pos, rest);
			dr->pos = 0;
			dr->len = rest;
			n = syscall(SYS_getdents64, h->fd, dr->buf + rest, DIR_BUF - rest);
			if (n > 0)
				dr->len += (uint32_t)n;
			worked = true;
		}
		pthread_mutex_unlock(&h->dir_mu);
	}
	fuse_handle_put(&s->ht, h, &s->it);
	return worked;
}

int fuse_op_readdir(struct fuse_call *c)
{
	return do_readdir(c, false);
}

int fuse_op_readdirplus(struct fuse_call *c)
{
	return do_readdir(c, true);
}

int fuse_op_releasedir(struct fuse_call *c)
{
	struct fuse_release_in in;

	memcpy(&in, c->arg, sizeof(in));
	int r = fuse_handle_release(&c->srv->ht, in.fh, &c->srv->it);
	return r ? r : fuse_reply(c, NULL, 0);
}

int fuse_op_fsyncdir(struct fuse_call *c)
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
