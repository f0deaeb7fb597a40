#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A bare make builds (its goal is all, not install). make install
# DESTDIR=T (PREFIX /usr/local and /usr) installs exactly the
# files dist/install.mk lists and make uninstall removes every one:
#   the binary; libexec/stainless-virtiofsd, a relative link to it that
#   answers as a virtiofsd (--version, --print-capabilities); the man
#   pages, which man renders without a warning; QEMU's vhost-user
#   descriptor, valid JSON of type fs whose binary is the PREFIX path of
#   that link and whose features are what --print-capabilities says; the
#   systemd units (systemd-analyze verify, where it exists, finds no fault
#   once the paths point into T); the bash completion (bash -n); where
#   make builds the crun plugin (crun 1.8.1, libyajl-dev), the plugin in
#   crun's handlers directory (the path crun has compiled in, whatever
#   PREFIX is), built to look for its tools in PREFIX/lib/stainless/crun,
#   which holds stainless, its loader and libc.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
O=$(dirname "$STAINLESS")
T=$(mktemp -d /tmp/install.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v make >/dev/null 2>&1 || { echo "SKIP: no make"; exit 77; }

# A bare make builds: it must never install.
goal=$(make -pn -C "$ROOT" O="$O" 2>/dev/null | sed -n 's/^\.DEFAULT_GOAL := //p' | tail -n 1)
[ "$goal" = all ] || fail "a bare make runs '$goal', not all"

crun=
[ "$(crun --version 2>/dev/null | sed -n 's/^crun version //p')" = 1.8.1 ] &&
	[ -f /usr/include/yajl/yajl_tree.h ] && crun=yes
hdir=$(make -s -C "$ROOT" O="$O" crun-handlers-dir)
for prefix in /usr/local /usr; do
	D=$T/root$(echo "$prefix" | tr / _)
	make -s -C "$ROOT" O="$O" PREFIX="$prefix" DESTDIR="$D" install >"$T/log" 2>&1 ||
		{ cat "$T/log"; fail "make install PREFIX=$prefix"; }
	all=$(cd "$D" && find . ! -type d | sed 's|^\.||' | sort)
	tools=$prefix/lib/stainless/crun
	if [ -n "$crun" ]; then
		for f in "$hdir/stainless.so" "$tools/stainless" "$tools/loader"; do
			echo "$all" | grep -qx "$f" || fail "PREFIX=$prefix: make install did not install $f"
		done
		echo "$all" | grep -q "^$tools/lib/libc\.so" || fail "PREFIX=$prefix: no libc in $tools/lib"
		grep -aq "$tools" "$D$hdir/stainless.so" ||
			fail "PREFIX=$prefix: the plugin does not look for its tools in $tools"
		echo "ok: PREFIX=$prefix: the crun plugin in $hdir, its tools in $tools"
	fi
	got=$(echo "$all" | grep -v -e "^$hdir/stainless\.so\$" -e "^$tools/")
	want=$(printf '%s\n' bin/stainless libexec/stainless-virtiofsd sbin/mount.fuse.stainless \
		share/man/man1/stainless.1 share/man/man1/stainless-virtiofsd.1 \
		share/man/man1/stainless-run.1 share/man/man1/stainless-exec.1 \
		share/man/man1/stainless-fuse-mount.1 \
		share/man/man1/stainless-9p-serve.1 share/man/man1/stainless-vhost-user-fs.1 \
		share/qemu/vhost-user/50-stainless-virtiofsd.json \
		lib/systemd/system/stainless-virtiofsd@.socket \
		lib/systemd/system/stainless-virtiofsd@.service \
		share/bash-completion/completions/stainless \
		$( [ -f "$O/guest/bzImage" ] && echo share/stainless/bzImage ) | sed "s|^|$prefix/|" | sort)
	[ "$got" = "$want" ] || { echo "installed:"; echo "$got"; echo "expected:"; echo "$want"; fail "PREFIX=$prefix: other files"; }
	[ "$(readlink "$D$prefix/libexec/stainless-virtiofsd")" = ../bin/stainless ] ||
		fail "libexec/stainless-virtiofsd is not a relative link to ../bin/stainless"
	v=$("$D$prefix/libexec/stainless-virtiofsd" --version) || fail "stainless-virtiofsd --version"
	echo "$v" | grep -q '^stainless-virtiofsd ' || fail "stainless-virtiofsd --version: $v"
	json=$D$prefix/share/qemu/vhost-user/50-stainless-virtiofsd.json
	if command -v python3 >/dev/null 2>&1; then
		caps=$("$D$prefix/libexec/stainless-virtiofsd" --print-capabilities)
		python3 - "$json" "$prefix/libexec/stainless-virtiofsd" "$caps" <<'PY' || fail "the descriptor"
import json, sys
d = json.load(open(sys.argv[1]))
caps = json.loads(sys.argv[3])
assert d["type"] == "fs", d
assert d["binary"] == sys.argv[2], d["binary"]
assert sorted(d.get("features", [])) == sorted(caps.get("features", [])), (d, caps)
PY
	fi
	[ "$(readlink "$D$prefix/sbin/mount.fuse.stainless")" = ../bin/stainless ] ||
		fail "sbin/mount.fuse.stainless is not a relative link to ../bin/stainless"
	for m in stainless stainless-virtiofsd stainless-run stainless-fuse-mount stainless-9p-serve \
		stainless-vhost-user-fs; do
		w=$(MANWIDTH=80 man --warnings -l "$D$prefix/share/man/man1/$m.1" 2>&1 >/dev/null)
		[ -z "$w" ] || { echo "$w"; fail "man $m.1 warns"; }
	done
	bash -n "$D$prefix/share/bash-completion/completions/stainless" || fail "bash completion"
	svc=$D$prefix/lib/systemd/system/stainless-virtiofsd@.service
	grep -q "^ExecStart=$prefix/libexec/stainless-virtiofsd " "$svc" || fail "ExecStart: $(grep ExecStart "$svc")"
	if command -v systemd-analyze >/dev/null 2>&1; then
		# verify checks that ExecStart exists: point it into T.
		mkdir -p "$T/units"
		sed "s|^ExecStart=$prefix|ExecStart=$D$prefix|" "$svc" >"$T/units/stainless-virtiofsd@.service"
		cp "$D$prefix/lib/systemd/system/stainless-virtiofsd@.socket" "$T/units/"
		# Documentation=man:... is looked up with man: the installed page.
		out=$(cd "$T/units" && MANPATH=$D$prefix/share/man SYSTEMD_LOG_LEVEL=warning systemd-analyze verify \
			stainless-virtiofsd@srv-share.socket stainless-virtiofsd@srv-share.service 2>&1 |
			grep -v -e 'Cannot add dependency job' -e 'Failed to prepare filesystem' \
				-e 'ignoring: Read-only file system' -e 'are not booted with systemd')
		[ -z "$out" ] || { echo "$out"; fail "systemd-analyze verify"; }
		echo "ok: systemd-analyze verify of the units"
	fi
	make -s -C "$ROOT" O="$O" PREFIX="$prefix" DESTDIR="$D" uninstall >"$T/log" 2>&1 ||
		{ cat "$T/log"; fail "make uninstall PREFIX=$prefix"; }
	left=$(cd "$D" && find . ! -type d)
	[ -z "$left" ] || fail "make uninstall left: $left"
	echo "ok: PREFIX=$prefix: $(echo "$want" | wc -l) files installed, as listed; uninstall removed them"
done
echo "PASS: make install and uninstall honour PREFIX and DESTDIR"
