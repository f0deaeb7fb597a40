#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fuse-mount --passthrough (real kernel FUSE client, Linux 6.9+, as root):
#   data: 4 MiB written through the mount equal the backing file's bytes,
#     and bytes written to the backing file read back through the mount
#     at once (no FUSE cache between); a shared mapping's writes reach the
#     backing file (mmap goes to the backing file too);
#   passthrough for real: with --log-level trace, not one READ or WRITE
#     request reaches the server for those files (the kernel did the I/O);
#   the privilege split: no serving thread (nor the server's main thread)
#     holds CAP_SYS_ADMIN; the registrar holds it alone, in the host's
#     namespaces, under its seccomp role;
#   ids: --stats after SIGTERM says the registrar's ids are 0 again and
#     that it registered one per opened file, refused none;
#   the registrar's checks (tests/host/fuse_registrar_probe.c, as a
#     compromised server): only a regular file on the share's own mount;
#     a directory, a FIFO, a socket, a file of another mount (a bind mount
#     of the share, /proc, a memfd), an immutable or append-only file, a
#     second HELLO, malformed messages refused; at most 4096 ids;
#   -o passthrough (mount(8)'s word) does the same, with cache=auto too;
#   the rules: --passthrough with writeback is a usage error (2, one line);
#     without root, or under --sandbox chroot, one line and the share is
#     served without it.
# The seccomp log pass (tests/run-host) covers the server, the registrar
# and the probe's registrar (kill mode there).
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
: "${O:=build}"
PROBE=${FUSE_REGISTRAR_PROBE:-$(pwd)/$O/tests/host/fuse_registrar_probe}
BIN=${STAINLESS_REAL:-$STAINLESS}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/server_pid.inc"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (mount(2) of a FUSE file system, CAP_SYS_ADMIN)"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
[ -x "$PROBE" ] || { echo "SKIP: no $PROBE (make O=$O $O/tests/host/fuse_registrar_probe)"; exit 77; }
T=$(mktemp -d /tmp/fuse_passthrough.XXXXXX)
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	umount -l "$T/mnt" 2>/dev/null
	umount -l "$T/bind" 2>/dev/null
	umount -l "$T/pshare" 2>/dev/null
	umount -l "$T/share" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$T/err" ] && head -n 30 "$T/err"; exit 1; }
mkdir -p "$T/share" "$T/mnt" "$T/pshare" "$T/pmnt" "$T/bind"
mount -t tmpfs -o size=64m stainless-pt "$T/share" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
info() { awk -v m="$T/mnt" '$5 == m' /proc/self/mountinfo; }
wait_serving() {
	i=0; until grep -q 'serving' "$T/err" || [ $i -ge 100 ]; do i=$((i + 1)); sleep 0.1; done
	grep -q serving "$T/err"
}

# The registrar as a compromised server drives it (its own connection).
mount -t tmpfs -o size=8m stainless-pt-probe "$T/pshare" && mount --bind "$T/pshare" "$T/bind" ||
	fail "probe's mounts"
"$PROBE" check "$T/pshare" "$T/pmnt" "$T/bind" >"$T/probe" 2>&1; rc=$?
cat "$T/probe"
[ $rc -eq 77 ] && { tail -n 1 "$T/probe"; exit 77; }
[ $rc -eq 0 ] || fail "the registrar probe (exit $rc)"

: >"$T/err"
"$STAINLESS" fuse-mount "$T/share" "$T/mnt" --passthrough --stats --log-level trace 2>"$T/err" &
PID=$!
wait_serving || fail "no mount"
if grep -q 'does not offer FUSE passthrough' "$T/err"; then
	echo "SKIP: this kernel does not offer FUSE passthrough: $(grep passthrough "$T/err")"
	exit 77
fi

