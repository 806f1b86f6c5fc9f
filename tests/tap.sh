# SPDX-License-Identifier: MIT
# tap.sh - the TAP reporting the shell tests share; sourced, not run.
# Counts in $checks and $failures. A test that wants more lines after a
# failure (the command's output) defines tap_fail_extra().

checks=0
failures=0

pass() {
	checks=$((checks + 1))
	echo "ok $checks - $1"
}

# fail NAME [DETAIL...]: one "not ok" line, then each DETAIL as a comment.
fail() {
	checks=$((checks + 1))
	failures=$((failures + 1))
	echo "not ok $checks - $1"
	shift
	for line in "$@"; do echo "# $line"; done
	if declare -F tap_fail_extra >/dev/null; then
		tap_fail_extra
	fi
}

skip() {
	checks=$((checks + 1))
	echo "ok $checks - $1 # SKIP $2"
}
