# SPDX-License-Identifier: MIT
#
# paired-ratios.awk - embperf over the reference round by round, for the
# compare-*.sh scripts: what moves a whole round on a shared machine (the
# host's other guests, the load) moves both tools of that round, and the
# ratio within the round leaves it out.
# Input: "KEY TOOL VALUE" lines in the order the runs were made, TOOL
# "reference" or "embperf"; the i-th embperf value of a KEY is paired with
# its i-th reference value (one of each per round).
# Output per KEY: the number of pairs, the median of their ratios, and a
# distribution-free confidence interval of that median of at least 95 %:
# the ratios of ranks j and n + 1 - j, sorted, with j the largest rank for
# which P(Binomial(n, 1/2) < j) <= 0.025 ("-" where n is below 6, too few
# for one).

function ci_rank(n,   j, term, below) {
	# below: P(X <= j - 1) for X ~ Bin(n, 1/2), built term by term.
	term = 0.5 ^ n
	below = term
	for (j = 1; below <= 0.025; j++) {
		term = term * (n - j + 1) / j
		below += term
	}
	return j - 1
}

function sort_ratios(n,   i, k, x) {
	for (i = 2; i <= n; i++) {
		x = r[i]
		for (k = i - 1; k >= 1 && r[k] > x; k--)
			r[k + 1] = r[k]
		r[k + 1] = x
	}
}

function report(key,   n, i, med, j, lo, hi) {
	n = 0
	for (i = 1; i <= ref_n[key] && i <= emb_n[key]; i++)
		if (ref[key, i] > 0)
			r[++n] = emb[key, i] / ref[key, i]
	if (n == 0)
		return
	sort_ratios(n)
	med = (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
	j = ci_rank(n)
	lo = j >= 1 ? sprintf("%.3f", r[j]) : "-"
	hi = j >= 1 ? sprintf("%.3f", r[n + 1 - j]) : "-"
	printf "%-22s %5d  %6.3f  %6s  %6s\n", key, n, med, lo, hi
}

$2 == "reference" { ref[$1, ++ref_n[$1]] = $3; keys[$1] = 1 }
$2 == "embperf" { emb[$1, ++emb_n[$1]] = $3; keys[$1] = 1 }
END {
	printf "%-22s %5s  %6s  %6s  %6s\n", "case", "pairs", "paired", "ci_lo", "ci_hi"
	for (k in keys)
		report(k)
}
