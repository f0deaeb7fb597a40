#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The exit-code contract (docs/exit-codes.md) from the outside, one check
# per code and per message the user meets first:
#   2  bad usage or a bad value, for every command;
#   1  a runtime failure with one line saying what: a missing kernel names
#      --kernel, a missing share names --fs TAG / --9p TAG (checked before
#      KVM and the sandbox, so on any host), a missing /dev/kvm says how to
#      get one (where there is none), and fuse-mount on a mount point a
#      killed server left dead says how to clear it (where FUSE mounts
#      can be made);
#   never a raw -errno (254, 243, 231).
# The guest's own failure (3) needs a KVM that runs guests: vmm_run.sh.
set -u
: "${STAINLESS:?}"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect CODE PATTERN ARGS...: the exit code, and one stderr line matching.
expect() {
	code=$1 pat=$2
	shift 2
	timeout 20 "$STAINLESS" "$@" </dev/null >/dev/null 2>"$t/err"; rc=$?
	[ $rc -eq "$code" ] || fail "stainless $*: exit $rc, expected $code ($(cat "$t/err"))"
	grep -q -- "$pat" "$t/err" || fail "stainless $*: said '$(cat "$t/err")', expected '$pat'"
	[ "$(wc -l <"$t/err")" -le 2 ] || fail "stainless $*: more than one line: $(cat "$t/err")"
}

: >"$t/kernel"
mkdir "$t/share"

expect 2 "unknown command 'frobnicate'" frobnicate
expect 2 "unknown option '--frobnicate'" run --kernel "$t/kernel" --frobnicate
expect 2 "--kernel PATH is required" run
expect 2 "expected TAG=DIR" run --kernel "$t/kernel" --fs nodir
expect 2 "--socket PATH is required" 9p-serve "$t/share"
expect 2 "usage: stainless fuse-mount" fuse-mount
expect 2 "is not an option" vhost-user-fs --frobnicate
expect 2 "seccomp" run --seccomp frobnicate --kernel "$t/kernel"

expect 1 "stainless run: --kernel $t/nokernel: No such file or directory" \
	run --kernel "$t/nokernel"
expect 1 "stainless run: --initrd $t/noinitrd: No such file or directory" \
	run --kernel "$t/kernel" --initrd "$t/noinitrd"
expect 1 "stainless run: --fs docs: $t/noshare: No such file or directory" \
	run --kernel "$t/kernel" --fs "docs=$t/noshare"
expect 1 "stainless run: --9p p: $t/kernel: not a directory" \
	run --kernel "$t/kernel" --9p "p=$t/kernel"
expect 1 "stainless 9p-serve: cannot listen on" \
	9p-serve --socket "$t/no/such/dir/sock" "$t/share"

if [ -e /dev/kvm ]; then
	echo "note: /dev/kvm exists here: its missing-device hint is not checked"
else
	expect 1 "/dev/kvm: No such file or directory: this host offers no KVM; load kvm_intel or kvm_amd" \
		run --kernel "$t/kernel" --fs "docs=$t/share"
fi
# A dead FUSE mount: a server killed with its mount up (no sandbox, so no
# supervisor takes it down).
mkdir "$t/mnt"
if [ "$(id -u)" -eq 0 ] && [ -r /dev/fuse ] && [ -w /dev/fuse ]; then
	"$STAINLESS" fuse-mount --sandbox none --seccomp none "$t/share" "$t/mnt" 2>/dev/null &
	pid=$!
	i=0; while ! grep -q " $t/mnt fuse" /proc/self/mounts && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
	kill -KILL $pid; wait $pid 2>/dev/null
	if stat "$t/mnt" 2>&1 | grep -q 'not connected'; then
		expect 1 "fusermount3 -u -z $t/mnt" fuse-mount "$t/share" "$t/mnt"
	else
		echo "note: the killed server's mount did not go dead here: hint not checked"
	fi
	umount -l "$t/mnt" 2>/dev/null
else
	echo "note: no FUSE mounts here (not root or no /dev/fuse): dead-mount hint not checked"
fi
echo "PASS exit_codes"
