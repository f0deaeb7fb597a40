// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE passthrough server: request intake, dispatch and INIT/DESTROY; every
 * answer leaves through the one reply path in fuse_reply.c. Handlers live in fuse_ops_entry.c (names, attributes,
 * xattrs), fuse_ops_create.c (making and moving names), fuse_ops_file.c
 * (open files), fuse_ops_rw.c (READ/WRITE), fuse_ops_dir.c (directories)
 * and fuse_lock.c (locks, INTERRUPT).
 *
 * Answered with ENOSYS (the README lists these):
 *   BMAP (no block devices behind a passthrough), IOCTL, POLL, NOTIFY_REPLY
 *   (the server sends no notifications), CUSE_INIT, SETUPMAPPING and
 *   REMOVEMAPPING unless a device handed in DAX callbacks, the xattr ops
 *   unless the share has `xattr`, and any opcode not listed in ops[] below.
 * Refused on purpose: MKNOD of character/block devices other than the
 * overlayfs whiteout (0/0) unless the share has `devices` -- a guest must
 * not mint host device nodes -- and opening anything but a regular file
 * or a directory, in every op that opens (fs_reopen, fs_create_beneath):
 * FIFOs would block a queue, device nodes would reach host devices.
 */
#include "fs/fuse/fuse_int.h"
#include "fs/fuse/fuse_timed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"
#include "base/creds.h"
#include "fs/resolve.h"
#include "fs/fs_log.h"
#include "fs/fuse/fuse_trace.h"
#include "fs/fuse/fuse_watch.h"

bool fuse_server_io_uring(const struct fuse_server *s)
{
	return s->io_uring;
}

/* What INIT asks of the client for this share's options. */
static uint64_t init_wants(const struct fuse_server *s)
{
	const struct fs_options *o = &s->opts;
	uint64_t want = FUSE_ASYNC_READ | FUSE_ATOMIC_O_TRUNC | FUSE_BIG_WRITES |
			FUSE_ASYNC_DIO | FUSE_PARALLEL_DIROPS | FUSE_MAX_PAGES | FUSE_SUBMOUNTS;

	/* Locks are real unless the user gives them back to the client. */
	if (!o->no_posix_lock)
		want |= FUSE_POSIX_LOCKS;
	if (!o->no_flock)
		want |= FUSE_FLOCK_LOCKS;
	if (!o->no_killpriv_v2)
		want |= FUSE_HANDLE_KILLPRIV_V2;
	/*
	 * READDIRPLUS hands the client each entry's attributes, which it
	 * drops at once when they may not be cached (cache=never): then it
	 * is a lookup per entry for nothing (virtiofsd made the same call).
	 * The first READDIR of each listing is a READDIRPLUS otherwise, and
	 * cost more than the rest of a 10,000-entry listing together.
	 */
	if (o->cache != FS_CACHE_NEVER)
		want |= FUSE_AUTO_INVAL_DATA;
	if (o->readdirplus || (o->cache != FS_CACHE_NEVER && !o->no_readdirplus))
		want |= FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO;
	if (o->cache == FS_CACHE_ALWAYS)
		want |= FUSE_CACHE_SYMLINKS;
	/* The kernel refuses passthrough beside a writeback cache. */
	if (o->writeback && !o->readonly && !s->params.backing)
		want |= FUSE_WRITEBACK_CACHE;
	/* The client reads the ACL xattrs, which the xattr policy passes. */
	if (o->posix_acl && o->xattr)
		want |= FUSE_POSIX_ACL;
	/* With a DAX window, say mappings may be placed at any page. */
	if (s->params.dax)
		want |= FUSE_MAP_ALIGNMENT;
	/* dax=inode: which files to map is the server's call (fuse_dax_wanted). */
	if (s->params.dax && o->dax_mode == FS_DAX_INODE)
		want |= FUSE_HAS_INODE_DAX;
	return want;
}

