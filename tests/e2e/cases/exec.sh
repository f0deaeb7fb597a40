# SPDX-License-Identifier: GPL-2.0-only
# exec: `stainless exec ROOTDIR -- CMD` boots a guest whose root is a busybox
# tree over virtio-fs and runs CMD as the container's process:
#  - `uname -r` prints the guest kernel's release (6.12), not the host's;
#  - 1 MiB piped into `cat` comes back with the same SHA-256 (stdin's EOF
#    reaches the command, stdout carries every byte);
#  - stdout and stderr arrive apart, each on its own fd;
#  - `exit 3` makes exec exit 3; a command that does not exist 127, a file
#    that is not executable 126, each with one line on stderr;
#  - --env, --cwd, --user 1000:1000 and --hostname are what the command sees;
#  - SIGTERM to stainless exec kills the guest's `sleep 1000`: exit 143;
#  - under script(1) (a terminal on stdin) the command has a tty, and the
#    host terminal's mode is the same after as before.
# Each line says how long the run took from start to the command's output.
CASE_TIMEOUT=900

exec_root() {
	r=$CASE_WORK/root
	rm -rf "$r"
	mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/root" "$r/home/u"
	cp /bin/busybox "$r/bin/busybox"
	# Relative links: --install would point them at this host's path.
	for app in $("$r/bin/busybox" --list); do
		[ "$app" = busybox ] || ln -s busybox "$r/bin/$app"
	done
	printf 'just text\n' >"$r/bin/notexec"
	chmod 0644 "$r/bin/notexec"
	chown 1000:1000 "$r/home/u"
	echo "$r"
}

# ex ARGS...: stainless exec with the guest kernel; stdout/stderr are the caller's.
ex() {
	xc=
	case " $GUEST_BASE_CMDLINE " in *" noxsave "*) xc=noxsave ;; esac
	timeout -s KILL 300 "$STAINLESS" exec --kernel "$GUEST_KERNEL" ${xc:+--cmdline "$xc"} \
		--console-log "$CASE_WORK/console.$n.log" "$@"
}

# check WHAT COND-RESULT: counts a failure with its reason.
bad=0
n=0
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
ok() { echo "ok   $1 ($(( $(now_ms) - t0 )) ms)"; }
no() { echo "FAIL $1"; bad=$((bad + 1)); [ -f "$CASE_WORK/console.$n.log" ] && tail -n 5 "$CASE_WORK/console.$n.log"; }
start() { n=$((n + 1)); t0=$(now_ms); }

case_host() {
	root=$(exec_root)
	w=$CASE_WORK

	start
	rel=$(ex "$root" -- uname -r 2>"$w/err")
	rc=$?
	case $rel in
	6.12*) [ "$rc" -eq 0 ] && [ "$rel" != "$(uname -r)" ] && ok "uname -r: $rel" ||
		no "uname -r: exit $rc, '$rel'" ;;
	*) no "uname -r printed '$rel' (exit $rc): $(cat "$w/err")" ;;
	esac

	start
	head -c 1048576 /dev/urandom >"$w/payload"
	ex "$root" -- cat <"$w/payload" >"$w/echoed" 2>"$w/err"
	rc=$?
	a=$(sha256sum <"$w/payload" | cut -c1-64)
	b=$(sha256sum <"$w/echoed" | cut -c1-64)
	[ "$rc" -eq 0 ] && [ "$a" = "$b" ] && ok "1 MiB through cat: sha256 $a" ||
		no "1 MiB through cat: exit $rc, $(stat -c %s "$w/echoed") bytes back, sha256 $b vs $a: $(cat "$w/err")"

	start
	ex "$root" -- sh -c 'echo to-out; echo to-err >&2; echo more-out' >"$w/o" 2>"$w/e"
	rc=$?
	[ "$rc" -eq 0 ] && [ "$(cat "$w/o")" = "to-out
more-out" ] && [ "$(cat "$w/e")" = "to-err" ] && ok "stdout and stderr apart" ||
		no "stdout/stderr: exit $rc, out '$(cat "$w/o")', err '$(cat "$w/e")'"

	start
	ex "$root" -- sh -c 'exit 3' </dev/null >/dev/null 2>"$w/err"
	rc=$?
	[ "$rc" -eq 3 ] && ok "exit 3 -> 3" || no "exit 3 gave $rc: $(cat "$w/err")"

	start
	ex "$root" -- /no/such/command </dev/null >/dev/null 2>"$w/err"
	rc=$?
	[ "$rc" -eq 127 ] && [ "$(wc -l <"$w/err")" -eq 1 ] && ok "missing command -> 127: $(cat "$w/err")" ||
		no "missing command: exit $rc, stderr '$(cat "$w/err")'"

	start
	ex "$root" -- /bin/notexec </dev/null >/dev/null 2>"$w/err"
	rc=$?
	[ "$rc" -eq 126 ] && [ "$(wc -l <"$w/err")" -eq 1 ] && ok "not executable -> 126: $(cat "$w/err")" ||
		no "not executable: exit $rc, stderr '$(cat "$w/err")'"

	start
	got=$(ex --env FOO=bar --cwd /home/u --user 1000:1000 --hostname box "$root" -- \
		sh -c 'echo "$FOO $(pwd) $(id -u):$(id -g):$(id -G) $(hostname)"' </dev/null 2>"$w/err")
	rc=$?
	[ "$rc" -eq 0 ] && [ "$got" = "bar /home/u 1000:1000:1000 box" ] && ok "env, cwd, user, hostname: $got" ||
		no "env/cwd/user/hostname: exit $rc, '$got' (want 'bar /home/u 1000:1000:1000 box'): $(cat "$w/err")"

	start
	rm -f "$w/fifo"
	mkfifo "$w/fifo"
	ex "$root" -- sh -c 'echo up; exec sleep 1000' </dev/null >"$w/fifo" 2>"$w/err" &
	pid=$!
	read -r line <"$w/fifo"
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ "$line" = up ] && [ "$rc" -eq 143 ] && ok "SIGTERM -> the guest's sleep killed, 143" ||
		no "SIGTERM: read '$line', exit $rc: $(cat "$w/err")"

	sc=
	for c in script-ul script; do
		command -v "$c" >/dev/null 2>&1 && "$c" --help 2>&1 | grep -q -- '--command' && sc=$c && break
	done
	if [ -n "$sc" ]; then
		start
		xc=
		case " $GUEST_BASE_CMDLINE " in *" noxsave "*) xc="--cmdline noxsave" ;; esac
		"$sc" -q -c "stty -g >$w/stty.before; $STAINLESS exec --kernel $GUEST_KERNEL $xc $root -- sh -c 'tty; test -t 0 && echo on-a-tty'; echo rc=\$?; stty -g >$w/stty.after" \
			/dev/null </dev/null >"$w/tty.out" 2>&1
		tr -d '\r' <"$w/tty.out" >"$w/tty.txt"
		grep -q '^/dev/pts/' "$w/tty.txt" && grep -q '^on-a-tty' "$w/tty.txt" &&
			grep -q '^rc=0' "$w/tty.txt" && cmp -s "$w/stty.before" "$w/stty.after" &&
			ok "a terminal: $(head -n 1 "$w/tty.txt"), mode restored" ||
			no "terminal: $(cat "$w/tty.txt") / stty $(cat "$w/stty.before" "$w/stty.after" 2>/dev/null)"
	else
		echo "skip a terminal case: no script(1) with -c here"
	fi

	if [ "$bad" -ne 0 ]; then
		echo "exec: $bad checks failed"
		return 1
	fi
	echo "exec: every check passed"
}
