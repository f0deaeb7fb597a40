// SPDX-License-Identifier: GPL-2.0-only
/* The FUSE server's bounded inode table and its fd cache (see fuse_inode.h). */
#include "fs/fuse/fuse_inode.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fs_fdbudget.h"

_Static_assert(sizeof(struct fuse_inode) <= FUSE_INODE_SLOT_MAX,
	       "fuse_inode.h states the table's memory from this");

/* The fdw word: the fd (+1, so 0 is "none") and its users. */
#define FDW(fd, users) (((uint64_t)(uint32_t)((fd) + 1) << 32) | (users))
#define FDW_FD(w) ((int)((w) >> 32) - 1)
#define FDW_USERS(w) ((uint32_t)(w))

_Static_assert(offsetof(struct fuse_inode, slot) == 0, "an inode starts with its slot");

static struct fuse_inode *ino_at(const struct fuse_itable *t, uint32_t i)
{
	return (struct fuse_inode *)fuse_slot_at(&t->slots, i);
}

static uint32_t hash_key(const struct fuse_itable *t, dev_t dev, ino_t ino)
{
	uint64_t k = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev * 0xc2b2ae3d27d4eb4full;

	return (uint32_t)(k >> 32) & (t->nbuckets - 1);
}

int fuse_itable_init(struct fuse_itable *t, uint32_t cap)
{
	memset(t, 0, sizeof(*t));
	t->mount_fd = -1;
	t->nbuckets = 1;
	while (t->nbuckets < cap)
		t->nbuckets <<= 1;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	/* Index 1 is the root's alone: nodeid 1 (generation 0) is only ever the root. */
	if (!t->buckets || fuse_slots_init(&t->slots, cap, sizeof(struct fuse_inode), 1)) {
		free(t->buckets);
		return -ENOMEM;
	}
	pthread_mutex_init(&t->mu, NULL);
	return 0;
}

static void hash_insert(struct fuse_itable *t, struct fuse_inode *ino)
{
	uint32_t b = hash_key(t, ino->dev, ino->ino);

	ino->hash_next = t->buckets[b];
	t->buckets[b] = ino->slot.idx;
	ino->hashed = true;
}

static void hash_remove(struct fuse_itable *t, struct fuse_inode *ino)
{
	uint32_t *p = &t->buckets[hash_key(t, ino->dev, ino->ino)];

	while (*p && *p != ino->slot.idx)
		p = &ino_at(t, *p)->hash_next;
	if (*p)
		*p = ino->hash_next;
	ino->hashed = false;
}

/* Under mu. The sweep meets a new entry last: it goes in just behind the hand. */
static void ring_add(struct fuse_itable *t, struct fuse_inode *ino)
{
	if (!t->hand) {
		ino->ring_prev = ino->ring_next = ino->slot.idx;
		t->hand = ino->slot.idx;
	} else {
		struct fuse_inode *next = ino_at(t, t->hand);

		ino->ring_next = next->slot.idx;
		ino->ring_prev = next->ring_prev;
		ino_at(t, next->ring_prev)->ring_next = ino->slot.idx;
		next->ring_prev = ino->slot.idx;
	}
	ino->cached = true;
	t->ncached++;
}

/* Under mu. */
static void ring_remove(struct fuse_itable *t, struct fuse_inode *ino)
{
	if (!ino->cached)
		return;
	if (ino->ring_next == ino->slot.idx) {
		t->hand = 0;
	} else {
		ino_at(t, ino->ring_prev)->ring_next = ino->ring_next;
		ino_at(t, ino->ring_next)->ring_prev = ino->ring_prev;
		if (t->hand == ino->slot.idx)
			t->hand = ino->ring_next;
	}
	ino->cached = false;
	t->ncached--;
}

/*
 * Closes one cached fd that no request uses: CLOCK, so an fd used since
 * the hand last passed gets another round. The CAS that takes the fd
 * fails if a request started using it meanwhile. An open file's inode is
 * fair game: its handle has an fd of its own, and a handle reopens an
 * unlinked file as long as it is open. 0, or -ENFILE when every cached fd
 * is in use.
 */
static int evict_one(struct fuse_itable *t)
{
	int fd = -1;

	pthread_mutex_lock(&t->mu);
	for (uint32_t n = 2 * t->ncached; n && t->hand && fd < 0; n--) {
		struct fuse_inode *ino = ino_at(t, t->hand);
		uint64_t w = atomic_load(&ino->fdw);

		t->hand = ino->ring_next;
		if (FDW_USERS(w) || FDW_FD(w) < 0)
			continue;
		if (atomic_exchange_explicit(&ino->recent, false, memory_order_relaxed))
			continue;
		if (atomic_compare_exchange_strong(&ino->fdw, &w, 0)) {
			fd = FDW_FD(w);
			ring_remove(t, ino);
		}
	}
	pthread_mutex_unlock(&t->mu);
	if (fd < 0)
		return -ENFILE;
	close(fd);
	fs_fd_refund();
	return 0;
}

