#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A stuck host file system never wedges the share (docs/stuck-host-fs.md).
# The share holds, at sub/, a FUSE file system of the test's own (a second
# `stainless fuse-mount`); the share is served by `stainless fuse-mount -o
# timeout=2 --cache never`. Then the inner server is SIGSTOPped:
#   - every request on the stuck mount (stat, cat, ls of sub/...) returns
#     EIO within the deadline (+ 1.5 s of slack for a loaded machine), the
#     first after about 2 s, the rest at once (the device is fenced); a
#     storm of them keeps the outer server within its helper bound;
#   - fio 4k random reads on a healthy file of the same share go on in
#     every 1 s run while the stuck mount is hit every 0.1 s (the IOPS
#     before and during are printed; their ratio is a figure, not a check);
#   - after SIGCONT the stuck files work again, and once its helpers idled
#     out the outer server has the fds and threads it had before the stop.
# Exit 0 pass, 77 skip (last line says why), else fail.
set -u
: "${STAINLESS:=$(pwd)/build/stainless}"
TIMEOUT=${STUCK_TIMEOUT:-2}
. "$(dirname "$0")/server_pid.inc"

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to mount(2) FUSE"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -x "$STAINLESS" ] || skip "no stainless binary at $STAINLESS (build first)"
command -v fio >/dev/null || skip "fio missing (scripts/deps installs it)"

T=$(mktemp -d /tmp/fuse_stuck.XXXXXX)
SRC=$T/src INNER=$T/inner MNT=$T/mnt
mkdir -p "$SRC/sub" "$INNER/dir" "$MNT"
IPID= OPID= ISP= LOOP=
cleanup() {
	[ -n "$LOOP" ] && kill "$LOOP" 2>/dev/null
	[ -n "$ISP" ] && kill -CONT "$ISP" 2>/dev/null
	for m in "$MNT" "$SRC/sub"; do
		if grep -q " $m " /proc/mounts; then umount "$m" 2>/dev/null || umount -l "$m"; fi
	done
	for p in $OPID $IPID; do kill "$p" 2>/dev/null; done
	sleep 0.2
	for p in $OPID $IPID; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

FAILS=0
bad() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok   $*"; }

mounted() {
	for i in $(seq 50); do grep -q " $1 " /proc/mounts && return 0; sleep 0.1; done
	echo "mount at $1 did not appear"; exit 1
}

for i in 1 2 3 4; do echo "inner $i" >"$INNER/f$i"; done
"$STAINLESS" fuse-mount "$INNER" "$SRC/sub" --cache never &
IPID=$!
mounted "$SRC/sub"
dd if=/dev/urandom of="$SRC/healthy" bs=1M count=32 2>/dev/null
"$STAINLESS" fuse-mount "$SRC" "$MNT" --cache never -o "timeout=$TIMEOUT" &
OPID=$!
mounted "$MNT"
ISP=$(server_pid "$IPID")
OSP=$(server_pid "$OPID")

[ "$(cat "$MNT/sub/f1")" = "inner 1" ] || bad "the nested mount is not served before the stop"
# Every name the test visits, visited once: their inodes' fds are the baseline's.
stat "$MNT/sub/f2" "$MNT/sub/f3" "$MNT/sub/f4" "$MNT/sub/dir" >/dev/null
ls "$MNT/sub" >/dev/null
sleep 3 # helpers and the watcher of that first visit idle out
FD0=$(ls "/proc/$OSP/fd" | wc -l)
TASK0=$(ls "/proc/$OSP/task" | wc -l)

# The machine is shared and loaded: the data path (fio and the outer
# server's threads) a little ahead of CPU hogs, so that the figures say
# more about the server than about the neighbours.
for t in $(ls "/proc/$OSP/task"); do renice -n -5 -p "$t" >/dev/null 2>&1; done
iops() {
	nice -n -5 fio --name=healthy --filename="$MNT/healthy" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --runtime=1 --time_based --minimal 2>/dev/null | cut -d';' -f8
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
q3() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((3 * NR + 3) / 4)] }'; }

ms() { echo $(($(date +%s%N) / 1000000)); }
# One request on the stuck mount: fails, and within the deadline. In the
# background: a request the server never answers cannot be killed (the
# kernel's FUSE client waits for a sent request's answer), so a wedged
# share ends the test here (cleanup's SIGCONT then lets it go).
bounded() {
	what=$1; shift
	rm -f "$T/rc"
	t0=$(ms)
	("$@" >/dev/null 2>"$T/err"; echo $? >"$T/rc") &
	for i in $(seq $(((TIMEOUT + 5) * 10))); do [ -e "$T/rc" ] && break; sleep 0.1; done
	dt=$(($(ms) - t0))
	if [ ! -e "$T/rc" ]; then
		bad "$what on the stopped mount still waits after $dt ms (deadline ${TIMEOUT}s)"
		echo "FAIL the share wedges on a stuck mount: the rest would hang"
		exit 1
	elif [ "$(cat "$T/rc")" = 0 ]; then
		bad "$what succeeded on the stopped mount"
	elif [ "$dt" -le $((TIMEOUT * 1000 + 1500)) ]; then
		ok "$what on the stopped mount: $(head -c 80 "$T/err" | tr '\n' ' ')in $dt ms"
	else
		bad "$what on the stopped mount took $dt ms (deadline ${TIMEOUT}s)"
	fi
}
# The stopped mount answers again within 5 s of SIGCONT.
resumed() {
	for i in $(seq 50); do
		[ "$(cat "$MNT/sub/f1" 2>/dev/null)" = "inner 1" ] && return 0
		sleep 0.1
	done
	return 1
}

