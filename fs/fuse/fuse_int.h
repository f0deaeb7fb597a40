/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals shared by the FUSE server's files: fuse_server.c (dispatch,
 * INIT), fuse_reply.c (the reply path), fuse_ops_*.c (handlers by op family), fuse_lock.c
 * (POSIX/flock locks and parked SETLKW) and fuse_inode.c (tables).
 */
#ifndef STAINLESS_FS_FUSE_FUSE_INT_H
#define STAINLESS_FS_FUSE_FUSE_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/stat.h>

#include "fs/fs_inside.h"
#include "fs/fs_park.h"
#include "fs/fuse/fuse_handle.h"
#include "fs/fuse/fuse_inode.h"
#include "fs/fuse/fuse_server.h"
#include "fs/fuse/fuse_wire.h"

/* The wire layouts this server relies on (protocol 7.31+ sizes). */
_Static_assert(sizeof(struct fuse_in_header) == 40, "fuse_in_header");
_Static_assert(sizeof(struct fuse_out_header) == 16, "fuse_out_header");
_Static_assert(sizeof(struct fuse_attr) == 88, "fuse_attr");
_Static_assert(sizeof(struct fuse_entry_out) == 128, "fuse_entry_out");
_Static_assert(sizeof(struct fuse_attr_out) == 104, "fuse_attr_out");
_Static_assert(sizeof(struct fuse_init_in) == 64, "fuse_init_in");
_Static_assert(sizeof(struct fuse_init_out) == 64, "fuse_init_out");
_Static_assert(sizeof(struct fuse_open_out) == 16, "fuse_open_out");
_Static_assert(sizeof(struct fuse_read_in) == 40, "fuse_read_in");
_Static_assert(sizeof(struct fuse_write_in) == 40, "fuse_write_in");
_Static_assert(sizeof(struct fuse_write_out) == 8, "fuse_write_out");
_Static_assert(sizeof(struct fuse_setattr_in) == 88, "fuse_setattr_in");
_Static_assert(sizeof(struct fuse_statfs_out) == 80, "fuse_statfs_out");
_Static_assert(sizeof(struct fuse_lk_in) == 48, "fuse_lk_in");
_Static_assert(sizeof(struct fuse_lk_out) == 24, "fuse_lk_out");
_Static_assert(sizeof(struct fuse_dirent) == 24, "fuse_dirent");
_Static_assert(sizeof(struct fuse_direntplus) == 152, "fuse_direntplus");
_Static_assert(sizeof(struct fuse_forget_one) == 16, "fuse_forget_one");
_Static_assert(sizeof(struct fuse_create_in) == 16, "fuse_create_in");
_Static_assert(sizeof(struct fuse_mknod_in) == 16, "fuse_mknod_in");
_Static_assert(sizeof(struct fuse_rename2_in) == 16, "fuse_rename2_in");
_Static_assert(sizeof(struct fuse_release_in) == 24, "fuse_release_in");
_Static_assert(sizeof(struct fuse_flush_in) == 24, "fuse_flush_in");
_Static_assert(sizeof(struct fuse_fallocate_in) == 32, "fuse_fallocate_in");
_Static_assert(sizeof(struct fuse_lseek_in) == 24, "fuse_lseek_in");
_Static_assert(sizeof(struct fuse_copy_file_range_in) == 56, "copy_file_range_in");
_Static_assert(sizeof(struct fuse_setupmapping_in) == 40, "setupmapping_in");
_Static_assert(sizeof(struct fuse_removemapping_one) == 16, "removemapping_one");
_Static_assert(FUSE_COMPAT_SETXATTR_IN_SIZE == 8, "setxattr_in (no SETXATTR_EXT)");

#define FUSE_MIN_MINOR 31
#define FUSE_OUR_MINOR 41

/* Largest argument block copied out of a request (SETXATTR value + name). */
#define FUSE_ARG_MAX (65536u + NAME_MAX + 1 + 64)

