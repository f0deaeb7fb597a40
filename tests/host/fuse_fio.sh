#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The seed fio jobs (psync and libaio, 4k blocks, small size, short runtime)
# against `stainless fuse-mount`: every job must finish without errors.
# A correctness run, not a benchmark (the figures are printed, not judged).
# Exit 0 pass, 77 skip (last line says why), else fail.
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
JOBS=${FIO_JOBS:-$(pwd)/bench/fio-jobs}
SIZE=${FIO_SIZE:-64M}
RUNTIME=${FIO_RUNTIME:-3}

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to mount(2) FUSE"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -x "$STAINLESS" ] || skip "no stainless binary at $STAINLESS (build first)"
command -v fio >/dev/null || skip "fio missing (scripts/deps installs it)"
[ -d "$JOBS" ] || skip "seed fio jobs not found at $JOBS"

T=$(mktemp -d /tmp/fuse_fio.XXXXXX)
SRC=$T/src MNT=$T/mnt
mkdir -p "$SRC" "$MNT"
PID=
cleanup() {
	if grep -q " $MNT " /proc/mounts; then umount "$MNT" 2>/dev/null || umount -l "$MNT"; fi
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && sleep 0.2 && kill -9 "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mount_share() {
	"$STAINLESS" fuse-mount "$SRC" "$MNT" "$@" &
	PID=$!
	for i in $(seq 50); do grep -q " $MNT " /proc/mounts && return 0; sleep 0.1; done
	echo "mount did not appear"; exit 1
}
unmount_share() {
	umount "$MNT"; wait "$PID"; PID=
}

FAILS=0
run_job() {
	job=$1; shift
	out=$T/$(basename "$job" .job).out
	# The harness of the seed threads, scaled down (see HOW-TO-RUN.md).
	if fio --directory="$MNT" --runtime="$RUNTIME" --time_based --iodepth=16 \
		--size="$SIZE" --direct=1 --blocksize=4K "$@" "$job" >"$out" 2>&1 &&
	   ! grep -qE 'err= *[1-9]' "$out"; then
		echo "ok   $(basename "$job") $* $(grep -E '^ *(read|write):' "$out" | sed 's/,.*//' | tr -s ' ' | tr '\n' ' ')"
	else
		echo "FAIL $(basename "$job") $*"; tail -n 20 "$out"; FAILS=$((FAILS + 1))
	fi
}

for mode in auto never; do
	mount_share --cache "$mode"
	echo "# cache=$mode"
	for eng in psync libaio; do
		for kind in seqread seqwrite randread randwrite randrw; do
			run_job "$JOBS/$kind-$eng.job"
		done
	done
	unmount_share
	[ "$mode" = never ] || rm -f "$SRC"/fio-file*
done

echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
