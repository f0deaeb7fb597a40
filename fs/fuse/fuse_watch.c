// SPDX-License-Identifier: GPL-2.0-only
/* Host changes told to the client through a bounded set of inotify watches (fuse_watch.h). */
#include "fs/fuse/fuse_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "base/thread.h"
#include "fs/fs_log.h"
#include "fs/fuse/fuse_int.h"

/* What a watch on a directory reports: its entries' changes and its own attributes. */
#define WATCH_MASK (IN_ATTRIB | IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | \
		    IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR | IN_EXCL_UNLINK)
#define ENTRY_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
#define EVENT_BUF 16384
/* Nodeids asked to be pruned at once; the watcher is woken at PRUNE_WAKE. */
#define PRUNE_BATCH 256
#define PRUNE_WAKE 32

/* A serving thread's request to the watcher. */
struct watch_op {
	uint64_t nodeid;
	int32_t wd;             /* drop: the watch the freed inode had */
	bool drop;
};

/* The watcher's own map of watches to directory nodeids (linear probing). */
struct wd_ent {
	int32_t wd;             /* 0: empty */
	uint64_t nodeid;
};

struct fuse_watch {
	struct fuse_server *srv;
	int ifd, wake;
	uint32_t budget;
	_Atomic uint32_t held;  /* watches held and wants queued: at most budget */
	_Atomic bool spent_said, overflow_said, stop;
	pthread_mutex_t mu;     /* the ring */
	struct watch_op *ring;
	uint32_t cap, head, n;
	struct wd_ent *map;     /* the watcher thread's alone */
	uint32_t mapmask, nmap;
	pthread_t thread;
	bool started;
	_Atomic uint64_t refused, events, sent, pruned;
	char *buf;
	/* Under mu: inodes the sweep took fds from, to offer the kernel (PRUNE). */
	uint64_t prune[PRUNE_BATCH];
	uint32_t nprune;
	_Atomic bool prune_off;
};

/* ---- the map (watcher thread only) ---------------------------------------- */

static uint32_t wd_slot(const struct fuse_watch *w, int32_t wd)
{
	return ((uint32_t)wd * 2654435761u) & w->mapmask;
}

static struct wd_ent *map_find(struct fuse_watch *w, int32_t wd)
{
	for (uint32_t i = wd_slot(w, wd);; i = (i + 1) & w->mapmask) {
		if (w->map[i].wd == wd)
			return &w->map[i];
		if (w->map[i].wd == 0)
			return NULL;
	}
}

/* The map has twice the budget's slots, so there is always an empty one. */
static void map_put(struct fuse_watch *w, int32_t wd, uint64_t nodeid)
{
	uint32_t i = wd_slot(w, wd);

	while (w->map[i].wd != 0)
		i = (i + 1) & w->mapmask;
	w->map[i] = (struct wd_ent){ wd, nodeid };
	w->nmap++;
}

/* Backward-shift deletion: no tombstones, lookups stay short. */
static void map_del(struct fuse_watch *w, struct wd_ent *e)
{
	uint32_t i = (uint32_t)(e - w->map), j = i;

	w->map[i].wd = 0;
	w->nmap--;
	for (;;) {
		j = (j + 1) & w->mapmask;
		if (w->map[j].wd == 0)
			return;
		uint32_t home = wd_slot(w, w->map[j].wd);
		/* Move j back to i unless its home lies cyclically in (i, j]. */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		w->map[i] = w->map[j];
		w->map[j].wd = 0;
		i = j;
	}
}

/* ---- serving threads' side -------------------------------------------------- */

static bool push(struct fuse_watch *w, struct watch_op op)
{
	uint64_t one = 1;
	bool ok;

	pthread_mutex_lock(&w->mu);
	ok = w->n < w->cap;
	if (ok)
		w->ring[(w->head + w->n++) % w->cap] = op;
	pthread_mutex_unlock(&w->mu);
	if (ok)
		(void)!write(w->wake, &one, sizeof(one));
	return ok;
}

void fuse_watch_want(struct fuse_watch *w, struct fuse_inode *ino)
{
	int32_t none = 0;

	if (!w || !w->budget || ino->type != S_IFDIR || atomic_load(&ino->wd) != 0)
		return;
	if (atomic_fetch_add(&w->held, 1) >= w->budget) {
		atomic_fetch_sub(&w->held, 1);
		atomic_fetch_add(&w->refused, 1);
		if (!atomic_exchange(&w->spent_said, true))
			fs_log(FS_LOG_WARN, "watch budget of %u directories spent: host changes below "
			       "further directories show after %u s (their cache lifetime)",
			       w->budget, FUSE_WATCH_SHORT_SEC);
		return;
	}
	if (!atomic_compare_exchange_strong(&ino->wd, &none, -1) ||
	    !push(w, (struct watch_op){ .nodeid = fuse_inode_nodeid(ino) })) {
		atomic_fetch_sub(&w->held, 1);
		atomic_compare_exchange_strong(&ino->wd, &(int32_t){ -1 }, 0);
	}
}

