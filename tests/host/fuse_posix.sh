#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# POSIX battery through the real kernel FUSE client against
# `stainless fuse-mount`: files, directories, links, attributes, xattrs,
# locks held by the host, mmap, a 10,000-entry readdir, sparse files,
# O_TMPFILE, statx, a cp -a of a real tree, and what the share must not
# let through. Exit 0 pass, 77 skip (last line says why), else fail.
#
# It runs over /dev/fuse (the default, FUSE_CHANNEL unset or "dev");
# fuse_posix_uring.sh runs it over FUSE over io_uring (FUSE_CHANNEL=uring).
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/server_pid.inc"
URING_PARAM=/sys/module/fuse/parameters/enable_uring

FUSE_CHANNEL=${FUSE_CHANNEL:-dev}
echo "# channel: $FUSE_CHANNEL"
case $FUSE_CHANNEL in
uring) CHAN_ARGS=--uring ;;
*)     CHAN_ARGS= ;;
esac

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to mount(2) FUSE"
[ -c /dev/fuse ] || skip "no /dev/fuse"
grep -qw fuse /proc/filesystems || skip "kernel has no FUSE"
[ -x "$STAINLESS" ] || skip "no stainless binary at $STAINLESS (build first)"
command -v cc >/dev/null || skip "no C compiler for the helper"
for t in setfattr getfattr flock diff; do
	command -v $t >/dev/null || skip "$t missing (scripts/deps installs attr, util-linux)"
done

T=$(mktemp -d /tmp/fuse_posix.XXXXXX)
SRC=$T/src MNT=$T/mnt OUT=$T/outside
mkdir -p "$SRC" "$MNT" "$OUT"
chmod 0755 "$T" # other users must reach the mount
PID= HOLD= HOGS=
cleanup() {
	[ -n "$HOLD" ] && kill "$HOLD" 2>/dev/null
	[ -n "$HOGS" ] && kill $HOGS 2>/dev/null
	if grep -q " $MNT " /proc/mounts; then umount "$MNT" 2>/dev/null || umount -l "$MNT"; fi
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && sleep 0.2 && kill -9 "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

FAILS=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
check() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

cc -O2 -o "$T/helper" "$HERE/fuse_helper.c" || { echo "helper build failed"; exit 1; }
H=$T/helper

# --- command line errors: one line on stderr, non-zero exit ---------------
badcmd() {
	d=$1; shift
	"$STAINLESS" fuse-mount "$@" 2>"$T/err"; rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then ok "cli: $d"
	else bad "cli: $d (rc=$rc, stderr: $(cat "$T/err"))"; fi
}
badcmd "missing dir" "$T/nope" "$MNT"
badcmd "dir is a file" "$H" "$MNT"
badcmd "bad option" "$SRC" "$MNT" --bogus
badcmd "bad cache" "$SRC" "$MNT" --cache sometimes
badcmd "missing mountpoint" "$SRC"
# Serving modes that were removed: one line, not a silent default.
gone() {
	badcmd "removed option $*" "$SRC" "$MNT" "$@"
	grep -q -- "gone" "$T/err" || bad "cli: removed option $* says so ($(cat "$T/err"))"
}
gone --single
gone --poll 50
gone --poll=0

# --- mount -----------------------------------------------------------------
# -o allow_other: a second user (uid 4321, below) uses the mount.
"$STAINLESS" fuse-mount "$SRC" "$MNT" --xattr --cache auto -o allow_other $CHAN_ARGS &
PID=$!
for i in $(seq 50); do grep -q " $MNT " /proc/mounts && break; sleep 0.1; done
grep -q " $MNT " /proc/mounts || { echo "mount did not appear"; exit 1; }
# The rings are set up after INIT, which the first access completes.
ls "$MNT" >/dev/null
rings() { ls -l /proc/"$(server_pid "$PID")"/fd 2>/dev/null | grep -c 'io_uring'; }
cpus=$(awk -F- '{print $NF + 1}' /sys/devices/system/cpu/possible)
if [ "$FUSE_CHANNEL" = uring ]; then
	check "one io_uring per possible CPU ($cpus)" [ "$(rings)" -eq "$cpus" ]
else
	check "no io_uring without --uring" [ "$(rings)" -eq 0 ]
fi

# --- serving threads: how many, in the normal class, never starved ---------
# The default: two readers blocking on /dev/fuse (fuse-r0, fuse-r1);
# --uring: one queue thread per possible CPU (fuse-qN, pinned to CPU N)
# and one reader for FORGET and INTERRUPT.
case $FUSE_CHANNEL in
uring)  SERVERS=fuse-q nservers=$cpus ;;
*)      SERVERS=fuse-r nservers=2 ;;
esac
servers() { # one line per serving thread: name, policy (0 normal), allowed CPUs
	for t in /proc/"$(server_pid "$PID")"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in $SERVERS*)
			echo "$(cat "$t/comm") $(awk '{ print $41 }' "$t/stat")" \
			     "$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status")"
		esac
	done
}
check "serving threads: $nservers ($(servers | paste -sd';'))" [ "$(servers | wc -l)" -eq "$nservers" ]
( end=$(($(date +%s) + 2)); while [ "$(date +%s)" -lt "$end" ]; do
	stat "$MNT" >/dev/null; done ) &
