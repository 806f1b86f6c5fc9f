#!/bin/bash
# SPDX-License-Identifier: MIT
# Proof that the gate does not flake: clone the repository's main branch
# fresh and run the README's test command (.ci/test.sh) N times, each from
# a new build folder, optionally with a busy loop on every CPU beside it;
# print pass or fail per run, with the failing steps and tests.
#
#   bash .ci/soak.sh N [--hog] [--repo DIR] [--branch NAME] [--keep]
#
# --hog     a busy loop per CPU (nproc of them) runs through every run.
# --repo    the repository to clone (default: this one); --branch (main).
# --keep    keep the clone and the logs (printed at the end); by default
#           the logs of failed runs are kept and the rest removed.
#
# Output: one line per run ("run 3/10: pass (612 s)" or "run 4/10: FAIL
# (...) test_x::y, job asan"), then a summary line; exit status 1 when any
# run failed. doc/tests.md records its figures.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-}
shift || true
hog=0 repo=$here branch=main keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--hog) hog=1 ;;
	--repo) repo=$2; shift ;;
	--branch) branch=$2; shift ;;
	--keep) keep=1 ;;
	*) echo "soak.sh: unknown option '$1'; accepted: --hog, --repo DIR, --branch NAME, --keep" >&2
	   exit 2 ;;
	esac
	shift
done
case $runs in
'' | *[!0-9]* | 0)
	echo "soak.sh: N must be a whole number of runs above 0 (got '$runs'); usage: bash .ci/soak.sh N [--hog]" >&2
	exit 2 ;;
esac

work=$(mktemp -d /tmp/embperf-soak.XXXXXX)
hogs=()
cleanup() {
	local p
	for p in "${hogs[@]}"; do
		kill "$p" 2>/dev/null
	done
	if [ "$keep" = 0 ] && [ -d "$work/src" ]; then
		rm -rf "$work/src"
	fi
}
trap cleanup EXIT INT TERM

git clone -q --branch "$branch" "$repo" "$work/src" || exit 2
commit=$(git -C "$work/src" rev-parse --short HEAD)
if [ "$hog" = 1 ]; then
	for _ in $(seq "$(nproc)"); do
		(while :; do :; done) &
		hogs+=($!)
	done
fi
printf 'soak: %s runs of .ci/test.sh on %s (%s), %s, %s\n' "$runs" "$branch" "$commit" \
	"$([ "$hog" = 1 ] && echo "a busy loop on each of $(nproc) CPUs" || echo "no busy loop")" \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

# failures LOG - the failed jobs and tests a run's log names.
failures() {
	{
		grep -o '^\*\*\* job [a-z0-9_]* failed' "$1" | sed 's/^\*\*\* //; s/ failed$//'
		grep -o '^not ok - [^ ]*' "$1" | sed 's/^not ok - //'
		# meson's summary lines: "36/55 test_x ERROR 19.6s", "1/64 libembperf / test_y FAIL ..."
		grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|ERROR|TIMEOUT) ' "$1" |
			sed -E 's|^ *[0-9]+/[0-9]+ +([^ /]+ +/ +)?([^ ]+).*|\2|'
	} | sort -u | paste -sd ' '
}

failed=0
for i in $(seq "$runs"); do
	log=$work/run-$i.log
	start=$SECONDS
	(cd "$work/src" && BUILD_ROOT="$work/build-$i" CI=true bash .ci/test.sh) >"$log" 2>&1
	rc=$?
	took=$((SECONDS - start))
	rm -rf "$work/build-$i"
	if [ "$rc" = 0 ]; then
		printf 'run %d/%d: pass (%d s)\n' "$i" "$runs" "$took"
		[ "$keep" = 1 ] || rm -f "$log"
	else
		failed=$((failed + 1))
		printf 'run %d/%d: FAIL (%d s): %s; log %s\n' "$i" "$runs" "$took" "$(failures "$log")" "$log"
	fi
done
printf 'soak: %d of %d runs passed (%s%s)\n' $((runs - failed)) "$runs" "$commit" \
	"$([ "$hog" = 1 ] && echo ", with busy loops")"
[ "$failed" = 0 ] && [ "$keep" = 0 ] && rm -rf "$work"
[ "$failed" = 0 ]
