#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# vhost-user-fs's log, driven by our own frontend (vu_kata_client): with
# --log-level trace one line per FUSE request the rings carry (INIT,
# LOOKUP, OPEN, READ, CREATE, WRITE, RELEASE; node, result, microseconds),
# each with its level (a request the ring finishes later: "deferred"); --stats: when the frontend leaves, one line with the
# requests of each ring; at the default level no request lines.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build vu_kata_client"; exit 77; }
T=$(mktemp -d /tmp/vhost_user_trace.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; [ -f "$T/err" ] && tail -n 20 "$T/err"; exit 1; }
$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_kata_client.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" 2>"$T/cc.err" ||
	{ echo "SKIP: cannot build vu_kata_client: $(head -n 1 "$T/cc.err")"; exit 77; }
mkdir "$T/share"
printf 'from the host' >"$T/share/r.txt"

drive() { # NEW-NAME ARGS...
	new=$1; shift
	"$T/client" "$T/$new.sock" r.txt 'from the host' "$new" "written as $new" -- \
		"$STAINLESS" vhost-user-fs --socket-path "$T/$new.sock" --shared-dir "$T/share" "$@" \
		>"$T/out" 2>"$T/err" || { cat "$T/out"; fail "the frontend's run ($*)"; }
}
drive a.txt --log-level trace --stats
for op in INIT LOOKUP OPEN READ CREATE WRITE RELEASE; do
	grep -Eq "vhost-user-fs: trace: fuse $op node=[0-9]+ -> (-?[A-Z0-9]+|deferred) \\([0-9]+ us\\)" "$T/err" ||
		fail "--log-level trace: no line for $op"
done
grep -Eq 'trace: fuse LOOKUP node=1 -> [0-9]+ ' "$T/err" || fail "LOOKUP of r.txt in the root (node 1)"
grep -Eq 'stats: virtio-fs q0=[0-9]+ q1=[1-9][0-9]*' "$T/err" || fail "--stats: no 'q0=N q1=M' line"
echo "ok: $(grep -c 'trace: fuse' "$T/err") request lines, e.g. $(grep -m1 'fuse READ' "$T/err")"
echo "ok: $(grep 'stats:' "$T/err")"
drive b.txt
grep -q 'trace:' "$T/err" && fail "request lines at the default level"
grep -q 'stats:' "$T/err" && fail "a stats line without --stats"
echo "PASS: vhost-user-fs: a trace line per FUSE request, --stats per ring"
