#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_suite_include.sh - suites that include suites: the included entries
# run in place under their @prefix= (so one suite on two media gives rows of
# different names), an @include's key=value applies where a kernel has the
# key, "full:" key=value only with durations=full, ${name} and
# ${name:-default} take the command line's values; two rows of one name, an
# include loop, an @include key no entry has, a variable without a value and
# a layout directive in an included suite are refused naming the line. Tiny
# sizes and few repetitions: this checks the rows, not the figures.
#
# Run by meson as `test_suite_include.sh PATH-TO-embperf`. Prints TAP.

set -u
EMBPERF=${1:?usage: test_suite_include.sh PATH-TO-embperf}
T=$(mktemp -d "${TMPDIR:-/tmp}/test_suite_include.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/tap.sh"
mkdir "$T/sub"

cat >"$T/sub/inner.suite" <<'EOF'
@description inner
rd-{op}   mem.bw  op=rd size=16k repetitions=2 sample_time=1ms
lat       mem.lat size=${lsize:-16k} repetitions=2 sample_time=1ms
= lat-again lat
EOF
# The included file is named relative to the including file's folder.
cat >"$T/sub/outer.suite" <<'EOF'
@table ignored by `suite`
@include inner.suite @prefix=emmc/
@include inner.suite @prefix=sd/ repetitions=3 full:repetitions=4
-  mem.lat size=8k repetitions=1 sample_time=1ms
EOF

# csv_field FILE KEY COLUMN: a column (1-based) of the row whose key is KEY.
csv_field() { awk -F, -v k="$2" -v c="$3" '$2 == k { print $c; exit }' "$1"; }

(cd "$T" && "$EMBPERF" suite sub/outer.suite --format=csv >"$T/out" 2>"$T/err")
status=$?
keys=$(cut -d, -f2 "$T/out" | tail -n +2 | tr '\n' ' ')
want="emmc/rd-rd emmc/lat emmc/lat-again sd/rd-rd sd/lat sd/lat-again mem.lat/latency[size=8k] "
if [ $status -eq 0 ] && [ "$keys" = "$want" ]; then
	pass "included entries run in place under their prefixes, aliases too"
else
	fail "included entries run in place under their prefixes, aliases too" \
		"exit $status, keys: $keys" "wanted: $want" "$(head -c 300 "$T/err")"
fi
if [ "$(csv_field "$T/out" emmc/lat 9)" = 2 ] && [ "$(csv_field "$T/out" sd/lat 9)" = 3 ] &&
	[ "$(csv_field "$T/out" sd/lat 6)" = "size=16k" ]; then
	pass "an @include's key=value applies to its entries only; \${name:-default} takes the default"
else
	fail "an @include's key=value applies to its entries only" "$(cat "$T/out")"
fi

"$EMBPERF" suite "$T/sub/outer.suite" lsize=32k durations=full --format=csv >"$T/out" 2>"$T/err"
if [ "$(csv_field "$T/out" sd/lat 9)" = 4 ] && [ "$(csv_field "$T/out" emmc/lat 6)" = "size=32k" ]; then
	pass "durations=full applies full: key=value; \${lsize} takes lsize= from the command line"
else
	fail "durations=full applies full: key=value; \${lsize} takes lsize=" "$(cat "$T/out" "$T/err")"
fi

# expect_refusal NAME SUITE-TEXT STATUS PATTERN: the suite is refused, the message matches.
expect_refusal() {
	printf '%b' "$2" >"$T/sub/case.suite"
	"$EMBPERF" suite "$T/sub/case.suite" >"$T/out" 2>"$T/err"
	local got=$?
	if [ $got -eq "$3" ] && grep -qE "$4" "$T/err" && [ ! -s "$T/out" ]; then
		pass "$1"
	else
		fail "$1" "exit $got (wanted $3): $(cat "$T/err")"
	fi
}
expect_refusal "two rows of one name are refused naming both lines" \
	'@include inner.suite\n@include inner.suite\n' 4 \
	"inner.suite:3 \(@include at .*case.suite:2\): row name 'lat' is also the row name of .*inner.suite:3 \(@include at .*case.suite:1\)"
expect_refusal "memory and lmbench side by side need prefixes (their row names collide)" \
	'@include memory\n@include lmbench\n' 4 "row name 'bw_mem-bcopy-1mb' is also"
expect_refusal "a suite including itself is refused" '@include case.suite\n' 4 \
	"case.suite:1: @include case.suite: .*again \(a loop\)"
expect_refusal "an @include key no entry has is refused naming the line" \
	'x mem.lat size=8k\n@include inner.suite nosuch=1\n' 4 \
	"case.suite:2: @include inner.suite: parameter 'nosuch' is accepted by none"
expect_refusal "a variable without a value is refused naming the line" \
	'x mem.lat size=8k\ny mem.lat size=${zz}\n' 2 "case.suite:2: \\$\\{zz\\} has no value: give zz=VALUE"
expect_refusal "an included suite that does not exist is refused naming the line" \
	'x mem.lat size=8k\n@include no-such.suite\n' 4 "case.suite:2: @include no-such.suite: .*No such file"
printf '@table T\nx mem.lat size=8k\n' >"$T/sub/layout.suite"
expect_refusal "a layout directive in an included suite is refused" '@include layout.suite\n' 4 \
	"layout.suite:1: @table in an included suite"
expect_refusal "a @prefix with a template brace is refused" '@include inner.suite @prefix=a{b}\n' 4 \
	"case.suite:1: '@prefix=a\{b\}': expected one @prefix=TEXT"

echo "1..$checks"
[ $failures -eq 0 ] || { echo "# $failures of $checks checks failed"; exit 1; }
exit 0
