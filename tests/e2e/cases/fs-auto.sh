# SPDX-License-Identifier: GPL-2.0-only
# fs-auto: the whole share battery over virtio-fs with cache=auto and no
# xattr (xattr calls must fail with EOPNOTSUPP, and shared mmap must work
# through the page cache). Shares its boot with fs-never and p9.
. "${E2E_DIR:-}/cases/share-lib.inc"
CASE_BOOT=shares
CASE_ARGS="--fs auto=$CASE_WORK/share,cache=auto"
CASE_TIMEOUT=240

case_setup() {
	share_setup "$CASE_WORK/share" && holder_start "$CASE_WORK/share"
}

case_cleanup() {
	share_cleanup "$CASE_WORK/share"
}

case_guest() {
	mkdir -p /mnt/auto
	mount -t virtiofs auto /mnt/auto || fail "mount -t virtiofs auto failed"
	[ "$(cat /mnt/auto/host.txt)" = "from the host" ] || fail "host.txt does not read back"
	battery /mnt/auto virtiofs --mmap all
	umount /mnt/auto || fail "umount failed"
}

case_check() {
	share_check "$CASE_WORK/share" virtiofs --mmap || return 1
	echo "fs-auto: battery passed in the guest; the host sees its files, no xattrs, mmap data, 64 MiB checksum; secret untouched; locks held and released (shared boot: ${GUEST_SECS}s)"
}
