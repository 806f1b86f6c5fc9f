# SPDX-License-Identifier: MIT
# fam-lat_mem_rd.sh - mem.lat beside lmbench3's lat_mem_rd (fidelity.sh
# family): stride 128, ns per load; lat_mem_rd's own run (`lat_mem_rd
# LAT_MB 128`, its size sweep from 512 bytes up to LAT_MB megabytes) against
# mem.lat's sweep with the same stride, the nearest size taken.
#   LAT_MB     default 1: the sweep of the vendor guide's table (seed 000:
#              lat_mem_rd-stride128 at 32k, 64k, 128k, 256k, 512k and 1M,
#              which it writes 31k ... 1000k); 256 adds DRAM sizes, at
#              about 11 s per size point where lmbench's timing window
#              falls back to 1 s (doc/fidelity/README.md): over 45 minutes
#              a round
#   LAT_SIZES  the rows, bytes (default: the guide's six sizes up to LAT_MB)

LAT_MB=${LAT_MB:-1}
LAT_SIZES=${LAT_SIZES:-$(awk -v mb="$LAT_MB" 'BEGIN { for (s = 32768; s <= mb * 1048576 && s <= 1048576; s *= 2) printf "%s%d", (n++ ? " " : ""), s
	if (mb >= 128) printf " %d", 128 * 1048576 }')}

fam_describe() { echo "mem.lat vs lmbench3 lat_mem_rd $LAT_MB 128, sizes $LAT_SIZES bytes, ns"; }
fam_bands() { echo ".*=0.95:1.05"; } # memory rows: the band for memory, STREAM and fio
fam_refs() {
	[ -x "${LMBENCH_BIN:-}/lat_mem_rd" ] || { echo "LMBENCH_BIN: no lat_mem_rd in '${LMBENCH_BIN:-}'"; return 1; }
	echo "LMBENCH_BIN=$LMBENCH_BIN (lat_mem_rd $LAT_MB 128); $(lmb_timing)"
}
fam_setup() { :; }
# pick: "BYTES NS" lines on stdin; the row of each of LAT_SIZES (within 1 %).
pick() { # TOOL
	awk -v tool="$1" -v sizes="$LAT_SIZES" '
		{ b[NR] = $1; v[NR] = $2 }
		END { n = split(sizes, s, " ")
		      for (i = 1; i <= n; i++) { best = ""; for (j = 1; j <= NR; j++) {
			d = b[j] - s[i]; if (d < 0) d = -d
			if (best == "" || d < best) { best = d; w = v[j] } }
			if (best != "" && best <= s[i] / 100) print "lat-" s[i] / 1024 "k", tool, w } }'
}
lat_ref() {
	pinned "$LMBENCH_BIN/lat_mem_rd" "$LAT_MB" 128 2>&1 |
		awk 'NF == 2 && $1 + 0 > 0 { printf "%.0f %s\n", $1 * 1048576, $2 }' | pick reference
}
lat_ep() {
	pinned_ep_csv run mem.lat "size=512..${LAT_MB}M" stride=128 |
		awk '$1 == "latency" { split($2, a, "_"); sub(/^size=/, "", a[1]); print a[1], $3 }' |
		awk '{ n = $1 + 0; s = substr($1, length($1))
		       if (s == "k") n *= 1024; else if (s == "M") n *= 1048576
		       print n, $2 }' | pick embperf
}
fam_round() { in_turn "$1" lat_ref lat_ep; }