# The nested mount is hit every 0.1 s all along, stopped or not.
(while :; do stat "$MNT/sub/f4" >/dev/null 2>&1; sleep 0.1; done) &
LOOP=$!
# A/B interleaved, 1 s runs (the machine's load drifts): healthy, then
# stopped from the moment fio starts (a request stuck, then the fence).
BEFORE_ALL= DURING_ALL=
for round in $(seq 11); do
	BEFORE_ALL="$BEFORE_ALL $(iops)"
	kill -STOP "$ISP"
	if [ $round = 1 ]; then
		bounded "stat sub/f2" stat "$MNT/sub/f2"
		bounded "cat sub/f1" cat "$MNT/sub/f1"
		bounded "ls sub" ls "$MNT/sub"
		bounded "stat sub/dir" stat "$MNT/sub/dir"
		grep -q "Input/output error" "$T/err" ||
			bad "the stuck mount's error is not EIO: $(cat "$T/err")"
		if [ "$FAILS" -gt 0 ]; then
			echo "FAIL the share wedges on a stuck mount: the rest would hang"
			exit 1
		fi
		# A storm on the dead mount: fenced, so it must not fill the helpers.
		t0=$(ms)
		for i in $(seq 200); do stat "$MNT/sub/f3" >/dev/null 2>&1; done
		dt=$(($(ms) - t0))
		TASKS=$(ls "/proc/$OSP/task" | wc -l)
		if [ "$TASKS" -le $((TASK0 + 16 + 1)) ]; then
			ok "200 stats on the stopped mount in $dt ms, the server at $TASKS threads (was $TASK0)"
		else
			bad "200 stats on the stopped mount left $TASKS threads (was $TASK0; bound: 16 helpers + 1)"
		fi
	fi
	DURING_ALL="$DURING_ALL $(iops)"
	kill -CONT "$ISP"
	resumed || bad "the nested mount does not answer after SIGCONT (round $round)"
done
kill "$LOOP"; LOOP=
# What this test asserts is that the healthy files were never wedged:
# every 1 s run while the mount was stopped did I/O (a wedged queue does
# none). How much of the throughput they keep is a figure, printed here
# and measured where speed belongs (docs/stuck-host-fs.md): on this
# project's loaded 2-core machine one 1 s run gets 3k or 30k IOPS in the
# same phase, so no ratio of them is a pass/fail criterion.
BEFORE=$(q3 $BEFORE_ALL) DURING=$(q3 $DURING_ALL)
echo "fio 4k randread psync on a healthy file, 1 s runs: healthy$BEFORE_ALL, stopped$DURING_ALL IOPS"
echo "medians: healthy $(median $BEFORE_ALL), stopped $(median $DURING_ALL) IOPS; upper quartiles $BEFORE, $DURING ($((DURING * 100 / BEFORE))%)"
idle=0
for v in $DURING_ALL; do [ "$v" -gt 0 ] || idle=$((idle + 1)); done
if [ -n "$DURING_ALL" ] && [ $idle -eq 0 ]; then
	ok "healthy files served in every run while the nested mount was stopped"
else
	bad "$idle runs of healthy reads did no I/O while the nested mount was stopped (wedged)"
fi
ls "$MNT/sub" | grep -q f4 || bad "ls sub after SIGCONT"

# Everything the stop made has gone again: helpers idle out within 1 s.
for i in $(seq 50); do
	FD1=$(ls "/proc/$OSP/fd" | wc -l)
	TASK1=$(ls "/proc/$OSP/task" | wc -l)
	[ "$FD1" -le "$FD0" ] && [ "$TASK1" -le "$TASK0" ] && break
	sleep 0.1
done
if [ "$FD1" -le "$FD0" ] && [ "$TASK1" -le "$TASK0" ]; then
	ok "no leak: fds $FD0 -> $FD1, threads $TASK0 -> $TASK1"
else
	bad "leak: fds $FD0 -> $FD1, threads $TASK0 -> $TASK1"
fi

echo new >"$MNT/sub/new" && [ "$(cat "$INNER/new")" = new ] || bad "a write into sub after SIGCONT"
umount "$MNT" && wait "$OPID" || bad "the outer fuse-mount did not end cleanly"
OPID=
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
