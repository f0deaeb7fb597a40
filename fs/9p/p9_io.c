// SPDX-License-Identifier: GPL-2.0-only
/*
 * Open files and their data: Tlopen, Tlcreate, Tread, Twrite, Tfsync.
 *
 * Read and write payloads move straight between the transport's iovecs and
 * the file (preadv/pwritev on slices of req->in/req->out), with no copy
 * through the server, by fs/fs_io.h's ladder (which FUSE's READ and WRITE
 * take too): RWF_NOWAIT first, which succeeds when the page cache can
 * answer (about a microsecond here); only when it would block does the
 * request go to the transport's io_uring (t->async), or, without one, to
 * a plain blocking call.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "fs/fs_io.h"
#include "fs/9p/p9_impl.h"
#include "fs/resolve.h"

/* Enough for any real chain; a longer one gets a short read or write. */
#define P9_IOV_MAX 128

/* 9P2000.L open flags → host flags; -EINVAL for the NOACCESS mode. */
static int map_open_flags(uint32_t fl)
{
	int f;

	switch (fl & 3) {
	case P9_DOTL_RDONLY: f = O_RDONLY; break;
	case P9_DOTL_WRONLY: f = O_WRONLY; break;
	case P9_DOTL_RDWR: f = O_RDWR; break;
	default: return -EINVAL;
	}
	/*
	 * Left out on purpose: O_DIRECT (our buffers are not aligned; the
	 * guest's own cache mode decides caching), O_NONBLOCK/FASYNC (the
	 * server decides how to wait), O_NOATIME (EPERM for non-owners),
	 * O_NOCTTY, O_CLOEXEC (always set), O_NOFOLLOW (always set).
	 */
	if (fl & P9_DOTL_TRUNC)
		f |= O_TRUNC;
	if (fl & P9_DOTL_APPEND)
		f |= O_APPEND;
	if (fl & P9_DOTL_DSYNC)
		f |= O_DSYNC;
	if (fl & P9_DOTL_SYNC)
		f |= O_SYNC;
	if (fl & P9_DOTL_DIRECTORY)
		f |= O_DIRECTORY;
	if (fl & P9_DOTL_EXCL)
		f |= O_EXCL;
	return f;
}

static bool writes(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
}

static uint32_t iounit(const struct p9_session *s)
{
	return s->msize - P9_IOHDRSZ;
}

int p9_op_lopen(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t fid = p9_get_u32(&m->in);
	uint32_t fl = p9_get_u32(&m->in);
	struct p9_fid *f;
	struct p9_qid qid;
	struct stat st;
	int err = 0, flags, fd;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_file(s, fid, &err);
	if (!f)
		return err;
	if (f->ofd >= 0)
		return -EINVAL;
	flags = map_open_flags(fl);
	if (flags < 0)
		return flags;
	flags &= ~O_EXCL;
	if (writes(flags) && s->srv->opts.readonly)
		return -EROFS;
	/*
	 * Device nodes, fifos and sockets in a share are the guest kernel's to
	 * open; p9_reopen refuses them (checked on the fd itself).
	 */
	err = fs_fd_charge_to(s->fd_share);
	if (err)
		return err;
	fd = p9_reopen(s, f->pfd, flags);
	err = fd < 0 ? fd : p9_qid_of_fd(s, fd, &qid, &st);
	if (err) {
		if (fd >= 0)
			close(fd);
		fs_fd_refund_to(s->fd_share);
		return err;
	}
	f->ofd = fd;
	f->dir_next = 0;
	atomic_store(&f->nowait_off[0], FS_NOWAIT_UNKNOWN);
	atomic_store(&f->nowait_off[1], FS_NOWAIT_UNKNOWN);
	p9_put_qid(&m->out, &qid);
	p9_put_u32(&m->out, iounit(s));
	return 0;
}

