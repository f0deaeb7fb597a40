#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The binary under a virtiofsd's name is the vhost-user-fs command with no
# subcommand word, as the programs that start a virtiofsd run it: Kata
# (virtio_fs_daemon = PATH), libvirt (<binary path=.../>) and QEMU's
# vhost-user descriptors. Linked as `virtiofsd` and as `stainless-virtiofsd`
# in a temp dir:
#   --version, --help, --print-capabilities in virtiofsd's shape (a
#   "NAME VERSION" line, a Usage line naming the program, the
#   vhost-user.json record of type fs), an unknown option refused by name;
#   Kata's Go and runtime-rs command lines (tests/host/vhost_user_kata.sh
#   with BACKEND=that link), driven by our own frontend
#   (vu_kata_client): INIT, a read, a write that lands on the host, the
#   backend exits 0 when the frontend leaves.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build vu_kata_client"; exit 77; }
T=$(mktemp -d /tmp/virtiofsd_name.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$T/bin" "$T/share"
ln -s "$STAINLESS" "$T/bin/virtiofsd"
ln -s "$STAINLESS" "$T/bin/stainless-virtiofsd"
for name in virtiofsd stainless-virtiofsd; do
	b=$T/bin/$name
	v=$("$b" --version) || fail "$name --version exited $?"
	echo "$v" | grep -q "^$name [0-9][0-9.]* (stainless)$" || fail "$name --version printed '$v'"
	"$b" --help | head -n 1 | grep -q "^Usage: $name " || fail "$name --help: no 'Usage: $name' line"
	"$b" -V | grep -q "^$name " || fail "$name -V"
	caps=$("$b" --print-capabilities) || fail "$name --print-capabilities exited $?"
	if command -v python3 >/dev/null 2>&1; then
		echo "$caps" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["type"] == "fs", d' ||
			fail "$name --print-capabilities is not a vhost-user.json fs record: $caps"
	else
		echo "$caps" | grep -q '"type": "fs"' || fail "$name --print-capabilities: $caps"
	fi
	"$b" --socket-path "$T/s" --shared-dir "$T/share" --bogus >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "'--bogus' is not an option $name takes" "$T/err" ||
		fail "$name --bogus: exit $rc, '$(cat "$T/err")'"
	echo "ok: $name --version '$v', --help, --print-capabilities, --bogus refused"
done

# Kata's two command lines, the program run by path as Kata runs it.
out=$(BACKEND=$T/bin/virtiofsd sh "$HERE/vhost_user_kata.sh" 2>&1) || { echo "$out"; fail "Kata's command lines as virtiofsd"; }
echo "$out" | grep -E '^(==|ok|PASS)'

echo "PASS: virtiofsd and stainless-virtiofsd answer as virtiofsd; Kata's command lines serve"