static int fuse_op_init(struct fuse_call *c)
{
	struct fuse_server *s = c->srv;
	struct fuse_init_in in = { 0 };
	struct fuse_init_out out = { .major = FUSE_KERNEL_VERSION };

	memcpy(&in, c->arg, c->arglen < sizeof(in) ? c->arglen : sizeof(in));
	if (in.major > FUSE_KERNEL_VERSION)
		return fuse_reply(c, &out, sizeof(out)); /* kernel retries with 7 */
	if (in.major < FUSE_KERNEL_VERSION || in.minor < FUSE_MIN_MINOR)
		return -EPROTO;
	pthread_mutex_lock(&s->init_mu);
	if (atomic_load(&s->initialized)) {
		pthread_mutex_unlock(&s->init_mu);
		return -EIO; /* a second INIT needs a reset first */
	}
	uint64_t want = init_wants(s);
	/*
	 * Shared mmap of a direct-io file (cache=never) goes through the
	 * client's page cache like any other: nothing to refuse. Nodeids do
	 * not outlive the server, so the share is not NFS-exportable. With
	 * CREATE_SUPP_GROUP the client says which supplementary group a new
	 * file in a set-group-ID or group-owned directory takes
	 * (parse_extensions). HAS_EXPIRE_ONLY is not asked for: the
	 * notifications (fuse_watch.c) invalidate, never expire only.
	 */
	want |= FUSE_DIRECT_IO_ALLOW_MMAP | FUSE_NO_EXPORT_SUPPORT | FUSE_CREATE_SUPP_GROUP;
	uint64_t offered = in.flags;
	if (in.flags & FUSE_INIT_EXT)
		offered |= (uint64_t)in.flags2 << 32;
	if (s->params.io_uring)
		want |= FUSE_OVER_IO_URING;
	if (s->params.backing)
		want |= FUSE_PASSTHROUGH;
	if (want >> 32)
		want |= FUSE_INIT_EXT;      /* flags2 carries the high half */
	uint64_t got = want & offered;

	s->minor = in.minor < FUSE_OUR_MINOR ? in.minor : FUSE_OUR_MINOR;
	atomic_store(&s->kernel_minor, in.minor); /* which notifications it reads */
	fs_log(FS_LOG_DEBUG, "INIT: the client speaks FUSE 7.%u, served as 7.%u", in.minor, s->minor);
	s->submounts = got & FUSE_SUBMOUNTS;
	s->killpriv_v2 = got & FUSE_HANDLE_KILLPRIV_V2;
	s->writeback = got & FUSE_WRITEBACK_CACHE;
	s->posix_locks = got & FUSE_POSIX_LOCKS;
	s->flock_locks = got & FUSE_FLOCK_LOCKS;
	out.minor = s->minor;
	out.max_readahead = in.max_readahead;
	s->io_uring = got & FUSE_OVER_IO_URING;
	s->passthrough = got & FUSE_PASSTHROUGH;
	s->inode_dax = got & FUSE_HAS_INODE_DAX;
	/*
	 * The backing files' own stacking: a plain file system (depth 0).
	 * Depth 1 leaves this mount usable as an overlayfs layer; a share on
	 * overlayfs gets ELOOP from the kernel and is served the usual way.
	 */
	if (s->passthrough)
		FUSE_INIT_OUT_MAX_STACK_DEPTH(&out) = 1;
	else if (s->params.backing)
		fs_log(FS_LOG_WARN, "--passthrough: this kernel does not offer FUSE passthrough "
		       "(Linux 6.9+, CONFIG_FUSE_PASSTHROUGH); serving without it");
	out.flags = (uint32_t)got;
	out.flags2 = (uint32_t)(got >> 32);
	out.max_background = 64;
	out.congestion_threshold = 48;
	out.max_write = s->max_write;
	out.time_gran = 1;
	out.max_pages = (uint16_t)(s->max_write / 4096);
	if (got & FUSE_MAP_ALIGNMENT)
		out.map_alignment = 12; /* log2 of the page size */
	atomic_store(&s->initialized, true);
	pthread_mutex_unlock(&s->init_mu);
	return fuse_reply(c, &out, sizeof(out));
}

