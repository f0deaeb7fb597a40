/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Host changes told to the client: one inotify watch per directory the
 * client has looked up, up to a budget, so that a change another host
 * process makes below a watched directory is pushed to the kernel as
 * FUSE_NOTIFY_INVAL_ENTRY / FUSE_NOTIFY_INVAL_INODE (fuse-mount) and an
 * entry or attribute is given the share's long lifetime only while a
 * watch covers it; what no watch covers gets FUSE_WATCH_SHORT_SEC, so a
 * spent budget degrades to plain timeouts, never to staleness without a
 * bound.
 *
 * Threads. The watches are added, removed and read by one thread of the
 * fuse-watch role that never serves a request: an INVAL_ENTRY takes the
 * directory's inode lock in the kernel, and a server thread writing it
 * while the kernel holds that lock waiting for the same thread's reply
 * would wait for ever (libfuse's notes on fuse_lowlevel_notify_inval_entry
 * say the same). Serving threads only queue work for it (a directory to
 * watch, a forgotten inode's watch to drop) in a ring bounded by twice
 * the budget and wake it through an eventfd; they never wait for it.
 *
 * Budget. Watches come from fs.inotify.max_user_watches, one count per
 * host user shared with every other program of that user: a client that
 * looks up a million directories gets at most `budget` of them (one log
 * line when it runs out), and the memory they cost is the ring and the
 * map, both sized by the budget at start.
 *
 * Prune. Where the kernel reads FUSE_NOTIFY_PRUNE (7.45, Linux 6.18) the
 * same thread offers it, in batches, the inodes whose cached fd the
 * table's sweep took (fuse_inode.h): idle ones, at a time the fd budget
 * is tight. The kernel drops those nothing uses and FORGETs them, so its
 * references stop pinning the table. The thread runs for that even with
 * no watches (cache=never, --watches 0).
 */
#ifndef STAINLESS_FS_FUSE_FUSE_WATCH_H
#define STAINLESS_FS_FUSE_FUSE_WATCH_H

#include <stdbool.h>
#include <stdint.h>

struct fuse_server;
struct fuse_inode;
struct fuse_watch;

/* The lifetime of an entry or attribute no watch covers (cache=auto's). */
#define FUSE_WATCH_SHORT_SEC 1
/*
 * The longest lifetime a watched share with no notification path
 * (virtio-fs, vhost-user-fs) grants: a host change shows within it.
 */
#define FUSE_WATCH_CAP_SEC 10
/* fuse-mount's default budget; also at most an eighth of max_user_watches. */
#define FUSE_WATCH_DEFAULT 4096u
#define FUSE_WATCH_MAX (1u << 20)

/*
 * Starts the watcher for s (params.watches > 0) and queues the root's
 * watch. 0 or -errno (then s serves with plain timeouts).
 */
int fuse_watch_start(struct fuse_server *s);
/* Stops and joins the thread; the ring stays for the table's last drops. */
void fuse_watch_stop(struct fuse_watch *w);
void fuse_watch_free(struct fuse_watch *w);

/* A directory inode was given to the client: watch it (if budget remains). */
void fuse_watch_want(struct fuse_watch *w, struct fuse_inode *ino);

/* The itable's hooks: an inode with watch wd is being freed; one lost its cached fd. */
void fuse_watch_drop(void *ctx, int32_t wd, uint64_t nodeid);
void fuse_watch_evicted(void *ctx, uint64_t nodeid);

/* Do watches set lifetimes (a budget above 0)? */
bool fuse_watch_covering(const struct fuse_watch *w);

/*
 * Seconds an entry or attribute reply for ino may be cached (the caller
 * holds ino; ctime_sec: the host ctime the reply carries). With no
 * notify (virtio-fs) a covered inode gets between FUSE_WATCH_SHORT_SEC
 * and FUSE_WATCH_CAP_SEC (or the share's timeout= when set), by how long
 * it has been quiet.
 */
uint64_t fuse_watch_lifetime(struct fuse_server *s, struct fuse_inode *ino, int64_t ctime_sec);

/* Counters for tests and --stats. */
struct fuse_watch_stats {
	uint32_t watches;      /* held now */
	uint64_t refused;      /* directories the budget left unwatched */
	uint64_t events;       /* inotify events read */
	uint64_t sent;         /* notifications the kernel took */
	uint64_t pruned;       /* nodeids offered to the kernel to drop (PRUNE) */
};
void fuse_watch_stats(const struct fuse_watch *w, struct fuse_watch_stats *out);

#endif
