#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A vhost-user-fs backend started exactly as Kata Containers starts
# virtiofsd works, driven by our own frontend (tests/host/vu_kata_client.c on
# tests/vhost/vu_frontend.c: memfd memory table, split rings, eventfds):
#   Go runtime:  --syslog --cache=auto --shared-dir=DIR --fd=3
#                --thread-pool-size=1 --announce-submounts
#                (the listening socket is made by the test, handed over as fd 3)
#   runtime-rs:  --socket-path P --shared-dir D --cache auto
#                --thread-pool-size=1 -o announce_submounts --xattr
# Each start: FUSE_INIT, LOOKUP of a file the test made, OPEN + READ of its
# bytes, CREATE + WRITE of a new file that must then be on the host with
# those bytes, disconnect, and the backend exits with status 0 within 5 s.
# Two more starts (runtime-rs's line) also swap the request ring's call
# eventfd 3,000 times with 16 requests in flight (QEMU does so whenever a
# guest masks or unmasks the queue's vector), and with blocking call
# eventfds (crosvm's) 1,000 times, then drive one to its maximum count
# (vu_kata_client --swap-call, --full-call): every request completes and
# the backend, under its production filter, exits 0. And one start with
# --log-level off.
#
# BACKEND (default "$STAINLESS vhost-user-fs") may name another backend,
# e.g. BACKEND=/usr/lib/qemu/virtiofsd. QEMU's C virtiofsd spells most of
# Kata's options differently (it predates them: the Rust virtiofsd that Kata
# ships introduced them); for it the test uses its spellings and says which.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
BACKEND=${BACKEND:-$STAINLESS vhost-user-fs}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

# shellcheck disable=SC2086  # BACKEND is a command and its leading words
if ! $BACKEND --print-capabilities >/dev/null 2>&1 && ! $BACKEND --help >/dev/null 2>&1; then
	echo "SKIP: no vhost-user-fs backend yet: '$BACKEND --print-capabilities' and '--help' both fail"
	exit 77
fi
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build vu_kata_client"; exit 77; }
# QEMU's C virtiofsd: `-o source=PATH` and no --shared-dir in its help.
C_VIRTIOFSD=
# shellcheck disable=SC2086
if $BACKEND --help 2>&1 | grep -q -- '-o source=PATH' && ! $BACKEND --help 2>&1 | grep -q -- '--shared-dir'; then
	C_VIRTIOFSD=1
fi

T=$(mktemp -d /tmp/vhost_user_kata.XXXXXX)
SHARE=$T/share
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_kata_client.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" || fail "cannot build vu_kata_client"
mkdir -p "$SHARE"
TEXT="bytes the host wrote for the guest to read"
printf '%s' "$TEXT" >"$SHARE/from-host.txt"

# Prints the C virtiofsd spelling of Kata's options, one word a line, and
# what it changed on stderr. Its parser takes --socket-path=P only joined.
c_virtiofsd_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--shared-dir) echo "-o"; echo "source=$2"; shift; say="$say --shared-dir" ;;
		--shared-dir=*) echo "-o"; echo "source=${1#*=}"; say="$say --shared-dir" ;;
		--cache) echo "-o"; echo "cache=$2"; shift; say="$say --cache" ;;
		--cache=*) echo "-o"; echo "cache=${1#*=}"; say="$say --cache" ;;
		--announce-submounts) echo "-o"; echo "announce_submounts"; say="$say --announce-submounts" ;;
		--xattr) echo "-o"; echo "xattr"; say="$say --xattr" ;;
		--socket-path) echo "--socket-path=$2"; shift; say="$say '--socket-path P'" ;;
		--syslog)
			# With no /dev/log, glibc's syslog() retries socket(2) at every
			# message, and virtiofsd's own seccomp filter kills it for that.
			if [ -S /dev/log ]; then echo "--syslog"; else dropped=" (--syslog dropped: with no /dev/log here its seccomp filter kills it at the first message)"; fi ;;
		*) echo "$1" ;;
		esac
		shift
	done
	echo "note: C virtiofsd rejects Kata's$say; its own spellings instead${dropped:-}" >&2
}

# run MODE NEWNAME KATA-ARGS...: MODE fd3 or socket.
run() {
	mode=$1 new=$2
	shift 2
	sock=$T/$new.sock
	if [ -n "$C_VIRTIOFSD" ]; then
		say= dropped=
		args=$(c_virtiofsd_args "$@" 2>"$T/note") || fail "translating the options"
		cat "$T/note"
		# One option a line, none with spaces (the paths are mktemp's).
		# shellcheck disable=SC2046,SC2086
		set -- $args
	fi
	text="the guest wrote this as $new"
	echo "== $mode: $BACKEND $*"
	# shellcheck disable=SC2086
	"$T/client" $([ "$mode" = fd3 ] && echo --fd3) ${CLIENT_OPTS:-} "$sock" from-host.txt "$TEXT" "$new" "$text" \
		-- $BACKEND "$@" >"$T/out" 2>"$T/err"
	rc=$?
	cat "$T/out"
	if [ $rc -ne 0 ]; then
		echo "-- stderr of the client and backend:"; tail -n 20 "$T/err"
		fail "$mode: the Kata command line did not give a working backend"
	fi
	[ -f "$SHARE/$new" ] || fail "$mode: $new is not on the host"
	[ "$(cat "$SHARE/$new")" = "$text" ] || fail "$mode: $new on the host holds other bytes"
	echo "ok: $new is on the host with the bytes the guest wrote"
}

run fd3 kata-go.txt --syslog --cache=auto --shared-dir="$SHARE" --fd=3 \
	--thread-pool-size=1 --announce-submounts
run socket kata-rs.txt --socket-path "$T/kata-rs.txt.sock" --shared-dir "$SHARE" --cache auto \
	--thread-pool-size=1 -o announce_submounts --xattr
if [ -z "$C_VIRTIOFSD" ]; then
	CLIENT_OPTS="--swap-call 3000"
	run socket call-swaps.txt --socket-path "$T/call-swaps.txt.sock" --shared-dir "$SHARE" \
		--cache auto --thread-pool-size=1 -o announce_submounts --xattr
	CLIENT_OPTS="--full-call --swap-call 1000"
	run socket call-full.txt --socket-path "$T/call-full.txt.sock" --shared-dir "$SHARE" \
		--cache auto --thread-pool-size=1 -o announce_submounts --xattr
	CLIENT_OPTS=
	# Quiet: stderr goes to /dev/null before the filters (they open nothing).
	run socket quiet.txt --socket-path "$T/quiet.txt.sock" --shared-dir "$SHARE" --log-level off
	grep -q "stainless" "$T/err" && fail "--log-level off: the backend wrote: $(grep stainless "$T/err")"
else
	echo "note: no call eventfd swaps for QEMU's C virtiofsd (a full blocking one stops its ring)"
fi
echo "PASS: both Kata command lines start a working backend that exits 0 when its frontend leaves"
