#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-vhost: vhost-user-fs backends side by side under the same stream of
# FUSE requests from our own frontend (bench/vu_load on tests/vhost: a memfd
# memory table, split rings, kick/call eventfds, requests laid out as
# Linux's virtio_fs lays them out), one invocation:
#   stainless  stainless vhost-user-fs --socket-path P --shared-dir D
#              (when the binary has it; its rows say SKIP otherwise)
#   vfsd-t64   QEMU's C virtiofsd --thread-pool-size=64 (the seeds' default)
#   vfsd-t0    QEMU's C virtiofsd --thread-pool-size=0 (requests served on
#              the queue's own thread)
# One share on a private tmpfs: a 64 MiB file, a 10,000-entry directory.
# Rows: read4k, write4k (random 4 KiB-aligned offsets, the same for every
# backend), getattr, lookup, readdirplus (ops are entries, latency per
# 4 KiB request), create (CREATE + RELEASE + UNLINK, then FORGET on hiprio)
# at queue depth 1 and 16. The C virtiofsd exits when its frontend leaves,
# so every sample starts its backend afresh (stainless is held to the same
# exit, and a backend that does not exit is reported). Each round runs every
# row on every backend before the next row, the order rotating per round;
# medians over rounds of ops/s, the backend's CPU-µs per op (utime+stime of
# it and its children, all threads, from /proc) and p50/p99 latency, with
# ratios to the C virtiofsd's better mode in the same run. Beside read4k at
# QD16: a bare pread(2) + 4 KiB copy loop on the same file, the ceiling of
# one core (the issue's stretch: a backend at >= 50% of it).
#
# The C virtiofsd's pool threads call sched_getaffinity from glibc's malloc
# arena code, which its own seccomp filter kills (SIGSYS); MALLOC_ARENA_MAX=8
# keeps malloc from asking, so both of its modes run with it.
#
# Environment: O (build dir), ROUNDS (5), SECONDS_PER (2) or OPS (a fixed op
# count per sample instead), OUT (docs/benchmarks), VIRTIOFSD
# (/usr/lib/qemu/virtiofsd), BASE (another stainless binary: a now/base
# column). A benchmark prints figures; it judges nothing and never fails on them.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
STAINLESS=${STAINLESS:-$O/stainless}
LOAD=${LOAD:-$O/bench/vu_load}
VIRTIOFSD=${VIRTIOFSD:-/usr/lib/qemu/virtiofsd}
ROUNDS=${ROUNDS:-5} SECONDS_PER=${SECONDS_PER:-2} OPS=${OPS:-}
OUT=${OUT:-docs/benchmarks}
BASE=${BASE:-}

die() { echo "vhost_bench: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (a private tmpfs; the C virtiofsd's namespace sandbox)"
[ -x "$LOAD" ] || die "build first: make O=$O bench"
[ -x "$VIRTIOFSD" ] || die "$VIRTIOFSD missing (Debian package qemu-system-common)"

has_vhost() { "$1" vhost-user-fs --print-capabilities >/dev/null 2>&1 || "$1" vhost-user-fs --help >/dev/null 2>&1; }
BACKENDS="vfsd-t64 vfsd-t0"
SKIPPED=
if [ -x "$STAINLESS" ] && has_vhost "$STAINLESS"; then
	BACKENDS="stainless $BACKENDS"
else
	SKIPPED="stainless: SKIP, $STAINLESS has no vhost-user-fs command yet (--print-capabilities and --help fail)"
	echo "vhost_bench: $SKIPPED" >&2
fi
PAIRS=
if [ -n "$BASE" ]; then
	has_vhost "$BASE" || die "BASE=$BASE has no vhost-user-fs command"
	BACKENDS="$BACKENDS stainless-base"
	PAIRS="now/base=stainless/stainless-base"
fi
if [ -n "$OPS" ]; then RUNFOR="--ops $OPS"; SAY_RUN="$OPS ops"; else RUNFOR="--seconds $SECONDS_PER"; SAY_RUN="${SECONDS_PER}s"; fi

. bench/vhost-lib.inc   # the working directory is the tree's top (above)
vhost_scratch vhost_bench

mkdir -p "$T/share"
mount -t tmpfs -o size=1g vhost_bench "$T/share" || die "cannot mount a tmpfs for the share"
SHARE=$T/share
head -c 64M /dev/zero >"$SHARE/file" || die "cannot lay out the file"
mkdir "$SHARE/dir" "$SHARE/new"
(cd "$SHARE/dir" && seq -f 'e%05g' 10000 | xargs touch) || die "cannot create 10k entries"

# Starts backend $1 on socket $2; sets PID.
start_backend() {
	local b=$1 sock=$2
	rm -f "$sock"
	case $b in
	stainless) "$STAINLESS" vhost-user-fs --socket-path "$sock" --shared-dir "$SHARE" 2>>"$T/$b.err" & ;;
	stainless-base) "$BASE" vhost-user-fs --socket-path "$sock" --shared-dir "$SHARE" 2>>"$T/$b.err" & ;;
	vfsd-t64) MALLOC_ARENA_MAX=8 "$VIRTIOFSD" --socket-path="$sock" -o source="$SHARE" --thread-pool-size=64 2>>"$T/$b.err" & ;;
	vfsd-t0) MALLOC_ARENA_MAX=8 "$VIRTIOFSD" --socket-path="$sock" -o source="$SHARE" --thread-pool-size=0 2>>"$T/$b.err" & ;;
	esac
	PID=$!
	for _ in $(seq 200); do [ -S "$sock" ] && return 0; kill -0 "$PID" 2>/dev/null || break; sleep 0.025; done
	return 1
}

