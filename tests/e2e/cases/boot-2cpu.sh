# SPDX-License-Identifier: GPL-2.0-only
# boot-2cpu: with --cpus 2 the guest brings up both vCPUs from the MP table
# (no ACPI), and both are online.
CASE_ARGS="--cpus 2"
CASE_CPUS=2
CASE_TIMEOUT=120

case_guest() {
	[ "$GUEST_CPUS" -eq 2 ] || fail "saw $GUEST_CPUS CPUs, want 2"
	online=$(cat /sys/devices/system/cpu/online)
	[ "$online" = 0-1 ] || fail "/sys/devices/system/cpu/online is '$online', want 0-1"
}
