#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-boot: what it costs to start a microVM, stainless beside QEMU's
# microvm machine booting the same guest kernel and initramfs to the same
# marker, in one run, rounds interleaved (bench/boot-inner.sh), medians and
# ratios reported. Runs directly where /dev/kvm boots Linux, else inside the
# nested test host (the same choice as the e2e tests), and says which.
#
# Figures: VMM start to first KVM_RUN (wall and CPU ms, stainless only:
# QEMU prints no such event), start to the guest's init marker, CPU time of
# the VMM's threads by then, and the VMM's resident memory without guest RAM
# (both VMMs keep guest RAM in a shared memfd, left out by name).
# Output: a table on stdout, raw lines and the table in $OUT/boot.txt
# (docs/benchmarks), raw samples through bench/results.inc (family boot).
# The nested host runs under the machine-wide e2e lock (bench/e2e-lock.inc).
#
# Environment: ROUNDS (default 5), BENCH_QUICK (1 round), VCPUS (guest vCPUs for both VMMs, default
# 1), CMDLINE_EXTRA (more guest kernel command line words, e.g. noxsave), O,
# STAINLESS, E2E_MODE as for the e2e run. A boot that never reaches
# the marker is counted per VMM ("did not reach init"): with many ROUNDS this
# is the nested host's stall rate for each VMM under the same load.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}"
: "${O:=build}" "${ROUNDS:=5}" "${VCPUS:=1}" "${CMDLINE_EXTRA:=}"
. bench/nested.inc

qemu=$(command -v qemu-system-x86_64) || { echo "bench-boot: SKIP: qemu-system-x86_64 missing (make deps)"; exit 77; }
meter=$O/bench/bootmeter
[ -x "$meter" ] && [ -x "$STAINLESS" ] || { echo "bench-boot: build first (make bench-boot does)"; exit 1; }
e2e_build_images || exit 1
e2e_pick_mode || exit 1
e2e_say "mode: $E2E_MODE_USED -- $E2E_MODE_WHY"

raw=$(mktemp)
trap 'rm -f "$raw" "$raw.run"' EXIT
e2e_lock || exit 1
results_open boot "Start-up: stainless beside QEMU -M microvm booting the same kernel and initramfs to init" "$E2E_MODE_USED"
if [ "$E2E_MODE_USED" = direct ]; then
	sh bench/boot-inner.sh "$ROUNDS" "$GUEST_KERNEL" "$GUEST_INITRD" "$STAINLESS" \
		"$meter" "$qemu" "$VCPUS" "$CMDLINE_EXTRA" | tee "$raw"
else
	# The host runs /bench/run after its (no) e2e cases: QEMU, its
	# firmware, the meter and the inner script are packed in.
	printf '#!/bin/sh\nsh /bench/boot-inner.sh %s "$GUEST_KERNEL" "$GUEST_INITRD" "$STAINLESS" /bench/bootmeter /usr/bin/qemu-system-x86_64 %s "%s"\n' \
		"$ROUNDS" "$VCPUS" "$CMDLINE_EXTRA" >"$raw.run"
	E2E_TESTHOST_EXTRA=(--extra-bin "$qemu:/usr/bin/qemu-system-x86_64"
		--extra-bin "$meter:/bench/bootmeter"
		--extra-file "$TOP/bench/boot-inner.sh:/bench/boot-inner.sh"
		--extra-file "$raw.run:/bench/run")
	for f in bios-microvm.bin qboot.rom linuxboot_dma.bin kvmvapic.bin pvh.bin; do
		E2E_TESTHOST_EXTRA+=(--extra-file "/usr/share/qemu/$f:/usr/share/qemu/$f")
	done
	E2E_HOST_TIMEOUT=$((300 + ROUNDS * 180)) e2e_run_nested "$raw.log"
	grep '^BOOTBENCH' "$raw.log" >"$raw"
	rm -f "$raw.log"*
fi
e2e_unlock

# VMM start-up alone does not need Linux: on this machine's own /dev/kvm
# (whatever it is) the tiny ELF guest measures it without nesting costs.
if [ -r /dev/kvm ] && [ -w /dev/kvm ] && tests/guests/build "$raw.tiny" 2>/dev/null; then
	i=1
	while [ "$i" -le "$ROUNDS" ]; do
		line=$(STAINLESS_BOOT_TRACE=1 "$STAINLESS" run --kernel "$raw.tiny/hello.elf" \
			--mem 256M </dev/null 2>&1 >/dev/null | sed -n 's/^boot-trace: first-kvm-run //p')
		echo "BOOTBENCH vmm=stainless-tiny round=$i $line" |
			sed 's/wall_ms=/first_run_wall_ms=/; s/cpu_ms=/first_run_cpu_ms=/' >>"$raw"
		i=$((i + 1))
	done
	rm -rf "$raw.tiny"
fi

# median FIELD VMM: the median of FIELD over that VMM's BOOTBENCH lines.
median() {
	grep "vmm=$2 " "$raw" | tr ' ' '\n' | sed -n "s/^$1=//p" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || a == 0) print "n/a"; else printf "%.2fx\n", b / a }'; }
