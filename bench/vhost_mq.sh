#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-vhost-mq: one vhost-user-fs backend, one and several request queues,
# under bench/vu_load --queues N: one frontend thread per request queue (a
# guest's CPUs, each mapped to its own queue), the same TOTAL queue depth
# shared between them (QD16 at 2 queues is 8 in flight on each), 4 KiB
# random reads and writes of FILES (2) 64 MiB files on a private tmpfs,
# the slots in FILES groups, so at 2 queues each queue has its own file
# (one fio job per guest CPU; a guest serialises direct writes to one file
# on its own inode lock anyway) and at 1 queue the same slots hit the same
# files.
#   stainless-qN  stainless vhost-user-fs, N request queues (a worker each)
#   vfsd-t0-q1    QEMU's C virtiofsd --thread-pool-size=0, one request queue:
#                 the reference; it offers no more (GET_QUEUE_NUM says 2
#                 rings), which the run checks and reports
# Each round runs every row on every column before the next row, in an
# order rotating per round, a fresh backend per sample; medians over rounds
# of ops/s and the backend's CPU-µs per op (utime+stime of the process tree,
# /proc), and per row the median over rounds of the same-round ratio
# q2/q1 (robust to a machine whose load changes between rounds).
#
# Environment: O (build dir), ROUNDS (7), SECONDS_PER (2), QUEUES ("1 2"),
# DEPTHS ("2 16"), MQ_FILES (2; bench-fuse's FILES is another thing),
# OUT (docs/benchmarks), VIRTIOFSD (/usr/lib/qemu/virtiofsd), BENCH_QUICK
# (1 round of 0.2 s samples). Raw samples: bench/results.inc, family
# vhost-mq. A benchmark prints figures; it judges nothing and never fails
# on them.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
STAINLESS=${STAINLESS:-$O/stainless}
LOAD=${LOAD:-$O/bench/vu_load}
VIRTIOFSD=${VIRTIOFSD:-/usr/lib/qemu/virtiofsd}
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}" "${SECONDS_PER:=0.2}"
ROUNDS=${ROUNDS:-7} SECONDS_PER=${SECONDS_PER:-2}
QUEUES=${QUEUES:-1 2} DEPTHS=${DEPTHS:-2 16} FILES=${MQ_FILES:-2}
. bench/results.inc
bench_paths

die() { echo "vhost_mq: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "vhost_mq: SKIP: needs root (a private tmpfs; the C virtiofsd's sandbox)" >&2; exit 77; }
[ -x "$LOAD" ] && [ -x "$STAINLESS" ] || die "build first: make O=$O all $O/bench/vu_load"

COLS=""
for q in $QUEUES; do COLS="$COLS stainless-q$q"; done
[ -x "$VIRTIOFSD" ] && COLS="$COLS vfsd-t0-q1"

. bench/vhost-lib.inc   # the working directory is the tree's top (above)
vhost_scratch vhost_mq

mkdir -p "$T/share"
mount -t tmpfs -o size=$((64 * FILES + 64))m vhost_mq "$T/share" || die "cannot mount a tmpfs for the share"
SHARE=$T/share
head -c 64M /dev/zero >"$SHARE/file" || die "cannot lay out the file"
for f in $(seq 1 $((FILES - 1))); do cp "$SHARE/file" "$SHARE/file.$f" || die "cannot lay out file.$f"; done

# start_backend COLUMN SOCKET: sets PID.
start_backend() {
	rm -f "$2"
	case $1 in
	stainless-q*) "$STAINLESS" vhost-user-fs --socket-path "$2" --shared-dir "$SHARE" 2>>"$T/$1.err" & ;;
	vfsd-t0-q*) MALLOC_ARENA_MAX=8 "$VIRTIOFSD" --socket-path="$2" -o source="$SHARE" \
		--thread-pool-size=0 2>>"$T/$1.err" & ;;
	esac
	PID=$!
	for _ in $(seq 200); do [ -S "$2" ] && return 0; kill -0 "$PID" 2>/dev/null || break; sleep 0.025; done
	return 1
}

