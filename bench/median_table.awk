# SPDX-License-Identifier: GPL-2.0-only
# Turns interleaved benchmark samples into one table of medians and ratios.
# Input lines: ROW BACKEND VALUE, already sorted so that the values of each
# ROW/BACKEND pair are in ascending numeric order (sort -k1,1 -k2,2 -k3,3g).
# Variables:
#   rows    "ROW[:NEED] ..."  rows in print order; NEED (e.g. 1.5) asks for
#                             a verdict: judge/anchor must exceed NEED
#                             (or stay below 1/NEED when lower is better)
#   cols    "BACKEND ..."     columns of medians
#   anchor  "BACKEND ..."     the anchor is the best of these, per row
#   ratios  "BACKEND ..."     columns divided by the anchor
#   judge   "BACKEND ..."     the backends the verdicts are about (one
#                             verdict each, named when there are several)
#   pairs   "[LABEL=]A/B ..." more ratio columns, each A's median over B's,
#                             headed LABEL (default "A/B"); B may be "B1|B2",
#                             the better of those per row (without an anchor
#                             the anchor column is left out)
#   lower   1 when smaller is better (CPU per op); default bigger is better
#   fmt     printf format of a median (default %.0f)
# mawk has no sort, so medians rely on the sorted input; the median of an
# even count is the mean of the middle two.
BEGIN {
	nc = split(cols, C, " "); na = split(anchor, A, " "); nq = split(ratios, Q, " ")
	nr = split(rows, R, " "); np = split(pairs, P, " "); nj = split(judge, J, " ")
	if (fmt == "") fmt = "%.0f"
}
{ k = $1 SUBSEP $2; n[k]++; v[k, n[k]] = $3 + 0 }
function med(k,   c) {
	c = n[k]
	if (!c) return -1
	if (c % 2) return v[k, (c + 1) / 2]
	return (v[k, c / 2] + v[k, c / 2 + 1]) / 2
}
function better(a, b) { return lower ? a < b : a > b }
# The better median of the backends in "B1|B2|...", -1 when none has data.
function bestof(row, list,   L, nl, i, m, best) {
	nl = split(list, L, "|"); best = -1
	for (i = 1; i <= nl; i++) {
		m = med(row SUBSEP L[i])
		if (m >= 0 && (best < 0 || better(m, best))) best = m
	}
	return best
}
function plabel(i) { return index(P[i], "=") ? substr(P[i], 1, index(P[i], "=") - 1) : P[i] }
function ppair(i) { return index(P[i], "=") ? substr(P[i], index(P[i], "=") + 1) : P[i] }
function pwidth(i) { return length(plabel(i)) < 10 ? 10 : length(plabel(i)) }
END {
	printf "%-18s", "row"
	for (i = 1; i <= nc; i++) printf " %12s", C[i]
	for (i = 1; i <= nq; i++) printf " %10s", Q[i] "/anc"
	for (i = 1; i <= np; i++) printf " %" pwidth(i) "s", plabel(i)
	if (na) printf "  %-12s %s", "anchor", (nj ? "verdict" : "")
	printf "\n"
	for (r = 1; r <= nr; r++) {
		split(R[r], parts, ":"); row = parts[1]; need = parts[2]
		printf "%-18s", row
		for (i = 1; i <= nc; i++) {
			m = med(row SUBSEP C[i])
			if (m < 0) printf " %12s", "-"; else printf " %12s", sprintf(fmt, m)
		}
		best = -1; bname = "-"
		for (i = 1; i <= na; i++) {
			m = med(row SUBSEP A[i])
			if (m >= 0 && (best < 0 || better(m, best))) { best = m; bname = A[i] }
		}
		for (i = 1; i <= nq; i++) {
			m = med(row SUBSEP Q[i])
			if (m < 0 || best <= 0) printf " %10s", "-"
			else printf " %10s", sprintf("%.2fx", m / best)
		}
		for (i = 1; i <= np; i++) {
			split(ppair(i), ab, "/"); a = bestof(row, ab[1]); b = bestof(row, ab[2])
			if (a < 0 || b <= 0) printf " %" pwidth(i) "s", "-"
			else printf " %" pwidth(i) "s", sprintf("%.2fx", a / b)
		}
		verdict = ""
		if (need != "" && nj) {
			for (j = 1; j <= nj; j++) {
				m = med(row SUBSEP J[j])
				if (m < 0 || best <= 0) say = "no data"
				else if (lower ? m / best < 1 / need : m / best > need) say = "ok"
				else say = "BEHIND"
				verdict = verdict (j > 1 ? ", " : "") (nj > 1 ? J[j] " " : "") say
			}
			verdict = verdict " (target " need "x)"
		}
		if (na) printf "  %-12s %s", bname, verdict
		printf "\n"
	}
}