int p9_op_lcreate(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t fid = p9_get_u32(&m->in);
	char name[NAME_MAX + 1];
	int err = p9_get_name(&m->in, name);
	uint32_t fl = p9_get_u32(&m->in);
	uint32_t mode = p9_get_u32(&m->in);
	uint32_t gid = p9_get_u32(&m->in);
	struct p9_fid *f;
	struct p9_qid qid;
	struct stat st;
	int flags, fd, pfd;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (err)
		return err;
	f = p9_fid_get_file(s, fid, &err);
	if (!f)
		return err;
	if (!S_ISDIR(f->mode))
		return -ENOTDIR;
	if (f->ofd >= 0)
		return -EINVAL;
	if (s->srv->opts.readonly)
		return -EROFS;
	err = p9_dir_inside(s, f->pfd);
	if (err)
		return err;
	flags = map_open_flags(fl);
	if (flags < 0)
		return flags;
	err = p9_creds_for(f->user, p9_create_gid(s, f->user, gid));
	if (err)
		return err;
	/*
	 * The new file's open fd and its pfd are both kept (the old pfd goes
	 * once they exist): charged before anything is created, so a spent
	 * fd budget refuses the request instead of leaving a file behind.
	 */
	err = fs_fd_charge_to(s->fd_share);
	if (err)
		return err;
	err = fs_fd_charge_to(s->fd_share);
	if (err) {
		fs_fd_refund_to(s->fd_share);
		return err;
	}
	bool created;
	fd = fs_create_beneath(s->srv->proc_fd, f->pfd, name, flags, mode & 07777,
			       flags & O_EXCL, &created);
	pfd = fd < 0 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	err = fd < 0 ? fd : pfd < 0 ? -errno : p9_qid_of_fd(s, fd, &qid, &st);
	if (err) {
		if (pfd >= 0)
			close(pfd);
		if (fd >= 0)
			close(fd);
		fs_fd_refund_to(s->fd_share);
		fs_fd_refund_to(s->fd_share);
		return err;
	}
	/* The fid now names the new, open file. */
	p9_fd_close(s, f->pfd);
	f->pfd = pfd;
	f->ofd = fd;
	f->mode = st.st_mode;
	f->dir_next = 0;
	atomic_store(&f->nowait_off[0], FS_NOWAIT_UNKNOWN);
	atomic_store(&f->nowait_off[1], FS_NOWAIT_UNKNOWN);
	p9_put_qid(&m->out, &qid);
	p9_put_u32(&m->out, iounit(s));
	return 0;
}

struct p9_aio {
	struct fs_aio aio;        /* first: the ladder hands it back */
	struct p9_aio *next;      /* s->aios: in flight, for Tflush */
	struct p9_session *s;
	struct fs_req *req;
	const struct fs_transport *t;
	uint16_t tag;
	bool is_write;
	struct fs_req *flush_req; /* a Tflush waiting for this I/O, or NULL */
	uint16_t flush_tag;
	unsigned niov;
	struct iovec iov[];
};
_Static_assert(offsetof(struct p9_aio, aio) == 0, "the ladder hands back the aio");

static size_t aio_cost(unsigned n)
{
	return sizeof(struct p9_aio) + n * sizeof(struct iovec);
}

static void aio_unlist(struct p9_aio *a)
{
	for (struct p9_aio **pp = &a->s->aios; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	}
}

static void aio_free(struct p9_aio *a)
{
	struct p9_session *s = a->s;
	size_t cost = aio_cost(a->niov);

	free(a);
	p9_mem_refund(s, cost);
}

/*
 * Runs on the transport's thread (the one calling p9_handle) when its
 * io_uring finished the I/O, so s->aios needs no lock. A Tflush that came
 * meanwhile is answered right after the reply it was waiting for.
 */
