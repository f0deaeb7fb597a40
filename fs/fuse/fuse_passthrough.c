// SPDX-License-Identifier: GPL-2.0-only
/*
 * FUSE passthrough (fuse-mount --passthrough): an open regular file's reads,
 * writes and mappings go from the client's kernel straight to the host file
 * backing it, without a request to this server.
 *
 * The kernel's rules (fs/fuse/passthrough.c and iomode.c, Linux 6.9+) shape
 * this file:
 *  - a backing file is registered on the connection and named by an id in
 *    the open reply (FOPEN_PASSTHROUGH); registering needs CAP_SYS_ADMIN,
 *    which no serving thread has, so the server hands the fd to the
 *    front end's open_backing hook (fuse-mount: its registrar process);
 *  - every open of one inode must name the same backing file while any
 *    passthrough open of it lasts (another id: EBUSY; no id: EINVAL), so
 *    the id is the inode's, shared by its handles and closed when the last
 *    of them is released; the kernel has dropped its own reference by then
 *    (before it sends RELEASE), and an OPEN that raced it finds the id
 *    still registered;
 *  - FOPEN_DIRECT_IO takes precedence over FOPEN_PASSTHROUGH, so it is
 *    cleared: with passthrough no data is cached by the FUSE client at all.
 * A file the hook refuses (another mount beneath the share, a stacked
 * file system too deep, a full table) is served the usual way, and so is
 * every later open of it while that one lasts.
 */
#include "fs/fuse/fuse_int.h"

#include <errno.h>
#include <stdlib.h>

/* Inodes with an id at once: beyond it opens are served the usual way. */
#define PT_MAX 4096u
#define PT_SLOTS (2 * PT_MAX) /* open addressing, at most half full */

struct pt_entry {
	struct fuse_inode *ino;   /* NULL: free; referenced by its handles */
	int32_t id;
	uint32_t opens;           /* handles open with the id */
};

struct fuse_pt {
	pthread_mutex_t mu;       /* the table, and one hook call at a time */
	uint32_t n;
	struct pt_entry e[PT_SLOTS];
};

static uint32_t slot_of(const struct fuse_inode *ino)
{
	uint64_t k = (uint64_t)(uintptr_t)ino;

	k ^= k >> 29;
	k *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(k >> 32) & (PT_SLOTS - 1);
}

static struct pt_entry *find(struct fuse_pt *t, const struct fuse_inode *ino)
{
	for (uint32_t i = slot_of(ino), k = 0; k < PT_SLOTS; i = (i + 1) & (PT_SLOTS - 1), k++) {
		if (t->e[i].ino == ino)
			return &t->e[i];
		if (!t->e[i].ino)
			return NULL;
	}
	return NULL;
}

static struct pt_entry *insert(struct fuse_pt *t, struct fuse_inode *ino)
{
	uint32_t i = slot_of(ino);

	while (t->e[i].ino)
		i = (i + 1) & (PT_SLOTS - 1);
	t->n++;
	t->e[i] = (struct pt_entry){ .ino = ino };
	return &t->e[i];
}

/* Backward-shift deletion: the probe chains stay unbroken without tombstones. */
static void erase(struct fuse_pt *t, struct pt_entry *e)
{
	uint32_t hole = (uint32_t)(e - t->e);

	t->n--;
	for (uint32_t j = (hole + 1) & (PT_SLOTS - 1); t->e[j].ino; j = (j + 1) & (PT_SLOTS - 1)) {
		uint32_t home = slot_of(t->e[j].ino);
		/* Moves back only if its home is not in (hole, j]. */
		bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);

		if (stays)
			continue;
		t->e[hole] = t->e[j];
		hole = j;
	}
	t->e[hole] = (struct pt_entry){ 0 };
}

int fuse_passthrough_init(struct fuse_server *s)
{
	if (!s->params.backing)
		return 0;
	s->pt = calloc(1, sizeof(*s->pt));
	if (!s->pt)
		return -ENOMEM;
	pthread_mutex_init(&s->pt->mu, NULL);
	return 0;
}

void fuse_passthrough_forget_all(struct fuse_server *s)
{
	struct fuse_pt *t = s->pt;

	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	for (uint32_t i = 0; i < PT_SLOTS && t->n; i++) {
		if (!t->e[i].ino)
			continue;
		s->params.backing->close_backing(s->params.backing_ctx, t->e[i].id);
		t->e[i] = (struct pt_entry){ 0 };
		t->n--;
	}
	pthread_mutex_unlock(&t->mu);
}

void fuse_passthrough_fini(struct fuse_server *s)
{
	if (!s->pt)
		return;
	fuse_passthrough_forget_all(s);
	pthread_mutex_destroy(&s->pt->mu);
	free(s->pt);
	s->pt = NULL;
}

/* The inode's id for one more handle (fd, its open file): > 0, or 0 for none. */
static int32_t take_id(struct fuse_server *s, struct fuse_inode *ino, int fd)
{
	struct fuse_pt *t = s->pt;
	struct pt_entry *e;
	int id;

	pthread_mutex_lock(&t->mu);
	e = find(t, ino);
	if (e) {
		e->opens++;
		pthread_mutex_unlock(&t->mu);
		return e->id;
	}
	if (t->n >= PT_MAX) {
		pthread_mutex_unlock(&t->mu);
		return 0;
	}
	id = s->params.backing->open_backing(s->params.backing_ctx, fd);
	if (id > 0) {
		e = insert(t, ino);
		e->id = id;
		e->opens = 1;
	}
	pthread_mutex_unlock(&t->mu);
	return id > 0 ? id : 0;
}

void fuse_passthrough_reply(struct fuse_server *s, struct fuse_inode *ino, struct fuse_open_out *out)
{
	struct fuse_handle *h;
	int32_t id;

	if (!s->passthrough || !S_ISREG(ino->type))
		return;
	h = fuse_handle_get(&s->ht, out->fh);
	if (!h)
		return;
	id = take_id(s, ino, h->fd);
	if (id > 0) {
		h->passthrough = true;
		out->open_flags &= ~(uint32_t)(FOPEN_DIRECT_IO | FOPEN_PARALLEL_DIRECT_WRITES);
		out->open_flags |= FOPEN_PASSTHROUGH;
		FUSE_OPEN_OUT_BACKING_ID(out) = id;
	}
	fuse_handle_put(&s->ht, h, &s->it);
}

void fuse_passthrough_release(struct fuse_server *s, struct fuse_handle *h)
{
	struct fuse_pt *t = s->pt;
	struct pt_entry *e;

	/* Once per handle, however many RELEASEs a client sends for it. */
	if (!t || !atomic_exchange(&h->passthrough, false))
		return;
	pthread_mutex_lock(&t->mu);
	e = find(t, h->inode);
	if (e && --e->opens == 0) {
		s->params.backing->close_backing(s->params.backing_ctx, e->id);
		erase(t, e);
	}
	pthread_mutex_unlock(&t->mu);
}

bool fuse_server_passthrough(const struct fuse_server *s)
{
	return s->passthrough;
}
