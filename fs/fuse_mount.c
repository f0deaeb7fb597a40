// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the FUSE server lands. */
#include "fs/fuse_mount.h"
#include <stdio.h>
int fuse_mount_main(int argc, char **argv)
{
	fprintf(stderr, "stainless: fuse-mount: not available yet\n");
	return 2;
}
