# SPDX-License-Identifier: GPL-2.0-only
# bad-input: every malformed `stainless run` exits non-zero with exactly one
# line on stderr (DESIGN.md's contract), and never hangs.
CASE_TIMEOUT=30

# expect_error WHAT ARGS...: runs stainless with ARGS and checks the result.
expect_error() {
	what=$1; shift
	timeout -s KILL "$CASE_TIMEOUT" "$STAINLESS" "$@" </dev/null \
		>"$CASE_WORK/out" 2>"$CASE_WORK/err"
	rc=$?
	lines=$(wc -l <"$CASE_WORK/err")
	if [ "$rc" -eq 0 ]; then
		echo "$what: exited 0"; bad=$((bad + 1))
	elif [ "$rc" -ge 124 ]; then
		echo "$what: killed or timed out (status $rc)"; bad=$((bad + 1))
	elif [ "$lines" -ne 1 ]; then
		echo "$what: $lines lines on stderr, want 1:"; sed 's/^/    /' "$CASE_WORK/err"
		bad=$((bad + 1))
	else
		echo "ok   $what: $(cat "$CASE_WORK/err")"
	fi
}

case_host() {
	bad=0
	w=$CASE_WORK
	head -c 65536 /dev/zero >"$w/zeros"
	printf 'not a kernel\n' >"$w/text"
	# Sparse, so it costs nothing on tmpfs; 96M will not fit in 64M of RAM.
	dd if=/dev/zero of="$w/big-initrd" bs=1M count=0 seek=96 2>/dev/null
	k=$GUEST_KERNEL

	expect_error "missing kernel"        run --kernel "$w/no-such-file"
	expect_error "no --kernel at all"    run
	expect_error "kernel is zeros"       run --kernel "$w/zeros"
	expect_error "kernel is text"        run --kernel "$w/text"
	expect_error "kernel is a directory" run --kernel "$w"
	expect_error "--mem garbage"         run --kernel "$k" --mem lots
	expect_error "--mem too small"       run --kernel "$k" --mem 1M
	expect_error "--mem too large"       run --kernel "$k" --mem 64T
	expect_error "--cpus 0"              run --kernel "$k" --cpus 0
	expect_error "--cpus garbage"        run --kernel "$k" --cpus two
	expect_error "missing initrd"        run --kernel "$k" --initrd "$w/no-such-file"
	expect_error "initrd bigger than RAM" run --kernel "$k" --initrd "$w/big-initrd" --mem 64M
	expect_error "unknown option"        run --kernel "$k" --no-such-option

	if [ "$bad" -ne 0 ]; then
		echo "$bad bad inputs were not rejected cleanly"
		return 1
	fi
	echo "all bad inputs rejected with one line on stderr"
}
