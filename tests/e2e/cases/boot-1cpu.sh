# SPDX-License-Identifier: GPL-2.0-only
# boot-1cpu: a one-vCPU guest reaches init, reports one CPU, and `reboot -f`
# makes stainless exit 0. (Sourced by host-run and by the guest's init.)
CASE_ARGS="--cpus 1"
CASE_CPUS=1
CASE_TIMEOUT=120

case_guest() {
	[ "$GUEST_CPUS" -eq 1 ] || fail "saw $GUEST_CPUS CPUs, want 1"
	grep -q ' reboot=k' /proc/cmdline || fail "reboot=k missing from /proc/cmdline: $(cat /proc/cmdline)"
}
