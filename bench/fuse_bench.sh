#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-fuse: the seed fio jobs and three metadata rows against every host
# FUSE backend side by side, in one invocation:
#   st-never     stainless fuse-mount --cache never (the default: /dev/fuse,
#                two blocking readers)
#   st-uring     stainless fuse-mount --cache never --uring (FUSE over io_uring)
#   st-auto      stainless fuse-mount --cache auto
#   pthp-single  libfuse's passthrough_hp --nocache --single
#   pthp-multi   libfuse's passthrough_hp --nocache (default thread pool)
#   tmpfs        the share's own tmpfs, no FUSE (the ceiling)
# FUSE over io_uring (Linux 6.14+) is off by default in the fuse module;
# the run switches its enable_uring on for st-uring and restores it after,
# and says so in the header. passthrough_hp from Debian's fuse3 3.14 cannot use it.
# All backends are mounted at once over their own directories of one private
# tmpfs; each round runs every job on every backend before the next job,
# the backend order rotating per round, so load from the other engineers
# on this machine falls on all of them alike. Prints medians over rounds
# and ratios to passthrough_hp's better mode measured in the same run, and
# each server's CPU time per I/O (utime+stime of the whole process from
# /proc/PID/stat around each run): on 2 shared cores throughput swings 5x
# with the neighbours' load, so many short rounds beat a few long ones.
#
# Environment: O (build dir, default build), ROUNDS (5), RUNTIME (s per fio
# job, 2), SIZE (fio file, 256M), FILES (metadata rows, 10000), FUSE_JOBS
# (the seed jobs to run, space separated), BENCH_QUICK (1 round of one
# 1 s jobs on a 16M file, 500 files), OUT
# (directory for fuse_bench.txt, default docs/benchmarks); BASE (an
# older stainless binary, served as st-base beside st-never) and BASE_MODES
# (its other fuse-mount flags to serve too, without "--": "uring single"
# gives st-base-uring and st-base-single).
# Raw samples: bench/results.inc, family fuse. A benchmark prints figures;
# it judges nothing and never fails on them; without fio or passthrough_hp
# (its anchor) it says SKIP (77).
set -u
cd "$(dirname "$0")/.."
. tests/host/server_pid.inc
. bench/fuse-backends.inc
. bench/fuse_fio.inc
NAME=fuse_bench
O=${O:-build}
STAINLESS=${STAINLESS:-$O/stainless}
META=${META:-$O/bench/fuse_meta}
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}" "${RUNTIME:=1}" "${SIZE:=16M}" "${FILES:=500}" \
	"${FUSE_JOBS:=randread-psync}"
ROUNDS=${ROUNDS:-5} RUNTIME=${RUNTIME:-2} SIZE=${SIZE:-256M} FILES=${FILES:-10000}
. bench/results.inc
bench_paths
JOBDIR=${FIO_JOBS:-$(pwd)/bench/fio-jobs}
JOBS=${FUSE_JOBS:-randread-psync randread-libaio randwrite-psync randwrite-libaio
      randrw-psync randrw-libaio seqread-psync seqwrite-psync}
BACKENDS="st-never st-uring st-auto pthp-single pthp-multi tmpfs"
BASE=${BASE:-} BASE_MODES=${BASE_MODES:-}
PAIRS=
if [ -n "$BASE" ]; then
	# Last: the plot's columns stay put. now/base-best: the default against
	# the base's best mode per row.
	BACKENDS="$BACKENDS st-base"
	PAIRS="now/base=st-never/st-base"
	best=st-base
	for m in $BASE_MODES; do
		BACKENDS="$BACKENDS st-base-$m"
		best="$best|st-base-$m"
	done
	case " $BASE_MODES " in *" uring "*) PAIRS="$PAIRS uring/base=st-uring/st-base-uring" ;; esac
	[ -z "$BASE_MODES" ] || PAIRS="$PAIRS now/base-best=st-never/$best"
fi
URING_PARAM=/sys/module/fuse/parameters/enable_uring
URING_OLD=

