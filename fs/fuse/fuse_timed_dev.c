// SPDX-License-Identifier: GPL-2.0-only
/*
 * The devices of requests with a deadline (fuse_timed_int.h): a device's
 * class by its file-system type, the table of devices seen (class and
 * fence), and the inode (so the device) a request is about.
 */
#include <linux/magic.h>
#include <sys/vfs.h>

#include "fs/fuse/fuse_timed_int.h"

/*
 * File systems that answer from this machine's memory or disks: inline.
 * Everything else (FUSE, NFS, CIFS, 9p, Ceph, ...) may wait for a server.
 */
enum dev_class timed_class_of_fd(int fd)
{
	static const unsigned long local[] = {
		TMPFS_MAGIC, RAMFS_MAGIC, EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC,
		F2FS_SUPER_MAGIC, OVERLAYFS_SUPER_MAGIC, SQUASHFS_MAGIC, MSDOS_SUPER_MAGIC,
		EXFAT_SUPER_MAGIC, 0x2fc12fc1 /* zfs */, 0xca451a4e /* bcachefs */,
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return DEV_REMOTE;
	for (unsigned i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if ((unsigned long)sf.f_type == local[i])
			return DEV_LOCAL;
	return DEV_REMOTE;
}

/* Under tm->mu (fuse_timed_int.h). */
struct timed_dev *timed_dev_find(struct fuse_timed *tm, dev_t dev, bool add)
{
	for (unsigned i = 0; i < tm->ndevs; i++)
		if (tm->devs[i].dev == dev)
			return &tm->devs[i];
	if (!add || tm->ndevs == FUSE_TIMED_DEVS)
		return NULL;
	tm->devs[tm->ndevs] = (struct timed_dev){ .dev = dev };
	return &tm->devs[tm->ndevs++];
}

/* The ops whose first argument is a file handle (fuse_read_in.fh and kin). */
static bool by_handle(uint32_t op)
{
	switch (op) {
	case FUSE_READ: case FUSE_WRITE: case FUSE_RELEASE: case FUSE_FLUSH: case FUSE_FSYNC:
	case FUSE_READDIR: case FUSE_READDIRPLUS: case FUSE_RELEASEDIR: case FUSE_FSYNCDIR:
	case FUSE_GETLK: case FUSE_SETLK: case FUSE_FALLOCATE: case FUSE_LSEEK:
	case FUSE_COPY_FILE_RANGE:
		return true;
	}
	return false;
}

/* The inode a request is about (fuse_timed_int.h). */
bool timed_inode_of(struct fuse_server *s, const struct fuse_in_header *h,
		    const struct fs_req *req, uint64_t *nodeid, dev_t *dev)
{
	struct fuse_inode *ino;

	if (by_handle(h->opcode)) {
		uint64_t fh;
		struct fuse_handle *hd;

		if (fs_iov_read(req->in, req->nin, sizeof(*h), &fh, sizeof(fh)) != sizeof(fh))
			return false;
		hd = fuse_handle_get(&s->ht, fh);
		if (!hd)
			return false;
		*nodeid = fuse_inode_nodeid(hd->inode);
		*dev = hd->inode->dev;
		fuse_handle_put(&s->ht, hd, &s->it);
		return true;
	}
	ino = fuse_inode_get(&s->it, h->nodeid);
	if (!ino)
		return false;
	*nodeid = h->nodeid;
	*dev = ino->dev;
	fuse_inode_put(&s->it, ino);
	return true;
}
