#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-vq: the virtqueue + worker floor (bench/vq_bench: a fake driver,
# the real transport and io_uring worker, a handler that does nothing) at
# batch 1, 16 and 256, beside an eventfd ping-pong between two threads
# with no ring (what a wake-up alone costs here). Each round is one run of
# vq_bench (the median of its own VQ_ROUNDS inner rounds); medians over
# rounds. No KVM: guest exits are not in these figures.
# Environment: O (build dir), ROUNDS (3), VQ_ROUNDS (7), OUT
# (docs/benchmarks: vq_bench.txt), BENCH_QUICK (1 round of 1).
# Raw samples: bench/results.inc, family vq. Prints figures, judges nothing.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}" "${VQ_ROUNDS:=1}"
ROUNDS=${ROUNDS:-3} VQ_ROUNDS=${VQ_ROUNDS:-7}
. bench/results.inc
bench_paths
[ -x "$O/bench/vq_bench" ] || { echo "vq: build first: make O=$O bench-build" >&2; exit 1; }
T=$(mktemp)
trap 'rm -f "$T"' EXIT

results_open vq "Virtqueue floor: a fake driver and the real transport + worker; empty requests"
for r in $(seq "$ROUNDS"); do
	"$O/bench/vq_bench" "$VQ_ROUNDS" >"$T" || { echo "vq: vq_bench failed" >&2; exit 1; }
	# "BATCH REQUESTS REQ/S NS/REQ MIN": the data lines of its table.
	awk -v r="$r" '$1 ~ /^[0-9]+$/ { printf "batch%s,stainless,ops_s,higher,%s,%s\nbatch%s,stainless,ns_req,lower,%s,%s\n", $1, r, $3, $1, r, $4 }
		$1 == "baseline" { printf "batch1,eventfd-pingpong,ops_s,higher,%s,%s\nbatch1,eventfd-pingpong,ns_req,lower,%s,%s\n", r, $3, r, $4 }' \
		"$T" >>"$RESULTS_CSV"
done
results_meta systems stainless eventfd-pingpong
results_meta anchor eventfd-pingpong
results_meta judge stainless
results_meta note "Each round is one vq_bench run: the median of $VQ_ROUNDS inner rounds; queue of 256 with EVENT_IDX; eventfd-pingpong = two threads waking each other with no ring (the floor of batch 1)."
results_close
mkdir -p "$OUT"
{ echo "# make bench-vq, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg); the last of $ROUNDS rounds:"; cat "$T"; } |
	tee "$OUT/vq_bench.txt"
