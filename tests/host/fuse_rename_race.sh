#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Directories moved on the host while the kernel's FUSE client walks them
# through `stainless fuse-mount --cache never` (4,096 fds, so a 20,000-file
# directory beside them keeps the fd cache evicting and inodes reopened by
# name). tests/host/rename_race.c renames share/a away and back, swaps
# share/a and share/b (RENAME_EXCHANGE), and moves share/m out of the share
# to its parent, where m gets a file MARKER, then back. Walkers: a shell
# whose working directory is share/m reads MARKER and lists "." (through
# the directory's own nodeid, as a guest process with that cwd does); one
# in share/a/x reads its files; find stats the whole share over and over.
# Checked: MARKER is never read or listed (a directory moved out answers
# ESTALE, in both sandbox modes), every file read says a or b, find's only
# errors are ENOENT and ESTALE, the server stays alive and within its fds,
# and once the renames stop the whole tree stats with no error.
# Exit 0 pass, 77 skip, else fail.
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/server_pid.inc"
. "$HERE/many_walk.inc"
SECS=${RENAME_RACE_SECONDS:-8}
NBIG=20000

need_fuse_root "FUSE and tmpfs"

T=$(mktemp -d /tmp/fuse_race.XXXXXX)
B=$T/base MNT=$T/mnt
mkdir -p "$B" "$MNT"
PID= WALKERS=
cleanup() {
	for w in $WALKERS; do kill "$w" 2>/dev/null; done
	if grep -q " $MNT " /proc/mounts; then umount "$MNT" 2>/dev/null || umount -l "$MNT"; fi
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && sleep 0.2 && kill -9 "$PID" 2>/dev/null
	if grep -q " $B " /proc/mounts; then umount "$B" 2>/dev/null || umount -l "$B"; fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mount -t tmpfs -o size=512m stainless-race "$B" || skip "cannot mount a tmpfs"
cc -O2 -o "$T/rename_race" "$HERE/rename_race.c" &&
	cc -O2 -o "$T/many_files" "$HERE/many_files.c" || { echo "helper build failed"; exit 1; }
S=$B/share
mkdir -p "$S/a/x" "$S/b/x" "$S/m" "$B/outside" "$S/big"
for i in 0 1 2 3 4 5 6 7 8 9; do
	echo a >"$S/a/x/f$i"; echo b >"$S/b/x/f$i"; echo m >"$S/m/f$i"
done
"$T/many_files" "$S/big" 1 $NBIG || exit 1

race() { # SANDBOX: one server, the walkers and the renames
	: >"$T/seen"; : >"$T/files"; : >"$T/find.err"; : >"$T/find.out"
	prlimit --nofile=$NOFILE "$STAINLESS" fuse-mount "$S" "$MNT" --cache never \
		--sandbox "$1" 2>"$T/err" &
	PID=$!
	for i in $(seq 50); do grep -q " $MNT " /proc/mounts && break; sleep 0.1; done
	grep -q " $MNT " /proc/mounts || { echo "mount did not appear"; cat "$T/err"; exit 1; }
	(cd "$MNT/m" && while :; do cat MARKER; ls; done >>"$T/seen" 2>/dev/null) &
	WALKERS="$!"
	(cd "$MNT/a/x" && while :; do cat f0 f5 f9; done >>"$T/files" 2>/dev/null) &
	WALKERS="$WALKERS $!"
	(while :; do find "$MNT" -links +0; done >>"$T/find.out" 2>>"$T/find.err") &
	WALKERS="$WALKERS $!"
	sleep 1
	echo "# --sandbox $1: $("$T/rename_race" "$B" "$SECS")"
	for w in $WALKERS; do kill "$w"; done
	wait $WALKERS 2>/dev/null
	WALKERS=
	check "--sandbox $1: MARKER, outside the share, never read or listed" \
		[ "$(grep -c MARKER "$T/seen" "$T/find.out" | awk -F: '{ n += $2 } END { print n }')" -eq 0 ]
	grep -n -m 3 -e OUTSIDE -e MARKER "$T/seen" "$T/find.out"
	check "--sandbox $1: the cwd walker saw the directory ($(grep -c '^f0$' "$T/seen") listings)" \
		[ "$(grep -c '^f0$' "$T/seen")" -gt 0 ]
	check "--sandbox $1: every file read says a or b ($(wc -l <"$T/files") reads)" \
		[ "$(grep -cv -e '^a$' -e '^b$' "$T/files")" -eq 0 -a "$(wc -l <"$T/files")" -gt 0 ]
	grep -v -e 'No such file or directory' -e 'Stale file handle' "$T/find.err" >"$T/find.other"
	check "--sandbox $1: find's only errors are ENOENT and ESTALE ($(wc -l <"$T/find.err") of those)" \
		[ ! -s "$T/find.other" ]
	head -n 3 "$T/find.other"
	sp=$(server_pid "$PID")
	check "--sandbox $1: the server is alive" kill -0 "$PID"
	fds=$(ls /proc/"$sp"/fd | wc -l)
	check "--sandbox $1: within its fds ($fds)" [ "$fds" -le $NOFILE ]
	got=$(find "$MNT" -links +0 2>"$T/after.err" | wc -l)
	check "--sandbox $1: afterwards the tree stats whole ($got names), no error" \
		[ "$got" -eq $((1 + 4 + 20 + 10 + 2 + NBIG + 1)) -a ! -s "$T/after.err" ]
	head -n 3 "$T/after.err"
	grep -v -e 'warn: --sandbox none' -e 'info: serving' "$T/err" >"$T/err2"
	check "--sandbox $1: nothing else on stderr" [ ! -s "$T/err2" ]
	head -n 3 "$T/err2"
	kill -TERM "$PID"; wait "$PID"; rc=$?; PID=
	check "--sandbox $1: SIGTERM exits 0" [ $rc -eq 0 ]
}
race namespace
race none
[ $FAILS -eq 0 ]
