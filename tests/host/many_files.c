// SPDX-License-Identifier: GPL-2.0-only
/*
 * Makes a wide tree fast for tests/host/fuse_many_files.sh (built by the
 * test with cc): many_files DIR NDIRS NFILES makes DIR/dI/fJ, NDIRS
 * directories of NFILES empty files each. A million files take a few
 * seconds this way; a process per directory (xargs touch) takes minutes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char name[32];
	long nd, nf;
	int root, d, f;

	if (argc != 4 || (nd = atol(argv[2])) <= 0 || (nf = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: many_files DIR NDIRS NFILES\n");
		return 2;
	}
	root = open(argv[1], O_PATH | O_DIRECTORY);
	if (root < 0) {
		perror(argv[1]);
		return 1;
	}
	for (long i = 0; i < nd; i++) {
		snprintf(name, sizeof(name), "d%ld", i);
		if (mkdirat(root, name, 0755) < 0 ||
		    (d = openat(root, name, O_PATH | O_DIRECTORY)) < 0) {
			perror(name);
			return 1;
		}
		for (long j = 0; j < nf; j++) {
			snprintf(name, sizeof(name), "f%ld", j);
			f = openat(d, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (f < 0) {
				perror(name);
				return 1;
			}
			close(f);
		}
		close(d);
	}
	return 0;
}
