#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Rootless fuse-mount (transport/fuse_mountpoint.c), whatever this
# machine's /dev/fuse is. fusermount3 opens /dev/fuse as the calling user:
# the node's mode is how an administrator grants FUSE to users (Debian's
# udev: 0666; a container's default: 0600 root, where the distribution's
# fusermount3 itself fails for every user). So this test makes both kinds
# of machine itself, in a mount namespace of its own where /dev/fuse is a
# node it made:
#   0600 root   fuse-mount as nobody exits 1 with one line naming
#               /dev/fuse's mode, and mounts nothing;
#   NNP         under no_new_privs (setuid taken away) one line says so;
#   0666        nobody serves a directory it owns: a file made through the
#               mount is nobody's on the host; SIGTERM exits 0 and the
#               mount is gone once the command has returned, also when
#               the server was killed and fusermount3 -u takes 3 s to
#               run (a wrapper in PATH makes it slow, as a loaded machine
#               does), so a new mount at once on the same mount point is
#               the only one there; and a mount taken down from outside
#               and made again at once is not taken down by the first
#               command's exit.
# Preconditions it cannot make (fusermount3, a user nobody, setpriv and
# unshare, a device node of its own, user namespaces) make it SKIP.
set -u
: "${STAINLESS:?}"
HERE=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" != --in-ns ]; then
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (to make device nodes; the test runs as nobody)"; exit 77; }
	for c in setpriv unshare mknod; do
		command -v $c >/dev/null || { echo "SKIP: no $c (util-linux, coreutils)"; exit 77; }
	done
	command -v fusermount3 >/dev/null || { echo "SKIP: no fusermount3 (package fuse3)"; exit 77; }
	id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups unshare -U true 2>/dev/null ||
		{ echo "SKIP: nobody cannot make a user namespace (user.max_user_namespaces, kernel.unprivileged_userns_clone)"; exit 77; }
	T=$(mktemp -d)
	chmod 755 "$T"
	unshare --mount --propagation private sh "$0" --in-ns "$T"; rc=$?
	rm -rf "$T"
	exit $rc
fi

