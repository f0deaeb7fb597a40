# SPDX-License-Identifier: GPL-2.0-only
# fs-overlay: overlayfs in the guest with its upper and work directories on
# a virtio-fs share, as container runtimes inside a VM use it. Deleting a
# lower file makes a whiteout (a character device 0:0, the one device node
# a share without `devices` lets a guest make); replacing a lower directory
# makes an opaque directory, marked with trusted.overlay.opaque, which a
# share keeps only in its private user.stainless. namespace (xattr=map).
# After a remount the merged view is the same, so both survived the trip
# through the server; the host sees the whiteout as 0:0 and no trusted.*
# attribute on any file.
. "${E2E_DIR:-}/cases/share-lib.inc"
CASE_BOOT=special
CASE_ARGS="--fs ovl=$CASE_WORK/share,cache=auto,xattr=map"
CASE_TIMEOUT=180

case_setup() {
	s=$CASE_WORK/share
	mkdir -p "$s" || return 1
	share_xattr_fs "$s" || return 1
	mkdir -p "$s/upper" "$s/work"
}

case_cleanup() {
	share_umount "$CASE_WORK/share"
}

ovl_mount() {
	mount -t overlay overlay -o lowerdir=/ovl-low,upperdir=/mnt/ovl/upper,workdir=/mnt/ovl/work /ovl ||
		fail "mount -t overlay failed: $(dmesg | grep -i overlay | tail -n 2)"
}

case_guest() {
	mkdir -p /mnt/ovl /ovl /ovl-low/dir
	echo lower >/ovl-low/gone
	echo lower >/ovl-low/kept
	echo lower >/ovl-low/dir/old
	mount -t virtiofs ovl /mnt/ovl || fail "mount -t virtiofs ovl failed"
	ovl_mount
	rm /ovl/gone || fail "cannot delete a lower file through overlayfs"
	rm -r /ovl/dir && mkdir /ovl/dir && echo new >/ovl/dir/new ||
		fail "cannot replace a lower directory through overlayfs"
	echo upper >>/ovl/kept || fail "cannot copy up a lower file"
	umount /ovl || fail "umount overlay failed"
	ovl_mount
	[ ! -e /ovl/gone ] || fail "the whiteout did not survive a remount"
	[ ! -e /ovl/dir/old ] || fail "the opaque directory shows a lower file after a remount"
	[ "$(cat /ovl/dir/new)" = new ] || fail "dir/new does not read back"
	[ "$(cat /ovl/kept)" = "$(printf 'lower\nupper')" ] || fail "kept reads '$(cat /ovl/kept)'"
	umount /ovl || fail "second umount overlay failed"
	umount /mnt/ovl || fail "umount virtiofs failed"
	echo "fs-overlay: whiteout, opaque directory and copy-up kept across a remount"
}

case_check() {
	u=$CASE_WORK/share/upper
	[ -c "$u/gone" ] && [ "$(stat -c %t:%T "$u/gone")" = 0:0 ] ||
		{ echo "upper/gone is not a 0:0 whiteout on the host: $(ls -l "$u/gone" 2>&1)"; share_umount "$CASE_WORK/share"; return 1; }
	[ "$(cat "$u/dir/new" 2>/dev/null)" = new ] ||
		{ echo "upper/dir/new is not on the host"; share_umount "$CASE_WORK/share"; return 1; }
	"$FSBATTERY" xattr-names "$u/dir" >"$CASE_WORK/dir.xattrs" 2>&1
	share_umount "$CASE_WORK/share" || return 1
	grep -q '^user\.stainless\.trusted\.overlay\.opaque$' "$CASE_WORK/dir.xattrs" ||
		{ echo "upper/dir has no mapped opaque mark: $(tr '\n' ' ' <"$CASE_WORK/dir.xattrs")"; return 1; }
	! grep -q '^trusted\.' "$CASE_WORK/dir.xattrs" ||
		{ echo "a trusted.* attribute reached the host: $(tr '\n' ' ' <"$CASE_WORK/dir.xattrs")"; return 1; }
	echo "fs-overlay: the host sees a 0:0 whiteout and the opaque mark only as user.stainless.trusted.overlay.opaque (shared boot: ${GUEST_SECS}s)"
}
