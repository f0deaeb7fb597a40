#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# vhost_user_qemu: a vhost-user frontend no one here wrote drives
# `stainless vhost-user-fs`. Debian's qemu-system-x86_64 (TCG, no KVM
# needed) boots the project's guest kernel with its RAM in a shared memfd
# and a vhost-user-fs-pci device on the backend's socket; the guest mounts
# the share with -t virtiofs and runs the whole virtio-fs share battery
# (tests/e2e/fsbattery*.c, the one the e2e fs-auto case runs over the
# in-VMM device) with cache=auto and shared mmap. Then, on the host: what
# the guest left is verified (fsbattery verify), the secret beside the
# share is untouched, the host's lock holder saw the guest ask for its
# locks, and the backend exited 0 by itself when QEMU went away.
# Between the two, the guest mounts the share again and reboots with it
# still mounted (`reboot -f`, no unmount): QEMU stops and restarts the
# rings without a word to the backend, and the rebooted guest's new mount
# must work (a new FUSE session) -- it reads a battery file and writes one.
# VU_QUEUES=N: the device with num-request-queues=N and N vCPUs, so the
# guest (Linux >= 6.11) spreads its requests over N request rings and the
# reboot restarts all of them (the backend offers 16).
# The backend is started as QEMU's and libvirt's tooling finds one: from
# the installed vhost-user descriptor (make install PREFIX=/usr into a
# temp DESTDIR; its "binary", the stainless-virtiofsd link, run with
# virtiofsd's options); VU_DESCRIPTOR=none runs `stainless vhost-user-fs`
# directly, VU_DESCRIPTOR=FILE another descriptor's binary.
# SKIP (77) only when QEMU or the guest kernel cannot be had.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
QEMU=$(command -v qemu-system-x86_64) || { echo "SKIP: qemu-system-x86_64 not installed"; exit 77; }
KERNEL=${GUEST_KERNEL:-$("$TOP/guest-images/build-kernel" 2>/dev/null)} ||
	{ echo "SKIP: no guest kernel (guest-images/build-kernel failed; linux-source missing?)"; exit 77; }
[ -r "$KERNEL" ] || { echo "SKIP: guest kernel $KERNEL unreadable"; exit 77; }
FSBATTERY=$("$TOP/tests/e2e/build-fsbattery") || { echo "FAIL: cannot build the share battery"; exit 1; }

