#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark presentation says what the raw data says, and nothing
# stale:
#  1. `make bench-report` run now over docs/benchmarks/raw gives exactly
#     the committed docs/benchmarks/RESULTS.md and README.md headline (no
#     figure typed by hand, no report older than its data);
#  2. docs/benchmarks/plots holds exactly the plots RESULTS.md links, and
#     no other PNG lies in docs/benchmarks;
#  3. a ratio whose round-by-round spread crosses 1.0 is "no measurable
#     difference" even when its median ratio looks like a win, a spread
#     clear of 1.0 is "ahead", one round is "no spread"; every figure has
#     its min-max beside it; a readdir row counting entries never lands in
#     an ops/s table (bench/units.list).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
T=$(mktemp -d /tmp/bench_report.XXXXXX)
trap 'rm -rf "$T"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# 1. Regenerate into a scratch folder and compare.
cp README.md "$T/README.md"
if ! sh bench/report --out "$T/out" --readme "$T/README.md" >"$T/log" 2>&1; then
	cat "$T/log"; fail "bench/report failed"
fi
diff -u docs/benchmarks/RESULTS.md "$T/out/RESULTS.md" >"$T/d1" ||
	{ head -n 20 "$T/d1"; fail "docs/benchmarks/RESULTS.md is not what bench/report makes of the raw data (make bench-report)"; }
diff -u README.md "$T/README.md" >"$T/d2" ||
	{ head -n 20 "$T/d2"; fail "README.md's headline is not what bench/report makes of the raw data (make bench-report)"; }

# 2. Plots: exactly the linked ones (only where gnuplot drew them here).
linked=$(sed -n 's/^!\[[^]]*\](\(plots\/[^)]*\.png\))$/\1/p' docs/benchmarks/RESULTS.md | sort)
present=$(cd docs/benchmarks && ls plots/*.png 2>/dev/null | sort)
[ "$linked" = "$present" ] || fail "docs/benchmarks/plots holds [$present], RESULTS.md links [$linked]"
stray=$(ls docs/benchmarks/*.png 2>/dev/null)
[ -z "$stray" ] || fail "stale plots beside RESULTS.md: $stray"
if command -v gnuplot >/dev/null; then
	drawn=$(cd "$T/out" && ls plots/*.png 2>/dev/null | sort)
	[ "$drawn" = "$linked" ] || fail "bench/report draws [$drawn], RESULTS.md links [$linked]"
fi

# 3. The verdicts, on a family made up for the test: row "noisy" is 1.4x
# at the median but 0.9x in one round; "clear" is ahead in every round;
# "once" has one round; "readdir" counts entries.
mkdir -p "$T/raw"
cat >"$T/raw/t.meta" <<EOF
family=t
title=made-up family
machine=2 CPUs
load_start=5.00 4.00 3.00
anchor=b
judge=a
EOF
{
	echo "row,system,metric,better,round,value"
	for r in "1 140 100" "2 90 100" "3 150 100"; do
		set -- $r; echo "noisy,a,ops_s,higher,$1,$2"; echo "noisy,b,ops_s,higher,$1,$3"
	done
	for r in "1 120 100" "2 130 100" "3 125 100"; do
		set -- $r; echo "clear,a,ops_s,higher,$1,$2"; echo "clear,b,ops_s,higher,$1,$3"
	done
	echo "once,a,ops_s,higher,1,200"; echo "once,b,ops_s,higher,1,100"
	echo "readdir,a,ops_s,higher,1,5000"; echo "readdir,b,ops_s,higher,1,4000"
} >"$T/raw/t.csv"
pick() { # ROW: the pick line for a over b
	awk -f bench/report.awk -v mode=pick -v remap="^readdir:ops_s:entries_s" \
		-v picks="$1 ops_s a b | L | W" "$T/raw/t.meta" "$T/raw/t.csv"
}
case $(pick noisy) in
*"|1.40x (0.90–1.50) n.s.|no measurable difference|"*) echo "ok: a spread across 1.0 is no measurable difference" ;;
*) fail "noisy row: $(pick noisy)" ;;
esac
case $(pick clear) in
*"|1.25x (1.20–1.30)|ahead|"*) echo "ok: a spread clear of 1.0 is ahead" ;;
*) fail "clear row: $(pick clear)" ;;
esac
case $(pick once) in
*"|one round: no spread|"*) echo "ok: one round claims nothing" ;;
*) fail "once row: $(pick once)" ;;
esac
md=$(awk -f bench/report.awk -v mode=md -v remap="^readdir:ops_s:entries_s" "$T/raw/t.meta" "$T/raw/t.csv")
echo "$md" | grep -q '^| noisy | 140 (90.0–150) | 100 (100–100) | 1.40x (0.90–1.50) n.s. | b |$' ||
	fail "RESULTS.md cell without its spread: $(echo "$md" | grep '^| noisy')"
echo "$md" | awk '/^\*\*ops\/s\*\*/ { t = 1 } /^\*\*directory entries\/s\*\*/ { t = 2 }
	/^\| readdir / { exit t == 2 ? 0 : 1 }' || fail "readdir row is not in a table of directory entries/s"
echo "$md" | grep -q 'a loaded machine' || fail "a load above the CPU count is not called loaded"

[ $bad -eq 0 ] && echo "PASS: RESULTS.md, the headline and the plots are the raw data's, with their spread"
exit $bad
