#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-fio.sh - blk.io next to fio on the same file, same engine and
# flags, interleaved. Not run by the tests (it takes minutes and writes
# SIZE bytes); doc/benchmarks-blk.md holds its figures.
#
#   bench/fidelity/compare-fio.sh [BUILD_DIR]
#
# Environment: DIR (/tmp: the folder of the file; /dev/shm for tmpfs),
# SIZE (256M), SECONDS_PER_RUN (5), ROUNDS (5), PIN (1: both tools run
# under `taskset -c PIN`, the same CPU list for both; empty: not pinned).
#
# The file DIR/compare-fio.dat is written once with dd (random data,
# O_DIRECT, fsync) and removed at the end. Each round runs every case with
# both tools, the tool order alternating from round to round:
#   fio     fio --name=c --filename=F --size=SIZE --rw=RW --bs=BS --direct=1
#           --ioengine=ENGINE --iodepth=D --time_based --runtime=S
#           --norandommap --output-format=json
#   blk.io  embperf run blk.io target=F size=SIZE rw=RW bs=BS direct=1
#           engine=ENGINE iodepth=D time_based=1 duration=Ss repetitions=1
#           --format=json
# (--norandommap: blk.io draws random blocks uniformly, with repeats.)
# blk.io's io_uring loop is fio's with fio's defaults (iodepth_batch=1, as
# fio's iodepth_batch_submit=1: one io_uring_enter per I/O; completions
# reaped when the ring is full), so no option differs between the two.
# Each run starts in a session of its own (setsid -w): with the scheduler's
# autogroups (/proc/sys/kernel/sched_autogroup_enabled), the processes of
# one session share one CPU share, so a tool run from a busy shell session
# would get less CPU than one that is not (doc/benchmarks-blk.md).
# Cases (ENGINE psync, iodepth 1): seqread (read, 1M), seqwrite (write, 1M),
# randread (randread, 4k), randwrite (randwrite, 4k); with io_uring (fio's
# defaults otherwise: no fixed buffers, no registered files, no SQ polling,
# one I/O per submission batch minimum): uring1-randread and
# uring1-randwrite (4k, iodepth 1), uring32-randread and uring32-randwrite
# (4k, iodepth 32), uring-seqread (1M, iodepth 8). CASES="..." picks some
# by name. Printed per run and as the median of the rounds: the 1-minute
# load average when the run started (the machine may be shared), MB/s
# (10^6), IOPS, p50 and p99 completion latency (us), CPU (% of one CPU:
# fio's usr_cpu + sys_cpu, blk.io's cpu_process) and that CPU time per I/O
# (us); then blk.io's medians over fio's, per case; then blk.io over fio
# within each round, per case and figure of that table, the median of those
# ratios and its 95 % interval (paired-ratios.awk).
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)

build=${1:-/tmp/build-blk}
dir=${DIR:-/tmp}
size=${SIZE:-256M}
secs=${SECONDS_PER_RUN:-5}
rounds=${ROUNDS:-5}
pin=${PIN-1}
embperf="$build/bench/embperf"
file="$dir/compare-fio.dat"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$file"' EXIT
trap 'exit 130' INT TERM

command -v fio >/dev/null || { echo "fio not found (apt-get install fio)" >&2; exit 1; }
command -v setsid >/dev/null || { echo "setsid not found (util-linux)" >&2; exit 1; }
[ -z "$pin" ] || command -v taskset >/dev/null || { echo "taskset not found (util-linux)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 1; }
[ -x "$embperf" ] || { echo "$embperf not built" >&2; exit 1; }
. "$(dirname "$0")/fio_tables.sh"
. "$(dirname "$0")/paired.sh"

# pinned CMD...: CMD in a session of its own, on the CPUs of PIN.
pinned() {
	if [ -n "$pin" ]; then
		setsid -w taskset -c "$pin" "$@"
	else
		setsid -w "$@"
	fi
}

# run_fio CASE RW BS ENGINE DEPTH OUT, run_blk (the same): one run into OUT (JSON).
run_fio() {
	pinned fio --name="$1" --filename="$file" --size="$size" --rw="$2" --bs="$3" --direct=1 \
		--ioengine="$4" --iodepth="$5" --time_based --runtime="$secs" --norandommap \
		--output-format=json >"$6"
}
run_blk() {
	pinned "$embperf" run blk.io target="$file" size="$size" rw="$2" bs="$3" direct=1 \
		engine="$4" iodepth="$5" time_based=1 duration="${secs}s" repetitions=1 \
		--format=json >"$6"
}

cases=$(fio_cases)

echo "# $(uptime)"
echo "# cpu:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) CPUs; file system of $dir: $(stat -f -c %T "$dir"); pinned to CPUs: ${pin:-none}"
dd if=/dev/urandom of="$file" bs=1M count="$(echo "$size" | sed 's/M$//')" oflag=direct \
	conv=fsync status=none
echo "case tool round load1 MB/s IOPS p50_us p99_us cpu_pct cpu_us_per_io"
for r in $(seq 1 "$rounds"); do
	quiet_round "$r"
	for c in $cases; do
		oifs=$IFS
		IFS=:
		set -- $c
		IFS=$oifs
		name=$1 rw=$2 bs=$3 engine=$4 depth=$5
		order="fio blk"
		[ $((r % 2)) -eq 0 ] && order="blk fio"
		for tool in $order; do
			out="$tmp/$name.$tool.$r.json"
			load=$(cut -d' ' -f1 /proc/loadavg)
			"run_$tool" "$name" "$rw" "$bs" "$engine" "$depth" "$out"
			echo "$name $tool $r $load $(summary "$tool" "$out")" | tee -a "$tmp/all"
		done
	done
done
echo "# $(uptime)"
fio_tables "$rounds" "$tmp/all"
fio_pairs "$tmp/all" | paired_rounds >"$tmp/paired"
paired_table fio "$tmp/paired"
