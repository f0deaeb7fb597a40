#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Change-aware lifetimes through vhost-user-fs (docs/host-changes.md): a
# guest's virtio-fs driver reads no notification, so with --watches the
# replies' lifetimes follow host changes instead. Through the project's
# frontend (tests/host/vu_lifetimes.c on tests/vhost/): at --cache always
# --watches 64 a quiet inode lives more than 1 s and at most 10 s; after a
# host touch, an mv in its directory, an append by a process holding the
# file open, each next reply says 1 s, and a removed name is ENOENT;
# --watches 0 keeps cache=always's day; --watches 1 (the root's only)
# gives unwatched directories 1 s and says so in one log line.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build vu_lifetimes"; exit 77; }

T=$(mktemp -d /tmp/vhost_user_lifetimes.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_lifetimes.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" || fail "cannot build vu_lifetimes"
for p in watch plain budget; do
	mkdir -p "$T/$p/sub"
	for f in a b d e sub/x; do echo data >"$T/$p/$f"; done
done
# Quiet for 6 s: a lifetime is half the quiet time, so 3 s (above 1 s, the short one).
sleep 6

serve() {  # PHASE WATCHES
	rm -f "$T/sock"
	$STAINLESS vhost-user-fs --socket-path "$T/sock" --shared-dir "$T/$1" --cache always \
		--watches "$2" 2>"$T/err.$1" &
	pid=$!
	timeout 60 "$T/client" "$T/sock" "$T/$1" "$1" || { kill "$pid"; tail -n 5 "$T/err.$1"; fail "$1"; }
	wait "$pid" || { tail -n 5 "$T/err.$1"; fail "$1: the backend did not exit 0"; }
}
serve watch 64
serve plain 0
serve budget 1
n=$(grep -c "watch budget of 1 directories spent" "$T/err.budget")
[ "$n" = 1 ] || fail "budget: $n log lines about the spent budget, not 1: $(cat "$T/err.budget")"
echo "ok: one line: $(grep -m1 "watch budget" "$T/err.budget")"
grep "watch budget" "$T/err.watch" "$T/err.plain" && fail "a budget line where none was spent"
echo PASS
