/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the 9P2000.L server: the server, session and fid structures and
 * the helpers the op files (p9_server.c, p9_fid.c, p9_walk.c, p9_io.c,
 * p9_dir.c, p9_xattr.c, p9_lock.c) share. Not for transports: they use
 * fs/9p/p9_server.h.
 */
#ifndef STAINLESS_FS_9P_P9_IMPL_H
#define STAINLESS_FS_9P_P9_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fs/fs_inside.h"
#include "fs/fs_io.h"
#include "fs/fs_options.h"
#include "fs/fs_park.h"
#include "fs/fs_req.h"
#include "fs/9p/p9_server.h"
#include "fs/9p/p9_wire.h"

/* Distinct (st_dev, high inode bits) pairs that get a qid.path prefix. */
#define P9_QID_PREFIXES 4096u
/* Largest xattr value or list buffered in a fid (the kernel's own limit). */
#define P9_XATTR_MAX (64u * 1024)
/* Distinct users (attach uids) per session. */
#define P9_MAX_USERS 16u
#define P9_MAX_GROUPS 64u

/*
 * What one session may make the server hold for it. Fid numbers are the
 * client's (any u32 but NOFID), so what is bounded is how many fids are
 * alive and the host memory they and the rest of a client's requests
 * pin; fds come from the process-wide budget (fs/fs_fdbudget.h).
 *
 * P9_MAX_LIVE_FIDS: past it a new fid (Tattach, Twalk, Txattrwalk) is
 *   refused with EMFILE. The Linux client keeps a fid per open file and
 *   per dentry it holds on to: thousands, not tens of thousands, and each
 *   of those also holds an fd, which the fd budget runs out of first.
 * P9_SESSION_BYTES: the fid structs and the fid table, xattr buffers
 *   (a Txattrwalk value or a Txattrcreate sink: up to P9_XATTR_MAX each,
 *   until Tclunk), parked lock waiters (with their helper's stack) and
 *   async I/O records. A fid or xattr buffer past it is refused with
 *   ENOMEM; a lock that would park is answered BLOCKED and an I/O that
 *   would go async runs synchronously instead. 65,536 fids take about
 *   8 MiB, so a client at the fid bound still has half of it; a real
 *   client sets one xattr at a time and parks a few locks.
 */
#define P9_MAX_LIVE_FIDS 65536u
#define P9_SESSION_BYTES (16u << 20)

struct p9_server {
	uint32_t fidseed;         /* random, for the sessions' fid hash */
	int root_fd;              /* O_PATH|O_DIRECTORY of the share */
	int proc_fd;              /* /proc/self/fd, to reopen O_PATH fds */
	struct fs_root_id root_id; /* the share root, and whether a dir is still in it */
	char *root_path;          /* as given and canonical: valid anames */
	char *root_real;
	struct fs_options opts;
	uint32_t msize;

	pthread_mutex_t qid_lock; /* guards the prefix table */
	unsigned nprefix;
	struct {
		dev_t dev;
		uint64_t hi;
	} prefix[P9_QID_PREFIXES];
};

struct p9_user {
	uid_t uid;
	gid_t gid;
	size_t ngroups;
	gid_t groups[P9_MAX_GROUPS];
};

enum p9_fid_kind {
	P9_FID_NONE,     /* released: about to be freed or reused */
	P9_FID_FILE,     /* a file or directory of the share */
	P9_FID_XREAD,    /* Txattrwalk result: a buffered value or list */
	P9_FID_XWRITE,   /* Txattrcreate: value collected until Tclunk */
};

struct p9_fid {
	uint32_t fid;             /* the client's number for it */
	enum p9_fid_kind kind;
	int pfd;                  /* O_PATH (or any) fd naming the file; */
	int ofd;                  /* open fd after Tlopen/Tlcreate, or -1; */
				  /* each charged to the fd budget */
	mode_t mode;              /* S_IFMT bits of the file */
	const struct p9_user *user;
	int64_t dir_next;         /* readdir: offset the directory fd is at */
	fs_nowait_state nowait_off[2]; /* [is_write]: what ofd said to RWF_NOWAIT (fs_io.h) */
	/* xattr fids */
	char *xname;
	uint8_t *xbuf;
	size_t xsize;
	size_t xfilled;
	int xflags;
	size_t xcost;             /* bytes of xname and xbuf charged */
};

/* One entry of the fid table: f is NULL when the slot is empty. */
struct p9_fid_slot {
	uint32_t fid;
	struct p9_fid *f;
};

struct p9_aio;

struct p9_session {
	struct p9_server *srv;
	uint32_t max_msg;
	uint32_t msize;           /* 0 until Tversion */
	/* Open addressing, linear probing, at most half full. */
	struct p9_fid_slot *fidtab;
	uint32_t fidcap;          /* 0 or a power of two */
	uint32_t nlive;
	uint32_t fidseed;         /* keys the hash: see slot_of() */
	atomic_size_t mem_used;   /* of P9_SESSION_BYTES; lock helpers refund */
	struct fs_fair_acct *fd_share;  /* of the process's budgets, or NULL */
	struct fs_fair_acct *mem_share; /* (p9_session_set_shares) */
	bool peer_known;          /* p9_session_set_peer() was called */
	uid_t peer_uid;
	struct p9_user peer;      /* its gid and groups (p9_session_set_peer) */
	struct p9_user users[P9_MAX_USERS];
	unsigned nusers;
	uint8_t *scratch;         /* request copy, then readdir's getdents */
	uint8_t *reply;           /* reply being built */

