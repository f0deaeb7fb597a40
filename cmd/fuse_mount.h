/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef STAINLESS_CMD_FUSE_MOUNT_H
#define STAINLESS_CMD_FUSE_MOUNT_H
/* `stainless fuse-mount DIR MOUNTPOINT [FS OPTIONS]`; argv[0] is "fuse-mount". */
int fuse_mount_main(int argc, char **argv);
#endif
