# SPDX-License-Identifier: MIT
#
# median-table.awk - the side-by-side table of the compare-*.sh scripts.
# Input: "KEY TOOL VALUE" lines, TOOL "reference" or "embperf", grouped by
# KEY and sorted by value within each KEY and TOOL. Output per KEY: each
# tool's median, its spread ((max - min) / median, in %), the ratio embperf
# / reference and the number of values of each.
#
# Variables (awk -v): keyname (first column's title), refname (the
# reference's title), keywidth, numfmt (printf format of a median, width
# 12), spreadwidth (width of a spread with its %: 6 or 7).

function flush(   t, n, m) {
	if (key == "")
		return
	for (t in cnt) {
		n = cnt[t]
		m = (n % 2) ? v[t, (n + 1) / 2] : (v[t, n / 2] + v[t, n / 2 + 1]) / 2
		med[t] = m
		spread[t] = m > 0 ? 100 * (v[t, n] - v[t, 1]) / m : 0
	}
	printf rowfmt, key, med["reference"], spread["reference"], med["embperf"],
		spread["embperf"], (med["reference"] > 0 ? med["embperf"] / med["reference"] : 0),
		cnt["reference"], cnt["embperf"]
	delete cnt
	delete med
	delete spread
}

BEGIN {
	# Formats built here: POSIX printf has no '*' width.
	spreadfmt = "%" (spreadwidth - 1) ".1f%%"
	rowfmt = "%-" keywidth "s " numfmt " " spreadfmt " " numfmt " " spreadfmt \
		 "  %6.3f  %d/%d\n"
	printf "%-" keywidth "s %12s %" spreadwidth "s %12s %" spreadwidth "s  %6s  %s\n",
		keyname, refname, "spread", "embperf", "spread", "ratio", "n"
}
$1 != key { flush(); key = $1 }
{ cnt[$2]++; v[$2, cnt[$2]] = $3 }
END { flush() }
