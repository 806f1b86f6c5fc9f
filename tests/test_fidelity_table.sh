#!/bin/bash
# SPDX-License-Identifier: MIT
# test_fidelity_table.sh - the fidelity harness's verdicts
# (bench/fidelity/table.awk) on made-up rounds whose answers are known:
# a median in the band is met; outside it, NOT met when the 95 % interval
# is outside too (or there is none, below 6 rounds), unresolved when the
# interval reaches into the band; fewer than 5 pairs give no verdict; a
# reference that truncates its figure (REGEX=LO:HI:Q) leaves unresolved
# what its truncation could hide, and no more. A row out of its band whose
# cause the family names (causes=REGEX=TEXT) says it after the verdict, and
# only such a row, and only in the run (data file) it was measured in. A
# row whose reference is a fixed figure (fixed=REGEX) has no spread to
# compare, and a measured one's only when embperf's rounds deviate from
# their median more than the reference's round after round (a paired
# randomization test), not for one outlying round. Every family's causes
# split as table.awk splits them, those read from each data file too. The
# fio family names the buffer's layout as the cause of a case where the
# layouts its data file keeps give fio clearly fewer runs, and only there.
# Every family defines the interface fidelity.sh calls, and every
# older compare-*.sh prints the harness's paired table.
# And the pages: one per CPU model, named with its family and model numbers.
# Usage: test_fidelity_table.sh SRCDIR
src=${1:?usage: test_fidelity_table.sh SRCDIR}
. "$(dirname "$0")/tap.sh"
awkf=$src/bench/fidelity/table.awk
echo "1..23"

# rows KEY RATIO... - one round per ratio: reference 100, embperf 100 x RATIO.
rows() {
	local key=$1 r=0 x
	shift
	for x in "$@"; do
		r=$((r + 1))
		echo "$r $key reference 100"
		echo "$r $key embperf $(awk -v x="$x" 'BEGIN { print 100 * x }')"
	done
}

# verdict_of KEY RATIO... - the verdict table.awk gives that row, without
# its spread flag (the reference's rounds here do not move).
verdict_of() {
	rows "$@" | awk -f "$awkf" -v fam=t -v bands=".*=0.95:1.05" -v md=1 |
		awk -F' [|] ' '{ v = $8; sub(/ [|]$/, "", v); sub(/ \/ spread.*$/, "", v); print v }'
}

check() { # NAME WANT KEY RATIO...
	local name=$1 want=$2 got
	shift 2
	got=$(verdict_of "$@")
	if [ "$got" = "$want" ]; then pass "$name: $want"; else fail "$name" "want '$want', got '$got'"; fi
}

check "inside the band" "met" a 1.00 1.01 0.99 1.02 0.98 1.00 1.01
check "far outside, tight rounds" "NOT met" b 1.20 1.21 1.19 1.22 1.20 1.18 1.21
check "outside, interval reaching in" "unresolved" c 1.10 1.20 0.90 1.08 1.30 0.97 1.12
check "below the band, interval reaching in" "unresolved" d 0.90 0.80 1.00 0.92 0.70 0.99 0.91
check "5 rounds outside: no interval" "NOT met" e 1.10 1.20 0.90 1.08 1.30
check "4 rounds" "too few rounds" f 1.00 1.00 1.00 1.00
# The interval of 7 pairs is ranks 1 and 7: the extremes.
row=$(rows g 1.10 1.20 0.90 1.08 1.30 0.97 1.12 | awk -f "$awkf" -v fam=t -v bands=".*=0.95:1.05" -v md=1)
case $row in
*"1.100 [0.900, 1.300]"*) pass "7 pairs: the median and ranks 1 and 7" ;;
*) fail "7 pairs: the median and ranks 1 and 7" "row: $row" ;;
esac
row=$(rows h 1.00 1.00 1.00 1.00 1.00 1.00 1.00 | awk -f "$awkf" -v fam=t -v bands=".*=0.95:1.05" -v md=1)
case $row in
*"| met |") pass "equal rounds: met, no spread flag" ;;
*) fail "equal rounds: met, no spread flag" "row: $row" ;;
esac

