#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-9p: `stainless 9p-serve` against Debian's diod under the same client
# (bench/p9_load: one Unix-socket connection, requests pipelined on QD tags)
# in one invocation:
#   stainless  stainless 9p-serve --msize 65536
#   diod-t1    diod -t 1 (one worker: its best mode at QD16, DESIGN.md)
#   diod       diod with its default worker threads
# All three serve the same directory of one private tmpfs at once; each
# round runs every row on every server before the next row, the server
# order rotating per round. Rows: read4k, write4k (random 4 KiB in a 64 MiB
# file), getattr, walk (Twalk + Tclunk of one name), readdir (entries of a
# 10k-entry directory) at QD1 and QD16. Prints medians over rounds of ops/s,
# MiB/s and the server's CPU-µs per op (utime+stime deltas of the whole
# process, all threads), with ratios to diod's better mode in the same run.
#
# msize is 64 KiB for everyone: diod caps it there, and readdir figures are
# only comparable when each Rreaddir may carry as much.
#
# Environment: O (build dir), ROUNDS (5), SECONDS_PER (2), OUT (docs/benchmarks),
# BENCH_QUICK (1 round of 0.2 s samples). Raw samples: bench/results.inc,
# family 9p; without diod (its anchor) it says SKIP (77).
# Many short rounds: on 2 shared cores one sample can swing 3x with the
# neighbours' load, and a median of five shrugs off two bad ones.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
STAINLESS=${STAINLESS:-$O/stainless}
LOAD=${LOAD:-$O/bench/p9_load}
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}" "${SECONDS_PER:=0.2}"
ROUNDS=${ROUNDS:-5} SECONDS_PER=${SECONDS_PER:-2}
. bench/results.inc
bench_paths
SERVERS="stainless diod-t1 diod"
# BASE: another stainless binary (the tree before a change) served the same
# way, for a before/after in one run (a now/base column).
BASE=${BASE:-}
PAIRS=
if [ -n "$BASE" ]; then
	SERVERS="$SERVERS stainless-base"
	PAIRS="now/base=stainless/stainless-base"
fi
OPS="read4k write4k getattr walk readdir"

die() { echo "p9_bench: $*" >&2; exit 1; }
skip() { echo "p9_bench: SKIP: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (private tmpfs mounts)"
[ -x "$STAINLESS" ] && [ -x "$LOAD" ] || die "build first: make O=$O all bench-build"
DIOD=$(command -v diod || echo /usr/sbin/diod)
[ -x "$DIOD" ] || skip "diod missing (Debian package diod)"

T=$(mktemp -d /tmp/p9_bench.XXXXXX)
declare -A PID SOCK
cleanup() {
	# diod never exits on its own when clients leave: always kill it.
	for s in $SERVERS; do
		p=${PID[$s]:-}
		[ -n "$p" ] || continue
		kill "$p" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for m in "$T/cwd" "$T/share"; do
		grep -q " $m " /proc/mounts && { umount "$m" 2>/dev/null || umount -l "$m"; }
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mkdir -p "$T/share" "$T/cwd"
mount -t tmpfs -o size=1g p9_bench "$T/share" || die "cannot mount a tmpfs for the share"
# diod raises its own core limit and can dump cores of gigabytes into its
# cwd; a read-only empty tmpfs as its cwd leaves them nowhere to go.
mount -t tmpfs -o ro,size=64k p9_bench_cwd "$T/cwd" || die "cannot mount diod's cwd"
SHARE=$T/share
head -c 64M /dev/zero >"$SHARE/file" || die "cannot lay out the file"
mkdir "$SHARE/dir"
(cd "$SHARE/dir" && seq -f 'e%05g' 10000 | xargs touch) || die "cannot create 10k entries"

start_server() {
	local s=$1 sock=$T/$1.sock
	case $s in
	stainless) "$STAINLESS" 9p-serve --socket "$sock" --msize 65536 "$SHARE" 2>"$T/$s.err" & ;;
	stainless-base) "$BASE" 9p-serve --socket "$sock" --msize 65536 "$SHARE" 2>"$T/$s.err" & ;;
	diod-t1) (cd "$T/cwd" && exec "$DIOD" -f -n -N -c /dev/null -t 1 -e "$SHARE" -l "$sock") 2>"$T/$s.err" & ;;
	diod) (cd "$T/cwd" && exec "$DIOD" -f -n -N -c /dev/null -e "$SHARE" -l "$sock") 2>"$T/$s.err" & ;;
	esac
	PID[$s]=$!
	SOCK[$s]=$sock
	for _ in $(seq 100); do [ -S "$sock" ] && return 0; sleep 0.05; done
	die "$s: socket never appeared: $(cat "$T/$s.err")"
}
for s in $SERVERS; do start_server "$s"; done

