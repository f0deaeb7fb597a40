#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# debian/ builds a package on Debian 12: dpkg-buildpackage -us -uc -b in a
# copy of the tree (the build's clean step would remove build/ here),
# lintian finds no error in it (its warnings are printed), the package
# holds the files make install lists, and installed into a fresh root
# (dpkg -x) it runs: stainless --version, stainless-virtiofsd
# --print-capabilities (through its relative link) and the descriptor's
# binary is that link's /usr path. With crun 1.8.1 at build time the
# package carries the crun plugin in crun's handlers directory and its
# tools directory in /usr/lib/stainless/crun, and (as root) crun, with
# the unpacked /usr/lib overlaid on the host's in a private mount
# namespace, lists +STAINLESS and runs a bundle annotated
# run.oci.handler=stainless with the tools directory's stainless, found
# where the plugin was built to look (no STAINLESS_CRUN_TOOLS).
# A full build: about a minute.
# SKIP (77) without dpkg-buildpackage and debhelper.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
command -v dpkg-buildpackage >/dev/null 2>&1 || { echo "SKIP: no dpkg-buildpackage (Debian: dpkg-dev)"; exit 77; }
command -v dh >/dev/null 2>&1 || { echo "SKIP: no debhelper"; exit 77; }
command -v git >/dev/null 2>&1 && git -C "$ROOT" rev-parse >/dev/null 2>&1 ||
	{ echo "SKIP: not a git work tree (the copy is made from git's file list)"; exit 77; }
T=$(mktemp -d /tmp/deb_package.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$T/src" "$T/root"
# Tracked and new files as they are now, nothing ignored (no build/).
(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --) | tar -xf - -C "$T/src" ||
	fail "copying the tree"
(cd "$T/src" && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1 ||
	{ tail -n 30 "$T/build.log"; fail "dpkg-buildpackage -us -uc -b"; }
deb=$(ls "$T"/stainless_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "no .deb built"
echo "ok: built $(basename "$deb") ($(dpkg-deb -f "$deb" Depends))"
if command -v lintian >/dev/null 2>&1; then
	lintian "$T"/stainless_*_amd64.changes >"$T/lintian" 2>&1
	grep -v 'running with root privileges' "$T/lintian" | sed 's/^/lintian: /'
	grep -q '^E: ' "$T/lintian" && fail "lintian found errors"
	echo "ok: lintian: no errors, $(grep -c '^W: ' "$T/lintian") warnings"
else
	echo "note: no lintian installed; not checked"
fi
all=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' | grep -v '/$' | grep -v '^/usr/share/doc/' | sort)
hdir=/usr/lib/$(cc -print-multiarch)/crun/handlers
tools=/usr/lib/stainless/crun
crun=
[ "$(crun --version 2>/dev/null | sed -n 's/^crun version //p')" = 1.8.1 ] && crun=yes
if [ -n "$crun" ]; then
	for f in "$hdir/stainless.so" "$tools/stainless" "$tools/loader"; do
		echo "$all" | grep -qx "$f" || fail "the package has no $f"
	done
	echo "$all" | grep -q "^$tools/lib/libc\.so" || fail "the package's $tools/lib has no libc"
	echo "ok: the crun plugin and its tools directory ($(echo "$all" | grep -c "^$tools/") files)"
fi
# The overrides name the tools directory's loader (debian/stainless.lintian-overrides).
got=$(echo "$all" | grep -v -e "^$hdir/stainless\.so\$" -e "^$tools/" -e '^/usr/share/lintian/overrides/stainless$')
want=$(printf '%s\n' /usr/bin/stainless /usr/libexec/stainless-virtiofsd /usr/sbin/mount.fuse.stainless \
	/usr/share/man/man1/stainless.1.gz /usr/share/man/man1/stainless-virtiofsd.1.gz \
	/usr/share/man/man1/stainless-run.1.gz /usr/share/man/man1/stainless-exec.1.gz \
	/usr/share/man/man1/stainless-fuse-mount.1.gz \
	/usr/share/man/man1/stainless-9p-serve.1.gz /usr/share/man/man1/stainless-vhost-user-fs.1.gz \
	/usr/share/qemu/vhost-user/50-stainless-virtiofsd.json \
	/lib/systemd/system/stainless-virtiofsd@.socket /lib/systemd/system/stainless-virtiofsd@.service \
	/usr/share/bash-completion/completions/stainless | sort)
[ "$got" = "$want" ] || { echo "package:"; echo "$got"; echo "expected:"; echo "$want"; fail "other files in the package"; }
dpkg -x "$deb" "$T/root" || fail "dpkg -x"
v=$("$T/root/usr/bin/stainless" --version) || fail "stainless --version from the package"
caps=$("$T/root/usr/libexec/stainless-virtiofsd" --print-capabilities) ||
	fail "stainless-virtiofsd --print-capabilities from the package"
echo "$caps" | grep -q '"type": "fs"' || fail "print-capabilities: $caps"
grep -q '"binary": "/usr/libexec/stainless-virtiofsd"' "$T/root/usr/share/qemu/vhost-user/50-stainless-virtiofsd.json" ||
	fail "the descriptor's binary is not /usr/libexec/stainless-virtiofsd"
echo "ok: from the unpacked package: '$v'; stainless-virtiofsd --print-capabilities: $(echo "$caps" | tr -d ' \n')"

# The host's crun finds the unpacked plugin, and the plugin its tools.
if [ -z "$crun" ]; then
	echo "note: no crun 1.8.1 here: the package has no crun plugin, not checked"
elif [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v python3 >/dev/null; then
	echo "note: the package's crun plugin not run (needs root, unshare, python3)"
else
	. "$HERE/crun_bundle.inc"
	crun_rootfs "$T/rootfs"
	mkdir -p "$T/data"
	crun_mkbundle "$T/vm" ../rootfs "$T/data" 1 1
	cat >"$T/inner.sh" <<EOF
set -u
unset STAINLESS_CRUN_TOOLS
mount -t overlay overlay -o "lowerdir=$T/root/usr/lib:/usr/lib" /usr/lib || exit 90
[ "\$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || mount -t cgroup2 none /sys/fs/cgroup || exit 90
echo "== version"; crun --version
echo "== vm"; (cd "$T/vm" && crun --cgroup-manager=disabled --root "$T/state" run vm-\$\$ 2>&1); echo "rc=\$?"
EOF
	unshare -m --propagation private sh "$T/inner.sh" >"$T/crun.out" 2>&1
	[ $? -eq 90 ] && { cat "$T/crun.out"; fail "cannot overlay /usr/lib in a mount namespace"; }
	sed -n '/^== version/,/^== vm/p' "$T/crun.out" | grep -q '+STAINLESS' ||
		{ cat "$T/crun.out"; fail "crun does not load the package's plugin (+STAINLESS)"; }
	sed -n '/^== vm/,$p' "$T/crun.out" | grep -q '^stainless exec: ' ||
		{ cat "$T/crun.out"; fail "the package's plugin did not run $tools/stainless"; }
	echo "ok: crun loads the package's plugin (+STAINLESS); a run.oci.handler=stainless bundle ran" \
		"$tools/stainless: $(sed -n '/^== vm/,$p' "$T/crun.out" | grep -m1 '^stainless exec: ')"
fi
echo "PASS: dpkg-buildpackage builds a lintian-clean package that runs from a fresh root"
