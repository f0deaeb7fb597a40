#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# systemd's socket activation of the shipped units: a launcher does what
# systemd does for stainless-virtiofsd@.socket (bind and listen, the
# socket as fd 3, LISTEN_FDS=1 and LISTEN_PID=the child's pid, exec) and
# runs the ExecStart line of dist/systemd/stainless-virtiofsd@.service.in
# as systemd would expand it (@LIBEXECDIR@ the install's, %f the shared
# directory): no --fd, no --socket-path. Our own frontend
# (vu_kata_client --systemd) then reads a file, writes one that must land
# on the host, leaves, and the backend exits 0. A launcher that sets
# LISTEN_PID to another process's pid gets a refusal, not a served socket.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build vu_kata_client"; exit 77; }
T=$(mktemp -d /tmp/systemd_activation.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_kata_client.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" || fail "cannot build vu_kata_client"
mkdir -p "$T/libexec" "$T/share"
# The binary itself: argv[0] picks the command, which the log pass's
# wrapper script (tests/seccomp-log) would hide; this runs in kill mode.
ln -s "${STAINLESS_REAL:-$STAINLESS}" "$T/libexec/stainless-virtiofsd"
TEXT="bytes the host wrote for the guest to read"
printf '%s' "$TEXT" >"$T/share/from-host.txt"

exec_start=$(sed -n 's/^ExecStart=//p' "$ROOT/dist/systemd/stainless-virtiofsd@.service.in")
[ -n "$exec_start" ] || fail "no ExecStart in the service unit"
cmd=$(printf '%s' "$exec_start" | sed -e "s|@LIBEXECDIR@|$T/libexec|g" -e "s|%f|$T/share|g")
case $cmd in *%*) fail "a specifier this test does not expand: $cmd" ;; esac
echo "== systemd: LISTEN_FDS=1 LISTEN_PID=<its pid> $cmd"
# shellcheck disable=SC2086  # the unit's words, none with spaces
"$T/client" --systemd "$T/activated.sock" from-host.txt "$TEXT" activated.txt "written" \
	-- $cmd >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out"
[ $rc -eq 0 ] || { tail -n 20 "$T/err"; fail "the socket-activated backend did not serve"; }
[ "$(cat "$T/share/activated.txt" 2>/dev/null)" = written ] || fail "activated.txt is not on the host"

# Not for this process: refused, as sd_listen_fds() would ignore them.
# shellcheck disable=SC2086
LISTEN_FDS=1 LISTEN_PID=1 $cmd 3</dev/null >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q -- "--socket-path PATH or --fd FD is required" "$T/out" ||
	fail "LISTEN_PID of another process: exit $rc, '$(cat "$T/out")'"
echo "ok: LISTEN_PID naming another process is not taken for an activation"
echo "PASS: the shipped unit's ExecStart serves a socket handed over as systemd does"
