#!/bin/bash
# SPDX-License-Identifier: MIT
# test_fidelity_quiet.sh - the fidelity protocol's guard against a busy
# machine (bench/fidelity/quiet.sh) and its use by every compare-*.sh:
# a round on a machine above the limits is refused with exit 3, naming the
# load and saying no figure was taken; below them it goes on and prints the
# load beside the round; QUIET=0 turns the guard off and says so. Limits
# are set so that any machine is above (load < 0 cannot hold) or below
# them, so no check depends on what else runs.
# Usage: test_fidelity_quiet.sh SRCDIR
src=${1:?usage: test_fidelity_quiet.sh SRCDIR}
. "$(dirname "$0")/tap.sh"
quiet=$src/bench/fidelity/quiet.sh
echo "1..4"

# round ENV... - run quiet_round 7 in a shell of its own; stdout: its exit
# status, stderr into $err.
err=$(mktemp) && trap 'rm -f "$err"' EXIT
round() {
	env QUIET_WINDOW_S=1 QUIET_WAIT_S=1 "$@" bash -c '. "$0"; quiet_round 7; echo "went on"' \
		"$quiet" 2>"$err"
	echo "rc $?"
}

out=$(round QUIET_LOAD=0)
if [ "$out" = "rc 3" ] && grep -q "the machine is not quiet: load" "$err" &&
	grep -q "no figure taken" "$err"; then
	pass "a busy machine: the round is refused (exit 3), the load named"
else
	fail "a busy machine: the round is refused (exit 3), the load named" "$out" "$(cat "$err")"
fi

out=$(round QUIET_LOAD=100000 QUIET_BUSY_PCT=101)
if [ "$out" = "$(printf 'went on\nrc 0')" ] &&
	grep -Eq '^# round 7: load [0-9.]+, busy [0-9.]+ %$' "$err"; then
	pass "a quiet machine: the round goes on, its load printed beside it"
else
	fail "a quiet machine: the round goes on, its load printed beside it" "$out" "$(cat "$err")"
fi

out=$(round QUIET=0 QUIET_LOAD=0)
if [ "$out" = "$(printf 'went on\nrc 0')" ] && grep -q '^# round 7: load .*, busy off %$' "$err"; then
	pass "QUIET=0: the guard is off, and the round says so"
else
	fail "QUIET=0: the guard is off, and the round says so" "$out" "$(cat "$err")"
fi

# Every comparison script waits for a quiet machine before it measures.
missing=
for f in "$src"/bench/fidelity/compare-*.sh; do
	if ! grep -q '^\. "$(dirname "$0")/quiet.sh"' "$f" || ! grep -Eq '^[[:space:]]*quiet_(round|wait)\b' "$f"; then
		missing="$missing ${f##*/}"
	fi
done
if [ -z "$missing" ]; then
	pass "every compare-*.sh sources quiet.sh and waits before its rounds"
else
	fail "every compare-*.sh sources quiet.sh and waits before its rounds" "without:$missing"
fi
[ "$failures" -eq 0 ]
