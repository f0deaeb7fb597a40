# SPDX-License-Identifier: GPL-2.0-only
# bench/report's reduction of one family (FAMILY.meta, then FAMILY.csv as
# bench/results.inc writes them) to medians per metric x row x system, the
# spread of the rounds (min and max) and ratios to the family's anchor.
# Variables:
#   mode=md      prints the family's RESULTS.md section (png: the plot's
#                path relative to RESULTS.md, or empty when there is none)
#   mode=plot    writes gnuplot data files and a script into dir=, for the
#                plot out=: one panel per metric, a bar per system at its
#                median, whiskers from the rounds' min to max
#   mode=pick    prints "LABEL|SYSTEM|MEDIAN|ANCHOR|ANCHOR-MEDIAN|RATIO|
#                VERDICT|WHAT" for each line of picks= (";" separated, the
#                format of bench/headline.list): the README's headline rows
#   mode=seeds   the seeds' table from the vhost family (see bench/report)
#   remap=       "ROWREGEX:METRIC:NEWMETRIC ..." (bench/units.list): rows
#                whose count is not what the metric's name says (readdir
#                counts entries, not operations) get a metric of their own,
#                so no table or axis mixes units
#   colours=     "SYSTEM=#rrggbb ..." (bench/colours.list): one colour per
#                system in every plot
# A ratio's spread is taken round by round (the rounds are interleaved, so
# round r of a system and of its anchor ran side by side); when that spread
# crosses 1.0 the row shows no measurable difference, whatever its median.
# mawk has no sort: medians sort each small list by insertion.
BEGIN {
	FS = ","
	nre = split(remap, RE, " ")
	for (i = 1; i <= nre; i++) { split(RE[i], t, ":"); re_row[i] = t[1]; re_m[i] = t[2]; re_new[i] = t[3] }
	n = split(colours, t, " ")
	for (i = 1; i <= n; i++) colour[substr(t[i], 1, index(t[i], "=") - 1)] = substr(t[i], index(t[i], "=") + 1)
	npal = split("#1b9e77 #d95f02 #7570b3 #e7298a #66a61e #e6ab02 #a6761d #666666", PAL, " ")
}
FNR == 1 && FILENAME ~ /\.meta$/ { inmeta = 1 }
FNR == 1 && FILENAME ~ /\.csv$/ { inmeta = 0; next }
inmeta {
	k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
	if (k == "note") note[++nnote] = v; else meta[k] = v
	next
}
{
	row = $1; sys = $2; m = $3
	for (i = 1; i <= nre; i++) if (m == re_m[i] && row ~ re_row[i]) { m = re_new[i]; break }
	if (!(m in better)) { better[m] = $4; metrics[++nm] = m }
	if (!((m, row) in seenrow)) { seenrow[m, row] = 1; rows[m, ++nr[m]] = row }
	if (!(sys in seensys)) { seensys[sys] = 1; order[++nsys] = sys }
	k = m SUBSEP row SUBSEP sys
	val[k, ++cnt[k]] = $6 + 0
	inround[k, $5 + 0] = $6 + 0
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
# lo(), hi(): the rounds' spread of one cell ("" without data).
function lo(m, row, sys,   k, i, v) {
	k = m SUBSEP row SUBSEP sys
	for (i = 1; i <= cnt[k]; i++) if (i == 1 || val[k, i] < v) v = val[k, i]
	return cnt[k] ? v : ""
}
function hi(m, row, sys,   k, i, v) {
	k = m SUBSEP row SUBSEP sys
	for (i = 1; i <= cnt[k]; i++) if (i == 1 || val[k, i] > v) v = val[k, i]
	return cnt[k] ? v : ""
}
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
# Three significant digits, for the spread beside a median.
function short(v) {
	if (v >= 1e6) return sprintf("%.2fM", v / 1e6)
	if (v >= 1e5) return sprintf("%.0fk", v / 1e3)
	if (v >= 1e4) return sprintf("%.1fk", v / 1e3)
	if (v >= 1e3) return sprintf("%.2fk", v / 1e3)
	return fmt(v)
}
# A median with its rounds' min-max.
function cell(m, row, sys,   v) {
	v = med(m, row, sys)
	if (v == "" || cnt[m SUBSEP row SUBSEP sys] < 2) return fmt(v)
	return fmt(v) " (" short(lo(m, row, sys)) "–" short(hi(m, row, sys)) ")"
}
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "–" : sprintf("%.2fx", a / b) }
# Round-by-round ratios of SYS over AN: sets RLO, RHI, RN (rounds paired).
function round_ratios(m, row, sys, an,   r, a, b, q) {
	RN = 0; RLO = RHI = ""
	for (r = 1; r <= rounds; r++) {
		if (!((m SUBSEP row SUBSEP sys, r) in inround) || !((m SUBSEP row SUBSEP an, r) in inround)) continue
		a = inround[m SUBSEP row SUBSEP sys, r]; b = inround[m SUBSEP row SUBSEP an, r]
		if (b == 0) continue
		q = a / b; RN++
		if (RN == 1 || q < RLO) RLO = q
		if (RN == 1 || q > RHI) RHI = q
	}
}
# The ratio of medians, its rounds' spread and what it means.
function ratio_cell(m, row, sys, an,   v, b) {
	v = med(m, row, sys); b = med(m, row, an)
	if (v == "" || b == "" || b == 0) { VERDICT = "–"; return "–" }
	round_ratios(m, row, sys, an)
	if (RN < 2) { VERDICT = "one round: no spread"; return ratio(v, b) }
	if (RLO <= 1 && RHI >= 1) VERDICT = "no measurable difference"
	else VERDICT = (isbetter(m, v, b) ? "ahead" : "behind")
	return sprintf("%.2fx (%.2f–%.2f)%s", v / b, RLO, RHI, VERDICT == "no measurable difference" ? " n.s." : "")
}
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
	if (m == "entries_s") return "directory entries/s"
	if (m == "cpu_us_op") return "CPU-µs per op"
	if (m == "cpu_us_entry") return "CPU-µs per directory entry"
	if (m == "cpu_us_file") return "CPU-µs per file (the whole bench/fuse_meta cycle)"
	if (m == "cpu_ceiling_ops_s") return "ops/s the CPUs could carry at that cost"
	if (m == "mib_s") return "MiB/s"
	if (m == "ns_req") return "ns per request"
	if (m == "rss_mib") return "RSS, MiB"
	if (m == "clat_us") return "mean completion latency, µs"
	if (m == "cpu_ms") return "CPU ms"
	if (m == "cpu_s") return "CPU s"
	if (m ~ /_us$/) return substr(m, 1, length(m) - 3) " µs"
	if (m ~ /_ms$/) return substr(m, 1, length(m) - 3) " ms"
	if (m ~ /_s$/) return substr(m, 1, length(m) - 2) " s"
	return m
}

