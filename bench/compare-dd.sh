#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-dd.sh - blk.fs next to a `dd ... conv=fsync` pair on the same
# folder, interleaved: the cross-check of TI's method (issue 7: within 5 %).
# Not run by the tests; doc/benchmarks-blk.md holds its figures.
#
#   bench/compare-dd.sh [BUILD_DIR]
#
# Environment: DIR (/tmp: the folder measured), SIZE_MB (64), ROUNDS (3),
# BS ("102400 1048576 5242880"), SRC (random: a file of random data on
# /dev/shm; zero: /dev/zero, which costs dd no reading).
#
# Per buffer size and round, the tool order alternating:
#   dd      write: dd if=SRC of=DIR/f bs=BS count=N conv=fsync (no disk I/O
#           for the source);
#           read:  dd if=DIR/f iflag=nocache count=0 (drops the file's cache,
#           as blk.fs's posix_fadvise does), then dd if=DIR/f of=/dev/null bs=BS
#   blk.fs  embperf run blk.fs folder=DIR size=SIZE_MBM bs=BS repetitions=1
# MB/s with MB = 10^6 for both (dd's own figure is recomputed from its
# byte count and seconds). Each run starts in a session of its own
# (setsid -w), as compare-fio.sh explains.
set -eu

build=${1:-build}
dir=${DIR:-/tmp}
size_mb=${SIZE_MB:-64}
rounds=${ROUNDS:-3}
sizes=${BS:-"102400 1048576 5242880"}
embperf="$build/bench/embperf"
tmp=$(mktemp -d)
src=/dev/shm/compare-dd.src
trap 'rm -rf "$tmp" "$dir/compare-dd.dat" /dev/shm/compare-dd.src' EXIT
trap 'exit 130' INT TERM
[ -x "$embperf" ] || { echo "$embperf not built" >&2; exit 1; }

if [ "${SRC:-random}" = zero ]; then
	src=/dev/zero
else
	head -c $((size_mb * 1048576)) /dev/urandom >"$src"
fi

# dd_rate FILE: MB/s from dd's "N bytes ... copied, T s" line.
dd_rate() {
	awk '/bytes/ && /copied/ { for (i = 1; i <= NF; i++) if ($(i) ~ /^s,?$/) t = $(i - 1);
		printf "%.1f\n", $1 / t / 1e6 }' "$1"
}

run_dd() { # BS
	n=$(( size_mb * 1048576 / $1 ))
	setsid -w dd if="$src" of="$dir/compare-dd.dat" bs="$1" count="$n" conv=fsync 2>"$tmp/w"
	dd if="$dir/compare-dd.dat" iflag=nocache count=0 status=none
	setsid -w dd if="$dir/compare-dd.dat" of=/dev/null bs="$1" 2>"$tmp/r"
	echo "$(dd_rate "$tmp/w") $(dd_rate "$tmp/r")"
	rm -f "$dir/compare-dd.dat"
}

run_blk() { # BS
	setsid -w "$embperf" run blk.fs folder="$dir" size="${size_mb}M" bs="$1" repetitions=1 \
		-q --format=json >"$tmp/b.json"
	python3 - "$tmp/b.json" <<'PY'
import json, sys
r = {x["labels"]["op"]: x["value"] for x in json.load(open(sys.argv[1]))["results"]
     if x["metric"] == "throughput"}
print("%.1f %.1f" % (r["write"], r["read"]))
PY
}

echo "# $(uptime)"
echo "# file system of $dir: $(stat -f -c %T "$dir"), ${size_mb} MiB per file, dd from $src"
echo "bs tool round write_MB/s read_MB/s"
for r in $(seq 1 "$rounds"); do
	for bs in $sizes; do
		order="dd blk"
		[ $((r % 2)) -eq 0 ] && order="blk dd"
		for tool in $order; do
			echo "$bs $tool $r $(run_$tool "$bs")" | tee -a "$tmp/all"
		done
	done
done
echo "# $(uptime)"
echo "# median of $rounds rounds"
echo "bs tool write_MB/s read_MB/s"
sort -k1,1n -k2,2 "$tmp/all" | awk '
function med(col,   n, i, j, t, v) {
	n = cnt
	for (i = 1; i <= n; i++) v[i] = val[i, col]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function flush() { if (cnt) printf "%s %s %.1f %.1f\n", key1, key2, med(4), med(5) }
{ if ($1 != key1 || $2 != key2) { flush(); key1 = $1; key2 = $2; cnt = 0 }
  cnt++; for (c = 4; c <= 5; c++) val[cnt, c] = $c }
END { flush() }'
