#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Linux kernel's own 9p client against `stainless 9p-serve`:
# mount -t 9p -o trans=unix, then a POSIX battery over the mount, each
# result checked on the host side of the share. Needs root and a kernel
# with 9p (9p.ko / CONFIG_9P_FS): where either is missing it says SKIP and
# why. Written to run unchanged inside the nested test host too.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: mounting needs root"; exit 77; }
grep -qw 9p /proc/filesystems || modprobe 9p 2>/dev/null
grep -qw 9p /proc/filesystems ||
	{ echo "SKIP: this kernel has no 9p filesystem (not in /proc/filesystems, modprobe 9p failed)"; exit 77; }

T=$(mktemp -d /tmp/p9_mount.XXXXXX)
SHARE=$T/share
MNT=$T/mnt
SOCK=$T/sock
PID=
HOLD=
cleanup() {
	[ -n "$HOLD" ] && kill "$HOLD" 2>/dev/null
	umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$SHARE" "$MNT"
printf 'from the host\n' >"$SHARE/host.txt"

"$STAINLESS" 9p-serve --socket "$SOCK" "$SHARE" 2>"$T/server.err" &
PID=$!
i=0
while [ ! -S "$SOCK" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "no socket: $(cat "$T/server.err")"
	sleep 0.05
done
mount -t 9p -o trans=unix,version=9p2000.L,msize=524288,cache=none "$SOCK" "$MNT" ||
	fail "mount -t 9p -o trans=unix failed (server: $(cat "$T/server.err"))"
echo "ok: mounted"

# Reading what the host wrote, and the host reading what we write.
[ "$(cat "$MNT/host.txt")" = "from the host" ] || fail "read of a host file"
printf 'written over 9p\n' >"$MNT/new.txt"
[ "$(cat "$SHARE/new.txt")" = "written over 9p" ] || fail "host does not see the write"
printf 'more\n' >>"$MNT/new.txt"
[ "$(wc -l <"$SHARE/new.txt")" -eq 2 ] || fail "append"
head -c 2000000 /dev/urandom >"$T/blob"
cp "$T/blob" "$MNT/blob" && cmp -s "$T/blob" "$SHARE/blob" || fail "2 MB copy in"
cmp -s "$MNT/blob" "$T/blob" || fail "2 MB read back"
dd if=/dev/zero of="$MNT/blob" bs=1 count=0 seek=1000 2>/dev/null
[ "$(stat -c %s "$SHARE/blob")" -eq 1000 ] || fail "truncate"
echo "ok: read, write, append, large copy, truncate"

# Directories and names.
mkdir -p "$MNT/a/b/c" && [ -d "$SHARE/a/b/c" ] || fail "mkdir -p"
mv "$MNT/new.txt" "$MNT/a/b/moved.txt" && [ -f "$SHARE/a/b/moved.txt" ] || fail "rename across dirs"
[ ! -e "$SHARE/new.txt" ] || fail "rename left the old name"
ln -s ../host.txt "$MNT/a/sym" && [ "$(readlink "$MNT/a/sym")" = "../host.txt" ] || fail "symlink"
[ "$(cat "$MNT/a/sym")" = "from the host" ] || fail "reading through a symlink"
ln "$MNT/host.txt" "$MNT/a/hard" && [ "$(stat -c %h "$SHARE/host.txt")" -eq 2 ] || fail "hard link"
rm "$MNT/a/hard" && [ "$(stat -c %h "$SHARE/host.txt")" -eq 1 ] || fail "unlink"
rmdir "$MNT/a/b/c" && [ ! -e "$SHARE/a/b/c" ] || fail "rmdir"
rmdir "$MNT/a/b" 2>/dev/null && fail "rmdir of a non-empty directory succeeded"
mkfifo "$MNT/fifo" && [ -p "$SHARE/fifo" ] || fail "mkfifo"
echo "ok: mkdir, rename, symlink, hard link, unlink, rmdir, mknod"

# Attributes.
chmod 0640 "$MNT/host.txt" && [ "$(stat -c %a "$SHARE/host.txt")" = 640 ] || fail "chmod"
touch -d '2001-02-03 04:05:06' "$MNT/host.txt"
[ "$(stat -c %Y "$SHARE/host.txt")" = "$(date -d '2001-02-03 04:05:06' +%s)" ] || fail "utimes"
chown 1234:5678 "$MNT/host.txt" && [ "$(stat -c %u:%g "$SHARE/host.txt")" = 1234:5678 ] || fail "chown"
df "$MNT" >/dev/null || fail "statfs"
echo "ok: chmod, utimes, chown, statfs"

# A big directory.
i=0; while [ $i -lt 1000 ]; do : >"$MNT/a/f$i" || fail "creating file $i"; i=$((i + 1)); done
[ "$(ls "$MNT/a" | wc -l)" -eq "$(ls "$SHARE/a" | wc -l)" ] || fail "readdir count differs"
echo "ok: readdir of $(ls "$MNT/a" | wc -l) entries"

# xattrs and locks through p9_probe (busybox has no flock/setfattr).
PROBE=${P9_PROBE:-}
if [ -z "$PROBE" ] && command -v "${CC:-cc}" >/dev/null 2>&1; then
	"${CC:-cc}" -O2 -o "$T/p9_probe" "$(dirname "$0")/p9_probe.c" && PROBE=$T/p9_probe
fi
if [ -z "$PROBE" ]; then
	echo "note: no p9_probe (no C compiler): xattr and lock checks skipped"
else
	# The server only lets clients write user.* (and ACLs): trusted.* and
	# security.* would be written with the server's privileges.
	"$PROBE" xset "$MNT/host.txt" trusted.k v1 2>/dev/null && fail "trusted.* xattr set over 9p"
	"$PROBE" xset "$MNT/host.txt" security.capability v1 2>/dev/null && fail "security.capability set over 9p"
	: >"$SHARE/xa"
	if "$PROBE" xset "$SHARE/xa" user.probe 1 2>/dev/null; then
		"$PROBE" xset "$MNT/host.txt" user.k v1 || fail "setxattr user.k over 9p"
		[ "$("$PROBE" xget "$SHARE/host.txt" user.k)" = v1 ] || fail "xattr not on the host"
		[ "$("$PROBE" xget "$MNT/host.txt" user.k)" = v1 ] || fail "getxattr over 9p"
		"$PROBE" xlist "$MNT/host.txt" | grep -qx user.k || fail "listxattr over 9p"
		"$PROBE" xrm "$MNT/host.txt" user.k || fail "removexattr over 9p"
		"$PROBE" xget "$SHARE/host.txt" user.k >/dev/null 2>&1 && fail "xattr still on the host"
		echo "ok: user.* xattrs set, read, listed, removed; trusted.*/security.* refused"
	else
		# tmpfs before Linux 6.6 has no user.* xattrs. What it does keep, the
		# host's own trusted.*, a client must not see (fs/fs_xattr.h).
		"$PROBE" xset "$SHARE/host.txt" trusted.h hv || fail "host trusted xattr"
		"$PROBE" xget "$MNT/host.txt" trusted.h >/dev/null 2>&1 && fail "the host's trusted.h read over 9p"
		"$PROBE" xlist "$MNT/host.txt" | grep -q '^trusted\.' && fail "the host's trusted.h listed over 9p"
		echo "ok: trusted.*/security.* writes refused, the host's trusted.* unseen (no user.* on this fs to test)"
	fi

	# A POSIX lock held by a host process refuses the client (fcntl and
	# flock, which 9p turns into POSIX locks); a blocking lock is granted
	# as soon as the host lets go, not after the client's retry interval.
	: >"$SHARE/lockme"
	"$PROBE" hold "$SHARE/lockme" "$T/held" 3 &
	HOLD=$!
	i=0
	while [ ! -e "$T/held" ]; do i=$((i + 1)); [ $i -gt 100 ] && fail "host lock holder"; sleep 0.05; done
	"$PROBE" try "$MNT/lockme"; rc=$?
	[ $rc -eq 3 ] || fail "fcntl lock over 9p while the host holds it: exit $rc, want refused"
	"$PROBE" flock-try "$MNT/lockme"; rc=$?
	[ $rc -eq 3 ] || fail "flock over 9p while the host holds a POSIX lock: exit $rc, want refused"
	waited=$("$PROBE" wait "$MNT/lockme") || fail "blocking lock over 9p"
	wait "$HOLD"; HOLD=
	case $waited in
	0.[0-4]*) fail "blocking lock granted after ${waited}s while the host held it" ;;
	[0-9].*) ;;
	*) fail "blocking lock took ${waited}s (a retry interval, not a wake-up)" ;;
	esac
	"$PROBE" try "$MNT/lockme" || fail "lock refused after the host released it"
	echo "ok: host-held lock refuses fcntl and flock; SETLKW granted ${waited}s later, on release"
