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
# The guest is the e2e kernel (kernel.config, which has the SysV shm fio
# needs) with a bench initramfs (busybox, Debian's fio and every
# library it loads, the seed jobs); the e2e images are left as they are.
# Nested, everything runs under QEMU TCG with nested SVM: figures are
# 10-50x below native and only the ratios travel. Sizes are small for that.
#
# MULTI=N: the seeds' -multi jobs (4 fio processes, 4 files) on a 2-vCPU
# guest, stainless's virtio-fs with queues=1 beside queues=N and its 9p
# (bench/guest-inner.sh says how); VMMS defaults to stainless there and the
# output goes to guest_fio_multi.txt (and raw/guest-multi.csv).
#
# Output: a table on stdout; raw lines, the table and the machine in
# $OUT/guest_fio.txt (OUT: docs/benchmarks; the plot is bench/report's);
# raw samples through bench/results.inc (family guest). The nested host
# runs under the machine-wide e2e lock (bench/e2e-lock.inc).
# Environment: ROUNDS (3), RUNTIME (s per fio job, 5), SIZE_MB (64),
# GUEST_JOBS (comma list of seed jobs; JOBS is still read when GUEST_JOBS
# is unset; randread-psync-multi is the seeds' 9p-beats-virtio-fs question
# at one queue), MULTI (N: the -multi mode, family guest-multi), CPUS,
# VMMS (stainless,qemu; stainless alone in the -multi mode), GUEST_LOGLEVEL
# (4), O, STAINLESS, E2E_MODE as for the e2e run, FIO_JOBS (the seed job
# directory), OUT (docs/benchmarks), BENCH_QUICK (1 round of one 1 s job
# on an 8 MiB file: still a test-host boot and one guest per VMM, ~2-4 min
# nested).
# A benchmark prints figures; it judges nothing.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}" "${RUNTIME:=1}" "${SIZE_MB:=8}" "${GUEST_JOBS:=randread-psync}"
: "${O:=build}" "${ROUNDS:=3}" "${RUNTIME:=5}" "${SIZE_MB:=64}"
: "${MULTI:=}"
if [ -n "$MULTI" ]; then
	: "${GUEST_JOBS:=${JOBS:-randread-psync-multi,randread-libaio-multi,randwrite-psync-multi,randwrite-libaio-multi}}"
	: "${VMMS:=stainless}"
