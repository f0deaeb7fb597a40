# SPDX-License-Identifier: GPL-2.0-only
# fs-devices: device nodes and FIFOs in a virtio-fs share are the guest
# kernel's own. On a share with `devices` the guest makes 1:11 (kmsg),
# 1:3 (null) and 1:5 (zero) and a FIFO, and uses them: what it writes to
# "kmsg" lands in the guest's kernel log and never in the test host's,
# "zero" reads the guest's zeros, the FIFO carries data between two guest
# processes. The host sees the nodes with the guest's major:minor, and
# the server opened none of them. On a share without `devices` the same
# mknod is refused (EPERM), while a FIFO is still allowed.
CASE_BOOT=special
CASE_ARGS="--fs dev=$CASE_WORK/share,devices --fs nodev=$CASE_WORK/nodev"
CASE_TIMEOUT=180

case_setup() {
	mkdir -p "$CASE_WORK/share" "$CASE_WORK/nodev"
}

case_guest() {
	mkdir -p /mnt/dev /mnt/nodev
	mount -t virtiofs dev /mnt/dev || fail "mount -t virtiofs dev failed"
	mount -t virtiofs nodev /mnt/nodev || fail "mount -t virtiofs nodev failed"
	mknod /mnt/dev/kmsg c 1 11 && mknod /mnt/dev/null c 1 3 && mknod /mnt/dev/zero c 1 5 ||
		fail "mknod on a share with devices failed"
	echo "STAINLESS-KMSG-PROBE-fs-devices" >/mnt/dev/kmsg || fail "cannot write the share's kmsg node"
	dmesg | grep -q STAINLESS-KMSG-PROBE-fs-devices || fail "the share's kmsg node did not reach the guest's log"
	echo discard >/mnt/dev/null || fail "cannot write the share's null node"
	[ "$(head -c 4 /mnt/dev/zero | od -An -tx1 | tr -d ' ')" = 00000000 ] ||
		fail "the share's zero node does not read zeros"
	mkfifo /mnt/dev/fifo || fail "mkfifo failed"
	(echo through-the-fifo >/mnt/dev/fifo) &
	[ "$(cat /mnt/dev/fifo)" = through-the-fifo ] || fail "the FIFO did not carry data"
	wait
	if mknod /mnt/nodev/null c 1 3 2>/dev/null; then
		fail "mknod of 1:3 succeeded on a share without devices"
	fi
	mkfifo /mnt/nodev/fifo || fail "mkfifo on a share without devices failed"
	umount /mnt/dev && umount /mnt/nodev || fail "umount failed"
	echo "fs-devices: guest-made nodes and a FIFO served by the guest; mknod refused without devices"
}

case_check() {
	s=$CASE_WORK/share
	for n in kmsg:1:b null:1:3 zero:1:5; do
		f=${n%%:*} want=${n#*:}
		[ -c "$s/$f" ] && [ "$(stat -c %t:%T "$s/$f")" = "$want" ] ||
			{ echo "$f is not the guest's $want node on the host: $(ls -l "$s/$f" 2>&1)"; return 1; }
	done
	[ -p "$s/fifo" ] && [ -p "$CASE_WORK/nodev/fifo" ] || { echo "the FIFOs are not on the host"; return 1; }
	[ ! -e "$CASE_WORK/nodev/null" ] || { echo "nodev/null exists on the host"; return 1; }
	! dmesg | grep -q STAINLESS-KMSG-PROBE ||
		{ echo "a guest write to its kmsg node reached the host's kernel log"; return 1; }
	echo "fs-devices: nodes on the host with the guest's numbers, nothing of them reached the host (shared boot: ${GUEST_SECS}s)"
}
