/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The FUSE passthrough server: answers FUSE requests (protocol 7.31 and
 * newer) against a host directory. It never knows its transport; the
 * virtio-fs device, the vhost-user backend and `stainless fuse-mount`
 * (/dev/fuse) all feed it the same way.
 *
 * Using it from a transport:
 *
 *   struct fuse_server *srv;
 *   fuse_server_create(&srv, "/srv/share", &opts);      // once per share
 *   ...
 *   // on any thread, concurrently (one per queue is the intended use):
 *   int n = fuse_server_handle(srv, &req, &transport);
 *   if (n >= 0) publish n bytes written into req.out   // 0: no reply (FORGET)
 *   else        n == FS_REQ_DEFERRED: the server keeps req and calls
 *               transport.complete(transport.ctx, &req, len) later, possibly
 *               from another thread; req, req.out and the memory they name
 *               must stay valid until then.
 *   ...
 *   fuse_server_reset(srv);    // device reset: forget all guest state
 *   fuse_server_destroy(srv);  // after the transports stopped calling
 *
 * req.in holds one whole request (struct fuse_in_header first; iovecs may be
 * split anywhere) and its byte total must equal the header's len; req.out is
 * the space for the reply. WRITE payloads are written straight from req.in.
 * Each call runs the filesystem work with the caller's (uid, gid) from the
 * request header when the process is root, and leaves the thread's
 * credentials as it found them. A thread's first call limits that
 * thread's capabilities to what a passthrough needs, for good
 * (fs_caps_limit): serve from threads that need no more afterwards.
 *
 * Blocking lock waits (SETLKW) are parked on a small helper thread each
 * (fs/fs_park.h: at most 64 per server; INTERRUPT cancels one without
 * waiting, the helper answers EINTR). The first server installs a no-op
 * handler for FS_PARK_SIGNAL (without SA_RESTART); keep that signal free
 * in the process.
 *
 * Every host fd the server keeps for a client is charged to the process's
 * fd budget (fs_fdbudget.h): one limit across all shares, however many
 * inodes their clients remember (reopened by file handle where the
 * filesystem gives them) and files they keep open (ENFILE beyond it).
 *
 * The server creates nothing in the process but file descriptors, those
 * helper threads and a umask(0) at creation (the client already applied its
 * own umask; the host's must not apply a second time).
 */
#ifndef STAINLESS_FS_FUSE_FUSE_SERVER_H
#define STAINLESS_FS_FUSE_FUSE_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs/fs_options.h"
#include "fs/fs_req.h"

struct fuse_server;

/*
 * DAX hook: FUSE_SETUPMAPPING and FUSE_REMOVEMAPPING are answered ENOSYS
 * unless the device hands the server these callbacks (devices/dax.c does
 * for a share with dax=SIZE; fuse-mount has no window and does not). The
 * server resolves fh to a host fd (held open for the call) and checks the
 * access flags; the device maps [foffset, foffset+len) of fd at moffset in
 * its window (MAP_SHARED|MAP_FIXED) or puts the window's backing back.
 * Both return 0 or -errno; the server replies with that.
 */
struct fuse_dax_ops {
	int (*setup_mapping)(void *ctx, int fd, uint64_t foffset, uint64_t len,
			     uint64_t moffset, bool writable);
	int (*remove_mapping)(void *ctx, uint64_t moffset, uint64_t len);
};

/*
 * Passthrough hook (fuse-mount --passthrough): with it the server offers
 * FUSE_PASSTHROUGH at INIT, and when the client takes it, each regular
 * file an OPEN or CREATE opens is handed to open_backing (the open fd, a
 * file beneath the share), which answers a backing id > 0 registered on
 * the connection or -errno (then that open is served the usual way). One
 * id per inode while it has open handles; close_backing when the last of
 * them is released. Both may be called from any serving thread; the
 * server calls them one at a time.
 */
struct fuse_backing_ops {
	int (*open_backing)(void *ctx, int fd);
	void (*close_backing)(void *ctx, int backing_id);
};

/* Kernels before 6.14 do not name it; the bit is the same everywhere. */
#ifndef FUSE_OVER_IO_URING
#define FUSE_OVER_IO_URING (1ULL << 41)
#endif

/* Knobs a front end or a test may set; zero means the default. */
struct fuse_server_params {
	/*
	 * Table slots (memory; see fuse_inode.h for the bytes): inodes the
	 * client may remember and files it may keep open, ENFILE beyond.
	 * Host fds are bounded by the process's budget (fs_fdbudget.h),
	 * shared with every other share.
	 */
	uint32_t max_inodes;  /* FUSE_INODES_DEFAULT */
	uint32_t max_handles; /* FUSE_HANDLES_DEFAULT */
	uint32_t max_write;   /* largest WRITE/READ payload offered at INIT */
	const struct fuse_dax_ops *dax; /* NULL: no DAX window */
	void *dax_ctx;
	const struct fuse_backing_ops *backing; /* NULL: no passthrough */
	void *backing_ctx;
	/* Offer FUSE_OVER_IO_URING at INIT (fuse-mount's per-CPU rings). */
	bool io_uring;
	/*
	 * Watch up to this many looked-up directories for host changes
	 * (fs/fuse/fuse_watch.h; 0: none, plain timeouts) and hand each
	 * change to notify as a FUSE notification (a whole message, out
	 * header first; 0 or -errno), from a thread that serves nothing.
	 * notify NULL: the watches only set lifetimes.
	 */
	uint32_t watches;
	int (*notify)(void *ctx, const void *msg, size_t len);
	void *notify_ctx;
	/* A share of a hub (fuse_hub.h): its key, in every nodeid's top byte. */
	uint8_t hub_key;
	/* Test only: pretend every RWF_NOWAIT read would block. */
	bool test_nowait_blocks;
};

#define FUSE_SERVER_MAX_WRITE (1u << 20)
/* Supplementary groups a request may carry (FUSE_EXT_GROUPS; Linux sends one). */
#define FUSE_MAX_SUPP_GROUPS 8

/*
 * Opens root_dir (which must be a directory) and sets up the tables.
 * Returns 0 or -errno; on success *out must be freed with destroy.
 */
int fuse_server_create(struct fuse_server **out, const char *root_dir,
		       const struct fs_options *opts);
/* The same for a directory already open (O_PATH will do); takes fd, closed on failure. */
int fuse_server_create_fd(struct fuse_server **out, int fd, const struct fs_options *opts,
			  const struct fuse_server_params *params);
int fuse_server_create_params(struct fuse_server **out, const char *root_dir,
			      const struct fs_options *opts,
			      const struct fuse_server_params *params);

/*
 * Handles one request. Returns the reply length written into req->out (0
 * when the request takes no reply: FORGET, BATCH_FORGET, INTERRUPT, or an
 * out buffer too small for even a header) or FS_REQ_DEFERRED.
 * Thread-safe; never blocks on a lock held by another request.
 */
int fuse_server_handle(struct fuse_server *srv, struct fs_req *req,
		       const struct fs_transport *t);

/*
 * Call when this thread has answered everything it holds and would wait
 * for the next request: the server does deferred work that speeds up the
 * client's likely next request (reading a directory ahead). Returns
 * whether it did any (so a caller may look for requests again before it
 * sleeps). Cheap when there is nothing to do; any thread that handles
 * requests may call it.
 */
bool fuse_server_idle(struct fuse_server *srv);

/*
 * Drops every inode and handle the client was given and cancels parked
 * requests (completing them with EINTR); the next request must be INIT.
 * Call with no other thread inside fuse_server_handle().
 */
void fuse_server_reset(struct fuse_server *srv);

/* Resets, then frees everything. NULL is fine. */
void fuse_server_destroy(struct fuse_server *srv);

/* Largest request the server accepts (size receive buffers with this). */
uint32_t fuse_server_max_request(const struct fuse_server *srv);

/* --stats: the inode table's high-water mark, and what the watcher did (fuse_watch.h). */
struct fuse_server_stats {
	uint32_t inodes_peak;  /* slots ever handed out, the root's among them */
	uint32_t watches;      /* directories watched now */
	uint64_t refused;      /* directories the watch budget left out */
	uint64_t events;       /* inotify events read */
	uint64_t notified;     /* notifications the kernel took */
	uint64_t pruned;       /* nodeids offered it to drop (FUSE_NOTIFY_PRUNE) */
};
void fuse_server_stats(const struct fuse_server *srv, struct fuse_server_stats *out);

/* After INIT: did the client accept FUSE_OVER_IO_URING (params.io_uring)? */
bool fuse_server_io_uring(const struct fuse_server *srv);

/* After INIT: did the client accept FUSE_PASSTHROUGH (params.backing)? */
bool fuse_server_passthrough(const struct fuse_server *srv);

/*
 * The one byte budget of the process for directory handles' read-ahead
 * buffers (every server's; up to 64 KiB a handle mid-listing, none once
 * a directory has been read to its end): a READDIR that would need more
 * gets ENOMEM. Setting it (tests; 0 = FUSE_DIR_BYTES) leaves what is
 * charged charged.
 */
#define FUSE_DIR_BYTES (16u << 20)
size_t fuse_dir_budget(void);
void fuse_dir_set_budget(size_t bytes);
/* Bytes charged to it now. */
size_t fuse_dir_bytes(void);

#endif
