#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The kernel 9p client test (p9_kernel_mount.sh) where the host kernel has
# no 9p: boots Debian's kernel (the test host's, unpacked into the cache by
# guest-images/testhost-kernel), which ships 9p modules,
# under QEMU TCG (no KVM needed) with a throw-away initramfs holding
# busybox, the modules, the stainless binary and the test, and reports the
# test's result from the serial console. SKIP when QEMU, a static busybox or
# a kernel with 9p modules is missing.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
HERE=$(cd "$(dirname "$0")" && pwd)
QEMU=$(command -v qemu-system-x86_64) || { echo "SKIP: qemu-system-x86_64 not installed"; exit 77; }
BB=$(command -v busybox) || { echo "SKIP: busybox not installed"; exit 77; }
# ldd fails on a static binary, which is what a bare initramfs needs.
ldd "$BB" >/dev/null 2>&1 && { echo "SKIP: busybox is not static (install busybox-static)"; exit 77; }
k=$("$HERE/../../guest-images/testhost-kernel") ||
	{ echo "SKIP: no Debian kernel to boot (guest-images/testhost-kernel failed)"; exit 77; }
KVER=${k% *} KROOT=${k#* }
MODDIR=$KROOT/lib/modules/$KVER/kernel
[ -f "$MODDIR/fs/9p/9p.ko" ] || { echo "SKIP: linux-image-$KVER has no 9p module"; exit 77; }

T=$(mktemp -d /tmp/p9_qemu.XXXXXX)
trap 'rm -rf "$T"' EXIT
R=$T/root
mkdir -p "$R/bin" "$R/dev" "$R/proc" "$R/sys" "$R/tmp" "$R/modules"
cp "$BB" "$R/bin/busybox"
mknod "$R/dev/console" c 5 1 2>/dev/null
# 9p.ko's dependencies first; each listed module is insmod'ed in this order.
mods=
for m in fs/netfs/netfs fs/fscache/fscache net/9p/9pnet net/9p/9pnet_fd fs/9p/9p; do
	[ -f "$MODDIR/$m.ko" ] || continue
	cp "$MODDIR/$m.ko" "$R/modules/"
	mods="$mods $(basename "$m")"
done
# The binary itself (the log pass's STAINLESS is a wrapper script); inside
# the guest it runs in kill mode, and its audit records are the guest's.
cp "${STAINLESS_REAL:-$STAINLESS}" "$R/stainless"
for lib in $(ldd "${STAINLESS_REAL:-$STAINLESS}" | grep -o '/[^ ]*'); do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
cp "$HERE/p9_kernel_mount.sh" "$R/p9_kernel_mount.sh"
# busybox has no flock/setfattr: the test's own probe, built static.
"${CC:-cc}" -O2 -static -o "$R/p9_probe" "$HERE/p9_probe.c" 2>/dev/null ||
	echo "note: cannot build a static p9_probe; lock and xattr checks will be skipped"
cat >"$R/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
for m in $mods; do insmod /modules/\$m.ko || echo "insmod \$m failed"; done
[ -x /p9_probe ] && export P9_PROBE=/p9_probe
STAINLESS=/stainless sh /p9_kernel_mount.sh 2>&1
rc=\$?; dmesg | grep -i -E "9p|9pnet" | tail -n 15
echo "P9-RESULT \$rc"
reboot -f
INIT
chmod 755 "$R/init"
(cd "$R" && find . | cpio -o -H newc 2>/dev/null) >"$T/initrd" || { echo "FAIL: cpio"; exit 1; }

timeout 600 "$QEMU" -M q35 -accel tcg -cpu max -m 1024 -smp 1 -nodefaults -no-user-config \
	-nographic -serial stdio -no-reboot -kernel "$KROOT/boot/vmlinuz-$KVER" -initrd "$T/initrd" \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init" </dev/null >"$T/console" 2>&1
grep -v '^\s*$' "$T/console" |  tail -n 40
rc=$(sed -n 's/.*P9-RESULT \([0-9]*\).*/\1/p' "$T/console" | tail -n 1)
case $rc in
0)  echo "PASS (Linux $KVER 9p client in QEMU TCG)"; exit 0 ;;
77) echo "SKIP: inside the guest: $(grep SKIP "$T/console" | tail -n 1)"; exit 77 ;;
"") echo "FAIL: the guest never reported a result"; exit 1 ;;
*)  echo "FAIL: p9_kernel_mount.sh exited $rc in the guest"; exit 1 ;;
esac
