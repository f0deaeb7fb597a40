# SPDX-License-Identifier: GPL-2.0-only
# virtiofs: a host directory shared with --fs is mounted in the guest with
# -t virtiofs; the guest reads a file the host put there, and what the guest
# creates (a file, a directory, a symlink) is on the host afterwards.
CASE_ARGS="--fs share=$CASE_WORK/share"
CASE_TIMEOUT=120

case_setup() {
	mkdir -p "$CASE_WORK/share"
	echo "from the host" >"$CASE_WORK/share/host.txt"
}

case_guest() {
	virtio_find 0x001a >/dev/null || fail "no virtio-fs device (id 0x001a) in /sys/bus/virtio/devices"
	mount -t virtiofs share /mnt || fail "mount -t virtiofs share /mnt failed"
	[ "$(cat /mnt/host.txt)" = "from the host" ] || fail "host.txt reads '$(cat /mnt/host.txt)'"
	echo "from the guest" >/mnt/guest.txt || fail "cannot create guest.txt"
	mkdir /mnt/guest-dir || fail "cannot mkdir guest-dir"
	ln -s guest.txt /mnt/guest-link || fail "cannot create a symlink"
	[ "$(cat /mnt/guest-link)" = "from the guest" ] || fail "the symlink does not read back"
	umount /mnt || fail "umount failed"
	echo "virtiofs: mounted, read, wrote, unmounted"
}

case_check() {
	s=$CASE_WORK/share
	[ "$(cat "$s/guest.txt" 2>/dev/null)" = "from the guest" ] ||
		{ echo "guest.txt is not on the host"; return 1; }
	[ -d "$s/guest-dir" ] || { echo "guest-dir is not on the host"; return 1; }
	[ "$(readlink "$s/guest-link")" = guest.txt ] ||
		{ echo "guest-link is not a symlink to guest.txt on the host"; return 1; }
}
