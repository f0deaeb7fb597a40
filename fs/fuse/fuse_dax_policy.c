// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-inode DAX policy of a `dax=inode` share (docs/dax.md): which
 * files the attributes mark FUSE_ATTR_DAX (fuse_ops_entry.c asks), and
 * the opens that make a file not read-mostly (fuse_ops_file.c tells).
 */
#include "fs/fuse/fuse_int.h"

#include <fcntl.h>

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
bool fuse_dax_wanted(const struct fuse_server *s, const struct fuse_inode *ino,
		     const struct stat *st)
{
	return s->inode_dax && S_ISREG(st->st_mode) &&
	       (uint64_t)st->st_size >= s->opts.dax_min && !atomic_load(&ino->written);
}

void fuse_dax_opened(struct fuse_inode *ino, int fl)
{
	if ((fl & O_ACCMODE) != O_RDONLY || (fl & O_TRUNC))
		atomic_store(&ino->written, true);
}