static void aio_done(struct fs_aio *fa, ssize_t result)
{
	struct p9_aio *a = (struct p9_aio *)fa;
	uint32_t len;

	aio_unlist(a);
	if (result < 0) {
		len = p9_reply_error(a->req, a->tag, (int)result);
	} else if (a->is_write) {
		uint8_t buf[P9_HDRSZ + 4];
		struct p9_wbuf w;
		p9_put_hdr(buf, sizeof(buf), P9_RWRITE, a->tag);
		p9_wbuf_init(&w, buf + P9_HDRSZ, 4);
		p9_put_u32(&w, (uint32_t)result);
		len = (uint32_t)fs_iov_write(a->req->out, a->req->nout, 0, buf, sizeof(buf));
	} else {
		uint8_t buf[P9_IOHDRSZ];
		struct p9_wbuf w;
		len = P9_IOHDRSZ + (uint32_t)result;
		p9_put_hdr(buf, len, P9_RREAD, a->tag);
		p9_wbuf_init(&w, buf + P9_HDRSZ, 4);
		p9_put_u32(&w, (uint32_t)result);
		fs_iov_write(a->req->out, a->req->nout, 0, buf, sizeof(buf));
	}
	a->t->complete(a->t->ctx, a->req, len);
	if (a->flush_req) {
		uint8_t buf[P9_HDRSZ];
		p9_put_hdr(buf, sizeof(buf), P9_RFLUSH, a->flush_tag);
		len = (uint32_t)fs_iov_write(a->flush_req->out, a->flush_req->nout, 0, buf, sizeof(buf));
		a->t->complete(a->t->ctx, a->flush_req, len);
	}
	aio_free(a);
}

/* Tflush of an I/O in flight: Rflush waits until that I/O has replied. */
int p9_aio_flush(struct p9_msg *m, uint16_t oldtag)
{
	for (struct p9_aio *a = m->s->aios; a; a = a->next) {
		if (a->tag == oldtag && !a->flush_req && m->t && m->t->complete) {
			a->flush_req = m->req;
			a->flush_tag = m->tag;
			return FS_REQ_DEFERRED;
		}
	}
	return 0;
}

struct io_call {
	struct p9_msg *m;
	bool is_write;
};

/* A record for an I/O going async; NULL past the byte budget (then it blocks). */
static struct fs_aio *aio_get(void *ctx, unsigned n)
{
	struct io_call *ic = ctx;
	struct p9_session *s = ic->m->s;
	struct p9_aio *a;

	if (p9_mem_charge(s, aio_cost(n)))
		return NULL;
	a = malloc(aio_cost(n));
	if (!a) {
		p9_mem_refund(s, aio_cost(n));
		return NULL;
	}
	*a = (struct p9_aio){
		.aio = { .done = aio_done, .iov = a->iov },
		.s = s, .req = ic->m->req, .t = ic->m->t, .tag = ic->m->tag,
		.is_write = ic->is_write, .niov = n,
	};
	/* Listed first: done() may run before submit_rw returns. */
	a->next = s->aios;
	s->aios = a;
	return &a->aio;
}

static void aio_put(void *ctx, struct fs_aio *fa)
{
	struct p9_aio *a = (struct p9_aio *)fa;

	aio_unlist(a);
	aio_free(a);
}

/*
 * The I/O itself, through fs/fs_io.h's ladder (a short count is the
 * answer). Returns 0 with *done bytes, -errno, or FS_REQ_DEFERRED
 * (aio_done replies later).
 */
static int do_io(struct p9_msg *m, bool is_write, struct p9_fid *f, struct iovec *v,
		 unsigned k, uint64_t off, size_t *done)
{
	struct io_call ic = { m, is_write };
	const struct fs_aio_alloc alloc = { aio_get, aio_put, &ic };
	struct fs_io io = {
		.is_write = is_write, .fd = f->ofd, .off = off, .iov = v, .n = k,
		.nowait_off = &f->nowait_off[is_write],
	};

	return fs_io_run(&io, m->t, &alloc, done);
}

