#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-exec: how long `stainless exec ROOT -- CMD` takes from its start
# to the command's first output, and what its processes hold in memory by
# then, beside QEMU -M microvm doing the same (the same kernel, the same
# busybox root over virtio-fs, served by stainless vhost-user-fs since the
# test host has no virtiofsd) in the same host: the nested test host (QEMU
# TCG with an emulated SVM) here, real KVM where a machine has one; the
# results say which. ROUNDS (5) interleaved rounds; bench/exec-inner.sh
# measures.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}"
: "${O:=build}" "${ROUNDS:=5}"
. bench/nested.inc

[ -x "$STAINLESS" ] || { echo "bench-exec: build first (make bench-exec does)"; exit 1; }
qemu=$(command -v qemu-system-x86_64) || qemu=
e2e_build_images || exit 1
qinit=$(guest-images/build-initramfs --name exec-bench-qemu --init bench/exec-qemu-init) || exit 1
e2e_pick_mode || exit 1
e2e_say "mode: $E2E_MODE_USED -- $E2E_MODE_WHY"

raw=$(mktemp)
trap 'rm -f "$raw" "$raw.run" "$raw.log"*' EXIT
e2e_lock || exit 1
results_open exec "stainless exec: start to the command's first output, and memory, beside QEMU microvm" "$E2E_MODE_USED"
if [ "$E2E_MODE_USED" = direct ]; then
	sh bench/exec-inner.sh "$ROUNDS" "$GUEST_KERNEL" "$STAINLESS" "$qemu" "$qinit" | tee "$raw"
else
	# The nested host loses guests' XSETBV (docs/testing.md): both boot noxsave.
	printf '#!/bin/sh\nsh /bench/exec-inner.sh %s "$GUEST_KERNEL" "$STAINLESS" %s /bench/qemu-initrd noxsave\n' \
		"$ROUNDS" "${qemu:+/usr/bin/qemu-system-x86_64}" >"$raw.run"
	[ -n "$qemu" ] || sed -i 's|"$STAINLESS"  /bench|"$STAINLESS" "" /bench|' "$raw.run"
	E2E_TESTHOST_EXTRA=(--extra-file "$TOP/bench/exec-inner.sh:/bench/exec-inner.sh"
		--extra-file "$qinit:/bench/qemu-initrd" --extra-file "$raw.run:/bench/run")
	if [ -n "$qemu" ]; then
		E2E_TESTHOST_EXTRA+=(--extra-bin "$qemu:/usr/bin/qemu-system-x86_64")
		# Its firmware and option ROMs, as bench/boot.sh gives them.
		for f in bios-microvm.bin qboot.rom linuxboot_dma.bin kvmvapic.bin pvh.bin; do
			E2E_TESTHOST_EXTRA+=(--extra-file "/usr/share/qemu/$f:/usr/share/qemu/$f")
		done
	fi
	E2E_HOST_TIMEOUT=$((600 + ROUNDS * 120)) e2e_run_nested "$raw.log"
	grep '^BENCHEXEC' "$raw.log" | tr -d '\r' >"$raw"
fi
e2e_unlock
cat "$raw"

awk '$1 == "BENCHEXEC" { delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["marker_ms"] == "") next
	printf "first-output,%s,ms,lower,%s,%s\n", f["vmm"], f["round"], f["marker_ms"]
	printf "peak-rss,%s,kib,lower,%s,%s\n", f["vmm"], f["round"], f["hwm_kib"]
	printf "own-rss,%s,kib,lower,%s,%s\n", f["vmm"], f["round"], f["own_kib"] }' \
	"$raw" >>"$RESULTS_CSV"
results_meta systems stainless qemu
results_meta anchor qemu
results_meta judge stainless
results_meta rows first-output peak-rss own-rss
results_meta note "Mode: $E2E_MODE_USED ($E2E_MODE_WHY); nested means QEMU TCG with an emulated SVM CPU, so every figure is far slower than on real KVM. $ROUNDS interleaved rounds, medians; guest $(basename "$GUEST_KERNEL"), 1 vCPU, 256 MiB, a busybox root over virtio-fs with cache=always."
results_meta note "first-output: from the first process's start to the command's first output line (polled every 10 ms). stainless: stainless exec ROOT -- sh -c 'echo EXEC-MARKER; sleep 2' (its own guest init, vsock stdio). qemu: qemu-system-x86_64 -M microvm,acpi=off with vhost-user-fs-device served by stainless vhost-user-fs (started inside the timing) and a busybox sh init that mounts the share, switch_roots and echoes on the console."
results_meta note "peak-rss: VmHWM summed over every process of each side at the marker (guest RAM touched included: both map it from a shared memfd); own-rss: RssAnon + RssFile, without guest RAM."
results_close
median() {
	grep "vmm=$1 " "$raw" | tr ' ' '\n' | sed -n "s/^$2=//p" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
mkdir -p "$OUT"
{
	echo "# make bench-exec, $(date -u +%Y-%m-%d), $E2E_MODE_USED mode, $ROUNDS rounds, medians"
	printf '%-40s %12s %12s\n' "metric (median)" stainless qemu-microvm
	printf '%-40s %12s %12s\n' "start to the command's first output, ms" "$(median stainless marker_ms)" "$(median qemu marker_ms)"
	printf '%-40s %12s %12s\n' "peak RSS of all its processes, KiB" "$(median stainless hwm_kib)" "$(median qemu hwm_kib)"
	printf '%-40s %12s %12s\n' "RSS without guest RAM, KiB" "$(median stainless own_kib)" "$(median qemu own_kib)"
} | tee "$OUT/exec.txt"
grep -q 'vmm=stainless round=[0-9]* marker_ms' "$raw" || { echo "bench-exec: no samples (see the test host log)"; exit 1; }
