#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# exec-inner.sh: the measuring half of `make bench-exec`, run where KVM can
# boot Linux (inside the nested test host here, or directly on real KVM).
# The same guest kernel runs the same command, `echo EXEC-MARKER`, with a
# busybox root over virtio-fs (cache=always both):
#  - stainless: `stainless exec ROOT -- sh -c 'echo EXEC-MARKER; sleep 2'`,
#    one process tree (relay, VMM, its sandbox), the marker on exec's stdout;
#  - qemu: QEMU -M microvm with vhost-user-fs-device, served by
#    `stainless vhost-user-fs` (no virtiofsd in the test host), and a busybox
#    initramfs whose init mounts the share, switch_roots into it and runs
#    the same command on the console.
# Time: from the start of the first process to the marker (the command's
# first output, right after its first instruction), polled every 10 ms.
# Memory at the marker, each process of the VMM's tree: VmHWM (peak RSS,
# guest RAM touched included: both map it from a shared memfd) and RssAnon
# + RssFile (the VMM's own, without guest RAM). Rounds interleave, the
# order flips every round. One BENCHEXEC line per run.
#
#   exec-inner.sh ROUNDS KERNEL STAINLESS QEMU QEMU_INITRD [EXTRA_CMDLINE]
set -u
rounds=$1 kernel=$2 stainless=$3 qemu=$4 qinit=$5 extra=${6:-}
w=$(mktemp -d)
root=$w/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/newroot"
cp /bin/busybox "$root/bin/busybox"
for app in $("$root/bin/busybox" --list); do
	[ "$app" = busybox ] || ln -s busybox "$root/bin/$app"
done

now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

# wait_marker FILE PID: 0 once FILE has the marker, 1 if PID ended first or 120 s passed.
wait_marker() {
	polls=0
	while ! grep -q EXEC-MARKER "$1" 2>/dev/null; do
		kill -0 "$2" 2>/dev/null || return 1
		polls=$((polls + 1))
		[ $polls -lt 12000 ] || return 1
		sleep 0.01
	done
}

# mem PID...: hwm_kib= and own_kib= summed over the pids.
mem() {
	hwm=0 own=0
	for p in "$@"; do
		s=/proc/$p/status
		[ -r "$s" ] || continue
		h=$(awk '/^VmHWM:/ { print $2 }' "$s")
		o=$(awk '/^RssAnon:|^RssFile:/ { n += $2 } END { print n + 0 }' "$s")
		hwm=$((hwm + ${h:-0}))
		own=$((own + ${o:-0}))
	done
	echo "hwm_kib=$hwm own_kib=$own"
}

# The pids of a tree: root and its descendants.
tree() {
	echo "$1"
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		tree "$c"
	done
}

run_stainless() {
	t0=$(now_ms)
	"$stainless" exec --kernel "$kernel" --mem 256M ${extra:+--cmdline "$extra"} "$root" -- \
		sh -c 'echo EXEC-MARKER; sleep 2' </dev/null >"$w/out" 2>"$w/err" &
	pid=$!
	if wait_marker "$w/out" "$pid"; then
		t=$(( $(now_ms) - t0 ))
		m=$(mem $(tree "$pid"))
		n=$(tree "$pid" | wc -l)
		wait "$pid"
		echo "BENCHEXEC vmm=stainless round=$1 marker_ms=$t $m procs=$n rc=$?"
	else
		wait "$pid"
		echo "BENCHEXEC vmm=stainless round=$1 failed rc=$? $(tail -n 1 "$w/err")"
	fi
}

run_qemu() {
	rm -f "$w/vfs.sock"
	t0=$(now_ms)
	"$stainless" vhost-user-fs --socket-path "$w/vfs.sock" --shared-dir "$root" --cache always \
		--log-level error </dev/null >/dev/null 2>"$w/vfs.err" &
	vfs=$!
	polls=0
	while [ ! -S "$w/vfs.sock" ] && [ $polls -lt 1000 ]; do sleep 0.01; polls=$((polls + 1)); done
	"$qemu" -M microvm,acpi=off,memory-backend=mem \
		-object memory-backend-memfd,id=mem,size=256M,share=on \
		-enable-kvm -cpu host -smp 1 -m 256M -nodefaults -no-user-config -nographic \
		-serial stdio -kernel "$kernel" -initrd "$qinit" \
		-append "console=ttyS0 quiet loglevel=1 reboot=k panic=-1${extra:+ $extra}" \
		-chardev socket,id=vfs,path="$w/vfs.sock" -device vhost-user-fs-device,chardev=vfs,tag=root \
		</dev/null >"$w/qout" 2>&1 &
	pid=$!
	if wait_marker "$w/qout" "$pid"; then
		t=$(( $(now_ms) - t0 ))
		m=$(mem $(tree "$pid") $(tree "$vfs"))
		echo "BENCHEXEC vmm=qemu round=$1 marker_ms=$t $m procs=$(( $(tree "$pid" | wc -l) + $(tree "$vfs" | wc -l) ))"
	else
		echo "BENCHEXEC vmm=qemu round=$1 failed $(tr -d '\r' <"$w/qout" | tail -n 1)"
	fi
	kill "$pid" "$vfs" 2>/dev/null
	wait "$pid" "$vfs" 2>/dev/null
}

i=1
while [ "$i" -le "$rounds" ]; do
	if [ $((i % 2)) -eq 1 ]; then order="stainless qemu"; else order="qemu stainless"; fi
	for v in $order; do
		if [ "$v" = qemu ] && [ -z "$qemu" ]; then
			echo "BENCHEXEC vmm=qemu round=$i skipped (no qemu-system-x86_64 here)"
			continue
		fi
		"run_$v" "$i"
	done
	i=$((i + 1))
done
rm -rf "$w"
