# SPDX-License-Identifier: MIT
#
# bench/fidelity/paired.sh - sourced by the compare-*.sh scripts that print
# tables of their own: after them, the shared paired table of
# paired-ratios.awk (embperf over the reference within each round, the
# median of those ratios and its 95 % interval), as compare-openssl.sh and
# compare-ping.sh print it. POSIX sh.
#
#   paired_rounds               stdin: "KEY ROUND TOOL VALUE" lines, TOOL
#                               reference or embperf, ROUND a whole number;
#                               stdout: paired-ratios.awk's input, "KEY TOOL
#                               VALUE", round by round, of the rounds in
#                               which both tools have a number for KEY (a
#                               round where one of them gave none, "nan" or
#                               "-", is left out whole, so that the i-th
#                               reference and the i-th embperf value of a KEY
#                               stay of the same round).
#   paired_table REFNAME FILE   "embperf / REFNAME, paired within each round:"
#                               then paired-ratios.awk's table of FILE, its
#                               header first and its rows sorted by KEY (just
#                               the header when FILE is empty).

paired_here=$(dirname "$0")

paired_rounds() {
	awk '
	function num(v) { return v ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
	($3 == "reference" || $3 == "embperf") && $2 ~ /^[0-9]+$/ && num($4) {
		v[$1, $2 + 0, $3] = $4
		keys[$1] = 1
		if (!seen++ || $2 + 0 < lo) lo = $2 + 0
		if ($2 + 0 > hi) hi = $2 + 0
	}
	END {
		for (k in keys)
			for (r = lo; r <= hi; r++)
				if ((k, r, "reference") in v && (k, r, "embperf") in v) {
					print k, "reference", v[k, r, "reference"]
					print k, "embperf", v[k, r, "embperf"]
				}
	}'
}

paired_table() {
	echo "embperf / $1, paired within each round:"
	awk -f "$paired_here/paired-ratios.awk" "$2" | { read -r head; echo "$head"; sort; }
}
