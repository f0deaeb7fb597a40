#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fuse_posix's battery over FUSE over io_uring (`fuse-mount --uring`), as
# its own test so that a kernel without it shows as a SKIP: the fuse
# module's enable_uring is switched on for the run and back after, and the
# battery checks that one ring per possible CPU is really open.
# Exit 0 pass, 77 skip (last line says why), else fail.
URING_PARAM=/sys/module/fuse/parameters/enable_uring
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to switch $URING_PARAM"; exit 77; }
if [ ! -w "$URING_PARAM" ]; then
	echo "SKIP: this kernel has no FUSE over io_uring ($URING_PARAM)"
	exit 77
fi
old=$(cat "$URING_PARAM")
echo Y >"$URING_PARAM"
FUSE_CHANNEL=uring sh "$(dirname "$0")/fuse_posix.sh"; rc=$?
echo "$old" >"$URING_PARAM"
exit $rc
