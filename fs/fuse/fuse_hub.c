// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE hub (see fuse_hub.h): routing by nodeid and the shares' life
 * cycle (attach, detach).
 * The synthetic root's own answers are in fuse_hub_root.c, a share as
 * requests reach it in fuse_hub_share.c.
 */
#include "fs/fuse/fuse_hub_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs/resolve.h"

static _Atomic bool any_hub;

void fuse_hub_announce(void)
{
	atomic_store(&any_hub, true);
}

bool fuse_hub_any(void)
{
	return atomic_load(&any_hub);
}

int fuse_hub_name_check(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > FUSE_HUB_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '.' || ch == '_' || ch == '-' || ch == ':'))
			return -EINVAL;
	}
	return 0;
}

/* A request that is neither the hub's own nor names an attached share. */
static int hub_stale(const struct fs_req *req, const struct fuse_in_header *in)
{
	if (in->opcode == FUSE_FORGET)
		return 0;
	return fuse_reply_err(req, fs_iov_len(req->out, req->nout), in->unique, -ESTALE);
}

int fuse_hub_handle(struct fuse_hub *h, struct fs_req *req, const struct fs_transport *t)
{
	struct fuse_in_header in;
	struct hub_share *sh;
	size_t total = fs_iov_len(req->in, req->nin);
	int r;

	if (total < sizeof(in) || fs_iov_read(req->in, req->nin, 0, &in, sizeof(in)) != sizeof(in) ||
	    in.len != total)
		return fuse_reply_err(req, fs_iov_len(req->out, req->nout), 0, -EINVAL);
	switch (in.opcode) {
	case FUSE_INIT:
		return hub_init(h, req, t);
	case FUSE_DESTROY:
		return hub_destroy_op(h, req, t);
	case FUSE_INTERRUPT:
	case FUSE_BATCH_FORGET:
		return hub_fan_out(h, req, &in, total);
	}
	if (in.nodeid == FUSE_ROOT_ID)
		return hub_root_op(h, req, &in, total);
	sh = hub_share_get(&h->by_key[in.nodeid >> FUSE_HUB_ID_SHIFT]);
	if (!sh)
		return hub_stale(req, &in);
	r = hub_share_call(h, sh, req, t);
	hub_share_put(sh);
	if (r == -EBUSY)
		return fuse_reply_err(req, fs_iov_len(req->out, req->nout), in.unique, r);
	return r;
}

bool fuse_hub_idle(struct fuse_hub *h)
{
	bool did = false;

	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX; i++) {
		struct hub_share *sh = hub_share_get(&h->entries[i]);

		if (sh) {
			did |= fuse_server_idle(sh->srv);
			hub_share_put(sh);
		}
	}
	return did;
}

void fuse_hub_reset(struct fuse_hub *h)
{
	/* A device reset may come while the API detaches: one at a time. */
	pthread_mutex_lock(&h->mu);
	fuse_server_reset(h->probe);
	pthread_mutex_lock(&h->init_mu);
	h->init_len = 0;
	atomic_store(&h->initialized, false);
	pthread_mutex_unlock(&h->init_mu);
	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX; i++) {
		struct hub_share *sh = &h->pool[i];

		if (sh->srv) {
			fuse_server_reset(sh->srv);
			atomic_store(&sh->ready, false);
		}
	}
	pthread_mutex_unlock(&h->mu);
}

uint32_t fuse_hub_max_request(const struct fuse_hub *h)
{
	return fuse_server_max_request(h->probe);
}

int fuse_hub_create(struct fuse_hub **out, int base, const char *base_path,
		    const struct fs_options *opts)
{
	struct fuse_hub *h;
	int probe_fd, r;

	if (opts->dax_size || opts->writeback || opts->queues > 1 || strlen(base_path) >= PATH_MAX) {
		close(base);
		return -EINVAL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		close(base);
		return -ENOMEM;
	}
	h->base = base;
	strcpy(h->base_path, base_path);
	h->opts = *opts;
	h->opts.readonly = true;  /* the probe answers INIT only; shares say their own */
	h->uid = geteuid();
	h->gid = getegid();
	clock_gettime(CLOCK_REALTIME, &h->made);
	pthread_mutex_init(&h->mu, NULL);
	pthread_mutex_init(&h->init_mu, NULL);
	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX; i++) {
		pthread_mutex_init(&h->pool[i].tp_mu, NULL);
		pthread_mutex_init(&h->pool[i].init_mu, NULL);
	}
	/* INIT is answered by a server of the same options, so hub and shares agree on it. */
	probe_fd = fcntl(base, F_DUPFD_CLOEXEC, 0);
	r = probe_fd < 0 ? -errno : fuse_server_create_fd(&h->probe, probe_fd, &h->opts, NULL);
	if (r < 0) {
		fuse_hub_destroy(h);
		return r;
	}
	h->opts.readonly = false;
	atomic_store(&any_hub, true);
	*out = h;
	return 0;
}