[ -x "$STAINLESS" ] && [ -x "$META" ] || die "build first: make O=$O all bench-build"
[ -z "$BASE" ] || [ -x "$BASE" ] || die "BASE=$BASE is not an executable"
fuse_fio_needs

T=$(mktemp -d /tmp/fuse_bench.XXXXXX)
declare -A PID MNT
cleanup() {
	fuse_backends_down
	[ -n "$URING_OLD" ] && echo "$URING_OLD" >"$URING_PARAM"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP


if [ -w "$URING_PARAM" ]; then
	URING_OLD=$(cat "$URING_PARAM")
	echo Y >"$URING_PARAM"
	URING_SAY="on (enable_uring set for this run)"
else
	URING_SAY="not in this kernel: st-uring serves through /dev/fuse like st-never"
fi

backend_serve() { # BACKEND SRC MNT: its server, in the foreground
	local b=$1 src=$2 mnt=$3
	case $b in
	st-never)    exec "$STAINLESS" fuse-mount "$src" "$mnt" --cache never ;;
	st-base)     exec "$BASE" fuse-mount "$src" "$mnt" --cache never ;;
	st-base-*)   exec "$BASE" fuse-mount "$src" "$mnt" --cache never "--${b#st-base-}" ;;
	st-uring)    exec "$STAINLESS" fuse-mount "$src" "$mnt" --cache never --uring ;;
	st-auto)     exec "$STAINLESS" fuse-mount "$src" "$mnt" --cache auto ;;
	pthp-single) exec "$PTHP" --foreground --nocache --single "$src" "$mnt" ;;
	pthp-multi)  exec "$PTHP" --foreground --nocache "$src" "$mnt" ;;
	esac
}

fuse_fio_backends_up

results_open fuse "Host FUSE level: the seed fio jobs and metadata through the host's kernel FUSE client"
echo "fuse_bench: $ROUNDS rounds x $(echo $JOBS | wc -w) fio jobs x $(echo $BACKENDS | wc -w) backends, ${RUNTIME}s each, then metadata" >&2

after_round() { # ROUND ORDER: the metadata rows, each backend in turn
	local b c0 c1 res cpu
	for b in $2; do
		c0=$(cpu_ticks "$b")
		res=$(timeout 600 "$META" "${MNT[$b]}" --files "$FILES" --readdir-passes 3 2>&1)
		c1=$(cpu_ticks "$b")
		# Server CPU for the whole create/stat/readdir/unlink cycle, per file.
		[ "$b" = tmpfs ] && cpu=-1 || cpu=$(awk -v t=$((c1 - c0)) -v hz="$HZ" -v n="$FILES" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
		echo "meta $1 $b $res cpu_us_per_file=$cpu" >>"$RAW"
	done
}
fuse_fio_rounds

# ROW BACKEND VALUE triples for the tables.
samples() {
	awk '$1 == "fio" && $5 ~ /^iops=/ { sub("iops=", "", $5); print $3, $4, $5 }
	     $1 == "meta" { for (i = 4; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == "stat_per_s") print "meta-stat", $3, kv[2];
		if (kv[1] == "readdir_entries_per_s") print "meta-readdir", $3, kv[2];
		if (kv[1] == "create_unlink_per_s") print "meta-create+unlink", $3, kv[2] } }' "$RAW" |
		sort -k1,1 -k2,2 -k3,3g
}
cpu_samples() {
	awk '$1 == "fio" && $7 ~ /^cpu_us_per_op=/ { sub("cpu_us_per_op=", "", $7); if ($7 >= 0) print $3, $4, $7 }
	     $1 == "meta" { for (i = 4; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == "cpu_us_per_file" && kv[2] >= 0) print "meta-per-file", $3, kv[2] } }' "$RAW" |
		sort -k1,1 -k2,2 -k3,3g
}
results_kv "$RAW" fio "iops=ops_s:higher cpu_us_per_op=cpu_us_op:lower"
awk '$1 == "meta" { for (i = 4; i <= NF; i++) { split($i, kv, "="); row = ""; m = "ops_s"; b = "higher"
		if (kv[1] == "stat_per_s") row = "meta-stat"
		if (kv[1] == "readdir_entries_per_s") row = "meta-readdir"
		if (kv[1] == "create_unlink_per_s") row = "meta-create+unlink"
		if (kv[1] == "cpu_us_per_file") { row = "meta-per-file"; m = "cpu_us_op"; b = "lower" }
		if (row != "" && kv[2] != "" && kv[2] + 0 >= 0) printf "%s,%s,%s,%s,%s,%s\n", row, $3, m, b, $2, kv[2] } }' "$RAW" >>"$RESULTS_CSV"
