# SPDX-License-Identifier: GPL-2.0-only
# demo: what scripts/demo shows, kept honest by running it as a test too --
# a two-vCPU guest that says who it is, mounts a host folder over virtio-fs,
# reads what the host left there, writes a file the host then sees, and
# shuts down cleanly.
CASE_ARGS="--cpus 2 --fs demo=$CASE_WORK/share"
CASE_CPUS=2
CASE_TIMEOUT=120

case_setup() {
	mkdir -p "$CASE_WORK/share"
	echo "hello from the host ($(uname -sr))" >"$CASE_WORK/share/from-host.txt"
	echo "demo: host folder $CASE_WORK/share shared as tag 'demo'"
}

case_guest() {
	echo "demo: hello from $(uname -sr) on $GUEST_CPUS vCPUs"
	echo "demo: $(grep MemTotal /proc/meminfo)"
	mount -t virtiofs demo /mnt || fail "mount -t virtiofs demo /mnt failed"
	echo "demo: mounted the host folder at /mnt: $(ls /mnt | tr '\n' ' ')"
	echo "demo: /mnt/from-host.txt says: $(cat /mnt/from-host.txt)"
	echo "written by the guest ($(uname -sr), $GUEST_CPUS vCPUs)" >/mnt/from-guest.txt ||
		fail "cannot write to the shared folder"
	umount /mnt || fail "umount /mnt failed"
	echo "demo: wrote /mnt/from-guest.txt and unmounted"
}

case_check() {
	f=$CASE_WORK/share/from-guest.txt
	grep -q '^written by the guest' "$f" 2>/dev/null ||
		{ echo "the guest's file did not appear on the host"; return 1; }
	echo "demo: the host sees $f: $(cat "$f")"
}
