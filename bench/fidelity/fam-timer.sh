# SPDX-License-Identifier: MIT
# fam-timer.sh - os.timer beside plain cyclictest (rt-tests), as its users
# run it (fidelity.sh family): `cyclictest -p 80 -i 1000 -D S` (SCHED_FIFO
# 80) and plain `cyclictest -i 1000 -D S` (SCHED_OTHER), with only -q and a
# histogram (-h, --histfile) added to read its percentiles. cyclictest holds
# /dev/cpu_dma_latency at 0 by default and does not mlockall without -m:
# os.timer's defaults (dma_latency=0, mlock=0) do the same. Neither run is
# pinned (cyclictest's default: no affinity). Rows: p50 and p99 of the
# wake-up latency in us at each policy. cyclictest's percentiles come from
# its 1 us histogram (the bucket holding it, at its middle); os.timer's
# histogram is exact below 128 ns and within 0.8 % above.

TIMER_SECS=${TIMER_SECS:-5}

fam_describe() { echo "os.timer vs cyclictest (rt-tests) -i 1000, -p 80 and SCHED_OTHER, ${TIMER_SECS} s a run, us"; }
fam_bands() { echo "p50=0.95:1.05;p99=0.90:1.10"; }
fam_refs() {
	command -v "${CYCLICTEST:-cyclictest}" >/dev/null ||
		{ echo "cyclictest: not found (apt-get install rt-tests, or CYCLICTEST=path)"; return 1; }
	[ -x "$(dirname "$EMBPERF")/probes/timer-bench" ] || { echo "bench/probes/timer-bench not built"; return 1; }
	echo "cyclictest=$(command -v "${CYCLICTEST:-cyclictest}") ($("${CYCLICTEST:-cyclictest}" --help 2>&1 | head -1))"
}
fam_setup() { timer_tmp=$(mktemp -d); }
fam_cleanup() { rm -rf "${timer_tmp:-/nonexistent}"; }

ct_ref() { # uses prio
	local sched=() p
	[ "$prio" -gt 0 ] && sched=(-p "$prio")
	"${CYCLICTEST:-cyclictest}" -q "${sched[@]}" -i 1000 -D "$TIMER_SECS" -h 20000 \
		--histfile="$timer_tmp/h" >/dev/null 2>&1 || { echo "cyclictest failed" >&2; return 0; }
	for p in 50 99; do
		emit "$(ct_key "$p")" reference "$(awk -v p="$p" '
			/^# Histogram Overflows:/ { over = $4 + 0 }
			/^[0-9]/ { c[$1 + 0] = $2 + 0; n += $2; if ($1 + 0 > top) top = $1 + 0 }
			END { want = p / 100 * (n + over)
			      for (b = 0; b <= top; b++) { cum += c[b]; if (cum >= want) { printf "%.1f\n", b + 0.5; exit } } }' \
			"$timer_tmp/h")"
	done
}
os_ep() { # uses prio
	local line p
	line=$("$(dirname "$EMBPERF")/probes/timer-bench" interval=1ms priority="$prio" \
		duration="${TIMER_SECS}s" repetitions=1 ${EP_ARGS:-})
	for p in 50 99; do
		emit "$(ct_key "$p")" embperf "$(echo "$line" | tr ' ' '\n' | sed -n "s/^p$p=//p")"
	done
}
ct_key() { [ "$prio" -gt 0 ] && echo "fifo80-p$1" || echo "other-p$1"; }
fam_round() {
	for prio in 80 0; do
		in_turn "$1" ct_ref os_ep
	done
}
