# SPDX-License-Identifier: GPL-2.0-only
# fs-never: the whole share battery (tests/e2e/fsbattery.c: files, dirs,
# renameat2, links, attributes, xattrs, mmap, 10,000-entry readdir, sparse
# files, O_TMPFILE, fallocate, a 64 MiB checksummed file, escapes, host-held
# locks) over virtio-fs with cache=never and xattr; the host then checks
# what the guest left. Shares its boot with fs-auto and p9.
. "${E2E_DIR:-}/cases/share-lib.inc"
CASE_BOOT=shares
CASE_ARGS="--fs never=$CASE_WORK/share,cache=never,xattr"
CASE_TIMEOUT=240

case_setup() {
	share_setup "$CASE_WORK/share" xattr && holder_start "$CASE_WORK/share"
}

case_cleanup() {
	share_cleanup "$CASE_WORK/share"
}

case_guest() {
	mkdir -p /mnt/never
	mount -t virtiofs never /mnt/never || fail "mount -t virtiofs never failed"
	[ "$(cat /mnt/never/host.txt)" = "from the host" ] || fail "host.txt does not read back"
	# cache=never opens files with FOPEN_DIRECT_IO; shared mmap still works
	# (DIRECT_IO_ALLOW_MMAP) and its writes reach the host (share_check).
	battery /mnt/never virtiofs --xattr --mmap all
	umount /mnt/never || fail "umount failed"
}

case_check() {
	share_check "$CASE_WORK/share" virtiofs --xattr --mmap || return 1
	echo "fs-never: battery passed in the guest; the host sees its files, xattrs, 64 MiB checksum; secret untouched; locks held and released (shared boot: ${GUEST_SECS}s)"
}
