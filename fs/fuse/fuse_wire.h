/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The FUSE wire protocol as far as Linux 6.12 speaks it (7.41), and the
 * one notification of 7.45 this server sends when the kernel says it has
 * it (PRUNE). Debian
 * 12's <linux/fuse.h> stops at 7.38, so what came after and this server
 * uses is defined here, each layout checked against the 6.12 uapi header's
 * sizes. With a newer <linux/fuse.h> the system's definitions win.
 */
#ifndef STAINLESS_FS_FUSE_FUSE_WIRE_H
#define STAINLESS_FS_FUSE_FUSE_WIRE_H

#include <linux/fuse.h>
#include <linux/ioctl.h>
#include <stdint.h>

#if FUSE_KERNEL_MINOR_VERSION < 39
/* 7.39: STATX, supplementary groups on create, shared mmap of direct-io files. */
#define FUSE_CREATE_SUPP_GROUP    (1ULL << 34)
#define FUSE_HAS_EXPIRE_ONLY      (1ULL << 35)
#define FUSE_DIRECT_IO_ALLOW_MMAP (1ULL << 36)
#define FUSE_STATX 52

/* Bit-for-bit statx(2)'s struct statx_timestamp and struct statx. */
struct fuse_sx_time {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t __reserved;
};

struct fuse_statx {
	uint32_t mask;
	uint32_t blksize;
	uint64_t attributes;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint16_t mode;
	uint16_t __spare0[1];
	uint64_t ino;
	uint64_t size;
	uint64_t blocks;
	uint64_t attributes_mask;
	struct fuse_sx_time atime;
	struct fuse_sx_time btime;
	struct fuse_sx_time ctime;
	struct fuse_sx_time mtime;
	uint32_t rdev_major;
	uint32_t rdev_minor;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t __spare2[14];
};

struct fuse_statx_in {
	uint32_t getattr_flags;   /* FUSE_GETATTR_FH: fh names an open file */
	uint32_t reserved;
	uint64_t fh;
	uint32_t sx_flags;        /* AT_STATX_* sync flags */
	uint32_t sx_mask;         /* STATX_* fields wanted */
};

struct fuse_statx_out {
	uint64_t attr_valid;
	uint32_t attr_valid_nsec;
	uint32_t flags;
	uint64_t spare[2];
	struct fuse_statx stat;
};

/* A request extension (after struct fuse_ext_header, 7.38) of type 32. */
#define FUSE_EXT_GROUPS 32

struct fuse_supp_groups {
	uint32_t nr_groups;
	uint32_t groups[];
};
#endif

#if FUSE_KERNEL_MINOR_VERSION < 40
/* 7.40: the server declines NFS export of the mount. */
#define FUSE_NO_EXPORT_SUPPORT    (1ULL << 38)
#endif

#if FUSE_KERNEL_MINOR_VERSION < 40
/*
 * 7.40: FUSE passthrough. The server registers a backing file on the
 * connection (FUSE_DEV_IOC_BACKING_OPEN on a /dev/fuse fd, CAP_SYS_ADMIN
 * in the initial user namespace) and names its id in an open reply with
 * FOPEN_PASSTHROUGH; the kernel then reads, writes and maps that file
 * itself. INIT says how deep the backing files' own stacking may be.
 */
#define FUSE_PASSTHROUGH          (1ULL << 37)
#define FOPEN_PASSTHROUGH         (1 << 7)

struct fuse_backing_map {
	int32_t fd;
	uint32_t flags;           /* must be 0 */
	uint64_t padding;         /* must be 0 */
};

#define FUSE_DEV_IOC_BACKING_OPEN  _IOW(FUSE_DEV_IOC_MAGIC, 1, struct fuse_backing_map)
#define FUSE_DEV_IOC_BACKING_CLOSE _IOW(FUSE_DEV_IOC_MAGIC, 2, uint32_t)

/* The fields 7.40 carved out of reserved space: the first unused word of each. */
#define FUSE_INIT_OUT_MAX_STACK_DEPTH(o) ((o)->unused[0])
#define FUSE_OPEN_OUT_BACKING_ID(o)      (*(int32_t *)&(o)->padding)
#else
#define FUSE_INIT_OUT_MAX_STACK_DEPTH(o) ((o)->max_stack_depth)
#define FUSE_OPEN_OUT_BACKING_ID(o)      ((o)->backing_id)
#endif

_Static_assert(sizeof(struct fuse_backing_map) == 16, "fuse_backing_map");

#if FUSE_KERNEL_MINOR_VERSION < 45
/*
 * 7.45 (Linux 6.18): the server asks the kernel to drop the inodes it
 * names that nothing uses, so their FORGETs come back. count nodeids
 * (uint64_t each) follow the struct.
 */
#define FUSE_NOTIFY_PRUNE 9

struct fuse_notify_prune_out {
	uint32_t count;
	uint32_t padding;
	uint64_t spare;
};
#endif
#define FUSE_PRUNE_MINOR 45

_Static_assert(sizeof(struct fuse_notify_prune_out) == 16, "fuse_notify_prune_out");
_Static_assert(sizeof(struct fuse_notify_inval_inode_out) == 24, "fuse_notify_inval_inode_out");
_Static_assert(sizeof(struct fuse_notify_inval_entry_out) == 16, "fuse_notify_inval_entry_out");
_Static_assert(sizeof(struct fuse_sx_time) == 16, "fuse_sx_time");
_Static_assert(sizeof(struct fuse_statx) == 256, "fuse_statx");
_Static_assert(sizeof(struct fuse_statx_in) == 24, "fuse_statx_in");
_Static_assert(sizeof(struct fuse_statx_out) == 288, "fuse_statx_out");
_Static_assert(sizeof(struct fuse_ext_header) == 8, "fuse_ext_header");
_Static_assert(sizeof(struct fuse_supp_groups) == 4, "fuse_supp_groups");

#endif
