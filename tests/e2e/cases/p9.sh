# SPDX-License-Identifier: GPL-2.0-only
# p9: the whole share battery over virtio-9p (9P2000.L, msize=512000),
# where Linux's 9p client answers for itself in places (no renameat2 flags,
# O_TMPFILE, fallocate or SEEK_HOLE; flock becomes a POSIX lock on the
# server; shared mmap only with cache=mmap) -- the battery asserts those
# answers. Then the device is unbound and bound again (a reset) and the
# share is mounted with cache=mmap for the shared-mmap test. Shares its boot
# with fs-never and fs-auto.
. "${E2E_DIR:-}/cases/share-lib.inc"
CASE_BOOT=shares
CASE_ARGS="--9p p9=$CASE_WORK/share,msize=512000"
CASE_TIMEOUT=240
P9_OPTS=trans=virtio,version=9p2000.L,msize=512000

case_setup() {
	share_setup "$CASE_WORK/share" xattr && holder_start "$CASE_WORK/share"
}

case_cleanup() {
	share_cleanup "$CASE_WORK/share"
}

case_guest() {
	mkdir -p /mnt/p9
	mount -t 9p -o "$P9_OPTS" p9 /mnt/p9 || fail "mount -t 9p p9 failed"
	[ "$(cat /mnt/p9/host.txt)" = "from the host" ] || fail "host.txt does not read back"
	battery /mnt/p9 9p all
	umount /mnt/p9 || fail "umount failed"
	virtio_rebind 9pnet_virtio p9
	mount -t 9p -o "$P9_OPTS,cache=mmap" p9 /mnt/p9 || fail "mount after rebind (cache=mmap) failed"
	[ "$(cat /mnt/p9/keep/file.txt)" = "hello from the guest" ] ||
		fail "keep/file.txt does not read back after the rebind"
	battery /mnt/p9 9p --mmap mmap
	umount /mnt/p9 || fail "second umount failed"
}

case_check() {
	share_check "$CASE_WORK/share" 9p --mmap || return 1
	echo "p9: battery passed in the guest (incl. after a device rebind); the host sees its files, xattrs, mmap data, 64 MiB checksum; secret untouched; locks held and released (shared boot: ${GUEST_SECS}s)"
}
