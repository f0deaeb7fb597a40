#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `stainless exec`'s command line from the outside: each malformed one ends
# with exit 2 and exactly one line on stderr naming what is wrong (no --,
# no ROOTDIR, no command, a --user that is not numbers, an --env without
# '=', a relative --cwd, a bad --rlimit, an unknown option), before any VM
# or sandbox; a ROOTDIR that does not exist is a runtime failure (1) that
# names it; --help shows the synopsis; nothing is left in TMPDIR.
set -u
: "${STAINLESS:?}"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$t/root" "$t/tmp"

# expect CODE PATTERN ARGS...: the exit code, and one stderr line matching.
expect() {
	code=$1 pat=$2
	shift 2
	TMPDIR=$t/tmp timeout 20 "$STAINLESS" exec "$@" </dev/null >"$t/out" 2>"$t/err"; rc=$?
	[ $rc -eq "$code" ] || fail "stainless exec $*: exit $rc, expected $code ($(cat "$t/err"))"
	grep -q -- "$pat" "$t/err" || fail "stainless exec $*: said '$(cat "$t/err")', expected '$pat'"
	[ "$(wc -l <"$t/err")" -eq 1 ] || fail "stainless exec $*: not one line: $(cat "$t/err")"
	[ ! -s "$t/out" ] || fail "stainless exec $*: wrote on stdout: $(cat "$t/out")"
	echo "ok   exec $*: $rc, $(cat "$t/err")"
}

r=$t/root
expect 2 "ROOTDIR and the command are missing"
expect 2 "expected '--' and the command after ROOTDIR" "$r"
expect 2 "expected '--' and the command after ROOTDIR" "$r" sh -c true
expect 2 "ROOTDIR is missing before '--'" -- sh
expect 2 "no command after '--'" "$r" --
expect 2 "--user 'nobody': expected UID\[:GID\]" --user nobody "$r" -- sh
expect 2 "--user '1000:staff'" --user 1000:staff "$r" -- sh
expect 2 "--user '4294967295'" --user 4294967295 "$r" -- sh
expect 2 "--env 'NOVALUE': expected KEY=VALUE" --env NOVALUE "$r" -- sh
expect 2 "--cwd 'tmp': must be an absolute path" --cwd tmp "$r" -- sh
expect 2 "--rlimit 'nofile=lots'" --rlimit nofile=lots "$r" -- sh
expect 2 "--hostname" --hostname "$(printf '%070d' 0)" "$r" -- sh
expect 2 "unknown option '--frobnicate'" --frobnicate "$r" -- sh
expect 2 "--mem 'lots'" --mem lots "$r" -- sh
expect 1 "ROOTDIR $t/nope: No such file or directory" "$t/nope" -- sh
: >"$r/f"
expect 1 "ROOTDIR $r/f: not a directory" "$r/f" -- sh
expect 1 "--kernel $t/nokernel: No such file" --kernel "$t/nokernel" "$r" -- sh

"$STAINLESS" exec --help >"$t/help" || fail "exec --help: exit $?"
grep -q "Usage: stainless exec \[OPTIONS\] ROOTDIR -- CMD \[ARGS...\]" "$t/help" ||
	fail "exec --help has no synopsis"
[ -z "$(ls -A "$t/tmp")" ] || fail "left in TMPDIR: $(ls -A "$t/tmp")"
echo "PASS: exec's bad command lines give exit 2 (or 1 for a missing ROOTDIR) and one line"