# A row whose every sample is 0 measured nothing in this metric (MiB/s of
# GETATTR): left out of the table rather than shown as a figure.
function allzero(m, row,   i) {
	for (i = 1; i <= ncol; i++) if (hi(m, row, col[i]) != "" && hi(m, row, col[i]) != 0) return 0
	return 1
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
		if (allzero(m, row)) continue
		for (i = 1; i <= ncol; i++) if (hasdata(m, col[i])) line = line " " cell(m, row, col[i]) " |"
		an = anchor_of(m, row)
		for (j = 1; j <= nj; j++) line = line " " (an == "" ? "–" : ratio_cell(m, row, J[j], an)) " |"
		if (meta["anchor"] != "") line = line " " (an == "" ? "–" : an) " |"
		print line
	}
}

function md(   i, l1, n) {
	printf "\n## %s\n\n%s.\n\n", meta["family"], meta["title"]
	printf "- command: `%s`; %s; %s to %s\n", meta["command"], (rounds == 0 ? "no samples" : rounds == 1 ? "1 round" : "medians of " rounds " rounds"),
		meta["date"], (meta["end"] == "" ? "(no end: **this run did not finish**)" : meta["end"])
	printf "- commit %s; machine: %s; guests' KVM: %s\n", meta["commit"], meta["machine"], meta["kvm"]
	split(meta["load_start"], l1, " "); n = meta["machine"] + 0
	printf "- load average (1, 5, 15 min) at start %s, at end %s%s\n", meta["load_start"], meta["load_end"],
		(n > 0 && l1[1] + 0 > n ? ": **a loaded machine** (more runnable work than its " n " CPUs; other helpers' builds and tests ran beside it)" : " (other work shares the machine)")
	if (!nm) print "- no samples"
	if (meta["anchor"] != "")
		printf "- ratios: each judged system's median over the best median of %s in the same run, per row; in brackets the lowest and highest of the round-by-round ratios; n.s. = they span 1.0: no measurable difference\n", meta["anchor"]
	print "- each figure: the median of the rounds, in brackets their min–max"
	if (meta["quick"] != "") print "- **BENCH_QUICK smoke run: these figures mean nothing**"
	for (i = 1; i <= nnote; i++) print "- " note[i]
	for (i = 1; i <= nm; i++) md_table(metrics[i])
	if (png != "") printf "\n![%s](%s)\n", meta["family"], png
}

