/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The 9P2000.L server, for any transport (the virtio-9p device, the
 * `9p-serve` socket front end, tests).
 *
 * Objects:
 *   struct p9_server   one per shared directory: the root O_PATH fd, the
 *                      options, the qid.path prefix table. Shared by all
 *                      sessions; thread-safe.
 *   struct p9_session  one per client: per socket connection, per virtio-9p
 *                      device. Holds the negotiated msize, the fid table
 *                      (any u32 numbers, a bounded count), a byte budget
 *                      for what the client makes the server allocate,
 *                      the requests it has deferred, and (from a socket)
 *                      who the peer is.
 *
 * Use from a transport:
 *   p9_server_create(&srv, "/host/dir", &opts);
 *   p9_session_create(&s, srv, max_msg);      // max_msg: the largest
 *                                             // request/reply it can carry
 *   p9_session_set_peer(s, uid);              // a socket's SO_PEERCRED uid
 *   for each request:
 *     len = p9_handle(s, &req, &transport);   // reply length, or
 *                                             // FS_REQ_DEFERRED
 *   p9_session_destroy(s);                    // cancels deferred requests,
 *                                             // completing each first
 *   p9_server_destroy(srv);                   // after all its sessions
 *
 * Threads: p9_handle() calls on one session must not overlap (one
 * transport thread per session: there is no lock on that path). Different
 * sessions may run on different threads. Deferred requests complete on
 * other threads through t->complete (parked locks: a helper thread; async
 * I/O: whatever thread runs t->async's done callback). `t` and `req` must
 * stay valid until that completion.
 *
 * Requests: req->in holds one whole 9P message (size[4] type[1] tag[2] ...)
 * split anywhere across iovecs; req->out the space for the reply. Headers
 * are copied out of req->in before parsing; Twrite and Tread payloads move
 * directly between the iovecs and the file. A reply that does not fit in
 * req->out becomes an Rlerror (ERANGE); if even that does not fit p9_handle
 * returns 0 and the transport should drop the connection/reset the device.
 *
 * Deferring (why parking, not answering BLOCKED): a blocking Tlock that
 * conflicts is parked on a helper thread doing F_OFD_SETLKW and completes
 * when the lock is granted, so a guest waiting on a lock wakes when the
 * holder releases it. The Linux client would otherwise sleep its whole
 * lock retry interval (30 s by default) after each BLOCKED answer. Tflush
 * of a parked lock cancels it (fs/fs_park.h) and is deferred too: the
 * helper answers the lock with Rlerror(EINTR) and then the Tflush with
 * Rflush, so the queue never waits for it. (Through a transport without
 * `complete` the Tflush call itself waits until the lock has answered.)
 * Past P9_MAX_PARKED parked locks per session the answer is BLOCKED.
 * An async read/write cannot be recalled: Tflush of one is itself deferred
 * and its Rflush is completed right after the I/O's reply. A transport must
 * let its async I/O finish (run every done callback) before
 * p9_session_destroy(); parked locks are cancelled by the destroy itself.
 * A transport that cannot let a request outlive the call passes a
 * transport without `complete` (and without `async`): nothing is deferred
 * then, and a conflicting blocking lock is answered BLOCKED.
 *
 * Process-wide effects: p9_server_create() sets up parking
 * (fs/fs_park.h: a do-nothing handler for FS_PARK_SIGNAL, no SA_RESTART,
 * so a blocked fcntl returns EINTR, and an O_PATH fd of "/").
 * p9_server_create() opens /proc/self/fd, which the server needs to reopen
 * O_PATH fds (Tlopen, Tsetattr, Tlink); a sandbox must leave /proc reachable at
 * create time (the fd is kept) and, for xattrs, Trename and Tremove (which
 * go through /proc/self/fd/N paths), at run time. Tattach looks the user
 * up (getpwuid_r/getgrouplist: /etc/passwd, /etc/group); where that fails
 * the user gets gid 65534 and no groups. The name service modules are
 * loaded at create time (p9_users_preload), so no serving thread dlopens.
 *
 * System calls a device-queue seccomp profile must allow for this server:
 * openat, openat2, close, fcntl (F_DUPFD_CLOEXEC, F_OFD_SETLK/SETLKW/GETLK),
 * newfstatat/fstat, statx, fstatfs, getdents64, lseek, preadv2, pwritev2,
 * preadv, pwritev, ftruncate, fsync, fdatasync, mkdirat, mknodat,
 * symlinkat, linkat, renameat/renameat2, unlinkat, readlinkat/readlink,
 * fchmodat, fchownat, utimensat, getxattr, setxattr, listxattr,
 * removexattr, setfsuid, setfsgid, setgroups, capget, capset and prctl
 * (PR_CAPBSET_DROP: fs_caps_limit, once per thread), and for parked locks
 * what fs/fs_park.h lists.
 *
 * Capabilities: a thread's first request limits that thread's
 * capabilities to what a passthrough needs (fs_caps_limit), so a thread
 * that serves must not be one that later needs more.
 *
 * Limits (numbers and reasons in p9_impl.h): a session holds at most
 * P9_MAX_LIVE_FIDS fids (a new one past that: EMFILE) and at most
 * P9_SESSION_BYTES of fids, xattr buffers, parked locks and async I/O
 * records (ENOMEM). Every fd a fid keeps, and a parked lock's, is charged
 * to the process-wide budget of fs/fs_fdbudget.h: a request that would
 * keep one more when it is spent gets ENFILE, and everything else is
 * still served (clunks give fds back).
 *
 * Credentials: when running as root, each request runs with the fsuid,
 * fsgid and groups of the user that attached the fid (fs_creds_set), so
 * the host kernel does the permission checks. The credentials last set are
 * cached per thread, so a thread that also calls fs_creds_set for other
 * work must call p9_creds_forget() afterwards.
 */
#ifndef STAINLESS_FS_9P_P9_SERVER_H
#define STAINLESS_FS_9P_P9_SERVER_H

#include <stdint.h>
#include <sys/types.h>

#include "fs/fs_fair.h"
#include "fs/fs_options.h"
#include "fs/fs_req.h"

struct p9_server;
struct p9_session;

#define P9_MAX_PARKED 64u

/*
 * root: the shared directory. opts: readonly and msize (the largest msize
 * offered, P9_MSIZE_MIN..P9_MSIZE_MAX; 0 = P9_MSIZE_DEFAULT). -errno on
 * failure (root missing or not a directory, no /proc).
 */
int p9_server_create(struct p9_server **out, const char *root, const struct fs_options *opts);
void p9_server_destroy(struct p9_server *srv);
/* The msize the server offers. */
uint32_t p9_server_msize(const struct p9_server *srv);

/*
 * max_msg: the largest message the transport can carry both ways; the
 * negotiated msize never exceeds it (nor the server's msize).
 * -EINVAL when below P9_MSIZE_MIN.
 */
int p9_session_create(struct p9_session **out, struct p9_server *srv, uint32_t max_msg);
void p9_session_destroy(struct p9_session *s);
/* The msize agreed by Tversion (0 before the first Tversion). */
uint32_t p9_session_msize(const struct p9_session *s);

/*
 * Who the process at the other end is: its uid and gid (a socket's
 * SO_PEERCRED) and its supplementary groups (SO_PEERGROUPS; at most
 * P9_MAX_GROUPS are kept, fewer rights, never more). A peer other than
 * root may then attach only as itself (Tattach naming another uid gets
 * EPERM) and acts with its own groups, not the user database's: a new
 * file (Tlcreate, Tmkdir, Tmknod, Tsymlink) asking for a group the peer
 * is not in gets the peer's gid instead, so no file of another group
 * (or set-group-ID one of it) is made. Without this call any uid may
 * attach with any group: right for the virtio-9p device, whose peer is
 * the guest's kernel.
 */
void p9_session_set_peer(struct p9_session *s, uid_t uid, gid_t gid, const gid_t *groups,
			 size_t ngroups);

/*
 * The session's fair shares of the process's fd and byte budgets
 * (fs/fs_fair.h), for a transport that serves many clients at once
 * (9p-serve): every fd the session keeps and every byte it charges is
 * charged to them too, and refused (ENFILE, ENOMEM) past them. Call
 * before the first request; both outlive the session. NULL: none.
 */
void p9_session_set_shares(struct p9_session *s, struct fs_fair_acct *fds, struct fs_fair_acct *bytes);

/* Handles one request: reply length (>= 0) or FS_REQ_DEFERRED. */
int p9_handle(struct p9_session *s, struct fs_req *req, const struct fs_transport *t);

void p9_creds_forget(void);

#endif
