/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mount(8)'s helper: `mount -t fuse.stainless DIR MOUNTPOINT -o OPTS` and
 * an fstab line run /sbin/mount.fuse.stainless (a link to the binary,
 * dist/install.mk) as `mount.fuse.stainless DIR MOUNTPOINT [-sfnvrw]
 * [-o OPTS] [-t TYPE]`; Debian's mount.fuse3 (type fuse with source
 * stainless#DIR, or fuse.stainless without our helper) runs
 * `stainless DIR MOUNTPOINT -o OPTS`. Either becomes
 * `fuse-mount DIR MOUNTPOINT --background -o OPTS`: mount(8) gets its
 * answer once the mount is served, and the server stays behind.
 */
#ifndef STAINLESS_CMD_MOUNT_HELPER_H
#define STAINLESS_CMD_MOUNT_HELPER_H

#include <stdbool.h>
#include <stddef.h>

/* Whether argv is a mount helper's: the name, or `stainless DIR MOUNTPOINT ...`. */
bool mount_helper_called(int argc, char **argv);

/*
 * fuse-mount's argv (argv[0] "fuse-mount", NULL-ended, at most max
 * entries; opts holds the joined -o words, optlen bytes) from the
 * helper's. Its argc, or -1 after one line on stderr (then exit 1, as
 * mount(8) wants for bad usage).
 */
int mount_helper_argv(int argc, char **argv, char **out, int max, char *opts, size_t optlen);

#endif
