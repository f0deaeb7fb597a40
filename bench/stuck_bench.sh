#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A stuck host file system inside a vhost-user-fs share (docs/stuck-host-fs.md),
# backends side by side in the same run: the share holds, at sub/, a FUSE
# mount of its own (`stainless fuse-mount`) whose server is SIGSTOPped with
# 24 GETATTRs of sub/f1 in flight; the row is how many GETATTRs of a healthy
# file of the same share (one at a time, same queue) are answered in 5 s
# before and during the stop (tests/host/vu_stuck.c --row on our frontend).
#   stainless   stainless vhost-user-fs (deadline 30 s: none answered in the window)
#   vfsd-t0     QEMU's C virtiofsd, Debian's default (requests on the queue thread)
#   vfsd-t16    QEMU's C virtiofsd --thread-pool-size=16 (fewer threads than stuck requests)
# A figure, not a check: it exits non-zero only when a run itself fails.
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
VIRTIOFSD=${VIRTIOFSD:-/usr/lib/qemu/virtiofsd}
CC=${CC:-cc}
STUCK=24
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
. "$ROOT/tests/host/server_pid.inc"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount(2) FUSE"; exit 77; }
[ -x "$STAINLESS" ] || { echo "SKIP: no stainless binary at $STAINLESS"; exit 77; }

T=$(mktemp -d /tmp/stuck_bench.XXXXXX)
. "$ROOT/tests/host/stuck_share.inc"
trap stuck_share_cleanup EXIT
trap 'exit 1' INT TERM HUP
die() { echo "FAIL: $*"; exit 1; }

stuck_share_setup || die "set-up"

backends="stainless"
[ -x "$VIRTIOFSD" ] && backends="$backends ${VFSD_ROWS:-vfsd-t0 vfsd-t16}" ||
	echo "note: no $VIRTIOFSD: the C virtiofsd rows are left out"
for b in $backends; do
	rm -f "$T/sock"
	case $b in
	stainless) "$STAINLESS" vhost-user-fs --socket-path "$T/sock" --shared-dir "$T/share" ;;
	vfsd-t*) "$VIRTIOFSD" --socket-path="$T/sock" -o source="$T/share" -o cache=none \
		--thread-pool-size="${b#vfsd-t}" ;;
	esac 2>"$T/$b.err" &
	BPID=$!
	stuck_share_socket "$T/$b.err" || die "$b did not start"
	timeout 120 "$T/client" "$T/sock" "$ISP" "$(server_pid "$BPID")" 30 --row "$b" "$STUCK" ||
		{ echo "inner mount now: $(timeout 3 cat "$T/share/sub/f1" 2>&1 || echo no answer in 3 s)"; tail -n 3 "$T/$b.err"; die "$b: the run failed"; }
	kill "$BPID" 2>/dev/null
	wait "$BPID" 2>/dev/null
	BPID=
done
