#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_storage_suite.sh - the built-in `storage` suite on a temporary
# folder: every entry runs (blk.fs on the folder's file system, blk.io's raw
# read on a file in it), the rows carry the guide's buffer sizes and both
# directions under the file system's name, and nothing is left in the
# folder. Small files (8 MiB) and one trial per row: this checks the rows,
# not the figures.
#
# Run by meson as `test_storage_suite.sh PATH-TO-embperf`. Prints TAP;
# exits 1 when a check fails.

set -u

EMBPERF=${1:?usage: test_storage_suite.sh PATH-TO-embperf}
T=$(mktemp -d "${TMPDIR:-/tmp}/test_storage_suite.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/fs"

. "$(dirname "$0")/tap.sh"

"$EMBPERF" suite storage folder="$T/fs" target="$T/fs" size=8M repetitions=1 \
	--format=csv >"$T/out" 2>"$T/err"
status=$?
if [ "$status" -eq 0 ]; then
	pass "embperf suite storage folder=DIR target=DIR runs every entry"
else
	fail "embperf suite storage folder=DIR target=DIR runs every entry" \
		"exit $status: $(head -c 400 "$T/err")"
fi

fstype=$(awk -F, 'NR == 2 { split($6, l, " "); sub("fs=", "", l[2]); print l[2] }' "$T/out")
if [ -n "$fstype" ] && [ "$fstype" = "$(findmnt -n -o FSTYPE --target "$T/fs" 2>/dev/null || echo "$fstype")" ]; then
	pass "rows are named after the file system's type ($fstype)"
else
	fail "rows are named after the file system's type" "got '$fstype'"
fi

missing=""
for bs in 102400 262144 524288 1048576 5242880 4k 256k 1m 4m; do
	for op in write read; do
		grep -q "^$op-$fstype-$bs-throughput,.*,MB/s," "$T/out" || missing="$missing $op-$fstype-$bs-throughput"
	done
done
# A trial shorter than a /proc/stat tick has no CPU load: only some rows need one.
grep -q "^raw-read-50mb-bandwidth,.*,MB/s," "$T/out" || missing="$missing raw-read-50mb-bandwidth"
grep -qE "^(write|read)-$fstype-[0-9a-z]+-cpu_system,.*,%," "$T/out" || missing="$missing any cpu_system row"
if [ -z "$missing" ]; then
	pass "every buffer size of the guide, both directions, MB/s (and CPU load); the raw read"
else
	fail "every buffer size of the guide, both directions, MB/s (and CPU load); the raw read" \
		"missing:$missing"
fi

left=$(ls -A "$T/fs")
if [ -z "$left" ]; then
	pass "nothing is left in the folder"
else
	fail "nothing is left in the folder" "$left"
fi

"$EMBPERF" suite storage size=4M repetitions=1 >"$T/out" 2>"$T/err"
status=$?
if [ "$status" -ne 0 ] && grep -q "parameter 'folder' is empty" "$T/err"; then
	pass "without folder= the entries fail naming 'folder'"
else
	fail "without folder= the entries fail naming 'folder'" "exit $status: $(head -c 300 "$T/err")"
fi

echo "1..$checks"
if [ $failures -ne 0 ]; then
	echo "# $failures of $checks checks failed"
	exit 1
fi
exit 0
