#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# vsock-inner.sh: the measuring half of `make bench-vsock`, run where KVM
# can boot Linux (inside the nested test host here). One guest boot with
# --vsock; the guest first times ROUNDS guest->host streams of 8 MiB to
# UDS_2000, then serves; the host then runs ROUNDS rounds, each timing an
# 8 MiB host->guest stream and 200 one-byte round trips through stainless
# and through a plain Unix socket pair in this host (the ceiling), in an
# order that flips every round. One VSOCKBENCH line per sample.
#
#   vsock-inner.sh ROUNDS KERNEL INITRD STAINLESS VSOCK-PEER
set -u
rounds=$1 kernel=$2 initrd=$3 stainless=$4 p=$5
w=$(mktemp -d)
uds=$w/v.sock
"$p" serve "unix:${uds}_2000" >/dev/null 2>&1 &
hsrv=$!
"$p" serve "unix:$w/ceil.sock" >/dev/null 2>&1 &
csrv=$!
"$stainless" run --kernel "$kernel" --initrd "$initrd" --mem 512M --vsock "42,$uds" \
	--cmdline "console=ttyS0 reboot=k panic=-1 loglevel=5 stainless.case=vsock vsock.bench=$rounds" \
	</dev/null >"$w/console" 2>&1 &
vmm=$!

# "... 8388608 bytes, hash matches, 1.234 s, 6.8 MB/s" -> 6.8
mbps() { sed -n 's/.* \([0-9.]*\) MB\/s$/\1/p'; }
us() { sed -n 's/.*median \([0-9.]*\) us$/\1/p'; }

one() {
	r=$1 sys=$2 a=$3
	m=$("$p" sink "$a" 8388608 | mbps)
	t=$("$p" rtt "$a" 200 | us)
	echo "VSOCKBENCH round=$r row=host-to-guest system=$sys mb_s=$m"
	echo "VSOCKBENCH round=$r row=rtt-1byte system=$sys p50_us=$t"
}

r=1
while [ "$r" -le "$rounds" ]; do
	if [ $((r % 2)) -eq 1 ]; then
		one "$r" stainless "uds:$uds:1000"
		one "$r" unix-socket "unix:$w/ceil.sock"
	else
		one "$r" unix-socket "unix:$w/ceil.sock"
		one "$r" stainless "uds:$uds:1000"
	fi
	r=$((r + 1))
done
"$p" done "uds:$uds:1000"
wait "$vmm"
sed -n 's/^VSOCKBENCH-GUEST round=\([0-9]*\) .* \([0-9.]*\) MB\/s\r*$/VSOCKBENCH round=\1 row=guest-to-host system=stainless mb_s=\2/p' "$w/console"
kill "$hsrv" "$csrv" 2>/dev/null
rm -rf "$w"
