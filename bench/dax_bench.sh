#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-dax: what DAX saves, per file and per host (issue 29 item 4).
# bench/dax-inner.sh runs where KVM boots Linux (the nested test host
# here) and says what it measures: a small-file tree walk and a large-file
# read through dax=always (st-dax), dax=inode (st-daxi: the server's
# per-file policy, dax-min 1M) and no window (st-nodax), cold guest cache
# each; then the host memory GUESTS guests use reading the same MEM_MB of
# files with a window (st-dax) and without (st-nodax). Medians over
# rounds; rows walk and bigread (wall_s), mem4-* (MiB).
# Environment: ROUNDS (3), NFILES (5000), BIG_MB (128), MEM_MB (256),
# GUESTS (4), MEMROUNDS (1), O, STAINLESS, E2E_MODE, OUT, BENCH_QUICK (1
# round, 200 files, 8 MiB big, 2 guests reading 16 MiB: the code end to
# end, figures meaningless).
# A benchmark prints figures; it judges nothing.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}" "${NFILES:=200}" "${BIG_MB:=8}" "${MEM_MB:=16}" "${GUESTS:=2}"
: "${O:=build}" "${ROUNDS:=3}" "${NFILES:=5000}" "${BIG_MB:=128}" "${MEM_MB:=256}" "${GUESTS:=4}" "${MEMROUNDS:=1}"
. bench/nested.inc

die() { echo "bench-dax: $*" >&2; exit 1; }
[ -x "$STAINLESS" ] || die "build first (make bench-dax does)"
START=$(date +%s)
GUEST_KERNEL=$(guest-images/build-kernel) || die "cannot build the guest kernel"
GUEST_INITRD=$(guest-images/build-initramfs --name bench-dax --init bench/guest-init \
	--file bench/guest-dax.sh:/bench/workload.sh) || die "cannot build the bench guest initramfs"
export GUEST_KERNEL GUEST_INITRD
raw=$(mktemp)
trap 'rm -f "$raw" "$raw".*' EXIT
env=(NFILES="$NFILES" BIG_MB="$BIG_MB" MEM_MB="$MEM_MB" GUESTS="$GUESTS" MEMROUNDS="$MEMROUNDS")
e2e_lock || exit 1
e2e_pick_mode || exit 1
e2e_say "mode: $E2E_MODE_USED -- $E2E_MODE_WHY"
results_open dax "DAX per file: a small-file walk and a large read (dax=always, dax=inode, none); host memory of $GUESTS guests reading the same files" "$E2E_MODE_USED"
if [ "$E2E_MODE_USED" = direct ]; then
	env "${env[@]}" sh bench/dax-inner.sh "$ROUNDS" "$GUEST_KERNEL" "$GUEST_INITRD" "$STAINLESS" | tee "$raw"
else
	{ printf '#!/bin/sh\n'; printf '%q ' "${env[@]}"
	  printf 'sh /bench/dax-inner.sh %s "$GUEST_KERNEL" "$GUEST_INITRD" "$STAINLESS"\n' "$ROUNDS"; } >"$raw.run"
	E2E_TESTHOST_EXTRA=(--extra-file "$TOP/bench/dax-inner.sh:/bench/dax-inner.sh" --extra-file "$raw.run:/bench/run")
	# Four guests of 512 MiB and the share in the host's tmpfs: 2 GiB is not enough.
	E2E_TESTHOST_MEM=$((2048 + GUESTS * 512)) E2E_HOST_TIMEOUT=$((900 + ROUNDS * 900 + MEMROUNDS * 1200)) \
		E2E_SHOW='^GUEST(FIO-(NOTE|FAIL|LOG)|MEM|ROUND-DONE|STATS)' e2e_run_nested "$raw.log"
	grep -E '^GUEST' "$raw.log" >"$raw"
fi
e2e_unlock

# GUESTFIO dev= round= job= wall_s=; GUESTMEM round= dev= k=v (MiB).
awk '$1 == "GUESTFIO" || $1 == "GUESTMEM" { delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if ($1 == "GUESTFIO" && f["wall_s"] != "") printf "%s,%s,wall_s,lower,%s,%s\n", f["job"], f["dev"], f["round"], f["wall_s"]
	if ($1 == "GUESTMEM" && f["read"] == f["guests"]) {
		n = split("rss_mib pss_mib shmem_grow_mib avail_drop_mib", ks, " ")
		for (i = 1; i <= n; i++) printf "mem%s-%s,%s,%s,lower,%s,%s\n", f["guests"], ks[i], f["dev"], ks[i], f["round"], f[ks[i]] } }' \
	"$raw" >>"$RESULTS_CSV"
results_meta systems st-dax st-daxi st-nodax
results_meta anchor st-nodax
results_meta judge st-dax st-daxi
results_meta note "Mode: $E2E_MODE_USED ($E2E_MODE_WHY); nested = every figure under QEMU TCG with nested SVM: read the ratios, not the seconds."
results_meta note "Share: one tmpfs directory with tree/ ($NFILES files of 4 KiB), big ($BIG_MB MiB) and mem/ ($MEM_MB MiB in 4 files); st-dax = cache=always,dax=256M mounted -o dax; st-daxi = the same with dax=inode (dax-min 1M) mounted -o dax=inode; st-nodax = cache=always, no window; each job on a fresh mount (cold guest cache, warm host tmpfs); $ROUNDS rounds, mount order rotating."
results_meta note "mem$GUESTS-*: $GUESTS guests (1 vCPU, 512 MiB) at once, each reading all of mem/ once through its own VMM; rss/pss summed over the VMMs (guest RAM is a memfd they map, so page-cache copies in guest RAM show there); shmem_grow / avail_drop = the host's Shmem growth and MemAvailable drop since before the guests booted (the tmpfs share itself is Shmem before and after)."
results_close
SECS=$(( $(date +%s) - START ))
mkdir -p "$OUT"
{
	echo "# bench-dax (make bench-dax): DAX per file, and the host memory it saves"
	echo "# took ${SECS}s; $E2E_MODE_USED mode ($E2E_MODE_WHY); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# raw"
	cat "$raw"
} >"$OUT/dax.txt"
grep -E '^GUEST(FIO |MEM|STATS)' "$raw"
n=$(grep -c '^GUESTFIO ' "$raw")
echo "bench-dax: $n timed jobs, $(grep -c '^GUESTMEM' "$raw") memory rows; wrote $OUT/dax.txt in ${SECS}s" >&2
[ "$n" -gt 0 ]