struct fuse_server {
	int proc_fd;              /* /proc/self/fd: reopening O_PATH fds */
	struct fs_options opts;
	struct fuse_server_params params;
	struct fuse_itable it;
	struct fuse_htable ht;
	dev_t root_dev;
	struct fs_root_id root_id; /* directories moved out of the share answer ESTALE */
	_Atomic bool initialized;
	pthread_mutex_t init_mu;
	/* What INIT negotiated (written before initialized is set). */
	uint32_t minor;
	bool submounts, killpriv_v2, writeback, posix_locks, flock_locks, io_uring;
	bool passthrough;         /* FUSE_PASSTHROUGH taken: open replies may name backing ids */
	bool inode_dax;           /* FUSE_HAS_INODE_DAX taken: attributes carry FUSE_ATTR_DAX */
	struct fuse_pt *pt;       /* fuse_passthrough.c; NULL without params.backing */
	uint32_t max_write;
	uint64_t timeout_sec;     /* entry and attr validity */
	/* Devices seen below the root: a tag keeps their st_ino apart. */
	pthread_mutex_t dev_mu;
	dev_t devs[255];
	unsigned ndevs;
	struct fuse_watch *watch;  /* host changes told to the client; NULL: none */
	_Atomic uint32_t kernel_minor; /* the client's own protocol minor, from INIT */
	/* fuse_lock.c */
	pthread_mutex_t lock_mu;  /* the inodes' lock-owner lists */
	struct fs_park_set waits; /* parked SETLKWs */
	struct fuse_timed *timed; /* requests with a deadline (fuse_timed.h); NULL: none */
};

/* One request in flight, its header and argument copied out of req->in. */
struct fuse_call {
	struct fuse_server *srv;
	struct fs_req *req;
	const struct fs_transport *t;
	struct fuse_in_header h;
	const uint8_t *arg;       /* NUL-terminated copy; NULL for WRITE data */
	uint32_t arglen;
	size_t outcap;            /* bytes available in req->out */
	struct fuse_inode *ino;   /* h.nodeid, referenced, for most ops */
	int fd;                   /* ino's O_PATH fd, held for the request (-1: none) */
	struct fuse_ifd ino_fd;
	/* The caller's supplementary groups the request carried (FUSE_EXT_GROUPS). */
	gid_t groups[FUSE_MAX_SUPP_GROUPS];
	unsigned ngroups;
};

/* fuse_reply.c: the reply path */
int fuse_reply_err(const struct fs_req *req, size_t outcap, uint64_t unique, int err);
int fuse_reply(struct fuse_call *c, const void *data, size_t len);
int fuse_reply2(struct fuse_call *c, const void *a, size_t alen,
		const void *b, size_t blen);
/* Writes just the header for a payload already placed after it. */
int fuse_reply_hdr(const struct fs_req *req, uint64_t unique, size_t payload);

/* fuse_reply.c: argument helpers; fuse_ops_entry.c: attributes and entries */
int fuse_arg_str(struct fuse_call *c, uint32_t *off, const char **s, size_t *len);
int fuse_arg_name(struct fuse_call *c, uint32_t *off, const char **name);
/* The inode number the client sees for st (tagged by device without submounts). */
uint64_t fuse_attr_ino(struct fuse_server *s, const struct stat *st);
void fuse_fill_attr(struct fuse_server *s, const struct stat *st,
		    const struct fuse_inode *ino, struct fuse_attr *a);
void fuse_fill_entry(struct fuse_server *s, struct fuse_inode *ino,
		     const struct stat *st, struct fuse_entry_out *e);
int fuse_stat(int fd, struct stat *st);
/*
 * LOOKUP of one checked name under parent, whose fd (any fd of that
 * directory: its O_PATH fd or an open handle's) is dirfd; counts a lookup.
 */
int fuse_lookup_entry(struct fuse_server *s, struct fuse_inode *parent, int dirfd,
		      const char *name, struct fuse_entry_out *e);
/* Takes an O_PATH fd of an object just made as name in parent (NULL: none) and enters it. */
int fuse_enter_fd(struct fuse_server *s, struct fuse_inode *parent, int fd,
		  const char *name, struct fuse_entry_out *e);
int fuse_reopen(struct fuse_server *s, int fd, int flags);
/* HANDLE_KILLPRIV_V2: clear set-id bits of a regular file as a write would. */
int fuse_kill_suidgid(int fd);
uint32_t fuse_open_flags_out(const struct fuse_server *s, bool dir);

