#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-stability (issue 23): how often a nested guest dies, stainless
# beside QEMU -M microvm, in one run. The same 6.12 e2e guest kernel runs
# the same share battery over virtio-fs and 9p under both VMMs, boots
# alternating inside one test host (bench/stability-inner.sh says how each
# VMM serves the shares and how a boot is judged), in batches: each batch
# is one test host booted under the machine-wide e2e lock, released
# between batches so other nested runs get in. Batches alternate between
# two conditions: "quiet" (nothing of ours beside the test host; the
# machine's other users are recorded, not controlled) and "loaded"
# (LOAD_CMD beside it, `nice stress-ng --cpu 1`). The outer machine's
# 1-minute load average is stamped on every boot's line as it arrives.
#
# Output: per VMM and condition, boots, completed, triple faults, stalls,
# other failures, time per boot, how many guests saw the TSC marked
# unstable, the test host's soft lockups and khugepaged collapses; raw
# lines too, in $OUT/stability.txt (OUT: docs/benchmarks).
#
# Environment: BOOTS (rounds per condition, each boots every VMM once;
# default 30), BATCH (rounds per test host, 5: ten boots per lock hold),
# CONDITIONS (quiet,loaded), LOAD_CMD, STAB_CMDLINE (more guest kernel
# words, e.g. "clocksource=kvm-clock" to take one suspect away),
# E2E_TESTHOST_CMDLINE (more test-host kernel words, e.g.
# transparent_hugepage=never), STAB_VMMS (stainless,qemu), STALL (s), LIMIT
# (s), CPUS, MEM, STAB_TESTS (bench/stability-inner.sh), STOP_AT (a time,
# e.g. 02:20: no batch starts after it; the table covers what ran), O,
# STAINLESS, OUT, E2E_MODE as for the e2e run.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
: "${O:=build}" "${BOOTS:=30}" "${BATCH:=5}" "${CONDITIONS:=quiet,loaded}"
: "${LOAD_CMD:=nice stress-ng --cpu 1 --quiet}"
case $O in /*) ;; *) O=$TOP/$O ;; esac
STAINLESS=${STAINLESS:-$O/stainless}
export STAINLESS
. "$TOP/tests/e2e/lib.sh"
. bench/e2e-lock.inc
. bench/results.inc
bench_paths

die() { echo "bench-stability: $*" >&2; exit 1; }
[ -x "$STAINLESS" ] || die "build first (make bench-stability does)"
qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 missing (make deps)"
virtiofsd=/usr/lib/qemu/virtiofsd
[ -x "$virtiofsd" ] || die "no $virtiofsd (qemu-system-common)"
e2e_build_images || exit 1
[ -n "$FSBATTERY" ] || die "the share battery did not build (tests/e2e/build-fsbattery)"
STAB_INITRD=$(guest-images/build-initramfs --name stability-guest --init bench/guest-init \
	--file bench/guest-stability.sh:/bench/workload.sh --file "$FSBATTERY:/bin/fsbattery:0755") ||
	die "cannot build the guest initramfs"
GUEST_INITRD=$STAB_INITRD
e2e_pick_mode || exit 1
e2e_say "mode: $E2E_MODE_USED -- $E2E_MODE_WHY"

T=$(mktemp -d)
loadpid=
stop_load() {
	[ -n "$loadpid" ] || return 0
	kill -- "-$loadpid" 2>/dev/null
	wait "$loadpid" 2>/dev/null
	loadpid=
}
trap 'stop_load; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP
raw=$T/raw
: >"$raw"
REV=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- vmm mmio devices fs 2>/dev/null || echo '+dirty')
DATE0=$(date -u '+%Y-%m-%d %H:%M UTC') LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
env=(STALL="${STALL:-90}" LIMIT="${LIMIT:-400}" MEM="${MEM:-512M}" CPUS="${CPUS:-1}"
	STAB_VMMS="${STAB_VMMS:-stainless,qemu}" ${STAB_TESTS:+STAB_TESTS="$STAB_TESTS"}
	${STAB_CMDLINE:+STAB_CMDLINE="$STAB_CMDLINE"})

# stamp COND: the inner lines as they arrive, each boot's with the outer
# machine's load average (the machine is shared: say how quiet it was).
stamp() {
	while IFS= read -r l; do
		case $l in
		"STAB "*) echo "$l cond=$1 load1=$(cut -d' ' -f1 /proc/loadavg)" ;;
		STAB*) echo "$l" ;;
		*) echo "$l" >&2 ;;
		esac
	done
}

# batch COND FIRST N: rounds FIRST..FIRST+N-1 in one test host (or here).
batch() {
	local cond=$1 first=$2 n=$3 log=$T/host.log
	if [ "$cond" = loaded ]; then
		setsid $LOAD_CMD >/dev/null 2>&1 &
		loadpid=$!
	fi
	if [ "$E2E_MODE_USED" = direct ]; then
		env "${env[@]}" STAB_KEEP="$OUT/stability-consoles" sh bench/stability-inner.sh "$n" "$GUEST_KERNEL" \
			"$GUEST_INITRD" "$STAINLESS" "$qemu" "$virtiofsd" "$first" | stamp "$cond" | tee -a "$raw"
	else
		{ printf '#!/bin/sh\n'; printf '%q ' "${env[@]}"
		  printf 'sh /bench/stability-inner.sh %s "$GUEST_KERNEL" "$GUEST_INITRD" "$STAINLESS" /usr/bin/qemu-system-x86_64 %s %s\n' \
			"$n" "$virtiofsd" "$first"; } >"$T/run"
		E2E_TESTHOST_EXTRA=(--extra-bin "$qemu:/usr/bin/qemu-system-x86_64" --extra-bin "$virtiofsd:$virtiofsd"
			--extra-file "$TOP/bench/stability-inner.sh:/bench/stability-inner.sh" --extra-file "$T/run:/bench/run")
		for f in bios-microvm.bin qboot.rom linuxboot_dma.bin kvmvapic.bin pvh.bin; do
			E2E_TESTHOST_EXTRA+=(--extra-file "/usr/share/qemu/$f:/usr/share/qemu/$f")
		done
		e2e_lock || return 1
		E2E_HOST_TIMEOUT=$((300 + n * 2 * ${LIMIT:-400})) E2E_SHOW='^STAB' \
			e2e_run_nested "$log" | stamp "$cond" | tee -a "$raw"
		e2e_unlock
		# A host lost before its batch's end: its rounds are not rerun,
		# the loss is counted (the rate of lost hosts is a finding too).
		if ! grep -q '^STAINLESS-TESTHOST-DONE' "$log"; then
			echo "STAB-HOST-LOST cond=$cond first=$first rounds=$n after=$(grep -c '^STAB-ROUND-DONE' "$log") why=$(grep -m1 '^STAINLESS-TESTHOST-FAIL' "$log" | cut -c1-100)" |
				tee -a "$raw"
			tail -n 40 "$log" | sed 's/^/STAB-HOST-LOG: /' >>"$raw"
		fi
	fi
	stop_load
}

IFS=, read -r -a conds <<<"$CONDITIONS"
done_rounds=0
while [ "$done_rounds" -lt "$BOOTS" ]; do
	n=$(( BOOTS - done_rounds < BATCH ? BOOTS - done_rounds : BATCH ))
	for cond in "${conds[@]}"; do
		if [ -n "${STOP_AT:-}" ] && [ "$(date +%s)" -ge "$(date -d "$STOP_AT" +%s)" ]; then
			e2e_say "STOP_AT $STOP_AT passed: no more batches ($done_rounds rounds done)"
			echo "STAB-NOTE stopped at $(date -u +%H:%M) (STOP_AT=$STOP_AT) after $done_rounds rounds per condition" >>"$raw"
			break 2
		fi
		e2e_say "$cond: rounds $((done_rounds + 1))-$((done_rounds + n)) of $BOOTS ($(date -u +%H:%M), load $(cut -d' ' -f1 /proc/loadavg))"
		batch "$cond" "$((done_rounds + 1))" "$n"
	done
	done_rounds=$((done_rounds + n))
done

out=$OUT/stability.txt
mkdir -p "$OUT"
{
	echo "# make bench-stability, $DATE0 to $(date -u +%H:%M) UTC, commit $REV, $E2E_MODE_USED mode ($E2E_MODE_WHY)"
	echo "# host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load at start $LOAD0, at end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# command: BOOTS=$BOOTS BATCH=$BATCH${STOP_AT:+ STOP_AT=$STOP_AT} CONDITIONS=$CONDITIONS${STAB_CMDLINE:+ STAB_CMDLINE='$STAB_CMDLINE'}${E2E_TESTHOST_CMDLINE:+ E2E_TESTHOST_CMDLINE='$E2E_TESTHOST_CMDLINE'} make bench-stability"
	echo "# guest: $(basename "$GUEST_KERNEL") (e2e kernel), ${CPUS:-1} vCPU, ${MEM:-512M}; virtio-fs cache=auto + 9p msize=512000, battery: ${STAB_TESTS:-default (bench/stability-inner.sh)}; loaded = $LOAD_CMD"
	awk -f bench/stability.awk "$raw"
	echo "# raw:"
	sed 's/^/# /' "$raw"
} | tee "$out"
