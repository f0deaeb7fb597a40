#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# seccomp on the running commands: every thread of a serving
# `stainless fuse-mount` (readers, a parked lock's waiter, the
# spawner, the main thread), `stainless 9p-serve` (with a client connected)
# and `stainless run` (tiny guest, two vCPUs, console input on a pipe) and
# `stainless vhost-user-fs` (with a frontend reading) shows
# "Seccomp: 2" and at least one filter in /proc/PID/task/*/status, and the
# roles expected are there by thread name. Sandboxed (the default), that
# holds for every process of the tree: the supervisor (in the host's
# namespaces), the pid-1 relay and the server (server_pid.inc); and
# vhost-user-fs's socket is removed after the run. --seccomp none leaves them
# unfiltered with one warning line; --print-seccomp ROLE prints the rules
# and exits 0; a bad mode or role is one line on stderr and exit 2.
# seccomp-pass: kill (tests/run-host: these are the default filters' checks)
# Exit 0 pass, 77 skip (last line says why), else fail.
set -u
. "$(dirname "$0")/server_pid.inc"
: "${STAINLESS:?set STAINLESS to the stainless binary}"
T=$(mktemp -d /tmp/seccomp.XXXXXX)
PIDS=
MNT=$T/mnt
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	grep -q " $MNT " /proc/mounts && { umount "$MNT" 2>/dev/null || umount -l "$MNT"; }
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# confined PID WHAT NAMES...: every thread filtered, and one named each NAME.
# wait_threads PID NAME...: until PID has a thread of each name (at most
# 10 s): threads start when the server gets to them, and a loaded machine
# takes its time, so no fixed sleep stands for "started".
wait_threads() {
	wpid=$(server_pid "$1"); shift
	for name in "$@"; do
		i=0
		while ! grep -qx "$name" /proc/"$wpid"/task/*/comm 2>/dev/null && [ $i -lt 200 ]; do
			sleep 0.05; i=$((i + 1))
		done
	done
}

# tree PID: PID and every descendant, one a line.
tree() {
	echo "$1"
	for t in /proc/"$1"/task/*; do
		for k in $(cat "$t/children" 2>/dev/null); do tree "$k"; done
	done
}

# confined PID WHAT NAMES...: every thread of every process of PID's tree
# (sandboxed: the supervisor, the pid-1 relay and the server) in filter
# mode, and the server with a thread named each NAME.
confined() {
	top=$1 pid=$(server_pid "$1") what=$2; shift 2
	names= procs=0
	for p in $(tree "$top"); do
		procs=$((procs + 1))
		for s in /proc/"$p"/task/*/status; do
			n=$(awk '/^Name:/ { print $2 }' "$s")
			m=$(awk '/^Seccomp:/ { print $2 }' "$s")
			f=$(awk '/^Seccomp_filters:/ { print $2 }' "$s")
			[ "$m" = 2 ] && [ "${f:-0}" -ge 1 ] ||
				fail "$what: process $p, thread $n: Seccomp $m, $f filters"
			[ "$p" = "$pid" ] && names="$names $n"
		done
	done
	# The sandbox's line of processes: supervisor -> relay -> server.
	[ $procs -ge 3 ] || fail "$what: $procs processes in the tree, expected 3 (sandboxed)"
	for want in "$@"; do
		case " $names " in
		*" $want"*) ;;
		*) fail "$what: no thread named $want (threads:$names)" ;;
		esac
	done
	echo "ok: $what: every thread of its $procs processes in seccomp filter mode:$names"
}

# --- the options ----------------------------------------------------------
for cmd in run fuse-mount 9p-serve vhost-user-fs; do
	for role in supervisor relay; do
		"$STAINLESS" $cmd --print-seccomp $role | head -n 1 | grep -q "^# role $role: [0-9]* system calls" ||
			fail "$cmd --print-seccomp $role"
	done
done
"$STAINLESS" 9p-serve --print-seccomp supervisor | grep -q "^pidfd_send_signal" ||
	fail "the supervisor's rules do not forward signals by pidfd"
"$STAINLESS" run --print-seccomp relay | grep -q "^kill" && fail "the relay may kill()"
for cmd in run fuse-mount 9p-serve; do
	out=$("$STAINLESS" $cmd --print-seccomp control 2>"$T/err") || fail "$cmd --print-seccomp: exit $?"
	echo "$out" | head -n 1 | grep -q "^# role control: [0-9]* system calls" ||
		fail "$cmd --print-seccomp control: $(echo "$out" | head -n 1)"
	[ -s "$T/err" ] && fail "$cmd --print-seccomp wrote to stderr: $(cat "$T/err")"
	for bad in "--seccomp sometimes" "--print-seccomp root" "--seccomp"; do
		"$STAINLESS" $cmd $bad >"$T/out" 2>"$T/err" </dev/null; rc=$?
		[ $rc -eq 2 ] || fail "$cmd $bad: exit $rc, expected 2"
		[ "$(wc -l <"$T/err")" -eq 1 ] || fail "$cmd $bad: stderr: $(cat "$T/err")"
		[ -s "$T/out" ] && fail "$cmd $bad: wrote to stdout"
	done
done
"$STAINLESS" run --print-seccomp vcpu | grep -q "KVM_RUN" || fail "vcpu rules do not mention KVM_RUN"
echo "ok: --print-seccomp and bad values"

