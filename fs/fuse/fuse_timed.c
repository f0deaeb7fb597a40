// SPDX-License-Identifier: GPL-2.0-only
/*
 * Requests with a deadline (see fuse_timed.h).
 *
 * A job's life, all of its state under tm->mu:
 *   queued  -> running (a helper took it) -> done (its reply went out, or
 *              it was answered by the deadline and the late reply undone)
 *   queued  -> expired: the watcher answers it and frees it (it never ran)
 *   running -> expired: the watcher answers it; the job stays the
 *              helper's, who frees it when its call returns.
 * `answered` decides, once, who writes into the transport's buffer: the
 * one that sets it. Nobody touches req or its buffers after that answer.
 */
#include "fs/fuse/fuse_timed.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/thread.h"
#include "fs/fs_log.h"
#include "fs/resolve.h"
#include "fs/fuse/fuse_int.h"

enum dev_class { DEV_UNKNOWN, DEV_LOCAL, DEV_REMOTE };

struct timed_dev {
	dev_t dev;
	enum dev_class cls;
	bool fenced;
	bool probing;            /* one request let through to see if it answers */
	uint64_t probe_at;       /* ns: the next probe, while fenced */
};

struct timed_gate {
	uint64_t parent;         /* nodeid of the directory holding the mount point */
	dev_t dev;               /* the device mounted there */
	char name[NAME_MAX + 1];
};

struct timed_job {
	struct timed_job *next;
	struct fs_req *req;      /* the transport's: untouched once answered */
	struct fs_transport t;   /* the transport's */
	size_t outcap;           /* of req->out */
	struct fs_req breq;      /* the copies the handler sees */
	struct iovec bin, bout;
	uint64_t unique, deadline, epoch;
	uint32_t opcode;
	dev_t dev;
	bool running, answered, probe;
	size_t bytes;
	/* The request's bytes, then room for the reply. */
	uint8_t data[];
};

struct fuse_timed {
	struct fuse_server *srv;
	fuse_timed_handle_fn *handle;
	size_t max_request;
	pthread_mutex_t mu;
	pthread_cond_t work, tick, gone;
	struct timed_job *qhead, *qtail, *running;
	unsigned nqueued, nhelpers, nidle;
	size_t bytes;
	bool watching, stopping;
	uint64_t timeout_ns, epoch;
	unsigned long expired;
	struct timed_dev devs[FUSE_TIMED_DEVS];
	unsigned ndevs;
	struct timed_gate gates[FUSE_TIMED_GATES];
	unsigned ngates;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct timespec abs_of(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u),
				  .tv_nsec = (long)(ns % 1000000000u) };
}

/*
 * File systems that answer from this machine's memory or disks: inline.
 * Everything else (FUSE, NFS, CIFS, 9p, Ceph, ...) may wait for a server.
 */
