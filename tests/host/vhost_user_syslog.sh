#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `stainless vhost-user-fs --syslog` with a live syslog listener on /dev/log,
# started exactly as Kata's Go runtime starts virtiofsd:
#   --syslog --cache=auto --shared-dir=DIR --fd=3 --thread-pool-size=1
#   --announce-submounts
# (the listening socket made by the test and handed over as fd 3), under the
# production seccomp filters; and once more without --thread-pool-size=1,
# whose note is the only line logged before the filters are on. In a private mount namespace /dev is a tmpfs
# with the nodes the test needs and a datagram socket at /dev/log
# (tests/host/log_listener.c). Our frontend (vu_kata_client) does FUSE_INIT,
# LOOKUP, OPEN + READ, CREATE + WRITE and leaves; the backend must exit 0,
# and its lines -- from start-up to "the frontend left" -- must have
# reached the listener as RFC 3164 messages of its tag and the pid the
# runtime started (glibc's syslog() died at its first line after the
# filters when none came before: it loads the time zone then; and the
# pid it sent was the sandbox's, 2).
# Exit 0 pass, 77 skip (last line says why), else fail.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for a private /dev (unshare -m)"; exit 77; }
command -v unshare >/dev/null 2>&1 || { echo "SKIP: no unshare (util-linux)"; exit 77; }
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
unshare -m true 2>/dev/null || { echo "SKIP: cannot make a mount namespace here"; exit 77; }

T=$(mktemp -d /tmp/vhost_user_syslog.XXXXXX)
trap 'rm -rf "$T"' EXIT
$CC -O2 -Wall -D_GNU_SOURCE -I"$ROOT" -o "$T/client" "$HERE/vu_kata_client.c" \
	"$ROOT/tests/vhost/vu_frontend.c" "$ROOT/tests/vhost/vu_fuse.c" || fail "cannot build vu_kata_client"
$CC -O2 -Wall -o "$T/listener" "$HERE/log_listener.c" || fail "cannot build log_listener"
mkdir -p "$T/share" "$T/dev"
printf 'bytes for the guest' >"$T/share/from-host.txt"

# Inside the namespace: the private /dev, the listener, then Kata's line.
cat >"$T/inner.sh" <<'INNER'
set -u
T=$1 STAINLESS=$2 NEW=$3
shift 3
mount --make-rprivate / || exit 90
for n in null zero full random urandom kmsg tty; do
	[ -e /dev/$n ] || continue
	: >"$T/dev/$n" && mount --bind /dev/$n "$T/dev/$n" || exit 91
done
mount --bind "$T/dev" /dev || exit 92
"$T/listener" /dev/log "$T/log" &
L=$!
i=0
while [ ! -S /dev/log ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -S /dev/log ] || exit 93
"$T/client" --fd3 "$T/kata.sock" from-host.txt "bytes for the guest" "$NEW" "the guest wrote" -- \
	"$STAINLESS" vhost-user-fs "$@" >"$T/out" 2>"$T/err"
rc=$?
# The listener may still be reading what is queued: its last line, or 5 s.
i=0
while ! grep -q 'the frontend left' "$T/log" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill $L
exit $rc
INNER

# kata NEWNAME ARGS...: one start of the backend with ARGS, checked.
kata() {
	new=$1
	shift
	rm -f "$T/log" "$T/out" "$T/err"
	echo "== vhost-user-fs $*"
	unshare -m sh "$T/inner.sh" "$T" "$STAINLESS" "$new" "$@"
	rc=$?
	cat "$T/out" 2>/dev/null
	case $rc in
	0) ;;
	9[0-3]) fail "setting up the private /dev with a listener (step $rc)" ;;
	*) echo "-- stderr:"; tail -n 20 "$T/err"; echo "-- log:"; tail -n 20 "$T/log" 2>/dev/null
	   fail "the Kata command line with --syslog did not give a working backend (exit $rc)" ;;
	esac
	[ "$(cat "$T/share/$new")" = "the guest wrote" ] || fail "$new is not on the host with the guest's bytes"
	[ -s "$T/log" ] || fail "no line reached /dev/log (stderr: $(head -n 2 "$T/err"))"
	echo "-- what the listener received:"; cat "$T/log"
	# <PRI>Mmm dd hh:mm:ss TAG[PID]: text, PRI 12 = user.warning
	pat='^<12>[A-Z][a-z][a-z] [ 123][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9] stainless-vhost-user-fs\[[0-9][0-9]*\]: '
	bad=$(grep -cv "$pat" "$T/log")
	[ "$bad" -eq 0 ] || fail "$bad lines not in RFC 3164 form with the tag"
	grep -q 'stainless-vhost-user-fs\[[0-9]*\]: stainless vhost-user-fs: serving ' "$T/log" ||
		fail "no start-up line in the log"
	grep -q 'the frontend left; exiting$' "$T/log" || fail "no line from the end of the run in the log"
	[ "$(sed 's/.*\[\([0-9]*\)\].*/\1/' "$T/log" | sort -u | wc -l)" -eq 1 ] ||
		fail "lines carry different pids"
	grep -q . "$T/err" && fail "with --syslog, stderr got: $(head -n 3 "$T/err")"
	echo "ok: $(wc -l <"$T/log") lines arrived; the backend served and exited 0"
}

kata kata-go.txt --syslog --cache=auto --shared-dir="$T/share" --fd=3 --thread-pool-size=1 \
	--announce-submounts
kata first-line-filtered.txt --syslog --cache=auto --shared-dir="$T/share" --fd=3 --announce-submounts
echo "PASS: --syslog with a live /dev/log: the lines arrive, the backend serves and exits 0"
