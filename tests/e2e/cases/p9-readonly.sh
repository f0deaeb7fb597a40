# SPDX-License-Identifier: GPL-2.0-only
# p9-readonly: fs-readonly's checks for a `readonly` virtio-9p share: reads
# work, every write fails with EROFS from the server, the host share is
# unchanged. Shares its boot with fs-readonly and fs-remount.
. "${E2E_DIR:-}/cases/share-lib.inc"
CASE_BOOT=shares2
CASE_ARGS="--9p ro9=$CASE_WORK/share,readonly"
CASE_TIMEOUT=120

case_setup() {
	[ -x "$FSBATTERY" ] || { echo "the share battery is not built"; return 1; }
	mkdir -p "$CASE_WORK/share" && "$FSBATTERY" ro-setup "$CASE_WORK/share"
}

case_guest() {
	mkdir -p /mnt/ro9
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 ro9 /mnt/ro9 ||
		fail "mount -t 9p ro9 failed"
	fsbattery readonly /mnt/ro9 9p || fail "fsbattery readonly failed (above)"
	umount /mnt/ro9 || fail "umount failed"
}

case_check() {
	"$FSBATTERY" ro-verify "$CASE_WORK/share" || return 1
	echo "p9-readonly: reads work, every write was EROFS, the host share is unchanged (shared boot: ${GUEST_SECS}s)"
}