int fuse_itable_charge(struct fuse_itable *t)
{
	/* A few rounds: a racing charge may take the fd an eviction gave back. */
	for (int i = 0; i < 4; i++) {
		if (fs_fd_charge() == 0)
			return 0;
		if (evict_one(t) < 0)
			return -ENFILE;
	}
	return -ENFILE;
}

/* For an fd the table could do without: only while the budget is loose. */
static int cache_charge(struct fuse_itable *t)
{
	if (!fs_fd_tight() && fs_fd_charge() == 0)
		return 0;
	return evict_one(t) == 0 && fs_fd_charge() == 0 ? 0 : -ENFILE;
}

/*
 * Makes fd (uncharged, the caller's) the cached fd of ino, which has a
 * handle and is referenced, with users requests using it. False when the
 * budget is tight and nothing could be evicted, or ino got an fd
 * meanwhile: the caller keeps fd.
 */
static bool cache_install(struct fuse_itable *t, struct fuse_inode *ino, int fd,
			  uint32_t users)
{
	uint64_t none = 0;

	if (atomic_load(&ino->fdw) != 0 || cache_charge(t) < 0)
		return false;
	if (!atomic_compare_exchange_strong(&ino->fdw, &none, FDW(fd, users))) {
		fs_fd_refund();
		return false;
	}
	atomic_store_explicit(&ino->recent, true, memory_order_relaxed);
	/* Referenced: the slot cannot be freed before it is on the ring. */
	pthread_mutex_lock(&t->mu);
	ring_add(t, ino);
	pthread_mutex_unlock(&t->mu);
	return true;
}

/*
 * The file handle of the object fd names and the mount it is on; NULL
 * when the filesystem gives none.
 */
static struct file_handle *make_handle(int fd, int *mount_id)
{
	_Alignas(struct file_handle) unsigned char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	struct file_handle *fh = (struct file_handle *)buf, *copy;

	fh->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", fh, mount_id, AT_EMPTY_PATH) < 0)
		return NULL;
	copy = malloc(sizeof(*fh) + fh->handle_bytes);
	if (copy)
		memcpy(copy, fh, sizeof(*fh) + fh->handle_bytes);
	return copy;
}

/* A handle for an inode of t, when handles are on and fd is on the root's mount. */
static struct file_handle *inode_handle(const struct fuse_itable *t, int fd)
{
	struct file_handle *fh;
	int mount_id;

	if (!t->handles || !(fh = make_handle(fd, &mount_id)))
		return NULL;
	if (mount_id == t->mount_id)
		return fh;
	free(fh);
	return NULL;
}

/*
 * open_by_handle_at needs CAP_DAC_READ_SEARCH, which a thread running as
 * a client's fsuid does not have in effect: the reopen runs as fsuid 0
 * (which raises the capability again) and goes back. The handle is the
 * server's own; only what the reopened fd is used for runs as the client.
 */
