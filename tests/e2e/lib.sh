# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Shared by tests/e2e/run and scripts/demo (bash), so the demo boots its
# microVM exactly the way the tests do: build the images, decide whether this
# machine's /dev/kvm can boot Linux itself ("direct") or whether the nested
# test host is needed ("nested"), then run cases through tests/e2e/host-run.
# Callers set TOP (the work tree) and STAINLESS (the binary) first.

e2e_say() { echo "e2e: $*" >&2; }

# e2e_build_images: builds (or finds cached, or takes E2E_KERNEL's) guest kernel, guest initramfs,
# kvm-sanity and the share battery (fsbattery, also in the guest as
# /bin/fsbattery); sets GUEST_KERNEL, GUEST_INITRD, KVM_SANITY, FSBATTERY.
# Returns non-zero, having printed why, when a build fails.
e2e_build_images() {
	local fsb=() vsp
	# E2E_KERNEL: the user's own kernel (make demo KERNEL=...) instead of
	# building the project's.
	if [ -n "${E2E_KERNEL:-}" ]; then
		GUEST_KERNEL=$E2E_KERNEL
	else
		GUEST_KERNEL=$("$TOP/guest-images/build-kernel") || return 1
	fi
	FSBATTERY=$("$TOP/tests/e2e/build-fsbattery") || FSBATTERY=
	[ -n "$FSBATTERY" ] && fsb=(--file "$FSBATTERY:/bin/fsbattery:0755")
	# The vsock case's guest end (tests/e2e/vsock_peer.c), /bin/vsock-peer.
	vsp=$("$TOP/tests/e2e/build-vsock-peer") && fsb+=(--file "$vsp:/bin/vsock-peer:0755")
	GUEST_INITRD=$("$TOP/guest-images/build-initramfs" --name e2e-guest \
		--init "$TOP/tests/e2e/guest-init" "${fsb[@]}" \
		--tree "$TOP/tests/e2e/cases:/cases") || return 1
	KVM_SANITY=$("$TOP/tests/e2e/build-kvm-sanity") || KVM_SANITY=
	export GUEST_KERNEL GUEST_INITRD KVM_SANITY FSBATTERY
}

# e2e_pick_mode: sets E2E_MODE_USED to direct or nested and E2E_MODE_WHY.
# E2E_MODE=direct|nested forces a mode; otherwise stainless itself is asked
# to boot the guest kernel here for a few seconds. On the development and CI
# machines /dev/kvm is the software "PVM" module, which cannot run a Linux
# guest, so that probe would fail and the nested test host takes over; when
# the kvm_pvm module is visible the probe is skipped.
e2e_pick_mode() {
	local probe out last
	case ${E2E_MODE:-auto} in
	direct|nested)
		E2E_MODE_USED=$E2E_MODE; E2E_MODE_WHY="forced by E2E_MODE"; return 0 ;;
	auto) ;;
	*) e2e_say "E2E_MODE must be auto, direct or nested"; return 1 ;;
	esac
	E2E_MODE_USED=nested
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		E2E_MODE_WHY="no usable /dev/kvm here"; return 0
	fi
	if [ ! -x "$STAINLESS" ]; then
		E2E_MODE_WHY="no stainless binary to probe with"; return 0
	fi
	# Known answer, and it saves the probe's full timeout on every run.
	if [ -d /sys/module/kvm_pvm ]; then
		E2E_MODE_WHY="/dev/kvm here is the PVM module (kvm_pvm), which cannot boot Linux (E2E_MODE=direct to try anyway)"
		return 0
	fi
	probe=${E2E_PROBE_SECS:-15}
	out=$(timeout --foreground -s KILL "$probe" "$STAINLESS" run --kernel "$GUEST_KERNEL" \
		--initrd "$GUEST_INITRD" \
		--cmdline "console=ttyS0 reboot=k panic=-1 loglevel=5 stainless.case=boot-1cpu" \
		</dev/null 2>&1 | tr -d '\r')
	if printf '%s\n' "$out" | grep -q '^STAINLESS-GUEST-UP '; then
		E2E_MODE_USED=direct
		E2E_MODE_WHY="stainless booted the guest on this machine's /dev/kvm"
	else
		last=$(printf '%s\n' "$out" | sed '/^$/d' | tail -n 1 | cut -c1-100)
		E2E_MODE_WHY="stainless could not boot the guest on this /dev/kvm within ${probe}s (${last:-no console output})"
	fi
	return 0
}

