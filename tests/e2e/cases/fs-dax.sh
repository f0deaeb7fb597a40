# SPDX-License-Identifier: GPL-2.0-only
# fs-dax: a --fs share with a DAX window (dax=64M), mounted -o dax. The
# guest finds the window, reads a file through it with the host's checksum,
# overwrites part of a file in place (a DAX store, not a FUSE WRITE) that
# the host then sees, and — the proof that reads really go through the
# window — sees a change the host makes to a file it has already read,
# even with cache=always, where a page-cache read would stay stale.
CASE_ARGS="--fs dax=$CASE_WORK/share,cache=always,dax=64M"
CASE_TIMEOUT=180

case_setup() {
	s=$CASE_WORK/share
	mkdir -p "$s" || return 1
	dd if=/dev/urandom of="$s/big" bs=1M count=8 2>/dev/null || return 1
	md5sum "$s/big" | cut -d' ' -f1 >"$s/big.md5"
	printf 'AAAAAAAAAAAAAAAA' >"$s/flip"
	printf 'xxxxxxxxxxxxxxxx' >"$s/inplace"
	# When the guest says it has read flip, rewrite it in place (same
	# inode, same size) and say so.
	(
		n=0
		while [ ! -e "$s/flip-read" ] && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
		printf 'BBBBBBBBBBBBBBBB' | dd of="$s/flip" conv=notrunc 2>/dev/null
		touch "$s/flip-done"
	) &
	echo $! >"$CASE_WORK/flipper.pid"
}

case_guest() {
	mount -t virtiofs -o dax dax /mnt || fail "mount -t virtiofs -o dax failed"
	grep -q 'dax=always' /proc/mounts || fail "the mount is not dax=always: $(grep virtiofs /proc/mounts)"
	dmesg | grep -q 'virtiofs.*Cache len: 0x4000000' || fail "the guest found no 64 MiB DAX window"
	[ "$(md5sum /mnt/big | cut -d' ' -f1)" = "$(cat /mnt/big.md5)" ] ||
		fail "big read through the window has the wrong checksum"
	[ "$(cat /mnt/flip)" = AAAAAAAAAAAAAAAA ] || fail "flip reads '$(cat /mnt/flip)'"
	touch /mnt/flip-read
	n=0
	while [ ! -e /mnt/flip-done ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
	[ -e /mnt/flip-done ] || fail "the host never rewrote flip"
	[ "$(cat /mnt/flip)" = BBBBBBBBBBBBBBBB ] ||
		fail "after the host rewrote flip the guest still reads '$(cat /mnt/flip)'"
	printf 'DAXDAX' | dd of=/mnt/inplace conv=notrunc 2>/dev/null || fail "in-place write failed"
	sync
	umount /mnt || fail "umount failed"
	echo "fs-dax: window found, read, host change seen, in-place write done"
}

case_check() {
	s=$CASE_WORK/share
	kill "$(cat "$CASE_WORK/flipper.pid")" 2>/dev/null
	[ "$(cat "$s/inplace")" = DAXDAXxxxxxxxxxx ] ||
		{ echo "the guest's in-place write is not on the host: '$(cat "$s/inplace")'"; return 1; }
}
