# SPDX-License-Identifier: MIT
#
# table.awk - the fidelity harness's summary of one family's rounds.
# Input: a data file of fidelity.sh: '#' lines (skipped), then "ROUND KEY
# TOOL VALUE" lines, TOOL "reference" or "embperf". Per KEY, in the order
# first seen: each tool's median and spread ((max - min) / median, %), the
# paired ratio embperf / reference round by round, its median and a
# distribution-free interval of at least 95 % (ranks j and n + 1 - j of the
# sorted ratios, j the largest with P(Binomial(n, 1/2) < j) <= 0.025; none
# below 6 pairs), and the verdict against the row's band: "met" (the median
# in the band), "NOT met" (outside it, and so is the interval when there is
# one), "unresolved" (outside it, but the interval reaches into the band).
#
# A row's verdict ends in "/ spread (p P)" when embperf's spread is above
# the reference's and a paired randomization test (spread_p) says the
# rounds would show that gap by chance with probability P <= 0.05: each
# tool's spread is read from a handful of rounds, so a bare comparison of
# the two flags about half of the rows of two tools that vary alike.
#
# A band may name the reference's resolution, REGEX=LO:HI:Q, for a tool that
# prints its figure truncated to whole Qs (iputils ping's rtt avg: whole
# microseconds): its true value lies in [printed, printed + Q). A row the
# median misses is then "unresolved: the reference truncates to Q" when the
# band meets the ratios that span allows (the median of embperf /
# (reference + Q) up to the median ratio): the reference cannot tell.
#
# A row outside its band whose cause has been measured and named in doc/
# says so after its verdict ("NOT met, cause: ..."), from the family's causes;
# it is counted as the verdict says all the same.
#
# A row whose reference is a fixed figure rather than a tool's measurement
# (the shaper's frame rate, a target's count: the family's fam_fixed, a
# REGEX) has no reference spread: its spread reads "fixed" and is not
# compared.
#
# Variables (awk -v): fam (the family's name), bands ("REGEX=LO:HI[:Q];..."),
# the first REGEX matching the KEY gives its band, default 0.95:1.05), causes
# ("REGEX=TEXT;...", the first REGEX matching the KEY), fixed (REGEX, or
# empty: no row), md (1: markdown table rows; else a text table with a
# header).

function ci_rank(n,   j, term, below) {
	term = 0.5 ^ n
	below = term
	for (j = 1; below <= 0.025; j++) {
		term = term * (n - j + 1) / j
		below += term
	}
	return j - 1
}

function sort_arr(a, n,   i, k, x) {
	for (i = 2; i <= n; i++) {
		x = a[i]
		for (k = i - 1; k >= 1 && a[k] > x; k--)
			a[k + 1] = a[k]
		a[k + 1] = x
	}
}

