#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A malicious 9P2000.L client against `stainless 9p-serve`, one line per
# check. The containment rules asserted here:
#   1. Only regular files and directories are opened for a client: Tlopen,
#      Tlcreate of an existing name and Tsetattr size on a device node or
#      FIFO answer ENXIO (a symlink: ELOOP), never block, never give device
#      bytes. Symlinks out of the share are text: nothing outside is read.
#   2. Tmknod: FIFOs, sockets, files and the whiteout (c 0:0) always; other
#      devices EPERM unless --devices (and even then Tlopen refuses them).
#   3. xattrs: user.* and POSIX ACLs pass; security.*, trusted.*, other
#      namespaces: set/remove EOPNOTSUPP, get ENODATA, never listed;
#      user.stainless.* is reserved (set/remove EPERM, get ENODATA, hidden);
#      with --xattr-map they are kept as user.stainless.security.X and
#      user.stainless.trusted.X on the host and read back by their names.
#   4. Txattrcreate buffers meet a per-session byte budget (ENOMEM).
#   5. One process fd budget: a fid flood gets ENFILE, the server serves on.
#   6. Any u32 but NOFID is a fid number.
#   7. The socket is 0600; a non-root peer cannot attach as another uid,
#      nor create files of a group it is not in, nor set-group-ID ones.
#   8. No client starves the rest: a greedy client's fd flood leaves a
#      newcomer able to attach, walk, open and read; past the connection
#      slots clients wait in the backlog (never dropped) while the server
#      idles, and are served once others leave; many greedy sessions stay
#      under --max-memory and the process's bound on lock helpers.
# After every attack a fresh connection still reads a file. A secret file
# outside the share and lines of /etc/passwd must appear in no reply
# (p9_hostile scans every one) and stay unchanged; every reply is awaited
# at most 5 s. Needs root (device nodes, security.*/trusted.* on the host,
# peers of other uids).
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
skip() { echo "SKIP: $*"; exit 77; }
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler to build p9_hostile"
[ "$(id -u)" -eq 0 ] || skip "needs root: mknod of device nodes, trusted.*/security.* xattrs, other uids"
for t in setfattr getfattr prlimit setpriv timeout; do
	command -v $t >/dev/null 2>&1 || skip "no $t (packages attr, util-linux, coreutils)"
done

T=$(mktemp -d /tmp/hostile_9p.XXXXXX)
chmod 0711 "$T"    # a peer of another uid reaches the socket (rule 7)
SHARE=$T/share
SECRET=$T/secret
H=$T/p9_hostile
PIDS=
cleanup() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

HERE=$(dirname "$0")
. "$HERE/server_pid.inc"
$CC -O2 -Wall -o "$H" "$HERE/p9_hostile.c" || { echo "FAIL: cannot build p9_hostile"; exit 1; }
chmod 0755 "$H"

# The share: host-made device nodes, a FIFO, symlinks out, preset xattrs.
mkdir -p "$SHARE/dir"
printf 'hello\n' >"$SHARE/hello"
printf 'to be cut\n' >"$SHARE/trunc"
: >"$SHARE/flood"
: >"$SHARE/xc"
: >"$SHARE/xfile"
: >"$SHARE/xm"
mknod "$SHARE/zero" c 1 5 || skip "cannot mknod in $T"
mknod "$SHARE/blk" b 7 0
mkfifo "$SHARE/fifo"
printf 's3cret-%s-%s\n' "$$" "$(date +%s%N)" >"$SECRET"
ln -s /etc/passwd "$SHARE/ln"
ln -s / "$SHARE/up"
ln -s "$SECRET" "$SHARE/sec"
ln -s ../secret "$SHARE/rel"
setfattr -n user.ok -v hostval "$SHARE/xfile" || skip "no user xattrs on $T's filesystem"
setfattr -n user.stainless.x -v hidden-stainless-value "$SHARE/xfile"
setfattr -n trusted.overlay.opaque -v hidden-trusted-value "$SHARE/xfile"
# security.*: only when no LSM claims the name on this host
setfattr -n security.selinux -v hidden-sec-value "$SHARE/xfile" 2>/dev/null && HAVE_SEC=1 || HAVE_SEC=0
setfattr -n security.capability -v 0x0000000200000000000000000000000000000000 "$SHARE/xfile" 2>/dev/null
secret_stamp=$(stat -c '%Y %s' "$SECRET")
passwd_stamp=$(stat -c '%Y %s' /etc/passwd)
DENY="$(head -n 1 "$SECRET")
$(head -n 1 /etc/passwd)
hidden-stainless-value
hidden-trusted-value
hidden-sec-value"
export P9H_DENY="$DENY"