# A reference that prints whole units (ping's whole microseconds): 2 printed
# means [2, 3). embperf's 2.45 in every round is inside that span (ratios
# 0.82 to 1.22 reach the band); 3.5 is not (1.17 at least), and stays NOT met.
truncated() { # EMBPERF_VALUE
	local r
	for r in 1 2 3 4 5 6 7; do
		echo "$r k reference 2"
		echo "$r k embperf $1"
	done | awk -f "$awkf" -v fam=t -v bands=".*=0.90:1.10:1" -v md=1 |
		awk -F' [|] ' '{ v = $8; sub(/ [|]$/, "", v); print v }'
}
got=$(truncated 2.45)
if [ "$got" = "unresolved: the reference truncates to 1" ]; then
	pass "inside the reference's truncation: unresolved, saying why"
else
	fail "inside the reference's truncation: unresolved, saying why" "got '$got'"
fi
got=$(truncated 3.5)
if [ "$got" = "NOT met" ]; then pass "beyond the reference's truncation: NOT met"; else
	fail "beyond the reference's truncation: NOT met" "got '$got'"; fi

# A named cause follows a verdict out of the band, never a met one.
caused() { # RATIO...
	rows seqread-MB/s "$@" | awk -f "$awkf" -v fam=t -v bands=".*=0.95:1.05" \
		-v causes="^seq=the buffer's layout;.*=wrong" -v md=1 |
		awk -F' [|] ' '{ v = $8; sub(/ [|]$/, "", v); sub(/ \/ spread.*$/, "", v); print v }'
}
got=$(caused 0.70 0.71 0.69 0.72 0.70 0.68 0.71)
if [ "$got" = "NOT met, cause: the buffer's layout" ]; then pass "NOT met with its cause named"; else
	fail "NOT met with its cause named" "got '$got'"; fi
got=$(caused 1.00 1.01 0.99 1.02 0.98 1.00 1.01)
if [ "$got" = "met" ]; then pass "a met row names no cause"; else
	fail "a met row names no cause" "got '$got'"; fi

# A page made from another model's data files takes its name and title from
# them (fidelity.sh --page --cpu SLUG), never from this machine's CPU.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/data/acme-f7-m9"
{
	echo "# family: stream"
	echo "# cpu: ACME One (family 7, model 9); kernel 1.0; 2 CPUs"
	rows copy 1.00 1.01 0.99 1.02 0.98 1.00 1.01
} >"$tmp/data/acme-f7-m9/stream.tsv"
bash "$src/bench/fidelity/fidelity.sh" --page -o "$tmp" --cpu acme-f7-m9 >/dev/null 2>&1
title=$(sed -n 2p "$tmp/acme-f7-m9.md" 2>/dev/null)
if [ "$title" = "# Fidelity on ACME One (family 7, model 9)" ] &&
	grep -q '^| stream | 1 | 1 | 0 | 0 |' "$tmp/acme-f7-m9.md"; then
	pass "another model's page: its title and counts from its data files"
else
	fail "another model's page: its title and counts from its data files" "title: '$title'"
fi
if bash "$src/bench/fidelity/fidelity.sh" --page -o "$tmp" --cpu nothing-here 2>"$tmp/err"; then
	fail "--cpu with no data is refused" "exit 0"
elif grep -q "no data files in" "$tmp/err"; then
	pass "--cpu with no data is refused, naming the folder"
else
	fail "--cpu with no data is refused, naming the folder" "$(cat "$tmp/err")"
fi
# A cause measured in one run (fam-fio.sh: data file fio started 2026-12-05
# 15:39 on amd-epyc-f26-m2) is named on that run's rows, not on another run
# of the family, nor on a later run written to the same file.
mkdir -p "$tmp/data/amd-epyc-f26-m2"
fio_run() { # FILE STARTED
	{
		echo "# family: fio"
		echo "# cpu: AMD EPYC (family 26, model 2); kernel 1.0; 2 CPUs"
		echo "# protocol: 7 rounds interleaved (odd: reference first), PIN_CPU=1; $2 UTC"
		rows seqread-MB/s 0.70 0.71 0.69 0.72 0.70 0.68 0.71
	} >"$tmp/data/amd-epyc-f26-m2/$1.tsv"
}
page_row() { # FILE: its seqread row on the page
	bash "$src/bench/fidelity/fidelity.sh" --page -o "$tmp" --cpu amd-epyc-f26-m2 >/dev/null 2>&1
	grep "^| $1 | seqread-MB/s " "$tmp/amd-epyc-f26-m2.md" 2>/dev/null
}
fio_run fio "2026-12-05 15:39"
fio_run fio-later "2026-12-05 15:39"
first=$(page_row fio)
later=$(page_row fio-later)
fio_run fio "2026-12-07 10:00"
again=$(page_row fio)
if [[ $first == *"NOT met, cause: "* ]] && [ -n "$later" ] && [[ $later != *cause* ]] &&
	[ -n "$again" ] && [[ $again != *cause* ]]; then
	pass "a cause measured in one run is named in that run's rows only"
