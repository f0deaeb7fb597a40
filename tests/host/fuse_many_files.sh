#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A client that remembers far more inodes than the server has fds: a share
# on tmpfs holding 1,000,000 files in 1,000 directories, served by
# `stainless fuse-mount --cache never` limited to 4,096 fds (prlimit), and
# walked by the kernel's FUSE client. `find MNT` counts every name;
# `find MNT -links +0` stats every one, so the kernel looks each up and
# keeps it (a million remembered inodes). Before inodes were reopened by
# file handle the server ran out of fds after ~3,800 of them and answered
# ENFILE. Afterwards the server must still be alive and answering, and
# have stayed within its fds. Exit 0 pass, 77 skip (last line says why),
# else fail. Takes about a minute; FUSE_MANY_DIRS / FUSE_MANY_FILES
# (files per directory) change the size.
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/server_pid.inc"
NDIRS=${FUSE_MANY_DIRS:-1000}
NFILES=${FUSE_MANY_FILES:-1000}
NOFILE=4096

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to mount(2) FUSE and tmpfs"
[ -c /dev/fuse ] || skip "no /dev/fuse"
grep -qw fuse /proc/filesystems || skip "kernel has no FUSE"
[ -x "$STAINLESS" ] || skip "no stainless binary at $STAINLESS (build first)"
command -v cc >/dev/null || skip "no C compiler for the helper"
command -v prlimit >/dev/null || skip "no prlimit (util-linux)"

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

FAILS=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
check() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

mount -t tmpfs -o size=2g,nr_inodes=$((NDIRS * NFILES + NDIRS + 16)) stainless-many "$SRC" ||
	skip "cannot mount a tmpfs"
cc -O2 -o "$T/many_files" "$HERE/many_files.c" || { echo "helper build failed"; exit 1; }
t0=$(now)
"$T/many_files" "$SRC" "$NDIRS" "$NFILES" || { echo "could not make the tree"; exit 1; }
echo "# made $NDIRS x $NFILES files in $(took "$t0")"

prlimit --nofile=$NOFILE "$STAINLESS" fuse-mount "$SRC" "$MNT" --cache never 2>"$T/err" &
PID=$!
for i in $(seq 50); do grep -q " $MNT " /proc/mounts && break; sleep 0.1; done
grep -q " $MNT " /proc/mounts || { echo "mount did not appear"; cat "$T/err"; exit 1; }
check "the server runs with $NOFILE fds" \
	grep -q "^Max open files *$NOFILE " /proc/"$(server_pid "$PID")"/limits

want=$((1 + NDIRS + NDIRS * NFILES))
t0=$(now)
got=$(find "$MNT" | wc -l)
echo "# find: $got names in $(took "$t0")"
check "find lists every name ($want)" [ "$got" -eq "$want" ]
t0=$(now)
got=$(find "$MNT" -links +0 2>"$T/find.err" | wc -l)
echo "# find -links +0: $got names in $(took "$t0")"
check "find stats every name ($want)" [ "$got" -eq "$want" ]
check "find saw no errors" [ ! -s "$T/find.err" ]
[ -s "$T/find.err" ] && head -n 3 "$T/find.err"

# Still alive, still answering, still within its fds.
check "the server is alive" kill -0 "$PID"
fds=$(ls /proc/"$(server_pid "$PID")"/fd | wc -l)
echo "# the server holds $fds fds"
check "within its limit" [ "$fds" -le $NOFILE ]
check "an early file still stats" sh -c "stat '$MNT/d0/f0' >/dev/null"
check "a new file can be written and read" \
	sh -c "echo hello >'$MNT/d1/new' && [ \"\$(cat '$MNT/d1/new')\" = hello ]"
check "a late directory lists whole" [ "$(ls "$MNT/d$((NDIRS - 1))" | wc -l)" -eq "$NFILES" ]
check "nothing on stderr" [ ! -s "$T/err" ]
[ -s "$T/err" ] && head -n 3 "$T/err"

kill -TERM "$PID"
wait "$PID"; rc=$?
PID=
check "SIGTERM exits 0" [ $rc -eq 0 ]
[ $FAILS -eq 0 ]
