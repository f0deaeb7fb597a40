# SPDX-License-Identifier: GPL-2.0-only
# bench/report's reduction of one family (FAMILY.meta, then FAMILY.csv as
# bench/results.inc writes them) to medians per metric x row x system and
# ratios to the family's anchor. Variables:
#   mode=md      prints the family's RESULTS.md section (png: the plot's
#                path relative to RESULTS.md, or empty when there is none)
#   mode=plot    writes gnuplot data files and a script into dir=, for the
#                plot out= (ops/s bars per system; p50/p99 where measured)
#   mode=pick    prints "LABEL|SYSTEM|MEDIAN|ANCHOR|ANCHOR-MEDIAN|RATIO|BETTER"
#                for each "row metric system label..." line of picks= (";"
#                separated): the README's headline rows
#   mode=seeds   the seeds' table from the vhost family (see bench/report)
# mawk has no sort: medians sort each small list by insertion.
BEGIN { FS = "," }
FNR == 1 && FILENAME ~ /\.meta$/ { inmeta = 1 }
FNR == 1 && FILENAME ~ /\.csv$/ { inmeta = 0; next }
inmeta {
	k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
	if (k == "note") note[++nnote] = v; else meta[k] = v
	next
}
{
	row = $1; sys = $2; m = $3
	if (!(m in better)) { better[m] = $4; metrics[++nm] = m }
	if (!((m, row) in seenrow)) { seenrow[m, row] = 1; rows[m, ++nr[m]] = row }
	if (!(sys in seensys)) { seensys[sys] = 1; order[++nsys] = sys }
	k = m SUBSEP row SUBSEP sys
	val[k, ++cnt[k]] = $6 + 0
	if ($5 + 0 > rounds) rounds = $5 + 0
}

