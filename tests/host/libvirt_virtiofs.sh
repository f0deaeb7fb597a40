#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# libvirt_virtiofs: libvirt (Debian 12's 9.0, QEMU driver) starts stainless
# as a domain's virtiofsd. The installed stainless-virtiofsd (make install
# PREFIX=/usr into a temp DESTDIR) is named in <binary path>; libvirt makes
# the socket, runs it with its own argv (--fd=N -o source=DIR,cache=always,
# xattr,flock,posix_lock --thread-pool-size=16), and boots a QEMU TCG
# domain with shared memfd memory and vhost-user-fs-pci. The guest (the
# project's 6.12 kernel) mounts the share with -t virtiofs, reads a file
# the host wrote, writes one the host then reads, and reboots; the domain
# has on_reboot=destroy, so libvirt ends it, and the backend must have
# left by itself, cleanly ("the frontend left; exiting" in the log libvirt
# keeps for it), with no process of it left behind.
# libvirt runs embedded in virsh (qemu:///embed?root=DIR): no daemon, no
# system state touched. Not `virsh shutdown`: that is an ACPI power button,
# and the guest kernel has no ACPI (guest-images/kernel.config).
# SKIP (77) where virsh, QEMU or the guest kernel cannot be had.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
VIRSH=$(command -v virsh) || { echo "SKIP: virsh not installed (Debian: libvirt-clients, libvirt-daemon-driver-qemu)"; exit 77; }
QEMU=$(command -v qemu-system-x86_64) || { echo "SKIP: qemu-system-x86_64 not installed"; exit 77; }
[ -n "$(find /usr/lib -name 'libvirt_driver_qemu.so' 2>/dev/null | head -n 1)" ] ||
	{ echo "SKIP: libvirt's QEMU driver is not installed (libvirt-daemon-driver-qemu)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: libvirt 9.0 runs virtiofsd only for a privileged driver (root)"; exit 77; }
# Debian's libvirt reads its built-in QEMU user before any qemu.conf.
getent passwd libvirt-qemu >/dev/null 2>&1 ||
	{ echo "SKIP: no user libvirt-qemu (Debian's libvirt-daemon-system makes it; libvirt's QEMU driver will not start without)"; exit 77; }
KERNEL=${GUEST_KERNEL:-$("$TOP/guest-images/build-kernel" 2>/dev/null)} ||
	{ echo "SKIP: no guest kernel (guest-images/build-kernel failed)"; exit 77; }

