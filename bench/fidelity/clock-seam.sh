#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/fidelity/clock-seam.sh - the engine's clock seam against the tree
# before it: bench/probes/clock-seam.c built from both, run in turns on a
# quiet machine (quiet.sh), pinned to CPU 0, ROUNDS rounds (default 11);
# prints each round's medians (ns per ep_trial_running() call), the paired
# ratio's median and its 95 % interval (paired-ratios.awk).
#
#   bench/fidelity/clock-seam.sh BUILD_DIR [BEFORE_COMMIT] [ROUNDS]
#
# BEFORE_COMMIT defaults to 8d9c603 (main before the seam); it is built in a
# temporary worktree with meson's defaults, its static library linked into
# the probe exactly as this build links it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: bench/fidelity/clock-seam.sh BUILD_DIR [BEFORE_COMMIT] [ROUNDS]}" && pwd)
before=${2:-8d9c603}
rounds=${3:-11}
. "$here/quiet.sh"

tmp=$(mktemp -d)
trap 'git -C "$src" worktree remove --force "$tmp/tree" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
git -C "$src" worktree add -q --detach "$tmp/tree" "$before"
meson setup "$tmp/build" "$tmp/tree" -Dtests=disabled -Dexamples=false -Dpython=false >/dev/null
ninja -C "$tmp/build" lib/libembperf.a >/dev/null
libs=$(pkg-config --libs json-c alsa liburing 2>/dev/null || echo -ljson-c)
cc -O2 -I "$tmp/tree" -I "$tmp/tree/include" -I "$tmp/build" "$src/bench/probes/clock-seam.c" \
	"$tmp/build/lib/libembperf.a" $libs -lm -lpthread -ldl -o "$tmp/before"
after=$build/bench/probes/clock-seam
[ -x "$after" ] || { echo "$after not built" >&2; exit 1; }

median_of() { "$1" 5 0.5 | sed -n 's/^median \([0-9.]*\) .*/\1/p'; }
echo "# round  before_ns  after_ns  after/before  (ns per ep_trial_running(); $before vs $(git -C "$src" rev-parse --short HEAD))"
for i in $(seq "$rounds"); do
	quiet_wait
	if [ $((i % 2)) = 1 ]; then
		b=$(median_of "$tmp/before"); a=$(median_of "$after")
	else
		a=$(median_of "$after"); b=$(median_of "$tmp/before")
	fi
	printf '%d %s %s %.4f   # %s\n' "$i" "$b" "$a" "$(echo "$a $b" | awk '{print $1/$2}')" "$(quiet_state)"
done | tee "$tmp/rounds"
# paired-ratios.awk pairs each round's "embperf" (after) with its "reference" (before).
awk '!/^#/ { print "ns_per_check reference", $2; print "ns_per_check embperf", $3 }' \
	"$tmp/rounds" | awk -f "$here/paired-ratios.awk"
