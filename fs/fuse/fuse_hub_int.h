/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals of the FUSE hub shared by fuse_hub.c (routing, attach and
 * detach) and fuse_hub_root.c (the synthetic root, INIT, fan-out).
 */
#ifndef STAINLESS_FS_FUSE_FUSE_HUB_INT_H
#define STAINLESS_FS_FUSE_FUSE_HUB_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <time.h>

#include "fs/fuse/fuse_hub.h"
#include "fs/fuse/fuse_int.h"

/* Stand-ins for the transports a share is served through (a device's queues). */
#define HUB_TPS (FS_QUEUES_MAX * 2 + 2)

struct hub_share;

/* What a share's server is handed instead of transport orig: counts deferred answers. */
struct hub_tp {
	struct fs_transport t;
	_Atomic(const struct fs_transport *) orig;
	struct hub_share *sh;
};

/* A slot of the hub's pool; never freed while the hub lives. */
struct hub_share {
	struct fuse_server *srv;         /* NULL: free (under the hub's mu) */
	char name[FUSE_HUB_NAME_MAX + 1];
	uint8_t key;
	unsigned pos;                    /* its entry in the root's listing */
	bool readonly;
	_Atomic bool ready;              /* its server has had the client's INIT */
	_Atomic unsigned calls;          /* threads holding it (hub_share_get) */
	_Atomic unsigned pending;        /* requests its server has not answered yet */
	pthread_mutex_t tp_mu, init_mu;
	struct hub_tp tps[HUB_TPS];
};

struct fuse_hub {
	int base;                        /* O_PATH: shares are found beneath it */
	char base_path[PATH_MAX];
	struct fs_options opts;
	struct fuse_server *probe;       /* answers the client's INIT for the hub */
	pthread_mutex_t mu;              /* attach and detach */
	struct hub_share pool[FUSE_HUB_SHARES_MAX];
	_Atomic(struct hub_share *) by_key[256];
	_Atomic(struct hub_share *) entries[FUSE_HUB_SHARES_MAX];
	uint8_t next_key;
	/* The client's INIT, replayed to each share before its first request. */
	pthread_mutex_t init_mu;
	uint8_t init_req[sizeof(struct fuse_in_header) + sizeof(struct fuse_init_in)];
	size_t init_len;
	_Atomic bool initialized;
	uid_t uid;
	gid_t gid;
	struct timespec made;
};

/* fuse_hub_share.c */
struct hub_share *hub_share_get(_Atomic(struct hub_share *) *at);
void hub_share_put(struct hub_share *sh);
int hub_share_call(struct fuse_hub *h, struct hub_share *sh, struct fs_req *req,
		   const struct fs_transport *t);

/* fuse_hub_root.c */
int hub_init(struct fuse_hub *h, struct fs_req *req, const struct fs_transport *t);
int hub_destroy_op(struct fuse_hub *h, struct fs_req *req, const struct fs_transport *t);
int hub_fan_out(struct fuse_hub *h, struct fs_req *req, const struct fuse_in_header *in,
		size_t total);
int hub_root_op(struct fuse_hub *h, struct fs_req *req, const struct fuse_in_header *in,
		size_t total);

#endif
