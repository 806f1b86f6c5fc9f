# SPDX-License-Identifier: MIT
#
# current.awk - where each row stands: of every data file's summary rows,
# the latest measurement of each row of each label.
# Input (fidelity.sh page_rows, sorted by start): "STARTED<TAB>LABEL<TAB>
# NAME<TAB>ROW", ROW a markdown row of table.awk (md=1, its first cell the
# data file's name). The data files of one configuration of a family share a
# label (data/CPU/labels; a file not listed is its own label), so a row run
# again later replaces its earlier figure, and a row measured only once
# keeps it. Output: the rows by label in the order first seen (fidelity.sh
# sorts the labels by name), each label's rows in the order first seen, the
# first cell the label and a last cell naming the data file and its start.

BEGIN { FS = "\t" }

NF >= 4 {
	n = split($4, cell, / [|] /)
	if (n < 8)
		next
	label = $2
	key = cell[2]
	if (!((label, key) in row)) {
		if (!(label in nkeys))
			labels[++nlabels] = label
		order[label, ++nkeys[label]] = key
	}
	line = "| " label
	for (i = 2; i <= n; i++)
		line = line " | " cell[i]
	sub(/ [|]$/, "", line)
	row[label, key] = line " | " $3 ($1 != "" ? ", " $1 : "") " |"
}

END {
	for (i = 1; i <= nlabels; i++)
		for (k = 1; k <= nkeys[labels[i]]; k++)
			print row[labels[i], order[labels[i], k]]
}