rotate() { # prints the servers starting at position $1
	set -- "$1" $SERVERS
	local k=$(( $1 % ($# - 1) )); shift
	local a=("$@")
	for i in "${!a[@]}"; do echo "${a[$(( (i + k) % ${#a[@]} ))]}"; done
}

RAW=$T/raw
: >"$RAW"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
DATE0=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
REV=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- fs 2>/dev/null || echo '+fs-changes')  # the tree as measured
START=$(date +%s)
results_open 9p "9p: 9P2000.L socket servers under bench/p9_load (one Unix-socket connection)"
echo "p9_bench: $ROUNDS rounds x 10 rows x $(echo $SERVERS | wc -w) servers, ${SECONDS_PER}s each" >&2
for round in $(seq "$ROUNDS"); do
	order=$(rotate "$round")
	for op in $OPS; do
		path=file
		[ "$op" = readdir ] && path=dir
		for qd in 1 16; do
			for s in $order; do
				# diod's clients send the export path as aname; stainless accepts it too.
				res=$(timeout $(( ${SECONDS_PER%.*} + 60 )) "$LOAD" --socket "${SOCK[$s]}" --aname "$SHARE" \
					--op "$op" --qd "$qd" --seconds "$SECONDS_PER" --path "$path" \
					--server-pid "${PID[$s]}" 2>&1 | tail -n 1)
				echo "p9 $round $op-qd$qd $s $res" >>"$RAW"
			done
		done
		echo "  round $round/$ROUNDS $op done ($(( $(date +%s) - START ))s)" >&2
	done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

ROWS="read4k-qd1 read4k-qd16 write4k-qd1 write4k-qd16 getattr-qd1 getattr-qd16
      walk-qd1 walk-qd16 readdir-qd1 readdir-qd16"
samples() { # $1: the key=value field to tabulate
	awk -v key="$1" '$1 == "p9" { for (i = 5; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == key && kv[2] >= 0) print $3, $4, kv[2] } }' "$RAW" | sort -k1,1 -k2,2 -k3,3g
}
table() { # $1 field, $2 need-suffix for verdicts or "", then awk options
	local f=$1 suffix=$2 rows=""
	shift 2
	for r in $ROWS; do rows="$rows $r$suffix"; done
	samples "$f" | awk -f bench/median_table.awk -v rows="$rows" -v cols="$SERVERS" \
		-v anchor="diod-t1 diod" -v ratios="stainless" -v judge=stainless -v pairs="$PAIRS" "$@"
}
results_kv "$RAW" p9 "ops_per_s=ops_s:higher server_cpu_us_per_op=cpu_us_op:lower mib_per_s=mib_s:higher"
results_meta systems $SERVERS
results_meta anchor "diod-t1|diod"
results_meta judge stainless
results_meta note "stainless 9p-serve --msize 65536 beside diod $(dpkg-query -W -f '${Version}' diod 2>/dev/null) (diod-t1: -t 1; diod: its default worker threads); msize 64 KiB for all (diod's cap); the share on tmpfs; ${SECONDS_PER}s per sample; $ROUNDS interleaved rounds."
results_meta note "walk = Twalk of one name + Tclunk; readdir counts entries of a 10k-entry directory (cpu_us_op per entry)."
results_close
OPS_T=$(table ops_per_s ":1")
MIB_T=$(table mib_per_s "" -v fmt=%.1f | grep -v -e '^getattr' -e '^walk')
CPU_T=$(table server_cpu_us_per_op ":1" -v fmt=%.2f -v lower=1)

mkdir -p "$OUT"
REPORT=$(
	echo "# p9_bench (make bench-9p): 9P2000.L socket servers side by side under bench/p9_load"
	echo "# date: $DATE0 (start)  host: nproc=$(nproc)" \
	     "cpu='$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')' kernel=$(uname -r)"
	echo "# stainless $REV," \
	     "diod $(dpkg-query -W -f '${Version}' diod 2>/dev/null)"
	echo "# load average at start: $LOAD0  at end: $LOAD1  (2 cores shared with other engineers' builds)"
	echo "# one Unix-socket connection, QD requests pipelined; msize 64 KiB for all; share on tmpfs;"
	echo "# ${SECONDS_PER}s per sample, $ROUNDS interleaved rounds, medians; anc = diod's better mode in this run"
	echo "# walk = Twalk of one name + Tclunk (pairs/s); readdir counts entries of a 10k-entry directory"
	echo
	echo "## ops/s (higher is better; verdict: stainless ahead of diod)"
	echo "$OPS_T"
	echo
	echo "## MiB/s of payload (read/write data, readdir dirents)"
	echo "$MIB_T"
	echo
	echo "## server CPU-µs per op (lower is better; verdict: stainless below diod)"
	echo "$CPU_T"
)
{
	echo "$REPORT"
	echo
	echo "# raw samples"
	cat "$RAW"
} >"$OUT/p9_bench.txt"
echo "$REPORT"

echo "p9_bench: wrote $OUT/p9_bench.txt (plot: make bench-report) in $(( $(date +%s) - START ))s" >&2
