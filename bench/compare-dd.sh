#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-dd.sh - blk.fs next to a `dd ... conv=fsync` pair on the same
# folder, interleaved: the cross-check of TI's method (issue 7: within 5 %).
# Not run by the tests; doc/benchmarks-blk.md holds its figures.
#
#   bench/compare-dd.sh [BUILD_DIR]
#
# Environment: DIR (/tmp: the folder measured), SIZE_MB (256), ROUNDS (5),
# BS ("102400 1048576 5242880"), SRC (random: a file of random data on
# /dev/shm; zero: /dev/zero, which costs dd less reading), PIN (1: both
# tools run under `taskset -c PIN`; empty: not pinned).
#
# Per buffer size and round, the tool order alternating:
#   dd      write: dd if=SRC of=DIR/f bs=BS count=N conv=fsync (no disk I/O
#           for the source);
#           read:  dd if=DIR/f iflag=nocache count=0 (drops the file's cache,
#           as blk.fs's posix_fadvise does), then dd if=DIR/f of=/dev/null bs=BS
#           source: dd if=SRC of=/dev/null bs=BS count=N, dd's own cost of
#           reading its source, which its write loop pays on top of the
#           writes (blk.fs writes from a buffer it fills in place)
#   blk.fs  embperf run blk.fs folder=DIR size=SIZE_MBM bs=BS repetitions=1
# MB/s with MB = 10^6 for both (dd's own figure is recomputed from its
# byte count and seconds). Each run starts in a session of its own
# (setsid -w), as compare-fio.sh explains. Printed: each run with the
# 1-minute load average when it started, the medians, and blk.fs over dd
# per buffer size, with dd's write predicted from blk.fs's and dd's source
# read (1 / (1/blk_write + 1/src): the two run one after the other in
# dd's loop) beside dd's measured one.
set -eu

build=${1:-build}
dir=${DIR:-/tmp}
size_mb=${SIZE_MB:-256}
rounds=${ROUNDS:-5}
pin=${PIN-1}
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
other=dd
[ -n "${REF:-}" ] && other=ref

# dd_rate FILE: MB/s from dd's "N bytes ... copied, T s" line.
dd_rate() {
	awk '/bytes/ && /copied/ { for (i = 1; i <= NF; i++) if ($(i) ~ /^s,?$/) t = $(i - 1);
		printf "%.1f\n", $1 / t / 1e6 }' "$1"
}

# pinned CMD...: CMD in a session of its own, on the CPUs of PIN.
pinned() {
	if [ -n "$pin" ]; then
		setsid -w taskset -c "$pin" "$@"
	else
		setsid -w "$@"
	fi
}

run_dd() { # BS
	n=$(( size_mb * 1048576 / $1 ))
	pinned dd if="$src" of="$dir/compare-dd.dat" bs="$1" count="$n" conv=fsync 2>"$tmp/w"
	dd if="$dir/compare-dd.dat" iflag=nocache count=0 status=none
	pinned dd if="$dir/compare-dd.dat" of=/dev/null bs="$1" 2>"$tmp/r"
	rm -f "$dir/compare-dd.dat"
	pinned dd if="$src" of=/dev/null bs="$1" count="$n" 2>"$tmp/s"
	echo "$(dd_rate "$tmp/w") $(dd_rate "$tmp/r") $(dd_rate "$tmp/s")"
}

run_ref() { # BS
	pinned "$REF" "$dir/compare-dd.dat" $((size_mb * 1048576)) "$1" | tr -d '\n'
	echo " -"
}

run_blk() { # BS
	pinned "$embperf" run blk.fs folder="$dir" size="${size_mb}M" bs="$1" repetitions=1 \
		-q --format=json >"$tmp/b.json"
	python3 - "$tmp/b.json" <<'PY'
import json, sys
r = {x["labels"]["op"]: x["value"] for x in json.load(open(sys.argv[1]))["results"]
     if x["metric"] == "throughput"}
print("%.1f %.1f -" % (r["write"], r["read"]))
PY
}

echo "# $(uptime)"
echo "# file system of $dir: $(stat -f -c %T "$dir"), ${size_mb} MiB per file, dd from $src; pinned to CPUs: ${pin:-none}"
echo "bs tool round load1 write_MB/s read_MB/s src_MB/s"
for r in $(seq 1 "$rounds"); do
	for bs in $sizes; do
		order="$other blk"
		[ $((r % 2)) -eq 0 ] && order="blk $other"
		for tool in $order; do
			load=$(cut -d' ' -f1 /proc/loadavg)
			echo "$bs $tool $r $load $(run_$tool "$bs")" | tee -a "$tmp/all"
		done
	done
done
echo "# $(uptime)"
echo "# median of $rounds rounds"
echo "bs tool load1 write_MB/s read_MB/s src_MB/s"
sort -k1,1n -k2,2 "$tmp/all" | awk '
function med(col,   n, i, j, t, v) {
	n = cnt
	for (i = 1; i <= n; i++) v[i] = val[i, col]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function flush() { if (cnt) printf "%s %s %.1f %.1f %.1f %s\n", key1, key2, med(4), med(5), med(6), key2 == "dd" ? sprintf("%.1f", med(7)) : "-" }
{ if ($1 != key1 || $2 != key2) { flush(); key1 = $1; key2 = $2; cnt = 0 }
  cnt++; for (c = 4; c <= 7; c++) val[cnt, c] = $c }
END { flush() }' | tee "$tmp/med"
echo "# blk.fs / $other, medians; dd's write predicted from blk.fs's write and dd's source read"
echo "bs write_ratio read_ratio dd_write_predicted_MB/s dd_write_measured_MB/s"
awk '$2 == "dd" || $2 == "ref" { dw[$1] = $4; dr[$1] = $5; ds[$1] = $6 }
$2 == "blk" { bw[$1] = $4; br[$1] = $5 }
END { for (k in bw) printf "%s %.3f %.3f %s %.1f\n", k, bw[k] / dw[k], br[k] / dr[k],
	(ds[k] > 0 ? sprintf("%.1f", 1 / (1 / bw[k] + 1 / ds[k])) : "-"), dw[k] }' "$tmp/med" | sort -n
