#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# stability-inner.sh: the booting half of `make bench-stability` (issue 23),
# run where KVM boots Linux (inside the nested test host, or directly on a
# real KVM host, as root). Boots the e2e guest kernel BOOTS times,
# alternating stainless and QEMU -M microvm, each guest running the same
# share battery (tests/e2e/fsbattery.c, bench/guest-stability.sh) over a
# virtio-fs share and a 9p share, then small I/O until 15 s after the
# guest kernel switched from the TSC to kvm-clock (where issue 23's triple
# fault came), 120 s of uptime at most. No bigfile test by default: over
# 9p it took 702 s of a 810 s boot on the loaded machine (STAB-TIMES).
#   stainless  --fs fs=DIR,cache=auto  --9p p9=DIR2,msize=512000
#   qemu       vhost-user-fs-device + Debian's C virtiofsd (cache=auto)
#              and its own virtio-9p-device (-fsdev local, passthrough)
# and prints one STAB line per boot for bench/stability.sh:
#   STAB vmm= n= verdict=done|triple|stall|limit|other secs= guest_s=
#        tsc_unstable=y|n clocksource= battery=ok|FAIL(k) softlockups=
#        thp_collapsed= thp_full_scans= vmm_anon_huge_kib= vmm_shmem_pmd_kib=
#        why=...
# verdict: done = the guest finished the battery; triple = the VMM says
# the vCPU shut down (stainless) or QEMU exited on a reset before the end
# with no panic on the console (-no-reboot: a triple fault; the guest's
# own reboot comes only after its DONE line); stall = no console byte for
# STALL s while the VMM ran (the guest prints a heartbeat every 10 s, so
# that is a guest that stopped, not a slow test); limit = LIMIT s passed; other = anything else.
# Around every boot it reads the test host's khugepaged counters and
# samples the VMM's smaps_rollup (issue 23 item 1: what khugepaged
# collapses there).
#
#   stability-inner.sh BOOTS KERNEL INITRD STAINLESS QEMU VIRTIOFSD [FIRST]
# Environment: STALL (90), LIMIT (400), MEM (512M), CPUS (1),
# STAB_CMDLINE (more guest command-line words, e.g. no-kvmclock),
# STAB_VMMS (stainless,qemu), GUEST_LOGLEVEL (5), STAB_TESTS (the battery's
# tests), STAB_KEEP (a directory for the console of every boot that did
# not finish; also printed as STAB-LOG lines).
set -u
boots=$1 kernel=$2 initrd=$3 stainless=$4 qemu=$5 virtiofsd=$6 first=${7:-1}
stall=${STALL:-90} limit=${LIMIT:-400} mem=${MEM:-512M} cpus=${CPUS:-1}
loglevel=${GUEST_LOGLEVEL:-5} vmms=$(echo "${STAB_VMMS:-stainless,qemu}" | tr ',' ' ')
tests=${STAB_TESTS:-files,dirs,rename,links,symlinks,attrs,statx,sync,sparse}
work=/tmp/stability
thp=/sys/kernel/mm/transparent_hugepage

say() { echo "STAB-NOTE $*"; }
mkdir -p "$work"

FSBATTERY=${FSBATTERY:-/e2e/fsbattery}
E2E_DIR=${E2E_DIR:-/e2e}
[ -x "$FSBATTERY" ] || { say "no share battery at $FSBATTERY"; exit 1; }

# stab_share DIR: what the battery's chosen tests read from the host (the
# e2e cases' share_setup also makes 10000 entries for readdir and escape
# links, which these tests do not use and a nested boot cannot afford).
stab_share() {
	mkdir -p "$1" || return 1
	"$FSBATTERY" falloc-probe "$1" || : >"$1/host-no-fallocate"
	echo "$1" >"$1/host-path"
	date +%s >"$1/host-now"
	echo "from the host" >"$1/host.txt"
}

xsave=
if [ -x "$E2E_DIR/kvm-sanity" ]; then
	timeout -s KILL 20 "$E2E_DIR/kvm-sanity" xsetbv >/dev/null 2>&1
	[ $? -eq 2 ] && xsave=" noxsave" && say "this KVM loses guests' XSETBV; guests boot with noxsave"
fi

thp_state() {
	[ -d "$thp" ] || { echo "no THP"; return; }
	echo "enabled=$(sel $thp/enabled) defrag=$(sel $thp/defrag) shmem=$(sel $thp/shmem_enabled)" \
		"khugepaged.defrag=$(cat $thp/khugepaged/defrag) pages_to_scan=$(cat $thp/khugepaged/pages_to_scan)" \
		"scan_sleep_ms=$(cat $thp/khugepaged/scan_sleep_millisecs)"
}
# sel FILE: the [selected] word of a THP setting.
sel() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$1" 2>/dev/null; }
kh() { cat "$thp/khugepaged/$1" 2>/dev/null || echo 0; }
# smaps_kib PID FIELD: FIELD of PID's smaps_rollup, in KiB.
smaps_kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/smaps_rollup" 2>/dev/null; }