VU_QUEUES=${VU_QUEUES:-1}
W=$(mktemp -d /tmp/vhost_qemu.XXXXXX)
CASE_WORK=$W
E2E_DIR=$TOP/tests/e2e
export FSBATTERY
backend=
cleanup() {
	[ -n "$backend" ] && kill "$backend" 2>/dev/null
	share_cleanup "$W/share" >/dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT
[ -n "${VHOST_QEMU_KEEP:-}" ] && trap - EXIT
# shellcheck source=../e2e/cases/share-lib.inc
. "$E2E_DIR/cases/share-lib.inc"

share_setup "$W/share" >"$W/setup.log" 2>&1 || { cat "$W/setup.log"; echo "FAIL: share set-up"; exit 1; }
holder_start "$W/share" || { echo "FAIL: lock holder"; exit 1; }

cat >"$W/init" <<'INIT'
#!/bin/sh
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mkdir -p /mnt/share
run() {
	grep -q 0x001a /sys/bus/virtio/devices/*/device 2>/dev/null ||
		{ echo "no virtio-fs device (PCI) in the guest"; return 1; }
	mount -t virtiofs share /mnt/share || { echo "mount -t virtiofs share failed"; return 1; }
	[ "$(cat /mnt/share/host.txt)" = "from the host" ] || { echo "host.txt does not read back"; return 1; }
	fsbattery guest /mnt/share virtiofs --mmap all || return 1
	umount /mnt/share || { echo "umount failed"; return 1; }
}
# After the unclean reboot: the marker says so; the share must serve.
after_reboot() {
	rm /mnt/share/vhost-reboot-marker || return 1
	[ "$(cat /mnt/share/host.txt)" = "from the host" ] || { echo "host.txt after the reboot"; return 1; }
	echo written >/mnt/share/after-reboot && [ "$(cat /mnt/share/after-reboot)" = written ] &&
		rm /mnt/share/after-reboot || { echo "no write after the reboot"; return 1; }
	umount /mnt/share
}
if mount -t virtiofs share /mnt/share 2>/dev/null && [ -e /mnt/share/vhost-reboot-marker ]; then
	after_reboot </dev/console >/dev/console 2>&1
	echo "VHOST-QEMU-REBOOT $?"
	echo "VHOST-QEMU-DONE"
	while :; do sleep 3600; done
fi
umount /mnt/share 2>/dev/null
run </dev/console >/dev/console 2>&1
rc=$?
echo "VHOST-QEMU-RESULT $rc"
# Reboot with the share mounted: the next boot's driver starts afresh.
[ $rc = 0 ] && mount -t virtiofs share /mnt/share && : >/mnt/share/vhost-reboot-marker
sync
reboot -f
while :; do sleep 3600; done
INIT
INITRD=$("$TOP/guest-images/build-initramfs" --name vhost-qemu --init "$W/init" \
	--file "$FSBATTERY:/bin/fsbattery:0755" 2>"$W/initramfs.log") ||
	{ cat "$W/initramfs.log"; echo "FAIL: guest initramfs"; exit 1; }

# The descriptor's "binary", as libvirt reads it (type fs, the first found).
VU_DESCRIPTOR=${VU_DESCRIPTOR:-installed}
DEST=
case $VU_DESCRIPTOR in
none) BACKEND="$STAINLESS vhost-user-fs" ;;
*)
	if [ "$VU_DESCRIPTOR" = installed ]; then
		DEST=$W/dest
		make -s -C "$TOP" O="$(dirname "${STAINLESS_REAL:-$STAINLESS}")" PREFIX=/usr DESTDIR="$DEST" install >"$W/install.log" 2>&1 ||
			{ cat "$W/install.log"; echo "FAIL: make install"; exit 1; }
		VU_DESCRIPTOR=$DEST/usr/share/qemu/vhost-user/50-stainless-virtiofsd.json
	fi
	grep -q '"type": *"fs"' "$VU_DESCRIPTOR" || { echo "FAIL: $VU_DESCRIPTOR is not of type fs"; exit 1; }
	bin=$(sed -n 's/.*"binary": *"\([^"]*\)".*/\1/p' "$VU_DESCRIPTOR")
	[ -n "$bin" ] || { echo "FAIL: no binary in $VU_DESCRIPTOR"; exit 1; }
	BACKEND=$DEST$bin
	"$BACKEND" --print-capabilities | grep -q '"type": *"fs"' ||
		{ echo "FAIL: $BACKEND --print-capabilities"; exit 1; }
	;;
esac
SOCK=$W/vhost-fs.sock
# shellcheck disable=SC2086  # BACKEND: a command and its leading words
$BACKEND --socket-path="$SOCK" --shared-dir="$W/share" --cache=auto \
	--thread-pool-size=1 --sandbox=none --seccomp=none >"$W/backend.log" 2>&1 &
backend=$!
n=0
while [ ! -S "$SOCK" ]; do
	n=$((n + 1))
	kill -0 "$backend" 2>/dev/null && [ $n -lt 100 ] ||
		{ cat "$W/backend.log"; echo "FAIL: the backend did not listen on $SOCK"; exit 1; }
	sleep 0.1
done

start=$(date +%s)
# No -no-reboot: the guest reboots once; it ends QEMU by its DONE line.
"$QEMU" -M q35 -accel tcg -cpu max -m 512 -smp "$VU_QUEUES" \
	-nodefaults -no-user-config -nographic -serial stdio \
	-object memory-backend-memfd,id=mem,size=512M,share=on -numa node,memdev=mem \
	-chardev socket,id=fs0,path="$SOCK" -device vhost-user-fs-pci,chardev=fs0,tag=share,num-request-queues="$VU_QUEUES" \
	-kernel "$KERNEL" -initrd "$INITRD" \
	-append "console=ttyS0 panic=-1 rdinit=/init quiet" </dev/null >"$W/console" 2>&1 &
qemu=$!
limit=$(( start + ${VHOST_QEMU_TIMEOUT:-900} ))
while kill -0 $qemu 2>/dev/null; do
	grep -q -a -E 'VHOST-QEMU-DONE|VHOST-QEMU-RESULT [1-9]' "$W/console" && break
	[ "$(grep -a -c 'VHOST-QEMU-RESULT' "$W/console")" -ge 2 ] && break   # no marker seen
	[ "$(date +%s)" -ge $limit ] && break
	sleep 1
done
kill $qemu 2>/dev/null
wait $qemu
qrc=$?
secs=$(( $(date +%s) - start ))

# QEMU gone, the backend must leave by itself, and cleanly.
n=0
while kill -0 "$backend" 2>/dev/null && [ $n -lt 50 ]; do n=$((n + 1)); sleep 0.1; done
if kill -0 "$backend" 2>/dev/null; then
	echo "FAIL: the backend still runs after its frontend left"; exit 1
fi
wait "$backend"; brc=$?
backend=
rc=$(sed -n 's/.*VHOST-QEMU-RESULT \([0-9]*\).*/\1/p' "$W/console" | tail -n 1)
if [ "$rc" != 0 ]; then
	grep -v '^\s*$' "$W/console" | tail -n 40
	echo "--- backend:"; tail -n 20 "$W/backend.log"
	echo "FAIL: the guest battery ${rc:+exited $rc}${rc:-never reported (QEMU exit $qrc)}"
	exit 1
fi
reboot=$(sed -n 's/.*VHOST-QEMU-REBOOT \([0-9]*\).*/\1/p' "$W/console" | tail -n 1)
if [ "$reboot" != 0 ]; then
	grep -v '^\s*$' "$W/console" | tail -n 20
	echo "--- backend:"; tail -n 20 "$W/backend.log"
	echo "FAIL: after an unclean guest reboot the share does not serve${reboot:+ (exit $reboot)}"
	exit 1
fi
[ $brc -eq 0 ] || { tail -n 20 "$W/backend.log"; echo "FAIL: the backend exited $brc"; exit 1; }
out=$(share_check "$W/share" virtiofs --mmap 2>&1) || { echo "$out"; echo "FAIL: host-side check"; exit 1; }
summary=$(sed -n 's/.*ok battery: \(.*\)$/\1/p' "$W/console" | tr -d '\r' | tail -n 1)
echo "PASS (QEMU $("$QEMU" --version | sed -n '1s/.*version \([^ ]*\).*/\1/p') vhost-user-fs-pci, $VU_QUEUES request queue(s) -> ${bin:-stainless vhost-user-fs}${bin:+ (from the installed descriptor)}: battery: $summary, ${secs}s in all; unclean reboot served; host verify, secret, locks ok; backend exited 0)"
