#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Rule (issue 22, items 1 and 2): a compromised serving thread can neither
# decode a file handle that leads outside its share nor make a host device
# node, in every command's real sandbox, and each layer holds alone.
# tests/host/sandbox_escape.c enters the sandbox of each command (run,
# fuse-mount and its --uring role, 9p-serve, vhost-user-fs), starts a
# thread under that command's serving role with the serving capabilities
# and attacks from there: open_by_handle_at with the real handle of a
# secret file beside the share (same file system) and with ext4 handles
# forged from inode numbers around it; mknodat of a block device in the
# share; the old mknod(2). Twice each: under the command's seccomp filter,
# which must kill the process at the call (SIGSYS: 159, not merely the
# EPERM the capabilities would give), and with no filter but the
# capability limits (EPERM): so each layer is shown to hold alone. With a `devices` share, root's block
# device is made (and a FIFO and the 0:0 whiteout always are).
# Exit 0 pass, 77 skip (last line says why), else fail.
set -u
: "${O:=build}"
PROG=${SANDBOX_ESCAPE:-$(pwd)/$O/tests/host/sandbox_escape}

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (capabilities to drop, namespaces)"
[ -x "$PROG" ] || skip "no $PROG (make host builds it)"

# On the root file system when it has handles (ext4 here): the case the issue names.
T=$(mktemp -d /var/tmp/sandbox_escape.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILS=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }

# run CMD LAYER ATTACK [devices]: prints the program's line, sets $rc and $out.
run() {
	rm -rf "$T/share"
	mkdir "$T/share"
	out=$("$PROG" "$1" "$2" "$3" "$T/share" "$T/secret" ${4:-} 2>"$T/err"); rc=$?
	[ $rc -eq 77 ] && { echo "$out"; skip "${out#SKIP: }"; }
}

echo "the secret: outside the share" >"$T/secret"
for cmd in run fuse-mount fuse-mount-uring 9p-serve vhost-user-fs; do
	# seccomp: the first open_by_handle_at kills the process; never an fd.
	run "$cmd" seccomp handles
	case "$rc:$out" in
	159:) ok "$cmd seccomp: open_by_handle_at killed by the filter (exit $rc)" ;;
	*) bad "$cmd seccomp: handles: exit $rc: $out $(cat "$T/err")" ;;
	esac
	run "$cmd" caps handles
	case "$rc:$out" in
	0:"handles: refused"*"Operation not permitted"*) ok "$cmd caps: handles refused: $out" ;;
	*) bad "$cmd caps: handles: exit $rc: $out $(cat "$T/err")" ;;
	esac
	run "$cmd" seccomp mknod
	if [ $rc -eq 159 ]; then
		[ -p "$T/share/fifo" ] && [ -c "$T/share/whiteout" ] &&
			ok "$cmd seccomp: FIFO and whiteout made, block device refused (exit $rc)" ||
			bad "$cmd seccomp: FIFO or whiteout missing"
	else
		bad "$cmd seccomp: mknod: exit $rc: $out $(cat "$T/err")"
	fi
	[ -b "$T/share/disk" ] && bad "$cmd seccomp: a block device exists"
	run "$cmd" caps mknod
	case "$rc:$out" in
	"0:mknod: refused a block device 7:0 (Operation not permitted)") ok "$cmd caps: $out" ;;
	*) bad "$cmd caps: mknod: exit $rc: $out $(cat "$T/err")" ;;
	esac
	run "$cmd" seccomp mknod-legacy
	[ $rc -eq 159 ] && ok "$cmd seccomp: mknod(2) is no serving call (SIGSYS)" ||
		bad "$cmd seccomp: mknod(2): exit $rc: $out"
	# A share with `devices`: root's device node is made, under both layers.
	for layer in seccomp caps; do
		run "$cmd" $layer mknod devices
		[ "$rc:$out" = "0:mknod: made a block device 7:0" ] && [ -b "$T/share/disk" ] &&
			ok "$cmd $layer, devices: $out" ||
			bad "$cmd $layer, devices: exit $rc: $out $(cat "$T/err")"
	done
done
[ $FAILS -eq 0 ]
