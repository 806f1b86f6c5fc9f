# SPDX-License-Identifier: MIT
# fam-stream.sh - mem.stream beside McCalpin's STREAM (fidelity.sh family).
# Reference: STREAM=path of stream.c built as its users build it, e.g.
#   gcc -O2 -fopenmp -DSTREAM_ARRAY_SIZE=16777216 stream.c -o stream
# run with OMP_NUM_THREADS=1 (one thread, as mem.stream's default), pinned
# alike. Rows: copy, scale, add, triad in MB/s, STREAM's figure (best rate
# of its 10 runs, the first excluded) and mem.stream's primary value, for
# the array size STREAM prints.

fam_describe() { echo "mem.stream vs STREAM (McCalpin), 1 thread, MB/s"; }
fam_bands() { echo ".*=0.95:1.05"; }
fam_refs() {
	[ -x "${STREAM:-}" ] || { echo "STREAM: not set to a stream binary (build stream.c outside the tree)"; return 1; }
	echo "STREAM=$STREAM ($("$STREAM" | awk '/^STREAM version/ { print $0; exit }'))"
}
fam_setup() {
	stream_n=$(OMP_NUM_THREADS=1 "$STREAM" | awk '/^Array size =/ { print $4; exit }')
	[ -n "$stream_n" ] || { echo "STREAM printed no 'Array size' line" >&2; return 1; }
}
stream_ref() {
	OMP_NUM_THREADS=1 pinned "$STREAM" | awk '/^(Copy|Scale|Add|Triad):/ {
		print tolower(substr($1, 1, length($1) - 1)), "reference", $2 }'
}
stream_ep() {
	pinned "$EMBPERF" -q --format=csv run mem.stream size="$stream_n" threads=1 | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ print $col["metric"], "embperf", $col["value"] }'
}
fam_round() { in_turn "$1" stream_ref stream_ep; }
