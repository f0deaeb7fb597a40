#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The fd bound without privilege: `stainless fuse-mount --cache never` run
# by the user nobody (fusermount3 mounts it; the server runs in a user
# namespace with no capability of the host's), limited to 4,096 fds,
# serving nobody's tmpfs of NDIRS x NFILES files (100,000 here, `make
# many-files` a million), walked by nobody through the kernel's FUSE
# client (tests/host/many_walk.inc says what is checked). As in
# tests/host/rootless_fuse.sh, /dev/fuse is a 0666 node of the test's own
# in a mount namespace of its own, whatever this machine's node is.
# Preconditions it cannot make (fusermount3, a user nobody, setpriv,
# unshare, a device node, user namespaces) make it SKIP.
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
HERE=$(cd "$(dirname "$0")" && pwd)

skip() { echo "SKIP: $*"; exit 77; }
if [ "${1:-}" != --in-ns ]; then
	[ "$(id -u)" = 0 ] || skip "needs root (to make device nodes and tmpfs; the test runs as nobody)"
	for c in setpriv unshare mknod prlimit cc; do
		command -v $c >/dev/null || skip "no $c (util-linux, coreutils, a C compiler)"
	done
	command -v fusermount3 >/dev/null || skip "no fusermount3 (package fuse3)"
	[ -x "$STAINLESS" ] || skip "no stainless binary at $STAINLESS (build first)"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups unshare -U true 2>/dev/null ||
		skip "nobody cannot make a user namespace (user.max_user_namespaces)"
	T=$(mktemp -d /tmp/fuse_many_rl.XXXXXX)
	chmod 755 "$T"
	unshare --mount --propagation private sh "$0" --in-ns "$T"; rc=$?
	rm -rf "$T"
	exit $rc
fi

# --- inside a mount namespace of our own ---------------------------------------
T=$2
. "$HERE/server_pid.inc"
NG=$(id -g nobody)
RUN_AS="setpriv --reuid=nobody --regid=$NG --clear-groups"
. "$HERE/many_walk.inc"
SRC=$T/src MNT=$T/mnt
PID=
cleanup() {
	[ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null && wait "$PID"
	umount -l "$MNT" 2>/dev/null
	umount -l "$SRC" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mknod "$T/fuse666" c 10 229 2>/dev/null && chmod 666 "$T/fuse666" ||
	skip "cannot make a device node in $T (nodev, or no CAP_MKNOD)"
[ -e /dev/fuse ] || skip "no /dev/fuse to mount over"
mount --bind "$T/fuse666" /dev/fuse || skip "cannot bind a node over /dev/fuse"
mkdir -p "$SRC" "$MNT"
mount -t tmpfs -o size=2g,nr_inodes=$((NDIRS * NFILES + NDIRS + 16)),uid=nobody,gid=$NG,mode=755 \
	stainless-many "$SRC" || skip "cannot mount a tmpfs"
chown nobody:"$NG" "$MNT"
cc -O2 -o "$T/many_files" "$HERE/many_files.c" || { echo "helper build failed"; exit 1; }
t0=$(now)
$RUN_AS "$T/many_files" "$SRC" "$NDIRS" "$NFILES" || { echo "could not make the tree"; exit 1; }
echo "# nobody made $NDIRS x $NFILES files in $(took "$t0")"

prlimit --nofile=$NOFILE $RUN_AS "$STAINLESS" fuse-mount "$SRC" "$MNT" --cache never 2>"$T/err" &
PID=$!
wait_mount "$MNT" "$T/err"
check "the server runs as nobody" \
	[ "$(awk '/^Uid:/ { print $2 }' /proc/"$(server_pid "$PID")"/status)" = "$(id -u nobody)" ]
walk_tree "$MNT" $((1 + NDIRS + NDIRS * NFILES))
walk_after "$MNT" "$PID"
check "a file made through the mount is nobody's on the host" \
	[ "$(stat -c %U "$SRC/d1/new" 2>/dev/null)" = nobody ]
grep -v -e 'no file handles' -e 'info: serving' "$T/err" >"$T/err2"
check "nothing else on stderr" [ ! -s "$T/err2" ]
[ -s "$T/err2" ] && head -n 3 "$T/err2"

kill -TERM "$PID"
wait "$PID"; rc=$?
PID=
check "SIGTERM exits 0, the mount gone" test $rc -eq 0 -a -z "$(grep " $MNT " /proc/mounts)"
[ $FAILS -eq 0 ]