static int fuse_op_destroy(struct fuse_call *c)
{
	/* Other queues may still be draining; the tables are reference counted. */
	fuse_lock_cancel_all(c->srv);
	fuse_passthrough_forget_all(c->srv);
	fuse_htable_release_all(&c->srv->ht, &c->srv->it);
	fuse_itable_forget_all(&c->srv->it);
	atomic_store(&c->srv->initialized, false);
	return fuse_reply(c, NULL, 0);
}

enum {
	F_MOD = 1 << 0,     /* modifies the share: EROFS when readonly */
	F_CREDS = 1 << 1,   /* runs as the caller */
	F_NOREPLY = 1 << 2, /* the client expects no answer, even on error */
	F_NOINODE = 1 << 3, /* nodeid is not an inode of ours */
	F_NAMES = 1 << 4,   /* names in the directory nodeid: it must be inside the share */
};

struct fuse_op_desc {
	int (*fn)(struct fuse_call *c);
	uint32_t minarg;
	uint32_t flags;
};

static const struct fuse_op_desc ops[] = {
	[FUSE_INIT] = { fuse_op_init, 16, F_NOINODE },
	[FUSE_DESTROY] = { fuse_op_destroy, 0, F_NOINODE },
	[FUSE_LOOKUP] = { fuse_op_lookup, 2, F_CREDS | F_NAMES },
	[FUSE_FORGET] = { fuse_op_forget, sizeof(struct fuse_forget_in), F_NOREPLY | F_NOINODE },
	[FUSE_BATCH_FORGET] = { fuse_op_batch_forget, sizeof(struct fuse_batch_forget_in),
				F_NOREPLY | F_NOINODE },
	[FUSE_GETATTR] = { fuse_op_getattr, sizeof(struct fuse_getattr_in), 0 },
	[FUSE_SETATTR] = { fuse_op_setattr, sizeof(struct fuse_setattr_in), F_MOD | F_CREDS },
	[FUSE_READLINK] = { fuse_op_readlink, 0, 0 },
	[FUSE_SYMLINK] = { fuse_op_symlink, 4, F_MOD | F_CREDS | F_NAMES },
	[FUSE_MKNOD] = { fuse_op_mknod, sizeof(struct fuse_mknod_in) + 2, F_MOD | F_CREDS | F_NAMES },
	[FUSE_MKDIR] = { fuse_op_mkdir, sizeof(struct fuse_mkdir_in) + 2, F_MOD | F_CREDS | F_NAMES },
	[FUSE_UNLINK] = { fuse_op_unlink, 2, F_MOD | F_CREDS | F_NAMES },
	[FUSE_RMDIR] = { fuse_op_rmdir, 2, F_MOD | F_CREDS | F_NAMES },
	[FUSE_RENAME] = { fuse_op_rename, sizeof(struct fuse_rename_in) + 4, F_MOD | F_CREDS | F_NAMES },
	[FUSE_RENAME2] = { fuse_op_rename2, sizeof(struct fuse_rename2_in) + 4, F_MOD | F_CREDS | F_NAMES },
	[FUSE_LINK] = { fuse_op_link, sizeof(struct fuse_link_in) + 2, F_MOD | F_CREDS | F_NAMES },
	[FUSE_OPEN] = { fuse_op_open, sizeof(struct fuse_open_in), F_CREDS },
	[FUSE_CREATE] = { fuse_op_create, sizeof(struct fuse_create_in) + 2, F_MOD | F_CREDS | F_NAMES },
	[FUSE_TMPFILE] = { fuse_op_tmpfile, sizeof(struct fuse_create_in), F_MOD | F_CREDS | F_NAMES },
	[FUSE_READ] = { fuse_op_read, sizeof(struct fuse_read_in), F_NOINODE },
	[FUSE_WRITE] = { fuse_op_write, sizeof(struct fuse_write_in), F_MOD | F_NOINODE },
	[FUSE_STATFS] = { fuse_op_statfs, 0, 0 },
	[FUSE_RELEASE] = { fuse_op_release, sizeof(struct fuse_release_in), F_NOINODE },
	[FUSE_FLUSH] = { fuse_op_flush, sizeof(struct fuse_flush_in), F_NOINODE },
	[FUSE_FSYNC] = { fuse_op_fsync, sizeof(struct fuse_fsync_in), F_NOINODE },
	[FUSE_SETXATTR] = { fuse_op_setxattr, FUSE_COMPAT_SETXATTR_IN_SIZE + 2, F_MOD | F_CREDS },
	[FUSE_GETXATTR] = { fuse_op_getxattr, sizeof(struct fuse_getxattr_in) + 2, F_CREDS },
	[FUSE_LISTXATTR] = { fuse_op_listxattr, sizeof(struct fuse_getxattr_in), F_CREDS },
	[FUSE_REMOVEXATTR] = { fuse_op_removexattr, 2, F_MOD | F_CREDS },
	[FUSE_OPENDIR] = { fuse_op_opendir, sizeof(struct fuse_open_in), F_CREDS | F_NAMES },
	[FUSE_READDIR] = { fuse_op_readdir, sizeof(struct fuse_read_in), F_NOINODE },
	/* Its lookups run as the caller: no attributes past a missing x bit. */
	[FUSE_READDIRPLUS] = { fuse_op_readdirplus, sizeof(struct fuse_read_in), F_NOINODE | F_CREDS },
	[FUSE_RELEASEDIR] = { fuse_op_releasedir, sizeof(struct fuse_release_in), F_NOINODE },
	[FUSE_FSYNCDIR] = { fuse_op_fsyncdir, sizeof(struct fuse_fsync_in), F_NOINODE },
	[FUSE_GETLK] = { fuse_op_getlk, sizeof(struct fuse_lk_in), F_NOINODE },
	[FUSE_SETLK] = { fuse_op_setlk, sizeof(struct fuse_lk_in), F_NOINODE },
	[FUSE_SETLKW] = { fuse_op_setlkw, sizeof(struct fuse_lk_in), F_NOINODE },
	[FUSE_ACCESS] = { fuse_op_access, sizeof(struct fuse_access_in), F_CREDS },
	[FUSE_INTERRUPT] = { fuse_op_interrupt, sizeof(struct fuse_interrupt_in),
			     F_NOREPLY | F_NOINODE },
	[FUSE_FALLOCATE] = { fuse_op_fallocate, sizeof(struct fuse_fallocate_in), F_MOD | F_NOINODE },
	[FUSE_LSEEK] = { fuse_op_lseek, sizeof(struct fuse_lseek_in), F_NOINODE },
	[FUSE_COPY_FILE_RANGE] = { fuse_op_copy_file_range, sizeof(struct fuse_copy_file_range_in),
				   F_MOD | F_NOINODE },
	[FUSE_SETUPMAPPING] = { fuse_op_setupmapping, sizeof(struct fuse_setupmapping_in), 0 },
	[FUSE_REMOVEMAPPING] = { fuse_op_removemapping, sizeof(struct fuse_removemapping_in),
				 F_NOINODE },
	[FUSE_STATX] = { fuse_op_statx, sizeof(struct fuse_statx_in), 0 },
	[FUSE_SYNCFS] = { fuse_op_syncfs, sizeof(struct fuse_syncfs_in), 0 },
};

