# SPDX-License-Identifier: GPL-2.0-only
# rng: with --rng the guest finds a virtio entropy device (virtio device id 4)
# on virtio-mmio, the virtio_rng driver binds to it, /dev/hwrng returns
# bytes that are not all zero, and it still does after the driver is
# unbound and bound again (a device reset).
CASE_ARGS="--rng"
CASE_TIMEOUT=120

case_guest() {
	d=$(virtio_find 0x0004) || fail "no virtio device with id 0x0004 in /sys/bus/virtio/devices ($(ls /sys/bus/virtio/devices 2>/dev/null | tr '\n' ' '))"
	[ -e "$d/driver" ] || fail "$d has no driver bound"
	cur=$(cat /sys/class/misc/hw_random/rng_current 2>/dev/null)
	case $cur in
	virtio_rng*) ;;
	*) fail "hw_random uses '$cur', want virtio_rng.N" ;;
	esac
	# The read blocks if the device never answers; bound it.
	n=$(timeout 10 dd if=/dev/hwrng bs=64 count=1 2>/dev/null | wc -c)
	[ "$n" -eq 64 ] || fail "read $n bytes from /dev/hwrng, want 64"
	nz=$(timeout 10 dd if=/dev/hwrng bs=64 count=1 2>/dev/null | od -An -v -tx1 | tr -s ' \n' '\n\n' | grep -vc '^00$\|^$')
	[ "$nz" -gt 0 ] || fail "64 bytes from /dev/hwrng were all zero"
	# Unbinding resets the device (status 0: workers stop, queues are
	# forgotten); binding again must negotiate afresh and serve again.
	dev=$(basename "$d") drv=/sys/bus/virtio/drivers/virtio_rng
	echo "$dev" >"$drv/unbind" || fail "cannot unbind $dev from virtio_rng"
	[ -e "$d/driver" ] && fail "$dev still has a driver after unbind"
	echo "$dev" >"$drv/bind" || fail "cannot bind $dev to virtio_rng again"
	[ -e "$d/driver" ] || fail "$dev has no driver after bind"
	n=$(timeout 10 dd if=/dev/hwrng bs=64 count=1 2>/dev/null | wc -c)
	[ "$n" -eq 64 ] || fail "after unbind/bind read $n bytes from /dev/hwrng, want 64"
	echo "rng: $cur gave 64 bytes, and again after a driver unbind/bind"
}
