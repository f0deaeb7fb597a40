#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The e2e runner's rule for shared boots (tests/e2e/host-run): when a guest
# boot shared by several cases (CASE_BOOT) dies before a case's own
# verdict, that case is rerun alone in a fresh guest and the log says so;
# a case that fails alone fails. Checked without KVM: host-run drives a
# fake `stainless run` that prints what a guest console would, and three
# cases share one boot: "first" passes in it, then the guest dies with a
# triple fault; "second" (no verdict) and "first" (a PASS the dead boot
# cannot confirm) pass when alone, "bad" fails when alone.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$T/cases" "$T/work"
for c in first second bad; do
	printf 'CASE_BOOT=trio\ncase_guest() { :; }\n' >"$T/cases/$c.sh"
done
# The fake VMM: the cases come from stainless.case=A,B,... on --cmdline.
cat >"$T/stainless" <<'EOF'
#!/bin/sh
cases=$(echo "$*" | sed -n 's/.*stainless\.case=\([^ ]*\).*/\1/p')
echo "STAINLESS-GUEST-UP cpus=1"
case $cases in
*,*)	# the shared boot: the first case passes, then the guest dies
	echo "STAINLESS-CASE-START ${cases%%,*}"
	echo "STAINLESS-CASE-PASS ${cases%%,*}"
	echo "stainless run: the guest failed: triple fault (the CPU shut down)" >&2
	exit 1 ;;
bad)	echo "STAINLESS-CASE-FAIL bad: it fails alone too"; exit 0 ;;
*)	echo "STAINLESS-CASE-PASS $cases"; exit 0 ;;
esac
EOF
chmod 755 "$T/stainless"
STAINLESS=$T/stainless GUEST_KERNEL=/dev/null GUEST_INITRD=/dev/null E2E_DIR=$T \
	E2E_WORK=$T/work KVM_SANITY= sh "$HERE/../e2e/host-run" first second bad >"$T/out" 2>&1
sed 's/^/  | /' "$T/out" | grep -v '^  |   [|>]'
grep -q '^note: e2e/first: its shared boot (trio) died before its verdict' "$T/out" &&
	grep -q '^PASS e2e/first$' "$T/out" && ok "first: rerun alone (its boot died after its PASS), passes" ||
	bad "first: not rerun alone and passed"
grep -q '^note: e2e/second: its shared boot (trio) died before its verdict (.*triple fault.*); rerunning it alone' "$T/out" &&
	ok "second: the log says it is rerun alone, and why" || bad "second: no note of the rerun"
grep -q '^PASS e2e/second$' "$T/out" && ok "second: passes alone" || bad "second: not PASS"
grep -q '^FAIL e2e/bad: guest: it fails alone too$' "$T/out" && ok "bad: fails alone, with its own reason" ||
	bad "bad: not FAIL with its own reason"
[ "$(grep -c -E '^(PASS|FAIL|SKIP) e2e/' "$T/out")" -eq 3 ] && ok "one verdict per case" ||
	bad "not one verdict per case"

[ $fails -eq 0 ] && { echo PASS; exit 0; }
echo "$fails failure(s)"
exit 1
