// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE handlers for directories: OPENDIR, READDIR, READDIRPLUS,
 * RELEASEDIR, FSYNCDIR. A READDIR(PLUS) seeks the handle's fd to the
 * client's offset (a getdents64 d_off cookie) and fills the whole reply in
 * one pass.
 *
 * Entries read from the host that did not fit stay with the handle (its
 * fuse_dir_rest), tagged with the offset the client will ask for next; the
 * handle's fd stands right after them. The next READDIR on that handle
 * that asks for that offset takes them and reads on without a seek;
 * any other offset seeks and reads afresh, so they can never be served
 * out of place. They belong to the handle, not to the serving thread, so
 * clients reading several directories at once (a guest's readers sharing
 * one queue, fuse-mount's readers taking turns) keep theirs: with one
 * buffer per thread every such switch dropped what was read and seeked
 * (bench-vhost readdirplus QD16: 16 handles on one queue; see the commit
 * that made them per handle for the figures).
 *
 * Read-ahead: a READDIR that stopped because its reply was full marks its
 * handle in the serving thread; when the transport next runs out of
 * requests it calls fuse_dir_read_ahead() (the server's idle work), which
 * tops the handle's buffer up from the host while the client is still
 * unpacking the reply. The next READDIR then only copies. Reading a large
 * directory is getdents64 on the host and the client's own parsing, one
 * after the other; this overlaps the two.
 *
 * Bounds: every handle's buffer is charged to one byte budget for the
 * whole process (fuse_dir_budget(), FUSE_DIR_BYTES): without it the
 * buffers were bounded only by the handle count (1,000 open handles: 62
 * MiB). A READDIR that would need a buffer past it gets ENOMEM. A buffer
 * is freed as soon as its directory has been read to the end, not only at
 * RELEASEDIR: a client that keeps directories open after listing them
 * pins nothing. Where the fd stands (resume_off) is the handle's, not the
 * buffer's, so a READDIR after the end reads on from there without a
 * seek, as one with a buffer would.
 */
#include "fs/fuse/fuse_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fs/resolve.h"
#include "fs/fuse/fuse_watch.h"

struct host_dirent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define DIR_REPLY_MAX (1u << 20)
/* The most a handle keeps: two replies' worth for the usual 32 KiB READDIR. */
#define DIR_BUF 65536

/* A directory handle's host entries read and not yet sent (see the top). */
struct fuse_dir_rest {
	uint32_t pos, len, cap; /* unsent entries: buf[pos, len) of cap */
	_Alignas(8) uint8_t buf[];
};

/* Bytes of every handle's buffer in the process, and the budget (0: FUSE_DIR_BYTES). */
static atomic_size_t dir_bytes, dir_budget;

size_t fuse_dir_budget(void)
{
	size_t b = atomic_load_explicit(&dir_budget, memory_order_relaxed);

	return b ? b : FUSE_DIR_BYTES;
}

void fuse_dir_set_budget(size_t bytes)
{
	atomic_store(&dir_budget, bytes);
}

size_t fuse_dir_bytes(void)
{
	return atomic_load_explicit(&dir_bytes, memory_order_relaxed);
}

static bool dir_charge(size_t n)
{
	size_t max = fuse_dir_budget(), used = atomic_load_explicit(&dir_bytes, memory_order_relaxed);

	do {
		if (n > max || used > max - n)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&dir_bytes, &used, used + n,
			memory_order_relaxed, memory_order_relaxed));
	return true;
}

void fuse_dir_rest_free(struct fuse_handle *h)
{
	if (!h->dir_rest)
		return;
	atomic_fetch_sub_explicit(&dir_bytes, sizeof(*h->dir_rest) + h->dir_rest->cap,
				  memory_order_relaxed);
	free(h->dir_rest);
	h->dir_rest = NULL;
}

/* The last READDIR on this thread, for read-ahead when it goes idle. */
static __thread struct {
	bool ahead;
	struct fuse_server *srv;
	uint64_t fh;
} dir_last;

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
	/* A listing no watch keeps fresh is not kept past this open. */
	if (fuse_watch_covering(c->srv->watch) && atomic_load(&c->ino->wd) <= 0)
		out.open_flags &= ~(uint32_t)FOPEN_KEEP_CACHE;
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
 * How much a handle keeps for a reply of this size: about two replies'
 * worth of host entries, one to send and one ahead, not more. A host
 * entry is about the size of a READDIR record and a fifth of a
 * READDIRPLUS one. The buffer lives as long as the handle (as a libc DIR
 * stream's does), so it is sized by what the client asks for, not by the
 * largest reply: a 4 KiB READDIRPLUS keeps 4 KiB.
 */
static uint32_t rest_cap(size_t reply, bool plus)
{
	size_t want = plus ? reply : 2 * reply;

	return want < 2048 ? 2048 : want > DIR_BUF ? DIR_BUF : (uint32_t)want;
}

/* h's buffer, made (or grown) for a reply of this size; NULL: past the budget or no memory. */
static struct fuse_dir_rest *dir_rest_get(struct fuse_handle *h, size_t reply, bool plus)
{
	uint32_t cap = rest_cap(reply, plus);
	struct fuse_dir_rest *dr = h->dir_rest;
	size_t had = dr ? sizeof(*dr) + dr->cap : 0, need = sizeof(*dr) + cap;

	if (dr && dr->cap >= cap)
		return dr;
	if (!dir_charge(need - had))
		return NULL;
	dr = realloc(dr, need);
	if (!dr) {
		atomic_fetch_sub_explicit(&dir_bytes, need - had, memory_order_relaxed);
		return NULL;
	}
	if (!h->dir_rest)
		*dr = (struct fuse_dir_rest){ 0 };
	dr->cap = cap;
	h->dir_rest = dr;
	return dr;
}

/*
 * Reads on from what the handle kept when the client asks for where it
 * stopped; otherwise seeks the fd and drops it. Returns 0 or -errno.
 */
static int dir_resume(struct fuse_dir_rest *dr, struct fuse_handle *h, uint64_t offset)
{
	if (h->dir_off >= 0 && h->dir_off == (int64_t)offset)
		return 0;
	dr->pos = dr->len = 0;
	h->dir_off = -1;
	if (lseek(h->fd, (off_t)offset, SEEK_SET) < 0)
		return -errno;
	h->dir_off = (int64_t)offset;
	return 0;
}

/*
 * Fills the reply at hl + *pos from dr and the host; sets *full when it
 * is, *end when the host said the directory ends here.
 */
static int dir_fill(struct fuse_call *c, struct fuse_handle *h, struct fuse_dir_rest *dr,
		    bool plus, size_t size, size_t *pos, bool *full, bool *end)
{
	const size_t hl = sizeof(struct fuse_out_header);
	_Alignas(8) uint8_t rec[sizeof(struct fuse_direntplus) + NAME_MAX + 8];

	while (!*full) {
		if (dr->pos == dr->len) {
			long n = syscall(SYS_getdents64, h->fd, dr->buf, dr->cap);

			dr->pos = dr->len = 0;
			*end = n == 0;
			if (n <= 0)
				return n < 0 && *pos == 0 ? -errno : 0;
			dr->len = (uint32_t)n;
		}
		while (dr->pos < dr->len) {
			const struct host_dirent *d = (const void *)(dr->buf + dr->pos);
			size_t namelen = strnlen(d->d_name, NAME_MAX + 1);
			size_t need = FUSE_DIRENT_ALIGN((plus ? FUSE_NAME_OFFSET_DIRENTPLUS
							      : FUSE_NAME_OFFSET) + namelen);

			if (namelen <= NAME_MAX) {
				/* Room first: a lookup must not be counted for nothing. */
				if (*pos + need > size) {
					*full = true;
					break;
				}
				size_t got = make_record(c->srv, h, plus, d, namelen, rec);
				fs_iov_write(c->req->out, c->req->nout, hl + *pos, rec, got);
				*pos += got;
			}
			h->dir_off = d->d_off;
			dr->pos += d->d_reclen;
		}
	}
	return 0;
}

static int do_readdir(struct fuse_call *c, bool plus)
{
	struct fuse_read_in in;
	size_t hl = sizeof(struct fuse_out_header), size, pos = 0;
	struct fuse_handle *h;
	struct fuse_dir_rest *dr;
	bool full = false, end = false;
	int r;

	memcpy(&in, c->arg, sizeof(in));
	if (in.offset > (uint64_t)INT64_MAX || c->outcap < hl)
		return -EINVAL;
	h = fuse_handle_get(&c->srv->ht, in.fh);
	if (!h)
		return -EBADF;
	/* A directory opened inside and moved out since lists nothing more. */
	r = S_ISDIR(h->inode->type) ? fs_dir_inside(&c->srv->root_id, h->fd) : -ENOTDIR;
	if (r) {
		fuse_handle_put(&c->srv->ht, h, &c->srv->it);
		return r;
	}
	size = in.size;
	if (size > c->outcap - hl)
		size = c->outcap - hl;
	if (size > DIR_REPLY_MAX)
		size = DIR_REPLY_MAX;
	pthread_mutex_lock(&h->dir_mu);
	dr = dir_rest_get(h, size, plus);
	r = dr ? dir_resume(dr, h, in.offset) : -ENOMEM;
	if (!r)
		r = dir_fill(c, h, dr, plus, size, &pos, &full, &end);
	if (r && dr)
		h->dir_off = -1;      /* where the fd stands is unknown now */
	if (end)
		fuse_dir_rest_free(h); /* read to the end: nothing left to keep */
	dir_last.ahead = !r && full;
	dir_last.srv = c->srv;
	dir_last.fh = in.fh;
	/* Asked again: names read while it was being moved out are not sent. */
	if (!r && (r = fs_dir_inside(&c->srv->root_id, h->fd)) < 0)
		fuse_dir_rest_free(h);
	if (!r)
		r = fuse_reply_hdr(c->req, c->h.unique, pos);
	pthread_mutex_unlock(&h->dir_mu);
	fuse_handle_put(&c->srv->ht, h, &c->srv->it);
	return r;
}

/* Under h->dir_mu: tops h's buffer up when half of it or more is sent. */
static bool dir_top_up(struct fuse_handle *h)
{
	struct fuse_dir_rest *dr = h->dir_rest;
	uint32_t rest;
	long n;

	if (!dr || h->dir_off < 0 || dr->len - dr->pos > dr->cap / 2)
		return false;
	rest = dr->len - dr->pos;
	memmove(dr->buf, dr->buf + dr->pos, rest);
	dr->pos = 0;
	dr->len = rest;
	n = syscall(SYS_getdents64, h->fd, dr->buf + rest, dr->cap - rest);
	if (n > 0)
		dr->len += (uint32_t)n;
	return true;
}

bool fuse_dir_read_ahead(struct fuse_server *s)
{
	struct fuse_handle *h;
	bool worked = false;

	if (!dir_last.ahead || dir_last.srv != s)
		return false;
	dir_last.ahead = false;
	h = fuse_handle_get(&s->ht, dir_last.fh);
	if (!h)
		return false;       /* released meanwhile */
	/* Busy means another thread reads it now: no need to read ahead. */
	if (pthread_mutex_trylock(&h->dir_mu) == 0) {
		worked = dir_top_up(h);
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