# Data through the mount equals the backing file's, both ways.
head -c 4194304 /dev/urandom >"$T/data"
dd if="$T/data" of="$T/mnt/w" bs=4k conv=fsync 2>/dev/null || fail "write through the mount"
cmp "$T/data" "$T/share/w" || fail "written through the mount != the backing file"
cmp "$T/data" "$T/mnt/w" || fail "read back through the mount != what was written"
head -c 1048576 /dev/urandom >"$T/share/r"
cmp "$T/share/r" "$T/mnt/r" || fail "the backing file read through the mount differs"
exec 7<"$T/mnt/r"                       # held open: the next write lands under it
printf 'changed' | dd of="$T/share/r" bs=1 seek=4096 conv=notrunc 2>/dev/null
cmp "$T/share/r" "$T/mnt/r" || fail "a change to the backing file is not seen at once"
exec 7<&-
"$PROBE" mmap "$T/mnt/m" || fail "mmap through the mount"
"$PROBE" mmap "$T/data-m" >/dev/null
cmp "$T/data-m" "$T/share/m" || fail "a shared mapping's writes did not reach the backing file"
echo "ok: data equal both ways (4 MiB written, 1 MiB read, a change seen at once), mmap writes land"

sleep 0.3
n=$(grep -cE 'trace: fuse (READ|WRITE) ' "$T/err")
[ "$n" -eq 0 ] || fail "$n READ/WRITE requests reached the server: passthrough is not on"
grep -qE 'trace: fuse (OPEN|CREATE) ' "$T/err" || fail "no OPEN/CREATE traced: the trace proves nothing"
echo "ok: no READ or WRITE request reached the server ($(grep -cE 'trace: fuse (OPEN|CREATE) ' "$T/err") opens)"

# The privilege split: CAP_SYS_ADMIN is the registrar's alone.
srv=$(server_pid "$PID")
for st in /proc/"$srv"/task/*/status; do
	eff=$(awk '/^CapEff/ { print $2 }' "$st")
	[ $(( 0x$eff >> 21 & 1 )) -eq 0 ] || fail "server thread $(awk '/^Name/ { print $2 }' "$st") holds CAP_SYS_ADMIN ($eff)"
done
reg=$(pgrep -P "$PID" -x registrar)
[ -n "$reg" ] || fail "no registrar child of the supervisor"
[ "$(awk '/^CapEff/ { print $2 }' /proc/"$reg"/status)" = 0000000000200000 ] ||
	fail "the registrar holds more than CAP_SYS_ADMIN: $(grep CapEff /proc/"$reg"/status)"
grep -q '^Seccomp:[[:space:]]*2' /proc/"$reg"/status || fail "the registrar has no seccomp filter"
[ "$(readlink /proc/"$reg"/ns/mnt)" = "$(readlink /proc/self/ns/mnt)" ] ||
	fail "the registrar is not in the host's mount namespace"
[ "$(readlink /proc/"$srv"/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] ||
	fail "the server is in the host's mount namespace"
echo "ok: $(ls /proc/"$srv"/task | wc -l) server threads without CAP_SYS_ADMIN; the registrar (pid $reg) holds it alone, under seccomp"

kill "$PID"; wait "$PID"; rc=$?; PID=
[ $rc -eq 0 ] || fail "SIGTERM: exit $rc"
line=$(grep 'stats: registrar' "$T/err") || fail "no registrar stats line"
echo "$line"
case $line in *" ids=0 "*) ;; *) fail "backing ids left registered: $line" ;; esac
case $line in *" refused=0"*) ;; *) fail "the registrar refused a file of the share: $line" ;; esac
reg_n=$(echo "$line" | sed 's/.*registered=\([0-9]*\).*/\1/')
[ "$reg_n" -ge 3 ] || fail "fewer ids registered ($reg_n) than files opened"
echo "ok: ids back to 0 after close, $reg_n registered"

