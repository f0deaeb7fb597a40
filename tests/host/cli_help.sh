#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The face of every command: -h/--help and --version (and -V) on
# `stainless`, run, fuse-mount, 9p-serve, vhost-user-fs and the binary
# under virtiofsd's names, each to stdout with exit 0 and nothing on
# stderr; the help names every option the command's parser takes (each
# option the help lists is then given to the parser, which must not call
# it unknown; and no parser in cmd/ keeps a getopt table or a strcmp on
# "--..." of its own beside its option table; cmd/main.c's words are the
# top level's: --help, --version); a default and an example
# per command; the man pages and the bash completion in dist/ are exactly
# what the tables write (`make dist-docs` rewrites them); a bad
# --log-level exits 2 with one line, on every command.
set -u
: "${STAINLESS:?set STAINLESS to the stainless binary}"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d /tmp/cli_help.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
BIN=${STAINLESS_REAL:-$STAINLESS}
VERSION=$("$BIN" --version | awk '{ print $2 }')
[ -n "$VERSION" ] || fail "stainless --version printed no version"

# clean WHAT CMD...: exit 0, something on stdout, nothing on stderr.
clean() {
	what=$1; shift
	"$@" >"$T/out" 2>"$T/err" </dev/null; rc=$?
	[ $rc -eq 0 ] || fail "$what: exit $rc ($(head -c 300 "$T/err"))"
	[ -s "$T/out" ] || fail "$what: nothing on stdout"
	[ -s "$T/err" ] && fail "$what: wrote on stderr: $(head -c 300 "$T/err")"
	return 0
}

for flag in --help -h help; do
	clean "stainless $flag" "$BIN" $flag
	for c in run exec fuse-mount 9p-serve vhost-user-fs; do
		grep -q "stainless $c" "$T/out" || fail "stainless $flag does not name $c"
	done
done
clean "stainless --version" "$BIN" --version
grep -qx "stainless $VERSION" "$T/out" || fail "stainless --version: $(cat "$T/out")"

mkdir "$T/bin"
ln -s "$BIN" "$T/bin/virtiofsd"
ln -s "$BIN" "$T/bin/stainless-virtiofsd"
for c in run exec fuse-mount 9p-serve vhost-user-fs; do
	for flag in --help -h; do
		clean "$c $flag" "$BIN" $c $flag
		head -n 1 "$T/out" | grep -q "^Usage: stainless $c " || fail "$c $flag: first line $(head -n 1 "$T/out")"
	done
	cp "$T/out" "$T/help.$c"
	grep -q '(.*default: ' "$T/help.$c" || fail "$c --help shows no default"
	sed -n '/^Example:/,$p' "$T/help.$c" | grep -q "^  stainless $c " || fail "$c --help has no example"
	for flag in --version -V; do
		clean "$c $flag" "$BIN" $c $flag
		grep -qx "stainless $c $VERSION" "$T/out" || fail "$c $flag: $(cat "$T/out")"
	done
	# A bad level: exit 2, one line naming the levels.
	"$BIN" $c --log-level loud >"$T/out" 2>"$T/err" </dev/null; rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'error, *warn\|error|warn|info' "$T/err" ||
		fail "$c --log-level loud: exit $rc, '$(cat "$T/err")'"
	echo "ok: $c: --help, -h, --version, -V; --log-level loud refused ($(cat "$T/err"))"
done
for name in virtiofsd stainless-virtiofsd; do
	clean "$name --help" "$T/bin/$name" --help
	head -n 1 "$T/out" | grep -q "^Usage: $name " || fail "$name --help: $(head -n 1 "$T/out")"
	clean "$name --version" "$T/bin/$name" --version
	echo "ok: $name --help, --version"
done

