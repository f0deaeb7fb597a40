// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-inode DAX policy of a `dax=inode` share (docs/dax.md): which
 * files the attributes mark FUSE_ATTR_DAX (fuse_ops_entry.c asks), and
 * the opens that make a file not read-mostly (fuse_ops_file.c tells).
 */
#include "fs/fuse/fuse_int.h"

#include <fcntl.h>
#include <time.h>

/*
 * The per-inode DAX policy of a `dax=inode` share: which files the guest
 * should map (FUSE_ATTR_DAX) once the client took FUSE_HAS_INODE_DAX.
 * Worth mapping is a regular file of at least dax-min bytes that is read
 * mostly: no one has opened it for writing (or truncating) or created it
 * through this server since it was entered in the inode table. Small
 * files cost a SETUPMAPPING and a 2 MiB range of the window each for one
 * read; files being written gain nothing from sharing the host's page
 * cache, and a guest that writes through a mapping sends FUSE no WRITE to
 * keep their size and times. Once written, a file stays unmarked while
 * the inode is known; the client drops a mapped inode whose flag went
 * away (fuse_dax_dontcache) and looks it up again as not DAX.
 */
/*
 * And a file modified in the last minute, by the guest or on the host, is
 * being written too, whatever this server remembers: the written flag dies
 * with the inode (a guest that drops its caches sends FORGET, and its next
 * lookup finds a new inode), the host's mtime does not.
 */
#define FUSE_DAX_QUIET_SEC 60

static bool modified_lately(const struct stat *st)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME_COARSE, &now); /* vDSO: no system call */
	return st->st_mtim.tv_sec > now.tv_sec - FUSE_DAX_QUIET_SEC;
}

bool fuse_dax_wanted(const struct fuse_server *s, const struct fuse_inode *ino,
		     const struct stat *st)
{
	return s->inode_dax && S_ISREG(st->st_mode) &&
	       (uint64_t)st->st_size >= s->opts.dax_min && !atomic_load(&ino->written) &&
	       !modified_lately(st);
}

void fuse_dax_opened(struct fuse_inode *ino, int fl)
{
	if ((fl & O_ACCMODE) != O_RDONLY || (fl & O_TRUNC))
		atomic_store(&ino->written, true);
}
