# SPDX-License-Identifier: GPL-2.0-only
# clock: the guest's timers fire and its clock advances -- sleep returns and
# /proc/uptime moves by about the time slept. A guest whose local APIC timer
# does not work boots fine but hangs in the first sleep, which would stall
# any case that waits for something.
CASE_ARGS="--cpus 2"
CASE_TIMEOUT=60

case_guest() {
	t0=$(cut -d' ' -f1 /proc/uptime)
	# Bounded by the host's CASE_TIMEOUT; a broken timer hangs right here.
	sleep 2
	t1=$(cut -d' ' -f1 /proc/uptime)
	d=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	awk -v d="$d" 'BEGIN { exit !(d >= 1.9 && d < 30) }' ||
		fail "slept 2 s but /proc/uptime moved by $d s"
	echo "clock: sleep 2 took $d s of guest uptime"
}