static int dispatch(struct fuse_call *c, const struct fuse_op_desc *d)
{
	struct fuse_server *s = c->srv;
	bool creds = false;
	int r;

	if (!(d->flags & F_NOINODE)) {
		c->ino = fuse_inode_get(&s->it, c->h.nodeid);
		if (!c->ino)
			return -ENOENT;
		/* Before the caller's credentials: a reopen by name searches as root. */
		r = fuse_inode_fd(&s->it, c->ino, &c->ino_fd);
		if (r)
			goto out;
		c->fd = c->ino_fd.fd;
		if ((d->flags & F_NAMES) && S_ISDIR(c->ino->type) &&
		    (r = fs_dir_inside(&s->root_id, c->fd)) < 0)
			goto out;
	}
	if ((d->flags & F_CREDS) && (c->h.uid || c->h.gid || c->ngroups)) {
		r = fs_creds_set(c->h.uid, c->h.gid, c->groups, c->ngroups);
		if (r) {
			fs_creds_reset();
			goto out;
		}
		creds = true;
	}
	r = d->fn(c);
	if (creds)
		fs_creds_reset();
out:
	if (c->fd >= 0)
		fuse_inode_fd_put(&c->ino_fd);
	if (c->ino)
		fuse_inode_put(&s->it, c->ino);
	return r;
}