else
	fail "a cause measured in one run is named in that run's rows only" \
		"fio: '$first'" "fio-later: '$later'" "fio written again: '$again'"
fi
# A fixed reference (the shaper's rate) has no spread: embperf's rounds
# moving 10 % flag a measured reference's row, not a fixed one's.
spread_row() { # FIXED_REGEX
	local r
	for r in 1 2 3 4 5 6 7; do
		echo "$r 1518-fps reference 4128.1"
		echo "$r 1518-fps embperf $(awk -v r="$r" 'BEGIN { print 4128.1 * (0.95 + r / 70) }')"
	done | awk -f "$awkf" -v fam=t -v bands=".*=0.90:1.10" -v fixed="$1" -v md=1
}
fixed_row=$(spread_row '.*')
measured_row=$(spread_row '')
if [[ $fixed_row == *"| fixed / "*"| met |" ]] && [[ $measured_row == *"| 0.0 % / "*"| met / spread (p 0.016) |" ]]; then
	pass "a fixed reference's row compares no spread; a measured one's does"
else
	fail "a fixed reference's row compares no spread; a measured one's does" 		"fixed: '$fixed_row'" "measured: '$measured_row'"
fi
# Where each row stands: of the data files that share a label, a row's
# latest run by start (not by name) gives its line, naming its file; a file
# no label names is its own label; the counts add up.
mkdir -p "$tmp/data/acme-f7-m8"
stream_run() { # FILE STARTED RATIO...
	local f=$1 started=$2
	shift 2
	{
		echo "# family: stream"
		echo "# cpu: ACME One (family 7, model 8); kernel 1.0; 2 CPUs"
		echo "# protocol: 6 rounds interleaved (odd: reference first), PIN_CPU=1; $started UTC"
		rows copy "$@"
	} >"$tmp/data/acme-f7-m8/$f.tsv"
}
stream_run a-later "2026-12-07 10:00" 1.00 1.01 0.99 1.02 0.98 1.00
stream_run z-first "2026-12-05 09:00" 1.20 1.21 1.19 1.22 1.20 1.18
stream_run own "2026-12-06 09:00" 1.20 1.21 1.19 1.22 1.20 1.18
printf '# NAME LABEL\na-later stream\nz-first stream\n' >"$tmp/data/acme-f7-m8/labels"
bash "$src/bench/fidelity/fidelity.sh" --page -o "$tmp" --cpu acme-f7-m8 >/dev/null 2>&1
standing=$(sed -n '/^## Where each row stands/,/^## Every data file/p' "$tmp/acme-f7-m8.md" 2>/dev/null)
if [ "$(grep -c '^| stream | copy |' <<<"$standing")" = 1 ] &&
	grep -q '^| stream | copy | .* | met | a-later, 2026-12-07 10:00 |$' <<<"$standing" &&
	grep -q '^| own | copy | .* | NOT met | own, 2026-12-06 09:00 |$' <<<"$standing" &&
	grep -q '^| \*\*all\*\* | 2 | 1 | 0 | 1 |' <<<"$standing" &&
	grep -q '^| z-first | copy | .* | NOT met |$' "$tmp/acme-f7-m8.md"; then
	pass "where each row stands: a label's latest run by start, each file's rows kept below"
else
	fail "where each row stands: a label's latest run by start, each file's rows kept below" \
		"$(head -c 1500 <<<"$standing")"
fi
# Every family file defines what fidelity.sh calls (a family missing one
# would stop the harness mid-run), and the audio and RFC 2544 families are there.
missing=
for f in "$src"/bench/fidelity/fam-*.sh; do
	for fn in fam_describe fam_refs fam_setup fam_round fam_bands; do # fam_cleanup: optional
		(here=$src/bench/fidelity; . "$f"; declare -F "$fn" >/dev/null) ||
			missing="$missing ${f##*/}:$fn"
	done
