#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-memory.sh - run embperf's memory kernels and the reference tools
# they reimplement side by side on this machine, and print the median of
# each tool per case and their ratio.
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
#   STREAM_THREADS OMP_NUM_THREADS for stream, threads= for mem.stream (1)
#   PIN_CPU        pin bw and lat runs of both tools to this CPU (taskset)
#
# Output: one line per case: the median of each tool over REPEATS runs, the
# spread of each (max - min in % of its median) and embperf / reference.
# Both tools report MB/s with MB = 10^6 bytes, and ns per load.
set -eu

: "${EMBPERF:?set EMBPERF to the embperf command}"
REPEATS=${REPEATS:-5}
BW_OPS=${BW_OPS:-"rd wr rdwr cp fcp frd fwr bzero bcopy"}
BW_SIZES=${BW_SIZES:-"1M 64M"}
LAT_SIZES=${LAT_SIZES:-"16k 512k 8M 256M"}
LAT_STRIDE=${LAT_STRIDE:-128}
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

# Run a reference tool, pinned when asked.
run_ref() {
	if [ -n "$PIN_CPU" ]; then
		taskset -c "$PIN_CPU" "$@"
	else
		"$@"
	fi
}

# Run embperf; print the CSV report.
run_embperf() {
	if [ -n "$PIN_CPU" ]; then
		"$EMBPERF" -q --format=csv --cpu="$PIN_CPU" "$@"
	else
		"$EMBPERF" -q --format=csv "$@"
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

bw_once() { # OP SIZE
	# bw_mem reads "1m" as 2^20 but "1M" as 10^6 bytes (lmbench's bytes()):
	# give it the byte count so both tools get the same buffer.
	lm=$(run_ref "$BW_MEM" "$(to_bytes "$2")" "$1" 2>&1 | awk 'NF == 2 { print $2 }')
	[ -n "$lm" ] || die "bw_mem $2 $1 printed no result"
	echo "bw_mem:$1:$2 reference $lm" >>"$samples"
	run_embperf run mem.bw op="$1" size="$2" | csv_values |
		awk -v c="bw_mem:$1:$2" '{ print c, "embperf", $3 }' >>"$samples"
}

compare_bw() {
	[ -x "${BW_MEM:-}" ] || die "BW_MEM must name lmbench's bw_mem"
	for size in $BW_SIZES; do
		for op in $BW_OPS; do
			r=1
			while [ "$r" -le "$REPEATS" ]; do
				bw_once "$op" "$size"
				r=$((r + 1))
			done
		done
	done
}

lat_once() { # MAX_MB
	run_ref "$LAT_MEM_RD" "$1" "$LAT_STRIDE" 2>&1 |
		awk 'NF == 2 && $1 + 0 > 0 { printf "%.0f %s\n", $1 * 1048576, $2 }' >"$tmp/lm"
	run_embperf run mem.lat size="512..${1}M" stride="$LAT_STRIDE" | csv_values |
		awk '$1 == "latency" { print $2, $3 }' >"$tmp/ep"
	for s in $LAT_SIZES; do
		b=$(to_bytes "$s")
		# lat_mem_rd prints sizes in MB with 5 decimals: take the nearest.
		awk -v b="$b" -v c="lat_mem_rd:$s:stride$LAT_STRIDE" '
			{ d = $1 - b; if (d < 0) d = -d
			  if (best == "" || d < best) { best = d; v = $2 } }
			END { if (best != "" && best <= b / 100) print c, "reference", v }' \
			"$tmp/lm" >>"$samples"
		awk -v l="size=$s" -v c="lat_mem_rd:$s:stride$LAT_STRIDE" \
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
	r=1
	while [ "$r" -le "$REPEATS" ]; do
		lat_once $((max / 1048576))
		r=$((r + 1))
	done
}

stream_once() { # ELEMENTS
	OMP_NUM_THREADS=$STREAM_THREADS "$STREAM" |
		awk -v t="$STREAM_THREADS" -v n="$1" '
			/^(Copy|Scale|Add|Triad):/ { k = tolower(substr($1, 1, length($1) - 1))
				print "stream:" k ":" n ":threads" t, "reference", $2 }' >>"$samples"
	run_embperf run mem.stream size="$1" threads="$STREAM_THREADS" | csv_values |
		awk -v t="$STREAM_THREADS" -v n="$1" '
			{ print "stream:" $1 ":" n ":threads" t, "embperf", $3 }' >>"$samples"
}

compare_stream() {
	[ -x "${STREAM:-}" ] || die "STREAM must name a stream binary"
	n=$("$STREAM" | awk '/^Array size =/ { print $4; exit }')
	[ -n "$n" ] || die "$STREAM printed no 'Array size' line"
	r=1
	while [ "$r" -le "$REPEATS" ]; do
		stream_once "$n"
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
for p in $parts; do
	case $p in
	bw) compare_bw ;;
	lat) compare_lat ;;
	stream) compare_stream ;;
	*) die "unknown part '$p' (bw, lat, stream)" ;;
	esac
done

echo "# $REPEATS interleaved runs per tool and case, $(($(date +%s) - start)) s;" \
	"MB/s (MB = 10^6 bytes) or ns; spread = (max - min) / median"
sort -k1,1 -k2,2 -k3,3g "$samples" |
	awk -v keyname=case -v refname=reference -v keywidth=34 -v numfmt=%12.3f \
		-v spreadwidth=6 -f "$(dirname "$0")/median-table.awk"