say "test host: $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs; THP: $(thp_state)"
say "cmdline: $(cat /proc/cmdline)"

# watch PID LOG: waits for the guest's end, a stall or the limit; leaves
# the verdict of the wait in $wait_end and the largest huge-page figures
# of the VMM in $max_anon / $max_shmem.
watch() {
	pid=$1 log=$2 last=-1 wait_end= max_anon=0 max_shmem=0 beat=60
	# Seconds by the host's clock: under TCG one pass of this loop
	# costs more than its sleep, so counting passes would stretch STALL.
	start=$(now) since=$(now)
	while kill -0 "$pid" 2>/dev/null; do
		if grep -q '^GUESTFIO-DONE' "$log"; then wait_end=done; break; fi
		t=$(now) size=$(wc -c <"$log")
		[ "$size" != "$last" ] && last=$size since=$t
		[ $((t - since)) -ge "$stall" ] && { wait_end=stall; break; }
		[ $((t - start)) -ge "$limit" ] && { wait_end=limit; break; }
		a=$(smaps_kib "$pid" AnonHugePages) s=$(smaps_kib "$pid" ShmemPmdMapped)
		[ "${a:-0}" -gt "$max_anon" ] && max_anon=$a
		[ "${s:-0}" -gt "$max_shmem" ] && max_shmem=$s
		# A sign of life for the e2e runner's quiet watchdog.
		[ $((t - start)) -ge "$beat" ] && { say "vmm=$vmm n=$i running for $((t - start))s"; beat=$((beat + 60)); }
		sleep 1
	done
}
now() { cut -d. -f1 /proc/uptime; }

# classify LOG WAIT_END RC: the boot's verdict and why.
classify() {
	if grep -q '^GUESTFIO-DONE' "$1"; then verdict=done why=
	elif [ "$2" = stall ]; then verdict=stall why="no console output for ${stall}s"
	elif [ "$2" = limit ]; then verdict=limit why="${limit}s limit"
	elif grep -q 'triple fault (the CPU shut down)' "$1"; then verdict=triple why=$(grep -m1 'triple fault (the CPU shut down)' "$1")
	elif [ "$vmm" = qemu ] && [ "$3" = 0 ] && ! grep -q 'Kernel panic' "$1"; then
		verdict=triple why="QEMU -no-reboot exited on a reset before the guest's end, no panic"
	else
		verdict=other why=$(grep -v '^GUESTFIO\|^GUESTBEAT' "$1" | sed '/^$/d' | tail -n 1)
	fi
}

