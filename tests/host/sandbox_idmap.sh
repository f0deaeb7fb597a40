#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Rootless --uid-map/--gid-map (sandbox/sandbox_idmap.c) through the setuid
# newuidmap and newgidmap: a throwaway user with a subordinate range in
# /etc/subuid and /etc/subgid runs
#   9p-serve    mapped to root inside plus the range (virtiofsd's meaning:
#               a client's ids are the namespace's): a file a client makes
#               as uid 5 is host uid SUB+4's, as uid 0 the user's;
#   fuse-mount  whose client, the host's kernel, names host ids: maps must
#               keep ids (one that does not is refused in one line); with
#               the user and the range mapped to themselves a caller with a
#               subordinate id makes a file that is its own on the host,
#               and the user's files show as the user's through the mount;
#   run         mapped to root plus the range: the VMM's uid_map says so.
# Each check is run once without the maps too and must then fail, so that
# it is known to look at the maps. Last, with user.max_user_namespaces=0
# (restored at exit), a rootless 9p-serve exits non-zero with one line
# naming the sysctl.
set -u
: "${STAINLESS:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/server_pid.inc"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (to make a throwaway user)"; exit 77; }
# fusermount3 opens /dev/fuse as the user, so the fuse-mount part needs a
# /dev/fuse others may open: where this machine's is not (a container's
# 0600 root), the test runs in a mount namespace of its own with a 0666
# node of its own over it (tests/host/rootless_fuse.sh checks both modes).
if [ -z "${STL_IDMAP_FUSE:-}" ] && [ -c /dev/fuse ] &&
	[ "$(( $(stat -c 0%a /dev/fuse) & 6 ))" -ne 6 ] && command -v unshare >/dev/null; then
	FN=$(mktemp -d)
	if mknod "$FN/fuse" c 10 229 2>/dev/null && chmod 666 "$FN/fuse"; then
		STL_IDMAP_FUSE=$FN/fuse unshare --mount --propagation private sh "$0"; rc=$?
		rm -rf "$FN"
		exit $rc
	fi
	rm -rf "$FN"
fi
if [ -n "${STL_IDMAP_FUSE:-}" ]; then
	export STL_IDMAP_FUSE
	mount --bind "$STL_IDMAP_FUSE" /dev/fuse ||
		{ echo "SKIP: cannot bind a 0666 node over /dev/fuse (fuse-mount's maps need one)"; exit 77; }
fi
for c in newuidmap newgidmap useradd userdel setpriv; do
	command -v $c >/dev/null || { echo "SKIP: no $c (newuidmap/newgidmap: package uidmap)"; exit 77; }