LOOP=$!
seen=
for i in $(seq 10); do sleep 0.1; seen="$seen $(servers | awk '{ print $2 }' | tr '\n' ' ')"; done
kill $LOOP 2>/dev/null; wait $LOOP 2>/dev/null
other=$(echo $seen | tr ' ' '\n' | grep -vx 0)
check "serving threads stay in the normal class under load ($seen)" \
	[ -n "$(echo $seen)" ] && [ -z "$other" ]
if [ "$FUSE_CHANNEL" = uring ]; then
	# A queue of a CPU that is not online cannot be pinned (best effort).
	unpinned=$(servers | awk -v ncpu="$(nproc)" \
		'{ n = $1; sub("fuse-q", "", n); if (n != $3 && n + 0 < ncpu) print $1 }')
	check "each queue thread pinned to its CPU ($(servers | paste -sd';'))" [ -z "$unpinned" ]
fi
# A busy task on every CPU: the serving threads share the CPUs with it and
# these 300 creates, a listing and the removals still finish (~1.5 s here).
for c in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$c" sh -c 'while :; do :; done' & HOGS="$HOGS $!"
done
mkdir "$MNT/hog"
timeout 15 sh -c "for i in \$(seq 300); do : >'$MNT/hog/f'\$i; done &&
	[ \$(ls '$MNT/hog' | wc -l) -eq 300 ] && rm -r '$MNT/hog'"; rc=$?
kill $HOGS
HOGS=
check "requests finish within 15 s with every CPU busy (rc $rc)" [ $rc -eq 0 ]

# --- files and directories --------------------------------------------------
echo "hello fuse" >"$MNT/f1"
check "create+write seen on host" grep -qx "hello fuse" "$SRC/f1"
check "read back" grep -qx "hello fuse" "$MNT/f1"
echo "more" >>"$MNT/f1"
check "append" [ "$(wc -l <"$SRC/f1")" = 2 ]
truncate -s 5 "$MNT/f1"
check "truncate" [ "$(stat -c %s "$SRC/f1")" = 5 ]
truncate -s 100000 "$MNT/f1"
check "extend" [ "$(stat -c %s "$MNT/f1")" = 100000 ]
mkdir -p "$MNT/d1/d2"
check "mkdir -p" [ -d "$SRC/d1/d2" ]
mv "$MNT/f1" "$MNT/d1/d2/f2"
check "rename file across dirs" [ -f "$SRC/d1/d2/f2" ] && [ ! -e "$SRC/f1" ]
mv "$MNT/d1" "$MNT/d3"
check "rename dir" [ -f "$MNT/d3/d2/f2" ]
rmdir "$MNT/d3/d2" 2>/dev/null && bad "rmdir of non-empty dir succeeded" || ok "rmdir non-empty refused"
rm "$MNT/d3/d2/f2" && rmdir "$MNT/d3/d2" "$MNT/d3"
check "unlink+rmdir" [ ! -e "$SRC/d3" ]

# --- links --------------------------------------------------------------------
echo data >"$MNT/orig"
ln "$MNT/orig" "$MNT/hard"
check "hard link count" [ "$(stat -c %h "$MNT/orig")" = 2 ]
check "hard link same inode" [ "$(stat -c %i "$MNT/orig")" = "$(stat -c %i "$MNT/hard")" ]
check "hard link on host" [ "$(stat -c %i "$SRC/orig")" = "$(stat -c %i "$SRC/hard")" ]
ln -s orig "$MNT/sym"
check "symlink target" [ "$(readlink "$MNT/sym")" = orig ]
check "read via symlink" grep -qx data "$MNT/sym"
check "symlink on host" [ -L "$SRC/sym" ]

# --- attributes ------------------------------------------------------------------
chmod 0640 "$MNT/orig"
check "chmod" [ "$(stat -c %a "$SRC/orig")" = 640 ]
chown 1234:5678 "$MNT/orig"
check "chown" [ "$(stat -c %u:%g "$SRC/orig")" = 1234:5678 ]
touch -d "2001-02-03 04:05:06" "$MNT/orig"
check "utimes" [ "$(stat -c %Y "$SRC/orig")" = "$(date -d "2001-02-03 04:05:06" +%s)" ]
touch "$MNT/orig"
check "utimes now" [ "$(stat -c %Y "$SRC/orig")" -ge "$(($(date +%s) - 5))" ]
check "statx" "$H" statx "$MNT/orig"

