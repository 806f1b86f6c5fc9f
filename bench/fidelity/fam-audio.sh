# SPDX-License-Identifier: MIT
# fam-audio.sh - audio.capture and audio.playback beside arecord and aplay
# (alsa-utils) on the same device (fidelity.sh family), as TI's audio table
# is made: S16_LE, 2 channels, period 64 frames, RW interleaved, at each rate
# of AUDIO_RATES (default 8000 48000 96000), AUDIO_SECS (default 5) a run.
# The reference is run as TI's alsa_tests.sh runs it, by hand:
#   arecord -q -D DEV -t raw -f S16_LE -r R -c 2 --period-size=64 -d S FILE
#   aplay   -q -D DEV -t raw -f S16_LE -r R -c 2 --period-size=64 -d S /dev/zero
# its buffer the tools' default (the largest the device offers, up to
# 500 ms); embperf with the same rate, channels, format and period and its
# own default buffer (the whole periods nearest 20 ms; `buffer=` names
# another), one trial of S seconds (repetitions=1).
# Rows, per direction and rate:
#   DIR-R-bit/s   the reference: bytes x 8 / the command's wall time (TI's
#                 by-hand figure, start-up and the device's opening
#                 included); embperf: its throughput metric (frames the
#                 device moved x 32 / the measured time)
#   DIR-R-cpu-ms  the whole process's CPU time, start-up included, for both:
#                 `perf stat -e task-clock` (every thread, in ns), or where
#                 perf is missing user + system from the shell's `time`
#                 (whole ms here); the target is at most the reference's, so
#                 the band is 0 to 1.05
# With no DEVICE, the device is the tests' CLOCK_MONOTONIC-paced PCM built
# as an alsa-lib plugin (paced_device.sh); DEVICE=hw:0,0 names a card. Both
# tools pinned alike (PIN_CPU). Needs alsa-utils, a C compiler and
# alsa-lib's headers (for the paced PCM), and embperf built with alsa-lib.

AUDIO_RATES=${AUDIO_RATES:-8000 48000 96000}
AUDIO_SECS=${AUDIO_SECS:-5}

fam_describe() { echo "audio.capture/playback vs arecord/aplay $(aplay --version 2>/dev/null | awk '{ print $3; exit }') on ${DEVICE:-the paced test PCM}, S16_LE 2 ch period 64, rates $AUDIO_RATES, ${AUDIO_SECS} s a run; bit/s and the process's CPU ms"; }
fam_bands() { echo ".*-cpu-ms=0:1.05;.*=0.95:1.05"; }
fam_refs() {
	command -v aplay >/dev/null && command -v arecord >/dev/null ||
		{ echo "aplay, arecord: not found (apt-get install alsa-utils)"; return 1; }
	[ -x "$EMBPERF" ] || { echo "embperf: not built at $EMBPERF (-b BUILD)"; return 1; }
	"$EMBPERF" --version 2>/dev/null | grep -q 'alsa=yes' ||
		{ echo "embperf is built without alsa-lib (features: alsa=no)"; return 1; }
	if [ -z "${DEVICE:-}" ]; then
		command -v "${CC:-cc}" >/dev/null || { echo "${CC:-cc}: not found (the paced PCM is built with it)"; return 1; }
		pkg-config --exists alsa || { echo "alsa-lib headers: not found (apt-get install libasound2-dev)"; return 1; }
	fi
	echo "aplay=$(command -v aplay) arecord=$(command -v arecord) ($(aplay --version | head -1)); DEVICE=${DEVICE:-paced test PCM}; CPU time from $(audio_cpu_method)"
}
fam_setup() {
	audio_cpu=$(audio_cpu_method)
	audio_tmp=$(mktemp -d)
	. "$here/paced_device.sh"
	paced_device_setup "$audio_tmp"
}
fam_cleanup() { rm -rf "${audio_tmp:-/nonexistent}"; }

audio_cpu_method() {
	if perf stat -e task-clock -o /dev/null -- true 2>/dev/null; then
		echo "perf stat -e task-clock"
	else
		echo "the shell's time (user + sys)"
	fi
}

# timed OUT COMMAND... - run it pinned (stdout to OUT, stderr to OUT.err),
# print "wall_s cpu_s" of the whole process: perf's "seconds time elapsed"
# and task-clock, or the shell's real and user + sys.
timed() {
	local out=$1 t
	shift
	if [ "$audio_cpu" = "perf stat -e task-clock" ]; then
		LC_ALL=C pinned perf stat -e task-clock -o "$out.perf" -- "$@" >"$out" 2>"$out.err" ||
			audio_failed "$out" "$@"
		awk '/ task-clock/ { c = $1 / 1000 } / seconds time elapsed/ { w = $1 }
			END { if (w != "" && c != "") printf "%s %.6f\n", w, c }' "$out.perf"
		return
	fi
	t=$({ TIMEFORMAT='%3R %3U %3S'; time pinned "$@" >"$out" 2>"$out.err"; } 2>&1) ||
		audio_failed "$out" "$@"
	echo "$t" | awk 'NF == 3 { printf "%s %.6f\n", $1, $2 + $3 }'
}
# audio_failed OUT COMMAND... - the tool's own error, then which command.
audio_failed() {
	local out=$1
	shift
	sed 's/^/    /' "$out.err" >&2
	echo "fidelity: '$*' failed" >&2
}

audio_ref() { # DIR RATE
	local dir=$1 rate=$2 tool=aplay file=/dev/zero wall cpu bytes
	local args=(-q -D "$DEVICE" -t raw -f S16_LE -r "$rate" -c 2 --period-size=64 -d "$AUDIO_SECS")
	if [ "$dir" = capture ]; then
		tool=arecord file=$audio_tmp/cap.raw
		rm -f "$file"
	fi
	read -r wall cpu < <(timed "$audio_tmp/out" "$tool" "${args[@]}" "$file") || true
	if [ "$dir" = capture ]; then
		bytes=$(stat -c %s "$file" 2>/dev/null || echo 0)
	else
		bytes=$((rate * 4 * AUDIO_SECS)) # -d S stops after S seconds of frames
	fi
	emit "$dir-$rate-bit/s" reference "$(awk -v b="$bytes" -v w="${wall:-0}" 'BEGIN { if (w > 0 && b > 0) printf "%.1f", b * 8 / w }')"
	emit "$dir-$rate-cpu-ms" reference "$(awk -v c="${cpu:-}" 'BEGIN { if (c != "") printf "%.1f", c * 1000 }')"
}
audio_ep() { # DIR RATE
	local dir=$1 rate=$2 wall cpu
	read -r wall cpu < <(timed "$audio_tmp/out" "$EMBPERF" -q --format=csv run "audio.$dir" \
		device="$DEVICE" rate="$rate" channels=2 format=S16_LE period=64 \
		duration="${AUDIO_SECS}s" repetitions=1 metrics=throughput) || true
	emit "$dir-$rate-bit/s" embperf "$(awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ printf "%.1f", $col["value"]; exit }' "$audio_tmp/out")"
	emit "$dir-$rate-cpu-ms" embperf "$(awk -v c="${cpu:-}" 'BEGIN { if (c != "") printf "%.1f", c * 1000 }')"
}

fam_round() {
	local dir rate
	for dir in capture playback; do
		for rate in $AUDIO_RATES; do
			in_turn "$1" audio_ref audio_ep "$dir" "$rate"
		done
	done
}
