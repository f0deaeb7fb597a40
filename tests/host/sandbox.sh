#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The process sandbox (sandbox/sandbox.h) of a running `stainless
# fuse-mount`, `9p-serve` and `run`: the serving process has no_new_privs,
# the documented capabilities (CapEff and CapBnd 0x008000db: CHOWN,
# DAC_OVERRIDE, FOWNER, FSETID, SETGID, SETUID and SYS_NICE, which each
# serving thread drops itself: 0x000000db; no DAC_READ_SEARCH, and MKNOD
# only with a `devices` share: tests/host/sandbox_escape.sh), a mount
# namespace of its own whose root holds only the shares (nodev, nosuid;
# read-only ones read-only), the device node it reopens and a pid-only
# /proc, RLIMIT_CORE 0 and RLIMIT_NOFILE fixed; SIGTERM and exit statuses
# as without a sandbox; --sandbox none warns in one line; chroot mode
# chroots; and a non-root user serves a directory it owns over 9p (user
# namespace; rootless fuse-mount: rootless_fuse.sh).
set -u
: "${STAINLESS:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/server_pid.inc"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (the rootless part runs as nobody)"; exit 77; }
T=$(mktemp -d)
PID= SP=
cleanup() {
	[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
	[ -n "$SP" ] && kill -KILL "$SP" 2>/dev/null
	umount -l "$T/mnt" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
field() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$2/status"; }

CAPS_MAIN=00000000008000db
CAPS_SERVING=00000000000000db
mkdir -p "$T/share/sub" "$T/ro" "$T/mnt"
echo hello >"$T/share/f"
echo ro >"$T/ro/f"
SHARE=$(realpath "$T/share") RO=$(realpath "$T/ro")

# expect_root SERVER SHARE... : the root lists exactly the shares (with the
# directories leading to them), /proc and the extra entries in $EXTRA.
expect_root() {
	sp=$1; shift
	want=$( { echo ./proc; for e in $EXTRA; do echo ".$e"; done
		for s in "$@"; do d=$s; while [ "$d" != / ]; do echo ".$d"; d=$(dirname "$d"); done; done
		} | sort -u)
	got=$(cd "/proc/$sp/root" && find . -mindepth 1 \( -path ./proc $(for s in "$@"; do
		printf -- '-o -path .%s ' "$s"; done) \) -prune -print -o -print | sort)
	[ "$got" = "$want" ] || { echo "  root has: $(echo "$got" | tr '\n' ' ')"; return 1; }
}
mount_opts() { # SERVER PATH: the options of the mount at PATH in the server's namespace
	awk -v p="$2" '$5 == p { print $6 }' "/proc/$1/mountinfo" | tail -n 1
}
common() { # NAME SERVER: what every sandboxed server shows
	check "$1: a supervisor outside, the server in its own pid namespace" \
		test "$SP" != "$PID" -a "$(readlink /proc/$SP/ns/pid)" != "$(readlink /proc/self/ns/pid)"
	check "$1: NoNewPrivs 1" [ "$(field NoNewPrivs "$SP")" = 1 ]
	check "$1: CapEff $CAPS_MAIN" [ "$(field CapEff "$SP")" = $CAPS_MAIN ]
	check "$1: CapBnd $CAPS_MAIN" [ "$(field CapBnd "$SP")" = $CAPS_MAIN ]
	check "$1: a mount namespace of its own" \
		[ "$(readlink /proc/$SP/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ]
	check "$1: net, ipc, uts namespaces of its own" sh -c "for n in net ipc uts; do
		[ \"\$(readlink /proc/$SP/ns/\$n)\" != \"\$(readlink /proc/self/ns/\$n)\" ] || exit 1; done"
	check "$1: /proc is pids only (no /proc/sys)" [ ! -e "/proc/$SP/root/proc/sys" ]
	check "$1: RLIMIT_CORE 0" grep -q '^Max core file size *0 *0 ' "/proc/$SP/limits"
	check "$1: RLIMIT_NOFILE soft = hard" \
		awk '/^Max open files/ { exit !($4 == $5) }' "/proc/$SP/limits"
	check "$1: no /dev/kvm in reach" [ ! -e "/proc/$SP/root/dev/kvm" ]
}

# --- fuse-mount ----------------------------------------------------------------
"$STAINLESS" fuse-mount "$T/share" "$T/mnt" 2>"$T/fm.err" &
PID=$!
for i in $(seq 50); do grep -q " $T/mnt " /proc/mounts && break; sleep 0.1; done
check "fuse-mount: mounted at the host's MOUNTPOINT, serves" grep -qx hello "$T/mnt/f"
SP=$(server_pid "$PID")
common fuse-mount
EXTRA="/dev /dev/fuse" expect_root "$SP" "$SHARE" && ok "fuse-mount: root holds the share, /dev/fuse, /proc" ||
	bad "fuse-mount: root holds the share, /dev/fuse, /proc"
case $(mount_opts "$SP" "$SHARE") in
*nosuid*nodev*|*nodev*nosuid*) ok "fuse-mount: share nodev,nosuid" ;;
*) bad "fuse-mount: share nodev,nosuid ($(mount_opts "$SP" "$SHARE"))" ;;
esac
serving=$(for t in /proc/$SP/task/*; do case $(cat "$t/comm") in fuse-r*)
	awk '$1 == "CapEff:" { print $2 }' "$t/status";; esac; done | sort -u)
# A reader drops SYS_NICE at its first request; one that has not served yet keeps it.
check "fuse-mount: a serving thread that served has CapEff $CAPS_SERVING ($(echo $serving))" \
	sh -c "echo '$serving' | grep -qx $CAPS_SERVING && ! echo '$serving' | grep -qvx -e $CAPS_SERVING -e $CAPS_MAIN"
kill -TERM "$PID"; wait "$PID"; rc=$?
check "fuse-mount: SIGTERM exits 0 ($rc)" [ $rc -eq 0 ]
check "fuse-mount: SIGTERM unmounts" sh -c "! grep -q ' $T/mnt ' /proc/mounts"
check "fuse-mount: the server is gone" sh -c "! kill -0 $SP 2>/dev/null"
# A server that dies leaves neither itself nor its mount behind.
"$STAINLESS" fuse-mount "$T/share" "$T/mnt" 2>/dev/null &
PID=$!
for i in $(seq 50); do grep -q " $T/mnt " /proc/mounts && break; sleep 0.1; done
ls "$T/mnt" >/dev/null
SP=$(server_pid "$PID")
kill -KILL "$SP"; wait "$PID"; rc=$?
check "fuse-mount: a server killed by SIGKILL: status 137 ($rc)" [ $rc -eq 137 ]
check "fuse-mount: ... and its mount is taken down" sh -c "! grep -q ' $T/mnt ' /proc/mounts"
PID= SP=

# --- 9p-serve, read-only ---------------------------------------------------------
"$STAINLESS" 9p-serve --socket "$T/s.sock" --readonly "$T/ro" 2>"$T/9p.err" &
PID=$!
for i in $(seq 50); do [ -S "$T/s.sock" ] && break; sleep 0.1; done
check "9p-serve: the socket where asked, 0600" [ "$(stat -c %a "$T/s.sock" 2>/dev/null)" = 600 ]
SP=$(server_pid "$PID")
common 9p-serve
# The 9p server looks a client's groups up in the host's user database.
USERDB=/etc
for f in /etc/passwd /etc/group /etc/nsswitch.conf; do [ -r $f ] && USERDB="$USERDB $f"; done
EXTRA=$USERDB expect_root "$SP" "$RO" && ok "9p-serve: root holds the share, the user database, /proc" ||
	bad "9p-serve: root holds the share, the user database, /proc"
check "9p-serve: the user database is read-only" sh -c "! echo >>/proc/$SP/root/etc/group"
case $(mount_opts "$SP" "$RO") in
ro,*) ok "9p-serve: a read-only share is mounted read-only" ;;
*) bad "9p-serve: a read-only share is mounted read-only ($(mount_opts "$SP" "$RO"))" ;;
esac
kill -TERM "$PID"; wait "$PID"; rc=$?
check "9p-serve: SIGTERM exits 0 ($rc)" [ $rc -eq 0 ]
check "9p-serve: the socket is removed" [ ! -e "$T/s.sock" ]
check "9p-serve: nothing on stderr but the ready line" [ -z "$(grep -v 'info: serving' "$T/9p.err")" ]

# --- --sandbox none, --no-sandbox, chroot -----------------------------------------
for opt in "--sandbox none" --no-sandbox; do
	# shellcheck disable=SC2086 # two words on purpose
	"$STAINLESS" 9p-serve --socket "$T/n.sock" $opt "$T/share" 2>"$T/none.err" &
	PID=$!
	for i in $(seq 50); do [ -S "$T/n.sock" ] && break; sleep 0.1; done
	# The socket comes first, the warning right after it.
	for i in $(seq 50); do [ -s "$T/none.err" ] && break; sleep 0.1; done
	check "$opt: one warning line (and the ready line)" test "$(grep -vc 'info: serving' "$T/none.err")" -eq 1 -a \
		"$(grep -c 'warn: --sandbox none' "$T/none.err")" -eq 1
	# (no_new_privs is still set: each thread's seccomp filter needs it.)
	check "$opt: no supervisor, no namespaces" \
		test -z "$(cat /proc/$PID/task/$PID/children)" -a \
		"$(readlink /proc/$PID/ns/mnt)" = "$(readlink /proc/self/ns/mnt)"
	kill -TERM "$PID"; wait "$PID"
done
"$STAINLESS" 9p-serve --socket "$T/c.sock" --sandbox chroot "$T/share" 2>"$T/chroot.err" &
PID=$!
for i in $(seq 50); do [ -S "$T/c.sock" ] && break; sleep 0.1; done
sleep 0.2
check "chroot: the root is the share" [ "$(readlink /proc/$PID/root)" = "$SHARE" ]
check "chroot: NoNewPrivs 1, CapEff $CAPS_SERVING" \
	[ "$(field NoNewPrivs $PID)" = 1 -a "$(field CapEff $PID)" = $CAPS_SERVING ]
check "chroot: no namespaces" [ "$(readlink /proc/$PID/ns/mnt)" = "$(readlink /proc/self/ns/mnt)" ]
kill -TERM "$PID"; wait "$PID"; rc=$?
check "chroot: SIGTERM exits 0 ($rc)" [ $rc -eq 0 ]
PID=
# fuse-mount chrooted: every reader's /dev/fuse fd was opened before the
# chroot (the share has no /dev). Having given up CAP_SYS_ADMIN it cannot
# unmount: SIGTERM ends it with one line saying so (SECURITY.md, "The process sandbox").
if [ -c /dev/fuse ]; then
	mkdir -p "$T/cmnt"
	"$STAINLESS" fuse-mount "$T/share" "$T/cmnt" --sandbox chroot 2>"$T/cfm.err" &
	PID=$!
	for i in $(seq 50); do grep -q " $T/cmnt " /proc/mounts && break; sleep 0.1; done
	ls "$T/cmnt" >/dev/null
	for i in $(seq 20); do grep -qx fuse-r1 /proc/$PID/task/*/comm 2>/dev/null && break; sleep 0.1; done
	check "chroot fuse-mount: two readers (fuse-r0, fuse-r1)" \
		grep -qx fuse-r1 /proc/$PID/task/*/comm
	kill -TERM "$PID"; wait "$PID"; rc=$?
	check "chroot fuse-mount: SIGTERM ends it ($rc), one line on the mount left" \
		[ "$(grep -c 'cannot unmount' "$T/cfm.err")" = 1 ]
	grep -q " $T/cmnt " /proc/mounts && umount -l "$T/cmnt"
	PID=
fi

# --- run (a tiny guest; Linux guests: tests/e2e) -----------------------------------
if [ -r /dev/kvm ] && [ -w /dev/kvm ] && tests/guests/build "$T/g" >/dev/null 2>&1; then
	"$STAINLESS" run --kernel "$T/g/spin.elf" --mem 64M --fs "t=$T/share" >"$T/spin.log" 2>&1 </dev/null &
	PID=$!
	for i in $(seq 100); do grep -q S "$T/spin.log" 2>/dev/null && break; sleep 0.1; done
	SP=$(server_pid "$PID")
	common run
	EXTRA= expect_root "$SP" "$SHARE" && ok "run: root holds the share and /proc" ||
		bad "run: root holds the share and /proc"
	kill -TERM "$PID"; wait "$PID"; rc=$?
	check "run: SIGTERM exits 143 ($rc)" [ $rc -eq 143 ]
	out=$("$STAINLESS" run --kernel "$T/g/hello.elf" --mem 64M 2>&1); rc=$?
	check "run: the hello guest exits 0 and prints" \
		test $rc -eq 0 -a -n "$(echo "$out" | grep STAINLESS-TINY-GUEST-OK)"
	PID= SP=
else
	echo "note: no usable /dev/kvm; run's sandbox is checked by tests/e2e only"
fi

# --- rootless: nobody serves a directory nobody owns -------------------------------
if ! id nobody >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
	echo "note: no user nobody or no setpriv: rootless part skipped"
else
	mkdir -p "$T/rl/share" "$T/rl/mnt"
	chown -R nobody "$T/rl"; chmod 755 "$T"
	NG=$(id -g nobody)
	chgrp -R "$NG" "$T/rl"
	# setpriv execs: $! is then stainless itself (a shell function would fork).
	AS_NOBODY="setpriv --reuid=nobody --regid=$NG --clear-groups"
	$AS_NOBODY "$STAINLESS" 9p-serve --socket "$T/rl/s.sock" "$T/rl/share" 2>"$T/rl.err" &
	PID=$!
	for i in $(seq 50); do [ -S "$T/rl/s.sock" ] && break; sleep 0.1; done
	if grep -q 'user namespaces' "$T/rl.err"; then
		echo "note: $(cat "$T/rl.err")"
	else
		SP=$(server_pid "$PID")
		U=$(id -u nobody)
		check "rootless 9p-serve: maps the user to itself" \
			[ "$(awk '{ print $1, $2, $3 }' /proc/$SP/uid_map)" = "$U $U 1" ]
		check "rootless 9p-serve: NoNewPrivs 1, CapEff $CAPS_MAIN in its namespace" \
			[ "$(field NoNewPrivs $SP)" = 1 -a "$(field CapEff $SP)" = $CAPS_MAIN ]
		check "rootless 9p-serve: a user namespace of its own" \
			[ "$(readlink /proc/$SP/ns/user)" != "$(readlink /proc/self/ns/user)" ]
		kill -TERM "$PID"; wait "$PID"; rc=$?
		check "rootless 9p-serve: SIGTERM exits 0 ($rc)" [ $rc -eq 0 ]
		# Rootless fuse-mount, on a /dev/fuse of either mode: tests/host/rootless_fuse.sh.
	fi
	PID= SP=
fi

[ $fails -eq 0 ] && { echo PASS; exit 0; }
echo "$fails failure(s)"
exit 1