/*
 * Tread's and Twrite's fid[4] offset[8] count[4]. *f is an open file, or
 * a fid of kind xkind (an xattr fid, whose offsets are its own).
 */
static int io_args(struct p9_msg *m, enum p9_fid_kind xkind, struct p9_fid **f,
		   uint64_t *off, uint32_t *count)
{
	uint32_t fid = p9_get_u32(&m->in);

	*off = p9_get_u64(&m->in);
	*count = p9_get_u32(&m->in);
	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	*f = p9_fid_get(m->s, fid);
	if (!*f)
		return -EBADF;
	if ((*f)->kind == xkind)
		return 0;
	if ((*f)->kind != P9_FID_FILE || (*f)->ofd < 0)
		return -EBADF;
	return *off > INT64_MAX ? -EINVAL : 0;
}

int p9_op_read(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	size_t outcap = fs_iov_len(m->req->out, m->req->nout), got;
	struct iovec v[P9_IOV_MAX];
	struct p9_fid *f;
	uint32_t count;
	uint64_t off;
	size_t n;
	unsigned k;
	int err;

	err = io_args(m, P9_FID_XREAD, &f, &off, &count);
	if (err)
		return err;
	if (f->kind == P9_FID_XREAD)
		return p9_xattr_read(m, f, off, count);
	if (count > s->msize - P9_IOHDRSZ)
		count = s->msize - P9_IOHDRSZ;
	if (outcap < P9_IOHDRSZ)
		return -ERANGE;
	if (count > outcap - P9_IOHDRSZ)
		count = (uint32_t)(outcap - P9_IOHDRSZ);
	k = fs_iov_slice(m->req->out, m->req->nout, P9_IOHDRSZ, count, v, P9_IOV_MAX, &got);
	n = 0;
	err = k ? do_io(m, false, f, v, k, off, &n) : 0;
	if (err)
		return err;    /* -errno, or FS_REQ_DEFERRED */
	uint8_t hdr[P9_IOHDRSZ];
	struct p9_wbuf w;
	m->direct_len = P9_IOHDRSZ + (uint32_t)n;
	p9_put_hdr(hdr, m->direct_len, P9_RREAD, m->tag);
	p9_wbuf_init(&w, hdr + P9_HDRSZ, 4);
	p9_put_u32(&w, (uint32_t)n);
	fs_iov_write(m->req->out, m->req->nout, 0, hdr, sizeof(hdr));
	return 0;
}

int p9_op_write(struct p9_msg *m)
{
	struct iovec v[P9_IOV_MAX];
	struct p9_fid *f;
	size_t got, n;
	uint32_t count;
	uint64_t off;
	unsigned k;
	int err;

	err = io_args(m, P9_FID_XWRITE, &f, &off, &count);
	if (err)
		return err;
	/* The payload is the rest of the message, exactly. */
	if ((uint64_t)count + P9_TWRITE_HDRSZ != m->size)
		return -EINVAL;
	if (f->kind == P9_FID_XWRITE)
		return p9_xattr_write(m, f, off, count);
	k = fs_iov_slice(m->req->in, m->req->nin, P9_TWRITE_HDRSZ, count, v, P9_IOV_MAX, &got);
	n = 0;
	err = k ? do_io(m, true, f, v, k, off, &n) : 0;
	if (err)
		return err;    /* -errno, or FS_REQ_DEFERRED */
	p9_put_u32(&m->out, (uint32_t)n);
	return 0;
}

int p9_op_fsync(struct p9_msg *m)
{
	uint32_t fid = p9_get_u32(&m->in);
	uint32_t datasync = p9_get_u32(&m->in);
	struct p9_fid *f;
	int err = 0;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_open(m->s, fid, &err);
	if (!f)
		return err;
	if ((datasync ? fdatasync(f->ofd) : fsync(f->ofd)) < 0)
		return -errno;
	return 0;
}
