# SPDX-License-Identifier: GPL-2.0-only
# bench/stability.awk: bench-stability's table from its STAB lines, one row
# per VMM and condition: boots, completed, triple faults, stalls, other
# failures (limit or anything else), the median and slowest time of a
# completed boot (wall s in the test host), the median guest uptime at the
# end, guests that saw the TSC marked unstable, battery failures, the test
# host's soft lockups, khugepaged's collapses and the outer load (min-max).
$1 == "STAB" {
	delete f
	for (i = 2; i <= NF; i++) { if (split($i, kv, "=") >= 2 && !(kv[1] in f)) f[kv[1]] = kv[2] }
	k = f["vmm"] SUBSEP f["cond"]
	if (!(k in boots)) order[++nk] = k
	boots[k]++
	v = f["verdict"]
	if (v == "done") { done[k]++; secs[k, done[k]] = f["secs"] + 0; gs[k, done[k]] = f["guest_s"] + 0 }
	else if (v == "triple") triple[k]++
	else if (v == "stall") stall[k]++
	else other[k]++
	if (f["tsc_unstable"] == "y") tsc[k]++
	if (f["battery"] ~ /^FAIL/) bfail[k]++
	soft[k] += f["softlockups"]; thp[k] += f["thp_collapsed"]
	l = f["load1"] + 0
	if (!(k in lmin) || l < lmin[k]) lmin[k] = l
	if (!(k in lmax) || l > lmax[k]) lmax[k] = l
}
$1 == "STAB-HOST-LOST" { for (i = 2; i <= NF; i++) if ($i ~ /^cond=/) { split($i, kv, "="); lost[kv[2]]++ } }
function med(a, k, n,   i, j, t, x) {
	if (n == 0) return "n/a"
	for (i = 1; i <= n; i++) x[i] = a[k, i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
	return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
}
function max(a, k, n,   i, m) { m = 0; for (i = 1; i <= n; i++) if (a[k, i] > m) m = a[k, i]; return n ? m : "n/a" }
END {
	printf "%-10s %-7s %5s %5s %6s %5s %5s %7s %7s %7s %5s %5s %5s %6s %9s\n", "vmm", "cond", "boots", "done",
		"triple", "stall", "other", "med_s", "max_s", "guest_s", "tsc!", "batf", "softl", "thp", "load1"
	for (o = 1; o <= nk; o++) {
		k = order[o]; split(k, p, SUBSEP)
		printf "%-10s %-7s %5d %5d %6d %5d %5d %7s %7s %7s %5d %5d %5d %6d %4.1f-%-4.1f\n", p[1], p[2], boots[k],
			done[k], triple[k], stall[k], other[k], med(secs, k, done[k]), max(secs, k, done[k]),
			med(gs, k, done[k]), tsc[k], bfail[k], soft[k], thp[k], lmin[k], lmax[k]
	}
	for (c in lost) printf "test hosts lost before their batch's end, %s: %d\n", c, lost[c]
	print "# med_s/max_s: wall s of a completed boot in the test host; guest_s: guest uptime at its end;"
	print "# tsc!: guests whose kernel marked the TSC unstable; batf: completed boots whose battery failed"
	print "# (QEMU's virtiofsd/9p answer some tests differently; not a stability failure);"
	print "# softl: the test host's soft-lockup reports during the boots; thp: khugepaged pages_collapsed."
}
