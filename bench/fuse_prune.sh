#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/fuse_prune.sh [BIN_A LABEL_A BIN_B LABEL_B] [ROUNDS]: what
# FUSE_NOTIFY_PRUNE does to a walk larger than the fd budget. Each round
# makes 100 x 1,000 empty files on a tmpfs, serves them with
# `fuse-mount --cache ${CACHE:-never} --stats` under 4,096 fds, walks them
# twice with `find -links +0`, and prints both walks' seconds and the
# server's --stats line (inodes_peak: the table's high-water mark; pruned:
# nodeids offered to the kernel). The binaries alternate, A first. For an
# A/B, B is a build of the same tree with the prune hook off
# (fuse_watch_start's `s->it.evicted` line removed). Root, /dev/fuse.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
A=${1:-$HERE/../build/stainless} LA=${2:-A} B=${3:-} LB=${4:-B} ROUNDS=${5:-2}

one() { # BIN LABEL
	T=$(mktemp -d /tmp/fuse_prune.XXXXXX); SRC=$T/src MNT=$T/mnt
	mkdir -p "$SRC" "$MNT"
	mount -t tmpfs -o size=1g,nr_inodes=200000 fuse-prune "$SRC" || exit 1
	cc -O2 -o "$T/mf" "$HERE/../tests/host/many_files.c" && "$T/mf" "$SRC" 100 1000 || exit 1
	prlimit --nofile=4096 "$1" fuse-mount "$SRC" "$MNT" --cache "${CACHE:-never}" --stats 2>"$T/err" &
	pid=$!
	for i in $(seq 50); do grep -q " $MNT fuse" /proc/mounts && break; sleep 0.1; done
	t0=$(date +%s.%N); n1=$(find "$MNT" -links +0 2>&1 | wc -l)
	t1=$(date +%s.%N); n2=$(find "$MNT" -links +0 2>&1 | wc -l)
	t2=$(date +%s.%N)
	kill -TERM $pid; wait $pid
	echo "$2: walk1 $n1 names $(echo "$t1 - $t0" | bc) s, walk2 $n2 names" \
	     "$(echo "$t2 - $t1" | bc) s; $(grep 'stats:' "$T/err")"
	umount "$SRC"; rm -rf "$T"
}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount"; exit 77; }
for r in $(seq "$ROUNDS"); do
	one "$A" "$LA"
	[ -n "$B" ] && one "$B" "$LB"
done
