#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A vhost-user frontend that truncates its memory file after SET_MEM_TABLE
# (tests/host/vu_truncate.c on tests/vhost/vu_frontend.c) must not kill
# `stainless vhost-user-fs` (QEMU's C virtiofsd dies of SIGBUS):
#   unsealed: a memfd that takes no seals (QEMU's seal=off): served, then
#             truncated; the backend's next access finds the memory gone,
#             it stays alive, stops the ring and exits 0 when the frontend
#             leaves;
#   sealable: a memfd that could be sealed against shrinking and is not:
#             SET_MEM_TABLE refused;
#   sealed:   sealed as QEMU's memory-backend-memfd seals by default:
#             served, and the truncation fails.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build vu_truncate"; exit 77; }

T=$(mktemp -d /tmp/vhost_user_truncate.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_truncate.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" || fail "cannot build vu_truncate"
mkdir -p "$T/share"
echo data >"$T/share/f"

for mode in unsealed sealable sealed; do
	rm -f "$T/sock"
	if ! timeout 60 "$T/client" "$T/sock" f "$mode" -- \
		$STAINLESS vhost-user-fs --socket-path "$T/sock" --shared-dir "$T/share" 2>"$T/err.$mode"; then
		tail -n 5 "$T/err.$mode"
		fail "$mode"
	fi
done
grep -q "guest memory went away\|queue stopped" "$T/err.unsealed" ||
	fail "unsealed: the backend never said the ring stopped: $(tail -n 3 "$T/err.unsealed")"
echo "ok: the ring stopped: $(grep -m1 "queue stopped" "$T/err.unsealed")"
echo PASS
