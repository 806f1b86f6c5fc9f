#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-dd.sh - blk.fs next to a `dd ... conv=fsync` pair on the same
# folder, interleaved: the cross-check of TI's method (target: within 5 %).
# Not run by the tests; doc/benchmarks-blk.md holds its figures.
#
#   bench/fidelity/compare-dd.sh [BUILD_DIR]
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
# dd's loop) beside dd's measured one; then the same ratios with each tool
# compared only to the other's runs in the same position of the round;
# then blk.fs over dd (over REF when REF is set) within each round, write
# and read per buffer size, the median of those ratios and its 95 %
# interval (paired-ratios.awk).
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)

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
. "$(dirname "$0")/dd_tables.sh"
. "$(dirname "$0")/paired.sh"

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
	echo "$(blk_fs_figures "$tmp/b.json") -"
}

echo "# $(uptime)"
echo "# file system of $dir: $(stat -f -c %T "$dir"), ${size_mb} MiB per file, dd from $src; pinned to CPUs: ${pin:-none}"
echo "bs tool round load1 write_MB/s read_MB/s src_MB/s"
for r in $(seq 1 "$rounds"); do
	quiet_round "$r"
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
dd_tables "$rounds" "$tmp/all" "$other"
dd_pairs "$tmp/all" "$other" | paired_rounds >"$tmp/paired"
paired_table "$other" "$tmp/paired"