static enum dev_class class_of_fd(int fd)
{
	static const unsigned long local[] = {
		TMPFS_MAGIC, RAMFS_MAGIC, EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC,
		F2FS_SUPER_MAGIC, OVERLAYFS_SUPER_MAGIC, SQUASHFS_MAGIC, MSDOS_SUPER_MAGIC,
		EXFAT_SUPER_MAGIC, 0x2fc12fc1 /* zfs */, 0xca451a4e /* bcachefs */,
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return DEV_REMOTE;
	for (unsigned i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if ((unsigned long)sf.f_type == local[i])
			return DEV_LOCAL;
	return DEV_REMOTE;
}

/* Under tm->mu. NULL when the table is full (then: remote, never fenced). */
static struct timed_dev *dev_find(struct fuse_timed *tm, dev_t dev, bool add)
{
	for (unsigned i = 0; i < tm->ndevs; i++)
		if (tm->devs[i].dev == dev)
			return &tm->devs[i];
	if (!add || tm->ndevs == FUSE_TIMED_DEVS)
		return NULL;
	tm->devs[tm->ndevs] = (struct timed_dev){ .dev = dev };
	return &tm->devs[tm->ndevs++];
}

int fuse_timed_init(struct fuse_server *s, unsigned timeout_sec, int root_fd, dev_t root_dev,
		    fuse_timed_handle_fn *handle, size_t max_request)
{
	struct fuse_timed *tm;

	if (!timeout_sec)
		return 0;
	tm = calloc(1, sizeof(*tm));
	if (!tm)
		return -ENOMEM;
	tm->srv = s;
	tm->handle = handle;
	tm->max_request = max_request;
	tm->timeout_ns = (uint64_t)timeout_sec * 1000000000u;
	pthread_condattr_t ca;

	/* Deadlines are on the monotonic clock: so must the timed waits be. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&tm->mu, NULL);
	pthread_cond_init(&tm->work, &ca);
	pthread_cond_init(&tm->tick, &ca);
	pthread_cond_init(&tm->gone, &ca);
	pthread_condattr_destroy(&ca);
	/* Asked now, while setting up: a share root on NFS offloads everything. */
	dev_find(tm, root_dev, true)->cls = class_of_fd(root_fd);
	s->timed = tm;
	return 0;
}

/* ---- which requests take a helper -------------------------------------- */

/* The ops whose first argument is a file handle (fuse_read_in.fh and kin). */
static bool by_handle(uint32_t op)
{
	switch (op) {
	case FUSE_READ: case FUSE_WRITE: case FUSE_RELEASE: case FUSE_FLUSH: case FUSE_FSYNC:
	case FUSE_READDIR: case FUSE_READDIRPLUS: case FUSE_RELEASEDIR: case FUSE_FSYNCDIR:
	case FUSE_GETLK: case FUSE_SETLK: case FUSE_FALLOCATE: case FUSE_LSEEK:
	case FUSE_COPY_FILE_RANGE:
		return true;
	}
	return false;
}

/* Never a helper: no host call on an inode, or a wait that is parked already. */
static bool never(uint32_t op)
{
	switch (op) {
	case FUSE_INIT: case FUSE_DESTROY: case FUSE_FORGET: case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT: case FUSE_SETLKW: case FUSE_REMOVEMAPPING:
		return true;
	}
	return false;
}

/* The inode a request is about: its nodeid, and the device it lives on. */
static bool inode_of(struct fuse_server *s, const struct fuse_in_header *h,
		     const struct fs_req *req, uint64_t *nodeid, dev_t *dev)
{
	struct fuse_inode *ino;

	if (by_handle(h->opcode)) {
		uint64_t fh;
		struct fuse_handle *hd;

		if (fs_iov_read(req->in, req->nin, sizeof(*h), &fh, sizeof(fh)) != sizeof(fh))
			return false;
		hd = fuse_handle_get(&s->ht, fh);
		if (!hd)
			return false;
		*nodeid = fuse_inode_nodeid(hd->inode);
		*dev = hd->inode->dev;
		fuse_handle_put(&s->ht, hd, &s->it);
		return true;
	}
	ino = fuse_inode_get(&s->it, h->nodeid);
	if (!ino)
		return false;
	*nodeid = h->nodeid;
	*dev = ino->dev;
	fuse_inode_put(&s->it, ino);
	return true;
}

/*
 * Under tm->mu. A request on a local directory that holds a mount point
 * reaches the mounted device when it names the mount point (LOOKUP) or
 * stats every entry (READDIRPLUS): it is that device's request.
 */
static bool gate_dev(struct fuse_timed *tm, const struct fuse_in_header *h,
		     const struct fs_req *req, uint64_t nodeid, dev_t *dev)
{
	char name[NAME_MAX + 2];
	size_t n = 0;

	if (h->opcode == FUSE_LOOKUP) {
		n = fs_iov_read(req->in, req->nin, sizeof(*h), name, sizeof(name) - 1); /* guest */
		name[n] = 0;
	}
	for (unsigned i = 0; i < tm->ngates; i++) {
		struct timed_gate *g = &tm->gates[i];

		if (g->parent != nodeid)
			continue;
		if (h->opcode == FUSE_READDIRPLUS ||
		    (h->opcode == FUSE_LOOKUP && strcmp(g->name, name) == 0)) {
			*dev = g->dev;
			return true;
		}
	}
	return false;
}

void fuse_timed_gate(struct fuse_server *s, struct fuse_inode *parent, const char *name,
		     dev_t dev)
{
	struct fuse_timed *tm = s->timed;
	uint64_t nodeid = fuse_inode_nodeid(parent);

	if (!tm || strlen(name) > NAME_MAX)
		return;
	pthread_mutex_lock(&tm->mu);
	for (unsigned i = 0; i < tm->ngates; i++) {
		if (tm->gates[i].parent == nodeid && strcmp(tm->gates[i].name, name) == 0) {
			tm->gates[i].dev = dev;
			goto out;
		}
	}
	if (tm->ngates < FUSE_TIMED_GATES) {
		struct timed_gate *g = &tm->gates[tm->ngates++];

		g->parent = nodeid;
		g->dev = dev;
		strcpy(g->name, name);
	}
out:
	pthread_mutex_unlock(&tm->mu);
}

/* ---- helpers and the watcher ------------------------------------------- */

static void *helper_main(void *arg);
static void *watch_main(void *arg);

/* Under tm->mu: one more helper for the queue, unless one idles or all run. */
static void wake_helper(struct fuse_timed *tm)
{
	pthread_attr_t attr;
	pthread_t th;

	if (tm->nidle >= tm->nqueued) {
		pthread_cond_signal(&tm->work);
		return;
	}
	if (tm->nhelpers >= FUSE_TIMED_HELPERS)
		return; /* the deadline answers what waits too long */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (fs_thread_create(&th, &attr, FS_ROLE_TIMED_CALL, helper_main, tm) == 0)
		tm->nhelpers++;
	pthread_attr_destroy(&attr);
}

static void wake_watcher(struct fuse_timed *tm)
{
	pthread_attr_t attr;
	pthread_t th;

	if (tm->watching)
		return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64u * 1024);
	if (fs_thread_create(&th, &attr, FS_ROLE_DEADLINE, watch_main, tm) == 0)
		tm->watching = true;
	pthread_attr_destroy(&attr);
}

static int enqueue(struct fuse_timed *tm, struct fs_req *req, const struct fs_transport *t,
		   const struct fuse_in_header *h, dev_t dev, bool probe, size_t outcap)
{
	size_t inlen = h->len, cap = tm->max_request + 4096;
	size_t outlen = outcap < cap ? outcap : cap;
	struct timed_job *j;

	if (tm->nqueued >= FUSE_TIMED_QUEUED || tm->bytes + inlen + outlen > FUSE_TIMED_BYTES ||
	    tm->stopping)
		return -EIO;
	j = malloc(sizeof(*j) + inlen + outlen);
	if (!j)
		return -EIO;
	memset(j, 0, sizeof(*j));
	j->req = req;
	j->t = *t;
	j->outcap = outcap;
	fs_iov_read(req->in, req->nin, 0, j->data, inlen); /* guest: one copy, read once */
	j->bin = (struct iovec){ j->data, inlen };
	j->bout = (struct iovec){ j->data + inlen, outlen };
	j->breq = (struct fs_req){ .in = &j->bin, .nin = 1, .out = &j->bout, .nout = 1, .cookie = j };
	j->unique = h->unique;
	j->opcode = h->opcode;
	j->dev = dev;
	j->probe = probe;
	j->epoch = tm->epoch;
	j->bytes = inlen + outlen;
	j->deadline = now_ns() + tm->timeout_ns;
	tm->bytes += j->bytes;
	if (tm->qtail)
		tm->qtail->next = j;
	else
		tm->qhead = j;
	tm->qtail = j;
	tm->nqueued++;
	wake_helper(tm);
	wake_watcher(tm);
	pthread_cond_signal(&tm->tick);
	return FS_REQ_DEFERRED;
}

bool fuse_timed_take(struct fuse_server *s, struct fs_req *req, const struct fs_transport *t,
		     int *r)
{
	struct fuse_timed *tm = s->timed;
	struct fuse_in_header h;
	struct timed_dev *d;
	uint64_t nodeid;
	dev_t dev;
	bool probe = false;
	size_t outcap;

	if (!tm || !t || !t->complete ||
	    fs_iov_read(req->in, req->nin, 0, &h, sizeof(h)) != sizeof(h) || /* guest */
	    h.len != fs_iov_len(req->in, req->nin) || never(h.opcode) ||
	    !atomic_load_explicit(&s->initialized, memory_order_acquire) ||
	    !inode_of(s, &h, req, &nodeid, &dev))
		return false; /* handle() answers what is malformed */
	outcap = fs_iov_len(req->out, req->nout);
	pthread_mutex_lock(&tm->mu);
	d = dev_find(tm, dev, true);
	if (d && d->cls == DEV_LOCAL) {
		if (!gate_dev(tm, &h, req, nodeid, &dev))
			goto inline_;
		d = dev_find(tm, dev, true);
		if (d && d->cls == DEV_LOCAL)
			goto inline_;
	}
	/*
	 * A RELEASE is the client's last word on a handle: refused, the
	 * handle and its fd would stay for good. It waits for a helper.
	 */
	if (d && d->fenced && h.opcode != FUSE_RELEASE && h.opcode != FUSE_RELEASEDIR) {
		uint64_t now = now_ns();

		if (d->probing || now < d->probe_at || tm->nhelpers >= FUSE_TIMED_HELPERS) {
			pthread_mutex_unlock(&tm->mu);
			*r = fuse_reply_err(req, outcap, h.unique, -EIO);
			return true;
		}
		d->probing = probe = true;
	}
	*r = enqueue(tm, req, t, &h, dev, probe, outcap);
	if (*r != FS_REQ_DEFERRED && d && probe)
		d->probing = false;
	pthread_mutex_unlock(&tm->mu);
	if (*r != FS_REQ_DEFERRED)
		*r = fuse_reply_err(req, outcap, h.unique, *r);
	return true;
inline_:
	pthread_mutex_unlock(&tm->mu);
	return false;
}

/*
 * The client was told EIO, so it never learnt what a late reply handed
 * out: give back the lookup counts and open files that reply names.
 */
static void undo(struct fuse_server *s, const struct timed_job *j, uint32_t len)
{
	const uint8_t *p = j->bout.iov_base;
	struct fuse_out_header oh;
	struct fuse_entry_out e;
	struct fuse_open_out o;
	size_t hl = sizeof(oh);

	if (len < hl)
		return;
	memcpy(&oh, p, hl);
	if (oh.error || oh.len > len)
		return;
	switch (j->opcode) {
	case FUSE_LOOKUP: case FUSE_MKDIR: case FUSE_MKNOD: case FUSE_SYMLINK: case FUSE_LINK:
	case FUSE_CREATE: case FUSE_TMPFILE:
		if (len < hl + sizeof(e))
			return;
		memcpy(&e, p + hl, sizeof(e));
		if (e.nodeid)
			fuse_inode_forget(&s->it, e.nodeid, 1);
		if (j->opcode != FUSE_CREATE && j->opcode != FUSE_TMPFILE)
			return;
		hl += sizeof(e);
		/* CREATE opened a file too */
		__attribute__((fallthrough));
	case FUSE_OPEN: case FUSE_OPENDIR:
		if (len < hl + sizeof(o))
			return;
		memcpy(&o, p + hl, sizeof(o));
		fuse_handle_release(&s->ht, o.fh, &s->it);
		return;
	case FUSE_READDIRPLUS:
		/* Every entry with a nodeid counted a lookup. */
		for (size_t off = hl; off + sizeof(struct fuse_direntplus) <= len;) {
			struct fuse_direntplus dp;

			memcpy(&dp, p + off, sizeof(dp));
			if (dp.entry_out.nodeid)
				fuse_inode_forget(&s->it, dp.entry_out.nodeid, 1);
			off += FUSE_DIRENTPLUS_SIZE(&dp);
			if (dp.dirent.namelen == 0)
				break;
		}
		return;
	}
}

/* Under tm->mu: j leaves the running list. */
static void unlist_running(struct fuse_timed *tm, struct timed_job *j)
{
	for (struct timed_job **pp = &tm->running; *pp; pp = &(*pp)->next) {
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	}
}

/* The handler's reply is in j's bounce buffer: send it, or undo it if late. */
static void job_done(struct fuse_timed *tm, struct timed_job *j, uint32_t len)
{
	struct timed_dev *d;
	bool late, gone;

	pthread_mutex_lock(&tm->mu);
	late = j->answered;
	j->answered = true;
	unlist_running(tm, j);
	gone = j->epoch != tm->epoch;
	d = dev_find(tm, j->dev, false);
	/* It answered after all (late or in time): the device is alive. */
	if (d && (late || j->probe)) {
		d->fenced = false;
		d->probing = false;
	}
	tm->bytes -= j->bytes;
	pthread_cond_broadcast(&tm->gone);
	pthread_mutex_unlock(&tm->mu);
	if (!late) {
		fs_iov_write(j->req->out, j->req->nout, 0, j->bout.iov_base, len);
		j->t.complete(j->t.ctx, j->req, len);
	} else if (!gone) {
		undo(tm->srv, j, len);
	}
	free(j);
}

/* A handler on a helper deferred after all: its completion comes here. */
static void helper_complete(void *ctx, struct fs_req *req, uint32_t len)
{
	struct timed_job *j = req->cookie;

	job_done(ctx, j, len);
}

/* A device seen the first time: ask its type, on the helper (it may hang). */
static void classify(struct fuse_timed *tm, struct timed_job *j)
{
	struct fuse_server *s = tm->srv;
	struct fuse_in_header h;
	struct fuse_inode *ino;
	struct fuse_ifd f;
	struct timed_dev *d;
	enum dev_class cls = DEV_REMOTE;
	uint64_t nodeid;
	dev_t dev;

	pthread_mutex_lock(&tm->mu);
	d = dev_find(tm, j->dev, false);
	bool known = !d || d->cls != DEV_UNKNOWN;
	pthread_mutex_unlock(&tm->mu);
	memcpy(&h, j->data, sizeof(h));
	if (known || !inode_of(s, &h, &j->breq, &nodeid, &dev) || dev != j->dev)
		return; /* a mount point's lookup: its device is asked by its own requests */
	ino = fuse_inode_get(&s->it, nodeid);
	if (!ino)
		return;
	if (fuse_inode_fd(&s->it, ino, &f) == 0) {
		cls = class_of_fd(f.fd);
		fuse_inode_fd_put(&f);
	}
	fuse_inode_put(&s->it, ino);
	pthread_mutex_lock(&tm->mu);
	d = dev_find(tm, j->dev, false);
	if (d)
		d->cls = cls;
	pthread_mutex_unlock(&tm->mu);
}

static void *helper_main(void *arg)
{
	struct fuse_timed *tm = arg;
	const struct fs_transport bt = { .complete = helper_complete, .ctx = tm };

	(void)pthread_setname_np(pthread_self(), "timed-call");
	pthread_mutex_lock(&tm->mu);
	for (;;) {
		struct timed_job *j = tm->qhead;

		if (!j) {
			struct timespec until = abs_of(now_ns() + 1000000000u);
			int w;

			/* Idle a second for the next one, then go: no thread outlives its work. */
			if (tm->stopping)
				break;
			tm->nidle++;
			w = pthread_cond_timedwait(&tm->work, &tm->mu, &until);
			tm->nidle--;
			if (w && !tm->qhead)
				break;
			continue;
		}
		tm->qhead = j->next;
		if (!tm->qhead)
			tm->qtail = NULL;
		tm->nqueued--;
		j->running = true;
		j->next = tm->running;
		tm->running = j;
		pthread_mutex_unlock(&tm->mu);

		classify(tm, j);
		int r = tm->handle(tm->srv, &j->breq, &bt);
		if (r != FS_REQ_DEFERRED)
			job_done(tm, j, r > 0 ? (uint32_t)r : 0);
		pthread_mutex_lock(&tm->mu);
	}
	tm->nhelpers--;
	pthread_cond_broadcast(&tm->gone);
	pthread_mutex_unlock(&tm->mu);
	return NULL;
}

/* Under tm->mu: takes the jobs past their deadline (or all) off to answer. */
static struct timed_job *take_expired(struct fuse_timed *tm, uint64_t now, bool all,
				      uint64_t *next)
{
	struct timed_job *out = NULL;

	*next = UINT64_MAX;
	for (struct timed_job **pp = &tm->qhead; *pp;) {
		struct timed_job *j = *pp;

		if (!all && j->deadline > now) {
			if (j->deadline < *next)
				*next = j->deadline;
			pp = &j->next;
			continue;
		}
		/* Never ran: no device to blame (the helpers were busy). */
		*pp = j->next;
		tm->nqueued--;
		tm->bytes -= j->bytes;
		j->answered = true;
		j->next = out;
		out = j;
	}
	tm->qtail = NULL;
	for (struct timed_job *j = tm->qhead; j; j = j->next)
		tm->qtail = j;
	for (struct timed_job *j = tm->running; j; j = j->next) {
		struct timed_dev *d;

		if (j->answered)
			continue;
		if (!all && j->deadline > now) {
			if (j->deadline < *next)
				*next = j->deadline;
			continue;
		}
		j->answered = true;
		tm->expired++;
		d = dev_find(tm, j->dev, false);
		if (d && !all) {
			if (!d->fenced)
				fs_log(FS_LOG_WARN, "a host file system stopped answering (device %u:%u): "
				       "its requests get EIO until it answers again",
				       major(j->dev), minor(j->dev));
			d->fenced = true;
			d->probing = false;
			d->probe_at = now + tm->timeout_ns;
		}
		/* Answered below from the transport's side; the helper keeps j. */
		struct fuse_out_header oh = { .len = sizeof(oh), .error = -EIO, .unique = j->unique };
		if (j->outcap >= sizeof(oh))
			fs_iov_write(j->req->out, j->req->nout, 0, &oh, sizeof(oh));
	}
	return out;
}

/* Calls the transports' completions for the running jobs just answered. */
static void complete_running(struct fuse_timed *tm, struct timed_job **done, unsigned *n)
{
	for (struct timed_job *j = tm->running; j; j = j->next)
		if (j->answered && j->req && *n < FUSE_TIMED_HELPERS * 2) {
			done[(*n)++] = j;
		}
}

static void answer_all(struct fuse_timed *tm, uint64_t now, bool all, uint64_t *next)
{
	struct timed_job *queued, *run[FUSE_TIMED_HELPERS * 2];
	struct fs_req *reqs[FUSE_TIMED_HELPERS * 2];
	struct fs_transport ts[FUSE_TIMED_HELPERS * 2];
	size_t outcaps[FUSE_TIMED_HELPERS * 2];
	unsigned n = 0;

	queued = take_expired(tm, now, all, next);
	complete_running(tm, run, &n);
	/* Copied out: once answered, the transport's req is no longer the job's. */
	for (unsigned i = 0; i < n; i++) {
		reqs[i] = run[i]->req;
		ts[i] = run[i]->t;
		outcaps[i] = run[i]->outcap;
		run[i]->req = NULL;
	}
	pthread_mutex_unlock(&tm->mu);
	for (unsigned i = 0; i < n; i++)
		ts[i].complete(ts[i].ctx, reqs[i], outcaps[i] >= sizeof(struct fuse_out_header) ?
			       (uint32_t)sizeof(struct fuse_out_header) : 0);
	while (queued) {
		struct timed_job *j = queued;
		int len = fuse_reply_err(j->req, j->outcap, j->unique, -EIO);

		queued = j->next;
		j->t.complete(j->t.ctx, j->req, (uint32_t)len);
		free(j);
	}
	pthread_mutex_lock(&tm->mu);
}

static void *watch_main(void *arg)
{
	struct fuse_timed *tm = arg;
	uint64_t next;

	(void)pthread_setname_np(pthread_self(), "deadline");
	pthread_mutex_lock(&tm->mu);
	for (;;) {
		answer_all(tm, now_ns(), tm->stopping, &next);
		bool busy = tm->qhead || tm->running;

		if (!busy && tm->stopping)
			break;
		if (!busy) {
			/* Nothing to watch: wait a moment for more, then go. */
			struct timespec until = abs_of(now_ns() + 1000000000u);

			if (pthread_cond_timedwait(&tm->tick, &tm->mu, &until) && !tm->qhead &&
			    !tm->running)
				break;
			continue;
		}
		if (next == UINT64_MAX)
			next = now_ns() + 1000000000u; /* all answered: look again for the late */
		struct timespec until = abs_of(next);
		pthread_cond_timedwait(&tm->tick, &tm->mu, &until);
	}
	tm->watching = false;
	pthread_cond_broadcast(&tm->gone);
	pthread_mutex_unlock(&tm->mu);
	return NULL;
}

/* ---- reset and teardown ------------------------------------------------ */

void fuse_timed_reset(struct fuse_server *s)
{
	struct fuse_timed *tm = s->timed;
	uint64_t next;

	if (!tm)
		return;
	pthread_mutex_lock(&tm->mu);
	tm->epoch++;
	answer_all(tm, now_ns(), true, &next);
	tm->ngates = 0;
	pthread_mutex_unlock(&tm->mu);
}

bool fuse_timed_fini(struct fuse_server *s)
{
	struct fuse_timed *tm = s->timed;
	uint64_t next;
	bool stuck;

	if (!tm)
		return true;
	pthread_mutex_lock(&tm->mu);
	tm->stopping = true;
	tm->epoch++;
	answer_all(tm, now_ns(), true, &next);
	pthread_cond_broadcast(&tm->work);
	pthread_cond_broadcast(&tm->tick);
	/* Idle helpers and the watcher go at once; a stuck one may never. */
	struct timespec until = abs_of(now_ns() + 2000000000u);
	while ((tm->nhelpers || tm->watching) &&
	       pthread_cond_timedwait(&tm->gone, &tm->mu, &until) == 0)
		;
	stuck = tm->nhelpers || tm->watching;
	pthread_mutex_unlock(&tm->mu);
	if (stuck)
		return false; /* the process is ending: leave s to the stuck helper */
	pthread_mutex_destroy(&tm->mu);
	pthread_cond_destroy(&tm->work);
	pthread_cond_destroy(&tm->tick);
	pthread_cond_destroy(&tm->gone);
	free(tm);
	s->timed = NULL;
	return true;
}

unsigned fuse_timed_helpers(struct fuse_server *s)
{
	unsigned n;

	if (!s->timed)
		return 0;
	pthread_mutex_lock(&s->timed->mu);
	n = s->timed->nhelpers;
	pthread_mutex_unlock(&s->timed->mu);
	return n;
}

unsigned long fuse_timed_expired(struct fuse_server *s)
{
	unsigned long n;

	if (!s->timed)
		return 0;
	pthread_mutex_lock(&s->timed->mu);
	n = s->timed->expired;
	pthread_mutex_unlock(&s->timed->mu);
	return n;
}
