/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Requests with a deadline (share option timeout=SECONDS, see
 * docs/stuck-host-fs.md): no request on a host file system that may stop
 * answering (FUSE, NFS, CIFS, 9p, ...: any type not known to be local)
 * holds the queue that received it longer than the deadline.
 *
 * Such a request runs on a helper thread ("timed-call", at most
 * FUSE_TIMED_HELPERS per server) against copies it owns: its bytes are
 * copied out of the transport's buffer, its reply is built in a bounce
 * buffer and copied into the transport's only when it is answered in
 * time. Past the deadline a watcher thread ("deadline") answers it EIO
 * and the helper, whenever its host call returns, finds it answered,
 * gives back what the late reply handed out (a lookup count, an open
 * file) and frees the copies: nothing is written into a buffer the
 * transport was given back. A request whose call timed out fences its
 * device: later requests there are answered EIO at once, without a host
 * call, until a late call returns or one probe a deadline later answers
 * in time; so a dead mount cannot fill the helpers.
 *
 * Requests on a local file system (and the share root's, when it is one)
 * run inline as before, at no cost; so do all of them with timeout=0.
 */
#ifndef STAINLESS_FS_FUSE_FUSE_TIMED_H
#define STAINLESS_FS_FUSE_FUSE_TIMED_H

#include <stdbool.h>
#include <sys/types.h>

#include "fs/fs_req.h"

struct fuse_server;
struct fuse_inode;

/* Helpers a server runs at most: what a dead mount can hold, at worst. */
#define FUSE_TIMED_HELPERS 16u
/* Requests waiting for a helper, and their copies' bytes, at most (then EIO). */
#define FUSE_TIMED_QUEUED 256u
#define FUSE_TIMED_BYTES (64u << 20)
/* Devices and mount points remembered (beyond: their requests take helpers). */
#define FUSE_TIMED_DEVS 32u
#define FUSE_TIMED_GATES 32u

/* How a helper handles a request: on its own thread, whatever the device. */
typedef int fuse_timed_handle_fn(struct fuse_server *s, struct fs_req *req,
				 const struct fs_transport *t);

/*
 * From server creation: timeout_sec 0 means no deadline (nothing set up).
 * max_request: the largest request (and so reply) the server takes.
 */
int fuse_timed_init(struct fuse_server *s, unsigned timeout_sec, int root_fd, dev_t root_dev,
		    fuse_timed_handle_fn *handle, size_t max_request);

/*
 * The queue thread's question before it handles a request: true when the
 * request is taken (*r is then FS_REQ_DEFERRED, or a reply length written
 * into req->out: EIO from a fenced device); false: handle it inline.
 */
bool fuse_timed_take(struct fuse_server *s, struct fs_req *req, const struct fs_transport *t,
		     int *r);

/* A lookup found name in parent on another device (a mount point): remember it. */
void fuse_timed_gate(struct fuse_server *s, struct fuse_inode *parent, const char *name,
		     dev_t dev);

/*
 * Reset: answers every request not answered yet (EIO) and makes late
 * replies from before it give nothing back (their ids are gone).
 */
void fuse_timed_reset(struct fuse_server *s);

/* Teardown: false when a helper is still stuck in a host call (keep s). */
bool fuse_timed_fini(struct fuse_server *s);

/* For tests: helpers alive, and requests answered by the deadline so far. */
unsigned fuse_timed_helpers(struct fuse_server *s);
unsigned long fuse_timed_expired(struct fuse_server *s);

#endif
