#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `stainless 9p-serve` against clients nobody here wrote: Debian diod's
# diodls (listing, long listing), diodcat (contents) and diodload
# (concurrent read/write and getattr load), all over a Unix socket
# (diod's tools take "-s /path" as a socket and send the export path as
# aname; diodload hard-codes aname "ctl" and the files "zero" and "null").
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
for t in diodls diodcat diodload; do
	command -v $t >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
	command -v $t >/dev/null 2>&1 || { echo "SKIP: $t not installed (Debian package diod)"; exit 77; }
done

T=$(mktemp -d /tmp/p9_diod.XXXXXX)
SHARE=$T/share
SOCK=$T/sock
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$SHARE/sub/deeper"
printf 'hello from the host\n' >"$SHARE/hello.txt"
printf 'nested\n' >"$SHARE/sub/deeper/n.txt"
head -c 300000 /dev/urandom >"$SHARE/random.bin"
ln -s hello.txt "$SHARE/link"
for i in $(seq 1 200); do : >"$SHARE/sub/f$i"; done
# What diodload reads and writes (in diod these live in its "ctl" tree).
head -c 1048576 /dev/zero >"$SHARE/zero"
: >"$SHARE/null"

"$STAINLESS" 9p-serve --socket "$SOCK" "$SHARE" 2>"$T/server.err" &
PID=$!
i=0
while [ ! -S "$SOCK" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "server socket never appeared: $(cat "$T/server.err")"
	sleep 0.05
done

# diodls: the root and a subdirectory, names as the host sees them.
diodls -s "$SOCK" -a "$SHARE" / >"$T/ls.out" 2>"$T/ls.err" || fail "diodls /: $(cat "$T/ls.err")"
(cd "$SHARE" && ls -A) | sort >"$T/host.ls"
sort "$T/ls.out" >"$T/ls.sorted"
cmp -s "$T/host.ls" "$T/ls.sorted" || { diff "$T/host.ls" "$T/ls.sorted"; fail "diodls / differs from the host"; }
diodls -s "$SOCK" -a "$SHARE" sub | sort >"$T/sub.ls" || fail "diodls sub"
(cd "$SHARE/sub" && ls -A) | sort >"$T/host.sub"
cmp -s "$T/host.sub" "$T/sub.ls" || fail "diodls sub differs from the host"
echo "ok: diodls lists $(wc -l <"$T/ls.sorted") + $(wc -l <"$T/sub.ls") entries as the host does"

# diodls -l: sizes and types from Tgetattr.
diodls -s "$SOCK" -a "$SHARE" -l / >"$T/long.out" 2>/dev/null
size=$(awk '$NF == "random.bin" { print $5 }' "$T/long.out")
[ "$size" = 300000 ] || fail "diodls -l size of random.bin: '$size'"
grep -q '^d.* sub$' "$T/long.out" || fail "diodls -l does not show sub as a directory"
echo "ok: diodls -l sizes and types"

# diodcat: contents byte for byte, several files in one session.
diodcat -s "$SOCK" -a "$SHARE" hello.txt sub/deeper/n.txt random.bin >"$T/cat.out" 2>"$T/cat.err" ||
	fail "diodcat: $(cat "$T/cat.err")"
cat "$SHARE/hello.txt" "$SHARE/sub/deeper/n.txt" "$SHARE/random.bin" | cmp -s - "$T/cat.out" ||
	fail "diodcat contents differ from the host"
diodcat -s "$SOCK" -a "$SHARE" -m 8192 random.bin | cmp -s - "$SHARE/random.bin" ||
	fail "diodcat with msize 8192 differs"
echo "ok: diodcat contents match (msize 64k and 8k)"

# Errors reach the client, and the server keeps serving.
diodcat -s "$SOCK" -a "$SHARE" missing >/dev/null 2>"$T/e1" && fail "diodcat of a missing file succeeded"
grep -q "No such file" "$T/e1" || fail "missing file: $(cat "$T/e1")"
diodls -s "$SOCK" -a /not/the/share / >/dev/null 2>"$T/e2" && fail "attach to another aname succeeded"
echo "ok: errors reported (ENOENT), other anames refused"

# diodload: 8 threads, each its own connection, reads of msize and writes.
diodload -s "$SOCK" -n 8 -r 3 >"$T/load.out" 2>&1 || fail "diodload: $(cat "$T/load.out")"
grep -q 'ops/s' "$T/load.out" || fail "diodload printed no result: $(cat "$T/load.out")"
grep -Eiv 'ops/s' "$T/load.out" | grep -q . && fail "diodload reported errors: $(cat "$T/load.out")"
echo "ok: diodload i/o $(grep -o '[0-9]* ops/s.*' "$T/load.out")"
diodload -s "$SOCK" -n 8 -r 2 -g >"$T/load.out" 2>&1 || fail "diodload -g: $(cat "$T/load.out")"
grep -Eiv 'ops/s' "$T/load.out" | grep -q . && fail "diodload -g reported errors: $(cat "$T/load.out")"
echo "ok: diodload getattr $(grep -o '[0-9]* ops/s' "$T/load.out")"

kill -0 "$PID" || fail "the server died"
grep -v "info: serving" "$T/server.err" >"$T/server.err2"
[ -s "$T/server.err2" ] && fail "server wrote to stderr: $(cat "$T/server.err2")"
echo "PASS"
