// SPDX-License-Identifier: GPL-2.0-only
/*
 * An inode's fd when a request needs it, reopened by name where the
 * cache gave it up, and the names that follow RENAME, LOOKUP and UNLINK
 * (see fuse_inode.h: why names and not file handles).
 */
#include "fs/fuse/fuse_icache.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/creds.h"
#include "fs/fs_fdbudget.h"
#include "fs/resolve.h"

/* ino's cached fd held for a request, when it has one: the fast path. */
static bool hold_cached(struct fuse_inode *ino, struct fuse_ifd *f)
{
	uint64_t w = atomic_load(&ino->fdw);

	while (FDW_FD(w) >= 0) {
		if (atomic_compare_exchange_weak(&ino->fdw, &w, w + 1)) {
			if (!atomic_load_explicit(&ino->recent, memory_order_relaxed))
				atomic_store_explicit(&ino->recent, true, memory_order_relaxed);
			*f = (struct fuse_ifd){ .ino = ino, .fd = FDW_FD(w) };
			return true;
		}
	}
	return false;
}

uint32_t fuse_inode_btag(const struct statx *sx)
{
	uint64_t b;

	if (!(sx->stx_mask & STATX_BTIME))
		return 0;
	b = (uint64_t)sx->stx_btime.tv_sec * 1000000000u + sx->stx_btime.tv_nsec;
	return (uint32_t)(b ^ b >> 32) | 1; /* never 0, which means "none" */
}

/* What a reopened object is checked by, read under the table mutex (a copy-up rekeys). */
struct ikey {
	dev_t dev;
	ino_t ino;
	uint32_t btag;
	mode_t type;
};

/*
 * Whether the object fd names is ino itself: same device, inode number
 * and type, and the same birth time where both have one (an inode number
 * the file system gave again to a new file).
 */
static bool same_object(int fd, const struct ikey *ino)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_TYPE | STATX_INO | STATX_BTIME, &sx) < 0)
		return false;
	if (makedev(sx.stx_dev_major, sx.stx_dev_minor) != ino->dev || sx.stx_ino != ino->ino ||
	    (sx.stx_mode & S_IFMT) != ino->type)
		return false;
	return !ino->btag || !(sx.stx_mask & STATX_BTIME) || fuse_inode_btag(&sx) == ino->btag;
}

/*
 * Opens ino by its name beneath dirfd, its parent's fd: one component,
 * openat2 beneath, no symlink followed, then checked. fd or -ESTALE (or
 * -errno of the open). As fsuid 0, which raises the file-system
 * capabilities again for a request running as a client's fsuid: the name
 * is the server's own, only what the fd is used for runs as the client.
 */