function median(a, n) {
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# The band of KEY into blo, bhi, and the reference's resolution into bq (0: exact).
function band(key,   i, n, parts, kv, lh) {
	blo = 0.95
	bhi = 1.05
	bq = 0
	n = split(bands, parts, ";")
	for (i = 1; i <= n; i++) {
		if (split(parts[i], kv, "=") != 2)
			continue
		if (key ~ kv[1]) {
			split(kv[2], lh, ":")
			blo = lh[1] + 0
			bhi = lh[2] + 0
			bq = lh[3] + 0
			return
		}
	}
}

# The measured cause of KEY's gap, or "" when the family names none.
function cause(key,   i, n, parts, kv) {
	n = split(causes, parts, ";")
	for (i = 1; i <= n; i++)
		if (split(parts[i], kv, "=") == 2 && key ~ kv[1])
			return kv[2]
	return ""
}

function is_fixed(key) {
	return fixed != "" && key ~ fixed
}

# spread_p(KEY) - whether embperf's run-to-run dispersion is above the
# reference's by more than the rounds' chance: Fisher's paired
# randomization test, one-sided. Per round with both figures above 0,
# d = |ln(e / median e)| - |ln(r / median r)|: each tool's relative
# deviation from its own median (so a ratio away from 1 does not count).
# If both tools vary alike, either deviation of a round could have been the
# other's: each d's sign is a coin, and p is the share of the sign patterns
# whose sum reaches the observed sum (all 2^n up to 12 rounds, else 4096
# draws from a fixed seed). One outlying round is then no evidence (half
# the patterns keep it); embperf's deviations above the reference's round
# after round are (6 of 6: p = 1/64). Returns 1 without 5 pairs.
function spread_p(key,   n, i, e, r, d, em, rm, obs, m, x, s, hits, total, draws) {
	n = 0
	for (i = 1; i <= nround; i++)
		if ((key, "reference", i) in byround && (key, "embperf", i) in byround &&
		    byround[key, "reference", i] > 0 && byround[key, "embperf", i] > 0) {
			n++
			e[n] = byround[key, "embperf", i]
			r[n] = byround[key, "reference", i]
		}
	if (n < 5)
		return 1
	em = median_of(e, n)
	rm = median_of(r, n)
	obs = 0
	for (i = 1; i <= n; i++) {
		d[i] = abs(log(e[i] / em)) - abs(log(r[i] / rm))
		obs += d[i]
	}
	obs -= 1e-12 # sums equal to the observed one count as reaching it
	hits = 0
	draws = n <= 12 ? 2 ^ n : 4096
	srand(1)
	for (m = 0; m < draws; m++) {
		s = 0
		x = n <= 12 ? m : int(rand() * 2 ^ n)
		for (i = 1; i <= n; i++) {
			s += (x % 2) ? -d[i] : d[i]
			x = int(x / 2)
		}
		if (s >= obs)
			hits++
	}
	return hits / draws
}

function abs(x) {
	return x < 0 ? -x : x
}

# The median of A[1..N], A left as it was.
function median_of(a, n,   i, b) {
	for (i = 1; i <= n; i++)
		b[i] = a[i]
	sort_arr(b, n)
	return median(b, n)
}

function summary(key, tool,   n, i, a) {
	n = 0
	for (i = 1; i <= cnt[key, tool]; i++)
		a[++n] = val[key, tool, i]
	if (!n) {
		med_s = "-"
		spr = -1
		return
	}
	sort_arr(a, n)
	m = median(a, n)
	med_s = m >= 1000 ? sprintf("%.0f", m) : sprintf("%.4g", m)
	spr = m > 0 ? 100 * (a[n] - a[1]) / m : 0
}

# The median of embperf / (reference + bq) over the rounds of KEY: the
# lowest ratio a reference truncated to whole bqs allows.
function truncated_ratio(key,   n, i, a) {
	n = 0
	for (i = 1; i <= nround; i++)
		if ((key, "reference", i) in byround && (key, "embperf", i) in byround)
			a[++n] = byround[key, "embperf", i] / (byround[key, "reference", i] + bq)
	sort_arr(a, n)
	return median(a, n)
}

function row(key,   n, i, r, j, rm, lo, hi, ref_m, ref_spr, emb_m, emb_spr, verdict, ci, why, p, ref_num) {
	summary(key, "reference")
	ref_m = med_s
	ref_num = spr < 0 ? 0 : m
	ref_spr = spr
	summary(key, "embperf")
	emb_m = med_s
	emb_spr = spr
	n = 0
	for (i = 1; i <= nround; i++)
		if ((key, "reference", i) in byround && (key, "embperf", i) in byround &&
		    byround[key, "reference", i] > 0)
			r[++n] = byround[key, "embperf", i] / byround[key, "reference", i]
	band(key)
	if (n) {
		sort_arr(r, n)
		rm = median(r, n)
		j = ci_rank(n)
		ci = j >= 1 ? sprintf(" [%.3f, %.3f]", r[j], r[n + 1 - j]) : " [-]"
		verdict = rm >= blo && rm <= bhi ? "met" : "NOT met"
		# A median outside the band whose interval still reaches into it is
		# not shown to differ: the rounds leave it open.
		if (verdict != "met" && j >= 1 && r[j] <= bhi && r[n + 1 - j] >= blo)
			verdict = "unresolved"
		if (verdict != "met" && bq > 0 && truncated_ratio(key) <= bhi && rm >= blo)
			verdict = "unresolved: the reference truncates to " bq
		why = cause(key)
		if (n < 5)
			verdict = "too few rounds"
		else if (verdict != "met" && why != "")
			verdict = verdict ", cause: " why
		# A reference truncated to whole Qs hides any spread below Q / its
		# median: embperf's within that is not more than it can show.
		if (!is_fixed(key) && emb_spr > ref_spr && emb_spr > 2 &&
		    !(bq > 0 && ref_num > 0 && emb_spr <= 100 * bq / ref_num) &&
		    (p = spread_p(key)) <= 0.05)
			verdict = verdict sprintf(" / spread (p %.3f)", p)
		rs = sprintf("%.3f%s", rm, ci)
	} else {
		rs = "-"
		verdict = "no pairs"
	}
	sp = sprintf("%s / %s", ref_spr < 0 ? "-" : is_fixed(key) ? "fixed" : sprintf("%.1f %%", ref_spr),
		     emb_spr < 0 ? "-" : sprintf("%.1f %%", emb_spr))
	bs = sprintf("%.2f-%.2f", blo, bhi)
	if (md)
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", fam, key, ref_m, emb_m, rs, sp, bs,
			verdict
	else
		printf "%-28s %11s %11s  %-24s %-17s %-9s %s\n", key, ref_m, emb_m, rs, sp, bs, verdict
}

/^#/ { next }
NF >= 4 {
	k = $2
	t = $3
	if (!(k in seen)) {
		seen[k] = 1
		order[++nk] = k
	}
	cnt[k, t]++
	val[k, t, cnt[k, t]] = $4
	byround[k, t, $1 + 0] = $4
	if ($1 + 0 > nround)
		nround = $1 + 0
}
END {
	if (!md)
		printf "%-28s %11s %11s  %-24s %-17s %-9s %s\n", "row", "reference", "embperf",
			"ratio [95% interval]", "spread ref/emb", "band", "verdict"
	for (i = 1; i <= nk; i++)
		row(order[i])
}
