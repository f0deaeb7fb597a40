#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# 9p-serve's log: one ready line ("info: serving DIR on SOCK"); with
# --log-level trace one line per 9p message (Tversion, Tattach, Twalk...,
# its fid, the reply's length or -errno, microseconds), -errno for a name
# that is not there; at the default level no message lines; --stats: at
# exit one line with the connections and messages served. Driven by our raw
# client (tests/host/p9_client.c).
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build p9_client"; exit 77; }
T=$(mktemp -d /tmp/p9_log.XXXXXX)
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$T/err" ] && head -n 20 "$T/err"; exit 1; }
HERE=$(dirname "$0")
$CC -O2 -Wall -o "$T/c" "$HERE/p9_client.c" || fail "cannot build p9_client"
mkdir "$T/share"
echo hello >"$T/share/f"

start() { # LEVEL-ARGS...
	rm -f "$T/s"
	"$STAINLESS" 9p-serve --socket "$T/s" "$T/share" "$@" 2>"$T/err" &
	PID=$!
	i=0; until grep -q serving "$T/err" 2>/dev/null && [ -S "$T/s" ]; do
		i=$((i + 1)); [ $i -gt 100 ] && fail "9p-serve $*: not ready"; sleep 0.1; done
}
stop() { kill "$PID"; wait "$PID"; PID=; }

start --log-level trace --stats
[ "$(grep -c serving "$T/err")" -eq 1 ] && grep -q "stainless 9p-serve: info: serving $T/share on $T/s" "$T/err" ||
	fail "no one ready line 'info: serving $T/share on $T/s'"
[ "$("$T/c" "$T/s" cat f)" = hello ] || fail "cat f"
"$T/c" "$T/s" cat nothing-here >/dev/null 2>&1
sleep 0.2
stop
grep -Eq 'trace: 9p Tversion node=[0-9]+ -> [0-9]+ \([0-9]+ us\)' "$T/err" || fail "no Tversion trace line"
grep -Eq 'trace: 9p Tattach node=[0-9]+ -> [0-9]+ ' "$T/err" || fail "no Tattach trace line "
grep -Eq 'trace: 9p Tread node=[0-9]+ -> [0-9]+ ' "$T/err" || fail "no Tread trace line"
grep -Eq 'trace: 9p Twalk node=[0-9]+ -> -ENOENT ' "$T/err" || fail "a missing name's Twalk does not trace -ENOENT"
grep -Eq 'stainless 9p-serve: stats: connections=2 requests=[1-9][0-9]*$' "$T/err" ||
	fail "--stats: no 'connections=2 requests=N' line"
echo "ok: trace: $(grep -c 'trace: 9p' "$T/err") message lines, e.g. $(grep -m1 Tread "$T/err")"
echo "ok: $(grep stats: "$T/err")"

start
"$T/c" "$T/s" cat f >/dev/null || fail "cat f (info)"
stop
grep -q 'trace:' "$T/err" && fail "message lines at the default level"
grep -q 'stats:' "$T/err" && fail "a stats line without --stats"
echo "PASS: 9p-serve: ready line, a trace line per message, --stats"
