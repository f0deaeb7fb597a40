#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-inner.sh: the measuring half of `make bench-guest`, run where KVM can
# boot Linux (inside the nested test host here, or directly on real KVM, as
# root), and of `make bench-realwork`'s guest part. One tmpfs directory
# (holding one fio file for bench-guest); every VMM shares that same
# directory with its guest (bench/guest-init), which runs its workload's
# jobs on each of its mounts:
#   stainless   st-fs   --fs cache=never            mount -t virtiofs
#               st-auto --fs cache=auto             mount -t virtiofs
#               st-dax  --fs cache=always,dax=SIZE  mount -t virtiofs -o dax
#               st-9p   --9p msize=MSIZE            mount -t 9p
#   QEMU microvm qemu-9p    its own virtio-9p-device (-fsdev local, passthrough)
#                qemu-vfsd  vhost-user-fs-device + Debian's C virtiofsd,
#                           cache=none, default thread pool (64)
#                qemu-vfsd0 the same with --thread-pool-size=0 (inline)
# Each round boots every VMM once (the VMM order flips every round) and
# rotates the mount order inside each guest, so neither a VMM nor a mount
# always runs first. A guest that does not finish is booted once more (both
# attempts are reported). Prints the guests' GUESTFIO lines, one GUESTBOOT
# line per boot and GUESTROUND-DONE N after each round for bench/guest.sh
# to reduce (and to resume from, should the test host itself die).
#
#   guest-inner.sh ROUNDS KERNEL INITRD STAINLESS QEMU VIRTIOFSD [FIRST_ROUND]
# Environment: SIZE_MB (fio file, 64; 0: none), SHARE_MB (the tmpfs, from
# SIZE_MB and the file count), RUNTIME (s per job, 5), GUEST_JOBS (comma
# list; JOBS is read when it is unset; a -multi job gets fio-file1..4 laid
# out), DEVS (the mounts, "st-fs st-dax st-9p qemu-9p qemu-vfsd
# qemu-vfsd0"; st-auto too when named), LIMIT (s per guest; from the jobs
# and RUNTIME), BENCH_ARGS (more guest command-line words), MSIZE (9p,
# 512000), DAX (window, 256M), MEM (guest RAM, 512M),
# VMMS (stainless,qemu), GUEST_LOGLEVEL (4; a failed boot shows the
# console's last lines), MULTI (empty; N: the -multi mode below), CPUS
# (guest vCPUs: 1, or 2 in the -multi mode).
# The -multi mode (MULTI=N) answers the seeds' question whether 9p beat
# virtio-fs on their -multi jobs (4 fio processes on fio-file1..4) because
# of virtio-fs's single request queue: the files are laid out four times,
# the guests get CPUS (2) vCPUs, and stainless's columns are
#   st-fs-q1   --fs cache=never,queues=1   one request queue
#   st-fs-qN   --fs cache=never,queues=N   N request queues (a worker each)
#   st-9p      --9p msize=MSIZE
# (no DAX column); QEMU's columns are the same as above, on CPUS vCPUs. QEMU or VIRTIOFSD may be "-" (not available):
# their columns stay empty and a GUESTFIO-NOTE says why.
set -u
rounds=$1 kernel=$2 initrd=$3 stainless=$4 qemu=$5 virtiofsd=$6 first=${7:-1}
size_mb=${SIZE_MB:-64} runtime=${RUNTIME:-5} msize=${MSIZE:-512000}
dax=${DAX:-256M} mem=${MEM:-512M} vmms=$(echo "${VMMS:-stainless,qemu}" | tr ',' ' ') loglevel=${GUEST_LOGLEVEL:-4}
jobs=${GUEST_JOBS:-${JOBS:-randread-psync,randread-libaio,randwrite-psync,randwrite-libaio}}
multi=${MULTI:-} nfiles=1 cpus=${CPUS:-1}
[ -n "$multi" ] && cpus=${CPUS:-2}
case ,$jobs, in *-multi,*) nfiles=4 ;; esac
[ -n "$multi" ] && nfiles=4
njobs=$(echo "$jobs" | tr ',' '\n' | grep -c .)
devs=" $(echo "${DEVS:-st-fs st-dax st-9p qemu-9p qemu-vfsd qemu-vfsd0}" | tr , " ") "
share_mb=${SHARE_MB:-$((size_mb * (nfiles + 1) + 64))}
work=/tmp/guestfio
share=$work/share

say() { echo "GUESTFIO-NOTE $*"; }

mkdir -p "$share"
# Directly on a real host this mount is the machine's: never leave it.
trap 'umount "$share" 2>/dev/null' EXIT
trap 'exit 130' INT TERM HUP
mount -t tmpfs -o size=${share_mb}m guestfio "$share" || { say "cannot mount a tmpfs share"; exit 1; }
[ "$size_mb" -eq 0 ] || for f in $(seq "$nfiles"); do
	dd if=/dev/zero of="$share/fio-file$f" bs=1M count="$size_mb" 2>/dev/null || { say "cannot lay out fio-file$f"; exit 1; }