void fuse_hub_destroy(struct fuse_hub *h)
{
	if (!h)
		return;
	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX; i++) {
		if (h->pool[i].srv)
			(void)fuse_hub_detach(h, h->pool[i].name);
		pthread_mutex_destroy(&h->pool[i].tp_mu);
		pthread_mutex_destroy(&h->pool[i].init_mu);
	}
	fuse_server_destroy(h->probe);
	close(h->base);
	pthread_mutex_destroy(&h->mu);
	pthread_mutex_destroy(&h->init_mu);
	free(h);
}

/* path's directory beneath base, one component at a time, no symlink followed. */
static int open_share(struct fuse_hub *h, const char *path)
{
	char buf[PATH_MAX], *save = NULL, *comp;
	size_t blen = strlen(h->base_path);
	int dirfd = h->base, fd = -EINVAL;

	if (path[0] == '/') {
		while (blen > 1 && h->base_path[blen - 1] == '/')
			blen--;
		if (strncmp(path, h->base_path, blen) ||
		    (blen > 1 && path[blen] != '/' && path[blen] != 0))
			return -EXDEV;
		path += blen;
	}
	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int r = fs_name_check(comp, strlen(comp));

		if (r == 0)
			r = fs_open_beneath(dirfd, comp, O_PATH | O_DIRECTORY, 0);
		if (dirfd != h->base)
			close(dirfd);
		if (r < 0)
			return r == -EINVAL && !strcmp(comp, "..") ? -EXDEV : r;
		dirfd = fd = r;
	}
	return fd;  /* -EINVAL: the path named base itself */
}

/* Under mu: the live share called name, or NULL. */
static struct hub_share *find_locked(struct fuse_hub *h, const char *name)
{
	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX; i++)
		if (h->pool[i].srv && !strcmp(h->pool[i].name, name))
			return &h->pool[i];
	return NULL;
}

/* Under mu: a key no live share has, round-robin over 1..255. */
static uint8_t next_key_locked(struct fuse_hub *h)
{
	for (;;) {
		h->next_key = h->next_key == 255 ? 1 : h->next_key + 1;
		if (!atomic_load(&h->by_key[h->next_key]))
			return h->next_key;
	}
}

int fuse_hub_attach(struct fuse_hub *h, const char *name, const char *path, bool readonly)
{
	struct fuse_server_params params = { 0 };
	struct fs_options opts = h->opts;
	struct hub_share *sh = NULL;
	unsigned pos = 0;
	int fd, r;

	if (fuse_hub_name_check(name) < 0 || !path[0])
		return -EINVAL;
	pthread_mutex_lock(&h->mu);
	if (find_locked(h, name)) {
		r = -EEXIST;
		goto out;
	}
	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX && !sh; i++)
		if (!h->pool[i].srv)
			sh = &h->pool[i];
	while (sh && pos < FUSE_HUB_SHARES_MAX && atomic_load(&h->entries[pos]))
		pos++;
	if (!sh || pos == FUSE_HUB_SHARES_MAX) {
		r = -ENOSPC;
		goto out;
	}
	fd = open_share(h, path);
	if (fd < 0) {
		r = fd;
		goto out;
	}
	opts.readonly = readonly;
	params.hub_key = next_key_locked(h);
	r = fuse_server_create_fd(&sh->srv, fd, &opts, &params);
	if (r < 0) {
		sh->srv = NULL;
		goto out;
	}
	strcpy(sh->name, name);
	sh->key = params.hub_key;
	sh->pos = pos;
	sh->readonly = readonly;
	atomic_store(&sh->ready, false);
	atomic_store(&h->by_key[sh->key], sh);
	atomic_store(&h->entries[pos], sh);
out:
	pthread_mutex_unlock(&h->mu);
	return r;
}

static void wait_zero(_Atomic unsigned *n)
{
	struct timespec ms = { 0, 1000000 };

	while (atomic_load(n))
		nanosleep(&ms, NULL);
}

int fuse_hub_detach(struct fuse_hub *h, const char *name)
{
	struct hub_share *sh;

	pthread_mutex_lock(&h->mu);
	sh = find_locked(h, name);
	if (!sh) {
		pthread_mutex_unlock(&h->mu);
		return -ENOENT;
	}
	/* Gone for new requests; then none inside, none parked, none in the ring. */
	atomic_store(&h->entries[sh->pos], NULL);
	atomic_store(&h->by_key[sh->key], NULL);
	wait_zero(&sh->calls);
	fuse_server_reset(sh->srv);
	wait_zero(&sh->pending);
	fuse_server_destroy(sh->srv);
	sh->srv = NULL;
	atomic_store(&sh->ready, false);
	pthread_mutex_unlock(&h->mu);
	return 0;
}

unsigned fuse_hub_list(struct fuse_hub *h, char names[][FUSE_HUB_NAME_MAX + 1], unsigned max)
{
	unsigned n = 0;

	pthread_mutex_lock(&h->mu);
	for (unsigned i = 0; i < FUSE_HUB_SHARES_MAX && n < max; i++) {
		struct hub_share *sh = atomic_load(&h->entries[i]);

		if (sh)
			strcpy(names[n++], sh->name);
	}
	pthread_mutex_unlock(&h->mu);
	return n;
}