fi
: "${GUEST_JOBS:=${JOBS:-randread-psync,randread-libaio,randwrite-psync,randwrite-libaio,randread-psync-multi}}"
JOBS=$GUEST_JOBS
case $O in /*) ;; *) O=$TOP/$O ;; esac
STAINLESS=${STAINLESS:-$O/stainless}
JOBDIR=${FIO_JOBS:-$(pwd)/bench/fio-jobs}
export STAINLESS
. "$TOP/tests/e2e/lib.sh"
. bench/results.inc
. bench/e2e-lock.inc
bench_paths
. "$TOP/bench/guest-run.inc"

die() { echo "bench-guest: $*" >&2; exit 1; }
START=$(date +%s)
DATE0=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
REV=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- vmm mmio devices fs 2>/dev/null || echo ' +uncommitted changes in the tree')  # the tree as measured
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
[ -x "$STAINLESS" ] || die "build first (make bench-guest does)"
fio=$(command -v fio) || { echo "bench-guest: SKIP: fio missing (apt-get install fio)" >&2; exit 77; }
[ -d "$JOBDIR" ] || die "seed fio jobs not found at $JOBDIR (FIO_JOBS=)"
for j in ${JOBS//,/ }; do
	[ -f "$JOBDIR/$j.job" ] || die "no seed job $JOBDIR/$j.job"
done
guest_tools

GUEST_KERNEL=$(guest-images/build-kernel) ||
	die "cannot build the bench guest kernel"
GUEST_INITRD=$(guest-images/build-initramfs --name bench-guest --init bench/guest-init \
	--file bench/guest-fio.sh:/bench/workload.sh --bin "$fio:/usr/bin/fio" --tree "$JOBDIR:/fio-jobs") || die "cannot build the bench guest initramfs"
export GUEST_KERNEL GUEST_INITRD

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
raw=$T/raw
env=(SIZE_MB="$SIZE_MB" RUNTIME="$RUNTIME" GUEST_JOBS="$JOBS" VMMS="${VMMS:-stainless,qemu}"
	GUEST_LOGLEVEL="${GUEST_LOGLEVEL:-4}" MULTI="$MULTI" ${CPUS:+CPUS="$CPUS"})
e2e_lock || exit 1
e2e_pick_mode || exit 1
if [ -n "$MULTI" ]; then
	RESULTS_COMMAND="make bench-guest MULTI=$MULTI" results_open guest-multi \
		"In-guest fio -multi jobs: virtio-fs queues=1 and queues=$MULTI against 9p" "$E2E_MODE_USED"
else
	results_open guest "In-guest fio over virtio-fs; DAX and 9p: stainless beside QEMU -M microvm (+ virtiofsd; its own 9p)" "$E2E_MODE_USED"
fi
# Per round two boots (~40 s each nested) and 6 mounts x jobs fio runs.
guest_run "$raw" "$ROUNDS" $((80 + $(echo "$JOBS" | tr ',' '\n' | grep -c .) * 6 * (RUNTIME + 30))) "${env[@]}" ||
	die "cannot run the guests"
hosts=$GUEST_HOSTS
e2e_unlock
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

COLS="st-fs st-dax st-9p qemu-9p qemu-vfsd qemu-vfsd0"
[ -n "$MULTI" ] && COLS="st-fs-q1 st-fs-q$MULTI st-9p qemu-9p qemu-vfsd qemu-vfsd0"
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
[ -n "$MULTI" ] && PAIRS="mq:q$MULTI/q1=st-fs-q$MULTI/st-fs-q1 st:q1/9p=st-fs-q1/st-9p st:q$MULTI/9p=st-fs-q$MULTI/st-9p"
TABLE=$(samples iops | awk -f bench/median_table.awk -v rows="$ROWS" -v cols="$COLS" -v pairs="$PAIRS")
LAT_TABLE=$(samples clat_us | awk -f bench/median_table.awk -v rows="$ROWS" -v cols="$COLS" -v fmt=%.0f -v lower=1)
BOOTS=$(awk '$1 == "GUESTBOOT" { split($2, a, "="); split($4, w, "=")
		s[a[2]] = s[a[2]] " " w[2] ($5 == "unfinished" ? " (unfinished)" : "") }
	END { for (v in s) printf "%s:%s; ", v, s[v] }' "$raw")
n=$(grep -c '^GUESTFIO ' "$raw")
# GUESTFIO vmm= dev= round= job= iops= kib_s= clat_us= err=: finished guests only.
awk '$1 == "GUESTFIO" { delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["iops"] + 0 > 0) printf "%s,%s,ops_s,higher,%s,%s\n", f["job"], f["dev"], f["round"], f["iops"]
	if (f["clat_us"] + 0 > 0) printf "%s,%s,clat_us,lower,%s,%s\n", f["job"], f["dev"], f["round"], f["clat_us"] }' "$raw" >>"$RESULTS_CSV"
results_meta systems $COLS
if [ -n "$MULTI" ]; then
	results_meta anchor st-9p
	results_meta judge "st-fs-q$MULTI st-fs-q1"
	results_meta note "-multi mode: 4 fio processes per job on fio-file1..4 of ${SIZE_MB} MiB; guest ${CPUS:-2} vCPUs; st-fs-q1 / st-fs-q$MULTI = virtio-fs cache=never with 1 / $MULTI request queues; st-9p msize=512000; in one guest"
else
	results_meta anchor "qemu-vfsd|qemu-vfsd0|qemu-9p"
	results_meta judge st-fs st-dax st-9p
fi
results_meta note "Mode: $E2E_MODE_USED ($E2E_MODE_WHY); nested = every figure under QEMU TCG with nested SVM: 10-50x below native; read the ratios."
GUEST_CPUS=${CPUS:-$([ -n "$MULTI" ] && echo 2 || echo 1)}
results_meta note "Guest: $GUEST_CPUS vCPU(s); 512 MiB; the e2e guest kernel; Debian's fio; the seed job files at 4k; --size=${SIZE_MB}M --runtime=${RUNTIME}s --direct=1 --iodepth=16 (psync at QD1); $ROUNDS rounds; each boots both VMMs (order flips) and rotates the mounts; IOPS shown as ops_s; clat_us = mean completion latency."
results_meta note "st-fs = stainless virtio-fs cache=never; st-dax = cache=always with a 256M DAX window (-o dax; no QEMU twin: that virtiofsd has no DAX); st-9p / qemu-9p = msize 512000; qemu-vfsd / qemu-vfsd0 = QEMU vhost-user-fs-device + Debian's C virtiofsd cache=none with --thread-pool-size 64 / 0."
results_meta note "The anchor is the best QEMU share per row (9p or virtiofsd); a -multi job is four psync jobs on four files at one request queue."
results_close
SECS=$(( $(date +%s) - START ))

NAME=guest_fio${MULTI:+_multi}
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
	if [ -n "$MULTI" ]; then
	echo "# -multi mode: 4 fio processes per job on fio-file1..4 of ${SIZE_MB} MiB, one tmpfs directory; guest ${CPUS:-2} vCPUs;"
	echo "#        st-fs-q1 cache=never,queues=1, st-fs-q$MULTI cache=never,queues=$MULTI, st-9p msize=512000, in one guest"
	echo "# ratios: mq:q$MULTI/q1 = st-fs-q$MULTI/st-fs-q1; st:qN/9p = that virtio-fs share over st-9p"
	else
	echo "# share: one tmpfs directory with one fio file; st-fs cache=never, st-dax cache=always,dax=256M (-o dax),"
	echo "#        st-9p/qemu-9p msize=512000, qemu-vfsd cache=none (--thread-pool-size 64 / qemu-vfsd0: 0)"
	echo "# ratios: 9p:st/qemu = st-9p/qemu-9p; fs:st/vfsd = st-fs over the better of qemu-vfsd and qemu-vfsd0;"
	echo "#         dax:st/vfsd = st-dax over the same; st:fs/9p = st-fs/st-9p; st:dax/9p = st-dax/st-9p"
	fi
	echo "$TABLE"
	echo
	echo "## mean completion latency, us (median over rounds; lower is better)"
	echo "$LAT_TABLE"
	echo
	echo "# boot-to-done seconds per guest (boot, mounts, all its fio runs): ${BOOTS:-none}"
	echo "# raw"
	cat "$raw"
} >"$OUT/$NAME.txt"
echo "$TABLE"
echo
echo "mean completion latency, us (lower is better):"
echo "$LAT_TABLE"

echo "bench-guest: $n fio results; wrote $OUT/$NAME.txt (plot: make bench-report) in ${SECS}s" >&2
[ "$n" -gt 0 ]
