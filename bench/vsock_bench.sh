#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-vsock: stream throughput and round-trip latency between the
# host and a guest over virtio-vsock (run --vsock, Firecracker's UDS
# convention), beside a Unix socket pair in the same host as the ceiling
# (QEMU's vhost-vsock-device would need the vhost_vsock module and QEMU in
# the nested test host; neither is there yet). ROUNDS (3) interleaved
# rounds in one guest boot, medians; bench/vsock-inner.sh measures.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}"
: "${O:=build}" "${ROUNDS:=3}"
. bench/nested.inc

[ -x "$STAINLESS" ] || { echo "bench-vsock: build first (make bench-vsock does)"; exit 1; }
peer=$(tests/e2e/build-vsock-peer) || exit 1
e2e_build_images || exit 1
e2e_pick_mode || exit 1
e2e_say "mode: $E2E_MODE_USED -- $E2E_MODE_WHY"

raw=$(mktemp)
trap 'rm -f "$raw" "$raw.run" "$raw.log"*' EXIT
e2e_lock || exit 1
results_open vsock "virtio-vsock: host <-> guest streams and round trips beside a Unix socket pair" "$E2E_MODE_USED"
if [ "$E2E_MODE_USED" = direct ]; then
	sh bench/vsock-inner.sh "$ROUNDS" "$GUEST_KERNEL" "$GUEST_INITRD" "$STAINLESS" "$peer" | tee "$raw"
else
	printf '#!/bin/sh\nsh /bench/vsock-inner.sh %s "$GUEST_KERNEL" "$GUEST_INITRD" "$STAINLESS" /e2e/vsock-peer\n' \
		"$ROUNDS" >"$raw.run"
	E2E_TESTHOST_EXTRA=(--extra-file "$TOP/bench/vsock-inner.sh:/bench/vsock-inner.sh"
		--extra-file "$raw.run:/bench/run")
	E2E_HOST_TIMEOUT=$((600 + ROUNDS * 120)) e2e_run_nested "$raw.log"
	grep '^VSOCKBENCH' "$raw.log" | tr -d '\r' >"$raw"
fi
e2e_unlock

awk '$1 == "VSOCKBENCH" { delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["mb_s"] != "") printf "%s,%s,mb_s,higher,%s,%s\n", f["row"], f["system"], f["round"], f["mb_s"]
	if (f["p50_us"] != "") printf "%s,%s,p50_us,lower,%s,%s\n", f["row"], f["system"], f["round"], f["p50_us"] }' \
	"$raw" >>"$RESULTS_CSV"
results_meta systems stainless unix-socket
results_meta anchor unix-socket
results_meta judge stainless
results_meta rows host-to-guest guest-to-host rtt-1byte
results_meta note "Mode: $E2E_MODE_USED ($E2E_MODE_WHY). One guest boot ($(basename "$GUEST_KERNEL"), 1 vCPU, 512 MiB); $ROUNDS rounds, medians; streams of 8 MiB hashed (FNV-64) at both ends by tests/e2e/vsock_peer.c, round trips of one byte (median of 200)."
results_meta note "unix-socket is the ceiling: the same peer program over a Unix socket pair inside the host that runs the VMM (no guest); guest-to-host has no ceiling row of its own (the pair is symmetric)."
results_close
median() {
	grep "row=$1 system=$2 " "$raw" | tr ' ' '\n' | sed -n "s/^$3=//p" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
mkdir -p "$OUT"
{
	echo "# make bench-vsock, $(date -u +%Y-%m-%d), $E2E_MODE_USED mode, $ROUNDS rounds, medians"
	printf '%-34s %12s %12s\n' "metric (median)" stainless unix-socket
	printf '%-34s %12s %12s\n' "host -> guest stream, MB/s" "$(median host-to-guest stainless mb_s)" "$(median host-to-guest unix-socket mb_s)"
	printf '%-34s %12s %12s\n' "guest -> host stream, MB/s" "$(median guest-to-host stainless mb_s)" "-"
	printf '%-34s %12s %12s\n' "1-byte round trip, us" "$(median rtt-1byte stainless p50_us)" "$(median rtt-1byte unix-socket p50_us)"
} | tee "$OUT/vsock.txt"
grep -q 'system=stainless' "$raw" || { echo "bench-vsock: no samples (see the test host log)"; exit 1; }