# -o passthrough (mount(8)'s spelling) is the same switch.
: >"$T/err"
"$STAINLESS" fuse-mount "$T/share" "$T/mnt" -o passthrough,cache=auto --log-level trace 2>"$T/err" &
PID=$!
wait_serving || { cat "$T/err"; fail "-o passthrough: no mount"; }
cmp "$T/share/r" "$T/mnt/r" || fail "-o passthrough: the file reads differently"
sleep 0.3
grep -qE 'trace: fuse OPEN ' "$T/err" || fail "-o passthrough: no OPEN traced"
! grep -qE 'trace: fuse READ ' "$T/err" || fail "-o passthrough: READ requests reached the server"
kill "$PID"; wait "$PID"; PID=
echo "ok: -o passthrough,cache=auto: read with no READ request"

# The rules.
"$STAINLESS" fuse-mount "$T/share" "$T/mnt" --passthrough -o writeback 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] || fail "--passthrough with writeback: exit $rc"
echo "ok: with writeback: exit 2, $(cat "$T/err")"
# --sandbox chroot: no mount of the share's own to check files against.
: >"$T/err"
"$STAINLESS" fuse-mount "$T/share" "$T/mnt" --passthrough --sandbox chroot 2>"$T/err" &
PID=$!
wait_serving || fail "--sandbox chroot --passthrough: no mount"
cmp "$T/share/r" "$T/mnt/r" || fail "--sandbox chroot: not served"
grep -q -- '--passthrough: needs --sandbox namespace.*serving without it' "$T/err" ||
	fail "--sandbox chroot: no line saying passthrough is off"
kill "$PID"; wait "$PID"; PID=
umount -l "$T/mnt" 2>/dev/null   # chroot mode cannot unmount (SECURITY.md)
echo "ok: --sandbox chroot: served, and $(grep -- --passthrough "$T/err")"

# Rootless: in a mount namespace of its own whose /dev/fuse nobody may open
# (a 0666 node bound over it, as Debian's udev makes it), fusermount3 mounts.
if command -v setpriv >/dev/null && command -v fusermount3 >/dev/null && command -v unshare >/dev/null &&
	id nobody >/dev/null 2>&1 &&
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups unshare -U true 2>/dev/null; then
	mkdir -p "$T/u/share" "$T/u/mnt"
	echo rootless >"$T/u/share/f"
	chown -R nobody "$T/u"
	chmod 755 "$T"
	NOBODY="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups"
	: >"$T/err" # the wait below reads it at once: no earlier server's lines
	unshare --mount --propagation private sh -c '
		T=$1; BIN=$2; N=$3
		mknod "$T/fuse" c 10 229 && chmod 666 "$T/fuse" && mount --bind "$T/fuse" /dev/fuse || exit 3
		$N "$BIN" fuse-mount "$T/u/share" "$T/u/mnt" --passthrough 2>"$T/err" &
		pid=$!
		i=0; until grep -q serving "$T/err" || [ $i -ge 100 ]; do i=$((i + 1)); sleep 0.1; done
		[ "$($N cat "$T/u/mnt/f")" = rootless ] || { kill $pid; echo "after ${i}x0.1 s:"; cat "$T/err"; grep " $T/u/mnt " /proc/self/mounts; exit 4; }
		kill $pid; wait $pid' sh "$T" "$BIN" "$NOBODY"; rc=$?
	[ $rc -eq 3 ] && fail "rootless: no /dev/fuse node for nobody"
	[ $rc -eq 4 ] && fail "rootless --passthrough: the share is not served"
	[ $rc -eq 0 ] || fail "rootless --passthrough: exit $rc"
	grep -q -- '--passthrough: .*needs root.*serving without it' "$T/err" ||
		fail "rootless: no line saying passthrough is off"
	echo "ok: rootless: served, and $(grep -- --passthrough "$T/err")"
else
	echo "note: rootless case not run here (setpriv, fusermount3, nobody or user namespaces missing)"
fi
echo "PASS"