results_meta systems $BACKENDS
results_meta anchor "pthp-single|pthp-multi"
results_meta judge st-never st-uring
results_meta note "fio: the seed job files at 4k; --size=$SIZE --runtime=${RUNTIME}s --time_based --direct=1 --iodepth=16 (psync at QD1); $ROUNDS interleaved rounds; IOPS (randrw: read+write) shown as ops_s."
results_meta note "st-* = stainless fuse-mount: st-never --cache never (the default; /dev/fuse); st-uring --cache never --uring; st-auto --cache auto. pthp-* = libfuse's passthrough_hp --nocache (--single; default threads) from Debian fuse3 $(pkg-config --modversion fuse3). tmpfs = no FUSE (the ceiling)."
results_meta note "meta rows: bench/fuse_meta over $FILES files (stat and create+unlink per s; readdir entries per s); meta-per-file = server CPU-µs per file of the whole cycle. FUSE over io_uring: $URING_SAY."
results_close
TABLE=$(samples | awk -f bench/median_table.awk \
	-v rows="$(for j in $JOBS; do printf '%s:1 ' "$j"; done)meta-stat:1 meta-readdir:1 meta-create+unlink:1" \
	-v cols="$BACKENDS" -v anchor="pthp-single pthp-multi" -v ratios="st-never st-uring st-auto tmpfs" -v judge="st-never st-uring" \
	-v pairs="$PAIRS")
CPU_TABLE=$(cpu_samples | awk -f bench/median_table.awk -v lower=1 -v fmt=%.1f \
	-v rows="$(echo $JOBS) meta-per-file" \
	-v cols="$(echo $BACKENDS | sed 's/ tmpfs//')" -v anchor="pthp-single pthp-multi" -v ratios="st-never st-uring st-auto" \
	-v pairs="$(echo $PAIRS | sed 's/now\/base-best=[^ ]*//')")

mkdir -p "$OUT"
{
	echo "# fuse_bench (make bench-fuse): host FUSE backends side by side"
	echo "$MACHINE"
	echo "# load average at start: $LOAD0  at end: $LOAD1  (2 cores shared with other engineers' builds)"
	echo "# fio: seed job files at 4k, --size=$SIZE --runtime=${RUNTIME}s --time_based --direct=1 --iodepth=16"
	echo "#      (psync at QD1), $ROUNDS interleaved rounds, median IOPS (randrw: read+write)"
	echo "# meta: bench/fuse_meta, $FILES files; stat and create+unlink in ops/s, readdir in entries/s"
	echo "# anc = passthrough_hp's better mode (--nocache, --single or multi-thread) in this run;"
	echo "# verdicts (ahead of anc on every row) judge st-never (the default: /dev/fuse, two blocking readers)"
	echo "# and st-uring (--uring), both cache=never, the mode that matches --nocache; tmpfs/anc is the ceiling"
	echo "# FUSE over io_uring: $URING_SAY"
	[ -z "$BASE" ] || echo "# st-base: $BASE served as st-never is (st-base-MODE: with --MODE); now/base = st-never / st-base"
	echo "$TABLE"
	echo
	echo "## server CPU-us per I/O (fio rows) and per file (meta: create+stat+readdir+unlink); lower is better"
	echo "$CPU_TABLE"
	echo
	echo "# raw samples"
	cat "$RAW"
} >"$OUT/fuse_bench.txt"
echo "$TABLE"
echo
echo "server CPU-us per I/O (per file for meta), lower is better:"
echo "$CPU_TABLE"

echo "fuse_bench: wrote $OUT/fuse_bench.txt (plot: make bench-report) in $(( $(date +%s) - START ))s" >&2