# boot_one VMM N: one guest, its STAB line.
boot_one() {
	vmm=$1 i=$2
	d=$work/$i-$vmm
	rm -rf "$d"
	mkdir -p "$d"
	stab_share "$d/fs/share" >"$d/setup.log" 2>&1 && stab_share "$d/p9/share" >>"$d/setup.log" 2>&1 ||
		{ say "share set-up failed: $(tail -n 1 "$d/setup.log")"; return 1; }
	cmd="console=ttyS0 reboot=k panic=-1$xsave loglevel=$loglevel bench.vmm=$vmm bench.round=$i"
	cmd="$cmd bench.mounts=fs=virtiofs:fs,p9=9p:p9 bench.jobs=battery bench.tests=$tests${STAB_CMDLINE:+ $STAB_CMDLINE}"
	log=$d/console.log vpid=
	c0=$(kh pages_collapsed) s0=$(kh full_scans)
	k0=$(dmesg | grep -c 'soft lockup')
	t0=$(cut -d' ' -f1 /proc/uptime)
	if [ "$vmm" = stainless ]; then
		"$stainless" run --kernel "$kernel" --initrd "$initrd" --mem "$mem" --cpus "$cpus" \
			--cmdline "$cmd" --fs "fs=$d/fs/share,cache=auto" --9p "p9=$d/p9/share,msize=512000" \
			</dev/null >"$log" 2>&1 &
	else
		sock=$d/vfsd.sock
		"$virtiofsd" --socket-path="$sock" -o source="$d/fs/share" -o cache=auto \
			--thread-pool-size=0 >"$d/vfsd.log" 2>&1 &
		vpid=$!
		n=0
		while [ ! -S "$sock" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
		"$qemu" -M microvm,acpi=off,memory-backend=mem -global virtio-mmio.force-legacy=false \
			-object "memory-backend-memfd,id=mem,size=$mem,share=on" -enable-kvm -cpu host \
			-smp "$cpus" -m "$mem" -nodefaults -no-user-config -nographic -serial stdio -no-reboot \
			-kernel "$kernel" -initrd "$initrd" -append "$cmd" \
			-chardev "socket,id=vfsd,path=$sock" -device vhost-user-fs-device,chardev=vfsd,tag=fs \
			-fsdev "local,id=p9,path=$d/p9/share,security_model=passthrough" \
			-device virtio-9p-device,fsdev=p9,mount_tag=p9 </dev/null >"$log" 2>&1 &
	fi
	pid=$!
	watch "$pid" "$log"
	# stainless exits on the guest's reboot by itself; QEMU on its reset.
	for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	[ -n "$vpid" ] && { kill "$vpid" 2>/dev/null; wait "$vpid" 2>/dev/null; }
	t1=$(cut -d' ' -f1 /proc/uptime)
	tr -d '\r' <"$log" >"$log.txt"
	classify "$log.txt" "$wait_end" "$rc"
	k1=$(dmesg | grep -c 'soft lockup')
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
	gs=$(sed -n 's/^GUESTFIO-DONE .*secs=\([0-9]*\).*/\1/p' "$log.txt")
	cs=$(sed -n 's/^GUESTSTAB .*clocksource=\([^ ]*\).*/\1/p' "$log.txt" | tail -n 1)
	gu=$(sed -n 's/^GUESTSTAB .*uptime=\([0-9.]*\).*/\1/p' "$log.txt" | tail -n 1)
	# When (guest printk time) the kernel gave up on the TSC, if it did.
	tsc=$(sed -n "s/^\[ *\([0-9.]*\)\].*Marking clocksource 'tsc' as unstable.*/\1/p" "$log.txt" | head -n 1)
	up=$(sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' "$log.txt" | tail -n 1)
	beat=$(sed -n 's/^GUESTBEAT uptime=//p' "$log.txt" | tail -n 1)
	bf=$(grep -c '^FAIL battery' "$log.txt")
	bat=ok
	[ "$bf" -gt 0 ] && bat="FAIL($bf)"
	[ "$verdict" = done ] || bat=-
	echo "STAB vmm=$vmm n=$i verdict=$verdict secs=$secs guest_s=${gu:-?} tsc_unstable=${tsc:+y} tsc_at=${tsc:-n}" \
		"last_printk=${up:-?} last_beat=${beat:-?}" \
		"clocksource=${cs:-?} battery=$bat softlockups=$((k1 - k0))" \
		"thp_collapsed=$(( $(kh pages_collapsed) - c0 )) thp_full_scans=$(( $(kh full_scans) - s0 ))" \
		"vmm_anon_huge_kib=$max_anon vmm_shmem_pmd_kib=$max_shmem rc=$rc${why:+ why=$why}"
	# Where a boot's time went: the battery's tests, per mount.
	t=$(sed -n 's/^\(ok\|FAIL\) \([a-z]*\) (\([0-9.]*\)s).*/\2=\3/p' "$log.txt" | tr '\n' ' ')
	echo "STAB-TIMES vmm=$vmm n=$i: $t"
	if [ "$verdict" != done ]; then
		grep -v '^GUESTFIO\|^GUESTBEAT' "$log.txt" | sed '/^$/d' | tail -n 30 | sed "s/^/STAB-LOG vmm=$vmm n=$i: /"
		[ -n "${STAB_KEEP:-}" ] && mkdir -p "$STAB_KEEP" && cp "$log.txt" "$STAB_KEEP/$i-$vmm.console"
	fi
	[ "$bat" = ok ] || [ "$bat" = - ] || grep '^FAIL ' "$log.txt" | head -n 3 | sed "s/^/STAB-BATTERY vmm=$vmm n=$i: /"
	rm -rf "$d"
}

i=$first
final=$((first + boots - 1))
while [ "$i" -le "$final" ]; do
	if [ $((i % 2)) -eq 1 ]; then order="stainless qemu"; else order="qemu stainless"; fi
	for v in $order; do
		case " $vmms " in *" $v "*) ;; *) continue ;; esac
		[ "$v" = qemu ] && { [ "$qemu" = - ] || [ "$virtiofsd" = - ]; } && continue
		boot_one "$v" "$i"
	done
	echo "STAB-ROUND-DONE $i"
	i=$((i + 1))
done
say "THP at the end: $(thp_state); pages_collapsed=$(kh pages_collapsed) full_scans=$(kh full_scans)"
