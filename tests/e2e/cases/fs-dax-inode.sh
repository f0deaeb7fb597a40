# SPDX-License-Identifier: GPL-2.0-only
# fs-dax-inode: a --fs share with the per-file policy (dax=inode,
# dax-min=1M on a 64 MiB window), mounted -o dax=inode. The guest sees the
# mode in /proc/mounts; its kernel serves the 8 MiB file through the
# window (statx says DAX) and the 4 KiB one and the directory through FUSE
# (not DAX); the large file read through a shared mmap and through read()
# has the host's sum; a file the guest creates and writes is not DAX, even
# once it is large and looked up afresh after the guest dropped its
# caches (read-mostly files only: not modified in the last minute); and the
# VMM's --stats line shows the window mapped ranges (SETUPMAPPING reached
# the device), so the DAX path was really taken.
CASE_ARGS="--stats --fs daxi=$CASE_WORK/share,cache=always,dax=64M,dax=inode,dax-min=1M"
CASE_TIMEOUT=180

case_setup() {
	s=$CASE_WORK/share
	mkdir -p "$s/dir" || return 1
	dd if=/dev/urandom of="$s/big" bs=1M count=8 2>/dev/null || return 1
	dd if=/dev/urandom of="$s/small" bs=4k count=1 2>/dev/null || return 1
	"$FSBATTERY" sum "$s/big" >"$s/big.sum" || return 1
	"$FSBATTERY" sum "$s/small" >"$s/small.sum" || return 1
	# Read-mostly: not modified in the last minute (fuse_dax_policy.c).
	touch -t 202001010000 "$s/big" "$s/small"
}

dax_of() {
	fsbattery dax-attr "$1" || fail "statx of $1 failed (above)"
}

case_guest() {
	mount -t virtiofs -o dax=inode daxi /mnt || fail "mount -t virtiofs -o dax=inode failed"
	grep -q 'virtiofs.*dax=inode' /proc/mounts || fail "the mount is not dax=inode: $(grep virtiofs /proc/mounts)"
	[ "$(dax_of /mnt/big)" = dax ] || fail "the 8 MiB file is not DAX"
	[ "$(dax_of /mnt/small)" = nodax ] || fail "the 4 KiB file is DAX (dax-min=1M)"
	[ "$(dax_of /mnt/dir)" = nodax ] || fail "a directory is DAX"
	[ "$(fsbattery mmap-sum /mnt/big)" = "$(cat /mnt/big.sum)" ] ||
		fail "big through a shared mmap has the wrong sum"
	[ "$(fsbattery sum /mnt/big)" = "$(cat /mnt/big.sum)" ] || fail "big read() has the wrong sum"
	[ "$(fsbattery sum /mnt/small)" = "$(cat /mnt/small.sum)" ] || fail "small has the wrong sum"
	dd if=/dev/zero of=/mnt/made bs=1M count=4 2>/dev/null || fail "writing made failed"
	sync
	# Forget the inode so the next lookup takes the server's flag afresh.
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(stat -c %s /mnt/made)" = 4194304 ] || fail "made is $(stat -c %s /mnt/made) bytes"
	[ "$(dax_of /mnt/made)" = nodax ] || fail "a 4 MiB file the guest wrote is DAX"
	umount /mnt || fail "umount failed"
	echo "fs-dax-inode: big DAX, small and dir not, sums right, a written file not DAX"
}

case_check() {
	line=$(grep 'stainless run: stats: virtio-fs' "$GUEST_LOG" | head -n 1)
	maps=$(echo "$line" | sed -n 's/.* dax-maps=\([0-9]*\).*/\1/p')
	[ -n "$maps" ] || { echo "no dax-maps in the --stats line: '$line'"; return 1; }
	[ "$maps" -ge 1 ] || { echo "the window mapped nothing: '$line'"; return 1; }
	echo "fs-dax-inode: $line"
}