done

# picked NAME=SPEC...: those of the words whose NAME is in DEVS.
picked() {
	for w in "$@"; do
		case $devs in *" ${w%%=*} "*) echo "$w" ;; esac
	done
}

# rotate K A B C...: the words after K, starting at position K mod count.
rotate() {
	k=$1; shift
	n=$#; [ $n -gt 0 ] || return 0
	k=$((k % n)); i=0; out=
	for w in "$@"; do
		[ $i -ge $k ] && out="$out $w"
		i=$((i + 1))
	done
	i=0
	for w in "$@"; do
		[ $i -lt $k ] && out="$out $w"
		i=$((i + 1))
	done
	echo $out
}

# boot VMM ROUND MOUNTS LIMIT CMD...: runs one guest to its DONE line (or
# LIMIT seconds), then stops the VMM if it is still there; prints the guest's
# result lines and a GUESTBOOT summary. Fails when the guest did not finish.
boot() {
	vmm=$1 r=$2 mounts=$3 limit=$4; shift 4
	log=$work/$vmm.log
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" </dev/null >"$log" 2>&1 &
	pid=$!
	n=0
	while kill -0 "$pid" 2>/dev/null; do
		grep -q '^GUESTFIO-DONE' "$log" && break
		n=$((n + 1))
		[ $n -ge $((limit * 2)) ] && break
		# The guest's lines come at its end: a sign of life meanwhile, or
		# the e2e watchdog takes a long guest for a stalled test host.
		[ $((n % 120)) -eq 0 ] && echo "GUESTFIO-NOTE vmm=$vmm round=$r running for $((n / 2))s"
		sleep 0.5
	done
	# Give stainless its own reboot exit; QEMU's microvm is stopped here.
	for _ in 1 2 3 4 5 6; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	t1=$(cut -d' ' -f1 /proc/uptime)
	done_line=$(tr -d '\r' <"$log" | grep -m1 '^GUESTFIO-DONE')
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	if [ -n "$done_line" ]; then
		tr -d '\r' <"$log" | grep -E '^GUESTFIO' | grep -v '^GUESTFIO-DONE'
		# run --stats: each queue's request count, from stainless's exit.
		tr -d '\r' <"$log" | grep '^stainless run: stats:' | sed "s/^stainless run: stats: /GUESTSTATS round=$r /"
		echo "GUESTBOOT vmm=$vmm round=$r wall_s=$secs ${done_line#GUESTFIO-DONE vmm=$vmm round=$r }"
		return 0
	fi
	# Results of a guest that did not finish are shown, not counted.
	tr -d '\r' <"$log" | grep -E '^GUESTFIO' | sed 's/^GUESTFIO /GUESTFIO-PARTIAL /'
	echo "GUESTBOOT vmm=$vmm round=$r wall_s=$secs unfinished"
	tr -d '\r' <"$log" | grep -v '^GUESTFIO' | tail -n 25 | sed "s/^/GUESTFIO-LOG vmm=$vmm: /"
	return 1
}

# Where this KVM loses guests' XSETBV (the nested host's emulated SVM:
# tests/e2e/host-run says why), every guest, stainless's and QEMU's alike,
# boots with noxsave, as the e2e guests do.
xsave=
if [ -x /e2e/kvm-sanity ]; then
	timeout -s KILL 20 /e2e/kvm-sanity xsetbv >/dev/null 2>&1
	if [ $? -eq 2 ]; then
		xsave=" noxsave"
		echo "GUESTFIO-NOTE this KVM loses guests' XSETBV (kvm-sanity xsetbv); guests boot with noxsave"
	fi
fi

cmdline() { # VMM ROUND MOUNTS
	echo "console=ttyS0 reboot=k panic=-1$xsave loglevel=$loglevel bench.vmm=$1 bench.round=$2 bench.mounts=$3 bench.jobs=$jobs bench.size=${size_mb}M bench.runtime=$runtime bench.msize=$msize${BENCH_ARGS:+ $BENCH_ARGS}"
}

# Per guest: every job on every mount, plus boot and fio start-up.
limit=${LIMIT:-$((120 + njobs * 3 * (runtime + 40)))}

