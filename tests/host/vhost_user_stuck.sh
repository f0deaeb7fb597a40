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
. "$HERE/stuck_share.inc"
trap stuck_share_cleanup EXIT
trap 'exit 1' INT TERM HUP
fail() { echo "FAIL: $*"; exit 1; }

stuck_share_setup || fail "set-up"
"$STAINLESS" vhost-user-fs --socket-path "$T/sock" --shared-dir "$T/share" 2>"$T/backend.err" &
BPID=$!
stuck_share_socket "$T/backend.err" || fail "the backend did not start"
BSP=$(server_pid "$BPID")
timeout $((DEADLINE + 60)) "$T/client" "$T/sock" "$ISP" "$BSP" "$DEADLINE"
rc=$?
[ $rc = 0 ] || { tail -n 5 "$T/backend.err"; fail "vu_stuck exited $rc"; }
echo PASS
