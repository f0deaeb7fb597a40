# SPDX-License-Identifier: GPL-2.0-only
# tty: `stainless run` with its console (stdio) on a terminal -- the test
# host's serial console, a real TTY (its busybox has no `script`) -- puts
# the terminal in raw mode, the guest reboots, and stainless puts the
# terminal's mode back and exits 0 under its production filters. (On
# 7717f1e it died of SIGSYS at every exit on a terminal: glibc's tcsetattr
# reads the mode back with TCGETS, which the control role refused; the
# suite's guests all ran with stdin on /dev/null.) The terminal's settings
# (stty -g) are the same after the run as before.
CASE_TIMEOUT=150

case_guest() {
	:   # reaching init and rebooting is the case; the host side checks the rest
}

case_host() {
	tty=/dev/console
	before=$(stty -g <"$tty" 2>/dev/null) || { echo "no terminal at $tty to run on"; return 77; }
	GUEST_LOG=$CASE_WORK/console.log
	echo "+ stainless run (stdin on $tty) --cmdline '$GUEST_BASE_CMDLINE stainless.case=$CASE'"
	t0=$(date +%s)
	timeout -s KILL "$CASE_TIMEOUT" "$STAINLESS" run --kernel "$GUEST_KERNEL" --initrd "$GUEST_INITRD" \
		--cmdline "$GUEST_BASE_CMDLINE stainless.case=$CASE" <"$tty" >"$CASE_WORK/console.raw" 2>&1
	GUEST_RC=$?
	GUEST_SECS=$(( $(date +%s) - t0 ))
	after=$(stty -g <"$tty")
	stty "$before" <"$tty"   # as found, whatever happened
	tr -d '\r' <"$CASE_WORK/console.raw" >"$GUEST_LOG"
	echo "+ exit status $GUEST_RC after ${GUEST_SECS}s"
	grep "seccomp" "$GUEST_LOG"
	check_guest || return 1
	[ "$before" = "$after" ] || { echo "the terminal was left changed: $before -> $after"; return 1; }
	echo "console on a terminal ($tty): its mode put back, exit 0 after ${GUEST_SECS}s"
}
