#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fuse-mount as a FUSE file system (real kernel FUSE client, as root):
#   -o cache=auto,ro,noatime,allow_other,fsname=NAME: each shows in
#     /proc/self/mountinfo (ro and noatime in the mount's flags,
#     allow_other and default_permissions in the super block's, NAME as the
#     source, fuse.stainless as the type) and holds (a write is EROFS);
#     without -o allow_other the mount has no allow_other;
#   the ready line: one "serving DIR at MOUNTPOINT" line when it serves;
#   --log-level trace: one line per request (opcode, node, result, us);
#   mount(8): `mount -t fuse.stainless DIR MNT -o ...` and an fstab line
#     through `mount -T FSTAB MNT` run mount.fuse.stainless (the binary
#     under that name, put in sbin inside a private mount namespace, as
#     dist/install.mk puts it in $(SBINDIR)); mount returns once the files
#     are served, umount ends the server.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (mount(2) of a FUSE file system, mount(8))"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare (util-linux)"; exit 77; }
T=$(mktemp -d /tmp/fuse_mount_opts.XXXXXX)
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	umount -l "$T/mnt" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$T/err" ] && head -n 20 "$T/err"; exit 1; }
mkdir -p "$T/share/d" "$T/mnt" "$T/sbin"
echo hello >"$T/share/f"
BIN=${STAINLESS_REAL:-$STAINLESS}

# The mount's line in mountinfo: FIELDS after the mount point.
info() { awk -v m="$T/mnt" '$5 == m { for (i = 6; i <= NF; i++) printf "%s ", $i; print "" }' /proc/self/mountinfo; }
wait_mount() { for i in $(seq 100); do [ -n "$(info)" ] && return 0; sleep 0.1; done; return 1; }

"$STAINLESS" fuse-mount "$T/share" "$T/mnt" -o cache=auto,ro,noatime,allow_other,fsname=opts-test \
	--log-level trace 2>"$T/err" &
PID=$!
wait_mount || fail "-o ...: no mount"
i=0; until grep -q 'serving' "$T/err" || [ $i -ge 50 ]; do i=$((i + 1)); sleep 0.1; done
line=$(info)
echo "mountinfo: $line"
case " $line" in *" ro,"*noatime*" - "*) ;; *) fail "-o ro,noatime not in the mount's flags: $line" ;; esac
case $line in *" - fuse.stainless opts-test "*) ;; *) fail "type fuse.stainless, source opts-test: $line" ;; esac
case $line in *allow_other*) ;; *) fail "-o allow_other not in the super block's options: $line" ;; esac
case $line in *default_permissions*) ;; *) fail "default_permissions missing: $line" ;; esac
[ "$(cat "$T/mnt/f")" = hello ] || fail "the mount does not serve"
( echo x >"$T/mnt/new" ) 2>/dev/null && fail "-o ro: a write went through"
[ "$(grep -c 'serving' "$T/err")" -eq 1 ] && grep -q "serving $T/share at $T/mnt" "$T/err" ||
	fail "no one ready line 'serving $T/share at $T/mnt'"
grep -q "info: serving" "$T/err" || fail "the ready line carries no level"
echo "ok: ready line: $(grep serving "$T/err")"
# trace: LOOKUP of f, GETATTR of the root... each a line with a result and a time.
grep -Eq 'trace: fuse LOOKUP node=1 -> [0-9]+ \([0-9]+ us\)' "$T/err" ||
	fail "--log-level trace: no 'fuse LOOKUP node=1 -> N (T us)' line"
grep -Eq 'trace: fuse LOOKUP node=1 -> -ENOENT' "$T/err" || ls "$T/mnt/nothing-here" 2>/dev/null
sleep 0.2
grep -Eq 'trace: fuse LOOKUP node=1 -> -ENOENT \([0-9]+ us\)' "$T/err" ||
	fail "--log-level trace: a missing name's LOOKUP does not trace -ENOENT"
