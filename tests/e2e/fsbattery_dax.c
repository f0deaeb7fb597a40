// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsbattery for per-file DAX (e2e/fs-dax-inode): whether the guest kernel
 * serves a file through the DAX window (statx's STATX_ATTR_DAX: the
 * inode's S_DAX, which the server's FUSE_ATTR_DAX set under dax=inode),
 * and a file read through a shared mapping, summed as `sum` sums a read.
 */
#include "fsbattery.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

/* Prints dax or nodax; 1 when the kernel cannot say. */
int fsb_dax_attr(const char *path)
{
	struct statx sx;

	if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &sx) < 0) {
		perror(path);
		return 1;
	}
	if (!(sx.stx_attributes_mask & STATX_ATTR_DAX)) {
		fprintf(stderr, "%s: this kernel does not report STATX_ATTR_DAX\n", path);
		return 1;
	}
	printf("%s\n", sx.stx_attributes & STATX_ATTR_DAX ? "dax" : "nodax");
	return 0;
}

/* The file through mmap(MAP_SHARED), summed in the chunks `sum` reads. */
int fsb_mmap_sum(const char *path)
{
	struct stat st;
	uint64_t h = FSB_SUM_SEED;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
		perror(path);
		return 1;
	}
	const unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (size_t off = 0; off < (size_t)st.st_size; off += FSB_BIG_CHUNK) {
		size_t n = (size_t)st.st_size - off;

		h = fsb_sum(h, m + off, n < FSB_BIG_CHUNK ? n : FSB_BIG_CHUNK);
	}
	munmap((void *)m, (size_t)st.st_size);
	printf("%016llx\n", (unsigned long long)h);
	return 0;
}