void fuse_watch_drop(void *ctx, int32_t wd, uint64_t nodeid)
{
	struct fuse_watch *w = ctx;

	/* wd -1: the want is still queued; the watcher finds the inode gone. */
	if (w && wd > 0)
		(void)push(w, (struct watch_op){ .nodeid = nodeid, .wd = wd, .drop = true });
}

bool fuse_watch_covering(const struct fuse_watch *w)
{
	return w && w->budget;
}

/*
 * The sweep closed an idle inode's cached fd: the fd budget is tight, and
 * the kernel's lookup references pin the table. Offer the kernel that
 * nodeid to drop if nothing uses it there either (FUSE_NOTIFY_PRUNE,
 * 7.45), so its FORGET comes back and the slot, its name and its parent
 * chain go. Called by the sweep on a serving thread, outside the table's
 * mutex: no wait but the ring's.
 */
void fuse_watch_evicted(void *ctx, uint64_t nodeid)
{
	struct fuse_watch *w = ctx;
	uint64_t one = 1;
	bool wake;

	if (!w || atomic_load(&w->prune_off) || !w->srv->params.notify ||
	    atomic_load(&w->srv->kernel_minor) < FUSE_PRUNE_MINOR)
		return;
	pthread_mutex_lock(&w->mu);
	if (w->nprune < PRUNE_BATCH)
		w->prune[w->nprune++] = nodeid;
	wake = w->nprune == PRUNE_WAKE;
	pthread_mutex_unlock(&w->mu);
	if (wake)
		(void)!write(w->wake, &one, sizeof(one));
}

static uint32_t now_sec(void)
{
	struct timespec t;

	/* The vDSO's coarse clock: no system call on the reply path. */
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return (uint32_t)t.tv_sec;
}

/* Is ino's entry and attribute reported by a watch (the caller holds ino)? */
static bool covered(struct fuse_server *s, struct fuse_inode *ino, uint32_t *parent_changed)
{
	bool c;

	*parent_changed = 0;
	if (fuse_inode_nodeid(ino) == FUSE_ROOT_ID)
		return atomic_load(&ino->wd) > 0;
	/*
	 * Its parent's watch reports its name and attributes; a directory's
	 * own watch reports its entries (its listing, its mtime).
	 */
	pthread_mutex_lock(&s->it.mu);
	c = ino->parent && atomic_load(&ino->parent->wd) > 0 &&
	    (ino->type != S_IFDIR || atomic_load(&ino->wd) > 0);
	if (c)
		*parent_changed = atomic_load(&ino->parent->changed);
	pthread_mutex_unlock(&s->it.mu);
	return c;
}

/*
 * Change-aware lifetimes, for a client no notification reaches (virtio-fs):
 * what it was granted cannot be revoked, so the bound on staleness is the
 * longest lifetime ever granted, FUSE_WATCH_CAP_SEC. Below it a lifetime
 * is half the time the inode (and its directory's entries) has been quiet
 * by its host ctime and by what the watches saw, so an inode that changed
 * lately is asked again soon and one quiet for long is not.
 */
static uint64_t quiet_lifetime(uint32_t now, int64_t ctime_sec, uint32_t changed,
			       uint32_t parent_changed, uint64_t cap)
{
	int64_t last = ctime_sec, age;

	if ((int64_t)changed > last)
		last = changed;
	if ((int64_t)parent_changed > last)
		last = parent_changed;
	age = (int64_t)now - last;
	if (age / 2 <= FUSE_WATCH_SHORT_SEC)
		return FUSE_WATCH_SHORT_SEC;  /* a clock stepped back lands here too */
	return (uint64_t)(age / 2) < cap ? (uint64_t)(age / 2) : cap;
}