# One data file per plotted metric: a row per line, then median, min and
# max for each system with data (gnuplot refuses a column of NaN only).
function plot_data(m, f,   r, i, v, line) {
	for (r = 1; r <= nr[m]; r++) {
		if (allzero(m, rows[m, r])) continue
		line = rows[m, r]
		for (i = 1; i <= ncol; i++) if (hasdata(m, col[i])) {
			v = med(m, rows[m, r], col[i])
			line = line (v == "" ? " NaN NaN NaN" : " " v " " lo(m, rows[m, r], col[i]) " " hi(m, rows[m, r], col[i]))
		}
		print line > f
	}
	close(f)
}
function colour_of(sys,   h, i) {
	if (sys in colour) return colour[sys]
	for (i = 1; i <= length(sys); i++) h = (h * 31 + index("abcdefghijklmnopqrstuvwxyz0123456789-", substr(sys, i, 1))) % 8191
	return PAL[h % npal + 1]
}
function plot_cmd(m, f,   i, c, s) {
	c = 2; s = ""
	for (i = 1; i <= ncol; i++) if (hasdata(m, col[i])) {
		s = s (s == "" ? "" : ", ") "\"" f "\" using " c ":" c + 1 ":" c + 2 (c == 2 ? ":xtic(1)" : "") \
			" title \"" col[i] "\" lc rgb \"" colour_of(col[i]) "\""
		c += 3
	}
	return s
}
function plot(   i, m, np, gp, f) {
	np = nm
	gp = dir "/" meta["family"] ".gp"
	printf "set terminal pngcairo size 1400,%d noenhanced\nset output \"%s\"\n", 120 + 380 * np, out > gp
	printf "set multiplot layout %d,1 title \"%s: %s, commit %s, %s, load %s\\nbars: median of %s, whiskers: min-max of the rounds\"\n",
		np, meta["family"], meta["date"], meta["commit"], meta["machine"], meta["load_start"], (rounds == 1 ? "1 round" : rounds " rounds") > gp
	printf "load \"%s\"\nset key outside right top\nset xtics rotate by -30\n", histogram > gp
	for (i = 1; i <= nm; i++) {
		m = metrics[i]
		f = dir "/" meta["family"] "." m ".dat"
		plot_data(m, f)
		printf "set ylabel \"%s (log; %s is better)\"\nplot %s\n", unit(m), better[m], plot_cmd(m, f) > gp
	}
	print "unset multiplot" > gp
	close(gp)
}

# A headline line: "ROW METRIC SYSTEM ANCHOR | LABEL | WHAT IS COMPARED";
# ANCHOR is a system of the same run, "best" (the family's best anchor for
# the row) or "-" (a figure without a comparison).
function pick(   L, n, i, P, w, nw, an, v, rc) {
	n = split(picks, L, ";")
	for (i = 1; i <= n; i++) {
		if (split(L[i], P, "|") < 3) continue
		nw = split(P[1], w, " ")
		if (nw < 4 || !((w[2], w[1]) in seenrow)) continue
		v = med(w[2], w[1], w[3])
		if (v == "") continue
		if (w[4] == "best") an = anchor_of(w[2], w[1]); else if (w[4] == "-") an = ""; else an = w[4]
		if (an != "" && med(w[2], w[1], an) == "") an = ""
		rc = (an == "" ? "–" : ratio_cell(w[2], w[1], w[3], an))
		if (an == "") VERDICT = "–"
		sub(/^ +/, "", P[2]); sub(/ +$/, "", P[2]); sub(/^ +/, "", P[3])
		printf "%s|%s|%s|%s|%s|%s|%s|%s|%s\n", P[2], w[3], cell(w[2], w[1], w[3]), an, (an == "" ? "–" : cell(w[2], w[1], an)),
			rc, VERDICT, P[3], better[w[2]]
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
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", kv[1], row, cell("ops_s", row, "stainless"), cell("ops_s", row, "vfsd-t64"),
			cell("ops_s", row, "vfsd-t1"), cell("ops_s", row, "vfsd-t0"), ratio(s1, s64), ratio(s0, s64), ratio(st, best)
	}
	printf "\nops/s, medians of %d rounds, in brackets their min–max (%s, load %s to %s). Pool 1 ahead of pool 64 on %d of %d rows, pool 0 on %d of %d.\n",
		rounds, meta["date"], meta["load_start"], meta["load_end"], w1, n1, w0, n0
}