/*
 * The request extensions after the arguments (total_extlen 8-byte words):
 * FUSE_EXT_GROUPS gives the caller's supplementary groups (Linux sends the
 * one that decides a new file's group); other types are skipped. -EINVAL
 * when the extension area is malformed or carries too many groups.
 */
static int parse_extensions(struct fuse_call *c, size_t off, size_t len)
{
	uint8_t ext[8 + 4 + 4 * FUSE_MAX_SUPP_GROUPS + 8];
	size_t pos = 0;

	if (len == 0)
		return 0;
	if (len > sizeof(ext))
		return -EINVAL;
	fs_iov_read(c->req->in, c->req->nin, off, ext, len); /* guest */
	while (pos + sizeof(struct fuse_ext_header) <= len) {
		struct fuse_ext_header eh;
		uint32_t nr;

		memcpy(&eh, ext + pos, sizeof(eh));
		if (eh.size < sizeof(eh) || eh.size % 8 || eh.size > len - pos)
			return -EINVAL;
		if (eh.type == FUSE_EXT_GROUPS) {
			if (eh.size < sizeof(eh) + sizeof(nr))
				return -EINVAL;
			memcpy(&nr, ext + pos + sizeof(eh), sizeof(nr));
			if (nr > FUSE_MAX_SUPP_GROUPS ||
			    sizeof(eh) + sizeof(nr) + 4 * (size_t)nr > eh.size)
				return -EINVAL;
			memcpy(c->groups, ext + pos + sizeof(eh) + sizeof(nr), 4 * (size_t)nr);
			c->ngroups = nr;
		}
		pos += eh.size;
	}
	return pos == len ? 0 : -EINVAL;
}