# Waits up to 5 s for the backend to leave after its frontend did; sets
# END to how it ended unless that was status 0 (not in a subshell: only
# this shell can wait for its child).
backend_exit() {
	local rc
	END=
	for _ in $(seq 50); do
		kill -0 "$PID" 2>/dev/null || { wait "$PID"; rc=$?; PID=; [ $rc = 0 ] || END="exit=$rc"; return; }
		sleep 0.1
	done
	stop_backend
	END="still-running-5s-after-disconnect"
}

rotate() { # prints the backends starting at position $1
	set -- "$1" $BACKENDS
	local k=$(( $1 % ($# - 1) )); shift
	local a=("$@")
	for i in "${!a[@]}"; do echo "${a[$(( (i + k) % ${#a[@]} ))]}"; done
}

RAW=$T/raw
: >"$RAW"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
DATE0=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
REV=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- fs transport devices 2>/dev/null || echo '+changes')
OPLIST="read4k write4k getattr lookup readdirplus create"
START=$(date +%s)
echo "vhost_bench: $ROUNDS rounds x 12 rows x $(echo $BACKENDS | wc -w) backends, $SAY_RUN each" >&2
for round in $(seq "$ROUNDS"); do
	order=$(rotate "$round")
	res=$("$LOAD" --op pread4k --path "$SHARE/file" $RUNFOR 2>&1 | tail -n 1)
	echo "vhost $round read4k-qd16 pread-loop $res" >>"$RAW"
	for op in $OPLIST; do
		for qd in 1 16; do
			for b in $order; do
				sock=$T/$b.sock
				if ! start_backend "$b" "$sock"; then
					echo "vhost $round $op-qd$qd $b FAILED: no socket: $(tail -n 1 "$T/$b.err")" >>"$RAW"
					stop_backend
					continue
				fi
				res=$(timeout $(( ${SECONDS_PER%.*} + 60 )) "$LOAD" --socket "$sock" --op "$op" --qd "$qd" \
					$RUNFOR --backend-pid "$PID" 2>&1 | tail -n 1)
				backend_exit
				case $res in op=*) ;; *) res="FAILED: $res" ;; esac
				echo "vhost $round $op-qd$qd $b $res${END:+ backend=$END}" >>"$RAW"
			done
		done
		echo "  round $round/$ROUNDS $op done ($(( $(date +%s) - START ))s)" >&2
	done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

ROWS="read4k-qd1 read4k-qd16 write4k-qd1 write4k-qd16 getattr-qd1 getattr-qd16
      lookup-qd1 lookup-qd16 readdirplus-qd1 readdirplus-qd16 create-qd1 create-qd16"
