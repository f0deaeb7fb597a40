#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dax-inner.sh: the measuring half of `make bench-dax`, run where KVM boots
# Linux (inside the nested test host here, or directly on real KVM as
# root). One tmpfs share holds tree/ (NFILES files of 4 KiB, 100 a
# directory), big (BIG_MB MiB) and mem/ (MEM_MB MiB in 4 files).
#
# Speed, ROUNDS rounds: one guest with the share three times, one device
# each, mounted in an order that rotates every round:
#   st-dax    --fs cache=always,dax=DAX               mount -o dax (always)
#   st-daxi   --fs cache=always,dax=DAX,dax=inode     mount -o dax=inode
#   st-nodax  --fs cache=always                       mount (no window)
# and the jobs walk and bigread of bench/guest-dax.sh on each, cold guest
# cache each time. The VMM's --stats line (dax-maps=) comes back as
# GUESTSTATS.
#
# Memory, MEMROUNDS rounds (the order of the two flips each round):
# GUESTS guests at once, each with the share once (st-dax, then
# st-nodax), each reading all of mem/ and waiting; once every one has
# read (or LIMIT s), the host's /proc/meminfo and each VMM's
# /proc/PID/smaps_rollup are read, and the VMMs stopped (by their pids):
#   GUESTMEM round= dev= guests= read= rss_mib= pss_mib= shmem_grow_mib= avail_drop_mib=
# rss/pss: summed over the VMMs; shmem_grow and avail_drop: the host's
# Shmem growth and MemAvailable drop since before the guests booted (the
# share is tmpfs, so its pages are Shmem from the start and do not count).
#
#   dax-inner.sh ROUNDS KERNEL INITRD STAINLESS
# Environment: NFILES (5000), BIG_MB (128), MEM_MB (256), GUESTS (4), MEM
# (guest RAM, 512M), DAX (window, 256M), MEMROUNDS (1), LIMIT (s a guest
# may take, 900), GUEST_LOGLEVEL (4).
set -u
rounds=$1 kernel=$2 initrd=$3 stainless=$4
nfiles=${NFILES:-5000} big_mb=${BIG_MB:-128} mem_mb=${MEM_MB:-256} guests=${GUESTS:-4}
mem=${MEM:-512M} dax=${DAX:-256M} memrounds=${MEMROUNDS:-1} limit=${LIMIT:-900}
loglevel=${GUEST_LOGLEVEL:-4}
work=/tmp/daxbench share=/tmp/daxbench/share
say() { echo "GUESTFIO-NOTE $*"; }

mkdir -p "$share"
trap 'umount "$share" 2>/dev/null' EXIT
trap 'exit 130' INT TERM HUP
mount -t tmpfs -o size=$((big_mb + mem_mb + nfiles / 64 + 64))m daxshare "$share" ||
	{ say "cannot mount a tmpfs share"; exit 1; }
# One awk writes every file (busybox has no split; each fork is slow under TCG).
i=0
while [ $((i * 100)) -lt "$nfiles" ]; do mkdir -p "$share/tree/d$i" || exit 1; i=$((i + 1)); done
awk -v n="$nfiles" -v d="$share/tree" 'BEGIN { s = "0123456789abcdef"
	while (length(s) < 4096) s = s s
	for (i = 0; i < n; i++) { f = d "/d" int(i / 100) "/f" i; printf "%s", s > f; close(f) } }' ||
	{ say "cannot lay out tree/"; exit 1; }
dd if=/dev/urandom of="$share/big" bs=1M count="$big_mb" 2>/dev/null || { say "cannot lay out big"; exit 1; }
mkdir -p "$share/mem"
for f in 1 2 3 4; do
	dd if=/dev/urandom of="$share/mem/m$f" bs=1M count=$((mem_mb / 4)) 2>/dev/null ||
		{ say "cannot lay out mem/m$f"; exit 1; }
done
say "share: tmpfs; tree/ $(find "$share/tree" -type f | wc -l) files of 4 KiB, big ${big_mb} MiB, mem/ ${mem_mb} MiB"

xsave=
if [ -x /e2e/kvm-sanity ]; then
	timeout -s KILL 20 /e2e/kvm-sanity xsetbv >/dev/null 2>&1
	[ $? -eq 2 ] && xsave=" noxsave" && say "this KVM loses guests' XSETBV; guests boot with noxsave"
fi

cmdline() { # ROUND MOUNTS JOBS
	echo "console=ttyS0 reboot=k panic=-1$xsave loglevel=$loglevel bench.vmm=stainless bench.round=$1 bench.mounts=$2 bench.jobs=$3"
}