run_stainless() { # ROUND
	[ -n "$multi" ] && { run_stainless_multi "$1"; return; }
	m=$(rotate $(($1 - 1)) $(picked st-fs=virtiofs:fsnever st-auto=virtiofs:fsauto \
		st-dax=virtiofs-dax:fsdax st-9p=9p:p9) | tr ' ' ',')
	[ -n "$m" ] || return 0
	set -- "$1"
	for d in $(picked st-fs=fsnever,cache=never st-auto=fsauto,cache=auto \
		st-dax=fsdax,cache=always,dax=$dax); do
		d=${d#*=}
		set -- "$@" --fs "${d%%,*}=$share,${d#*,}"
	done
	[ -z "$(picked st-9p)" ] || set -- "$@" --9p "p9=$share,msize=$msize"
	r=$1; shift
	boot stainless "$r" "$m" "$limit" "$stainless" run --kernel "$kernel" --initrd "$initrd" \
		--mem "$mem" --cpus 1 --cmdline "$(cmdline stainless "$r" "$m")" --console stdio "$@"
}

# The same share three times in one guest: queues=1, queues=N and 9p.
run_stainless_multi() { # ROUND
	m=$(rotate $(($1 - 1)) st-fs-q1=virtiofs:fsq1 "st-fs-q$multi=virtiofs:fsq$multi" st-9p=9p:p9 | tr ' ' ',')
	boot stainless "$1" "$m" "$limit" "$stainless" run --kernel "$kernel" --initrd "$initrd" \
		--mem "$mem" --cpus "$cpus" --cmdline "$(cmdline stainless "$1" "$m")" --console stdio \
		--stats --fs "fsq1=$share,cache=never,queues=1" \
		--fs "fsq$multi=$share,cache=never,queues=$multi" --9p "p9=$share,msize=$msize"
}

# QEMU's microvm with acpi=off announces its virtio-mmio devices on the
# command line, as stainless does. Its virtio-mmio is the legacy (version 1)
# register layout unless told otherwise, which libvhost-user refuses
# ("virtio legacy devices aren't supported"); force-legacy=false gives
# version 2, the transport stainless has. Guest RAM is a shared memfd,
# which vhost-user needs (virtiofsd maps it). Each virtiofsd serves one
# connection and exits when QEMU goes.
run_qemu() { # ROUND
	vfsd_args= vfsd_mounts= pids=
	if [ "$virtiofsd" != - ]; then
		for p in 64 0; do
			if [ $p = 64 ]; then name=qemu-vfsd; else name=qemu-vfsd$p; fi
			case $devs in *" $name "*) ;; *) continue ;; esac
			sock=$work/vfsd$p.sock
			rm -f "$sock"
			MALLOC_ARENA_MAX=8 "$virtiofsd" --socket-path="$sock" -o source="$share" \
				-o cache=none --thread-pool-size=$p >"$work/vfsd$p.log" 2>&1 &
			pids="$pids $!"
			n=0
			while [ ! -S "$sock" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
			if [ ! -S "$sock" ]; then
				say "virtiofsd --thread-pool-size=$p did not start: $(tail -n 2 "$work/vfsd$p.log" | tr '\n' ' ')"
				continue
			fi
			vfsd_args="$vfsd_args -chardev socket,id=vfsd$p,path=$sock -device vhost-user-fs-device,chardev=vfsd$p,tag=vfsd$p"
			vfsd_mounts="$vfsd_mounts $name=virtiofs:vfsd$p"
		done
	fi
	m=$(rotate $(($1 - 1)) $(picked qemu-9p=9p:p9) $vfsd_mounts | tr ' ' ',')
	# shellcheck disable=SC2086 # vfsd_args is a word list
	boot qemu "$1" "$m" "$limit" "$qemu" -M microvm,acpi=off,memory-backend=mem \
		-global virtio-mmio.force-legacy=false -object "memory-backend-memfd,id=mem,size=$mem,share=on" \
		-enable-kvm -cpu host -smp "$cpus" -m "$mem" -nodefaults -no-user-config \
		-nographic -serial stdio -kernel "$kernel" -initrd "$initrd" \
		-append "$(cmdline qemu "$1" "$m")" \
		-fsdev "local,id=p9,path=$share,security_model=passthrough" \
		-device virtio-9p-device,fsdev=p9,mount_tag=p9 $vfsd_args
	rc=$?
	for p in $pids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	if [ $rc -ne 0 ]; then
		for p in 64 0; do
			[ -s "$work/vfsd$p.log" ] && tail -n 5 "$work/vfsd$p.log" | sed "s/^/GUESTFIO-LOG virtiofsd-$p: /"
		done
	fi
	return $rc
}

say "share: tmpfs, $nfiles fio file(s) of ${size_mb} MiB; guests: $cpus vCPU(s), $mem; $rounds rounds of $njobs jobs, ${runtime}s each"
[ "$qemu" = - ] && say "SKIP qemu: no qemu-system-x86_64 here"
[ "$virtiofsd" = - ] && say "SKIP qemu-vfsd: no virtiofsd (/usr/lib/qemu/virtiofsd, qemu-system-common)"
i=$first
while [ "$i" -le "$rounds" ]; do
	if [ $((i % 2)) -eq 1 ]; then order="stainless qemu"; else order="qemu stainless"; fi
	for v in $order; do
		case " $vmms " in *" $v "*) ;; *) continue ;; esac
		[ "$v" = qemu ] && [ "$qemu" = - ] && continue
		"run_$v" "$i" || { say "retrying $v round $i once"; "run_$v" "$i"; }
	done
	echo "GUESTROUND-DONE $i"
	i=$((i + 1))
done
