/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A FUSE hub: one file system whose root is a directory the server makes
 * up, holding one entry per attached share. Shares are attached and
 * detached while the client runs (virtio-mmio has no hot-plug, so a
 * running guest cannot be given a new device; it can be given a new
 * entry). Each entry is the root of an ordinary FUSE server
 * (fuse_server.h) and is flagged FUSE_ATTR_SUBMOUNT, so a Linux virtiofs
 * client mounts it as a submount with its own st_dev.
 *
 * Nodeids: the hub's root is nodeid 1; a share's nodeids carry the
 * share's key (1..255) in their top byte (fuse_itable_set_tag), so a
 * request is routed by its nodeid alone, and one naming a share that
 * is gone answers ESTALE. Keys are handed out round-robin, so a detached
 * share's key is reused only after 254 other attaches.
 *
 * Where shares come from: a share is a directory beneath the hub's base
 * directory (opened before the sandbox locks down), resolved one
 * component at a time with openat2 beneath it, no symlink followed. The
 * client sees only what is attached; the process holds base's fd.
 *
 * Detach: the entry goes at once (new requests for the share answer
 * ESTALE), requests inside the share's server are waited for, its
 * parked lock waits are cancelled (EINTR), its asynchronous I/O is waited
 * for, and then its server is destroyed: every fd of the share -- its
 * root, inodes the client still remembers, open files, lock owners -- is
 * closed before fuse_hub_detach() returns. The client's open files on it
 * get ESTALE from then on.
 *
 * Thread-safe: fuse_hub_handle() from any number of threads; attach and
 * detach from one control thread, concurrently with them.
 */
#ifndef STAINLESS_FS_FUSE_FUSE_HUB_H
#define STAINLESS_FS_FUSE_FUSE_HUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs/fs_options.h"
#include "fs/fs_req.h"

struct fuse_hub;

#define FUSE_HUB_SHARES_MAX 16
/* A share's name: 1..36 bytes of letters, digits, '.', '_', '-' and ':' (a tag's). */
#define FUSE_HUB_NAME_MAX 36

/*
 * base: the directory shares are found beneath (taken; closed on
 * failure), base_path its name on the host (absolute share paths must
 * lie under it). opts: every share's options (readonly is per share; DAX,
 * writeback and queues are not hub options and are refused).
 */
int fuse_hub_create(struct fuse_hub **out, int base, const char *base_path,
		    const struct fs_options *opts);
void fuse_hub_destroy(struct fuse_hub *h);

/* As fuse_server_handle(), fuse_server_idle(), fuse_server_reset(). */
int fuse_hub_handle(struct fuse_hub *h, struct fs_req *req, const struct fs_transport *t);
bool fuse_hub_idle(struct fuse_hub *h);
void fuse_hub_reset(struct fuse_hub *h);
uint32_t fuse_hub_max_request(const struct fuse_hub *h);

/*
 * The process will make a hub: its control thread then attaches and
 * detaches shares, and the seccomp policy asks fuse_hub_any() when it
 * builds the filters (call it before). Creating a hub announces it too.
 */
void fuse_hub_announce(void);
bool fuse_hub_any(void);

/* 0 when name is a valid share name, else -EINVAL. */
int fuse_hub_name_check(const char *name);

/*
 * Attaches the directory path (relative to base, or absolute under
 * base_path) as name. 0; -EEXIST when name is
 * taken; -ENOSPC past FUSE_HUB_SHARES_MAX; -EINVAL for a bad name or
 * path; -ENOTDIR (also a symlink), -ENOENT, -EXDEV (outside base) or
 * another -errno of opening it.
 */
int fuse_hub_attach(struct fuse_hub *h, const char *name, const char *path, bool readonly);

/* Detaches name (see the top). 0 or -ENOENT. */
int fuse_hub_detach(struct fuse_hub *h, const char *name);

/* The attached shares' names, in entry order, into names; their count. */
unsigned fuse_hub_list(struct fuse_hub *h, char names[][FUSE_HUB_NAME_MAX + 1], unsigned max);

#endif