npass=0
nfail=0
pass() { npass=$((npass + 1)); echo "PASS $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $*"; }

# serve SOCK [PREFIX-COMMAND...] -- [OPTIONS...]: starts a server on SOCK.
serve() {
	sock=$1; shift
	pre=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do pre="$pre $1"; shift; done
	[ $# -gt 0 ] && shift
	$pre "$STAINLESS" 9p-serve --socket "$sock" "$@" "$SHARE" 2>>"$T/server.err" &
	SPID=$!
	PIDS="$PIDS $SPID"
	i=0
	while [ ! -S "$sock" ]; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$SPID" 2>/dev/null; then
			echo "server on $sock never listened: $(tail -n 3 "$T/server.err")"
			return 1
		fi
		sleep 0.05
	done
}

# run OP ARGS...: one p9_hostile operation on $SOCK; sets OUT (first line) and RC.
run() {
	OUT=$(timeout 30 "$H" "$SOCK" "$@" 2>&1 | head -n 1)
	# the pipeline's status is head's; read the client's from its output
	case $OUT in
	LEAK*) RC=3 ;;
	TIMEOUT*) RC=4 ;;
	p9_hostile:*|"") RC=1 ;;
	*) RC=0 ;;
	esac
}

# want NAME EXPECT OP ARGS...: EXPECT is the reply's first word ("!0" =
# any refusal, "A|B" = either) or, with a space in it, the whole first line.
want() {
	name=$1 exp=$2; shift 2
	run "$@"
	word=${OUT%% *}
	if [ $RC -ne 0 ]; then
		fail "$name: $OUT"
		return
	fi
	if [ "$exp" = "!0" ] && [ "$word" != 0 ]; then
		pass "$name: $OUT"
		return
	fi
	if [ "$exp" = "$OUT" ]; then
		pass "$name: $OUT"
		return
	fi
	alts=$(echo "$exp" | tr '|' ' ')
	case $exp in *" "*) alts= ;; esac
	for e in $alts; do
		if [ "$e" = "$word" ]; then
			pass "$name: $OUT"
			return
		fi
	done
	fail "$name: want $exp, got $OUT"
}

# host NAME WHAT COMMAND...: a check made on the host side.
host() {
	name=$1 what=$2; shift 2
	if "$@" >/dev/null 2>&1; then pass "$name: $what"; else fail "$name: want $what"; fi
}

alive() {
	want "$1: a fresh connection still reads a file" 0 alive hello "hello
"
}

hasx() { getfattr -h --absolute-names -n "$2" "$1" >/dev/null 2>&1; }
nox() { ! hasx "$@"; }
xval() { [ "$(getfattr -h --absolute-names --only-values -n "$2" "$1" 2>/dev/null)" = "$3" ]; }
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
is_dev() { [ "$(stat -c '%F %t:%T' "$1")" = "$2" ]; }
listed() { case " $OUT " in *" $1 "*) return 0 ;; esac; return 1; }
list_clean() {
	case " $OUT " in
	*" security."*|*" trusted."*|*" user.stainless."*|*" system.foo"*) return 1 ;;
	esac
	return 0
}

# Enough fds that the xattr flood meets the byte budget, not the fd budget.
SOCK=$T/s1
serve "$SOCK" prlimit --nofile=8192:8192 -- || { echo "FAIL: cannot start 9p-serve"; exit 1; }
S1=$SPID

