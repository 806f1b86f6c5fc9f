#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/fidelity/compare-aplay-cpu.sh - the CPU time of whole processes, as
# `perf stat -e task-clock` counts it: aplay, audio.playback with its
# default (counters=0) and with counters=1, arecord, audio.capture likewise,
# one after the other per round, each pinned to CPU 0, on the same device
# and parameters as bench/fidelity/compare-aplay.sh (48000 Hz, 2 ch, S16_LE, period
# 64, buffer 960). CPU time, not load: what another task takes does not
# enter it, only how long this one ran (a VM's stolen time does).
#
#   bench/fidelity/compare-aplay-cpu.sh BUILD_DIR [ROUNDS [SECONDS]]
#
# Prints per round the task-clock in ms of each command over SECONDS
# (default 3), then the medians and minimums, and per pair the median of
# the per-round differences and in how many rounds embperf was below;
# then each embperf run over aplay's or arecord's in the same round (with
# counters=0 and with counters=1), the median of those ratios and its 95 %
# interval (paired-ratios.awk). Needs alsa-utils and perf.
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)
. "$(dirname "$0")/paired.sh"

BUILD=${1:?usage: bench/fidelity/compare-aplay-cpu.sh BUILD_DIR [ROUNDS [SECONDS]]}
ROUNDS=${2:-12}
SECS=${3:-3}
EMBPERF=$(readlink -f "$BUILD/bench/embperf")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
P="-f S16_LE -r 48000 -c 2 --period-size=64 --buffer-size=960"
E="rate=48000 channels=2 format=S16_LE period=64 buffer=960 repetitions=1"

for t in aplay perf taskset; do
	command -v $t >/dev/null || { echo "$t not found" >&2; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/compare-aplay-cpu.XXXXXX")
trap 'rm -rf "$T"' EXIT

. "$SRC/bench/fidelity/paced_device.sh"
paced_device_setup "$T"

# ms CMD...: CMD's task-clock in ms, pinned to CPU 0.
ms() {
	perf stat -x, -e task-clock -- taskset -c 0 "$@" 2>&1 >/dev/null |
		awk -F, '/task-clock/ { printf "%.2f", $1 }'
}

echo "# $(uptime)"
echo "# device=$DEVICE, $SECS s per run; task-clock in ms"
echo "round aplay playback playback_ctr1 arecord capture capture_ctr1"
for r in $(seq 1 "$ROUNDS"); do
	quiet_round "$r"
	a=$(ms aplay -q -D "$DEVICE" -t raw $P -d "$SECS" /dev/zero)
	p=$(ms "$EMBPERF" -q run audio.playback device="$DEVICE" duration="${SECS}s" $E --format=csv)
	p1=$(ms "$EMBPERF" -q run audio.playback device="$DEVICE" duration="${SECS}s" $E counters=1 --format=csv)
	c=$(ms arecord -q -D "$DEVICE" -t raw $P -d "$SECS" /dev/null)
	k=$(ms "$EMBPERF" -q run audio.capture device="$DEVICE" duration="${SECS}s" $E --format=csv)
	k1=$(ms "$EMBPERF" -q run audio.capture device="$DEVICE" duration="${SECS}s" $E counters=1 --format=csv)
	echo "$r $a $p $p1 $c $k $k1" | tee -a "$T/all"
done
echo "# $(uptime)"
python3 - "$T/all" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1])]
names = "aplay playback playback_ctr1 arecord capture capture_ctr1".split()
for i, n in enumerate(names):
    col = [r[i] for r in rows]
    print("%-14s median %7.2f  min %7.2f" % (n, statistics.median(col), min(col)))
for a, b in ((1, 0), (2, 0), (4, 3), (5, 3), (1, 2), (4, 5)):
    d = [r[a] - r[b] for r in rows]
    print("%s - %s: median %+.2f ms, below in %d of %d rounds"
          % (names[a], names[b], statistics.median(d), sum(x < 0 for x in d), len(d)))
PY
# Per round: "round aplay playback playback_ctr1 arecord capture capture_ctr1".
awk '{
	print "playback-task-ms", $1, "reference", $2; print "playback-task-ms", $1, "embperf", $3
	print "playback-ctr1-task-ms", $1, "reference", $2; print "playback-ctr1-task-ms", $1, "embperf", $4
	print "capture-task-ms", $1, "reference", $5; print "capture-task-ms", $1, "embperf", $6
	print "capture-ctr1-task-ms", $1, "reference", $5; print "capture-ctr1-task-ms", $1, "embperf", $7
}' "$T/all" | paired_rounds >"$T/paired"
paired_table "aplay and arecord" "$T/paired"
