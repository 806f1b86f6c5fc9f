#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/fidelity/fidelity.sh - every kernel family beside its reference
# tool, with one protocol, and the page of this CPU model in doc/fidelity/.
#
#   bench/fidelity/fidelity.sh [-b BUILD] [-r ROUNDS] [-o DIR] [FAMILY...]
#   bench/fidelity/fidelity.sh ... --as NAME FAMILY   (its data as NAME.tsv,
#       e.g. a subset of its rows beside an earlier full run)
#   bench/fidelity/fidelity.sh --list
#   bench/fidelity/fidelity.sh --page [-o DIR] [--cpu SLUG]  (rewrite this
#       CPU model's page only, or that of data/SLUG/, e.g. amd-epyc-f25-m1)
#
# The protocol (doc/fidelity/README.md):
#   - the reference runs as its users run it: its default options, built as
#     its users build it (outside the tree; paths in the environment, never
#     downloaded or vendored; --list names them);
#   - both tools pinned alike (PIN_CPU, default 1, for one-process rows);
#   - interleaved: every round runs each row's reference and embperf once,
#     the reference first in odd rounds and embperf first in even ones;
#   - 7 rounds by default (ROUNDS, -r): 5 give a verdict, 6 the first
#     95 % interval;
#   - before each round the machine must be quiet (quiet.sh: 1-minute load
#     below 1, the CPUs under 5 % busy for 2 s); the harness waits, or stops
#     saying who is busy; the load is written beside every round;
#   - per row: the paired ratio's median (embperf / reference, round by
#     round) with its distribution-free 95 % interval, each tool's median
#     and spread ((max - min) / median over the rounds), and a verdict
#     against the row's band: met, NOT met, or unresolved (the median out
#     of the band, its interval reaching into it), and "spread (p P)" where
#     embperf's spread is the higher beyond the rounds' chance (table.awk).
# A family whose reference is missing is named and skipped; a reference
# that fails prints its own error beside the row. Each family's rounds go
# to DIR/data/CPU/FAMILY.tsv (the raw figures, kept); DIR/CPU.md is made
# again from all of that CPU's data files, summary table first.
#
# Families: the fam-*.sh files beside this script. Each defines fam_describe,
# fam_refs, fam_setup, fam_round and fam_bands (tests/test_fidelity_table.sh
# checks), may define fam_cleanup (called on every exit), and may define
# fam_causes: "REGEX=TEXT;..." for rows whose gap has a measured cause named
# in doc/ (the verdict then names it too; table.awk), on the CPU model
# $cpu_slug it was measured on, and where a cause was measured in one run
# only, in that run: its data file $data_name (FAMILY, or NAME of --as) and
# its start $data_started ("2026-12-05 15:39", the header's protocol line),
# so that a later run written to the same file does not inherit it; and may
# define fam_fixed: a REGEX of rows whose "reference" is a fixed figure (a
# known bottleneck's rate, a target), whose spread is then not compared.
# fam_round may call data_note TEXT to keep a line "# TEXT" in the data
# file's header (what a round saw beside its figures); fam_causes may read
# the data file, "$data/$data_name.tsv", for them.
# EP_ARGS: extra parameters for embperf's side of the families that take
# them (timer, fio, net's tcp rows, cpu's linpack row), e.g. EP_ARGS=counters=1 for an A/B against the
# default; written into the data file's header.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fam_causes() { :; } # none unless the family names some
fam_fixed() { :; }  # rows whose reference is a fixed figure: none unless named
src=$(cd "$here/../.." && pwd)
build=$src/build
rounds=${ROUNDS:-7}
out=$src/doc/fidelity
list=0 page_only=0 as_name= page_cpu=
fams=()
while [ $# -gt 0 ]; do
	case $1 in
	-b) build=$(cd "$2" && pwd); shift ;;
	-r) rounds=$2; shift ;;
	-o) out=$2; shift ;;
	--as) as_name=$2; shift ;;
	--list) list=1 ;;
	--page) page_only=1 ;;
	--cpu) page_cpu=$2; shift ;;
	-h | --help) awk 'NR > 2 && !/^#/ { exit } NR > 2' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fidelity.sh: unknown option '$1'; accepted: -b BUILD, -r ROUNDS, -o DIR, --as NAME, --list, --page [--cpu SLUG]" >&2
	    exit 2 ;;
	*) fams+=("$1") ;;
	esac
	shift
done
case $rounds in
'' | *[!0-9]*) echo "fidelity.sh: -r '$rounds': accepted: a whole number of rounds, at least 5 for a verdict" >&2; exit 2 ;;
esac

