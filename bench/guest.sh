#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-guest: fio inside a guest over the share devices, stainless
# beside QEMU's microvm machine on the same host, kernel and share, in one
# run (bench/guest-inner.sh boots the guests, bench/guest-init runs fio in
# them). Runs directly where /dev/kvm boots Linux, else inside the nested
# test host (the same choice as the e2e tests), and says which.
#
# Columns (one tmpfs directory, one 64 MiB fio file, shared by all):
#   st-fs      stainless virtio-fs, cache=never
#   st-dax     stainless virtio-fs, cache=always with a DAX window, -o dax
#   st-9p      stainless virtio-9p, msize 512000
#   qemu-9p    QEMU 7.2 virtio-9p-device (-fsdev local, passthrough)
#   qemu-vfsd  QEMU vhost-user-fs-device + Debian's C virtiofsd, cache=none,
#              its default thread pool (64); qemu-vfsd0 with
#              --thread-pool-size=0. Both work on microvm: its guest RAM
#              is a shared memfd (memory-backend-memfd,share=on), which
#              vhost-user needs. That virtiofsd has no DAX (QEMU never
#              merged it), so st-dax has no QEMU twin.
# Ratios: stainless 9p / QEMU 9p, stainless virtio-fs / QEMU+virtiofsd (the
# better pool mode per row), and virtio-fs / 9p within stainless.
#
# The guest is the bench kernel (kernel.config + kernel-bench.config: fio
# needs SysV shm) with a bench initramfs (busybox, Debian's fio and every
# library it loads, the seed jobs); the e2e images are left as they are.
# Nested, everything runs under QEMU TCG with nested SVM: figures are
# 10-50x below native and only the ratios travel. Sizes are small for that.
#
# Output: a table on stdout; raw lines, the table and the machine in
# docs/benchmarks/guest_fio.txt, a plot in docs/benchmarks/guest_fio.png.
# Environment: ROUNDS (3), RUNTIME (s per fio job, 5), SIZE_MB (64),
# JOBS (comma list of seed jobs), VMMS (stainless,qemu), GUEST_LOGLEVEL
# (4), O, STAINLESS, E2E_MODE as for the e2e run, FIO_JOBS (the seed job
# directory), OUT (docs/benchmarks).
# A benchmark prints figures; it judges nothing.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
: "${O:=build}" "${ROUNDS:=3}" "${RUNTIME:=5}" "${SIZE_MB:=64}"
: "${JOBS:=randread-psync,randread-libaio,randwrite-psync,randwrite-libaio}"
case $O in /*) ;; *) O=$TOP/$O ;; esac
STAINLESS=${STAINLESS:-$O/stainless}
OUT=${OUT:-$TOP/docs/benchmarks}
JOBDIR=${FIO_JOBS:-$(pwd)/bench/fio-jobs}
export STAINLESS
. "$TOP/tests/e2e/lib.sh"
. "$TOP/bench/guest-run.inc"

die() { echo "bench-guest: $*" >&2; exit 1; }
START=$(date +%s)
DATE0=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
REV=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- vmm mmio devices fs 2>/dev/null || echo ' +uncommitted changes in the tree')  # the tree as measured
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
[ -x "$STAINLESS" ] || die "build first (make bench-guest does)"
fio=$(command -v fio) || die "fio missing (apt-get install fio)"
[ -d "$JOBDIR" ] || die "seed fio jobs not found at $JOBDIR (FIO_JOBS=)"
for j in ${JOBS//,/ }; do
	[ -f "$JOBDIR/$j.job" ] || die "no seed job $JOBDIR/$j.job"
done
guest_tools

GUEST_KERNEL=$(guest-images/build-kernel --fragment guest-images/kernel-bench.config) ||
	die "cannot build the bench guest kernel"
GUEST_INITRD=$(guest-images/build-initramfs --name bench-guest --init bench/guest-init \
	--file bench/guest-fio.sh:/bench/workload.sh --bin "$fio:/usr/bin/fio" --tree "$JOBDIR:/fio-jobs") || die "cannot build the bench guest initramfs"
export GUEST_KERNEL GUEST_INITRD

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
raw=$T/raw
env=(SIZE_MB="$SIZE_MB" RUNTIME="$RUNTIME" JOBS="$JOBS" VMMS="${VMMS:-stainless,qemu}"
	GUEST_LOGLEVEL="${GUEST_LOGLEVEL:-4}")
# Per round two boots (~40 s each nested) and 6 mounts x jobs fio runs.
guest_run "$raw" "$ROUNDS" $((80 + $(echo "$JOBS" | tr ',' '\n' | grep -c .) * 6 * (RUNTIME + 30))) "${env[@]}" ||
	die "cannot run the guests"
hosts=$GUEST_HOSTS
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

COLS="st-fs st-dax st-9p qemu-9p qemu-vfsd qemu-vfsd0"
samples() { # FIELD: ROW BACKEND VALUE, sorted for median_table.awk
	awk -v f="$1" '$1 == "GUESTFIO" { row = ""; dev = ""; val = ""
		for (i = 2; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == "job") row = kv[2]; if (kv[1] == "dev") dev = kv[2]
			if (kv[1] == f) val = kv[2] }
		if (row != "" && dev != "" && val != "") print row, dev, val }' "$raw" |
		sort -k1,1 -k2,2 -k3,3g
}
ROWS=${JOBS//,/ }
# stainless over QEMU per protocol (virtiofsd: its better pool mode per
# row), then virtio-fs over 9p within stainless.
PAIRS="9p:st/qemu=st-9p/qemu-9p fs:st/vfsd=st-fs/qemu-vfsd|qemu-vfsd0 dax:st/vfsd=st-dax/qemu-vfsd|qemu-vfsd0
       st:fs/9p=st-fs/st-9p st:dax/9p=st-dax/st-9p"
TABLE=$(samples iops | awk -f bench/median_table.awk -v rows="$ROWS" -v cols="$COLS" -v pairs="$PAIRS")
LAT_TABLE=$(samples clat_us | awk -f bench/median_table.awk -v rows="$ROWS" -v cols="$COLS" -v fmt=%.0f -v lower=1)
BOOTS=$(awk '$1 == "GUESTBOOT" { split($2, a, "="); split($4, w, "=")
		s[a[2]] = s[a[2]] " " w[2] ($5 == "unfinished" ? " (unfinished)" : "") }
	END { for (v in s) printf "%s:%s; ", v, s[v] }' "$raw")
n=$(grep -c '^GUESTFIO ' "$raw")
SECS=$(( $(date +%s) - START ))

mkdir -p "$OUT"
{
	echo "# bench-guest (make bench-guest): in-guest fio over virtio-fs, DAX and 9p, stainless beside QEMU -M microvm"
	echo "# date: $DATE0 (start); took ${SECS}s; $E2E_MODE_USED mode ($E2E_MODE_WHY)"
	echo "# host: nproc=$(nproc) cpu='$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')'" \
		"kernel=$(uname -r); load average at start: $LOAD0  at end: $LOAD1"
	echo "# stainless $REV," \
		"$("$fio" --version), $([ "$qemu" != - ] && "$qemu" --version | head -n 1)"
	[ "$E2E_MODE_USED" = nested ] && echo "# test host: QEMU TCG (-cpu EPYC,+svm,+npt, 2 vCPUs, 2 GiB) with Debian's kernel and kvm-amd; guests run on its KVM;" \
		"$hosts boot(s) of it$(grep -q '^GUESTHOST-STOPPED' "$raw" && echo ' (see GUESTHOST-STOPPED below)')"
	echo "# guest: $(basename "$(dirname "$GUEST_KERNEL")")/bzImage, 1 vCPU, 512 MiB; bench initramfs with Debian's fio"
	echo "# fio: seed job files at 4k, --size=${SIZE_MB}M --runtime=${RUNTIME}s --time_based --direct=1 --iodepth=16 (psync at QD1);"
	echo "#      $ROUNDS rounds, each boots both VMMs (order flips) and rotates the mounts; median IOPS over rounds"
	echo "# share: one tmpfs directory with one fio file; st-fs cache=never, st-dax cache=always,dax=256M (-o dax),"
	echo "#        st-9p/qemu-9p msize=512000, qemu-vfsd cache=none (--thread-pool-size 64 / qemu-vfsd0: 0)"
	echo "# ratios: 9p:st/qemu = st-9p/qemu-9p; fs:st/vfsd = st-fs over the better of qemu-vfsd and qemu-vfsd0;"
	echo "#         dax:st/vfsd = st-dax over the same; st:fs/9p = st-fs/st-9p; st:dax/9p = st-dax/st-9p"
	echo "$TABLE"
	echo
	echo "## mean completion latency, us (median over rounds; lower is better)"
	echo "$LAT_TABLE"
	echo
	echo "# boot-to-done seconds per guest (boot, mounts, all its fio runs): ${BOOTS:-none}"
	echo "# raw"
	cat "$raw"
} >"$OUT/guest_fio.txt"
echo "$TABLE"
echo
echo "mean completion latency, us (lower is better):"
echo "$LAT_TABLE"

if command -v gnuplot >/dev/null && [ "$n" -gt 0 ]; then
	echo "$TABLE" | awk 'NR > 1 { printf "%s", $1; for (i = 2; i <= 7; i++) printf " %s", ($i == "-" ? "NaN" : $i); print "" }' >"$T/plot.dat"
	# One bar per column that has data (gnuplot refuses an all-NaN one).
	plot= i=2
	for title in "stainless virtio-fs cache=never" "stainless virtio-fs DAX" "stainless virtio-9p" \
		"QEMU virtio-9p" "QEMU + virtiofsd (pool 64)" "QEMU + virtiofsd (pool 0)"; do
		if awk -v c="$i" '$c != "NaN" { found = 1 } END { exit !found }' "$T/plot.dat"; then
			plot="$plot${plot:+, }\"$T/plot.dat\" using $i:xtic(1) title \"$title\""
		fi
		i=$((i + 1))
	done
	gnuplot <<-EOF 2>"$T/gnuplot.err" || echo "bench-guest: gnuplot failed: $(cat "$T/gnuplot.err")" >&2
	set terminal pngcairo size 1200,600 noenhanced
	set output "$OUT/guest_fio.png"
	set title "bench-guest $(date -u +%Y-%m-%d), $E2E_MODE_USED: in-guest fio 4k IOPS, median of $ROUNDS rounds (size ${SIZE_MB}M, ${RUNTIME}s)"
	load "$TOP/bench/histogram.gp"
	set ylabel "IOPS (log)"
	plot $plot
	EOF
fi
echo "bench-guest: $n fio results; wrote $OUT/guest_fio.txt and guest_fio.png in ${SECS}s" >&2
[ "$n" -gt 0 ]
