#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# DAX over vhost-user (docs/dax.md): `stainless vhost-user-fs --dax-window`
# driven by the project's frontend (tests/host/vu_dax.c on tests/vhost/
# vu_frontend.c + vu_shmem.c), which maps each BACKEND_SHMEM_MAP into the
# window it reserved. SETUPMAPPING reads through the window equal the file;
# malformed ranges, overlaps, directories and partial REMOVEMAPPINGs are
# answered with an error and never forwarded; a flood stops at the bound;
# the frontend itself refuses what a hostile backend could send. Then a
# frontend without SHMEM gets no window, a backend without --dax-window
# offers none, and the option's bad values are refused.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build vu_dax"; exit 77; }

T=$(mktemp -d /tmp/vhost_user_dax.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_dax.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" \
	"$ROOT/tests/vhost/vu_shmem.c" -lpthread || fail "cannot build vu_dax"
mkdir -p "$T/share/sub"
head -c 4194304 /dev/urandom >"$T/share/data"
echo "other file" >"$T/share/other"

timeout 120 "$T/client" "$T/sock" "$T/share" test -- \
	$STAINLESS vhost-user-fs --socket-path "$T/sock" --shared-dir "$T/share" \
	--dax-window 64M 2>"$T/err" || { tail -n 5 "$T/err"; fail "vu_dax test"; }

rm -f "$T/sock"
timeout 60 "$T/client" "$T/sock" "$T/share" nowin -- \
	$STAINLESS vhost-user-fs --socket-path "$T/sock" --shared-dir "$T/share" \
	--dax-window 64M 2>"$T/err.nowin" || { tail -n 5 "$T/err.nowin"; fail "vu_dax nowin"; }

rm -f "$T/sock"
if timeout 60 "$T/client" "$T/sock" "$T/share" test -- \
	$STAINLESS vhost-user-fs --socket-path "$T/sock" --shared-dir "$T/share" >"$T/out.nodax" 2>&1; then
	fail "a backend without --dax-window offered a window"
fi
grep -q "the backend does not offer SHMEM" "$T/out.nodax" ||
	fail "without --dax-window: $(tail -n 3 "$T/out.nodax")"
echo "ok: without --dax-window the backend offers no SHMEM"

for bad in 0 1M 3M 65G junk; do
	if $STAINLESS vhost-user-fs --socket-path "$T/sock2" --shared-dir "$T/share" \
		--dax-window "$bad" 2>"$T/bad.err"; then
		fail "--dax-window $bad accepted"
	fi
	grep -q "dax-window" "$T/bad.err" || fail "--dax-window $bad: no clear error: $(cat "$T/bad.err")"
done
echo "ok: --dax-window refuses 0, 1M, 3M, 65G and junk with one line"
echo PASS