uint64_t fuse_watch_lifetime(struct fuse_server *s, struct fuse_inode *ino, int64_t ctime_sec)
{
	uint32_t parent_changed;
	uint64_t cap = s->timeout_sec;

	if (!fuse_watch_covering(s->watch) || s->timeout_sec <= FUSE_WATCH_SHORT_SEC)
		return s->timeout_sec;
	if (!covered(s, ino, &parent_changed))
		return FUSE_WATCH_SHORT_SEC;
	if (s->params.notify)
		return s->timeout_sec;  /* every change is told: the share's own lifetime */
	if (!s->opts.set_timeout && cap > FUSE_WATCH_CAP_SEC)
		cap = FUSE_WATCH_CAP_SEC;
	return quiet_lifetime(now_sec(), ctime_sec, atomic_load(&ino->changed), parent_changed,
			      cap);
}

void fuse_watch_stats(const struct fuse_watch *w, struct fuse_watch_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!w)
		return;
	out->watches = atomic_load(&w->held);
	out->refused = atomic_load(&w->refused);
	out->events = atomic_load(&w->events);
	out->sent = atomic_load(&w->sent);
	out->pruned = atomic_load(&w->pruned);
}

void fuse_server_stats(const struct fuse_server *s, struct fuse_server_stats *out)
{
	struct fuse_watch_stats w;

	fuse_watch_stats(s->watch, &w);
	*out = (struct fuse_server_stats){ .inodes_peak = s->it.slots.used, .watches = w.watches,
					   .refused = w.refused, .events = w.events,
					   .notified = w.sent, .pruned = w.pruned };
}

/* ---- the watcher thread ---------------------------------------------------- */

static void notify(struct fuse_watch *w, int code, const void *body, size_t len)
{
	const struct fuse_server_params *p = &w->srv->params;
	struct {
		struct fuse_out_header h;
		uint8_t body[sizeof(struct fuse_notify_inval_entry_out) + NAME_MAX + 1];
	} m;

	if (!p->notify || len > sizeof(m.body))
		return;
	m.h = (struct fuse_out_header){ .len = (uint32_t)(sizeof(m.h) + len), .error = code };
	memcpy(m.body, body, len);
	/* -ENOENT: the kernel has nothing cached under that name or node. */
	if (p->notify(p->notify_ctx, &m, m.h.len) == 0)
		atomic_fetch_add(&w->sent, 1);
}

/* off -1: attributes only; 0: attributes and every cached page. */
static void inval_inode(struct fuse_watch *w, uint64_t nodeid, int64_t off)
{
	struct fuse_notify_inval_inode_out o = { .ino = nodeid, .off = off, .len = 0 };

	notify(w, FUSE_NOTIFY_INVAL_INODE, &o, sizeof(o));
}

static void inval_entry(struct fuse_watch *w, uint64_t parent, const char *name, size_t nlen)
{
	uint8_t b[sizeof(struct fuse_notify_inval_entry_out) + NAME_MAX + 1];
	struct fuse_notify_inval_entry_out o = { .parent = parent, .namelen = (uint32_t)nlen };

	if (nlen > NAME_MAX)
		return;
	memcpy(b, &o, sizeof(o));
	memcpy(b + sizeof(o), name, nlen);
	b[sizeof(o) + nlen] = 0;
	notify(w, FUSE_NOTIFY_INVAL_ENTRY, b, sizeof(o) + nlen + 1);
}

static void add_watch(struct fuse_watch *w, uint64_t nodeid)
{
	struct fuse_server *s = w->srv;
	struct fuse_inode *ino = fuse_inode_get(&s->it, nodeid);
	struct fuse_ifd f;
	char path[40];
	int wd = -1;

	if (!ino) {
		atomic_fetch_sub(&w->held, 1); /* forgotten before its turn */
		return;
	}
	if (fuse_inode_fd(&s->it, ino, &f) == 0) {
		/* inotify takes a path: the fd's magic link names exactly that directory. */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", f.fd);
		wd = inotify_add_watch(w->ifd, path, WATCH_MASK);
		if (wd < 0 && errno == ENOSPC && !atomic_exchange(&w->spent_said, true))
			fs_log(FS_LOG_WARN, "inotify watches spent (fs.inotify.max_user_watches): "
			       "host changes below further directories show after %u s",
			       FUSE_WATCH_SHORT_SEC);
		fuse_inode_fd_put(&f);
	}
	if (wd <= 0) {
		atomic_fetch_sub(&w->held, 1);
		atomic_store(&ino->wd, 0);
	} else {
		struct wd_ent *e = map_find(w, wd);

		/* The same directory under a new nodeid while the old one's drop is queued. */
		if (e) {
			e->nodeid = nodeid;
			atomic_fetch_sub(&w->held, 1);
		} else {
			map_put(w, wd, nodeid);
		}
		atomic_store(&ino->wd, wd);
	}
	fuse_inode_put(&s->it, ino);
}