W=$(mktemp -d /tmp/libvirt_vfs.XXXXXX)
DOM=stainless-vfs-$$
cleanup() {
	"$VIRSH" -q -c "qemu:///embed?root=$W/root" destroy "$DOM" >/dev/null 2>&1
	[ -n "${VHOST_LIBVIRT_KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$W/share" "$W/root/etc"
echo "from the host" >"$W/share/host.txt"
# The embedded driver runs QEMU as root without labelling (no daemon, no
# security driver here); its console goes to a file.
printf 'user = "root"\ngroup = "root"\ndynamic_ownership = 0\nremember_owner = 0\nsecurity_driver = "none"\nstdio_handler = "file"\n' \
	>"$W/root/etc/qemu.conf"
make -s -C "$TOP" O="$(dirname "${STAINLESS_REAL:-$STAINLESS}")" PREFIX=/usr DESTDIR="$W/dest" install >"$W/install.log" 2>&1 ||
	{ cat "$W/install.log"; fail "make install"; }
BIN=$W/dest/usr/libexec/stainless-virtiofsd

cat >"$W/init" <<'INIT'
#!/bin/sh
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /mnt/share
run() {
	mount -t virtiofs share /mnt/share || { echo "mount -t virtiofs share failed"; return 1; }
	[ "$(cat /mnt/share/host.txt)" = "from the host" ] || { echo "host.txt does not read back"; return 1; }
	echo "written by the guest" >/mnt/share/guest.txt || return 1
	sync
	umount /mnt/share
}
run </dev/console >/dev/console 2>&1
echo "LIBVIRT-VFS-RESULT $?"
reboot -f
INIT
INITRD=$("$TOP/guest-images/build-initramfs" --name libvirt-vfs --init "$W/init" 2>"$W/initramfs.log") ||
	{ cat "$W/initramfs.log"; fail "guest initramfs"; }

cat >"$W/dom.xml" <<EOF2
<domain type='qemu'>
  <name>$DOM</name>
  <memory unit='MiB'>512</memory>
  <memoryBacking><source type='memfd'/><access mode='shared'/></memoryBacking>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='q35'>hvm</type>
    <kernel>$KERNEL</kernel>
    <initrd>$INITRD</initrd>
    <cmdline>console=ttyS0 panic=-1 rdinit=/init quiet</cmdline>
  </os>
  <on_reboot>destroy</on_reboot>
  <devices>
    <emulator>$QEMU</emulator>
    <filesystem type='mount' accessmode='passthrough'>
      <driver type='virtiofs'/>
      <binary path='$BIN' xattr='on'>
        <cache mode='always'/>
        <lock posix='on' flock='on'/>
        <thread_pool size='16'/>
      </binary>
      <source dir='$W/share'/>
      <target dir='share'/>
    </filesystem>
    <serial type='file'><source path='$W/console'/><target port='0'/></serial>
    <controller type='usb' model='none'/>
    <memballoon model='none'/>
  </devices>
</domain>
EOF2

start=$(date +%s)
# One virsh holds the embedded driver: it creates the domain, then lists
# the domains once a second until this one is gone (libvirt destroys the
# transient domain when the guest reboots: on_reboot=destroy). Asked, not
# waited for as events: an event that fires between two virsh commands
# is missed, and a guest that reboots within a second did just that.
# Each list ends with an `echo` mark, so the feeder knows when the list
# it asked for is in the log; the first one without the domain ends it.
limit=${VHOST_LIBVIRT_TIMEOUT:-480}
: >"$W/virsh.log"
rm -f "$W/gone"
{
	printf 'create %s\n' "$W/dom.xml"
	i=0
	while [ $i -lt "$limit" ] && [ ! -e "$W/gone" ]; do
		i=$((i + 1))
		from=$(($(wc -c <"$W/virsh.log") + 1))
		printf 'list --all --name\necho LIST-DONE-%s\n' $i
		k=0
		until tail -c +$from "$W/virsh.log" | grep -q "LIST-DONE-$i"; do
			k=$((k + 1)); [ $k -gt 600 ] && break
			sleep 0.1
		done
		tail -c +$from "$W/virsh.log" | grep -qx "$DOM" || : >"$W/gone"
		sleep 1
	done
	echo quit
} | "$VIRSH" -q -c "qemu:///embed?root=$W/root" >>"$W/virsh.log" 2>&1
vrc=$?
secs=$(( $(date +%s) - start ))
log=$(find "$W/root" -name '*virtiofsd.log' | head -n 1)
show() {
	echo "--- virsh:"; tail -n 15 "$W/virsh.log"
	echo "--- console:"; grep -a -v '^\s*$' "$W/console" 2>/dev/null | tail -n 15
	echo "--- backend (${log:-no log}):"; [ -n "$log" ] && tail -n 15 "$log"
}
[ -e "$W/gone" ] ||
	{ show; fail "libvirt did not end the domain when the guest rebooted (virsh exit $vrc)"; }
rc=$(sed -n 's/.*LIBVIRT-VFS-RESULT \([0-9]*\).*/\1/p' "$W/console" | tail -n 1)
[ "$rc" = 0 ] || { show; fail "the guest ${rc:+exited $rc}${rc:-never reported}"; }
[ "$(cat "$W/share/guest.txt" 2>/dev/null)" = "written by the guest" ] || { show; fail "guest.txt is not on the host"; }
# libvirt logs the command it ran in the domain's log.
argv=$(grep -a -h -o 'stainless-virtiofsd --fd.*' "$W/root/log/qemu/$DOM.log" 2>/dev/null | head -n 1)
case $argv in
*"-o source=$W/share,cache=always,xattr,flock,posix_lock --thread-pool-size=16"*) ;;
*) show; fail "libvirt ran another command line than expected: '$argv'" ;;
esac
grep -q "the frontend left; exiting" "$log" || { show; fail "the backend did not leave by itself when the domain ended"; }
n=0
while pgrep -f "$BIN" >/dev/null 2>&1 && [ $n -lt 30 ]; do n=$((n + 1)); sleep 0.1; done
pgrep -f "$BIN" >/dev/null 2>&1 && fail "a stainless-virtiofsd process is left behind"
echo "libvirt ran: $argv"
echo "PASS (libvirt $("$VIRSH" --version) embedded, QEMU TCG q35, memfd shared memory: the guest read and wrote the share; the domain ended, the backend exited by itself; ${secs}s)"
