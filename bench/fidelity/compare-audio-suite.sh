#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/fidelity/compare-audio-suite.sh - the audio suite's time target: `embperf suite audio`
# (TI's table: capture and playback at 10 rates, 2 ch, S16_LE, period 64)
# against the same 20 rows measured the way TI's tests do it by hand, on the
# same device, with the run-to-run spread of both.
#
#   bench/fidelity/compare-audio-suite.sh BUILD_DIR
#
# The by-hand method: per row, RUNS runs (default 5: the guide prints
# "mean (min, max)" over its runs, and its means end in multiples of 0.2)
# of `arecord`/`aplay -d SECS` (default 10: TI's alsa_tests.sh default
# duration), each giving bytes x 8 / the command's wall time. The row's
# figure is the mean, its spread (max - min) / mean. embperf's rows come
# from SUITE_ROUNDS (default 3) runs of the suite; a row's spread is the
# (max - min) / median of its medians over those runs. Both sides' wall
# times are measured, start-up and device opening included.
#
# RATES="48000 96000" limits both sides to some rates (a quicker check);
# DEVICE=hw:0,0 uses a card instead of the tests' paced PCM (see
# bench/fidelity/paced_device.sh). Needs alsa-utils.
#
# Last, embperf over the by-hand method per row, the median of the ratios
# and its 95 % interval (paired-ratios.awk). The two sides share no rounds
# (the suite runs all come first, then each row's by-hand runs), so the
# i-th suite run's figure of a row is paired with that row's i-th by-hand
# run, as far as both exist (the lesser of SUITE_ROUNDS and RUNS pairs).
set -euo pipefail
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)
. "$(dirname "$0")/paired.sh"

BUILD=${1:?usage: bench/fidelity/compare-audio-suite.sh BUILD_DIR}
RUNS=${RUNS:-5}
SECS=${SECS:-10}
SUITE_ROUNDS=${SUITE_ROUNDS:-3}
RATES=${RATES:-8000 11025 16000 22050 24000 32000 44100 48000 88200 96000}
EMBPERF=$(readlink -f "$BUILD/bench/embperf")
SRC=$(cd "$(dirname "$0")/../.." && pwd)

command -v arecord >/dev/null || { echo "arecord not found (apt-get install alsa-utils)" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/compare-audio-suite.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$SRC/bench/fidelity/paced_device.sh"
paced_device_setup "$T"

now_s() { date +%s.%N; }

# by_hand_row DIRECTION RATE - RUNS timed runs; prints "mean spread_pct".
by_hand_row() {
	local dir=$1 rate=$2 r t0 t1 bytes
	local args=(-q -D "$DEVICE" -t raw -f S16_LE -r "$rate" -c 2 --period-size=64 -d "$SECS")
	for r in $(seq 1 "$RUNS"); do
		quiet_round "$r"
		t0=$(now_s)
		if [ "$dir" = capture ]; then
			arecord "${args[@]}" "$T/cap.raw" 2>/dev/null
			bytes=$(stat -c %s "$T/cap.raw")
		else
			aplay "${args[@]}" /dev/zero 2>/dev/null
			bytes=$((rate * 4 * SECS))
		fi
		t1=$(now_s)
		awk -v b="$bytes" -v a="$t0" -v z="$t1" 'BEGIN { printf "%.3f\n", b * 8 / (z - a) }'
	done | tee "$T/hand.$dir-$rate" | awk '{ v[NR] = $1; s += $1 } END {
		lo = hi = v[1]; for (i = 2; i <= NR; i++) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i] }
		m = s / NR; printf "%.1f %.3f\n", m, (hi - lo) / m * 100 }'
}

# suite_file - the built-in audio suite limited to $RATES.
suite_file() {
	local pattern
	pattern=$(printf -- '-%s-|' $RATES)
	"$EMBPERF" suites audio | grep -E "^#|^@|${pattern%|}" >"$T/audio.suite"
}

echo "# device=$DEVICE; rates: $RATES"
echo "# by hand: $RUNS runs x ${SECS} s per row; embperf: $SUITE_ROUNDS runs of the suite"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

suite_file
suite_s=0
for r in $(seq 1 "$SUITE_ROUNDS"); do
	quiet_round "$r"
	t0=$(now_s)
	"$EMBPERF" -q suite "$T/audio.suite" device="$DEVICE" --format=csv >"$T/suite.$r.csv" ||
		echo "# suite run $r: exit $? (a row failed; its figures are left out)"
	t1=$(now_s)
	suite_s=$(awk -v s="$suite_s" -v a="$t0" -v z="$t1" 'BEGIN { printf "%.2f", s + z - a }')
done

hand_s=0
printf '%-22s %14s %8s %14s %8s\n' row by_hand spread% embperf spread%
for dir in capture playback; do
	for rate in $RATES; do
		t0=$(now_s)
		read -r mean spread < <(by_hand_row "$dir" "$rate")
		t1=$(now_s)
		hand_s=$(awk -v s="$hand_s" -v a="$t0" -v z="$t1" 'BEGIN { printf "%.2f", s + z - a }')
		# the row's median over the suite runs, and their (max - min) / median
		read -r emb espread < <(awk -F, -v t="$dir-$rate-throughput" '$1 == t { print $13 }' \
			"$T"/suite.*.csv | sort -g | awk '{ v[NR] = $1 } END {
				if (!NR) { print "- -"; exit }
				m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "%.1f %.3f\n", m, (v[NR] - v[1]) / m * 100 }')
		printf '%-22s %14s %8s %14s %8s\n' "$dir-$rate" "$mean" "$spread" "$emb" "$espread"
	done
done
per_suite=$(awk -v s="$suite_s" -v n="$SUITE_ROUNDS" 'BEGIN { printf "%.1f", s / n }')
echo "# wall time: by hand $hand_s s; embperf suite $per_suite s per run" \
	"(ratio $(awk -v a="$per_suite" -v b="$hand_s" 'BEGIN { printf "%.3f", a / b }'))"
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# The i-th suite run against the i-th by-hand run of each row (see above).
for dir in capture playback; do
	for rate in $RATES; do
		i=0
		while read -r v; do
			i=$((i + 1))
			[ -f "$T/suite.$i.csv" ] || break
			echo "$dir-$rate-bit/s $i reference $v"
			awk -F, -v t="$dir-$rate-throughput" -v k="$dir-$rate-bit/s" -v i="$i" \
				'$1 == t { print k, i, "embperf", $13; exit }' "$T/suite.$i.csv"
		done <"$T/hand.$dir-$rate"
	done
done | paired_rounds >"$T/paired"
paired_table "by hand (arecord, aplay)" "$T/paired"