/* Handlers: plain functions, listed in fuse_server.c's ops[] table. */
/* fuse_ops_entry.c */
int fuse_op_lookup(struct fuse_call *c);
int fuse_op_forget(struct fuse_call *c);
int fuse_op_batch_forget(struct fuse_call *c);
int fuse_op_getattr(struct fuse_call *c);
int fuse_op_statx(struct fuse_call *c);
int fuse_op_setattr(struct fuse_call *c);
int fuse_op_readlink(struct fuse_call *c);
int fuse_op_statfs(struct fuse_call *c);
int fuse_op_access(struct fuse_call *c);
int fuse_op_setxattr(struct fuse_call *c);
int fuse_op_getxattr(struct fuse_call *c);
int fuse_op_listxattr(struct fuse_call *c);
int fuse_op_removexattr(struct fuse_call *c);
/* fuse_ops_create.c */
int fuse_op_symlink(struct fuse_call *c);
int fuse_op_mknod(struct fuse_call *c);
int fuse_op_mkdir(struct fuse_call *c);
int fuse_op_unlink(struct fuse_call *c);
int fuse_op_rmdir(struct fuse_call *c);
int fuse_op_rename(struct fuse_call *c);
int fuse_op_rename2(struct fuse_call *c);
int fuse_op_link(struct fuse_call *c);
/* fuse_ops_file.c */
int fuse_op_open(struct fuse_call *c);
int fuse_op_create(struct fuse_call *c);
int fuse_op_tmpfile(struct fuse_call *c);
int fuse_op_release(struct fuse_call *c);
int fuse_op_flush(struct fuse_call *c);
int fuse_op_fsync(struct fuse_call *c);
int fuse_op_fallocate(struct fuse_call *c);
int fuse_op_lseek(struct fuse_call *c);
int fuse_op_copy_file_range(struct fuse_call *c);
int fuse_op_syncfs(struct fuse_call *c);
int fuse_op_setupmapping(struct fuse_call *c);
int fuse_op_removemapping(struct fuse_call *c);
/* fuse_ops_rw.c */
int fuse_op_read(struct fuse_call *c);
int fuse_op_write(struct fuse_call *c);
/* fuse_ops_dir.c */
int fuse_op_opendir(struct fuse_call *c);
int fuse_op_readdir(struct fuse_call *c);
int fuse_op_readdirplus(struct fuse_call *c);
int fuse_op_releasedir(struct fuse_call *c);
int fuse_op_fsyncdir(struct fuse_call *c);
/* fuse_lock.c */
int fuse_op_getlk(struct fuse_call *c);
int fuse_op_setlk(struct fuse_call *c);
int fuse_op_setlkw(struct fuse_call *c);
int fuse_op_interrupt(struct fuse_call *c);

/* fuse_ops_dir.c: reads the next block of the directory last read, if any. */
bool fuse_dir_read_ahead(struct fuse_server *s);

/* fuse_dax_policy.c: the dax=inode policy, FUSE_ATTR_DAX for ino with attributes st. */
bool fuse_dax_wanted(const struct fuse_server *s, const struct fuse_inode *ino,
		     const struct stat *st);
/* ino opened with the host flags fl: for writing or truncating, it is not read-mostly. */
void fuse_dax_opened(struct fuse_inode *ino, int fl);

/* fuse_passthrough.c: backing ids, one per open inode (params.backing) */
int fuse_passthrough_init(struct fuse_server *s);
void fuse_passthrough_fini(struct fuse_server *s);
/* Closes every id (DESTROY, reset): the handles are gone with them. */
void fuse_passthrough_forget_all(struct fuse_server *s);
/* An OPEN/CREATE reply for ino's new handle out->fh: FOPEN_PASSTHROUGH where it may. */
void fuse_passthrough_reply(struct fuse_server *s, struct fuse_inode *ino, struct fuse_open_out *out);
/* RELEASE of h: its inode's id is closed with the last handle using it. */
void fuse_passthrough_release(struct fuse_server *s, struct fuse_handle *h);

/* fuse_lock.c */
int fuse_lock_init(struct fuse_server *s);
void fuse_lock_cancel_all(struct fuse_server *s);
void fuse_lock_fini(struct fuse_server *s);
/* FLUSH: drop the POSIX locks of owner on inode (close its OFD). */
void fuse_lock_drop_owner(struct fuse_server *s, struct fuse_inode *ino, uint64_t owner);

#endif