# --- 9p-serve -------------------------------------------------------------
mkdir "$T/share"
"$STAINLESS" 9p-serve --socket "$T/s" "$T/share" 2>"$T/p9.err" &
P9=$!
PIDS="$PIDS $P9"
i=0; while [ ! -S "$T/s" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$T/s" ] || fail "9p-serve never listened: $(cat "$T/p9.err")"
if command -v python3 >/dev/null; then
	python3 -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(3)' "$T/s" &
	PIDS="$PIDS $!"
	wait_threads $P9 9p-conn
	confined $P9 "9p-serve with a client" stainless spawner 9p-conn
else
	confined $P9 "9p-serve" stainless spawner
fi
kill -INT $P9; wait $P9; rc=$?
[ $rc -eq 0 ] || fail "9p-serve under seccomp: SIGINT exit $rc: $(cat "$T/p9.err")"

# --- fuse-mount -----------------------------------------------------------
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && command -v flock >/dev/null; then
	mkdir "$MNT"
	: >"$T/share/lockme"
	"$STAINLESS" fuse-mount "$T/share" "$MNT" 2>"$T/fm.err" &
	FM=$!
	PIDS="$PIDS $FM"
	for i in $(seq 50); do grep -q " $MNT " /proc/mounts && break; sleep 0.1; done
	grep -q " $MNT " /proc/mounts || fail "fuse-mount never mounted: $(cat "$T/fm.err")"
	ls "$MNT" >/dev/null
	# The host holds a lock, a client waits for it: a lock-wait thread parks.
	flock "$T/share/lockme" sleep 3 &
	PIDS="$PIDS $!"
	sleep 0.3
	flock "$MNT/lockme" true &
	PIDS="$PIDS $!"
	wait_threads $FM fuse-r0 fuse-watch lock-wait
	confined $FM "fuse-mount with a parked lock" stainless spawner fuse-r0 fuse-watch lock-wait
	kill -TERM $FM; wait $FM; rc=$?
	[ $rc -eq 0 ] || fail "fuse-mount under seccomp: SIGTERM exit $rc: $(cat "$T/fm.err")"
else
	echo "note: fuse-mount part skipped (needs root, /dev/fuse and flock)"
fi

# --- run --------------------------------------------------------------------
if [ -r /dev/kvm ] && [ -w /dev/kvm ] && tests/guests/build "$T" >/dev/null 2>&1; then
	sleep 5 | "$STAINLESS" run --kernel "$T/spin.elf" --mem 64M --cpus 2 >"$T/spin.log" 2>"$T/run.err" &
	i=0
	while ! VM=$(pgrep -o -f "run --kernel $T/spin.elf") && [ $i -lt 200 ]; do
		sleep 0.05; i=$((i + 1))
	done
	[ -n "$VM" ] || fail "run did not start: $(cat "$T/run.err")"
	PIDS="$PIDS $VM"
	wait_threads $VM vcpu0 vcpu1 console
	confined $VM "run" stainless spawner vcpu0 vcpu1 console
	kill -TERM $VM
	wait
else
	echo "note: run part skipped (no usable /dev/kvm or no tiny guests)"
fi

# --- vhost-user-fs, with a frontend driving it --------------------------------
ROOT=$(pwd)
if ${CC:-cc} -O2 -D_GNU_SOURCE -I"$ROOT" -o "$T/vu_load" "$ROOT/bench/vu_load.c" \
	"$ROOT/bench/proc_tree.c" "$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" \
	"$ROOT/tests/vhost/vu_shmem.c" -lpthread 2>"$T/cc.err"; then
	mkdir -p "$T/vshare"
	dd if=/dev/zero of="$T/vshare/f" bs=64k count=4 2>/dev/null
	"$STAINLESS" vhost-user-fs --socket-path "$T/vs" --shared-dir "$T/vshare" 2>"$T/vu.err" &
	VU=$!
	PIDS="$PIDS $VU"
	i=0; while [ ! -S "$T/vs" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	"$T/vu_load" --socket "$T/vs" --op read4k --qd 4 --seconds 4 --file f >"$T/vu_load.out" 2>&1 &
	LOAD=$!
	wait_threads $VU virtio-fs/q1
	confined $VU "vhost-user-fs with a frontend reading" stainless spawner virtio-fs/q1
	wait $LOAD || fail "vhost-user-fs under seccomp: the frontend failed: $(tail -n 2 "$T/vu_load.out")"
	wait $VU; rc=$?
	[ $rc -eq 0 ] || fail "vhost-user-fs under seccomp: exit $rc when its frontend left: $(cat "$T/vu.err")"
	# The supervisor removes the socket the sandboxed server cannot reach.
	[ -e "$T/vs" ] && fail "vhost-user-fs left its socket $T/vs behind"
	echo "ok: vhost-user-fs: the socket is gone after the run"
else
	echo "note: vhost-user-fs part skipped (cannot build the frontend: $(head -n 1 "$T/cc.err"))"
fi

# --- --seccomp none -----------------------------------------------------------
"$STAINLESS" 9p-serve --seccomp none --socket "$T/s2" "$T/share" 2>"$T/none.err" &
P9=$!
PIDS="$PIDS $P9"
i=0; while [ ! -S "$T/s2" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
# One warning line, beside the ready line.
[ "$(grep -vc 'info: serving' "$T/none.err")" -eq 1 ] && grep -q "warn: --seccomp none" "$T/none.err" ||
	fail "--seccomp none: stderr: $(cat "$T/none.err")"
[ "$(awk '/^Seccomp:/ { print $2 }' /proc/$P9/status)" = 0 ] || fail "--seccomp none: main thread filtered"
kill -INT $P9; wait $P9
echo "ok: --seccomp none: unfiltered, one warning line"
echo PASS
