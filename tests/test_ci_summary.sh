#!/bin/bash
# SPDX-License-Identifier: MIT
# test_ci_summary.sh - .ci/summary.sh's summarize_failure on made-up job
# logs whose lines are known, run as .ci/test.sh runs it (errexit, nounset,
# pipefail):
#   - a failed test job: the job's name and status, its last step heading
#     (not an earlier one), meson's FAIL and TIMEOUT lines (not its OK
#     lines), the failed-subtests block and the log's last line;
#   - a failed-subtests block of 5000 lines: cut to 50, the whole summary
#     about 100 lines, and the function returns 0 (an early "head" must not
#     end the run under pipefail);
#   - a build that failed before any test: no test lines, the compiler's
#     error in the last lines, status 0.
# Usage: test_ci_summary.sh SRCDIR
src=${1:?usage: test_ci_summary.sh SRCDIR}
. "$(dirname "$0")/tap.sh"
echo "1..3"

# After a failure, the summary it judged, as TAP comments.
tap_fail_extra() { sed 's/^/# /' <<<"$out"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# summarize NAME STATUS LOG - the summary as .ci/test.sh makes it; sets rc
# and out.
summarize() {
	out=$(set -euo pipefail; . "$src/.ci/summary.sh"; summarize_failure "$@"; echo "returned")
	rc=$?
}

{
	echo "=== gcc build, -Werror"
	echo "[1/200] Compiling C object lib/core/engine.c.o"
	echo "=== tests"
	echo " 1/66 test_engine                      OK              2.10s"
	echo " 2/66 test_os_ipc                      FAIL            3.25s   exit status 1"
	echo " 3/66 test_net_udp                     TIMEOUT        60.01s   killed by signal 15 SIGTERM"
	echo " 4/66 test_cli                         OK              0.40s"
	echo "--- failed subtests (build-ci/gcc/meson-logs/testlog.txt)"
	echo "not ok 7 - os_ipc::tcp_connect_backlog_is_a_labelled_parameter"
	echo "# test_os_ipc.c:412: expected -34, got 0"
	# more than the 30 lines of the tail: what is found above must come
	# from the searches, not from the tail
	for i in $(seq 1 40); do echo "a line of the failed test's output, $i"; done
	echo "the last line of the job"
} >"$tmp/tests.log"
summarize gcc 1 "$tmp/tests.log"
missing=
# Above the log's tail: the last heading, the failed tests and subtests,
# no test that passed, no earlier heading.
head_part=$(sed -n '/--- the last lines/q;p' <<<"$out")
for want in "=== job gcc failed (status 1); from its log $tmp/tests.log:" \
	"=== tests" "test_os_ipc                      FAIL" "test_net_udp                     TIMEOUT" \
	"--- failed subtests" "not ok 7 - os_ipc::tcp_connect_backlog" "expected -34, got 0"; do
	grep -qF -- "$want" <<<"$head_part" || missing="$missing [$want]"
done
for want in "the last line of the job" "returned"; do
	grep -qF -- "$want" <<<"$out" || missing="$missing [$want]"
done
grep -q "=== gcc build" <<<"$head_part" && missing="$missing [an earlier step heading]"
grep -q " OK " <<<"$head_part" && missing="$missing [a test that passed]"
if [ "$rc" = 0 ] && [ -z "$missing" ]; then
	pass "a failed test job: its step, the failed and timed-out tests, the subtests, the last line"
else
	fail "a failed test job's summary" "rc=$rc, wrong:$missing"
fi

{
	echo "=== tests under AddressSanitizer and UndefinedBehaviorSanitizer"
	echo " 9/66 test_mem_stream                  FAIL            1.00s   exit status 1"
	echo "--- failed subtests (build-ci/asan/meson-logs/testlog.txt)"
	for i in $(seq 1 5000); do echo "not ok $i - subtest $i"; done
} >"$tmp/long.log"
summarize asan 1 "$tmp/long.log"
lines=$(wc -l <<<"$out")
if [ "$rc" = 0 ] && grep -q "^returned$" <<<"$out" && [ "$lines" -le 110 ] &&
	grep -q "^not ok 49 - subtest 49$" <<<"$out" && ! grep -q "^not ok 60 - " <<<"$out" &&
	grep -q "^not ok 5000 - subtest 5000$" <<<"$out"; then
	pass "5000 failed subtests: $lines lines (the block's first 49 and the log's last 30), status 0"
else
	fail "a long failed-subtests block" "rc=$rc, $lines lines"
fi

{
	echo "=== clang build, -Werror"
	echo "../lib/core/run.c:88:9: error: unused variable 'n' [-Werror,-Wunused-variable]"
	echo "ninja: build stopped: subcommand failed."
} >"$tmp/build.log"
summarize clang 2 "$tmp/build.log"
if [ "$rc" = 0 ] && grep -q "^=== job clang failed (status 2)" <<<"$out" &&
	grep -q "error: unused variable 'n'" <<<"$out" && ! grep -q -- "--- failed subtests" <<<"$out" &&
	[ "$(grep -c '=== clang build' <<<"$out")" = 2 ]; then
	pass "a failed build: its heading and the compiler's error, no test lines"
else
	fail "a failed build's summary" "rc=$rc"
fi
[ "$failures" = 0 ]