# --- files run as their caller: a non-root user is refused by the host --------
mkdir "$MNT/private" "$MNT/public" && chmod 0700 "$MNT/private" && chmod 0777 "$MNT/public"
if command -v setpriv >/dev/null; then
	as_user() { setpriv --reuid 4321 --regid 4321 --clear-groups "$@"; }
	check "unprivileged create in 0777 dir" as_user touch "$MNT/public/mine"
	check "created as the caller" [ "$(stat -c %u:%g "$SRC/public/mine" 2>/dev/null)" = 4321:4321 ]
	as_user touch "$MNT/private/x" 2>/dev/null &&
		bad "unprivileged create in 0700 dir" || ok "unprivileged create refused"
fi

# --- xattrs -------------------------------------------------------------------
setfattr -n user.color -v blue "$MNT/orig"
check "setfattr seen on host" [ "$(getfattr --absolute-names --only-values -n user.color "$SRC/orig")" = blue ]
check "getfattr" [ "$(getfattr --absolute-names --only-values -n user.color "$MNT/orig")" = blue ]
check "listxattr" sh -c "getfattr --absolute-names -d '$MNT/orig' | grep -q user.color"
setfattr -x user.color "$MNT/orig"
check "removexattr" sh -c "! getfattr --absolute-names -n user.color '$SRC/orig' 2>/dev/null"
# The host's own security.* and trusted.* are not the client's (fs/fs_xattr.h):
# cap_setuid=ep as setcap writes it is refused, and no file capability appears.
FCAP=0x0100000280000000000000000000000000000000
on_host() { getfattr --absolute-names -n "$1" "$SRC/orig" >/dev/null 2>&1; }
not_on_host() { ! on_host "$1"; }
listed() { getfattr --absolute-names -d -m - "$MNT/orig" 2>/dev/null | grep -q "$1"; }
not_listed() { ! listed "$1"; }
setfattr -n security.capability -v $FCAP "$MNT/orig" 2>/dev/null &&
	bad "security.capability set through the mount" || ok "security.capability refused"
check "no file capability on the host" not_on_host security.capability
setfattr -n trusted.foo -v x "$MNT/orig" 2>/dev/null &&
	bad "trusted.* set through the mount" || ok "trusted.* refused"
check "no trusted.* on the host" not_on_host trusted.foo
setfattr -n user.stainless.x -v x "$MNT/orig" 2>/dev/null &&
	bad "user.stainless.* set by the client" || ok "user.stainless.* refused"
setfattr -n trusted.host -v h "$SRC/orig"
setfattr -n user.stainless.security.selinux -v l "$SRC/orig"
getfattr --absolute-names -n trusted.host "$MNT/orig" >/dev/null 2>&1 &&
	bad "host trusted.* read through the mount" || ok "host trusted.* unreadable"
check "host trusted.* unlisted" not_listed trusted
check "private names unlisted" not_listed 'stainless\|selinux'

# --- locks against a lock the host holds on the real file ---------------------
: >"$SRC/lk"
flock "$SRC/lk" sleep 3 &
HOLD=$!
sleep 0.3
check "flock refused while host holds it" sh -c "! flock -n '$MNT/lk' true"
start=$(date +%s)
check "flock wait completes when host releases" timeout 15 flock "$MNT/lk" true
check "flock waited" [ $(($(date +%s) - start)) -ge 1 ]
wait $HOLD 2>/dev/null; HOLD=

: >"$SRC/plk"
"$H" posix-hold "$SRC/plk" 4 >"$T/holdout" &
HOLD=$!
for i in $(seq 30); do [ -s "$T/holdout" ] && break; sleep 0.1; done
check "POSIX lock refused while host holds it" "$H" posix-try "$MNT/plk"
check "F_GETLK sees the host's lock" "$H" posix-getlk "$MNT/plk"
check "F_SETLKW interrupted by a signal returns EINTR" timeout 5 "$H" posix-wait-intr "$MNT/plk"
start=$(date +%s)
check "F_SETLKW completes when host releases" timeout 15 "$H" posix-wait "$MNT/plk"
check "F_SETLKW waited" [ $(($(date +%s) - start)) -ge 1 ]
wait $HOLD 2>/dev/null; HOLD=
check "one owner across fds; close drops its locks" "$H" posix-owners "$MNT/plk"

# --- mmap, sparse files, O_TMPFILE ----------------------------------------------
check "mmap shared writes seen by read" "$H" mmap "$MNT/mm"
check "SEEK_DATA/SEEK_HOLE" "$H" sparse "$MNT/sparse"
check "O_TMPFILE" "$H" tmpfile "$MNT"
check "O_TMPFILE linked in" grep -qx tmpdata "$SRC/linked_tmpfile"