static void drop_watch(struct fuse_watch *w, int32_t wd, uint64_t nodeid)
{
	struct wd_ent *e = map_find(w, wd);

	if (!e || e->nodeid != nodeid)
		return;  /* gone already (IN_IGNORED), or the directory's new inode has it */
	map_del(w, e);
	(void)inotify_rm_watch(w->ifd, wd);
	atomic_fetch_sub(&w->held, 1);
}

static void send_prune(struct fuse_watch *w)
{
	const struct fuse_server_params *p = &w->srv->params;
	struct {
		struct fuse_out_header h;
		struct fuse_notify_prune_out o;
		uint64_t ids[PRUNE_BATCH];
	} m;
	uint32_t n;
	int r;

	pthread_mutex_lock(&w->mu);
	n = w->nprune;
	memcpy(m.ids, w->prune, n * sizeof(m.ids[0]));
	w->nprune = 0;
	pthread_mutex_unlock(&w->mu);
	if (!n || !p->notify)
		return;
	m.o = (struct fuse_notify_prune_out){ .count = n };
	m.h = (struct fuse_out_header){ .len = (uint32_t)(sizeof(m.h) + sizeof(m.o) + n * 8),
					.error = FUSE_NOTIFY_PRUNE };
	r = p->notify(p->notify_ctx, &m, m.h.len);
	if (r == 0) {
		atomic_fetch_add(&w->pruned, n);
	} else if (r != -ENOENT && !atomic_exchange(&w->prune_off, true)) {
		fs_log(FS_LOG_INFO, "the kernel refused FUSE_NOTIFY_PRUNE (%s): not asked again",
		       strerror(-r));
	}
}

static void run_ops(struct fuse_watch *w)
{
	for (;;) {
		struct watch_op op;

		pthread_mutex_lock(&w->mu);
		if (!w->n) {
			pthread_mutex_unlock(&w->mu);
			return;
		}
		op = w->ring[w->head];
		w->head = (w->head + 1) % w->cap;
		w->n--;
		pthread_mutex_unlock(&w->mu);
		if (op.drop)
			drop_watch(w, op.wd, op.nodeid);
		else
			add_watch(w, op.nodeid);
	}
}

