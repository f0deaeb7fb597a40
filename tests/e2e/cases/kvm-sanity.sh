# SPDX-License-Identifier: GPL-2.0-only
# kvm-sanity: /dev/kvm on this host runs guest code at all. The kvm-sanity
# program (tests/e2e/kvm-sanity.c) creates a VM with no help from stainless,
# runs a few real-mode instructions that write to an I/O port and checks the
# exits. When this fails, every other e2e failure is about the host, not
# stainless.
CASE_TIMEOUT=30

case_host() {
	if [ -z "$KVM_SANITY" ] || [ ! -x "$KVM_SANITY" ]; then
		echo "kvm-sanity program not built"
		return 77
	fi
	timeout -s KILL "$CASE_TIMEOUT" "$KVM_SANITY" || return 1
	# Not a verdict: says whether this host's KVM sees a guest's XSETBV
	# (the nested test host's emulated SVM does not; docs/testing.md, "Where guests run").
	timeout -s KILL "$CASE_TIMEOUT" "$KVM_SANITY" xsetbv
	return 0
}
