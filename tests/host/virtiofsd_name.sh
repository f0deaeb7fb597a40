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
#   --rlimit-nofile=N the limit of the sandboxed server;
#   Kata's Go and runtime-rs command lines (tests/host/vhost_user_kata.sh
#   with BACKEND=that link), and libvirt 9.0's (qemu_virtiofs.c:
#   --fd=N -o source=D,cache=M,sandbox=chroot|namespace,xattr,flock,posix_lock
#   --thread-pool-size=N), each driven by our own frontend
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
# The binary itself: argv[0] picks the command, which the log pass's
# wrapper script (tests/seccomp-log) would hide; these run in kill mode.
ln -s "${STAINLESS_REAL:-$STAINLESS}" "$T/bin/virtiofsd"
ln -s "${STAINLESS_REAL:-$STAINLESS}" "$T/bin/stainless-virtiofsd"
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

# --rlimit-nofile holds in the sandboxed server, as virtiofsd's does.
. "$HERE/server_pid.inc"
"$T/bin/virtiofsd" --socket-path="$T/rl.sock" --shared-dir="$T/share" --rlimit-nofile=4096 \
	>"$T/rl.log" 2>&1 &
rl=$!
n=0
while [ ! -S "$T/rl.sock" ] && [ $n -lt 50 ]; do n=$((n + 1)); sleep 0.1; done
lim=$(awk '/^Max open files/ { print $4 "/" $5 }' "/proc/$(server_pid $rl)/limits")
kill "$rl"; wait "$rl" 2>/dev/null
[ "$lim" = 4096/4096 ] || { cat "$T/rl.log"; fail "--rlimit-nofile=4096: the server's limit is $lim"; }
echo "ok: --rlimit-nofile=4096: the sandboxed server's RLIMIT_NOFILE is 4096/4096"

# Kata's two command lines, the program run by path as Kata runs it.
out=$(BACKEND=$T/bin/virtiofsd sh "$HERE/vhost_user_kata.sh" 2>&1) || { echo "$out"; fail "Kata's command lines as virtiofsd"; }
echo "$out" | grep -E '^(==|ok|PASS)'

$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_kata_client.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" || fail "cannot build vu_kata_client"
TEXT="bytes the host wrote for the guest to read"
LV=$T/lib,virt   # a comma in the path, which libvirt doubles
mkdir -p "$LV"
printf '%s' "$TEXT" >"$LV/from-host.txt"
# libvirt RUNNAME CACHE SANDBOX: the argv libvirt 9.0 builds (it makes the
# listening socket and passes it; here as fd 3), with a comma in the path
# as libvirt escapes it (doubled).
libvirt() {
	new=$1 cache=$2 sb=$3
	text="the guest wrote this as $new"
	src=$(printf '%s' "$LV" | sed 's/,/,,/g')
	set -- --fd=3 -o "source=$src,cache=$cache,sandbox=$sb,xattr,flock,posix_lock" --thread-pool-size=16
	echo "== libvirt: stainless-virtiofsd $*"
	"$T/client" --fd3 "$T/$new.sock" from-host.txt "$TEXT" "$new" "$text" \
		-- "$T/bin/stainless-virtiofsd" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	cat "$T/out"
	[ $rc -eq 0 ] || { tail -n 20 "$T/err"; fail "libvirt's command line ($cache, $sb)"; }
	[ "$(cat "$LV/$new" 2>/dev/null)" = "$text" ] || fail "libvirt: $new not on the host"
}
libvirt libvirt-ns.txt always namespace
[ "$(id -u)" -eq 0 ] && libvirt libvirt-chroot.txt none chroot
echo "PASS: virtiofsd and stainless-virtiofsd answer as virtiofsd; Kata's and libvirt's command lines serve"