# sample COLUMN OP QD: one vu_load line (or "FAILED: why").
sample() {
	local q=${1##*-q} res
	start_backend "$1" "$T/$1.sock" || { stop_backend; echo "FAILED: no socket"; return; }
	res=$(timeout $((${SECONDS_PER%.*} + 60)) "$LOAD" --socket "$T/$1.sock" --op "$2" --qd "$3" \
		--queues "$q" --files "$FILES" --seconds "$SECONDS_PER" --backend-pid "$PID" 2>&1 | tail -n 1)
	for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
	stop_backend
	case $res in op=*) echo "$res" ;; *) echo "FAILED: $res" ;; esac
}

# Does the C virtiofsd take two request queues? (It did not in QEMU 7.2.)
VFSD_MQ="not run"
if [ -x "$VIRTIOFSD" ]; then
	VFSD_MQ=$(sample vfsd-t0-q2 read4k 2)
fi

# The ceiling a backend's 4k read is held against: pread + copy, one thread.
BARE=$("$LOAD" --op pread4k --path "$SHARE/file" --seconds "$SECONDS_PER" 2>&1 | tail -n 1)

RAW=$T/raw
: >"$RAW"
DATE0=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
REV=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- fs transport devices bench tests/vhost 2>/dev/null || echo '+changes')
ROWS=""
for op in read4k write4k; do for qd in $DEPTHS; do ROWS="$ROWS $op-qd$qd"; done; done
set -- $COLS
NC=$#
results_open vhost-mq "Request queues: one vhost-user-fs backend driven by bench/vu_load --queues N"
echo "vhost_mq: $ROUNDS rounds x$ROWS x$COLS, ${SECONDS_PER}s each" >&2
for round in $(seq "$ROUNDS"); do
	for row in $ROWS; do
		op=${row%-qd*} qd=${row##*-qd}
		set -- $COLS
		for k in $(seq 0 $((NC - 1))); do
			i=$(( (k + round) % NC + 1 ))
			c=${!i}
			echo "mq $round $row $c $(sample "$c" "$op" "$qd")" >>"$RAW"
		done
	done
	echo "  round $round/$ROUNDS done" >&2
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# table FIELD FMT: medians, rows x columns.
table() {
	awk -v key="$1" -v fmt="$2" -v rows="$ROWS" -v cols="$COLS" '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$1 == "mq" && $5 ~ /^op=/ { for (i = 5; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) v[$3, $4, ++n[$3, $4]] = kv[2] } }
	END {
		nr = split(rows, R, " "); nc = split(cols, C, " ")
		printf "%-14s", "row"; for (j = 1; j <= nc; j++) printf " %14s", C[j]; printf "\n"
		for (i = 1; i <= nr; i++) {
			printf "%-14s", R[i]
			for (j = 1; j <= nc; j++) {
				m = n[R[i], C[j]]; delete a
				for (k = 1; k <= m; k++) a[k] = v[R[i], C[j], k]
				if (m) printf " %14s", sprintf(fmt, med(a, m)); else printf " %14s", "-"
			}
			printf "\n"
		}
	}' "$RAW"
}
# ratios A B [FIELD]: per row, the median of same-round FIELD (ops_per_s)
# ratios A/B, and min..max.
ratios() {
	awk -v a="$1" -v b="$2" -v f="${3:-ops_per_s}" -v rows="$ROWS" '
	function med(x, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
		return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
	}
	$1 == "mq" && $5 ~ /^op=/ { for (i = 5; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) v[$2, $3, $4] = kv[2] }; r[$2] = 1 }
	END {
		nr = split(rows, R, " ")
		for (i = 1; i <= nr; i++) {
			n = 0; delete x
			for (k in r) if (v[k, R[i], a] && v[k, R[i], b]) x[++n] = v[k, R[i], a] / v[k, R[i], b]
			if (!n) continue
			m = med(x, n); lo = x[1]; hi = x[n]
			printf "%-14s %s/%s = %.2fx (rounds: %.2f..%.2f, n=%d)\n", R[i], a, b, m, lo, hi, n
		}
	}' "$RAW"
}
# Each sample's CPU ceiling: the ops/s this machine's cores could carry
# if the backend and the frontend threads together used all of them at
# the sample's CPU cost per op (a frontend in a guest has CPUs of its own).
awk -v cores="$(nproc)" '$1 == "mq" && $5 ~ /^op=/ { b = c = 0
	for (i = 5; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "backend_cpu_us_per_op") b = kv[2]
		if (kv[1] == "client_cpu_us_per_op") c = kv[2] }
	if (b > 0 && c > 0) $0 = $0 sprintf(" cpu_ceiling_ops_per_s=%.0f", cores * 1e6 / (b + c)) } 1' "$RAW" >"$RAW.c" &&
	mv "$RAW.c" "$RAW"