mib() { awk -v k="$1" 'BEGIN { if (k == "n/a") print k; else printf "%.1f\n", k / 1024 }'; }

# BOOTBENCH vmm=V round=N k=v...: the raw samples, in MiB where the meter
# says KiB; stainless-tiny lines are the start-up on this machine's /dev/kvm.
awk '$1 == "BOOTBENCH" { delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	v = f["vmm"]; r = f["round"]; sys = v == "qemu" ? "qemu-microvm" : "stainless"
	if (v == "stainless-tiny") {
		put("first-kvm-run-host", "wall_ms", f["first_run_wall_ms"]); put("first-kvm-run-host", "cpu_ms", f["first_run_cpu_ms"])
		put("first-kvm-run-host", "rss_mib", f["rss_kib"] == "" ? "" : f["rss_kib"] / 1024)
		next
	}
	put("init-marker", "wall_ms", f["marker_ms"]); put("init-marker", "cpu_ms", f["cpu_ms"])
	put("vmm-rss", "rss_mib", f["rss_kib"] == "" ? "" : f["rss_kib"] / 1024)
	put("first-kvm-run", "wall_ms", f["first_run_wall_ms"]); put("first-kvm-run", "cpu_ms", f["first_run_cpu_ms"]) }
	function put(row, m, val) { if (val != "") printf "%s,%s,%s,lower,%s,%s\n", row, sys, m, r, val }' "$raw" >>"$RESULTS_CSV"
results_meta systems stainless qemu-microvm
results_meta anchor qemu-microvm
results_meta judge stainless
results_meta note "Mode: $E2E_MODE_USED ($E2E_MODE_WHY). Guest: $(basename "$GUEST_KERNEL"); $VCPUS vCPU(s); 256 MiB in a shared memfd (left out of the VMM's RSS); $ROUNDS interleaved rounds; QEMU: $("$qemu" --version | head -n 1)."
results_meta note "init-marker = VMM start to the guest init's first console line; cpu_ms = the VMM's threads' CPU time by then; first-kvm-run = VMM start to its first KVM_RUN (stainless only: QEMU prints no such event); first-kvm-run-host = the same on this machine's own /dev/kvm with a tiny ELF guest (no nesting)."
results_meta note "Anchor beyond this run: Firecracker publishes <= 8 CPU ms VMM start and <= 5 MiB overhead."
results_close
n=$(grep -c 'vmm=stainless .*marker_ms=' "$raw")
out=$OUT/boot.txt
mkdir -p "$OUT"
{
	echo "# make bench-boot, $(date -u +%Y-%m-%d), $E2E_MODE_USED mode ($E2E_MODE_WHY)"
	echo "# host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# guest: $(basename "$GUEST_KERNEL"), $VCPUS vCPU(s), 256 MiB${CMDLINE_EXTRA:+, cmdline +'$CMDLINE_EXTRA'}; $n interleaved rounds, medians; QEMU: $("$qemu" --version | head -n 1)"
	printf '%-44s %12s %12s %10s\n' "metric (median)" stainless qemu-microvm "qemu/stn"
	for row in "VMM start to first KVM_RUN, wall ms:first_run_wall_ms" \
		"VMM start to first KVM_RUN, CPU ms:first_run_cpu_ms" \
		"start to guest init marker, ms:marker_ms" \
		"VMM CPU time until the marker, ms:cpu_ms"; do
		s=$(median "${row#*:}" stainless) q=$(median "${row#*:}" qemu)
		printf '%-44s %12s %12s %10s\n' "${row%%:*}" "$s" "$q" "$(ratio "$s" "$q")"
	done
	s=$(mib "$(median rss_kib stainless)") q=$(mib "$(median rss_kib qemu)")
	printf '%-44s %12s %12s %10s\n' "VMM RSS without guest RAM, MiB" "$s" "$q" "$(ratio "$s" "$q")"
	echo "# the same start-up on this machine's own /dev/kvm, tiny ELF guest (no nesting):"
	printf '%-44s %12s\n' "VMM start to first KVM_RUN, wall ms" "$(median first_run_wall_ms stainless-tiny)"
	printf '%-44s %12s\n' "VMM start to first KVM_RUN, CPU ms" "$(median first_run_cpu_ms stainless-tiny)"
	printf '%-44s %12s\n' "VMM RSS at first KVM_RUN (anon+file), MiB" "$(mib "$(median rss_kib stainless-tiny)")"
	for v in stainless qemu; do
		printf '%-44s %12s\n' "boots that did not reach init, $v" \
			"$(grep "vmm=$v " "$raw" | grep -vc 'marker_ms=') of $(grep -c "vmm=$v round" "$raw")"
	done
	echo "# anchor: Firecracker publishes <= 8 CPU ms VMM start and <= 5 MiB overhead"
	echo "# raw:"
	sed 's/^/# /' "$raw"
} | tee "$out"
[ "$n" -gt 0 ]
