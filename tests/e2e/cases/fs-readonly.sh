# SPDX-License-Identifier: GPL-2.0-only
# fs-readonly: a `readonly` virtio-fs share, mounted read-write in the guest
# so the refusals come from the server: reads work, every kind of write
# (create, open for writing, O_TRUNC, truncate, mkdir, mknod, rmdir, unlink,
# rename, link, symlink, chmod, chown, utimes, O_TMPFILE, xattrs) fails with
# EROFS, and the host finds the share unchanged. Shares its boot with
# fs-remount and p9-readonly.
. "${E2E_DIR:-}/cases/share-lib.inc"
CASE_BOOT=shares2
CASE_ARGS="--fs ro=$CASE_WORK/share,readonly,xattr"
CASE_TIMEOUT=120

case_setup() {
	[ -x "$FSBATTERY" ] || { echo "the share battery is not built"; return 1; }
	mkdir -p "$CASE_WORK/share" && "$FSBATTERY" ro-setup "$CASE_WORK/share"
}

case_guest() {
	mkdir -p /mnt/ro
	mount -t virtiofs ro /mnt/ro || fail "mount -t virtiofs ro failed"
	fsbattery readonly /mnt/ro virtiofs || fail "fsbattery readonly failed (above)"
	umount /mnt/ro || fail "umount failed"
}

case_check() {
	"$FSBATTERY" ro-verify "$CASE_WORK/share" || return 1
	echo "fs-readonly: reads work, every write was EROFS, the host share is unchanged (shared boot: ${GUEST_SECS}s)"
}
