#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A terminal on stdio: fuse-mount, 9p-serve and vhost-user-fs started with
# stdin, stdout and stderr on a pseudo-terminal (script(1), from bsdutils),
# as a user at a shell starts them, serve (a listing through the mount, a
# 9p client's connection, our vhost-user frontend's FUSE requests) and end
# with status 0 under their production filters: nothing in their paths
# (glibc's stdio on a tty, isatty, a terminal mode) makes a call a role
# lacks. `run` on a terminal needs KVM: tests/e2e/cases/tty.sh.
# Exit 0 pass, 77 skip (last line says why), else fail.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
command -v script >/dev/null 2>&1 || { echo "SKIP: no script(1) (bsdutils) for a pseudo-terminal"; exit 77; }

T=$(mktemp -d /tmp/seccomp_tty.XXXXXX)
MNT=$T/mnt
trap 'grep -q " $MNT " /proc/mounts && umount -l "$MNT"; rm -rf "$T"' EXIT
mkdir -p "$T/share" "$MNT"
echo "on the share" >"$T/share/f"
$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_kata_client.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" || fail "cannot build vu_kata_client"

# Runs on the terminal script(1) made: each command's stdio is that terminal
# (an asynchronous command's stdin would be /dev/null: /dev/tty is named).
cat >"$T/inner.sh" <<'INNER'
set -u
T=$1 STAINLESS=$2 MNT=$T/mnt
[ -t 0 ] && [ -t 1 ] && [ -t 2 ] || { echo "RC stdio-not-a-terminal 1" >>"$T/rc"; exit 1; }
wait_for() { i=0; while ! eval "$1" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; }

"$STAINLESS" 9p-serve --socket "$T/s" "$T/share" </dev/tty &
P=$!
wait_for '[ -S "$T/s" ]'
python3 -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(0.5)' \
	"$T/s" 2>/dev/null
kill -INT $P; wait $P; echo "RC 9p-serve $?" >>"$T/rc"

if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ]; then
	"$STAINLESS" fuse-mount "$T/share" "$MNT" </dev/tty &
	P=$!
	wait_for 'grep -q " $MNT " /proc/mounts'
	[ "$(cat "$MNT/f")" = "on the share" ] || echo "RC fuse-mount-read 1" >>"$T/rc"
	kill -TERM $P; wait $P; echo "RC fuse-mount $?" >>"$T/rc"
else
	echo "NOTE fuse-mount skipped (needs root and /dev/fuse)" >>"$T/rc"
fi

"$T/client" "$T/vu.sock" f "on the share
" new.txt "the guest wrote" -- "$STAINLESS" vhost-user-fs --socket-path "$T/vu.sock" \
	--shared-dir "$T/share" </dev/tty
echo "RC vhost-user-fs $?" >>"$T/rc"
INNER

script -qec "sh $T/inner.sh $T $STAINLESS" /dev/null >"$T/tty.log" 2>&1 </dev/null
[ -s "$T/rc" ] || { cat "$T/tty.log"; fail "the commands on the terminal did not run"; }
cat "$T/rc"
if grep -v '^NOTE' "$T/rc" | grep -qv ' 0$'; then
	echo "-- the terminal's output:"; tail -n 30 "$T/tty.log"
	fail "on a terminal: $(grep -v '^NOTE' "$T/rc" | grep -v ' 0$' | tr '\n' ' ')"
fi
[ "$(grep -c '^RC' "$T/rc")" -ge 3 ] || fail "not every command ran: $(cat "$T/rc")"
echo "PASS: on a terminal, 9p-serve, fuse-mount and vhost-user-fs serve and exit 0"