done
for fam in audio rfc2544; do
	[ -f "$src/bench/fidelity/fam-$fam.sh" ] || missing="$missing fam-$fam.sh"
done
if [ -z "$missing" ]; then pass "every family defines the functions the harness needs; audio and rfc2544 exist"; else
	fail "every family defines the functions the harness needs; audio and rfc2544 exist" "missing:$missing"; fi
# Every family's causes, on every CPU model with data, read as table.awk
# splits them: ';' between entries, one '=' between a row's REGEX and its
# text (a text holding either would lose its tail, or the cause), and a
# markdown link's brackets closed.
# bad_causes CAUSES - the entries table.awk would misread, each after a space.
bad_causes() {
	awk -v c="$1" 'BEGIN { n = split(c, e, ";")
		for (i = 1; i <= n; i++) {
			t = e[i]; o = gsub(/\[/, "[", t); k = gsub(/\]/, "]", t)
			if (split(e[i], kv, "=") != 2 || o != k) printf " %s", e[i]
		} }'
}
badcause=
for f in "$src"/bench/fidelity/fam-*.sh; do
	for d in "$src"/doc/fidelity/data/*/; do
		c=$(here=$src/bench/fidelity; cpu_slug=$(basename "$d"); . "$f"
			declare -F fam_causes >/dev/null && fam_causes)
		[ -n "$c" ] || continue
		bad=$(bad_causes "$c")
		[ -z "$bad" ] || badcause="$badcause ${f##*/}@$(basename "$d"):$bad"
	done
done
for t in "$src"/doc/fidelity/data/*/*.tsv; do
	fam=$(sed -n 's/^# family: //p' "$t" | head -1)
	f=$src/bench/fidelity/fam-$fam.sh
	[ -f "$f" ] || continue
	c=$(here=$src/bench/fidelity; data=$(dirname "$t"); cpu_slug=$(basename "$data")
		data_name=$(basename "$t" .tsv)
		data_started=$(sed -n 's/^# protocol: .*; \(.*\) UTC$/\1/p' "$t" | head -1)
		. "$f"; declare -F fam_causes >/dev/null && fam_causes)
	[ -n "$c" ] || continue
	bad=$(bad_causes "$c")
	[ -z "$bad" ] || badcause="$badcause ${t#"$src"/doc/fidelity/data/}:$bad"
done
if [ -z "$badcause" ]; then pass "every family's causes split into REGEX=TEXT entries as table.awk reads them"; else
	fail "every family's causes split into REGEX=TEXT entries as table.awk reads them" "$badcause"; fi
# The older comparisons share the harness's output: each ends with the
# paired table of paired-ratios.awk (directly or through paired.sh).
alone=
for f in "$src"/bench/fidelity/compare-*.sh; do
	grep -q 'paired_table\|paired-ratios.awk' "$f" || alone="$alone ${f##*/}"
done
if [ -z "$alone" ]; then pass "every compare-*.sh prints the paired table"; else
	fail "every compare-*.sh prints the paired table" "without it:$alone"; fi
# Spread: two tools that vary alike flag nothing, even where one outlying
# round puts embperf's spread above the reference's; embperf deviating
# more than the reference in every round is flagged, with its p.
spread_case() { # REF... -- EMB...
	local r=0 x refs=() embs=()
	while [ "$1" != -- ]; do refs+=("$1"); shift; done
	shift
	embs=("$@")
	for x in "${refs[@]}"; do
		r=$((r + 1))
		echo "$r k reference $x"
		echo "$r k embperf ${embs[r - 1]}"
	done | awk -f "$awkf" -v fam=t -v bands=".*=0.80:1.20" -v md=1
}
alike=$(spread_case 100 104 97 102 99 101 -- 101 98 103 100 96 102)
outlier=$(spread_case 100 104 97 102 99 101 -- 101 99 100 102 100 125)
steady=$(spread_case 100 101 99 100.5 99.5 100.2 -- 100.3 110 90 108 92 101)
if [[ $alike == *"| met |" ]] && [[ $outlier == *"| met |" ]] &&
	[[ $steady == *"| met / spread (p 0.0"[0-4]*") |" ]]; then
	pass "spread: flagged when embperf deviates more round after round, not by chance"