# --- Rule 1: host-made device nodes and a FIFO ---
want "lopen-chardev-r"   ENXIO lopen zero r
want "lopen-chardev-rw"  ENXIO lopen zero rw
want "lopen-blkdev"      ENXIO lopen blk r
want "lopen-fifo-r"      ENXIO lopen fifo r
want "lopen-fifo-w"      ENXIO lopen fifo w
want "lcreate-chardev"   ENXIO lcreate . zero rw
want "lcreate-blkdev"    ENXIO lcreate . blk r
want "lcreate-fifo"      ENXIO lcreate . fifo w
# Tsetattr size: ENXIO, or EINVAL as truncate(2) answers for a non-regular
# file when the server refuses before it opens anything (either way no open).
want "truncate-chardev"  "ENXIO|EINVAL" truncate zero
want "truncate-blkdev"   "ENXIO|EINVAL" truncate blk
want "truncate-fifo"     "ENXIO|EINVAL" truncate fifo
want "truncate-regular"  0 truncate trunc
host "truncate-regular-host" "the file emptied on the host" sh -c '[ ! -s "$1" ]' sh "$SHARE/trunc"
want "lcreate-regular"   0 lcreate . made-by-9p rw
host "lcreate-regular-host" "a regular file on the host" test -f "$SHARE/made-by-9p"
host "devices-intact" "the host's device nodes untouched" is_dev "$SHARE/zero" "character special file 1:5"
alive "after-device-opens"

# --- Rule 2: Tmknod ---
want "mknod-chardev"     EPERM mknod . cdev c 1 5
host "mknod-chardev-host" "absent on the host" absent "$SHARE/cdev"
want "mknod-blkdev"      EPERM mknod dir bdev b 7 0
host "mknod-blkdev-host" "absent on the host" absent "$SHARE/dir/bdev"
want "mknod-whiteout"    0 mknod . wh c 0 0
host "mknod-whiteout-host" "a char 0:0 on the host" is_dev "$SHARE/wh" "character special file 0:0"
want "mknod-fifo"        0 mknod . pipe p 0 0
want "lopen-client-fifo" ENXIO lopen pipe r
want "lopen-whiteout"    ENXIO lopen wh r
alive "after-mknod"

# --- Rule 1: symlinks out of the share ---
want "lopen-symlink-abs"      ELOOP lopen ln r
want "lopen-symlink-secret"   ELOOP lopen sec r
want "lopen-symlink-rel"      ELOOP lopen rel r
want "walk-through-root-link" "!0" walk up/etc/passwd
want "lopen-through-root-link" "!0" lopen up/etc/passwd r
want "walk-dotdot-out"        "!0" walk ../secret
want "lcreate-over-symlink"   ELOOP lcreate . ln rw
want "lcreate-over-secret-link" ELOOP lcreate . sec w
want "lcreate-in-root-link"   "!0" lcreate up pwned-by-9p rw
want "mkdir-in-root-link"     "!0" mkdir up pwned-by-9p-dir
host "nothing-made-at-/" "absent outside the share" sh -c '[ ! -e /pwned-by-9p ] && [ ! -e /pwned-by-9p-dir ]'
want "truncate-symlink"       "ELOOP|EINVAL" truncate sec
want "readlink-abs"  "0 /etc/passwd" readlink ln
want "readlink-secret" "0 $SECRET" readlink sec
host "secret-unchanged" "the secret's content and mtime unchanged" \
	sh -c '[ "$(stat -c "%Y %s" "$1")" = "$2" ] && [ "$(head -n 1 "$1")" = "$3" ]' \
	sh "$SECRET" "$secret_stamp" "$(head -n 1 "$SECRET")"
host "passwd-unchanged" "/etc/passwd's mtime and size unchanged" \
	sh -c '[ "$(stat -c "%Y %s" /etc/passwd)" = "$1" ]' sh "$passwd_stamp"
alive "after-symlinks"

# --- Rule 3: xattrs, set by the client ---
want "xset-user"          0 xset xc user.ok v1
host "xset-user-host"     "user.ok=v1 on the host" xval "$SHARE/xc" user.ok v1
for n in security.capability security.selinux trusted.overlay.opaque system.foo; do
	want "xset-$n" EOPNOTSUPP xset xc "$n" planted
done
want "xset-user.stainless.x" EPERM xset xc user.stainless.x planted
host "xset-refused-host" "no refused name planted on the host" sh -c \
	'! getfattr -h --absolute-names -d -m - "$1" 2>/dev/null | grep -q "planted"' sh "$SHARE/xc"
