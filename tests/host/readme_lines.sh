#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The README's commands stay true:
#  1. every line of a recipe block (between <!-- recipe:PAGE --> and
#     <!-- recipe:end -->) is, character for character, a line of PAGE,
#     whose lines tests/host/docs_lines.sh ties to the test that runs them;
#  2. every --option of a stainless command line in the README (the
#     synopsis, the five-minute start, the recipes) is one the binary's
#     option tables know (a getopt entry or a literal "--option" in the
#     sources outside tests/);
#  3. every whole stainless command line the README gives to copy parses:
#     run with its paths pointed nowhere, it fails for the path, not with
#     an unknown option or a missing argument;
#  4. the two commands are still there, and .ci/run runs the test one.
# The five-minute start's boot itself is e2e/demo's (make demo runs it).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
: "${STAINLESS:=$ROOT/build/stainless}"
[ -x "$STAINLESS" ] || { echo "SKIP: no stainless binary at $STAINLESS (make)"; exit 77; }
T=$(mktemp -d /tmp/readme_lines.XXXXXX)
trap 'rm -rf "$T"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# 1. Recipe blocks.
awk -v dir="$T" '
	/^<!-- recipe:end -->/ { page = ""; next }
	match($0, /^<!-- recipe:[^ ]+ -->/) { page = substr($0, 13, RLENGTH - 16); n++; print page > (dir "/pages"); next }
	page != "" && $0 != "" { print > (dir "/block." n) }
' README.md
n=0
[ -s "$T/pages" ] || fail "README.md has no recipe blocks"
while read -r page; do
	n=$((n + 1))
	[ -f "$page" ] || { fail "recipe block $n names $page, which does not exist"; continue; }
	[ -s "$T/block.$n" ] || { fail "recipe block $n ($page) is empty"; continue; }
	while IFS= read -r line; do
		grep -qxF -- "$line" "$page" || fail "README's recipe for $page says a line $page does not: $line"
	done <"$T/block.$n"
	echo "ok: recipe block $n: every line is $page's ($(wc -l <"$T/block.$n") lines)"
done <"$T/pages"

# 2. The stainless command lines: code lines (indented 4, or in a fence)
# that start a stainless command, with their continuation lines, and the
# whole synopsis fence.
awk '
	/^```/ { fence = !fence; next }
	fence && syn { print; next }
	/^## Command line/ { syn = 1 } /^## / && !/^## Command line/ { syn = 0 }
	{ line = $0; code = fence || line ~ /^    / }
	cont && code { print line; cont = line ~ /\\$/; next }
	cont = 0
	code && line ~ /^ *(build\/|\/usr\/libexec\/)?(stainless|stainless-virtiofsd|virtiofsd) / {
		print line; cont = line ~ /\\$/
	}
' README.md >"$T/lines"
[ -s "$T/lines" ] || fail "found no stainless command line in README.md"
sed -E 's/"\$\([^)]*\)"//g' "$T/lines" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$T/opts"
srcs=$(find vmm transport sandbox fs devices mmio cmd -name '*.c' 2>/dev/null)
while read -r opt; do
	name=${opt#--}
	grep -qE -- "\{ *\"$name\"|\"--$name[\"=]|REFUSED\(\"$name\"\)|OPT\(\"$name\"" $srcs ||
		fail "README names $opt, which no option table of the binary has"
done <"$T/opts"
echo "ok: $(wc -l <"$T/opts") options of the README's stainless lines are in the binary's option tables"

# 3. The lines to copy (not the synopsis): joined, paths pointed nowhere.
awk '
	/^```/ { fence = !fence; next }
	fence { next }
	{ line = $0 }
	cont { cur = cur " " line; cont = line ~ /\\$/; if (!cont) { print cur; cur = "" } ; next }
	line ~ /^    (build\/|\/usr\/libexec\/)?(stainless|stainless-virtiofsd) / {
		cur = line; cont = line ~ /\\$/; if (!cont) { print cur; cur = "" }
	}
' README.md | sed 's/\\//g; s/ *&.*$//; s/#.*$//' >"$T/cmds"
k=0
while IFS= read -r cmd; do
	k=$((k + 1))
	# "$(...)" and every absolute path become a path that is not there.
	args=$(echo "$cmd" | sed -E 's/"\$\([^)]*\)\)?"/\/nowhere\/x/g; s/(=|^| )\/[^ ,]*/\1\/nowhere\/x/g' |
		sed -E 's/^ *(build\/)?stainless //; s/^ *(\/nowhere\/x|stainless-virtiofsd) /vhost-user-fs /')
	# shellcheck disable=SC2086  # the README's words, split as a shell would
	timeout 5 "$STAINLESS" $args </dev/null >"$T/out" 2>&1
	rc=$?
	if grep -qiE 'unknown option|unrecognized option|invalid option|not an option|needs an argument|requires an argument|usage:' "$T/out"; then
		fail "README line does not parse: $cmd -> $(head -n 2 "$T/out")"
	elif [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
		fail "README line with its paths pointed nowhere did not fail ($rc): $cmd"
	else
		echo "ok: parses, then fails for the missing path: $(head -n 1 "$T/out")"
	fi
done <"$T/cmds"
[ $k -gt 0 ] || fail "no stainless line to copy in README.md"

# 4. The two commands: CI (.ci/run) runs exactly the README's test command.
grep -qE '^    make check( |$)' README.md || fail "README.md no longer gives 'make check' as the test command"
grep -qx 'make check' .ci/run || fail ".ci/run does not run the README's test command, make check"
grep -qE '^    make demo( |$)' README.md || fail "README.md no longer starts with make demo"

[ $bad -eq 0 ] && echo "PASS: the README's recipes are the pages' lines and its stainless lines parse"
exit $bad