static int handle(struct fuse_server *s, struct fs_req *req, const struct fs_transport *t)
{
	struct fuse_call c = { .srv = s, .req = req, .t = t, .fd = -1 };
	uint8_t stackbuf[4096];
	uint8_t *heap = NULL;
	size_t total = fs_iov_len(req->in, req->nin);
	const struct fuse_op_desc *d = NULL;
	int r;

	c.outcap = fs_iov_len(req->out, req->nout);
	if (total < sizeof(c.h) || fs_iov_read(req->in, req->nin, 0, &c.h, sizeof(c.h)) != sizeof(c.h))
		return fuse_reply_err(req, c.outcap, 0, -EINVAL);
	if (c.h.opcode < sizeof(ops) / sizeof(ops[0]) && ops[c.h.opcode].fn)
		d = &ops[c.h.opcode];
	if (c.h.len != total || (size_t)c.h.total_extlen * 8 > total - sizeof(c.h)) {
		r = -EINVAL;
		goto done;
	}
	/* Not one host call for a client with more than a passthrough needs. */
	r = fs_caps_limit_once();
	if (r)
		goto done;
	if (!d) {
		r = -ENOSYS;
		goto done;
	}
	if (!atomic_load_explicit(&s->initialized, memory_order_acquire) &&
	    c.h.opcode != FUSE_INIT) {
		r = -EIO;
		goto done;
	}
	c.arglen = (uint32_t)(total - sizeof(c.h) - (size_t)c.h.total_extlen * 8);
	if (c.arglen < d->minarg) {
		r = -EINVAL;
		goto done;
	}
	if ((d->flags & F_MOD) && s->opts.readonly) {
		r = -EROFS;
		goto done;
	}
	/* WRITE data stays in req->in; pwritev takes it from there. */
	size_t copy = c.h.opcode == FUSE_WRITE ? sizeof(struct fuse_write_in) : c.arglen;
	if (copy > FUSE_ARG_MAX) {
		r = -EINVAL;
		goto done;
	}
	uint8_t *buf = stackbuf;
	if (copy + 1 > sizeof(stackbuf)) {
		heap = malloc(copy + 1);
		if (!heap) {
			r = -ENOMEM;
			goto done;
		}
		buf = heap;
	}
	fs_iov_read(req->in, req->nin, sizeof(c.h), buf, copy);
	buf[copy] = 0;
	c.arg = buf;
	r = parse_extensions(&c, sizeof(c.h) + c.arglen, (size_t)c.h.total_extlen * 8);
	if (r == 0)
		r = dispatch(&c, d);
	free(heap);
done:
	if (r == FS_REQ_DEFERRED)
		return FS_REQ_DEFERRED;
	if (d && (d->flags & F_NOREPLY))
		return 0;
	if (r < 0)
		return fuse_reply_err(req, c.outcap, c.h.unique, r);
	return r;
}

/* --log-level trace: apart, so that the untraced path carries none of it. */
__attribute__((noinline))
static int handle_traced(struct fuse_server *s, struct fs_req *req, const struct fs_transport *t)
{
	struct fuse_in_header h = { 0 };
	uint64_t t0;
	int r;

	/* Before: a deferred request may be finished and freed by another thread. */
	fs_iov_read(req->in, req->nin, 0, &h, sizeof(h));
	t0 = fs_log_now_us();
	r = handle(s, req, t);
	fuse_trace_request(&h, r == FS_REQ_DEFERRED ? NULL : req, r, t0);
	return r;
}

/* On this thread, whatever the device: the inline path, and fuse_timed's helpers. */
static int handle_here(struct fuse_server *s, struct fs_req *req, const struct fs_transport *t)
{
	if (fs_log_tracing())
		return handle_traced(s, req, t);
	return handle(s, req, t);
}

int fuse_server_handle(struct fuse_server *s, struct fs_req *req,
		       const struct fs_transport *t)
{
	int r;

	/* A request that may wait for a host file system gets a deadline. */
	if (s->timed && fuse_timed_take(s, req, t, &r))
		return r;
	return handle_here(s, req, t);
}

bool fuse_server_idle(struct fuse_server *s)
{
	/* The one piece of work worth an idle moment: the next directory block. */
	return fuse_dir_read_ahead(s);
}

uint32_t fuse_server_max_request(const struct fuse_server *s)
{
	return s->max_write + 4096;
}

