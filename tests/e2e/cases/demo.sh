# SPDX-License-Identifier: GPL-2.0-only
# demo: what scripts/demo shows, kept honest by running it as a test too --
# a two-vCPU guest that prints who it is and shuts down cleanly.
CASE_ARGS="--cpus 2"
CASE_CPUS=2
CASE_TIMEOUT=120
# DEMO-SHARE (virtio-fs): once virtio-fs lands, share a host folder here:
#   CASE_ARGS="--cpus 2 --fs demo=$CASE_WORK/share"
# with   case_setup() { mkdir -p "$CASE_WORK/share"; }

case_guest() {
	echo "demo: hello from $(uname -sr) on $GUEST_CPUS vCPUs"
	echo "demo: $(grep MemTotal /proc/meminfo)"
	echo "demo: kernel command line: $(cat /proc/cmdline)"
	# DEMO-SHARE (virtio-fs): mount the share and leave a file for the host:
	#   mount -t virtiofs demo /mnt || fail "mount -t virtiofs demo failed"
	#   echo "written by the guest at $(date)" >/mnt/hello-from-guest ||
	#       fail "cannot write to the share"
	#   umount /mnt
}

# DEMO-SHARE (virtio-fs): after the guest exits, the host checks the file:
# case_check() {
#	grep -q 'written by the guest' "$CASE_WORK/share/hello-from-guest" ||
#		{ echo "the guest's file did not appear on the host"; return 1; }
# }