all_fams=()
for f in "$here"/fam-*.sh; do
	n=${f##*/fam-}
	all_fams+=("${n%.sh}")
done
[ ${#fams[@]} -gt 0 ] || fams=("${all_fams[@]}")
case $as_name in
'') ;;
*[!a-z0-9_-]*) echo "fidelity.sh: --as '$as_name': accepted: a name of a-z, 0-9, _ and -" >&2; exit 2 ;;
*) [ ${#fams[@]} -eq 1 ] || { echo "fidelity.sh: --as '$as_name': accepted with one family only" >&2; exit 2; } ;;
esac
for f in "${fams[@]}"; do
	[ -f "$here/fam-$f.sh" ] || {
		echo "fidelity.sh: no family '$f'; accepted: ${all_fams[*]}" >&2
		exit 2
	}
done

. "$here/quiet.sh"
cpu_model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
cpu_ids="family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), model $(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
# One page per CPU model: the family and model numbers are in the name, as
# a virtual machine's model name can be as bare as "AMD EPYC" for Zen 3 and
# Zen 5 alike (amd-epyc-f25-m1, amd-epyc-f26-m2).
cpu_slug=$(echo "$cpu_model ${cpu_ids/family /f} " | sed 's/, model /-m/' | tr 'A-Z' 'a-z' |
	tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')
if [ -n "$page_cpu" ]; then
	# --page --cpu SLUG: another model's page, its name from its data files
	[ "$page_only" = 1 ] || { echo "fidelity.sh: --cpu SLUG goes with --page" >&2; exit 2; }
	cpu_slug=$page_cpu
	cpu_line=$(sed -n 's/^# cpu: //p' "$out/data/$cpu_slug"/*.tsv 2>/dev/null | head -1 || true)
	[ -n "$cpu_line" ] || { echo "fidelity.sh: --cpu '$page_cpu': no data files in $out/data/$page_cpu" >&2; exit 2; }
	cpu_model=${cpu_line%% (*}
	cpu_ids=${cpu_line#* (}
	cpu_ids=${cpu_ids%%)*}
fi
data=$out/data/$cpu_slug
export EMBPERF=${EMBPERF:-$build/bench/embperf}
# The source the build was made from (meson records it), which need not be
# this checkout: its commit goes into every data file's header.
build_src=$(sed -n 's/.*"source": *"\([^"]*\)".*/\1/p' "$build/meson-info/meson-info.json" 2>/dev/null || true)
[ -d "$build_src" ] || build_src=$src
export PIN_CPU=${PIN_CPU:-1}

# Helpers for the families.

# lmb_timing - the lmbench timing settings the reference programs see:
# ENOUGH, TIMING_O and LOOP_O as lmbench's scripts/config-run measures them
# once (with its enough, timing_o and loop_o) and its suite exports to every
# program, or "unset": each program then calibrates itself, which took
# 0.5 to 44 s a bw_mem call on a Zen 4 host (doc/fidelity/README.md).
lmb_timing() { echo "ENOUGH=${ENOUGH:-unset} TIMING_O=${TIMING_O:-unset} LOOP_O=${LOOP_O:-unset}"; }

# pinned COMMAND... - run it on PIN_CPU (both tools alike), stderr kept.
pinned() {
	if [ -n "$PIN_CPU" ]; then
		taskset -c "$PIN_CPU" "$@"
	else
		"$@"
	fi
}

# ep_csv ARGS... - embperf with CSV output: "METRIC LABELS VALUE" lines,
# labels joined by '_' (so that a line splits on blanks), '-' when none.
ep_csv() {
	local pin=()
	[ -n "${EMBPERF_PIN:-}" ] && pin=(taskset -c "$PIN_CPU")
	"${pin[@]}" "$EMBPERF" -q --format=csv "$@" | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ lab = $col["labels"]; gsub(/ /, "_", lab); if (lab == "") lab = "-"
		  print $col["metric"], lab, $col["value"] }'
}

# pinned_ep_csv ARGS... - ep_csv on PIN_CPU (taskset, as the reference).
pinned_ep_csv() {
	if [ -n "$PIN_CPU" ]; then
		EMBPERF_PIN=1 ep_csv "$@"
	else
		ep_csv "$@"
	fi
}

# emit KEY TOOL VALUE - one figure; a missing or non-numeric value is
# named on stderr (the reference's own error is above it).
emit() {
	case ${3:-} in
	'' | *[!0-9.eE+-]*) echo "fidelity: $1 $2: no figure (got '${3:-}')" >&2 ;;
	*) echo "$1 $2 $3" ;;
	esac
}

# data_note TEXT - a line "# TEXT" in the header of the family's data file
# (from fam_round, during a family's rounds only).
data_note() {
	[ -n "${tmp:-}" ] && [ -f "$tmp/head" ] && echo "# $*" >>"$tmp/head"
	return 0
}

# in_turn R REF_FN EP_FN [ARGS...] - the two sides of a row in the round's order.
in_turn() {
	local r=$1 a=$2 b=$3
	shift 3
	if [ $((r % 2)) = 1 ]; then
		"$a" "$@"
		"$b" "$@"
	else
		"$b" "$@"
		"$a" "$@"
	fi
}

run_family() { # NAME
	local name=$1 tsv r tmp
	(
		. "$here/fam-$name.sh"
		if ! refs=$(fam_refs 2>&1); then
			echo "== $name: skipped: $refs" >&2
			exit 4
		fi
		mkdir -p "$data"
		tmp=$(mktemp -d)
		trap 'fam_cleanup 2>/dev/null || true; rm -rf "$tmp"' EXIT
		# run_family is called in an || list, where set -e does not apply
		fam_setup || exit 5
		data_started=$(date -u '+%Y-%m-%d %H:%M')
		{
			echo "# family: $name"
			echo "# cpu: $cpu_model ($cpu_ids); kernel $(uname -r); $(nproc) CPUs"
			echo "# embperf: $(git -C "$build_src" describe --always --dirty 2>/dev/null || echo unknown), $EMBPERF${EP_ARGS:+, EP_ARGS=$EP_ARGS}"
			echo "$refs" | sed 's/^/# reference: /'
			echo "# protocol: $rounds rounds interleaved (odd: reference first), PIN_CPU=${PIN_CPU:-none}; $data_started UTC"
			echo "# what: $(fam_describe)"
		} >"$tmp/head"
		echo "== $name: $rounds rounds"
		for r in $(seq "$rounds"); do
			quiet_wait
			echo "# round $r: $(quiet_state)" | tee -a "$tmp/head" >&2
			fam_round "$r" | awk -v r="$r" '{ print r, $0 }' >>"$tmp/rows"
		done
		echo "# ended: $(date -u '+%Y-%m-%d %H:%M UTC'), $(quiet_state)" >>"$tmp/head"
		data_name=${as_name:-$name}
		cat "$tmp/head" "$tmp/rows" >"$data/$data_name.tsv"
		awk -f "$here/table.awk" -v fam="$data_name" -v bands="$(fam_bands)" \
			-v causes="$(fam_causes)" -v fixed="$(fam_fixed)" "$data/$data_name.tsv"
	)
}

# The label of data file NAME on the "where each row stands" table: its line
# "NAME LABEL" in data/CPU/labels, else NAME itself.
file_label() {
	local label=
	[ -f "$data/labels" ] && label=$(awk -v n="$1" '!/^#/ && $1 == n && NF >= 2 { print $2; exit }' "$data/labels")
	echo "${label:-$1}"
}

# The summary rows of every data file, as markdown, each under its file's
# name; its family (the header's) gives the bands. Each line is tagged
# "STARTED<TAB>LABEL<TAB>NAME<TAB>" for current.awk.
page_rows() {
	local f name fam label started
	for f in "$data"/*.tsv; do
		name=${f##*/}
		name=${name%.tsv}
		fam=$(sed -n 's/^# family: //p' "$f" | head -1)
		label=$(file_label "$name")
		started=$(sed -n 's/^# protocol: .*; \(.*\) UTC$/\1/p' "$f" | head -1)
		(
			. "$here/fam-${fam:-$name}.sh"
			data_name=$name
			data_started=$started
			awk -f "$here/table.awk" -v fam="$name" -v bands="$(fam_bands)" \
				-v causes="$(fam_causes)" -v fixed="$(fam_fixed)" -v md=1 "$f"
		) | awk -v s="$started" -v l="$label" -v n="$name" '{ print s "\t" l "\t" n "\t" $0 }'
	done
}