	struct fs_park_set parked; /* blocking Tlocks (p9_lock.c) */
	struct p9_aio *aios;      /* async I/O in flight (transport thread only) */

	/* Last qid prefix looked up: most files share the root's device. */
	dev_t last_dev;
	uint64_t last_hi;
	uint64_t last_prefix;
	bool last_valid;
};

/* One request being handled. */
struct p9_msg {
	struct p9_session *s;
	struct fs_req *req;
	const struct fs_transport *t;
	uint8_t type;
	uint16_t tag;
	uint32_t size;
	struct p9_rbuf in;        /* body after the 7-byte header */
	struct p9_wbuf out;       /* reply body after the 7-byte header */
	uint32_t direct_len;      /* != 0: the whole reply is already in req->out */
};

/*
 * Handlers return 0 (the reply body is in m->out, or the whole reply in
 * req->out when they set direct_len), -errno, or FS_REQ_DEFERRED.
 */

/* p9_fid.c */
struct p9_fid *p9_fid_get(struct p9_session *s, uint32_t fid);
struct p9_fid *p9_fid_get_file(struct p9_session *s, uint32_t fid, int *err);
struct p9_fid *p9_fid_get_open(struct p9_session *s, uint32_t fid, int *err);
int p9_fid_new(struct p9_session *s, uint32_t fid, struct p9_fid **out);
int p9_fid_newfid(struct p9_session *s, struct p9_fid *f, uint32_t fid, uint32_t newfid,
		  struct p9_fid **out);
int p9_fid_clunk(struct p9_session *s, uint32_t fid);
void p9_fid_clunk_all(struct p9_session *s);
int p9_mem_charge(struct p9_session *s, size_t n);
void p9_mem_refund(struct p9_session *s, size_t n);
int p9_fd_dup(struct p9_session *s, int fd);
void p9_fd_close(struct p9_session *s, int fd);
int p9_qid_from_stat(struct p9_session *s, const struct stat *st, struct p9_qid *q);
int p9_qid_of_fd(struct p9_session *s, int fd, struct p9_qid *q, struct stat *st);
uint64_t p9_qid_path(struct p9_session *s, dev_t dev, uint64_t ino);
int p9_creds_for(const struct p9_user *u, gid_t gid);
/* The group a new file is made with for u (a peer keeps to its own groups). */
gid_t p9_create_gid(const struct p9_session *s, const struct p9_user *u, gid_t gid);
uid_t p9_attach_uid(uint32_t n_uname, const struct p9_str *uname);
const struct p9_user *p9_user_get(struct p9_session *s, uid_t uid);
/*
 * At server creation, on the thread setting up: glibc loads the name
 * service modules (libnss_systemd and what it links) on first use, with
 * dlopen, which a serving thread's seccomp filter (and a sandbox's new
 * root) would not allow later.
 */
void p9_users_preload(void);
int p9_reopen(struct p9_session *s, int pfd, int flags);
void p9_proc_path(int fd, char *buf, size_t sz);
bool p9_is_root(const struct p9_server *srv, const struct stat *st);
/*
 * 0 when the directory fd is still inside the share, else -ESTALE (a host
 * process moved it out: its names are no longer the share's) or -errno.
 * Asked before a directory fid is used for names (fs_inside.h).
 */
int p9_dir_inside(const struct p9_session *s, int dirfd);
int p9_get_name(struct p9_rbuf *in, char *buf);

/* ops, each file's own */
int p9_op_walk(struct p9_msg *m);
int p9_op_getattr(struct p9_msg *m);
int p9_op_setattr(struct p9_msg *m);
int p9_op_statfs(struct p9_msg *m);
int p9_op_readlink(struct p9_msg *m);
int p9_op_lopen(struct p9_msg *m);
int p9_op_lcreate(struct p9_msg *m);
int p9_op_read(struct p9_msg *m);
int p9_op_write(struct p9_msg *m);
int p9_op_fsync(struct p9_msg *m);
int p9_aio_flush(struct p9_msg *m, uint16_t oldtag);
int p9_op_readdir(struct p9_msg *m);
int p9_op_mkdir(struct p9_msg *m);
int p9_op_mknod(struct p9_msg *m);
int p9_op_symlink(struct p9_msg *m);
int p9_op_link(struct p9_msg *m);
int p9_op_rename(struct p9_msg *m);
int p9_op_renameat(struct p9_msg *m);
int p9_op_unlinkat(struct p9_msg *m);
int p9_op_remove(struct p9_msg *m);
int p9_op_xattrwalk(struct p9_msg *m);
int p9_op_xattrcreate(struct p9_msg *m);
int p9_xattr_read(struct p9_msg *m, struct p9_fid *f, uint64_t off, uint32_t count);
int p9_xattr_write(struct p9_msg *m, struct p9_fid *f, uint64_t off, uint32_t count);
int p9_xattr_commit(struct p9_session *s, struct p9_fid *f);
int p9_op_lock(struct p9_msg *m);
int p9_op_getlock(struct p9_msg *m);
int p9_lock_flush(struct p9_msg *m, uint16_t oldtag);
int p9_lock_init(struct p9_session *s);
void p9_lock_cancel_all(struct p9_session *s);
void p9_lock_fini(struct p9_session *s);


#endif
