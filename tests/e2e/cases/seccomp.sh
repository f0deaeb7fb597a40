# SPDX-License-Identifier: GPL-2.0-only
# seccomp: while a guest with a virtio-fs and a virtio-9p share (two vCPUs)
# has both mounted and its queue workers are serving, every thread of the
# running `stainless run` -- main, spawner, vCPUs, each queue's worker --
# shows "Seccomp: 2" and at least one filter in /proc/PID/task/*/status.
# The guest asks through the share and waits for the host's answer, so the
# threads are looked at mid-run, not after.
CASE_ARGS="--cpus 2 --fs scfs=$CASE_WORK/share --9p sc9p=$CASE_WORK/share9"
CASE_CPUS=2
CASE_TIMEOUT=180

case_setup() {
	s=$CASE_WORK/share
	mkdir -p "$s" "$CASE_WORK/share9" || return 1
	(
		n=0
		while [ ! -e "$s/ask" ] && [ $n -lt 1500 ]; do sleep 0.1; n=$((n + 1)); done
		pid=
		for p in /proc/[0-9]*; do
			[ "$(cat "$p/comm" 2>/dev/null)" = stainless ] && pid=${p#/proc/}
		done
		verdict=ok
		for st in /proc/"$pid"/task/*/status; do
			name=$(awk '/^Name:/ { print $2 }' "$st")
			mode=$(awk '/^Seccomp:/ { print $2 }' "$st")
			nf=$(awk '/^Seccomp_filters:/ { print $2 }' "$st")
			echo "$name $mode ${nf:-0}" >>"$s/threads"
			[ "$mode" = 2 ] && [ "${nf:-0}" -ge 1 ] || verdict="bad: $name Seccomp $mode, $nf filters"
		done
		[ -n "$pid" ] || verdict="bad: no stainless process"
		echo "$verdict" >"$s/answer.tmp" && mv "$s/answer.tmp" "$s/answer"
	) &
	echo $! >"$CASE_WORK/watcher.pid"
}

case_guest() {
	mount -t virtiofs scfs /mnt || fail "mount -t virtiofs scfs failed"
	mkdir -p /mnt9
	mount -t 9p -o trans=virtio,version=9p2000.L sc9p /mnt9 || fail "mount -t 9p sc9p failed"
	echo hello >/mnt9/x && [ "$(cat /mnt9/x)" = hello ] || fail "9p share does not read back"
	touch /mnt/ask
	n=0
	while [ ! -e /mnt/answer ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
	[ -e /mnt/answer ] || fail "the host never answered"
	[ "$(cat /mnt/answer)" = ok ] || fail "host: $(cat /mnt/answer)"
	grep -q "^virtio-fs/q1 2 " /mnt/threads || fail "no filtered virtio-fs/q1 worker: $(cat /mnt/threads)"
	grep -q "^virtio-9p/q0 2 " /mnt/threads || fail "no filtered virtio-9p/q0 worker: $(cat /mnt/threads)"
	grep -q "^vcpu1 2 " /mnt/threads || fail "no filtered vcpu1: $(cat /mnt/threads)"
	echo "seccomp: threads $(awk '{ printf "%s ", $1 }' /mnt/threads)all filtered"
	umount /mnt9 /mnt || fail "umount failed"
}

case_check() {
	kill "$(cat "$CASE_WORK/watcher.pid")" 2>/dev/null
	[ "$(cat "$CASE_WORK/share/answer" 2>/dev/null)" = ok ] ||
		{ echo "threads: $(cat "$CASE_WORK/share/threads" 2>/dev/null)"; return 1; }
}