# e2e_run_direct CASE...: runs the cases right here; host-run's output on
# stdout.
e2e_run_direct() {
	local work rc
	work=$(mktemp -d)
	STAINLESS=$STAINLESS E2E_DIR=$TOP/tests/e2e E2E_WORK=$work \
		sh "$TOP/tests/e2e/host-run" "$@"
	rc=$?
	rm -rf "$work"
	return $rc
}

# e2e_run_nested LOG CASE...: boots the test host once under QEMU TCG and
# runs the cases inside it. The whole serial console goes to LOG (CRs
# removed); verdicts and failure details are echoed as they arrive (the
# whole console with E2E_VERBOSE=1; E2E_SHOW, an extended regex a benchmark
# may set, echoes its own progress lines too). Bounded by E2E_HOST_TIMEOUT
# seconds (default 300 + 60 per case), and by E2E_QUIET_TIMEOUT (default 300) seconds without a new
# console line or a console saying a CPU has been stuck that long (soft
# lockup): the nested host now and then stalls for good (TCG with emulated
# SVM), and waiting out the whole limit cost CI 15 minutes. A stalled host
# may stay silent or keep printing its lockup warnings.
# The test host runs without transparent huge pages (issue 23): its
# khugepaged collapsed a few pages of other processes per guest boot and
# none of a VMM's (guest RAM is a memfd, which its shmem_enabled=never
# keeps small; bench-stability measured that), yet was seen spinning 26 s
# at a time until the host stopped serving its guest. Real hosts keep
# their own setting; nothing in stainless changes.
# E2E_TESTHOST_MEM: its RAM in MiB (2048; bench-dax runs four guests at once).
# E2E_TESTHOST_CMDLINE: more words for the test host's kernel command line
# (transparent_hugepage=always puts khugepaged back: the last word wins).
e2e_run_nested() {
	local log=$1 hk hi list secs t0 pidf wd
	shift
	if ! command -v qemu-system-x86_64 >/dev/null; then
		echo "qemu-system-x86_64 is not installed (scripts/deps)" >"$log"
		return 77
	fi
	local with=()
	# Without a binary the host can still tell whether nested KVM works.
	[ -x "$STAINLESS" ] && with=(--stainless "$STAINLESS")
	# E2E_TESTHOST_EXTRA (an array a benchmark may set): more build-testhost
	# arguments, e.g. --extra-bin for QEMU in bench/boot.sh.
	{ read -r hk; read -r hi; } < <("$TOP/guest-images/build-testhost" \
		--guest-kernel "$GUEST_KERNEL" --guest-initrd "$GUEST_INITRD" "${with[@]}" \
		${E2E_TESTHOST_EXTRA[@]+"${E2E_TESTHOST_EXTRA[@]}"})
	if [ -z "${hi:-}" ]; then
		echo "STAINLESS-TESTHOST-FAIL building the test host failed" >"$log"
		return 1
	fi
	list=$(echo "$@" | tr ' ' ',')
	# The whole host's bound grows with the cases it runs (300 s for its own
	# boot, 60 s a case: twice what a case takes on a loaded 2-core machine):
	# a fixed 900 s killed a healthy host running all 26 cases beside a
	# kernel build. A stalled host is caught sooner by the quiet watchdog.
	secs=${E2E_HOST_TIMEOUT:-$((300 + 60 * $#))}
	pidf=$log.qemu-pid
	rm -f "$pidf" "$log.status"
	e2e_say "booting the test host (QEMU TCG, AMD CPU with SVM; kernel $(basename "$hk")); limit ${secs}s"
	t0=$(date +%s)
	# Interrupted or terminated, kill exactly the QEMU started here, by the
	# pid it wrote, so no emulated host keeps burning a shared core.
	trap 'e2e_kill_qemu "$pidf"; exit 130' INT TERM HUP
	# -no-reboot: the host's final `reboot -f` (and any panic, with panic=-1)
	# ends QEMU. stdin is /dev/null so QEMU never grabs the terminal;
	# --foreground keeps it in our process group, so Ctrl-C reaches it too.
	# The pipeline runs in the background so that `wait` (unlike a
	# foreground pipeline) lets the trap run at once.
	{
		timeout --foreground -s KILL "$secs" qemu-system-x86_64 -M q35 \
			-accel tcg,thread=multi -cpu EPYC,+svm,+npt -smp 2 -m "${E2E_TESTHOST_MEM:-2048}" \
			-nodefaults -no-user-config -nographic -serial stdio -no-reboot \
			-pidfile "$pidf" -kernel "$hk" -initrd "$hi" \
			-append "console=ttyS0 quiet panic=-1 transparent_hugepage=never stainless.cases=$list stainless.verbose=${E2E_VERBOSE:-0} stainless.loglevel=${E2E_GUEST_LOGLEVEL:-5}${E2E_TESTHOST_CMDLINE:+ $E2E_TESTHOST_CMDLINE}" \
			</dev/null 2>&1
		echo $? >"$log.status"
	} | sed -u 's/\r//g; s/\x1bc//g; s/\x1b\[[0-9;?]*[a-zA-Z]//g' |
		tee "$log" | {
		if [ "${E2E_VERBOSE:-0}" = 1 ]; then
			# QEMU's notes on CPUID bits TCG lacks are noise here.
			grep --line-buffered -v "TCG doesn't support requested feature"
		else
			grep --line-buffered -E "^(PASS|FAIL|SKIP) e2e/|^  [|>] |STAINLESS-TESTHOST|Kernel panic${E2E_SHOW:+|$E2E_SHOW}"
		fi
	} &
	local host=$!
	e2e_quiet_watchdog "$log" "$pidf" "${E2E_QUIET_TIMEOUT:-300}" &
	wd=$!
	wait $host
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	trap - INT TERM HUP
	e2e_kill_qemu "$pidf"
	if [ -f "$log.quiet" ]; then
		echo "STAINLESS-TESTHOST-FAIL killed: $(cat "$log.quiet") (E2E_QUIET_TIMEOUT)" | tee -a "$log"
	elif [ "$(cat "$log.status" 2>/dev/null)" = 137 ]; then
		echo "STAINLESS-TESTHOST-FAIL killed after ${secs}s (E2E_HOST_TIMEOUT)" | tee -a "$log"
	fi
	rm -f "$log.status" "$log.quiet"
	e2e_say "test host ran for $(( $(date +%s) - t0 ))s"
	grep -q '^STAINLESS-TESTHOST-DONE' "$log"
}

# e2e_quiet_watchdog LOG PIDFILE SECS: kills the QEMU of PIDFILE once LOG
# has not grown for SECS seconds, or once the host's own soft-lockup or
# hung-task detector reports a CPU or a task stuck for SECS seconds, and
# says why in LOG.quiet. (A host whose timer stopped firing goes on
# printing hung-task reports every two minutes: never quiet, never done.)
e2e_quiet_watchdog() {
	local log=$1 pidf=$2 quiet=$3 size last=-1 since stuck hung why=
	since=$(date +%s)
	while sleep 5; do
		size=$(stat -c %s "$log" 2>/dev/null || echo 0)
		stuck=$(tail -c 4096 "$log" 2>/dev/null |
			sed -n 's/.*soft lockup - CPU#[0-9]* stuck for \([0-9]*\)s.*/\1/p' | tail -n 1)
		hung=$(tail -c 4096 "$log" 2>/dev/null |
			sed -n 's/.*INFO: task .* blocked for more than \([0-9]*\) seconds.*/\1/p' | tail -n 1)
		if [ "${stuck:-0}" -ge "$quiet" ]; then
			why="a CPU of the test host stuck for ${stuck}s (soft lockup)"
		elif [ "${hung:-0}" -ge "$quiet" ]; then
			why="a task of the test host blocked for ${hung}s (hung task)"
		elif [ "$size" != "$last" ]; then
			last=$size
			since=$(date +%s)
		elif [ $(( $(date +%s) - since )) -ge "$quiet" ]; then
			why="${quiet}s without console output"
		fi
		if [ -n "$why" ]; then
			echo "$why" >"$log.quiet"
			e2e_kill_qemu "$pidf"
			return
		fi
	done
}

# e2e_kill_qemu PIDFILE: kills the QEMU that wrote PIDFILE if it still runs
# (checking the pid still names a QEMU, in case it was reused).
e2e_kill_qemu() {
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 0
	if [ -n "$pid" ] && grep -q qemu-system "/proc/$pid/cmdline" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
	fi
	rm -f "$1"
	return 0
}
