#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-cpu-classic.sh - cpu.whetstone and cpu.linpack next to the public
# C programs they reimplement, interleaved round by round on one pinned CPU.
# Not run by the tests (a round takes half a minute); doc/methodology-cpu.md
# says how the reference binaries are built (outside the tree, with the
# compiler and -O2 of the library's timed code). This script builds nothing.
#
#   bench/fidelity/compare-cpu-classic.sh [BUILD_DIR]
#
# Environment:
#   WHETSTONE  netlib whetstone.c built with -DPRINTOUT (its values used, so
#              that no module is left out)    -> case whetstone
#   LINPACK    netlib linpackc.new (linpack_dp)  -> case linpack
#   LINPACKC   netlib linpackc built -DDP -DUNROLL (optional) -> case linpackc
#   ROUNDS     rounds (5); PIN: the CPU both tools run on (0; taskset -c)
#   LOOPS      Whetstone's LOOP on both sides (100000, whetstone.c's default)
#
# Cases, each run by both tools per round, the order alternating by round:
#   whetstone  WHETSTONE LOOPS, timed here around the process (its own
#              figure counts whole seconds): MIPS = 0.1 x LOOPS / seconds;
#              the process's start and the printed lines add about a
#              millisecond to a pass of a second or more
#              embperf run cpu.whetstone loops=LOOPS (median of its passes)
#   linpack    printf '200\nq\n' | LINPACK: n = 100, lda = 200, rolled and
#              unrolled BLAS averaged; the KFLOPS of its last line (the
#              first run of 10 s or more, CPU time from clock())
#              embperf run cpu.linpack n=100 blas=both (lda 200; wall time)
#   linpackc   LINPACKC: its final "Kflops" (the lower of two 10-solve runs,
#              leading dimensions 201 and 200; getrusage CPU time)
#              embperf run cpu.linpack n=100 blas=unrolled
# Printed: every value as it comes ("CASE TOOL VALUE"), each tool's median
# and spread (median-table.awk), then embperf / reference within each round,
# its median and 95 % confidence interval (paired-ratios.awk). Run it on a
# quiet machine: another task on the CPU slows whichever tool it meets.
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)

build=${1:-build}
embperf="$build/bench/embperf"
rounds=${ROUNDS:-5}
pin=${PIN:-0}
loops=${LOOPS:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

[ -x "$embperf" ] || { echo "no $embperf: build first (meson setup $build && ninja -C $build)" >&2; exit 2; }
cases=""
[ -n "${WHETSTONE:-}" ] && cases="$cases whetstone"
[ -n "${LINPACK:-}" ] && cases="$cases linpack"
[ -n "${LINPACKC:-}" ] && cases="$cases linpackc"
[ -n "$cases" ] || { echo "set WHETSTONE, LINPACK and/or LINPACKC to the reference binaries" >&2; exit 2; }

now_ns() { date +%s%N; }

# The value of METRIC in embperf's CSV output (column 8).
embperf_value() { # KERNEL METRIC PARAMS...
	kernel=$1
	metric=$2
	shift 2
	taskset -c "$pin" "$embperf" run "$kernel" "$@" --format=csv 2>"$tmp/err" |
		awk -F, -v m="$metric" '$4 == m { print $8; exit }'
}

reference_value() { # CASE
	case $1 in
	whetstone)
		t0=$(now_ns)
		# It exits 1 after a pass under a second ("Insufficient duration").
		taskset -c "$pin" "$WHETSTONE" "$loops" >"$tmp/out" || true
		t1=$(now_ns)
		echo "# whetstone's own line: $(grep -E 'Whetstones|Insufficient' "$tmp/out" || true)" >&2
		awk -v l="$loops" -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f\n", 0.1 * l / (ns / 1e9) }' ;;
	linpack)
		# void main(): the exit status means nothing.
		printf '200\nq\n' | taskset -c "$pin" "$LINPACK" >"$tmp/out" || true
		awk '$1 ~ /^[0-9]+$/ && NF == 6 { k = $6 } END { print k }' "$tmp/out" ;;
	linpackc)
		# Its main() returns no value: the exit status means nothing.
		taskset -c "$pin" "$LINPACKC" >/dev/null 2>"$tmp/out" || true
		awk '/Kflops/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Kflops") k = $i } END { print k }' \
			"$tmp/out" ;;
	esac
}

our_value() { # CASE
	case $1 in
	whetstone) embperf_value cpu.whetstone mips "loops=$loops" ;;
	linpack) embperf_value cpu.linpack kflops n=100 blas=both ;;
	linpackc) embperf_value cpu.linpack kflops n=100 blas=unrolled ;;
	esac
}

echo "# $(uptime)"
echo "# cpu:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs; $(uname -r); pinned to CPU $pin; $(cc --version | head -1)"
for r in $(seq 1 "$rounds"); do
	quiet_round "$r"
	for c in $cases; do
		order="reference embperf"
		[ $((r % 2)) -eq 0 ] && order="embperf reference"
		for tool in $order; do
			if [ "$tool" = reference ]; then
				v=$(reference_value "$c")
			else
				v=$(our_value "$c")
			fi
			[ -n "$v" ] || { echo "$c: no value from $tool" >&2; cat "$tmp/err" >&2 2>/dev/null; exit 1; }
			echo "$c $tool $v" | tee -a "$tmp/all"
		done
	done
done
echo "# $(uptime)"
echo "# median of $rounds rounds (whetstone: MIPS; linpack, linpackc: kflops)"
sort -k1,1 -k2,2 -k3,3g "$tmp/all" |
	awk -v keyname=case -v refname=reference -v keywidth=12 -v numfmt=%12.2f \
		-v spreadwidth=7 -f "$(dirname "$0")/median-table.awk"
echo "# embperf / reference round by round: the median ratio and its 95 % confidence interval"
awk -f "$(dirname "$0")/paired-ratios.awk" "$tmp/all" | { read -r head; echo "$head"; sort; }
