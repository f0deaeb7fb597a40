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
	fail "mount -t 9p -o trans=unix failed"
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
(cd "$MNT/a" && seq -f 'f%05g' 1 3000 | xargs touch) || fail "creating 3000 files"
[ "$(ls "$MNT/a" | wc -l)" -eq "$(ls "$SHARE/a" | wc -l)" ] || fail "readdir count differs"
echo "ok: readdir of $(ls "$MNT/a" | wc -l) entries"

# xattrs, when the tools are there.
if command -v setfattr >/dev/null 2>&1 && command -v getfattr >/dev/null 2>&1; then
	setfattr -n user.k -v v1 "$MNT/host.txt" || fail "setfattr"
	[ "$(getfattr --only-values -n user.k "$SHARE/host.txt")" = v1 ] || fail "xattr not on the host"
	getfattr -d "$MNT/host.txt" | grep -q 'user.k="v1"' || fail "xattr list"
	setfattr -x user.k "$MNT/host.txt" || fail "removexattr"
	echo "ok: xattrs"
fi

# A POSIX lock the host holds refuses the client's lock on the same file.
if command -v python3 >/dev/null 2>&1 && command -v flock >/dev/null 2>&1; then
	python3 -c 'import fcntl,sys,time; f=open(sys.argv[1],"r+"); fcntl.lockf(f, fcntl.LOCK_EX); open(sys.argv[2],"w").close(); time.sleep(30)' \
		"$SHARE/host.txt" "$T/held" &
	HOLD=$!
	i=0
	while [ ! -e "$T/held" ]; do i=$((i + 1)); [ $i -gt 100 ] && fail "host lock holder"; sleep 0.05; done
	flock -n "$MNT/host.txt" true && fail "lock granted while the host holds a POSIX lock"
	kill "$HOLD"; wait "$HOLD" 2>/dev/null; HOLD=
	flock -n "$MNT/host.txt" true || fail "lock refused after the host released it"
	echo "ok: host-held lock refuses the client, release lets it in"
fi

umount "$MNT" || fail "umount"
kill -0 "$PID" || fail "server died"
echo "PASS"