# Every option the help lists is one the parser takes: given to it, no
# "not an option" (it may well fail for want of the rest).
for c in run exec fuse-mount 9p-serve vhost-user-fs; do
	opts=$(sed -n 's/^ \{2,6\}\(-[A-Za-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p; s/^  \(-[A-Za-z]\) .*/\1/p' "$T/help.$c" | sort -u)
	[ "$(echo "$opts" | wc -l)" -ge 5 ] || fail "$c --help: too few options found: $opts"
	for o in $opts; do
		case $o in --help|-h|--version|-V|--print-seccomp|--print-capabilities) continue ;; esac
		timeout 5 "$BIN" $c "$o" >/dev/null 2>"$T/err" </dev/null
		grep -q "not an option\|unknown option\|unrecognized" "$T/err" &&
			fail "$c: '$o' is in --help but the parser refuses it: $(cat "$T/err")"
	done
	echo "ok: $c: each of its $(echo "$opts" | wc -l) options in --help is one its parser takes"
done
# ... and the parser takes nothing the table has not: no getopt table or
# hand-matched "--option" in cmd/ but the tables' own machinery.
hand=$(grep -ln 'struct option [a-z_]*\[\] *=\|strcmp([a-z]*, *"--' "$ROOT"/cmd/*.c 2>/dev/null | grep -v -e 'cmd/opt_table.c' -e 'cmd/main.c')
[ -z "$hand" ] || fail "options parsed beside the option tables in: $hand"
echo "ok: every command's getopt table is written from its option table"

# Every seccomp role is one --print-seccomp takes, and the help says so.
for r in control vcpu queue lock-wait console fuse-reader fuse-uring fuse-watch 9p-conn vhost-user spawner supervisor relay exec-relay; do
	grep -q "$r" "$T/help.fuse-mount" || fail "fuse-mount --help does not list the role $r"
	"$BIN" fuse-mount --print-seccomp "$r" >/dev/null 2>&1 || fail "--print-seccomp $r"
done
echo "ok: the 13 seccomp roles in --help, each printable"

# The man pages and the completion are what the tables write.
for c in run exec fuse-mount 9p-serve vhost-user-fs; do
	"$BIN" help --man "$c" >"$T/man.$c" || fail "help --man $c"
	cmp -s "$T/man.$c" "$ROOT/dist/man/stainless-$c.1" ||
		fail "dist/man/stainless-$c.1 is not what the table writes (make dist-docs): $(diff "$T/man.$c" "$ROOT/dist/man/stainless-$c.1" | head -5)"
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man -l "$T/man.$c" 2>"$T/err" | grep -q OPTIONS || fail "man -l stainless-$c.1"
		[ -s "$T/err" ] && fail "man -l stainless-$c.1 warns: $(head -3 "$T/err")"
	fi
done
# The two pages written by hand name every option too: stainless(1) run's,
# stainless-virtiofsd(1) vhost-user-fs's.
for pair in run:stainless vhost-user-fs:stainless-virtiofsd; do
	c=${pair%%:*} page=$ROOT/dist/man/${pair#*:}.1
	for o in $(sed -n 's/^ \{2,6\}\(-[A-Za-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p' "$T/help.$c"); do
		grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$page" || fail "$page does not name $c's $o"
	done
done
"$BIN" help --bash-completion >"$T/comp" || fail "help --bash-completion"
cmp -s "$T/comp" "$ROOT/dist/bash-completion/stainless" ||
	fail "dist/bash-completion/stainless is not what the tables write (make dist-docs)"
if command -v bash >/dev/null 2>&1; then
	got=$(bash -c ". '$T/comp'; COMP_WORDS=(stainless fuse-mount --xa); COMP_CWORD=2; _stainless; echo \${COMPREPLY[*]}")
	[ "$got" = "--xattr --xattr-map" ] || fail "completion of 'fuse-mount --xa': '$got'"
	got=$(bash -c ". '$T/comp'; COMP_WORDS=(stainless run --console ''); COMP_CWORD=3; _stainless; echo \${COMPREPLY[*]}")
	[ "$got" = "stdio none" ] || fail "completion of 'run --console': '$got'"
fi
echo "ok: dist/man/stainless-{run,fuse-mount,9p-serve,vhost-user-fs}.1 and the bash completion are the tables'"
echo "PASS: help, version, man pages and completion from the option tables"