samples() { # $1: the key=value field to tabulate
	awk -v key="$1" '$1 == "vhost" && $5 !~ /^FAILED/ { for (i = 5; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == key && kv[2] >= 0) print $3, $4, kv[2] } }' "$RAW" | sort -k1,1 -k2,2 -k3,3g
}
# The issue's targets: 2x the better C virtiofsd at QD16, never slower at
# QD1, less CPU per op everywhere.
ROWS_OPS=$(for r in $ROWS; do case $r in *-qd1) echo "$r:1" ;; *) echo "$r:2" ;; esac; done)
JUDGE=
case " $BACKENDS " in *" stainless "*) JUDGE=stainless ;; esac
table() { # $1 field, $2 rows, then awk options
	local f=$1 rows=$2
	shift 2
	samples "$f" | awk -f bench/median_table.awk -v rows="$(echo $rows)" -v cols="$BACKENDS" \
		-v anchor="vfsd-t64 vfsd-t0" -v ratios="$JUDGE" -v judge="$JUDGE" -v pairs="$PAIRS" "$@"
}
OPS_T=$(table ops_per_s "$ROWS_OPS")
CPU_T=$(table backend_cpu_us_per_op "$(for r in $ROWS; do echo "$r:1"; done)" -v fmt=%.2f -v lower=1)
P50_T=$(table p50_us "$ROWS" -v fmt=%.1f -v lower=1)
P99_T=$(table p99_us "$ROWS" -v fmt=%.1f -v lower=1)
# The pread loop beside read4k-qd16: the median loop figure, each backend's share of it.
PREAD=$(samples ops_per_s | awk '$2 == "pread-loop" { v[++n] = $3 }
	END { if (n) print (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) }')
PREAD_T=$(samples ops_per_s | awk -v loop="${PREAD:-0}" -v cols="$BACKENDS" '
	$1 == "read4k-qd16" { v[$2, ++n[$2]] = $3 }
	END {
		printf "read4k-qd16 beside a bare pread + 4 KiB copy loop on the same file: %.0f ops/s (one core; 50%% = %.0f)\n", loop, loop / 2
		nc = split(cols, C, " ")
		for (i = 1; i <= nc; i++) {
			c = n[C[i]]; if (!c || loop <= 0) continue
			m = c % 2 ? v[C[i], (c + 1) / 2] : (v[C[i], c / 2] + v[C[i], c / 2 + 1]) / 2
			printf "  %-14s %8.0f ops/s = %5.1f%% of the loop%s\n", C[i], m, 100 * m / loop,
				C[i] == "stainless" ? (m >= loop / 2 ? "  (stretch reached)" : "  (stretch: 50%)") : ""
		}
	}')
FAILS=$(grep -c -e ' FAILED' -e ' backend=' "$RAW")

mkdir -p "$OUT"
REPORT=$(
	echo "# vhost_bench (make bench-vhost): vhost-user-fs backends side by side under bench/vu_load"
	echo "# date: $DATE0 (start)  host: nproc=$(nproc)" \
	     "cpu='$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')' kernel=$(uname -r)"
	echo "# stainless $REV, C virtiofsd from qemu-system-common $(dpkg-query -W -f '${Version}' qemu-system-common 2>/dev/null)"
	echo "# load average at start: $LOAD0  at end: $LOAD1  (2 cores shared with other engineers' builds)"
	echo "# our frontend: memfd memory table, split rings of 128, EVENT_IDX, kick/call eventfds; share on tmpfs"
	echo "# $SAY_RUN per sample, $ROUNDS interleaved rounds, a fresh backend per sample, medians;" \
	     "anc = the C virtiofsd's better mode in this run"
	echo "# readdirplus counts entries of a 10k-entry directory (latency per 4 KiB request);" \
	     "create = CREATE + RELEASE + UNLINK (+ FORGET)"
	[ -n "$SKIPPED" ] && echo "# $SKIPPED"
	[ "$FAILS" = 0 ] || echo "# $FAILS samples failed or left a backend that did not exit 0: see the raw samples"
	echo
	echo "## ops/s (higher is better; verdict: stainless against the issue's targets)"
	echo "$OPS_T"
	echo "$PREAD_T"
	echo
	echo "## backend CPU-µs per op (lower is better)"
	echo "$CPU_T"
	echo
	echo "## p50 latency, µs (lower is better)"
	echo "$P50_T"
	echo
	echo "## p99 latency, µs (lower is better)"
	echo "$P99_T"
)
{
	echo "$REPORT"
	echo
	echo "# raw samples"
	cat "$RAW"
} >"$OUT/vhost_bench.txt"
echo "$REPORT"
