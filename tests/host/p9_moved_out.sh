#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A directory a 9p client holds a fid on is moved out of the share by a host
# process (to the share's parent), which then puts SECRET in it. Every use
# of its names must be refused: Twalk to SECRET and to "..", Treaddir of
# its open fid, Tlcreate, Tmkdir, Tunlinkat and Trenameat in it (the fid
# would otherwise reach a directory outside the share). SECRET survives.
# Moved back, the same fid walks again. In both sandbox modes: the share
# as a bind mount's root (the kernel's ".." check) and --sandbox none on a
# subdirectory (a walk up to the root). Exit 0 pass, 77 skip, else fail.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build p9_client"; exit 77; }

T=$(mktemp -d /tmp/p9_moved.XXXXXX)
PID= CPID=
cleanup() {
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$T/out" ] && sed 's/^/  | /' "$T/out"; exit 1; }
$CC -O2 -Wall -o "$T/p9_client" "$(dirname "$0")/p9_client.c" || fail "cannot build p9_client"

# wait_for WORD: the client printed WORD on a line of its own.
wait_for() {
	i=0
	until grep -qx "$1" "$T/out"; do
		i=$((i + 1)); [ $i -gt 200 ] && fail "the client never said $1"
		kill -0 "$CPID" 2>/dev/null || fail "the client died before saying $1"
		sleep 0.05
	done
}

round() { # SANDBOX
	S=$T/share M=$T/m
	rm -rf "$S" "$M" "$T/sock" "$T/out" "$T/in"
	mkdir -p "$S/m"
	echo inside >"$S/m/f0"
	"$STAINLESS" 9p-serve --socket "$T/sock" --sandbox "$1" "$S" 2>"$T/server.err" &
	PID=$!
	i=0
	while [ ! -S "$T/sock" ]; do
		i=$((i + 1)); [ $i -gt 100 ] && fail "server socket never appeared: $(cat "$T/server.err")"
		sleep 0.05
	done
	mkfifo "$T/in"
	"$T/p9_client" "$T/sock" movedout m <"$T/in" >"$T/out" 2>&1 &
	CPID=$!
	exec 7>"$T/in"
	wait_for held
	mv "$S/m" "$M"
	echo secret >"$M/SECRET"
	echo moved >&7
	wait_for checked
	mv "$M" "$S/m"
	echo back >&7
	exec 7>&-
	wait "$CPID"; rc=$?; CPID=
	sed 's/^/  | /' "$T/out"
	[ $rc -eq 0 ] || fail "--sandbox $1: an operation on the moved-out directory was allowed"
	[ "$(grep -c '^refused: ' "$T/out")" -eq 7 ] || fail "--sandbox $1: not every operation was tried"
	grep -q '^back: walk to f0 ok' "$T/out" || fail "--sandbox $1: the fid did not walk once back"
	[ "$(cat "$S/m/SECRET" 2>/dev/null)" = secret ] || fail "--sandbox $1: SECRET was touched"
	[ ! -e "$S/m/created" ] && [ ! -e "$S/m/made" ] || fail "--sandbox $1: a name was made outside the share"
	kill -0 "$PID" || fail "--sandbox $1: the server died"
	kill "$PID"; wait "$PID"; PID=
	echo "ok: --sandbox $1: a directory moved out of the share answers every name request with an error"
}

round namespace
round none
