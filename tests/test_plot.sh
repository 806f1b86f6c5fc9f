#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_plot.sh - `embperf plot` and `--plot`: the SVG drawn from a report's
# trial logs parses as XML, has one marker per trial whose colour and pass
# flag are the log's, a line at the value found, and a loss curve; a report
# without trial logs, a bad report, an unwritable file and misused options
# are refused with a message, and nothing is written.
#
# No kernel runs a search yet, so the report is tests/data/report-v2-search.json
# (format version 2, as doc/report-format.md describes it), loaded by the
# command through the library like any saved report.
#
# Run by meson as `test_plot.sh PATH-TO-EMBPERF` with EMBPERF_SRCDIR set.
# Prints TAP; exits 1 when a check fails.

set -u

EMBPERF=${1:?usage: test_plot.sh PATH-TO-EMBPERF}
SRCDIR=${EMBPERF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
DATA=$SRCDIR/tests/data
T=$(mktemp -d "${TMPDIR:-/tmp}/test_plot.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
status=0

. "$(dirname "$0")/tap.sh"

tap_fail_extra() {
	echo "# stderr: $(head -c 600 "$T/err")"
}

ep() {
	"$EMBPERF" "$@" >"$T/out" 2>"$T/err"
	status=$?
}

expect_error() {
	if [ "$status" -eq "$2" ] && grep -Eq -- "$3" "$T/err"; then
		pass "$1"
	else
		fail "$1" "exit code $status (expected $2), stderr should match /$3/"
	fi
}

# check_svg NAME SVG REPORT: the picture against the report's trial logs.
check_svg() {
	local msg

	if msg=$(python3 - "$2" "$3" 2>&1 <<'EOF'
import json, sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
PASS, FAIL = "#1a9850", "#d73027"
svg = ET.parse(sys.argv[1]).getroot()          # raises on malformed XML
report = json.load(open(sys.argv[2]))
logs = [r for r in report["results"] if "trials" in r]
groups = [g for g in svg.iter(NS + "g") if g.get("class") == "result"]
assert svg.tag == NS + "svg", svg.tag
assert len(groups) == len(logs), f"{len(groups)} result groups for {len(logs)} trial logs"
for g, r in zip(groups, logs):
    rows = r["trials"]["rows"]
    assert g.get("data-key") == r["title"], (g.get("data-key"), r["title"])
    marks = [c for c in g.iter(NS + "circle") if "trial" in c.get("class", "").split()]
    assert len(marks) == len(rows), f"{r['title']}: {len(marks)} markers for {len(rows)} trials"
    for i, (m, row) in enumerate(zip(marks, rows)):
        want = PASS if row["pass"] else FAIL
        assert m.get("fill") == want, f"{r['title']} trial {i + 1}: fill {m.get('fill')}, pass {row['pass']}"
        assert m.get("data-pass") == ("1" if row["pass"] else "0")
        assert int(m.get("data-trial")) == i + 1
        assert float(m.get("data-config")) == row["config"]
    # markers go up the picture as the configuration rises (SVG y grows downwards)
    ys = [float(m.get("cy")) for m in marks]
    for a in range(len(rows)):
        for b in range(len(rows)):
            if rows[a]["config"] > rows[b]["config"]:
                assert ys[a] < ys[b], f"{r['title']}: trial {a + 1} drawn below trial {b + 1}"
    found = [l for l in g.iter(NS + "line") if l.get("class") == "found"]
    assert len(found) == 1 and float(found[0].get("data-value")) == r["value"], "found line"
    curve = [p for p in g.iter(NS + "polyline") if p.get("class") == "curve"]
    points = [c for c in g.iter(NS + "circle") if "point" in c.get("class", "").split()]
    assert len(curve) == 1, f"{r['title']}: no loss curve"
    assert len(points) == len(rows), f"{r['title']}: {len(points)} curve points"
    cfg = [float(p.get("data-config")) for p in points]
    assert cfg == sorted(cfg), "curve points ordered by configuration"
EOF
	); then
		pass "$1"
	else
		fail "$1" "$msg"
	fi
}

if ! command -v python3 >/dev/null; then
	skip "SVG checks" "python3 is not installed"
	echo "1..$checks"
	exit 0
fi

# --- a report with trial logs -------------------------------------------------
ep plot "$DATA/report-v2-search.json" -o "$T/search.svg"
if [ "$status" -eq 0 ] && [ -s "$T/search.svg" ]; then
	pass "plot REPORT.json -o FILE.svg writes the file"
else
	fail "plot REPORT.json -o FILE.svg writes the file" "exit code $status"
fi
check_svg "the SVG parses; one marker per trial, colours and order as the log" \
	"$T/search.svg" "$DATA/report-v2-search.json"
if grep -q "wrote a plot of 2 searches to $T/search.svg" "$T/err"; then
	pass "a note says what was written"
else
	fail "a note says what was written"
fi

ep plot "$DATA/report-v2-search.json"
cp "$T/out" "$T/stdout.svg"
check_svg "without -o the SVG goes to stdout" "$T/stdout.svg" "$DATA/report-v2-search.json"

# --- bad input: nothing is written --------------------------------------------
ep plot "$DATA/report-v1-run.json" -o "$T/none.svg"
expect_error "a report without trial logs is refused (exit 4)" 4 \
	'report-v1-run.json: no trial log in its 1 result.*nothing written'
if [ ! -e "$T/none.svg" ] && [ -z "$(ls "$T" | grep -v -e '^out$' -e '^err$' -e '\.svg$')" ]; then
	pass "...and writes nothing (no file, no temporary)"
else
	fail "...and writes nothing (no file, no temporary)" "$(ls "$T")"
fi

echo '{"format": "embperf-report", "format_version": 2, "results": [' >"$T/cut.json"
ep plot "$T/cut.json" -o "$T/cut.svg"
expect_error "a truncated report is refused (exit 4), naming the file" 4 'cut.json'
[ ! -e "$T/cut.svg" ] && pass "...and writes nothing" || fail "...and writes nothing"

ep plot "$T/missing.json"
expect_error "a missing report is refused (exit 4)" 4 'missing.json'

ep plot "$DATA/report-v2-search.json" -o "$T/no/such/dir/x.svg"
expect_error "an unwritable FILE is refused (exit 4), naming it" 4 'no/such/dir/x.svg'

ep plot
expect_error "plot without a report is a usage error" 2 'plot needs one file'
ep plot "$DATA/report-v2-search.json" --format=json
expect_error "--format does not apply to plot" 2 '--format does not apply to `plot`'
ep list --plot "$T/list.svg"
expect_error "--plot does not apply to list" 2 '--plot does not apply to `list`'

# --- run --plot on a kernel without a search ----------------------------------
ep run cpu.ops type=int repetitions=3 --plot "$T/run.svg"
expect_error "run --plot without a search says so (exit 4)" 4 \
	'--plot: the run: no trial log'
if [ ! -e "$T/run.svg" ] && grep -q . "$T/out"; then
	pass "...the results are still printed and no SVG is written"
else
	fail "...the results are still printed and no SVG is written"
fi

echo "1..$checks"
[ "$failures" -eq 0 ]