static int open_verified(int dirfd, const char *name, const struct ikey *ino)
{
	uid_t was = fs_creds_raise();
	int fd = fs_open_beneath(dirfd, name, O_PATH, 0);

	fs_creds_lower(was);
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
		return -ESTALE;
	if (fd >= 0 && !same_object(fd, ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* The referenced parent of ino, with a reference of the caller's; -ESTALE if nameless. */
static int parent_of(struct fuse_itable *t, struct fuse_inode *ino, struct fuse_inode **parent)
{
	pthread_mutex_lock(&t->mu);
	*parent = ino->name ? ino->parent : NULL;
	if (*parent)
		fuse_slot_ref(&(*parent)->slot);
	pthread_mutex_unlock(&t->mu);
	return *parent ? 0 : -ESTALE;
}

/* ino's name and key, when its parent is still dir (-ESTALE: moved or unlinked meanwhile). */
static int name_in(struct fuse_itable *t, struct fuse_inode *ino, const struct fuse_inode *dir,
		   char name[NAME_MAX + 1], struct ikey *key)
{
	int r = -ESTALE;

	pthread_mutex_lock(&t->mu);
	if (ino->name && ino->parent == dir) {
		snprintf(name, NAME_MAX + 1, "%s", ino->name);
		*key = (struct ikey){ ino->dev, ino->ino, ino->btag, ino->type };
		r = 0;
	}
	pthread_mutex_unlock(&t->mu);
	return r;
}

/* fd, just opened for ino, cached if there is room, else held by f alone. */
static void settle(struct fuse_itable *t, struct fuse_inode *ino, int fd, struct fuse_ifd *f)
{
	if (fuse_icache_install(t, ino, fd, 1)) {
		*f = (struct fuse_ifd){ .ino = ino, .fd = fd };
		return;
	}
	if (hold_cached(ino, f)) {
		close(fd); /* another request cached one first: use that */
		return;
	}
	/* No room in the budget: this request's own fd, from the reserve. */
	*f = (struct fuse_ifd){ .ino = ino, .fd = fd, .own = true };
}

/* A stack of referenced inodes, growing past its first few. */
struct chain {
	struct fuse_inode **v, *first[16];
	size_t n, cap;
};

static int chain_push(struct chain *c, struct fuse_inode *ino)
{
	if (c->n == c->cap) {
		size_t cap = c->cap * 2;
		struct fuse_inode **v = malloc(cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memcpy(v, c->v, c->n * sizeof(*v));
		if (c->v != c->first)
			free(c->v);
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = ino;
	return 0;
}

/*
 * Reopens ino by name. Up: the inodes without an fd, ino first, until
 * one whose fd can be held (the root has one for good). Down: each opened
 * by its name beneath the one above and checked, cached where there is
 * room (its siblings will want it). No recursion: a deep tree costs heap,
 * not stack. On success f holds ino's fd.
 */
static int reopen(struct fuse_itable *t, struct fuse_inode *ino, struct fuse_ifd *f)
{
	struct chain c = { .v = c.first, .cap = 16 };
	struct fuse_inode *cur = ino;
	struct fuse_ifd at;
	char name[NAME_MAX + 1];
	struct ikey key;
	int r = 0;

	fuse_slot_ref(&cur->slot);
	/* cur: referenced and not on the chain (NULL once its reference is the chain's). */
	while (!hold_cached(cur, &at)) {
		if ((r = chain_push(&c, cur)) < 0)
			break;
		cur = NULL;
		if ((r = parent_of(t, c.v[c.n - 1], &cur)) < 0)
			break;
		if (c.n > t->slots.cap) {
			r = -ESTALE; /* a loop in the table: never, but never spin either */
			break;
		}
	}
	for (size_t i = c.n; r == 0 && i-- > 0;) {
		int fd = name_in(t, c.v[i], at.ino, name, &key);

		if (fd == 0)
			fd = open_verified(at.fd, name, &key);
		fuse_inode_fd_put(&at);
		if (fd < 0)
			r = fd;
		else
			settle(t, c.v[i], fd, &at);
	}
	if (r == 0)
		*f = at;
	if (cur)
		fuse_inode_put(t, cur);
	while (c.n)
		fuse_inode_put(t, c.v[--c.n]);
	if (c.v != c.first)
		free(c.v);
	return r;
}

int fuse_inode_fd(struct fuse_itable *t, struct fuse_inode *ino, struct fuse_ifd *f)
{
	if (hold_cached(ino, f))
		return 0;
	*f = (struct fuse_ifd){ .ino = ino, .fd = -1 };
	return reopen(t, ino, f);
}

void fuse_inode_fd_put(struct fuse_ifd *f)
{
	if (f->own)
		close(f->fd);
	else
		atomic_fetch_sub(&f->ino->fdw, 1);
	f->fd = -1;
	f->own = false;
}

/* Under mu: whether dir is ino or lies beneath it in the table. */
static bool beneath(const struct fuse_itable *t, const struct fuse_inode *dir,
		    const struct fuse_inode *ino)
{
	for (uint32_t n = 0; dir && n <= t->slots.cap; n++, dir = dir->parent)
		if (dir == ino)
			return true;
	return dir != NULL;
}

void fuse_inode_moved(struct fuse_itable *t, struct fuse_inode *ino,
		      struct fuse_inode *parent, const char *name)
{
	struct fuse_inode *old = NULL;
	char *copy, *was = NULL;

	pthread_mutex_lock(&t->mu);
	bool same = !ino->name || (ino->parent == parent && strcmp(ino->name, name) == 0);
	pthread_mutex_unlock(&t->mu);
	if (same || !(copy = strdup(name)))
		return;
	pthread_mutex_lock(&t->mu);
	if (ino->name && !(S_ISDIR(ino->type) && beneath(t, parent, ino))) {
		old = ino->parent;
		was = ino->name;
		fuse_slot_ref(&parent->slot);
		ino->parent = parent;
		ino->name = copy;
		copy = NULL;
	}
	pthread_mutex_unlock(&t->mu);
	free(copy);
	free(was);
	if (old)
		fuse_inode_put(t, old);
}

void fuse_inode_unlinked(struct fuse_itable *t, struct fuse_inode *ino, struct fuse_ifd *f)
{
	struct fuse_inode *old;
	uint64_t none = 0;
	char *was;

	/* A request's own fd becomes the inode's for good, where the budget has room. */
	if (f->own && fuse_itable_charge(t) == 0) {
		if (atomic_compare_exchange_strong(&ino->fdw, &none, FDW(f->fd, 1)))
			f->own = false;
		else
			fs_fd_refund();
	}
	pthread_mutex_lock(&t->mu);
	fuse_icache_drop_locked(t, ino); /* held by f: the sweep cannot be taking it */
	old = ino->parent;
	was = ino->name;
	ino->parent = NULL;
	ino->name = NULL;
	pthread_mutex_unlock(&t->mu);
	free(was);
	if (old)
		fuse_inode_put(t, old);
}
