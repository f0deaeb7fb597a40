# SPDX-License-Identifier: GPL-2.0-only
# 9p: a host directory shared with --9p is mounted in the guest with
# -t 9p -o trans=virtio,version=9p2000.L; the guest reads a file the host put
# there, and what the guest creates is on the host afterwards.
CASE_ARGS="--9p share=$CASE_WORK/share"
CASE_TIMEOUT=120

case_setup() {
	mkdir -p "$CASE_WORK/share"
	echo "from the host" >"$CASE_WORK/share/host.txt"
}

case_guest() {
	virtio_find 0x0009 >/dev/null || fail "no virtio-9p device (id 0x0009) in /sys/bus/virtio/devices"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 share /mnt ||
		fail "mount -t 9p share /mnt failed"
	[ "$(cat /mnt/host.txt)" = "from the host" ] || fail "host.txt reads '$(cat /mnt/host.txt)'"
	echo "from the guest" >/mnt/guest.txt || fail "cannot create guest.txt"
	mkdir /mnt/guest-dir || fail "cannot mkdir guest-dir"
	ln -s guest.txt /mnt/guest-link || fail "cannot create a symlink"
	[ "$(cat /mnt/guest-link)" = "from the guest" ] || fail "the symlink does not read back"
	umount /mnt || fail "umount failed"
	echo "9p: mounted, read, wrote, unmounted"
}

case_check() {
	s=$CASE_WORK/share
	[ "$(cat "$s/guest.txt" 2>/dev/null)" = "from the guest" ] ||
		{ echo "guest.txt is not on the host"; return 1; }
	[ -d "$s/guest-dir" ] || { echo "guest-dir is not on the host"; return 1; }
	[ "$(readlink "$s/guest-link")" = guest.txt ] ||
		{ echo "guest-link is not a symlink to guest.txt on the host"; return 1; }
}
