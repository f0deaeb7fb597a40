#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# debian/ builds a package on Debian 12: dpkg-buildpackage -us -uc -b in a
# copy of the tree (the build's clean step would remove build/ here),
# lintian finds no error in it (its warnings are printed), the package
# holds the files make install lists, and installed into a fresh root
# (dpkg -x) it runs: stainless --version, stainless-virtiofsd
# --print-capabilities (through its relative link) and the descriptor's
# binary is that link's /usr path. A full build: about a minute.
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
got=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' | grep -v '/$' | grep -v '^/usr/share/doc/' | sort)
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
echo "PASS: dpkg-buildpackage builds a lintian-clean package that runs from a fresh root"
