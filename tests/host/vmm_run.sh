#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `stainless run` on this machine's /dev/kvm with tiny hand-written guests
# (no Linux needed, so this runs even where /dev/kvm cannot boot Linux):
# the ELF loader, console output, i8042 reset -> exit 0, triple fault ->
# clear message and exit 3 (the guest failed: docs/exit-codes.md),
# SIGTERM -> prompt teardown, and every bad command-line input ->
# exactly one line on stderr and a non-zero exit.
set -u
. "$(dirname "$0")/server_pid.inc"
: "${STAINLESS:?}"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

[ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo "no usable /dev/kvm"; exit 77; }
tests/guests/build "$t" || fail "cannot build the tiny guests"

out=$(timeout 30 "$STAINLESS" run --kernel "$t/hello.elf" --mem 64M 2>"$t/err"); rc=$?
[ $rc -eq 0 ] || fail "hello guest: exit $rc: $(cat "$t/err")"
echo "$out" | grep -q STAINLESS-TINY-GUEST-OK || fail "hello guest printed: $out"
# On the software PVM module, run says so before the guest starts (once).
if [ -e /sys/module/kvm_pvm ]; then
	[ "$(grep -c 'KVM is kvm_pvm' "$t/err")" -eq 1 ] || fail "kvm_pvm host: no one-line warning: $(cat "$t/err")"
	echo "ok: kvm_pvm named before the guest starts"
fi

timeout 30 "$STAINLESS" run --kernel "$t/triple.elf" --mem 64M >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 3 ] || fail "triple-fault guest: exit $rc, expected 3 (the guest failed)"
grep -q "triple fault" "$t/err" || fail "triple-fault guest said: $(cat "$t/err")"

"$STAINLESS" run --kernel "$t/spin.elf" --mem 64M >"$t/spin.log" 2>"$t/err" </dev/null &
pid=$!
i=0; while ! grep -q S "$t/spin.log" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
# The main thread only waits (signals, console input, stop requests): with
# stdin at end of file it must not spin. Allow 0.3 s of CPU in 2 s.
sleep 2
spid=$(server_pid "$pid")
main_ticks=$(awk '{ print $14 + $15 }' "/proc/$spid/task/$spid/stat")
[ "$main_ticks" -le $(( $(getconf CLK_TCK) * 3 / 10 )) ] ||
	{ kill -KILL $pid; fail "the main thread used $main_ticks ticks of CPU in 2 s with stdin at EOF"; }
kill -TERM $pid
i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "SIGTERM did not stop the VM within 5 s"; }
wait $pid; rc=$?
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc, expected 143"

# Bad input: one line on stderr, non-zero exit, no crash (exit < 128).
printf 'hello\n' >"$t/text"
head -c 100M /dev/zero >"$t/big.img"
bad() {
	"$STAINLESS" run "$@" >/dev/null 2>"$t/err"; rc=$?
	[ $rc -ne 0 ] && [ $rc -lt 128 ] || fail "'$*': exit $rc"
	[ "$(wc -l <"$t/err")" -eq 1 ] || fail "'$*': stderr was: $(cat "$t/err")"
	echo "ok: $* -> $(cat "$t/err")"
}
bad --kernel "$t/missing"
bad --kernel "$t/text"
bad --kernel "$t"
bad --kernel "$t/hello.elf" --mem lots
bad --kernel "$t/hello.elf" --mem 1M
bad --kernel "$t/hello.elf" --mem 2T
bad --kernel "$t/hello.elf" --mem 100T
bad --kernel "$t/hello.elf" --mem 900G
bad --kernel "$t/hello.elf" --cpus 0
bad --kernel "$t/hello.elf" --cpus 9999
bad --kernel "$t/hello.elf" --mem 64M --initrd "$t/big.img"
bad --kernel "$t/hello.elf" --initrd "$t/missing"
bad --kernel "$t/hello.elf" --bogus
bad --mem 64M
exit 0