done
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler to build p9_client"; exit 77; }
U=stl-idmap-$$
SUB=$((300000 + ($$ % 1000) * 65536))   # a range no other test of ours takes
N=65536
T=$(mktemp -d)
PID= OLDNS=
cleanup() {
	[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
	[ -n "$OLDNS" ] && sysctl -q -w user.max_user_namespaces="$OLDNS"
	umount -l "$T/mnt" 2>/dev/null
	userdel "$U" 2>/dev/null
	for f in /etc/subuid /etc/subgid; do
		[ -f $f ] && sed -i "/^$U:/d" $f
	done
	[ -n "${FUSECONF:-}" ] && { cp "$FUSECONF" /etc/fuse.conf; rm -f "$FUSECONF"; }
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$U" || { echo "FAIL: useradd"; exit 1; }
UID_=$(id -u "$U") GID_=$(id -g "$U")
echo "$U:$SUB:$N" >>/etc/subuid
echo "$U:$SUB:$N" >>/etc/subgid
$CC -O2 -Wall -o "$T/p9_client" "$HERE/p9_client.c" || { echo "FAIL: cannot build p9_client"; exit 1; }
chmod 755 "$T"
mkdir -p "$T/share" "$T/sock" "$T/mnt"
chown "$UID_:$GID_" "$T/share" "$T/sock" "$T/mnt"
chmod 1777 "$T/share"    # the mapped ids make files in it too
KVMGID=$(getent group kvm | cut -d: -f3)
# setpriv execs: $! is then stainless itself.
GROUPS_=--clear-groups; [ -n "$KVMGID" ] && GROUPS_=--groups=$KVMGID
# Words, not a function: setpriv execs, so `$AS_USER stainless ... &` makes
# $! stainless itself (a function would fork a shell in between).
AS_USER="setpriv --reuid=$UID_ --regid=$GID_ $GROUPS_"
as_id() { id=$1; shift; setpriv --reuid="$id" --regid="$id" --clear-groups "$@"; }
ROOTMAP="--uid-map :0:$UID_:1: --uid-map :1:$SUB:$N: --gid-map :0:$GID_:1: --gid-map :1:$SUB:$N:"
KEEPMAP="--uid-map :$UID_:$UID_:1: --uid-map :$SUB:$SUB:$N: --gid-map :$GID_:$GID_:1: --gid-map :$SUB:$SUB:$N:"

# --- 9p-serve: user -> root, 1.. -> the range --------------------------------------
p9_check() { # WITH|WITHOUT: 0 if the files are the mapped host ids'
	rm -f "$T/share/p0" "$T/share/p5" "$T/sock/s.sock"
	maps=; [ "$1" = with ] && maps=$ROOTMAP
	# shellcheck disable=SC2086 # word lists
	$AS_USER "$STAINLESS" 9p-serve --socket "$T/sock/s.sock" $maps "$T/share" 2>"$T/9p.err" &
	PID=$!
	for i in $(seq 50); do [ -S "$T/sock/s.sock" ] && break; sleep 0.1; done
	# The client is the user: root in the server's namespace, it may attach as any id.
	echo zero | $AS_USER "$T/p9_client" -u 0 "$T/sock/s.sock" put p0 2>>"$T/9p.err"
	echo five | $AS_USER "$T/p9_client" -u 5 "$T/sock/s.sock" put p5 2>>"$T/9p.err"
	kill -TERM "$PID"; wait "$PID"; PID=
	# Tlcreate's gid is 0: the user's group on the host.
	[ "$(stat -c %u:%g "$T/share/p0" 2>/dev/null)" = "$UID_:$GID_" ] &&
		[ "$(stat -c %u:%g "$T/share/p5" 2>/dev/null)" = "$((SUB + 4)):$GID_" ]
}
if p9_check with; then
	ok "9p-serve --uid-map :0:$UID_:1: :1:$SUB:$N: (and gid): uid 0's file is $UID_'s, uid 5's is $((SUB + 4))'s"
else
	bad "9p-serve with the maps: $(ls -ln "$T/share" | tail -n +2 | tr '\n' ' ') $(head -n 3 "$T/9p.err")"
fi
if p9_check without; then
	bad "9p-serve: the ownership check passes without the maps too"
else
	ok "9p-serve: ... and the same check fails without the maps"
fi

# --- fuse-mount: maps must keep ids ---------------------------------------------------
# shellcheck disable=SC2086
# (timeout: a binary that takes the map would serve until stopped)
timeout 10 $AS_USER "$STAINLESS" fuse-mount "$T/share" "$T/mnt" $ROOTMAP 2>"$T/fm.err"; rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$T/fm.err")" -eq 1 ] && grep -q 'must keep them' "$T/fm.err" &&
	! grep -q " $T/mnt " /proc/mounts; then
	ok "fuse-mount: a map that changes ids is refused in one line ($(cat "$T/fm.err"))"
else
	bad "fuse-mount: a map that changes ids: exit $rc, $(cat "$T/fm.err")"
	umount -l "$T/mnt" 2>/dev/null
fi
if command -v fusermount3 >/dev/null && [ -f /etc/fuse.conf ]; then
	# A subordinate id reaches the user's mount only with allow_other.
	if ! grep -q '^user_allow_other' /etc/fuse.conf; then
		FUSECONF=$T/fuse.conf.orig
		cp /etc/fuse.conf "$FUSECONF"
		echo user_allow_other >>/etc/fuse.conf
	fi
	fm_check() { # WITH|WITHOUT
		rm -f "$T/share/f7" "$T/share/fu"
		maps=; [ "$1" = with ] && maps=$KEEPMAP
		# shellcheck disable=SC2086
		$AS_USER "$STAINLESS" fuse-mount "$T/share" "$T/mnt" -o allow_other $maps 2>"$T/fm.err" &
		PID=$!
		for i in $(seq 50); do grep -q " $T/mnt " /proc/mounts && break; sleep 0.1; done
		as_id $((SUB + 7)) sh -c "echo seven >'$T/mnt/f7'" 2>>"$T/fm.err"
		$AS_USER sh -c "echo user >'$T/mnt/fu'" 2>>"$T/fm.err"
		seen=$($AS_USER stat -c %u:%g "$T/mnt/fu" 2>/dev/null)
		kill -TERM "$PID"; wait "$PID"; PID=
		# The unmount (fusermount3 -u -z) may end after the supervisor: the
		# next mount must not land under it.
		for i in $(seq 50); do grep -q " $T/mnt " /proc/mounts || break; sleep 0.1; done
		[ "$(stat -c %u:%g "$T/share/f7" 2>/dev/null)" = "$((SUB + 7)):$((SUB + 7))" ] &&
			[ "$(stat -c %u:%g "$T/share/fu" 2>/dev/null)" = "$UID_:$GID_" ] &&
			[ "$seen" = "$UID_:$GID_" ]
	}
	if fm_check with; then
		ok "fuse-mount --uid-map :$UID_:$UID_:1: :$SUB:$SUB:$N: (and gid): id $((SUB + 7))'s file is its own, the user's the user's (also through the mount)"
	else
		bad "fuse-mount with the maps: $(ls -ln "$T/share" | tail -n +2 | tr '\n' ' ') $(head -n 3 "$T/fm.err")"
	fi
	if fm_check without; then
		bad "fuse-mount: the ownership check passes without the maps too"
	else
		ok "fuse-mount: ... and the same check fails without the maps"
	fi
else
	SKIPPED="no fusermount3 or /etc/fuse.conf (package fuse3): fuse-mount's maps not checked"
fi

# --- run: user -> root, 1.. -> the range ---------------------------------------------
if [ -c /dev/kvm ] && $AS_USER sh -c '[ -r /dev/kvm ] && [ -w /dev/kvm ]' &&
	(cd "$HERE/../.." && tests/guests/build "$T/g") >/dev/null 2>&1; then
	run_map() { # WITH|WITHOUT: the running VMM's uid_map and gid_map, one line
		maps=; [ "$1" = with ] && maps=$ROOTMAP
		: >"$T/spin.log"
		# shellcheck disable=SC2086
		$AS_USER "$STAINLESS" run --kernel "$T/g/spin.elf" --mem 64M $maps \
			>"$T/spin.log" 2>&1 </dev/null &
		PID=$!
		for i in $(seq 100); do grep -q S "$T/spin.log" 2>/dev/null && break; sleep 0.1; done
		sp=$(server_pid "$PID")
		echo $(cat "/proc/$sp/uid_map" "/proc/$sp/gid_map" 2>/dev/null)
		kill -TERM "$PID"; wait "$PID"; PID=
	}
	want="0 $UID_ 1 1 $SUB $N 0 $GID_ 1 1 $SUB $N"
	got=$(run_map with)
	[ "$got" = "$want" ] && ok "run --uid-map/--gid-map: the VMM's maps are '$want'" ||
		bad "run with the maps: '$got', not '$want' ($(head -n 2 "$T/spin.log"))"
	got=$(run_map without)
	[ "$got" != "$want" ] && ok "run: ... and not without the maps ('$got')" ||
		bad "run: the same maps without --uid-map"
else
	echo "note: the user cannot use /dev/kvm (or no tiny guests): run's maps not checked"
fi

# --- a host that forbids user namespaces --------------------------------------------
OLD=$(sysctl -n user.max_user_namespaces 2>/dev/null)
if [ -n "$OLD" ] && sysctl -q -w user.max_user_namespaces=0 2>/dev/null; then
	OLDNS=$OLD
	rm -f "$T/sock/s.sock"
	timeout 20 setpriv --reuid="$UID_" --regid="$GID_" --clear-groups \
		"$STAINLESS" 9p-serve --socket "$T/sock/s.sock" "$T/share" 2>"$T/ns.err"; rc=$?
	sysctl -q -w user.max_user_namespaces="$OLDNS" && OLDNS=
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(wc -l <"$T/ns.err")" -eq 1 ] &&
		grep -q 'user.max_user_namespaces=0' "$T/ns.err"; then
		ok "no user namespaces: exit $rc, one line: $(cat "$T/ns.err")"
	else
		bad "no user namespaces: exit $rc, stderr: $(cat "$T/ns.err")"
	fi
else
	echo "note: cannot set user.max_user_namespaces: the forbidden-host line not checked"
fi

[ $fails -eq 0 ] && [ -n "${SKIPPED:-}" ] && { echo "SKIP: $SKIPPED"; exit 77; }
[ $fails -eq 0 ] && { echo PASS; exit 0; }
echo "$fails failure(s)"
exit 1
