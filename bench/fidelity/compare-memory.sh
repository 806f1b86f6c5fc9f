#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-memory.sh - run embperf's memory kernels and the reference tools
# they reimplement side by side on this machine, and print the median of
# each tool per case and their ratio, then the harness's paired table (the
# ratio within each round, its median and 95 % interval; paired.sh).
#
# The reference binaries are given by path; this script never downloads or
# builds them. Build them yourself outside the source tree, e.g.
#   lmbench3:  make -C src          (bw_mem, lat_mem_rd under bin/<os>/)
#   STREAM:    gcc -O2 -fopenmp -DSTREAM_ARRAY_SIZE=16777216 stream.c -o stream
#
# Usage: compare-memory.sh [bw] [lat] [stream]
#   With no operand, every part whose reference binary is set runs.
#
# Environment:
#   EMBPERF        the embperf command (required)
#   BW_MEM         lmbench's bw_mem          -> compared with mem.bw
#   LAT_MEM_RD     lmbench's lat_mem_rd      -> compared with mem.lat
#   STREAM         McCalpin's stream binary  -> compared with mem.stream; its
#                  array size is read from its output and given to mem.stream
#   REPEATS        runs of each tool per case, interleaved (default 5)
#   BW_OPS         default "rd wr rdwr cp fcp frd fwr bzero bcopy"
#   BW_SIZES       default "1M 64M" (binary: 1M = 1 MiB; bw_mem is given bytes)
#   LAT_SIZES      sizes to report (default "16k 512k 8M 256M": L1, L2, L3 and
#                  DRAM on the machine of doc/benchmarks-memory.md); both tools
#                  sweep 512 bytes up to the largest, which must be whole MiB
#   LAT_STRIDE     default 128
#   LAT_ORDER      stride (default) or random: lat_mem_rd -t against
#                  mem.lat order=random
#   STREAM_THREADS OMP_NUM_THREADS for stream, threads= for mem.stream (1)
#   STREAM_PARAMS  more mem.stream parameters, e.g. "copy=loop"
#   PIN_CPU        pin both tools' bw and lat runs, and stream runs of one
#                  thread, to this CPU: `taskset -c` on both sides alike
#   STREAM_CPUS    CPU list for stream runs of several threads, both sides
#                  under `taskset -c` (default: none, neither side pinned)
#
# Both sides are run the same way: one call of each tool per run, the
# reference first on odd runs and embperf first on even runs, so that a
# machine that slows down or speeds up during the comparison (another job,
# memory that warms up) does not favour the tool that always runs first.
#
# Output: one line per case: the median of each tool over REPEATS runs, the
# spread of each (max - min in % of its median) and embperf / reference.
# Both tools report MB/s with MB = 10^6 bytes, and ns per load.
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)
. "$(dirname "$0")/paired.sh"

: "${EMBPERF:?set EMBPERF to the embperf command}"
REPEATS=${REPEATS:-5}
BW_OPS=${BW_OPS:-"rd wr rdwr cp fcp frd fwr bzero bcopy"}
BW_SIZES=${BW_SIZES:-"1M 64M"}
LAT_SIZES=${LAT_SIZES:-"16k 512k 8M 256M"}
LAT_STRIDE=${LAT_STRIDE:-128}
LAT_ORDER=${LAT_ORDER:-stride}
STREAM_THREADS=${STREAM_THREADS:-1}
PIN_CPU=${PIN_CPU:-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
samples="$tmp/samples" # lines: CASE TOOL VALUE
: >"$samples"

die() {
	echo "compare-memory.sh: $*" >&2
	exit 2
}

# Run COMMAND... under `taskset -c CPUS` when CPUS is not empty.
pinned() { # CPUS COMMAND...
	cpus=$1
	shift
	if [ -n "$cpus" ]; then
		taskset -c "$cpus" "$@"
	else
		"$@"
	fi
}

# The CPUs of the current part: stream runs of several threads use
# STREAM_CPUS, everything else PIN_CPU.
pin_cpus() {
	if [ "$part" = stream ] && [ "$STREAM_THREADS" -gt 1 ]; then
		echo "${STREAM_CPUS:-}"
	else
		echo "$PIN_CPU"
	fi
}

# Run a reference tool, pinned as embperf is.
run_ref() {
	pinned "$(pin_cpus)" "$@"
}

# Run embperf, pinned as the reference is; print the CSV report.
run_embperf() {
	pinned "$(pin_cpus)" "$EMBPERF" -q --format=csv "$@"
}

# Run the functions REF and EMBPERF (one run of each tool) in the order of
# run number RUN: the reference first on odd runs, embperf first on even.
in_turn() { # RUN REF EMBPERF
	quiet_round "$1"
	if [ $(($1 % 2)) -eq 1 ]; then
		"$2"
		"$3"
	else
		"$3"
		"$2"
	fi
}

# From embperf's CSV on stdin: "METRIC LABELS... VALUE" per result, labels
# joined by '_' so the line splits on blanks.
csv_values() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		 { lab = $col["labels"]; gsub(/ /, "_", lab);
		   print $col["metric"], lab, $col["value"] }'
}

# Bytes of a size with a binary suffix: 16k, 64M, 1G.
to_bytes() {
	echo "$1" | awk '{ n = $1 + 0; s = substr($1, length($1));
		if (s == "k" || s == "K") n *= 1024;
		else if (s == "m" || s == "M") n *= 1048576;
		else if (s == "g" || s == "G") n *= 1073741824;
		printf "%.0f\n", n }'
}

