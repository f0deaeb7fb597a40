#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A client that remembers far more inodes than the server has fds: a share
# on tmpfs holding NDIRS x NFILES files (100,000 here, 24 times the fd
# budget; `make many-files` walks 1,000,000), served by `stainless
# fuse-mount --cache never` limited to 4,096 fds (prlimit), and walked by
# the kernel's FUSE client (tests/host/many_walk.inc says what is checked).
# Before inodes were reopened by name the server ran out of fds after
# ~3,800 of them and answered ENFILE. Exit 0 pass, 77 skip (last line says
# why), else fail.
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/server_pid.inc"
. "$HERE/many_walk.inc"

need_fuse_root "FUSE and tmpfs"

T=$(mktemp -d /tmp/fuse_many.XXXXXX)
SRC=$T/src MNT=$T/mnt
mkdir -p "$SRC" "$MNT"
PID=
cleanup() {
	if grep -q " $MNT " /proc/mounts; then umount "$MNT" 2>/dev/null || umount -l "$MNT"; fi
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && sleep 0.2 && kill -9 "$PID" 2>/dev/null
	if grep -q " $SRC " /proc/mounts; then umount "$SRC" 2>/dev/null || umount -l "$SRC"; fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mount -t tmpfs -o size=2g,nr_inodes=$((NDIRS * NFILES + NDIRS + 16)) stainless-many "$SRC" ||
	skip "cannot mount a tmpfs"
t0=$(now)
many_files "$SRC"
echo "# made $NDIRS x $NFILES files in $(took "$t0")"

prlimit --nofile=$NOFILE "$STAINLESS" fuse-mount "$SRC" "$MNT" --cache never 2>"$T/err" &
PID=$!
wait_mount "$MNT" "$T/err"
walk_tree "$MNT" $((1 + NDIRS + NDIRS * NFILES))
walk_after "$MNT" "$PID"
walk_end