# ... removed by the client (the host preset them)
for n in security.selinux trusted.overlay.opaque system.foo; do
	want "xdel-$n" EOPNOTSUPP xdel xfile "$n"
done
want "xdel-user.stainless.x" EPERM xdel xfile user.stainless.x
host "xdel-refused-host" "trusted.overlay.opaque and user.stainless.x kept" \
	sh -c 'getfattr -h -n trusted.overlay.opaque "$1" && getfattr -h -n user.stainless.x "$1"' sh "$SHARE/xfile"
# ... read and listed (the host preset them)
want "xget-user" "0 hostval" xget xfile user.ok
for n in security.capability trusted.overlay.opaque user.stainless.x system.foo; do
	want "xget-$n" ENODATA xget xfile "$n"
done
[ $HAVE_SEC = 1 ] && want "xget-security.selinux" ENODATA xget xfile security.selinux
run xlist xfile
if [ $RC -ne 0 ] || [ "${OUT%% *}" != 0 ]; then fail "xlist: $OUT"
elif ! listed user.ok; then fail "xlist: user.ok missing: $OUT"
elif ! list_clean; then fail "xlist: lists a hidden name: $OUT"
else pass "xlist: only user.ok: $OUT"
fi
alive "after-xattrs"

# --- Rule 6: fid numbers ---
want "fid-numbers" 0 bigfids hello
alive "after-fid-numbers"

