#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-cyclictest.sh - os.timer next to cyclictest (rt-tests) at the same
# interval, priority and duration, interleaved, on this machine. Not run by
# the tests (it needs root or CAP_SYS_NICE for the priority, and takes
# minutes); doc/benchmarks-timer.md holds its figures.
#
#   bench/fidelity/compare-cyclictest.sh [BUILD_DIR]
#
# Environment: ROUNDS (5), SECONDS_PER_RUN (5), INTERVAL_US (1000),
# PRIORITY (80), HIST_US (20000: cyclictest's histogram range).
#
# Each round runs, in an order that alternates from round to round:
#   ct      cyclictest -q -m -p P -i I -D S -h H --histfile=F
#           (--policy=other instead of -p when PRIORITY is 0)
#           (cyclictest's defaults: it also writes 0 to /dev/cpu_dma_latency
#           while it runs)
#   ct-ds   the same with --default-system (no PM QoS request: the system as
#           os.timer finds it)
#   os      timer-bench interval=Ius priority=P duration=Ss repetitions=1
#           mlock=1 (os.timer through the public API, the percentiles read
#           from its result)
# cyclictest's percentiles come from its 1 us histogram: the bucket that
# holds the percentile, reported at its middle (bucket b holds latencies in
# [b, b+1) us, as cyclictest truncates to whole microseconds). os.timer's
# histogram is exact below 128 ns and within 0.78 % above.
#
# Printed: each run's line, the medians over the rounds per tool and
# os.timer against ct and ct-ds; then os.timer over ct (plain cyclictest,
# the reference users run) within each round for p50, p99 and max, the
# median of those ratios and its 95 % interval (paired-ratios.awk).
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)
. "$(dirname "$0")/paired.sh"

build=${1:-/tmp/build-timer}
rounds=${ROUNDS:-5}
secs=${SECONDS_PER_RUN:-5}
interval=${INTERVAL_US:-1000}
prio=${PRIORITY:-80}
hist=${HIST_US:-20000}
bench="$build/bench/probes/timer-bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v cyclictest >/dev/null || { echo "cyclictest not found (apt-get install rt-tests)" >&2; exit 1; }
[ -x "$bench" ] || { echo "$bench not built" >&2; exit 1; }

# ct_summary HISTFILE: "n=.. p50=.. p90=.. p99=.. max=.." from cyclictest's histogram file.
ct_summary() {
	awk '
	/^# Max Latencies:/ { max = $4 + 0 }
	/^# Histogram Overflows:/ { over = $4 + 0 }
	/^[0-9]/ { c[$1 + 0] = $2 + 0; n += $2; if ($1 + 0 > top) top = $1 + 0 }
	function pct(p,   want, cum, b) {
		want = p / 100 * (n + over)
		for (b = 0; b <= top; b++) { cum += c[b]; if (cum >= want) return sprintf("%.1f", b + 0.5) }
		return ">" top
	}
	END { printf "n=%d p50=%s p90=%s p99=%s max=%d overflows=%d\n", n + over, pct(50), pct(90), pct(99), max, over }
	' "$1"
}

# cyclictest's scheduling for os.timer's priority: -p N is SCHED_FIFO N; for
# 0 (SCHED_OTHER) -p must be left out: rt-tests 2.40 runs its thread
# SCHED_FIFO at priority 2 with -p 0 (seen with ps -eLo cls,rtprio).
if [ "$prio" -gt 0 ]; then ct_sched="-p $prio"; else ct_sched="--policy=other"; fi

run_ct() { # run_ct NAME [EXTRA_OPTION]
	cyclictest -q -m $ct_sched -i "$interval" -D "$secs" -h "$hist" \
		--histfile="$tmp/$1.hist" ${2:-} >/dev/null 2>&1
	echo "$1 $(ct_summary "$tmp/$1.hist")"
}

run_os() {
	echo "os $("$bench" interval="${interval}us" priority="$prio" duration="${secs}s" \
		repetitions=1 mlock=1)"
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "# cyclictest $(cyclictest --help 2>&1 | sed -n '1s/cyclictest V *//p'); interval ${interval} us, priority ${prio}, ${secs} s per run, ${rounds} rounds"
for r in $(seq 1 "$rounds"); do
	quiet_round "$r"
	if [ $((r % 2)) -eq 1 ]; then
		run_ct ct; run_ct ct-ds --default-system; run_os
	else
		run_os; run_ct ct-ds --default-system; run_ct ct
	fi | sed "s/^/round $r: /"
done | tee "$tmp/all"

# Medians over the rounds of p50, p99 and max per tool, and os.timer against each.
awk '
function val(key,   i, kv) { for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] + 0 } return -1 }
{ t = $3; k[t]++; p50[t, k[t]] = val("p50"); p99[t, k[t]] = val("p99"); mx[t, k[t]] = val("max") }
function med(a, t,   n, i, j, v, x) {
	n = k[t]; for (i = 1; i <= n; i++) v[i] = a[t, i]
	for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
END {
	print "\nmedian over rounds (us):"
	printf "%-6s %9s %9s %10s\n", "tool", "p50", "p99", "max"
	split("ct ct-ds os", tools, " ")
	for (i = 1; i <= 3; i++) { t = tools[i]; printf "%-6s %9.1f %9.1f %10.1f\n", t, med(p50, t), med(p99, t), med(mx, t) }
	for (i = 1; i <= 2; i++) {
		t = tools[i]
		printf "os vs %-5s p50 %+.1f %%, p99 %+.1f %%\n", t,
		       100 * (med(p50, "os") / med(p50, t) - 1), 100 * (med(p99, "os") / med(p99, t) - 1)
	}
}' "$tmp/all"

# Round by round, os.timer against plain cyclictest (ct: the reference users
# run, with its PM QoS request), not ct-ds; a percentile beyond cyclictest's
# histogram (">H") leaves that round out of its row.
awk '$3 == "ct" || $3 == "os" {
	r = $2; sub(":", "", r)
	for (i = 4; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] == "p50" || kv[1] == "p99" || kv[1] == "max")
			print kv[1] "-us", r, ($3 == "os" ? "embperf" : "reference"), kv[2]
	}
}' "$tmp/all" | paired_rounds >"$tmp/paired"
echo
paired_table "cyclictest (ct)" "$tmp/paired"