function median(k,   n, i, j, t, a) {
	n = cnt[k]
	if (!n) return ""
	for (i = 1; i <= n; i++) a[i] = val[k, i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function med(m, row, sys) { return median(m SUBSEP row SUBSEP sys) }
function isbetter(m, a, b) { return better[m] == "lower" ? a < b : a > b }
# The best anchor system of a row ("" when none has data); sets BEST.
function anchor_of(m, row,   A, na, i, v, name) {
	na = split(meta["anchor"], A, "|"); BEST = ""; name = ""
	for (i = 1; i <= na; i++) {
		v = med(m, row, A[i])
		if (v != "" && (BEST == "" || isbetter(m, v, BEST))) { BEST = v; name = A[i] }
	}
	return name
}
# Thousands grouped; fewer digits where a figure is small.
function fmt(v,   s, neg, out) {
	if (v == "") return "–"
	if (v < 0) { neg = "-"; v = -v }
	if (v >= 100) s = sprintf("%.0f", v); else if (v >= 10) return neg sprintf("%.1f", v); else return neg sprintf("%.2f", v)
	out = ""
	while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
	return neg s out
}
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "–" : sprintf("%.2fx", a / b) }
# Row order per metric: meta "rows" first (where the script gave one),
# then the others in the order seen.
function order_rows(   R, n, i, j, m, k, tmp, done) {
	n = split(meta["rows"], R, " ")
	if (!n) return
	for (i = 1; i <= nm; i++) {
		m = metrics[i]; k = 0; delete done
		for (j = 1; j <= n; j++) if ((m, R[j]) in seenrow) { tmp[++k] = R[j]; done[R[j]] = 1 }
		for (j = 1; j <= nr[m]; j++) if (!(rows[m, j] in done)) tmp[++k] = rows[m, j]
		for (j = 1; j <= k; j++) rows[m, j] = tmp[j]
	}
}
# Column order: meta "systems", then any other system in the order seen.
function columns(   S, n, i) {
	n = split(meta["systems"], S, " "); ncol = 0
	for (i = 1; i <= n; i++) if (S[i] in seensys) { col[++ncol] = S[i]; incol[S[i]] = 1 }
	for (i = 1; i <= nsys; i++) if (!(order[i] in incol)) { col[++ncol] = order[i]; incol[order[i]] = 1 }
	nj = split(meta["judge"], J, " ")
}
function hasdata(m, sys,   r) {
	for (r = 1; r <= nr[m]; r++) if (cnt[m SUBSEP rows[m, r] SUBSEP sys]) return 1
	return 0
}
function unit(m) {
	if (m == "ops_s") return "ops/s"
	if (m == "cpu_us_op") return "CPU-µs per op"
	if (m == "mib_s") return "MiB/s"
	if (m == "ns_req") return "ns per request"
	if (m == "rss_mib") return "MiB"
	if (m ~ /_us$/) return substr(m, 1, length(m) - 3) " µs"
	if (m ~ /_ms$/) return substr(m, 1, length(m) - 3) " ms"
	if (m ~ /_s$/) return substr(m, 1, length(m) - 2) " s"
	return m
}

function md_table(m,   i, r, row, line, an, j) {
	printf "\n**%s** (%s is better)\n\n", unit(m), better[m]
	line = "| row |"
	for (i = 1; i <= ncol; i++) if (hasdata(m, col[i])) line = line " " col[i] " |"
	for (j = 1; j <= nj; j++) line = line " " J[j] " / anchor |"
	if (meta["anchor"] != "") line = line " anchor |"
	print line
	gsub(/[^|]+/, "---", line); print line
	for (r = 1; r <= nr[m]; r++) {
		row = rows[m, r]; line = "| " row " |"
		for (i = 1; i <= ncol; i++) if (hasdata(m, col[i])) line = line " " fmt(med(m, row, col[i])) " |"
		an = anchor_of(m, row)
		for (j = 1; j <= nj; j++) line = line " " ratio(med(m, row, J[j]), BEST) " |"
		if (meta["anchor"] != "") line = line " " (an == "" ? "–" : an) " |"
		print line
	}
}

function md(   i) {
	printf "\n## %s\n\n%s.\n\n", meta["family"], meta["title"]
	printf "- command: `%s`; %s; %s to %s\n", meta["command"], (rounds == 0 ? "no samples" : rounds == 1 ? "1 round" : "medians of " rounds " rounds"),
		meta["date"], (meta["end"] == "" ? "(no end: **this run did not finish**)" : meta["end"])
	printf "- commit %s; machine: %s; guests' KVM: %s\n", meta["commit"], meta["machine"], meta["kvm"]
	printf "- load average (1, 5, 15 min) at start %s, at end %s (other work shares the machine)\n", meta["load_start"], meta["load_end"]
	if (!nm) print "- no samples"
	if (meta["anchor"] != "")
		printf "- ratios: each judged system's median over the best median of %s in the same run, per row\n", meta["anchor"]
	if (meta["quick"] != "") print "- **BENCH_QUICK smoke run: these figures mean nothing**"
	for (i = 1; i <= nnote; i++) print "- " note[i]
	for (i = 1; i <= nm; i++) md_table(metrics[i])
	if (png != "") printf "\n![%s](%s)\n", meta["family"], png
}

# One data file per plotted metric: a row per line, a column per system
# with data (gnuplot refuses a column of NaN only).
function plot_data(m, f,   r, i, v, line) {
	for (r = 1; r <= nr[m]; r++) {
		line = rows[m, r]
		for (i = 1; i <= ncol; i++) if (hasdata(m, col[i])) { v = med(m, rows[m, r], col[i]); line = line " " (v == "" ? "NaN" : v) }
		print line > f
	}
	close(f)
}
function plot_cmd(m, f,   i, c, s) {
	c = 2; s = ""
	for (i = 1; i <= ncol; i++) if (hasdata(m, col[i])) {
		s = s (s == "" ? "" : ", ") "\"" f "\" using " c (c == 2 ? ":xtic(1)" : "") " title \"" col[i] "\""
		c++
	}
	return s
}
function plot(   i, m, p, np, P, gp) {
	p = ""; np = 0
	for (i = 1; i <= nm; i++) if (metrics[i] == "ops_s") p = "ops_s"
	if (p == "") p = metrics[1]
	P[++np] = p
	for (i = 1; i <= nm; i++) if (metrics[i] == "p50_us" || metrics[i] == "p99_us") P[++np] = metrics[i]
	gp = dir "/" meta["family"] ".gp"
	printf "set terminal pngcairo size 1400,%d noenhanced\nset output \"%s\"\n", 200 + 400 * np, out > gp
	printf "set multiplot layout %d,1 title \"%s: %s, %s (%s)\"\n", np, meta["family"], meta["date"], meta["machine"], (rounds == 1 ? "1 round" : "median of " rounds " rounds") > gp
	printf "load \"%s\"\nset key outside right top\nset xtics rotate by -30\n", histogram > gp
	for (i = 1; i <= np; i++) {
		m = P[i]
		plot_data(m, dir "/" meta["family"] "." m ".dat")
		printf "set ylabel \"%s (log; %s is better)\"\nplot %s\n", unit(m), better[m], plot_cmd(m, dir "/" meta["family"] "." m ".dat") > gp
	}
	print "unset multiplot" > gp
	close(gp)
}

function pick(   L, n, i, k, w, nw, label, an, v) {
	n = split(picks, L, ";")
	for (i = 1; i <= n; i++) {
		nw = split(L[i], w, " ")
		if (nw < 4 || !((w[2], w[1]) in seenrow)) continue
		label = w[4]; for (k = 5; k <= nw; k++) label = label " " w[k]
		v = med(w[2], w[1], w[3]); an = anchor_of(w[2], w[1])
		if (v == "") continue
		printf "%s|%s|%s|%s|%s|%s|%s\n", label, w[3], fmt(v), an, fmt(BEST), ratio(v, BEST), better[w[2]]
	}
}

END {
	columns(); order_rows()
	if (mode == "md") md()
	else if (mode == "plot") plot()
	else if (mode == "pick") pick()
	else if (mode == "seeds") seeds()
}

# The seeds' experiment at the device level: each seed job that maps onto
# a vu_load row of the vhost family (map=: "JOB=ROW ..."), the C virtiofsd
# at pool 64, 1 and 0 with stainless beside them.
function seeds(   M, n, i, kv, row, s64, s1, s0, st, best, w1, w0) {
	n = split(map, M, " ")
	print "| seed job | device row | stainless | pool 64 | pool 1 | pool 0 | pool 1 / 64 | pool 0 / 64 | stainless / best pool |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= n; i++) {
		split(M[i], kv, "="); row = kv[2]
		s64 = med("ops_s", row, "vfsd-t64"); s1 = med("ops_s", row, "vfsd-t1"); s0 = med("ops_s", row, "vfsd-t0")
		st = med("ops_s", row, "stainless")
		best = s64; if (s1 != "" && (best == "" || s1 > best)) best = s1; if (s0 != "" && (best == "" || s0 > best)) best = s0
		if (s1 != "" && s64 != "") { n1++; if (s1 > s64) w1++ }
		if (s0 != "" && s64 != "") { n0++; if (s0 > s64) w0++ }
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", kv[1], row, fmt(st), fmt(s64), fmt(s1), fmt(s0),
			ratio(s1, s64), ratio(s0, s64), ratio(st, best)
	}
	printf "\nops/s, medians of %d rounds (%s, load %s to %s). Pool 1 ahead of pool 64 on %d of %d rows, pool 0 on %d of %d.\n",
		rounds, meta["date"], meta["load_start"], meta["load_end"], w1, n1, w0, n0
}
