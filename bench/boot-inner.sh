#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# boot-inner.sh: the measuring half of `make bench-boot`, run where KVM can
# boot Linux (inside the nested test host here, or directly on real KVM).
# Boots the same guest kernel and initramfs to its first marker with
# stainless and with QEMU's microvm machine, rounds interleaved (the order
# flips every round, so neither always runs on a warmer cache), and prints
# one BOOTBENCH line per boot for bench/boot.sh to reduce.
#
#   boot-inner.sh ROUNDS KERNEL INITRD STAINLESS BOOTMETER [QEMU [VCPUS [EXTRA]]]
#
# Both VMMs get VCPUS vCPUs (default 1), 256 MiB in a shared memfd (so guest RAM counts as
# RssShmem for both and is left out of the VMM's own RSS), the same kernel
# command line, and are stopped when the guest prints STAINLESS-GUEST-UP.
set -u
rounds=$1 kernel=$2 initrd=$3 stainless=$4 meter=$5 qemu=${6:-} vcpus=${7:-1} extra=${8:-}
case $vcpus in 1) case=boot-1cpu ;; *) case=boot-2cpu ;; esac
cmdline="console=ttyS0 reboot=k panic=-1 loglevel=5 stainless.case=$case${extra:+ $extra}"
marker=STAINLESS-GUEST-UP

run_stainless() {
	STAINLESS_BOOT_TRACE=1 "$meter" "$marker" 120 memfd:stainless-ram "$stainless" run --kernel "$kernel" \
		--initrd "$initrd" --mem 256M --cpus "$vcpus" --cmdline "$cmdline" </dev/null
}

# acpi=off: microvm then announces its devices on the command line, as
# stainless does; its reboot path fails nested, so the meter ends the run.
run_qemu() {
	"$meter" "$marker" 120 memfd:memory-backend-memfd "$qemu" -M microvm,acpi=off,memory-backend=mem \
		-object memory-backend-memfd,id=mem,size=256M,share=on \
		-enable-kvm -cpu host -smp "$vcpus" -m 256M -nodefaults -no-user-config \
		-nographic -serial stdio -kernel "$kernel" -initrd "$initrd" \
		-append "$cmdline" </dev/null
}

one() {
	out=$("run_$1" 2>&1)
	trace=$(printf '%s\n' "$out" | sed -n 's/^boot-trace: first-kvm-run //p' | head -n 1 |
		sed 's/wall_ms=/first_run_wall_ms=/; s/cpu_ms=/first_run_cpu_ms=/; s/rss_kib=/first_run_rss_kib=/')
	meter_line=$(printf '%s\n' "$out" | sed -n 's/^bootmeter: //p' | head -n 1)
	echo "BOOTBENCH vmm=$1 round=$2 $meter_line $trace"
	# A VMM that never reached the marker: show why, on its own line.
	case $meter_line in
	marker_ms=*) ;;
	*) printf '%s\n' "$out" | grep -v '^bootmeter:' | tail -n 3 | sed "s/^/BOOTBENCH-LOG vmm=$1: /" ;;
	esac
}

i=1
while [ "$i" -le "$rounds" ]; do
	if [ $((i % 2)) -eq 1 ]; then order="stainless qemu"; else order="qemu stainless"; fi
	for v in $order; do
		if [ "$v" = qemu ] && [ -z "$qemu" ]; then
			echo "BOOTBENCH vmm=qemu round=$i skipped (no qemu-system-x86_64 here)"
			continue
		fi
		one "$v" "$i"
	done
	i=$((i + 1))
done