# The verdict counts of markdown rows on stdin, per first cell, in the
# order first seen; with a total line when TOTAL is 1.
verdict_counts() {
	awk -F' [|] ' -v total="$1" '{ f = substr($1, 3); n[f]++; if (!(f in o)) o[f] = ++k
		v = $8; sub(/ [|]$/, "", v)
		if (v ~ /^met/) m[f]++; else if (v ~ /^unresolved/) u[f]++; else if (v ~ /^NOT met/) x[f]++
		if (v ~ /spread/) s[f]++
		split($6, sp, " / "); a = sp[1] + 0; b = sp[2] + 0
		if (sp[1] ~ /%/ && sp[2] ~ /%/ && b > a && b > 2) h[f]++ }
		END { for (f in o) l[o[f]] = f
		for (i = 1; i <= k; i++) { f = l[i]
			printf "| %s | %d | %d | %d | %d | %d | %d |\n", f, n[f], m[f], u[f], x[f], s[f], h[f]
			tn += n[f]; tm += m[f]; tu += u[f]; tx += x[f]; ts += s[f]; th += h[f] }
		if (total)
			printf "| **all** | %d | %d | %d | %d | %d | %d |\n", tn, tm, tu, tx, ts, th }'
}

write_page() {
	local page=$out/$cpu_slug.md f rows tagged current tab=$'\t'
	[ -d "$data" ] || { echo "fidelity.sh: no data in $data" >&2; return 1; }
	{
		echo "<!-- SPDX-License-Identifier: MIT -->"
		echo "# Fidelity on $cpu_model ($cpu_ids)"
		echo
		echo "Made by \`bench/fidelity/fidelity.sh\` from the data files in \`data/$cpu_slug/\`;"
		echo "the protocol is in [README.md](README.md). Ratio: embperf / reference, the median of"
		echo "the round-by-round ratios with its 95 % interval; spread: (max - min) / median over the"
		echo "rounds, reference / embperf; verdict: **met** when the median is within the row's band,"
		echo "**NOT met** when it is outside and so is its interval (or there is no interval, below 6"
		echo "rounds), **unresolved** when it is outside but its interval reaches into the band (the"
		echo "rounds cannot tell); after a comma, the cause of the gap where one has been measured"
		echo "(counted as the verdict says); after a slash, 'spread (p P)' when embperf's spread is"
		echo "above the reference's and the rounds show it beyond chance: a paired randomization test"
		echo "on each round's deviation from each tool's median gives P <= 0.05 (the last column of the"
		echo "summary counts every row whose embperf spread is the higher one, shown or not)."
		echo
		tagged=$(page_rows)
		rows=$(cut -f4- <<<"$tagged")
		# by start into current.awk, its rows out by label (stable: each label's order kept)
		current=$(sort -s -t"$tab" -k1,1 <<<"$tagged" | awk -f "$here/current.awk" |
			LC_ALL=C sort -s -t'|' -k2,2)
		echo "## Where each row stands"
		echo
		echo "Each row's latest measurement: the data files of one configuration of a family share a"
		echo "label (\`data/$cpu_slug/labels\`; a file not listed is its own), and a row run again"
		echo "later replaces its earlier figure there (by the runs' start). Every data file's rows,"
		echo "the earlier figures included, follow in the next section."
		echo
		echo "| label | rows | met | unresolved | NOT met | embperf spreads more (p <= 0.05) | embperf's spread the higher |"
		echo "|---|---|---|---|---|---|---|"
		verdict_counts 1 <<<"$current"
		echo
		echo "| label | row | reference | embperf | ratio [95 % interval] | spread ref / emb | band | verdict | data file, start (UTC) |"
		echo "|---|---|---|---|---|---|---|---|---|"
		echo "$current"
		echo
		echo "## Every data file"
		echo
		echo "| family | rows | met | unresolved | NOT met | embperf spreads more (p <= 0.05) | embperf's spread the higher |"
		echo "|---|---|---|---|---|---|---|"
		verdict_counts 0 <<<"$rows"
		echo
		echo "| family | row | reference | embperf | ratio [95 % interval] | spread ref / emb | band | verdict |"
		echo "|---|---|---|---|---|---|---|---|"
		echo "$rows"
		echo
		echo "## The rounds"
		for f in "$data"/*.tsv; do
			echo
			echo "### ${f##*/}"
			echo
			echo '```'
			grep '^#' "$f" | sed 's/^# //'
			echo '```'
		done
	} >"$page"
	echo "wrote $page"
}

if [ "$list" = 1 ]; then
	for f in "${all_fams[@]}"; do
		(
			. "$here/fam-$f.sh"
			printf '%-12s %s\n' "$f" "$(fam_describe)"
			fam_refs 2>&1 | sed 's/^/             /' || true
		)
	done
	exit 0
fi
if [ "$page_only" = 0 ]; then
	[ -x "$EMBPERF" ] || { echo "fidelity.sh: $EMBPERF is not built (-b BUILD)" >&2; exit 2; }
	for f in "${fams[@]}"; do
		rc=0
		run_family "$f" || rc=$?
		[ "$rc" = 0 ] || [ "$rc" = 4 ] || { echo "fidelity.sh: family $f stopped ($rc)" >&2; exit "$rc"; }
	done
fi
write_page
