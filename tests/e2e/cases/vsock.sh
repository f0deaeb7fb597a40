# SPDX-License-Identifier: GPL-2.0-only
# vsock: `run --vsock 42,UDS` gives the guest a virtio-vsock device (id 19)
# that Linux's virtio_vsock driver binds, with Firecracker's hybrid
# convention on the host side, each end played by tests/e2e/vsock_peer.c:
#  - host -> guest: "CONNECT 1000" on UDS reaches the guest's listener;
#    32 MiB arrive with a matching FNV-64 hash, then 32 connections open
#    at once carry 256 KiB each;
#  - guest -> host: connect(2, 2000) reaches the listener on UDS_2000; the
#    same 32 MiB and 32 connections the other way; a port with no
#    listener is refused at once;
#  - a guest that stops reading: the host writes until nothing more is
#    taken, and the VMM's anonymous memory (RssAnon: guest RAM is a memfd,
#    so not in it) grows by less than 8 MiB meanwhile;
#  - a host peer that never reads takes less than 4 MiB from the guest;
#  - a host peer that hangs up mid-stream: the guest's writer fails
#    (EPIPE/ECONNRESET) and the device serves the next connection.
CASE_TIMEOUT=900

case_guest() {
	p=/bin/vsock-peer
	d=$(virtio_find 0x0013) || fail "no virtio device with id 0x0013 (vsock) in /sys/bus/virtio/devices"
	[ -e "$d/driver" ] || fail "$d has no driver bound"
	# bench/vsock-inner.sh: serve the host's rounds, time our own ones.
	if mode=$(cmdline_arg vsock.bench); then
		for r in $(seq "$mode"); do
			echo "VSOCKBENCH-GUEST round=$r $($p sink vsock:2:2000 8388608)"
		done
		$p serve vsock:1000   # until the host's DONE
		return 0
	fi
	$p serve vsock:1000 >/tmp/serve.log 2>&1 &
	srv=$!
	$p sink vsock:2:2000 33554432 || fail "guest -> host: 32 MiB did not arrive intact"
	$p many vsock:2:2000 32 262144 || fail "guest -> host: 32 connections at once"
	$p probe vsock:2:2001 && fail "a connect to host port 2001 (no UDS_2001) was taken"
	out=$($p stall vsock:2:2000 3) || fail "guest -> host: the stalled connection broke"
	echo "$out"
	n=${out#*took }
	n=${n%% bytes*}
	[ "$n" -lt 4194304 ] || fail "a host peer that never reads took $n bytes from the guest"
	# The host side's part ends with DONE, which ends the server.
	i=0
	while kill -0 "$srv" 2>/dev/null && [ $i -lt 600 ]; do
		sleep 1
		i=$((i + 1))
	done
	cat /tmp/serve.log
	kill -0 "$srv" 2>/dev/null && fail "the host side never finished (see the case log)"
	grep -q "serve: done" /tmp/serve.log || fail "the guest's server died"
	grep -q "source: the peer went" /tmp/serve.log || fail "the guest's writer never saw the host hang up"
	echo "vsock: both ways intact, 32 connections each way, credit held, a cut peer noticed"
}

# RssAnon of the stainless process that holds the most (the sandboxed VMM).
vmm_anon_kb() {
	max=0
	for pid in $(pidof stainless); do
		kb=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		[ -n "$kb" ] && [ "$kb" -gt "$max" ] && max=$kb
	done
	echo "$max"
}

vsock_host_side() {
	p=/e2e/vsock-peer a=uds:$1:1000
	$p sink "$a" 33554432 || echo "HOST-FAIL host -> guest: 32 MiB did not arrive intact"
	$p many "$a" 32 262144 || echo "HOST-FAIL host -> guest: 32 connections at once"
	before=$(vmm_anon_kb)
	$p stall "$a" 5 >"$CASE_WORK/stall.log" 2>&1 &
	st=$!
	i=0
	while ! grep -q "stall:" "$CASE_WORK/stall.log" && [ $i -lt 300 ]; do
		sleep 1
		i=$((i + 1))
	done
	during=$(vmm_anon_kb)
	wait "$st" || echo "HOST-FAIL the stalled connection broke"
	cat "$CASE_WORK/stall.log"
	echo "host: VMM RssAnon ${before} kB before a guest stopped reading, ${during} kB while it did"
	[ $((during - before)) -lt 8192 ] || echo "HOST-FAIL the VMM grew by $((during - before)) kB for a guest that stopped reading"
	$p cut "$a" 1048576 || echo "HOST-FAIL the cut connection failed early"
	$p sink "$a" 1048576 || echo "HOST-FAIL no connection served after a peer hung up"
	$p done "$a"
	echo "HOST-DONE"
}

case_host() {
	uds=$CASE_WORK/v.sock
	/e2e/vsock-peer serve "unix:${uds}_2000" >"$CASE_WORK/serve.log" 2>&1 &
	srv=$!
	vsock_host_side "$uds" >"$CASE_WORK/host.log" 2>&1 &
	hs=$!
	run_guest --vsock "42,$uds"
	kill "$srv" "$hs" 2>/dev/null
	wait "$hs" 2>/dev/null
	cat "$CASE_WORK/serve.log" "$CASE_WORK/host.log"
	grep 'virtio-vsock\|seccomp' "$CASE_WORK/console.log"
	check_guest || return 1
	grep -q '^HOST-DONE' "$CASE_WORK/host.log" || { echo "the host side did not finish"; return 1; }
	if grep -q '^HOST-FAIL' "$CASE_WORK/host.log"; then
		grep -m1 '^HOST-FAIL' "$CASE_WORK/host.log" | sed 's/^HOST-FAIL //'
		return 1
	fi
	echo "vsock: 32 MiB and 32 connections each way intact; $(sed -n 's/^host: //p' "$CASE_WORK/host.log")"
}
