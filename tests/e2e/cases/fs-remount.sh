# SPDX-License-Identifier: GPL-2.0-only
# fs-remount: one boot mounts a virtio-fs share, unmounts it (FUSE_DESTROY)
# and mounts it again (a second FUSE_INIT on the same device), then unbinds
# the virtiofs driver from the device and binds it again -- a device reset
# and a fresh set-up of the queues -- and mounts and uses it a third time.
# Shares its boot with fs-readonly and p9-readonly (it rebinds every
# virtio-fs device, after fs-readonly is done with its own).
. "${E2E_DIR:-}/cases/share-lib.inc"
CASE_BOOT=shares2
CASE_ARGS="--fs rm=$CASE_WORK/share"
CASE_TIMEOUT=120

case_setup() {
	mkdir -p "$CASE_WORK/share"
}

case_guest() {
	m=/mnt/rm
	mkdir -p $m
	mount -t virtiofs rm $m || fail "first mount failed"
	echo one >$m/one || fail "cannot write on the first mount"
	umount $m || fail "first umount failed"
	mount -t virtiofs rm $m || fail "second mount (after umount) failed"
	[ "$(cat $m/one)" = one ] || fail "the second mount does not see the first one's file"
	echo two >$m/two || fail "cannot write on the second mount"
	umount $m || fail "second umount failed"
	virtio_rebind virtiofs
	mount -t virtiofs rm $m || fail "mount after the rebind failed"
	[ "$(cat $m/two)" = two ] || fail "after the rebind, two does not read back"
	battery $m virtiofs files dirs links symlinks
	echo three >$m/three || fail "cannot write after the rebind"
	umount $m || fail "third umount failed"
	echo "fs-remount: mount/umount/mount and an unbind/bind reset all worked"
}

case_check() {
	s=$CASE_WORK/share
	for f in one two three; do
		[ "$(cat "$s/$f" 2>/dev/null)" = $f ] || { echo "$f is not on the host"; return 1; }
	done
	[ -f "$s/keep/file.txt" ] || { echo "the battery's files are not on the host"; return 1; }
	echo "fs-remount: three mounts and a device rebind in one boot; the host sees every write (shared boot: ${GUEST_SECS}s)"
}