# A stamp: stderr is a file here, not a terminal.
grep -Eq '^20[0-9-]{8}T[0-9:.]{15}Z stainless fuse-mount: trace: ' "$T/err" ||
	fail "trace lines carry no UTC timestamp off a terminal: $(grep -m1 trace "$T/err")"
echo "ok: -o ro,noatime,allow_other,fsname=: in mountinfo and held; trace: $(grep -m1 'LOOKUP' "$T/err")"
kill "$PID"; wait "$PID"; rc=$?; PID=
[ $rc -eq 0 ] || fail "SIGTERM: exit $rc"
[ -z "$(info)" ] || fail "SIGTERM left the mount"

# No allow_other unless asked; info, not trace: no request lines.
"$STAINLESS" fuse-mount "$T/share" "$T/mnt" 2>"$T/err" &
PID=$!
wait_mount || fail "plain: no mount"
line=$(info)
case $line in *allow_other*) fail "allow_other without -o allow_other: $line" ;; esac
cat "$T/mnt/f" >/dev/null
grep -q 'trace:' "$T/err" && fail "trace lines at the default level"
kill "$PID"; wait "$PID"; PID=
echo "ok: without -o allow_other, none: $line"

"$STAINLESS" fuse-mount "$T/share" "$T/mnt" -o bogus_word >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "bogus_word" "$T/err" ||
	fail "-o bogus_word: exit $rc, $(cat "$T/err")"
echo "ok: -o bogus_word refused in one line: $(cat "$T/err")"

# mount(8) and fstab, through the helper in a private sbin.
ln -s "$BIN" "$T/sbin/mount.fuse.stainless"
printf '%s %s fuse.stainless defaults,nofail,noatime,cache=never,xattr,allow_other 0 0\n' \
	"$T/share" "$T/mnt" >"$T/fstab"
cat >"$T/inner.sh" <<EOI
set -u
mount --bind "$T/sbin" /usr/sbin || exit 3
m() { awk -v m="$T/mnt" '\$5 == m { for (i = 6; i <= NF; i++) printf "%s ", \$i; print "" }' /proc/self/mountinfo; }
mount -t fuse.stainless "$T/share" "$T/mnt" -o ro,nodev,allow_other 2>"$T/m1.err" || { echo "mount -t: exit \$?"; exit 1; }
echo "mount -t: \$(m)"
[ "\$(cat "$T/mnt/f")" = hello ] || { echo "mount -t: not served"; exit 1; }
umount "$T/mnt" || { echo "umount: exit \$?"; exit 1; }
[ -z "\$(m)" ] || { echo "umount left it"; exit 1; }
mount -T "$T/fstab" "$T/mnt" 2>"$T/m2.err" || { echo "mount -T: exit \$?"; exit 1; }
echo "mount -T: \$(m)"
[ "\$(cat "$T/mnt/f")" = hello ] || { echo "mount -T: not served"; exit 1; }
umount "$T/mnt"
EOI
out=$(unshare -m --propagation private sh "$T/inner.sh" 2>&1); rc=$?
echo "$out"
[ $rc -eq 3 ] && { echo "SKIP: cannot bind a directory over /usr/sbin in a mount namespace"; exit 77; }
[ $rc -eq 0 ] || { cat "$T"/m?.err 2>/dev/null; fail "mount(8) through mount.fuse.stainless"; }
echo "$out" | grep "^mount -t:" | grep -q ": ro,nosuid,nodev.* - fuse.stainless $T/share .*allow_other" ||
	fail "mount -t fuse.stainless -o ro,nodev,allow_other (and the share as the source): not in mountinfo"
echo "$out" | grep "^mount -T:" | grep -q 'noatime.* - fuse.stainless .*allow_other' ||
	fail "the fstab line's noatime,allow_other: not in mountinfo"
# The servers end with their mounts.
i=0; while pgrep -f -- "$T/share $T/mnt" >/dev/null && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
pgrep -f -- "$T/share $T/mnt" >/dev/null && fail "a server outlived its unmount"
echo "PASS: fuse-mount -o as a FUSE file system: mountinfo, mount -t fuse.stainless, fstab"
