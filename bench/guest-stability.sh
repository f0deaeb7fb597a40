# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# bench-stability's workload for bench/guest-init (/bench/workload.sh in
# the guest): the e2e share battery (/bin/fsbattery, tests/e2e/fsbattery.c)
# on each mount, the tests named by bench.tests=a,b,c (the ones that need
# no host partner: no lock holder, no xattr image). After each mount it
# prints what the clock did, the question of issue 23:
#   GUESTSTAB vmm= dev= clocksource= uptime=
# The battery's own ok/FAIL lines go to the console as they come, so a
# stall names the test it stalled in.
tests=$(arg bench.tests files | tr ',' ' ')
# A heartbeat: the battery is silent inside a long test (bigfile over 9p
# takes minutes nested, more under load), and "no console output" must
# mean the guest stopped, not that a test is slow. A guest whose timers
# and console still work prints this every 10 s.
(while sleep 10; do echo "GUESTBEAT uptime=$(cut -d' ' -f1 /proc/uptime)"; done) &

workload_ready() { # NAME
	[ -f "/mnt/$1/host-now" ] || { echo "no host-now in the share (share_setup)"; return 1; }
}

workload_prepare() { :; }

workload_run() { # JOB NAME
	case $2 in p9*) k=9p ;; *) k=virtiofs ;; esac
	# shellcheck disable=SC2086 # a word list
	fsbattery guest "/mnt/$2" "$k" $tests 2>&1
	echo "GUESTSTAB vmm=$vmm dev=$2 clocksource=$(clocksource) uptime=$(cut -d' ' -f1 /proc/uptime)"
	[ "$2" = "${ok##* }" ] && hold "$2"
}

clocksource() { cat /sys/devices/system/clocksource/clocksource0/current_clocksource; }

# hold NAME: after the last mount's battery, small I/O on the share until
# the moment issue 23's triple fault came at -- the kernel giving up on
# the TSC and switching to kvm-clock -- is 15 s behind, or bench.hold
# seconds of uptime (120) have passed, whichever is first. A boot is then
# long enough to cross it and no longer.
hold() {
	until=$(arg bench.hold 120) after=
	while :; do
		up=$(cut -d. -f1 /proc/uptime)
		[ "$up" -ge "$until" ] && break
		if [ -z "$after" ] && [ "$(clocksource)" = kvm-clock ]; then after=$((up + 15)); fi
		[ -n "$after" ] && [ "$up" -ge "$after" ] && break
		dd if=/dev/zero of="/mnt/$1/keep/hold.bin" bs=64k count=16 2>/dev/null
		cat "/mnt/$1/keep/hold.bin" >/dev/null
		ls -l "/mnt/$1/keep" >/dev/null
		sleep 1
	done
	echo "GUESTSTAB vmm=$vmm dev=$1 held until uptime=$(cut -d' ' -f1 /proc/uptime) clocksource=$(clocksource)"
}