static int reopen(const struct fuse_itable *t, const struct fuse_inode *ino)
{
	uid_t was = (uid_t)setfsuid(0);
	int fd = open_by_handle_at(t->mount_fd, ino->fh, O_PATH | O_CLOEXEC);
	int err = errno;
	struct stat st;

	if (was != 0)
		setfsuid(was);
	if (fd < 0)
		return -err;
	/* Same mount, same generation: it is the same object, but be sure. */
	if (fstat(fd, &st) < 0 || st.st_dev != ino->dev || st.st_ino != ino->ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int fuse_inode_fd(struct fuse_itable *t, struct fuse_inode *ino, struct fuse_ifd *f)
{
	uint64_t w = atomic_load(&ino->fdw);
	int fd;

	f->ino = ino;
	f->fd = -1;
	f->own = false;
	for (;;) {
		while (FDW_FD(w) >= 0) {
			if (atomic_compare_exchange_weak(&ino->fdw, &w, w + 1)) {
				if (!atomic_load_explicit(&ino->recent, memory_order_relaxed))
					atomic_store_explicit(&ino->recent, true,
							      memory_order_relaxed);
				f->fd = FDW_FD(w);
				return 0;
			}
		}
		if (!ino->fh)
			return -ESTALE; /* cannot happen: such an inode keeps its fd */
		fd = reopen(t, ino);
		if (fd < 0)
			return fd;
		if (cache_install(t, ino, fd, 1)) {
			f->fd = fd;
			return 0;
		}
		w = atomic_load(&ino->fdw);
		if (FDW_FD(w) < 0) {
			/* No room in the budget: this request's own fd, from the reserve. */
			f->fd = fd;
			f->own = true;
			return 0;
		}
		close(fd); /* another request cached one first: use that */
	}
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

static void fill_inode(struct fuse_inode *ino, const struct stat *st, struct file_handle *fh)
{
	ino->fh = fh;
	ino->dev = st->st_dev;
	ino->ino = st->st_ino;
	ino->type = st->st_mode & S_IFMT;
	ino->nlookup = 1;
	ino->owners = NULL;
	ino->submount = false;
	ino->cached = false;
}

/*
 * Whether the root's filesystem gives handles this process can open: the
 * root's own handle is made and opened once. open_by_handle_at refuses an
 * O_PATH mount fd, so the mount fd is the root opened for reading, one
 * more fd the share keeps (charged).
 */
static void probe_handles(struct fuse_itable *t, int fd)
{
	struct fuse_inode probe = { .fh = make_handle(fd, &t->mount_id) };
	struct stat st;
	int pfd = -EOPNOTSUPP;

	if (probe.fh && fstat(fd, &st) == 0 && fs_fd_charge() == 0) {
		t->mount_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		probe.dev = st.st_dev;
		probe.ino = st.st_ino;
		pfd = t->mount_fd < 0 ? -errno : reopen(t, &probe);
		if (pfd < 0) {
			if (t->mount_fd >= 0)
				close(t->mount_fd);
			t->mount_fd = -1;
			fs_fd_refund();
		}
	}
	if (pfd >= 0)
		close(pfd);
	t->handles = pfd >= 0;
	free(probe.fh);
}

int fuse_itable_set_root(struct fuse_itable *t, int fd, const struct stat *st,
			 bool handles)
{
	struct fuse_inode *root = ino_at(t, 1);

	if (fs_fd_charge() < 0) {
		close(fd);
		return -ENFILE;
	}
	if (handles)
		probe_handles(t, fd);
	fill_inode(root, st, NULL); /* never evicted: it is the mount fd */
	atomic_store(&root->fdw, FDW(fd, 0));
	hash_insert(t, root);
	fuse_slot_open(&t->slots, &root->slot, 1); /* the table's reference */
	return 0;
}

/* Under mu: the known inode for st, with one more lookup and a reference. */
static struct fuse_inode *find_known(struct fuse_itable *t, const struct stat *st)
{
	for (uint32_t i = t->buckets[hash_key(t, st->st_dev, st->st_ino)]; i;
	     i = ino_at(t, i)->hash_next) {
		struct fuse_inode *ino = ino_at(t, i);

		if (ino->dev == st->st_dev && ino->ino == st->st_ino) {
			ino->nlookup++;
			/* Hashed means the table holds a reference: this cannot fail. */
			fuse_slot_ref(&ino->slot);
			return ino;
		}
	}
	return NULL;
}

/* A known inode found again: fd may refill its cache, else it goes. */
static void known_again(struct fuse_itable *t, struct fuse_inode *ino, int fd)
{
	if (!ino->fh || !cache_install(t, ino, fd, 0))
		close(fd);
}

int fuse_inode_lookup_add(struct fuse_itable *t, int fd, const struct stat *st,
			  dev_t parent_dev, struct fuse_inode **out)
{
	struct file_handle *fh;
	struct fuse_inode *ino;
	bool kept = false, fresh;

	pthread_mutex_lock(&t->mu);
	ino = find_known(t, st);
	pthread_mutex_unlock(&t->mu);
	if (ino)
		goto known;
	/* New: its handle is made outside the lock, then the hash is checked again. */
	fh = inode_handle(t, fd);
	/* Without a handle the fd is kept for life: charge it before it is seen. */
	if (!fh) {
		if (fuse_itable_charge(t) < 0) {
			close(fd);
			return -ENFILE;
		}
		kept = true;
	}
	pthread_mutex_lock(&t->mu);
	ino = find_known(t, st);
	if (ino || !(ino = (struct fuse_inode *)fuse_slot_alloc(&t->slots, &fresh))) {
		pthread_mutex_unlock(&t->mu);
		free(fh);
		if (kept)
			fs_fd_refund();
		if (ino)
			goto known;
		close(fd);
		return -ENFILE;
	}
	fill_inode(ino, st, fh);
	ino->submount = S_ISDIR(st->st_mode) && st->st_dev != parent_dev;
	atomic_store(&ino->fdw, kept ? FDW(fd, 0) : 0);
	hash_insert(t, ino);
	/* The table's reference (until forgotten) and the caller's. */
	fuse_slot_open(&t->slots, &ino->slot, 2);
	pthread_mutex_unlock(&t->mu);
	if (!kept && !cache_install(t, ino, fd, 0))
		close(fd); /* reopened by handle when a request needs it */
	*out = ino;
	return 0;
known:
	known_again(t, ino, fd);
	*out = ino;
	return 0;
}

struct fuse_inode *fuse_inode_find(struct fuse_itable *t, const struct stat *st)
{
	struct fuse_inode *ino;

	pthread_mutex_lock(&t->mu);
	ino = find_known(t, st);
	pthread_mutex_unlock(&t->mu);
	return ino;
}

struct fuse_inode *fuse_inode_get(struct fuse_itable *t, uint64_t nodeid)
{
	return (struct fuse_inode *)fuse_slot_get(&t->slots, nodeid);
}

void fuse_inode_ref(struct fuse_inode *ino)
{
	fuse_slot_ref(&ino->slot);
}

void fuse_inode_put(struct fuse_itable *t, struct fuse_inode *ino)
{
	struct fuse_lock_owner *o, *next;

	if (!fuse_slot_put(&ino->slot))
		return;
	/*
	 * Last reference: no request can reach this slot until it is freed;
	 * the sweep may still look at it (under mu), and the exchange leaves
	 * it nothing to take.
	 */
	int fd = FDW_FD(atomic_exchange(&ino->fdw, 0));
	if (fd >= 0) {
		close(fd);
		fs_fd_refund();
	}
	for (o = ino->owners; o; o = next) {
		next = o->next;
		close(o->fd);
		fs_fd_refund();
		free(o);
		atomic_fetch_sub(&t->nowners, 1);
	}
	ino->owners = NULL;
	pthread_mutex_lock(&t->mu);
	ring_remove(t, ino);
	free(ino->fh);
	ino->fh = NULL;
	fuse_slot_free(&t->slots, &ino->slot);
	pthread_mutex_unlock(&t->mu);
}

uint64_t fuse_inode_nodeid(const struct fuse_inode *ino)
{
	return fuse_slot_id(&ino->slot);
}

uint32_t fuse_inode_gen(const struct fuse_inode *ino)
{
	return FUSE_GEN(atomic_load(&ino->slot.state));
}
void fuse_inode_forget(struct fuse_itable *t, uint64_t nodeid, uint64_t n)
{
	uint32_t idx = (uint32_t)nodeid;
	struct fuse_inode *ino;
	bool drop = false;

	/* The root is pinned: the client never looked it up. */
	if (idx <= 1 || idx >= t->slots.cap)
		return;
	ino = ino_at(t, idx);
	pthread_mutex_lock(&t->mu);
	uint64_t s = atomic_load(&ino->slot.state);
	if (FUSE_GEN(s) == (uint32_t)(nodeid >> 32) && FUSE_REFS(s) && ino->hashed) {
		ino->nlookup = n >= ino->nlookup ? 0 : ino->nlookup - n;
		if (ino->nlookup == 0) {
			hash_remove(t, ino);
			drop = true;
		}
	}
	pthread_mutex_unlock(&t->mu);
	if (drop)
		fuse_inode_put(t, ino);
}

void fuse_itable_forget_all(struct fuse_itable *t)
{
	for (uint32_t i = 2; i <= t->slots.used; i++) {
		struct fuse_inode *ino = ino_at(t, i);

		pthread_mutex_lock(&t->mu);
		bool drop = ino->hashed;
		if (drop) {
			ino->nlookup = 0;
			hash_remove(t, ino);
		}
		pthread_mutex_unlock(&t->mu);
		if (drop)
			fuse_inode_put(t, ino);
	}
}

void fuse_itable_fini(struct fuse_itable *t)
{
	fuse_itable_forget_all(t);
	if (t->slots.base && FUSE_REFS(atomic_load(&ino_at(t, 1)->slot.state))) {
		ino_at(t, 1)->hashed = false;
		fuse_inode_put(t, ino_at(t, 1));
	}
	if (t->mount_fd >= 0) {
		close(t->mount_fd);
		fs_fd_refund();
		t->mount_fd = -1;
	}
	pthread_mutex_destroy(&t->mu);
	fuse_slots_fini(&t->slots);
	free(t->buckets);
	t->buckets = NULL;
}