results_kv "$RAW" mq "ops_per_s=ops_s:higher backend_cpu_us_per_op=cpu_us_op:lower p50_us=p50_us:lower p99_us=p99_us:lower cpu_ceiling_ops_per_s=cpu_ceiling_ops_s:higher"
results_meta systems $COLS
case " $COLS " in *" vfsd-t0-q1 "*) results_meta anchor vfsd-t0-q1 ;; esac
results_meta judge $(for q in $QUEUES; do printf 'stainless-q%s ' "$q"; done)
results_meta note "One frontend thread per request queue; the total depth shared between them; 4 KiB random I/O over $FILES 64 MiB tmpfs files; ${SECONDS_PER}s per sample; $ROUNDS interleaved rounds; a fresh backend per sample."
results_meta note "vfsd-t0-q1 = QEMU's C virtiofsd --thread-pool-size=0 on one request queue; with two it answered: $VFSD_MQ"
results_meta note "cpu_ceiling_ops_s = nproc / (backend + frontend CPU-us per op): the ops/s this machine's cores could carry at the sample's cost"
results_meta note "bare pread4k loop (one thread; no backend): $BARE"
results_close
FAILS=$(grep -c ' FAILED' "$RAW")
mkdir -p "$OUT"
REPORT=$(
	echo "# vhost_mq (make bench-vhost-mq): request queues of one vhost-user-fs backend under bench/vu_load --queues"
	echo "# date: $DATE0 (start)  host: nproc=$(nproc) cpu='$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')' kernel=$(uname -r)"
	echo "# stainless $REV; load average at start: $LOAD0  at end: $LOAD1 (2 cores shared with other engineers' work)"
	echo "# one frontend thread per request queue, the total depth shared between them; 4 KiB random I/O over $FILES 64 MiB tmpfs files (slots in $FILES groups)"
	echo "# ${SECONDS_PER}s per sample, $ROUNDS interleaved rounds, a fresh backend per sample, medians"
	echo "# C virtiofsd with 2 request queues: ${VFSD_MQ}"
	[ "$FAILS" = 0 ] || echo "# $FAILS samples failed: see the raw samples"
	echo
	echo "## ops/s (higher is better)"
	table ops_per_s %.0f
	echo
	echo "## same-round ratios of ops/s"
	for q in $QUEUES; do [ "$q" = 1 ] || ratios "stainless-q$q" stainless-q1; done
	case " $COLS " in *" vfsd-t0-q1 "*) ratios stainless-q1 vfsd-t0-q1 ;; esac
	echo
	echo "## backend CPU-µs per op (lower is better)"
	table backend_cpu_us_per_op %.2f
	echo
	echo "## same-round ratios of backend CPU-µs per op (what the server controls; 1.00x = scales perfectly)"
	for q in $QUEUES; do [ "$q" = 1 ] || ratios "stainless-q$q" stainless-q1 backend_cpu_us_per_op; done
	echo
	echo "## CPU ceiling, ops/s: nproc / (backend + frontend CPU-µs per op); measured ops/s near it = the machine's cores are the limit"
	table cpu_ceiling_ops_per_s %.0f
	echo "# the bare loop (vu_load --op pread4k, one thread, no backend): $BARE"
	echo
	echo "## p99 latency, µs"
	table p99_us %.1f
)
{
	echo "$REPORT"
	echo
	echo "# raw samples"
	cat "$RAW"
} >"$OUT/vhost_mq.txt"
echo "$REPORT"