int fuse_server_create_params(struct fuse_server **out, const char *root_dir,
			      const struct fs_options *opts,
			      const struct fuse_server_params *params)
{
	int fd = open(root_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return fuse_server_create_fd(out, fd, opts, params);
}

int fuse_server_create_fd(struct fuse_server **out, int fd, const struct fs_options *opts,
			  const struct fuse_server_params *params)
{
	struct fuse_server *s = calloc(1, sizeof(*s));
	struct stat st;
	int r;

	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->opts = *opts;
	if (params)
		s->params = *params;
	s->max_write = s->params.max_write ? s->params.max_write : FUSE_SERVER_MAX_WRITE;
	if (s->max_write < 4096 || s->max_write > (1u << 24))
		s->max_write = FUSE_SERVER_MAX_WRITE;
	s->max_write &= ~4095u;
	s->timeout_sec = opts->cache == FS_CACHE_NEVER ? 0 :
			 opts->cache == FS_CACHE_AUTO ? 1 : 86400;
	if (opts->set_timeout)
		s->timeout_sec = opts->entry_timeout;
	uint32_t ni = s->params.max_inodes ? s->params.max_inodes : FUSE_INODES_DEFAULT;
	uint32_t nh = s->params.max_handles ? s->params.max_handles : FUSE_HANDLES_DEFAULT;

	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto err_fd;
	}
	s->root_dev = st.st_dev;
	r = fs_root_id_init(&s->root_id, fd);
	if (r)
		goto err_fd;
	/* The share's own fds count too: many shares, one budget. */
	r = fs_fd_charge();
	if (r)
		goto err_fd;
	s->proc_fd = fs_proc_self_fd_dup();
	if (s->proc_fd < 0) {
		r = s->proc_fd;
		goto err_charge;
	}
	r = fuse_itable_init(&s->it, ni + 2);
	if (r)
		goto err_proc;
	s->it.max_owners = nh; /* a lock owner's OFD costs what a handle does */
	fuse_itable_set_tag(&s->it, s->params.hub_key);
	r = fuse_htable_init(&s->ht, nh + 1, &s->it);
	if (r)
		goto err_it;
	r = fuse_lock_init(s);
	if (r)
		goto err_ht;
	r = fuse_passthrough_init(s);
	if (r)
		goto err_lock;
	r = fuse_timed_init(s, opts->call_timeout, fd, st.st_dev, handle_here,
			    fuse_server_max_request(s));
	if (r)
		goto err_lock;
	r = fuse_itable_set_root(&s->it, fd, &st);
	fd = -1; /* the table's now, or closed */
	if (r)
		goto err_timed;
	pthread_mutex_init(&s->init_mu, NULL);
	pthread_mutex_init(&s->dev_mu, NULL);
	if ((s->params.notify || (s->params.watches && opts->cache != FS_CACHE_NEVER)) &&
	    (r = fuse_watch_start(s)))
		fs_log(FS_LOG_WARN, "host changes unwatched (%s): plain cache timeouts", strerror(-r));
	umask(0);
	*out = s;
	return 0;
err_timed:
	fuse_timed_fini(s);
err_lock:
	fuse_passthrough_fini(s);
	fuse_lock_fini(s);
err_ht:
	fuse_htable_fini(&s->ht);
err_it:
	fuse_itable_fini(&s->it);
err_proc:
	close(s->proc_fd);
err_charge:
	fs_fd_refund();
err_fd:
	if (fd >= 0)
		close(fd);
	free(s);
	return r;
}

int fuse_server_create(struct fuse_server **out, const char *root_dir,
		       const struct fs_options *opts)
{
	return fuse_server_create_params(out, root_dir, opts, NULL);
}

void fuse_server_reset(struct fuse_server *s)
{
	fuse_timed_reset(s);
	fuse_lock_cancel_all(s);
	fuse_passthrough_forget_all(s);
	fuse_htable_release_all(&s->ht, &s->it);
	fuse_itable_forget_all(&s->it);
	atomic_store(&s->initialized, false);
}

void fuse_server_destroy(struct fuse_server *s)
{
	if (!s)
		return;
	fuse_watch_stop(s->watch);   /* before the table it reads goes */
	if (!fuse_timed_fini(s))
		return; /* a helper is stuck in the host: it keeps s (the process is ending) */
	fuse_server_reset(s);
	fuse_passthrough_fini(s);
	fuse_lock_fini(s);
	fuse_htable_fini(&s->ht);
	fuse_itable_fini(&s->it);
	fuse_watch_free(s->watch);
	close(s->proc_fd);
	fs_fd_refund();
	pthread_mutex_destroy(&s->init_mu);
	pthread_mutex_destroy(&s->dev_mu);
	free(s);
}