# --- Rule 4: the Txattrcreate flood ---
run xflood 2000 "$S1"
# "ERR held=N rss_growth_kib=K other=E"
set -- $OUT
grow=${3#rss_growth_kib=}
if [ $RC -ne 0 ]; then fail "xattr-flood: $OUT"
elif [ "$1" != ENOMEM ]; then fail "xattr-flood: want ENOMEM, got $OUT"
elif [ "$grow" -gt 65536 ]; then fail "xattr-flood: server grew ${grow} KiB: $OUT"
elif [ "$4" != other=0 ]; then fail "xattr-flood: another connection not served: $OUT"
else pass "xattr-flood: $OUT"
fi
alive "after-xattr-flood"

# --- Rule 7: the socket, and a non-root peer ---
mode=$(stat -c %a "$SOCK")
if [ "$mode" = 600 ]; then pass "socket-mode: 0600"; else fail "socket-mode: $mode, want 600"; fi
chmod 0666 "$SOCK"    # as if the host widened it: the attach must still refuse
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
OUT=$(nobody timeout 30 "$H" "$SOCK" attach 0 2>&1 | head -n 1)
[ "${OUT%% *}" = EPERM ] && pass "peer-attach-as-root: $OUT" || fail "peer-attach-as-root: want EPERM, got $OUT"
OUT=$(nobody timeout 30 "$H" "$SOCK" attach 1000 2>&1 | head -n 1)
[ "${OUT%% *}" = EPERM ] && pass "peer-attach-as-other: $OUT" || fail "peer-attach-as-other: want EPERM, got $OUT"
OUT=$(nobody timeout 30 "$H" "$SOCK" attach 65534 2>&1 | head -n 1)
echo "note: a uid-65534 peer attaching as itself: $OUT"
# ... and makes files only of its own groups (the share is writable to it)
mkdir "$SHARE/pub" && chmod 1777 "$SHARE/pub"
# (set-group-ID of its own group is its right: what matters is whose group)
groupof() { [ "$(stat -c '%u:%g' "$1")" = "$2" ]; }
for k in f d; do
	OUT=$(nobody timeout 30 "$H" "$SOCK" makeas 65534 "$k" pub "byroot-$k" 2755 0 2>&1 | head -n 1)
	if [ "${OUT%% *}" = 0 ] && groupof "$SHARE/pub/byroot-$k" 65534:65534; then
		pass "peer-group-$k: asked for root's group, set-group-ID: got $(stat -c '%U:%G %a' "$SHARE/pub/byroot-$k")"
	elif { [ "${OUT%% *}" = EPERM ] || [ "${OUT%% *}" = EACCES ]; } && absent "$SHARE/pub/byroot-$k"; then
		pass "peer-group-$k: refused: $OUT"
	else
		fail "peer-group-$k: a uid-65534 peer made $(stat -c '%U:%G %a' "$SHARE/pub/byroot-$k" 2>&1): $OUT"
	fi
done
# A group the peer is in (SO_PEERGROUPS) is kept.
OUT=$(setpriv --reuid=65534 --regid=65534 --groups=4321 timeout 30 "$H" "$SOCK" makeas 65534 f pub ingroup 644 4321 2>&1 | head -n 1)
[ "${OUT%% *}" = 0 ] && groupof "$SHARE/pub/ingroup" 65534:4321 &&
	pass "peer-own-group: a peer in group 4321 got it" || fail "peer-own-group: $OUT, $(stat -c '%u:%g' "$SHARE/pub/ingroup" 2>&1)"
# A root peer may still name any group.
OUT=$(timeout 30 "$H" "$SOCK" makeas 0 f . rootgroup 644 1234 2>&1 | head -n 1)
[ "${OUT%% *}" = 0 ] && [ "$(stat -c %g "$SHARE/rootgroup")" = 1234 ] &&
	pass "root-peer-group: group 1234 as asked" || fail "root-peer-group: $OUT, $(stat -c %g "$SHARE/rootgroup" 2>&1)"
alive "after-peer-attach"

# --- Rule 2 with --devices ---
SOCK=$T/s2
if serve "$SOCK" -- --devices; then
	want "devices-mknod-chardev" 0 mknod . dzero c 1 5
	host "devices-mknod-host" "a char 1:5 on the host" is_dev "$SHARE/dzero" "character special file 1:5"
	want "devices-lopen"    ENXIO lopen dzero r
	want "devices-lcreate"  ENXIO lcreate . dzero rw
	want "devices-truncate" "ENXIO|EINVAL" truncate dzero
	alive "devices-after"
	rm -f "$SHARE/dzero"
else
	fail "devices: 9p-serve --devices did not start"
fi

# --- Rule 3 with --xattr-map: security.X/trusted.X stored as user.stainless.X ---
SOCK=$T/s4
if serve "$SOCK" -- --xattr-map; then
	want "map-xset-trusted"    0 xset xm trusted.overlay.opaque y
	host "map-xset-trusted-host" "user.stainless.trusted.overlay.opaque=y, no trusted.* on the host" \
		sh -c 'getfattr -h --absolute-names --only-values -n user.stainless.trusted.overlay.opaque "$1" | grep -qx y &&
		       ! getfattr -h -n trusted.overlay.opaque "$1"' sh "$SHARE/xm"
	want "map-xset-security"   0 xset xm security.selinux maplabel
	host "map-xset-security-host" "user.stainless.security.selinux=maplabel on the host" \
		xval "$SHARE/xm" user.stainless.security.selinux maplabel
	want "map-xget-trusted"    "0 y" xget xm trusted.overlay.opaque
	want "map-xget-security"   "0 maplabel" xget xm security.selinux
	run xlist xm
	if [ $RC -ne 0 ] || [ "${OUT%% *}" != 0 ]; then fail "map-xlist: $OUT"
	elif ! listed trusted.overlay.opaque || ! listed security.selinux; then fail "map-xlist: a mapped name missing: $OUT"
	else case " $OUT " in
		*" user.stainless."*) fail "map-xlist: lists the reserved prefix: $OUT" ;;
		*) pass "map-xlist: $OUT" ;;
		esac
	fi
	want "map-xset-reserved"   EPERM xset xm user.stainless.trusted.overlay.opaque w
	want "map-xget-host-real-trusted" ENODATA xget xfile trusted.overlay.opaque
	want "map-xset-system"     EOPNOTSUPP xset xm system.foo w
	want "map-xdel-trusted"    0 xdel xm trusted.overlay.opaque
	host "map-xdel-trusted-host" "user.stainless.trusted.overlay.opaque gone" \
		nox "$SHARE/xm" user.stainless.trusted.overlay.opaque
	alive "map-after"
else
	fail "xattr-map: 9p-serve --xattr-map did not start"
fi

