#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/fidelity/compare-aplay.sh - CPU load of audio.playback/audio.capture beside
# aplay/arecord on the same device and parameters (the target: at most
# theirs).
#
#   bench/fidelity/compare-aplay.sh BUILD_DIR [ROUNDS [SECONDS]]
#
# With no sound card, the device is the tests' paced PCM (tests/paced_pcm.c)
# built as an alsa-lib external plugin (tests/paced_plugin.c) and named in a
# temporary ALSA configuration (ALSA_CONFIG_PATH, which includes the
# system's alsa.conf), so aplay, arecord and the embperf command open the
# same CLOCK_MONOTONIC-paced device. DEVICE=hw:0,0 uses a card instead.
#
# Each round runs, one after the other, aplay then audio.playback, arecord
# then audio.capture, SECONDS each (default 10) at 48000 Hz, 2 ch, S16_LE,
# period 64, buffer 960 (20 ms), and prints each process's CPU load as
# bash's `time` sees it: (user + sys) / real, the whole process (start-up,
# configuration, the device's open and close included); for embperf also
# its own cpu_process figure (the measured part only). Needs alsa-utils.
# Then audio.playback over aplay and audio.capture over arecord within each
# round, whole process against whole process (the own figures are left
# out: aplay has none), the median of those ratios and its 95 % interval
# (paired-ratios.awk).
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)
. "$(dirname "$0")/paired.sh"

BUILD=${1:?usage: bench/fidelity/compare-aplay.sh BUILD_DIR [ROUNDS [SECONDS]]}
ROUNDS=${2:-3}
SECS=${3:-10}
EMBPERF=$(readlink -f "$BUILD/bench/embperf")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
P="-f S16_LE -r 48000 -c 2 --period-size=64 --buffer-size=960"
E="rate=48000 channels=2 format=S16_LE period=64 buffer=960 repetitions=1"

command -v aplay >/dev/null || { echo "aplay not found (apt-get install alsa-utils)" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/compare-aplay.XXXXXX")
trap 'rm -rf "$T"' EXIT
: >"$T/rounds"

. "$SRC/bench/fidelity/paced_device.sh"
paced_device_setup "$T"

# load CMD...: the command's CPU load, (user + sys) / real in %.
load() {
	local t
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$T/out" 2>"$T/err"; } 2>&1 )
	echo "$t" | awk '{ printf "%.2f", ($2 + $3) / $1 * 100 }'
}

# own METRIC: the value of METRIC in the last embperf CSV output.
own() {
	awk -F, -v m="$1" '$4 == m { printf "%.2f", $8 }' "$T/out"
}

echo "# device=$DEVICE, 48000 Hz 2 ch S16_LE period 64 buffer 960, $SECS s per run; CPU % of one CPU"
echo "round  aplay  audio.playback (own)  arecord  audio.capture (own)"
for r in $(seq 1 "$ROUNDS"); do
	quiet_round "$r"
	a=$(load aplay -q -D "$DEVICE" -t raw $P -d "$SECS" /dev/zero)
	p=$(load "$EMBPERF" -q run audio.playback device="$DEVICE" duration="${SECS}s" $E --format=csv)
	po=$(own cpu_process)
	c=$(load arecord -q -D "$DEVICE" -t raw $P -d "$SECS" /dev/null)
	k=$(load "$EMBPERF" -q run audio.capture device="$DEVICE" duration="${SECS}s" $E --format=csv)
	ko=$(own cpu_process)
	printf "%5d  %5s  %5s (%5s)        %7s  %5s (%5s)\n" "$r" "$a" "$p" "$po" "$c" "$k" "$ko"
	printf '%s %s %s %s\n' playback-cpu-% "$r" reference "$a" playback-cpu-% "$r" embperf "$p" \
		capture-cpu-% "$r" reference "$c" capture-cpu-% "$r" embperf "$k" >>"$T/rounds"
done
paired_rounds <"$T/rounds" >"$T/paired"
paired_table "aplay and arecord" "$T/paired"
