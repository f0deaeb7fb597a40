#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `stainless 9p-serve` command line: every bad input gives exactly one clear
# line on stderr and a non-zero exit; a good one serves until SIGINT and
# removes its socket; a live server's socket is never stolen.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
T=$(mktemp -d /tmp/p9_cli.XXXXXX)
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$T/share"
: >"$T/file"

# refused ARGS...: must exit non-zero with one stderr line and nothing on stdout.
refused() {
	"$STAINLESS" 9p-serve "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ $rc -ne 0 ] || fail "accepted: 9p-serve $*"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "9p-serve $*: stderr is not one line: $(cat "$T/err")"
	[ -s "$T/out" ] && fail "9p-serve $*: wrote to stdout"
	echo "ok: refused ($rc): $*: $(cat "$T/err")"
}

refused
refused "$T/share"
refused --socket "$T/s"
refused --socket "$T/s" "$T/share" "$T/share"
refused --socket "$T/s" "$T/missing"
refused --socket "$T/s" "$T/file"
refused --socket "$T/s" "$T/share" --msize 4095
refused --socket "$T/s" "$T/share" --msize 17M
refused --socket "$T/s" "$T/share" --msize lots
refused --socket "$T/s" "$T/share" --poll 50
refused --socket "$T/s" "$T/share" --bogus
refused --socket "$T/s" "$T/share" --socket-group no-such-group-here
refused --socket "$T/s" "$T/share" --socket-group -5
refused --socket "$T/file" "$T/share"
refused --socket "$T/no/such/dir/s" "$T/share"
[ -e "$T/s" ] && fail "a refused command line left a socket"

"$STAINLESS" 9p-serve --socket "$T/s" "$T/share" --msize 64k --readonly 2>"$T/err" &
PID=$!
i=0
while [ ! -S "$T/s" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "no socket: $(cat "$T/err")"
	sleep 0.05
done
refused --socket "$T/s" "$T/share"
kill -INT "$PID"
wait "$PID"; rc=$?
PID=
[ $rc -eq 0 ] || fail "exit status $rc after SIGINT"
[ -e "$T/s" ] && fail "socket left after SIGINT"
echo "ok: served, then SIGINT removed the socket and exited 0"

# A socket left by a dead server is replaced.
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/s" 2>/dev/null || true
if [ -S "$T/s" ]; then
	"$STAINLESS" 9p-serve --socket "$T/s" "$T/share" 2>"$T/err" &
	PID=$!
	sleep 0.3
	kill -0 "$PID" 2>/dev/null || fail "stale socket not replaced: $(cat "$T/err")"
	kill -TERM "$PID"; wait "$PID"; PID=
	echo "ok: a stale socket is replaced"
fi
echo "PASS"