# --- Rule 5: the fd flood, under a small RLIMIT_NOFILE ---
SOCK=$T/s3
if serve "$SOCK" prlimit --nofile=512 -- ; then
	run fdflood 2000 hello
	# "ERR held=N same_conn=E second_version=E second_attach=E after=E second_work=E"
	set -- $OUT
	if [ $RC -ne 0 ]; then fail "fd-flood: $OUT"
	elif [ "$1" != ENFILE ]; then fail "fd-flood: want ENFILE, got $OUT"
	elif [ "$3" != same_conn=0 ] || [ "$4" != second_version=0 ] || [ "$6" != after=0 ]; then
		fail "fd-flood: the server stopped serving: $OUT"
	elif [ "$5" != second_attach=0 ] || [ "$7" != second_work=0 ]; then
		fail "fd-flood: a greedy client starved a newcomer (rule 8): $OUT"
	else pass "fd-flood: $OUT"
	fi
	kill -0 "$SPID" 2>/dev/null && pass "fd-flood-server: still running" || fail "fd-flood-server: exited"
	alive "fd-flood-after"
else
	fail "fd-flood: 9p-serve under prlimit did not start"
fi

# --- Rule 8: connection slots at a low RLIMIT_NOFILE (1024: 6 slots) ---
SOCK=$T/s5
if serve "$SOCK" prlimit --nofile=1024 -- --max-connections 1000; then
	SRV=$(server_pid "$SPID")
	run connflood 30 "$SRV"
	# "0 served=S waiting=W cpu_ms=C dropped=D late=E"
	set -- $OUT
	ms=${4#cpu_ms=}
	if [ $RC -ne 0 ]; then fail "conn-flood: $OUT"
	elif [ "$5" != dropped=0 ]; then fail "conn-flood: waiting clients were dropped: $OUT"
	elif [ "$3" = waiting=0 ]; then fail "conn-flood: every connection served, no slot bound: $OUT"
	elif [ "$ms" -gt 200 ]; then fail "conn-flood: the accept loop spun (${ms} ms CPU in 1 s): $OUT"
	elif [ "$6" != late=0 ]; then fail "conn-flood: a waiting client was not served once others left: $OUT"
	else pass "conn-flood: $OUT"
	fi
	alive "conn-flood-after"
else
	fail "conn-flood: 9p-serve under prlimit did not start"
fi

# --- Rule 8: many greedy sessions: --max-memory and the lock helpers' bound ---
SOCK=$T/s6
: >"$SHARE/crowd"
if serve "$SOCK" prlimit --nofile=8192:8192 -- --max-connections 8 --max-memory 32M; then
	SRV=$(server_pid "$SPID")
	run crowd 8 300 0 crowd "$SRV"
	# "0 rss_growth_kib=K threads=T"; 8 sessions alone would take 128 MiB
	set -- $OUT
	kib=${2#rss_growth_kib=}
	if [ $RC -ne 0 ]; then fail "crowd-memory: $OUT"
	elif [ "$kib" -gt 49152 ]; then fail "crowd-memory: the server grew past --max-memory 32M: $OUT"
	else pass "crowd-memory: $OUT"
	fi
	alive "crowd-memory-after"
else
	fail "crowd-memory: 9p-serve did not start"
fi
SOCK=$T/s7
if serve "$SOCK" prlimit --nofile=8192:8192 -- --max-connections 16; then
	SRV=$(server_pid "$SPID")
	run crowd 16 0 64 crowd "$SRV"
	# 15 sessions of 64 parked locks each would be 960 helper threads
	set -- $OUT
	thr=${3#threads=}
	if [ $RC -ne 0 ]; then fail "crowd-locks: $OUT"
	elif [ "$thr" -gt 280 ]; then fail "crowd-locks: more threads than 16 connections and 256 lock helpers: $OUT"
	elif [ "$thr" -lt 200 ]; then fail "crowd-locks: too few locks parked to tell: $OUT"
	else pass "crowd-locks: $OUT"
	fi
	alive "crowd-locks-after"
else
	fail "crowd-locks: 9p-serve did not start"
fi

SOCK=$T/s1
alive "the-end"
if [ $nfail -gt 0 ] && [ -s "$T/server.err" ]; then
	echo "server stderr (last lines):"
	tail -n 5 "$T/server.err"
fi
echo "$npass passed, $nfail failed"
[ $nfail -eq 0 ]