bw_ref() { # uses op, size
	# bw_mem reads "1m" as 2^20 but "1M" as 10^6 bytes (lmbench's bytes()):
	# give it the byte count so both tools get the same buffer.
	lm=$(run_ref "$BW_MEM" "$(to_bytes "$size")" "$op" 2>&1 | awk 'NF == 2 { print $2 }')
	[ -n "$lm" ] || die "bw_mem $size $op printed no result"
	echo "bw_mem:$op:$size reference $lm" >>"$samples"
}

bw_ep() { # uses op, size
	run_embperf run mem.bw op="$op" size="$size" | csv_values |
		awk -v c="bw_mem:$op:$size" '{ print c, "embperf", $3 }' >>"$samples"
}

compare_bw() {
	[ -x "${BW_MEM:-}" ] || die "BW_MEM must name lmbench's bw_mem"
	for size in $BW_SIZES; do
		for op in $BW_OPS; do
			r=1
			while [ "$r" -le "$REPEATS" ]; do
				in_turn "$r" bw_ref bw_ep
				r=$((r + 1))
			done
		done
	done
}

lat_ref() { # uses max_mb
	t=
	[ "$LAT_ORDER" = random ] && t=-t
	# shellcheck disable=SC2086 # $t is empty or one flag
	run_ref "$LAT_MEM_RD" $t "$max_mb" "$LAT_STRIDE" 2>&1 |
		awk 'NF == 2 && $1 + 0 > 0 { printf "%.0f %s\n", $1 * 1048576, $2 }' >"$tmp/lm"
	for s in $LAT_SIZES; do
		b=$(to_bytes "$s")
		# lat_mem_rd prints sizes in MB with 5 decimals: take the nearest.
		awk -v b="$b" -v c="lat_mem_rd:$s:$LAT_ORDER$LAT_STRIDE" '
			{ d = $1 - b; if (d < 0) d = -d
			  if (best == "" || d < best) { best = d; v = $2 } }
			END { if (best != "" && best <= b / 100) print c, "reference", v }' \
			"$tmp/lm" >>"$samples"
	done
}

lat_ep() { # uses max_mb
	run_embperf run mem.lat size="512..${max_mb}M" stride="$LAT_STRIDE" order="$LAT_ORDER" |
		csv_values |
		awk '$1 == "latency" { print $2, $3 }' >"$tmp/ep"
	for s in $LAT_SIZES; do
		awk -v l="size=$s" -v c="lat_mem_rd:$s:$LAT_ORDER$LAT_STRIDE" \
			'$1 == l { print c, "embperf", $2 }' "$tmp/ep" >>"$samples"
	done
}

compare_lat() {
	[ -x "${LAT_MEM_RD:-}" ] || die "LAT_MEM_RD must name lmbench's lat_mem_rd"
	max=0
	for s in $LAT_SIZES; do
		b=$(to_bytes "$s")
		[ "$b" -gt "$max" ] && max=$b
	done
	[ $((max % 1048576)) -eq 0 ] || die "the largest of LAT_SIZES must be whole MiB"
	max_mb=$((max / 1048576))
	r=1
	while [ "$r" -le "$REPEATS" ]; do
		in_turn "$r" lat_ref lat_ep
		r=$((r + 1))
	done
}

stream_ref() { # uses n
	OMP_NUM_THREADS=$STREAM_THREADS run_ref "$STREAM" |
		awk -v t="$STREAM_THREADS" -v n="$n" '
			/^(Copy|Scale|Add|Triad):/ { k = tolower(substr($1, 1, length($1) - 1))
				print "stream:" k ":" n ":threads" t, "reference", $2 }' >>"$samples"
}

stream_ep() { # uses n
	# shellcheck disable=SC2086 # STREAM_PARAMS splits on blanks
	run_embperf run mem.stream size="$n" threads="$STREAM_THREADS" ${STREAM_PARAMS:-} |
		csv_values | awk -v t="$STREAM_THREADS" -v n="$n" '
			{ print "stream:" $1 ":" n ":threads" t, "embperf", $3 }' >>"$samples"
}

compare_stream() {
	[ -x "${STREAM:-}" ] || die "STREAM must name a stream binary"
	n=$("$STREAM" | awk '/^Array size =/ { print $4; exit }')
	[ -n "$n" ] || die "$STREAM printed no 'Array size' line"
	r=1
	while [ "$r" -le "$REPEATS" ]; do
		in_turn "$r" stream_ref stream_ep
		r=$((r + 1))
	done
}

parts=${*:-}
if [ -z "$parts" ]; then
	[ -n "${BW_MEM:-}" ] && parts="$parts bw"
	[ -n "${LAT_MEM_RD:-}" ] && parts="$parts lat"
	[ -n "${STREAM:-}" ] && parts="$parts stream"
fi
[ -n "$parts" ] || die "nothing to compare: set BW_MEM, LAT_MEM_RD or STREAM"
start=$(date +%s)
for part in $parts; do
	case $part in
	bw) compare_bw ;;
	lat) compare_lat ;;
	stream) compare_stream ;;
	*) die "unknown part '$part' (bw, lat, stream)" ;;
	esac
done

echo "# $REPEATS interleaved runs per tool and case, $(($(date +%s) - start)) s;" \
	"MB/s (MB = 10^6 bytes) or ns; spread = (max - min) / median"
sort -k1,1 -k2,2 -k3,3g "$samples" |
	awk -v keyname=case -v refname=reference -v keywidth=34 -v numfmt=%12.3f \
		-v spreadwidth=6 -f "$(dirname "$0")/median-table.awk"
# Then the harness's paired table: the i-th embperf run of a case over the
# i-th reference run, which were made in the same round.
echo
paired_table reference "$samples"