# guest LOG ROUND MOUNTS JOBS FS-ARGS...: one stainless guest in the background; its pid in $!.
guest() {
	log=$1 r=$2 m=$3 j=$4; shift 4
	"$stainless" run --kernel "$kernel" --initrd "$initrd" --mem "$mem" --cpus 1 --stats \
		--cmdline "$(cmdline "$r" "$m" "$j")" --console stdio "$@" </dev/null >"$log" 2>&1 &
}

# wait_for LOG... : until every log has GUESTFIO-DONE or GUESTDAX-READ (or LIMIT s); prints how many did.
wait_for() {
	t=0
	while :; do
		k=0
		for l in "$@"; do grep -qE '^GUEST(FIO-DONE|DAX-READ)' "$l" 2>/dev/null && k=$((k + 1)); done
		[ $k -eq $# ] || [ $t -ge $((limit * 2)) ] && break
		t=$((t + 1))
		[ $((t % 120)) -eq 0 ] && say "guests running for $((t / 2))s, $k of $# done" >&2
		sleep 0.5
	done
	echo "$k"
}

speed_round() { # ROUND
	r=$1 log=$work/speed.log
	set -- st-dax=virtiofs-dax:fsdax st-daxi=virtiofs-daxi:fsdaxi st-nodax=virtiofs:fsnodax
	k=$(( (r - 1) % 3 )); while [ $k -gt 0 ]; do w=$1; shift; set -- "$@" "$w"; k=$((k - 1)); done
	m=$(echo "$@" | tr ' ' ',')
	guest "$log" "$r" "$m" walk,bigread --fs "fsdax=$share,cache=always,dax=$dax" \
		--fs "fsdaxi=$share,cache=always,dax=$dax,dax=inode" --fs "fsnodax=$share,cache=always"
	pid=$!
	[ "$(wait_for "$log")" = 1 ] || say "speed round $r: the guest did not finish in ${limit}s"
	for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	tr -d '\r' <"$log" | grep -E '^GUESTFIO' | grep -v '^GUESTFIO-DONE'
	tr -d '\r' <"$log" | grep '^stainless run: stats:' | sed "s/^stainless run: stats: /GUESTSTATS round=$r /"
	grep -q '^GUESTFIO-DONE' "$log" || tr -d '\r' <"$log" | tail -n 15 | sed 's/^/GUESTFIO-LOG: /'
}

meminfo() { awk -v k="$1:" '$1 == k { print int($2 / 1024) }' /proc/meminfo; }

# smaps_sum FIELD PID...: FIELD (Rss, Pss) of each VMM, MiB, summed.
smaps_sum() {
	f=$1; shift
	for p in "$@"; do cat "/proc/$p/smaps_rollup" 2>/dev/null; done |
		awk -v k="$f:" '$1 == k { s += $2 } END { printf "%d", s / 1024 }'
}

mem_one() { # ROUND DEV
	r=$1 dev=$2 pids= logs=
	case $dev in
	st-dax) fs="fsm=$share,cache=always,dax=$dax" kind=virtiofs-dax ;;
	*) fs="fsm=$share,cache=always" kind=virtiofs ;;
	esac
	sync; echo 3 >/proc/sys/vm/drop_caches
	shmem0=$(meminfo Shmem) avail0=$(meminfo MemAvailable)
	g=1
	while [ $g -le "$guests" ]; do
		guest "$work/mem$g.log" "$r" "$dev=$kind:fsm" memread --fs "$fs"
		pids="$pids $!" logs="$logs $work/mem$g.log"
		g=$((g + 1))
	done
	# shellcheck disable=SC2086 # word lists
	read_n=$(wait_for $logs)
	sleep 2
	# shellcheck disable=SC2086
	echo "GUESTMEM round=$r dev=$dev guests=$guests read=$read_n rss_mib=$(smaps_sum Rss $pids)" \
		"pss_mib=$(smaps_sum Pss $pids) shmem_grow_mib=$(( $(meminfo Shmem) - shmem0 ))" \
		"avail_drop_mib=$(( avail0 - $(meminfo MemAvailable) ))"
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	# shellcheck disable=SC2086
	[ "$read_n" = "$guests" ] || for l in $logs; do
		grep -q '^GUESTDAX-READ' "$l" || tr -d '\r' <"$l" | tail -n 8 | sed "s/^/GUESTFIO-LOG $dev: /"
	done
}

i=1
while [ $i -le "$rounds" ]; do
	speed_round "$i"
	echo "GUESTROUND-DONE $i"
	i=$((i + 1))
done
i=1
while [ $i -le "$memrounds" ]; do
	if [ $((i % 2)) -eq 1 ]; then order="st-dax st-nodax"; else order="st-nodax st-dax"; fi
	for d in $order; do mem_one "$i" "$d"; done
	i=$((i + 1))
done
echo "GUESTDAX-END"