fi

# Requests run with the credentials of the guest user (access=user: the
# kernel attaches once per uid), so the host kernel checks permissions.
if [ -n "$PROBE" ]; then
	chmod 0755 "$T"   # mktemp's 0700 would stop the user before 9p is asked
	mkdir -m 0777 "$MNT/pub" && mkdir -m 0755 "$MNT/rootonly" || fail "mkdir for the user test"
	"$PROBE" asuser 1000 1000 sh -c ": >'$MNT/pub/mine'" || fail "user 1000 cannot create in a 0777 dir"
	[ "$(stat -c %u:%g "$SHARE/pub/mine")" = 1000:1000 ] ||
		fail "file created by uid 1000 is owned by $(stat -c %u:%g "$SHARE/pub/mine") on the host"
	"$PROBE" asuser 1000 1000 sh -c ": >'$MNT/rootonly/nope'" 2>/dev/null &&
		fail "user 1000 created a file in root's 0755 directory"
	[ -e "$SHARE/rootonly/nope" ] && fail "the refused file exists on the host"
	"$PROBE" asuser 1000 1000 sh -c "cat '$MNT/a/b/moved.txt'" >/dev/null || fail "user 1000 cannot read a 0644 file"
	chmod 0600 "$MNT/a/b/moved.txt"
	"$PROBE" asuser 1000 1000 sh -c "cat '$MNT/a/b/moved.txt'" >/dev/null 2>&1 &&
		fail "user 1000 read root's 0600 file"
	echo "ok: guest users act with their own uid/gid on the host"
fi

umount "$MNT" || fail "umount"
kill -0 "$PID" || fail "server died"
echo "PASS"
