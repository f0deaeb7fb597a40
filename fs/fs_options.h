/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Options of a shared directory, common to every front end of the FUSE
 * server (`run --fs TAG=DIR,opts`, `fuse-mount`, `vhost-user-fs`) and of the
 * 9p server (`run --9p TAG=DIR,opts`, `9p-serve`).
 */
#ifndef STAINLESS_FS_FS_OPTIONS_H
#define STAINLESS_FS_FS_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

/* metadata (virtiofsd's): attributes and entries kept a day, file data never cached. */
enum fs_cache { FS_CACHE_NEVER, FS_CACHE_AUTO, FS_CACHE_ALWAYS, FS_CACHE_METADATA };

/*
 * Which files of a share with a DAX window the guest maps. GUEST: the
 * guest's mount option decides alone (`-o dax` maps every file), as
 * before per-inode DAX. INODE (`dax=inode`): the server offers
 * FUSE_HAS_INODE_DAX and marks FUSE_ATTR_DAX on the files worth mapping
 * (fs/fuse/fuse_dax_policy.c); a guest mounted with `-o dax=inode`, or
 * with no dax option, maps those and reads the rest through FUSE.
 */
enum fs_dax_mode { FS_DAX_GUEST, FS_DAX_INODE };

struct fs_options {
	enum fs_cache cache;
	bool readonly;
	bool xattr;
	bool xattr_map;      /* security.*, trusted.* kept under user.stainless. (fs_xattr.h) */
	bool writeback;
	bool devices;        /* MKNOD may make character/block devices */
	uint64_t dax_size;   /* virtio-fs DAX window bytes, 0 = none */
	enum fs_dax_mode dax_mode;
	uint64_t dax_min;    /* dax=inode: smallest file marked for DAX, bytes */
	uint32_t msize;      /* 9p: largest message offered, 0 = default */
	uint32_t queues;     /* virtio-fs request queues, 0 = the VMM's default */
	/*
	 * FUSE only, virtiofsd's switches (vhost-user-fs); false is the
	 * default each time. The no_ ones hand a feature back to the client
	 * kernel, as virtiofsd's do: its locks are then local to the guest,
	 * and it clears set-id bits on write itself.
	 */
	bool readdirplus;    /* READDIRPLUS even at cache=never */
	bool no_readdirplus; /* READDIRPLUS never */
	bool no_flock;
	bool no_posix_lock;
	bool no_killpriv_v2;
	bool posix_acl;      /* the client enforces POSIX ACLs (needs xattr) */
	bool direct_io;      /* the client's O_DIRECT reaches the host file */
	/*
	 * FUSE entry and attribute lifetime in seconds when set_timeout, else
	 * from cache= (never 0, auto 1, always/metadata a day). crosvm's
	 * --shared-dir timeout= sets it.
	 */
	bool set_timeout;
	uint32_t entry_timeout;
	/*
	 * FUSE: seconds a request on a host file system that may stop
	 * answering can take before it is answered EIO (`timeout=`,
	 * fs/fuse/fuse_timed.h); 0 waits for ever.
	 */
	uint32_t call_timeout;
	/*
	 * FUSE: inotify watches on up to this many looked-up directories
	 * (`watches=N`, fs/fuse/fuse_watch.h). fuse-mount pushes what they
	 * see to the kernel; a virtio-fs share (run, vhost-user-fs) cannot,
	 * so they set change-aware lifetimes there instead
	 * (docs/host-changes.md). 0: none.
	 */
	uint32_t watches;
};

/* The most watches a share may ask for (fs/fuse/fuse_watch.h FUSE_WATCH_MAX). */
#define FS_WATCHES_MAX (1u << 20)
/*
 * dax=inode without dax=SIZE: the window it gets. Linux maps 2 MiB ranges,
 * so 1 GiB holds 512 of them; it is guest-physical space above RAM, host
 * memory only where a file is mapped.
 */
#define FS_DAX_INODE_WINDOW (1ull << 30)
/*
 * dax-min's default. A file smaller than this is read through FUSE: a
 * mapping costs a SETUPMAPPING round trip and a 2 MiB range of the window
 * however small the file, and many small files evict each other's ranges
 * (docs/dax.md has the measurement).
 */
#define FS_DAX_MIN_DEFAULT (1ull << 20)

#define FS_CALL_TIMEOUT_DEFAULT 30u
#define FS_CALL_TIMEOUT_MAX 86400u

#define P9_MSIZE_DEFAULT (512u * 1024)
#define P9_MSIZE_MIN     4096u
#define P9_MSIZE_MAX     (16u * 1024 * 1024)

/* virtio-fs request queues a share may have (`queues=N`). */
#define FS_QUEUES_MAX 16u

void fs_options_default(struct fs_options *o);
int fs_parse_cache(const char *s, enum fs_cache *out);
const char *fs_cache_name(enum fs_cache c);

/*
 * Parse a size such as "512M", "1G", "4096", "64k" (binary units).
 * Returns 0 or -EINVAL on garbage, -ERANGE on overflow.
 */
int parse_size(const char *s, uint64_t *out);

/*
 * Parse one comma-separated option word of a share spec ("cache=auto",
 * "readonly", "dax=1G", "dax=inode", "dax-min=4M", "msize=524288", "xattr",
 * "xattr=map", "writeback", "devices", "queues=2", "watches=64") into o. "dax=inode" and
 * "dax-min=SIZE" (which implies dax=inode) give the share a window of
 * FS_DAX_INODE_WINDOW unless a dax=SIZE, before or after, sets its size. is_9p selects which words are allowed: 9p serves
 * xattrs always, so it takes "xattr=map" but not the bare "xattr", which
 * would change nothing there; for FUSE "xattr=map" implies "xattr". On error returns -EINVAL and
 * points *why at a short reason for the user.
 */
int fs_options_parse_word(struct fs_options *o, const char *word, bool is_9p,
			  const char **why);

#endif