/* The known inode a watched directory's entry leads to now: its nodeid, or 0. */
static uint64_t child_of(struct fuse_watch *w, uint64_t dir, const char *name)
{
	struct fuse_server *s = w->srv;
	struct fuse_inode *d = fuse_inode_get(&s->it, dir), *c = NULL;
	struct fuse_ifd f;
	struct stat st;
	uint64_t id = 0;

	if (!d)
		return 0;
	if (fuse_inode_fd(&s->it, d, &f) == 0) {
		if (fstatat(f.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			c = fuse_inode_peek(&s->it, &st);
		fuse_inode_fd_put(&f);
	}
	if (c) {
		id = fuse_inode_nodeid(c);
		fuse_inode_put(&s->it, c);
	}
	fuse_inode_put(&s->it, d);
	return id;
}

static void forget_watch(struct fuse_watch *w, struct wd_ent *e)
{
	struct fuse_inode *ino = fuse_inode_get(&w->srv->it, e->nodeid);

	if (ino) {
		atomic_compare_exchange_strong(&ino->wd, &(int32_t){ e->wd }, 0);
		fuse_inode_put(&w->srv->it, ino);
	}
	map_del(w, e);
	atomic_fetch_sub(&w->held, 1);
}

/* A watch saw nodeid change: its next lifetimes start short again (fuse_watch_lifetime). */
static void mark_changed(struct fuse_watch *w, uint64_t nodeid)
{
	struct fuse_inode *ino = fuse_inode_get(&w->srv->it, nodeid);

	if (ino) {
		atomic_store(&ino->changed, now_sec());
		fuse_inode_put(&w->srv->it, ino);
	}
}

static void one_event(struct fuse_watch *w, const struct inotify_event *ev)
{
	struct wd_ent *e;
	size_t nlen = ev->len ? strnlen(ev->name, ev->len) : 0;

	atomic_fetch_add(&w->events, 1);
	if (ev->mask & IN_Q_OVERFLOW) {
		if (!atomic_exchange(&w->overflow_said, true))
			fs_log(FS_LOG_WARN, "inotify queue overflowed: some host changes show only "
			       "after the cache lifetime");
		return;
	}
	if (!(e = map_find(w, ev->wd)))
		return;
	if (ev->mask & IN_IGNORED) {  /* the directory is gone, or its file system */
		forget_watch(w, e);
		return;
	}
	uint64_t dir = e->nodeid;
	if (!nlen) {
		if (ev->mask & IN_ATTRIB) {
			mark_changed(w, dir);
			inval_inode(w, dir, -1);
		}
		return;
	}
	if (ev->mask & ENTRY_EVENTS) {
		mark_changed(w, dir);  /* every entry of it: a name came or went */
		inval_entry(w, dir, ev->name, nlen);
		inval_inode(w, dir, 0); /* its attributes and its cached listing */
	}
	if (ev->mask & (IN_ATTRIB | IN_MODIFY | IN_CLOSE_WRITE)) {
		uint64_t c = child_of(w, dir, ev->name);
		/*
		 * A write's size and mtime refetched drop stale pages by
		 * themselves (AUTO_INVAL_DATA); a writer's close drops them all.
		 */
		if (c) {
			mark_changed(w, c);
			inval_inode(w, c, ev->mask & IN_CLOSE_WRITE ? 0 : -1);
		}
	}
}

static void read_events(struct fuse_watch *w)
{
	ssize_t n = read(w->ifd, w->buf, EVENT_BUF);

	for (ssize_t off = 0; n > 0 && off + (ssize_t)sizeof(struct inotify_event) <= n;) {
		const struct inotify_event *ev = (const void *)(w->buf + off);

		off += (ssize_t)(sizeof(*ev) + ev->len);
		if (off > n)
			break;
		one_event(w, ev);
	}
}

static void *watch_main(void *arg)
{
	struct fuse_watch *w = arg;
	struct pollfd p[2] = { { .fd = w->wake, .events = POLLIN }, { .fd = w->ifd, .events = POLLIN } };
	uint64_t v;

	(void)pthread_setname_np(pthread_self(), "fuse-watch");
	while (!atomic_load(&w->stop)) {
		if (poll(p, 2, -1) < 0)
			continue;
		if (p[0].revents && read(w->wake, &v, sizeof(v)) > 0) {
			run_ops(w);
			send_prune(w);
		}
		if (p[1].revents)
			read_events(w);
	}
	return NULL;
}

int fuse_watch_start(struct fuse_server *s)
{
	struct fuse_watch *w = calloc(1, sizeof(*w));
	struct fuse_inode *root;
	uint32_t budget = s->opts.cache == FS_CACHE_NEVER ? 0 : s->params.watches, mapcap = 4;
	int r = -ENOMEM;

	if (!w)
		return -ENOMEM;
	if (budget > FUSE_WATCH_MAX)
		budget = FUSE_WATCH_MAX;
	while (mapcap < 2 * budget)
		mapcap <<= 1;
	w->srv = s;
	w->budget = budget;
	w->cap = 2 * budget + 64;
	w->mapmask = mapcap - 1;
	w->ifd = w->wake = -1;
	pthread_mutex_init(&w->mu, NULL);
	w->ring = calloc(w->cap, sizeof(*w->ring));
	w->map = calloc(mapcap, sizeof(*w->map));
	w->buf = malloc(EVENT_BUF);
	if (!w->ring || !w->map || !w->buf)
		goto err;
	w->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	w->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->ifd < 0 || w->wake < 0) {
		r = -errno;
		goto err;
	}
	r = fs_thread_create(&w->thread, NULL, FS_ROLE_FUSE_WATCH, watch_main, w);
	if (r)
		goto err;
	w->started = true;
	s->watch = w;
	s->it.drop = fuse_watch_drop;
	s->it.evicted = fuse_watch_evicted;
	s->it.drop_ctx = w;
	root = fuse_inode_get(&s->it, FUSE_ROOT_ID);
	if (root) {
		fuse_watch_want(w, root);
		fuse_inode_put(&s->it, root);
	}
	return 0;
err:
	fuse_watch_free(w);
	return r;
}

void fuse_watch_stop(struct fuse_watch *w)
{
	uint64_t one = 1;

	if (!w || !w->started)
		return;
	atomic_store(&w->stop, true);
	(void)!write(w->wake, &one, sizeof(one));
	pthread_join(w->thread, NULL);
	w->started = false;
}

void fuse_watch_free(struct fuse_watch *w)
{
	if (!w)
		return;
	fuse_watch_stop(w);
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->wake >= 0)
		close(w->wake);
	pthread_mutex_destroy(&w->mu);
	free(w->ring);
	free(w->map);
	free(w->buf);
	free(w);
}
