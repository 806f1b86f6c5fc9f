#!/bin/bash
# SPDX-License-Identifier: MIT
# .ci/summary.sh - sourced by .ci/test.sh (and tests/test_ci_summary.sh):
# the few lines of a failed job's log that say why it failed, repeated at
# the end of a CI run, where a reader of a long log (or a CI record that
# keeps only its tail) looks first. A landing CI once failed with only
# "FAILED: gcc" in the part of its output on record: the job's log had been
# printed first.

# summarize_failure NAME STATUS LOG - the job's name and status, its last
# step heading, the tests meson counted as FAIL, TIMEOUT or ERROR (15 at
# most), its failed-subtests block (50 lines at most) and the log's last 30
# lines: about 100 lines whatever the log holds. Returns 0 under errexit
# and pipefail, whether or not any of these is in the log.
summarize_failure() {
	local name=$1 status=$2 log=$3
	echo
	echo "=== job $name failed (status $status); from its log $log:"
	grep '^=== ' "$log" | tail -n 1 || true
	grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|ERROR) ' "$log" | head -n 15 || true
	# || true: head ends the pipe early, and pipefail would end the run
	sed -n '/^--- failed subtests/,$p' "$log" | head -n 50 || true
	echo "--- the last lines of its log"
	tail -n 30 "$log"
}
