#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The fd bound on a file system that gives no file handles and changes a
# file under the server: an overlayfs with nfs_export=off, index=off,
# xino=off, its lower and upper layers on two tmpfs (a copy-up gives a
# file the upper layer's birth time, which the server checks a reopened
# inode by, and on some set-ups its inode number).
# The share holds NDIRS x NFILES files in the lower layer (100,000 here,
# `make many-files` a million), files of the upper layer in the same
# directories and in one of its own, and files copied up on the host
# before the server starts; `stainless fuse-mount --cache never` limited
# to 4,096 fds serves it and the kernel's FUSE client walks it
# (tests/host/many_walk.inc). Then files are copied up through the mount
# itself (written), the tree is walked again so their fds are evicted, and
# each must still stat and read back what was written: the server follows
# the copy-up it made, not ESTALE. Exit 0 pass, 77 skip, else fail.
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/server_pid.inc"
. "$HERE/many_walk.inc"

need_fuse_root "FUSE, tmpfs and overlayfs"

T=$(mktemp -d /tmp/fuse_many_ovl.XXXXXX)
LOW=$T/low UP=$T/up OVL=$T/ovl MNT=$T/mnt
mkdir -p "$LOW" "$UP" "$OVL" "$MNT"
PID=
cleanup() {
	if grep -q " $MNT " /proc/mounts; then umount "$MNT" 2>/dev/null || umount -l "$MNT"; fi
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && sleep 0.2 && kill -9 "$PID" 2>/dev/null
	for m in "$OVL" "$UP" "$LOW"; do
		if grep -q " $m " /proc/mounts; then umount "$m" 2>/dev/null || umount -l "$m"; fi
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

NUP=100 # upper-layer files per directory in d0..d9, and in up/
mount -t tmpfs -o size=2g,nr_inodes=$((NDIRS * NFILES + NDIRS + 16)) stainless-low "$LOW" &&
	mount -t tmpfs -o size=1g stainless-up "$UP" || skip "cannot mount a tmpfs"
t0=$(now)
many_files "$LOW"
mkdir -p "$UP/data/up" "$UP/work"
for d in 0 1 2 3 4 5 6 7 8 9 up; do
	[ "$d" = up ] || mkdir -p "$UP/data/d$d"
	dir=$UP/data/$([ "$d" = up ] && echo up || echo "d$d")
	i=0; while [ $i -lt $NUP ]; do : >"$dir/u$i"; i=$((i + 1)); done
done
mount -t overlay stainless-ovl \
	-o "lowerdir=$LOW,upperdir=$UP/data,workdir=$UP/work,nfs_export=off,index=off,xino=off" "$OVL" ||
	skip "cannot mount an overlayfs (nfs_export=off)"
grep " $OVL " /proc/mounts | grep -q nfs_export=on && { echo "overlayfs exports file handles"; exit 1; }
# Copied up before the server starts: the first 100 files of d2 and d3.
i=0; while [ $i -lt 100 ]; do
	echo "host $i" >>"$OVL/d2/f$i"; chmod 600 "$OVL/d3/f$i"; i=$((i + 1))
done
[ "$(stat -c %d "$OVL/d2/f0")" != "$(stat -c %d "$OVL/d4/f0")" ] ||
	echo "# note: copied-up and lower files show one st_dev here"
echo "# made the overlay ($NDIRS x $NFILES lower files) in $(took "$t0")"

prlimit --nofile=$NOFILE "$STAINLESS" fuse-mount "$OVL" "$MNT" --cache never 2>"$T/err" &
PID=$!
wait_mount "$MNT" "$T/err"
want=$((1 + NDIRS + NDIRS * NFILES + 10 * NUP + 1 + NUP))
walk_tree "$MNT" $want
check "a file copied up on the host reads its data" [ "$(cat "$MNT/d2/f7")" = "host 7" ]

# Copied up by the server itself, then evicted by a second walk.
i=0; while [ $i -lt 50 ]; do echo "fuse $i" >>"$MNT/d6/f$i"; i=$((i + 1)); done
walk_tree "$MNT" $want
bad=0 i=0
while [ $i -lt 50 ]; do
	[ "$(cat "$MNT/d6/f$i" 2>>"$T/cu.err")" = "fuse $i" ] || bad=$((bad + 1))
	i=$((i + 1))
done
check "50 files copied up through the mount read back after eviction ($bad bad)" [ $bad -eq 0 ]
[ -s "$T/cu.err" ] && head -n 3 "$T/cu.err"
check "... and are in the upper layer" [ "$(cat "$UP/data/d6/f49" 2>/dev/null)" = "fuse 49" ]
walk_after "$MNT" "$PID"
walk_end