else
	fail "spread: flagged when embperf deviates more round after round, not by chance" \
		"alike: '$alike'" "outlier: '$outlier'" "steady: '$steady'"
fi
# The fio family's layout causes: seqread's blocks in 31 to 35 runs on fio's
# side in rounds 1-5 (fio at twice blk.io's MB/s) and 250 in rounds 6-7
# (blk.io at 1.00 and 1.10 of fio), 256 on blk.io's: named, with the alike
# rounds' median ratio 1.050; zseq's in 100 and 256 and no MB/s: named,
# without alike rounds; one ';' between; seqwrite's in 250 and 256 and the
# others' alike: not named.
layouts=$(mktemp)
for r in 1 2 3 4 5 6 7; do
	if [ "$r" -le 5 ]; then
		echo "# layout: round $r seqread reference $((30 + r)) runs, fio and its libraries 1.0 of 80.0 MiB in the page cache at its start"
		echo "$r seqread-MB/s reference 2000"
		echo "$r seqread-MB/s embperf 1000"
	else
		echo "# layout: round $r seqread reference 250 runs"
		echo "$r seqread-MB/s reference 1000"
		echo "$r seqread-MB/s embperf $((r == 6 ? 1000 : 1100))"
	fi
	echo "# layout: round $r seqread embperf 256 runs"
	echo "# layout: round $r seqwrite reference 250 runs"
	echo "# layout: round $r seqwrite embperf 256 runs"
	for k in aseq n1 n2 n3 n4 n5 n6; do # alike: awk's order mixes them among the others
		echo "# layout: round $r $k reference 250 runs"
		echo "# layout: round $r $k embperf 250 runs"
	done
	echo "# layout: round $r zseq reference 100 runs"
	echo "# layout: round $r zseq embperf 256 runs"
done >"$layouts"
lc=$(here=$src/bench/fidelity; . "$src/bench/fidelity/fam-fio.sh"; layout_causes "$layouts")
none=$(here=$src/bench/fidelity; . "$src/bench/fidelity/fam-fio.sh"; layout_causes /nonexistent)
rm -f "$layouts"
if [[ $lc == *"^seqread-=["*"medians 34 and 256, in the 2 rounds with alike layouts MB/s 1.050 of fio at the median]("*")"* ]] &&
	[[ $lc == *"^zseq-=["*"medians 100 and 256, no round with alike layouts]("*")"* ]] &&
	[[ $lc != *seqwrite* && $lc != *aseq* && $lc != *n[1-6]-* ]] && [[ $lc != ";"* && $lc != *";" && $lc != *";;"* ]] &&
	[ "$(echo "$lc" | tr ';' '\n' | wc -l)" = 2 ] && [ -z "$none" ]; then
	pass "fio family: the layout is a case's cause where fio's blocks lay in clearly fewer runs, and only there"
else
	fail "fio family: the layout is a case's cause where fio's blocks lay in clearly fewer runs, and only there" \
		"got: '$lc'" "without a file: '$none'"
fi
# A family whose setup refuses its settings stops the harness there, naming
# the setting, before it writes anything: FIO_CACHE takes keep, evict or warm.
if command -v fio >/dev/null && command -v python3 >/dev/null; then
	fake=$(mktemp -d)
	mkdir -p "$fake/bench"
	printf '#!/bin/sh\nexit 1\n' >"$fake/bench/embperf" # never run: the setup refuses first
	chmod +x "$fake/bench/embperf"
	msg=$(FIO_CACHE=sometimes FIO_DIR=$fake bash "$src/bench/fidelity/fidelity.sh" -b "$fake" -o "$fake/out" -r 1 fio 2>&1)
	rc=$?
	if [ "$rc" = 5 ] && [[ $msg == *"FIO_CACHE='sometimes'; accepted: keep, evict, warm"* ]] &&
		[ ! -e "$fake/fidelity-fio.dat" ] && [ -z "$(find "$fake/out" -name '*.tsv' 2>/dev/null)" ]; then
		pass "a family's refused setting stops the harness, named, before anything is written"
	else
		fail "a family's refused setting stops the harness, named, before anything is written" "rc $rc" "${msg//$'\n'/ | }"
	fi
	rm -rf "$fake"
else
	skip "a family's refused setting stops the harness, named, before anything is written" "fio or python3 not installed"
fi
[ "$failures" -eq 0 ]