# --- a 10,000-entry directory ----------------------------------------------------
mkdir "$SRC/big"
(cd "$SRC/big" && seq -f "entry_%05g" 10000 | xargs touch)
check "readdir 10000" [ "$(ls "$MNT/big" | wc -l)" = 10000 ]
check "readdirplus 10000 (ls -l)" [ "$(ls -l "$MNT/big" | grep -c entry_)" = 10000 ]
check "find 10000" [ "$(find "$MNT/big" -type f | wc -l)" = 10000 ]

# --- a real source tree ---------------------------------------------------------
if [ -d /usr/include/linux ]; then
	cp -a /usr/include/linux "$MNT/inc"
	check "cp -a tree, diff through mount" diff -r /usr/include/linux "$MNT/inc"
	check "cp -a tree, diff on host" diff -r /usr/include/linux "$SRC/inc"
fi

# --- the share's edges ------------------------------------------------------------
echo secret >"$OUT/secret"
ln -s "$OUT/secret" "$SRC/abs_out"
ln -s ../outside/secret "$SRC/rel_out"
check "symlink out stays a symlink (server does not follow)" [ -L "$MNT/abs_out" ]
check "readlink is literal" [ "$(readlink "$MNT/rel_out")" = ../outside/secret ]
ln "$OUT/secret" "$MNT/hl" 2>/dev/null && bad "hard link from outside the share" ||
	ok "hard link from outside refused"
mkdir "$SRC/loopdir" && ln -s . "$SRC/loopdir/self"
check "self symlink lookups stay inside" [ -d "$MNT/loopdir/self/self/self" ]

# --- the server is still serving, then SIGTERM unmounts and exits 0 -------------
check "still serving" [ -f "$MNT/mm" ]
kill -TERM "$PID"
wait "$PID"; rc=$?
PID=
check "SIGTERM exits 0" [ $rc -eq 0 ]
check "SIGTERM unmounted" sh -c "! grep -q ' $MNT ' /proc/mounts"

# --- --xattr-map: the client's security.*/trusted.* under user.stainless. ----
"$STAINLESS" fuse-mount "$SRC" "$MNT" --xattr-map $CHAN_ARGS &
PID=$!
for i in $(seq 50); do grep -q " $MNT " /proc/mounts && break; sleep 0.1; done
check "mapped: security.capability set" setfattr -n security.capability -v $FCAP "$MNT/orig"
check "mapped: still no file capability on the host" not_on_host security.capability
check "mapped: stored under user.stainless." on_host user.stainless.security.capability
check "mapped: read back under its own name" [ "$(getfattr --absolute-names -e hex \
	-n security.capability "$MNT/orig" 2>/dev/null | sed -n 's/^security.capability=//p')" = $FCAP ]
check "mapped: a private name listed as the client's" listed '^security.selinux='
check "mapped: the host's own trusted.* still unlisted" not_listed trusted.host
setfattr -x security.capability "$MNT/orig"
check "mapped: removed on the host" not_on_host user.stainless.security.capability
umount "$MNT"
wait "$PID"
PID=

# --- an external umount ends it with 0 ---------------------------------------------
"$STAINLESS" fuse-mount "$SRC" "$MNT" --readonly $CHAN_ARGS &
PID=$!
for i in $(seq 50); do grep -q " $MNT " /proc/mounts && break; sleep 0.1; done
sh -c "echo x >'$MNT/ro'" 2>/dev/null && bad "readonly share accepted a write" || ok "readonly refuses writes"
check "readonly still reads" [ "$(ls "$MNT/big" | wc -l)" = 10000 ]
umount "$MNT"
wait "$PID"; rc=$?
PID=
check "external umount exits 0" [ $rc -eq 0 ]

# --- --uring where the kernel does not offer it: one line, /dev/fuse serves ----
if [ "$FUSE_CHANNEL" = dev ] && [ "$(cat "$URING_PARAM" 2>/dev/null)" != Y ]; then
	"$STAINLESS" fuse-mount "$SRC" "$MNT" --uring 2>"$T/uring.err" &
	PID=$!
	for i in $(seq 50); do grep -q " $MNT " /proc/mounts && break; sleep 0.1; done
	check "--uring unavailable: still serves" [ -f "$MNT/mm" ]
	check "--uring unavailable: no ring" [ "$(rings)" -eq 0 ]
	check "--uring unavailable: one line says so" \
		sh -c "[ \$(grep -vc 'info: serving' '$T/uring.err') -eq 1 ] && grep -q -- '--uring' '$T/uring.err'"
	umount "$MNT"
	wait "$PID"
	PID=
fi

echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