# --- inside a mount namespace of our own ---------------------------------------
T=$2
. "$HERE/server_pid.inc"
PID=
cleanup() {
	[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
	umount -l "$T/mnt" 2>/dev/null
}
trap cleanup EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
mounts_at() { awk -v p="$1" '$5 == p' /proc/self/mountinfo | wc -l; }

for m in 600 666; do
	mknod "$T/fuse$m" c 10 229 2>/dev/null && chmod "$m" "$T/fuse$m" ||
		{ echo "SKIP: cannot make a device node in $T (nodev, or no CAP_MKNOD)"; exit 77; }
done
use_fuse() { # MODE: /dev/fuse in this namespace is our node of that mode
	umount /dev/fuse 2>/dev/null
	[ -e /dev/fuse ] || { echo "SKIP: no /dev/fuse to mount over"; exit 77; }
	mount --bind "$T/fuse$1" /dev/fuse || { echo "SKIP: cannot bind a node over /dev/fuse"; exit 77; }
}
NG=$(id -g nobody) U=$(id -u nobody)
AS_NOBODY="setpriv --reuid=nobody --regid=$NG --clear-groups"
mkdir -p "$T/share" "$T/mnt" "$T/bin"
chown -R nobody:"$NG" "$T/share" "$T/mnt"
REAL=$(command -v fusermount3)

# --- a machine whose /dev/fuse is 0600 root: one line, no mount ----------------
use_fuse 600
$AS_NOBODY "$STAINLESS" fuse-mount "$T/share" "$T/mnt" 2>"$T/600.err"; rc=$?
check "/dev/fuse 0600: exit 1 ($rc), one line naming /dev/fuse's mode ($(cat "$T/600.err"))" \
	test $rc -eq 1 -a "$(wc -l <"$T/600.err")" -eq 1 -a "$(grep -c 'mode 0600' "$T/600.err")" -eq 1
check "/dev/fuse 0600: nothing mounted" test "$(mounts_at "$T/mnt")" -eq 0

use_fuse 666
# --- no_new_privs: fusermount3's setuid is gone, one line says so -------------
$AS_NOBODY --no-new-privs "$STAINLESS" fuse-mount "$T/share" "$T/mnt" 2>"$T/nnp.err"; rc=$?
check "no_new_privs: exit 1 ($rc), one line naming it ($(cat "$T/nnp.err"))" \
	test $rc -eq 1 -a "$(wc -l <"$T/nnp.err")" -eq 1 -a "$(grep -c no_new_privs "$T/nnp.err")" -eq 1
check "no_new_privs: nothing mounted" test "$(mounts_at "$T/mnt")" -eq 0

# --- /dev/fuse 0666: nobody serves its own directory ----------------------------
serve() { # [PATH]: start a rootless fuse-mount (with SB_OPT), wait for its mount
	env PATH="${1:-$PATH}" $AS_NOBODY "$STAINLESS" fuse-mount ${SB_OPT:-} "$T/share" "$T/mnt" 2>>"$T/fm.err" &
	PID=$!
	for i in $(seq 50); do [ "$(mounts_at "$T/mnt")" -gt 0 ] && break; sleep 0.1; done
}
serve
$AS_NOBODY sh -c "echo made >'$T/mnt/new'"
check "0666: a file made through the mount is nobody's on the host" \
	[ "$(stat -c %u "$T/share/new" 2>/dev/null)" = "$U" ]
kill -TERM "$PID"; wait "$PID"; rc=$?; PID=
check "0666: SIGTERM exits 0 ($rc), the mount gone when it returns" \
	test $rc -eq 0 -a "$(mounts_at "$T/mnt")" -eq 0

# A slow fusermount3 -u (a loaded machine): the command waits for it.
cat >"$T/bin/fusermount3" <<EOF
#!/bin/sh
case "\$1" in -u) sleep 3 ;; esac
exec $REAL "\$@"
EOF
chmod 755 "$T/bin/fusermount3"
serve "$T/bin:$PATH"
$AS_NOBODY ls "$T/mnt" >/dev/null
kill -TERM "$PID"; wait "$PID"; rc=$?; PID=
check "slow fusermount3 -u: SIGTERM exits 0 ($rc), the mount gone when it returns" \
	test $rc -eq 0 -a "$(mounts_at "$T/mnt")" -eq 0
# Unmounted from outside and mounted again at once (mount, umount, mount as
# a script does): the first command's exit, whose unmounter would run the
# slow fusermount3 -u by name after the second mount, takes nothing down;
# in the sandbox (the supervisor hears the server exit 0) and without it
# (the readers hear ENODEV).
for sb in namespace none; do
	SB_OPT="--sandbox $sb" serve "$T/bin:$PATH"
	A=$PID KIDS=$(pgrep -P "$PID" | tr '\n' ' ') # its server and unmounter
	$AS_NOBODY "$REAL" -u "$T/mnt"
	serve
	wait "$A"; rc=$?
	for i in $(seq 100); do # until every process of the first command has ended
		alive=0
		for k in $KIDS; do kill -0 "$k" 2>/dev/null && alive=1; done
		[ $alive -eq 0 ] && break
		sleep 0.1
	done
	check "--sandbox $sb, unmounted from outside: exits 0 ($rc), the new mount made meanwhile stays ($(mounts_at "$T/mnt"))" \
		test $rc -eq 0 -a "$(mounts_at "$T/mnt")" -eq 1
	kill -TERM "$PID"; wait "$PID"; PID=
done
# A server that dies: the supervisor's clean-up alone takes the mount down.
serve "$T/bin:$PATH"
$AS_NOBODY ls "$T/mnt" >/dev/null
kill -KILL "$(server_pid "$PID")"; wait "$PID"; rc=$?; PID=
check "slow fusermount3 -u, server killed: status 137 ($rc), the mount gone when it returns" \
	test $rc -eq 137 -a "$(mounts_at "$T/mnt")" -eq 0
serve
check "... and the next mount at once is the only one there ($(mounts_at "$T/mnt"))" \
	test "$(mounts_at "$T/mnt")" -eq 1
kill -TERM "$PID"; wait "$PID"; PID=
grep -v 'no file handles' "$T/fm.err" | sed 's/^/  stderr: /'

[ $fails -eq 0 ] && { echo PASS; exit 0; }
echo "$fails failure(s)"
exit 1
