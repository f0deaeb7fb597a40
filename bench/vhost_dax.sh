#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# DAX over vhost-user at the device level: read4k at random offsets of a
# 4 MiB file through the window `stainless vhost-user-fs --dax-window`
# mapped into the frontend (a load from the host page cache, as a DAX
# guest does) against FUSE READ on a request ring (one request each),
# driven by tests/host/vu_dax.c on the project's frontend. ROUNDS
# interleaved rounds of 2000 reads each way; medians; the machine's load
# is printed with the figures.
#   bench/vhost_dax.sh [ROUNDS]      (STAINLESS: the binary, default build/stainless)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STAINLESS=${STAINLESS:-$ROOT/build/stainless}
CC=${CC:-cc}
ROUNDS=${1:-9}
T=$(mktemp -d /tmp/vhost_dax.XXXXXX)
trap 'rm -rf "$T"' EXIT
$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$ROOT/tests/host/vu_dax.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" \
	"$ROOT/tests/vhost/vu_shmem.c" -lpthread || exit 1
mkdir -p "$T/share/sub"
head -c 4194304 /dev/urandom >"$T/share/data"
echo "other file" >"$T/share/other"
cat "$T/share/data" >/dev/null    # both ways read from the page cache
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
out=$("$T/client" "$T/sock" "$T/share" bench "$ROUNDS" -- \
	"$STAINLESS" vhost-user-fs --socket-path "$T/sock" --shared-dir "$T/share" \
	--dax-window 64M --log-level error) || { echo "FAIL: vu_dax bench"; exit 1; }
echo "$out" | grep '^read4k'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$out" | awk '/^read4k/ { split($2, w, "="); split($3, r, "=");
	printf "read4k: window %.3f us/op, READ %.3f us/op: %.1fx\n", w[2], r[2], r[2] / w[2] }'
