#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A stuck host file system never wedges a vhost-user-fs queue
# (docs/stuck-host-fs.md): `stainless vhost-user-fs` shares a directory
# holding, at sub/, a FUSE mount of the test's own (`stainless fuse-mount`),
# driven by tests/host/vu_stuck.c on our frontend (tests/vhost). With the
# inner server SIGSTOPped, a GETATTR on sub/f1 is answered EIO within the
# deadline (vhost-user-fs has no timeout option: the default, 30 s) while
# GETATTRs of a healthy file on the same queue go on being answered; a
# second is EIO at once (fenced); after SIGCONT sub/f1 answers and the
# backend's fds and threads are back to their count before the stop.
# Exit 0 pass, 77 skip (last line says why), else fail.
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
CC=${CC:-cc}
DEADLINE=30 # FS_CALL_TIMEOUT_DEFAULT
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/server_pid.inc"

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to mount(2) FUSE"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -x "$STAINLESS" ] || skip "no stainless binary at $STAINLESS (build first)"
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler to build vu_stuck"

T=$(mktemp -d /tmp/vhost_user_stuck.XXXXXX)
IPID= BPID=
cleanup() {
	[ -n "$IPID" ] && kill -CONT "$(server_pid "$IPID")" 2>/dev/null
	[ -n "$BPID" ] && kill "$BPID" 2>/dev/null
	if grep -q " $T/share/sub " /proc/mounts; then
		umount "$T/share/sub" 2>/dev/null || umount -l "$T/share/sub"
	fi
	[ -n "$IPID" ] && kill "$IPID" 2>/dev/null
	sleep 0.2
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fail() { echo "FAIL: $*"; exit 1; }

$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_stuck.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" || fail "cannot build vu_stuck"
mkdir -p "$T/inner" "$T/share/sub"
echo "inner 1" >"$T/inner/f1"
echo healthy >"$T/share/healthy"
"$STAINLESS" fuse-mount "$T/inner" "$T/share/sub" --cache never 2>"$T/inner.err" &
IPID=$!
for i in $(seq 50); do grep -q " $T/share/sub " /proc/mounts && break; sleep 0.1; done
grep -q " $T/share/sub " /proc/mounts || fail "the inner mount did not appear: $(tail -n 3 "$T/inner.err")"
"$STAINLESS" vhost-user-fs --socket-path "$T/sock" --shared-dir "$T/share" 2>"$T/backend.err" &
BPID=$!
for i in $(seq 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
[ -S "$T/sock" ] || fail "no socket: $(tail -n 3 "$T/backend.err")"
[ "$(cat "$T/share/sub/f1")" = "inner 1" ] || fail "the inner mount does not serve"
ISP=$(server_pid "$IPID")
grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$ISP/status" || fail "no inner server process found under $IPID"
BSP=$(server_pid "$BPID")
timeout $((DEADLINE + 60)) "$T/client" "$T/sock" "$ISP" "$BSP" "$DEADLINE"
rc=$?
[ $rc = 0 ] || { tail -n 5 "$T/backend.err"; fail "vu_stuck exited $rc"; }
echo PASS
