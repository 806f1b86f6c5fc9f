#!/bin/bash
# SPDX-License-Identifier: MIT
#
# compare-fio-vm.sh - blk.io next to fio on a block device whose latency is
# set by the device and not by the CPU: the kernel's null_blk driver with
# timer completions (irqmode=2, completion_nsec), in a VM booted from
# Debian's kernel under qemu (TCG) the way the VM test tier does it
# (tests/vm/lib.sh). On the host's own disk and tmpfs the tools' CPU sets
# the pace (doc/benchmarks-blk.md); a board's storage is slower than the
# CPU, and this device stands in for one. Not run by the tests; the figures
# are in doc/benchmarks-blk.md.
#
#   bench/fidelity/compare-fio-vm.sh [BUILD_DIR]
#
# Environment: LAT_US (10000: the device's completion time for iodepth 1
# and 8), LAT32_US (50000: for the iodepth-32 cases, a second device, so
# that 32 I/Os in flight still leave the guest's CPU idle most of the time;
# under TCG the guest's CPU is some 30x slower than the host's, so the
# device must be slow for it, not the tools, to set the pace),
# FIO_PIN (process: `taskset -c 1 fio ...`, fio's parent and helper thread
# on CPU 1 with its job, as blk.io's whole process; job: `fio
# --cpus_allowed=1 ...`, only fio's job on CPU 1, its parent and helper
# free to run on CPU 0; split: `taskset -c 0 fio --cpus_allowed=1 ...`,
# the job on CPU 1, its parent and helper held on CPU 0), TARGET (device: the null_blk disk itself, 256 MiB
# of it; file: a 256 MiB file on ext4 on a memory-backed null_blk disk with
# the same completion times, written once with random data, as
# compare-fio.sh's file), FIO_ARGS (more fio options, e.g. --disk_util=0),
# BESIDE (a guest command line kept running on the guest's CPU 0 through all
# the runs, for both tools alike: to see how another process's wake-ups on
# the guest's other CPU move the tools' latency tail),
# SECONDS_PER_RUN (5), ROUNDS (5), CASES (as
# compare-fio.sh), LOG (a file
# to keep the guest's console in), and the VM tier's EMBPERF_VM_CACHE,
# EMBPERF_VM_TIMEOUT (set here from the runs' count unless given),
# EMBPERF_VM_MEM (1024, 1536 for TARGET=file: fio's libraries are ~85 MB) and EMBPERF_VM_APPEND
# ("clocksource=tsc tsc=reliable": without it the guest reads the HPET,
# which under TCG makes every clock read cost both tools tens of us).
#
# Inside the guest both tools run on its CPU 1 (taskset), the tool order
# alternating from round to round, with the command lines of compare-fio.sh
# (on the device, 256 MiB of it, or on the file; blk.io with destructive=1 for the
# device: null_blk without memory_backed keeps no data). Each run's JSON
# report is printed on the console between markers and read here, with
# the device's /sys/block/DEV/stat before and after it. Printed: the lines
# and tables of compare-fio.sh, then each tool's mean completion latency
# over the kernel's mean time per request on the device in the same run,
# and each tool's whole CPU time (bench/probes/cpu-of: all its threads, io_uring's
# io-wq workers too) per request the device completed; last, as
# compare-fio.sh, blk.io over fio within each round (a run without a report
# leaves its round out), the median of those ratios and its 95 % interval
# (paired-ratios.awk).
set -u
. "$(dirname "$0")/quiet.sh" # the host quiet when the guest starts (fidelity protocol)

BUILD=${1:-build}
secs=${SECONDS_PER_RUN:-5}
rounds=${ROUNDS:-5}
lat_us=${LAT_US:-10000}
lat32_us=${LAT32_US:-50000}
fio_pin=${FIO_PIN:-process}
case $fio_pin in process|job|split) ;; *) echo "FIO_PIN: '$fio_pin'; accepted: process, job, split" >&2; exit 2 ;; esac
target=${TARGET:-device}
fio_args=${FIO_ARGS:-}
beside=${BESIDE:-}
case $target in device) mem=1024 ;; file) mem=1536 ;;
*) echo "TARGET: '$target'; accepted: device, file" >&2; exit 2 ;; esac
export EMBPERF_VM_MEM=${EMBPERF_VM_MEM:-$mem}
export EMBPERF_VM_APPEND=${EMBPERF_VM_APPEND-clocksource=tsc tsc=reliable}

. "$(dirname "$0")/fio_tables.sh"
. "$(dirname "$0")/paired.sh"
cases=$(fio_cases)
ncases=$(echo $cases | wc -w)
# Each run: its seconds, ~8 s of process start under TCG; plus the boot.
export EMBPERF_VM_TIMEOUT=${EMBPERF_VM_TIMEOUT:-$((rounds * ncases * 2 * (secs + 8) + 120))}

export EMBPERF_VM_SMP=${EMBPERF_VM_SMP:-2} # both tools run on the guest's CPU 1
. "$(dirname "$0")/../../tests/vm/lib.sh"
die() { echo "compare-fio-vm.sh: $1" >&2; exit 1; }
skip_all() { die "$1"; }

command -v fio >/dev/null || die "fio not found (apt-get install fio)"
command -v python3 >/dev/null || die "python3 not found"
vm_need_tools
vm_kernel_deb
vm_unpack './lib/modules/*/kernel/drivers/block/null_blk/*' './lib/modules/*/kernel/fs/configfs/*' \
	"${VM_EXT4_PATHS[@]}"
vm_module null_blk || die "$deb has no null_blk.ko"
[ "$target" = device ] || vm_ext4 || exit 1
vm_module configfs || true
vm_install_embperf
vm_copy_with_libs "$(command -v fio)"
[ -x "$BUILD/bench/probes/cpu-of" ] || die "$BUILD/bench/probes/cpu-of not built"
cp "$BUILD/bench/probes/cpu-of" "$R/bin/cpu-of"
# BESIDE as a file of its own: a command line with quotes or $ in it would
# not survive being pasted into /init.
[ -n "$beside" ] && printf '%s\n' "$beside" >"$R/beside.sh"

{
	vm_init_head
	vm_init_interleave
	cat <<INIT
secs=$secs; rounds=$rounds; lat_us=$lat_us; lat32_us=$lat32_us; fio_pin=$fio_pin
target=$target; mke2fs=$(command -v mke2fs); fio_args="$fio_args"
ext4_modules="$VM_EXT4_MODULES"
cases="$cases"
INIT
	cat <<'INIT'
[ -f configfs.ko ] && insmod configfs.ko
insmod null_blk.ko nr_devices=0
mount -t configfs none /sys/kernel/config
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm
# nullb NAME LAT_US: /dev/NAME (6.1 names the disk after its folder), a
# 1 GiB device with timer completions after LAT_US. For TARGET=file it
# keeps its data (memory_backed, 512 MiB) and holds ext4 on /NAME, with
# the 256 MiB file /NAME/compare-fio.dat written once (random data).
nullb() {
	d=/sys/kernel/config/nullb/$1
	mkdir "$d" || return 1
	echo 1024 >"$d/size"; echo 4096 >"$d/blocksize"; echo 2 >"$d/irqmode"
	echo $(($2 * 1000)) >"$d/completion_nsec"; echo 64 >"$d/hw_queue_depth"
	[ "$target" = file ] && { echo 512 >"$d/size"; echo 1 >"$d/memory_backed"; }
	echo 1 >"$d/power" || return 1
	[ "$target" = file ] || return 0
	"$mke2fs" -q -F -t ext4 "/dev/$1" && mkdir -p "/$1" && mount -t ext4 "/dev/$1" "/$1" &&
		dd if=/dev/urandom of="/$1/compare-fio.dat" bs=1M count=256 conv=fsync 2>/dev/null
}
if [ "$target" = file ]; then
	for m in $ext4_modules; do [ -f $m.ko ] && insmod $m.ko; done
fi
nullb nullb0 "$lat_us" && nullb nullb1 "$lat32_us" || echo "@@ no null_blk devices"
[ "$target" = file ] && echo "@@ files: $(ls -l /nullb0/compare-fio.dat /nullb1/compare-fio.dat | tr '\n' ' ')"
echo "@@ devices: $(ls /dev | grep nullb | tr '\n' ' ')"
echo "@@ clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
run_tool() {
	rm -f /tmp/cpu # a run whose tool did not start leaves no figure of an earlier one
	k0=$(cat /sys/block/${dev#/dev/}/stat)
	if [ "$1" = fio ]; then
		case $fio_pin in
		process) pin="taskset -c 1" cpus="" ;;
		job) pin="" cpus="--cpus_allowed=1" ;;
		split) pin="taskset -c 0" cpus="--cpus_allowed=1" ;;
		esac
		$pin cpu-of /tmp/cpu /usr/bin/fio --name="$name" --filename="$on" --size=256M --rw="$rw" \
			--bs="$bs" --direct=1 --ioengine="$engine" --iodepth="$depth" $cpus \
			--time_based --runtime="$secs" --norandommap $fio_args --output-format=json 2>/dev/null
	else
		taskset -c 1 cpu-of /tmp/cpu embperf run blk.io target="$on" $destructive size=256M rw="$rw" \
			bs="$bs" direct=1 engine="$engine" iodepth="$depth" time_based=1 \
			duration="${secs}s" repetitions=1 -q --format=json 2>/dev/null
	fi
}
after_tool() {
	echo "@@ kstat $name $1 $r $k0 / $(cat /sys/block/${dev#/dev/}/stat)"
	echo "@@ cpu $name $1 $r $(cat /tmp/cpu)"
}
[ -f /beside.sh ] && { taskset -c 0 sh /beside.sh >/dev/null 2>&1 & echo "@@ beside: $(cat /beside.sh)"; }
set_case() {
	IFS=: read name rw bs engine depth <<EOF
$1
EOF
	label=$name dev=/dev/nullb0
	[ "$depth" = 32 ] && dev=/dev/nullb1
	on=$dev destructive=destructive=1
	[ "$target" = file ] && on=/${dev#/dev/}/compare-fio.dat destructive=
}
quiet_wait # the guest runs every round: the host must be quiet before it boots
echo "# host before the guest: $(quiet_state)" >&2
run_rounds "$rounds" "$cases" "fio blk"
INIT
} >"$R/init"

echo "# $(uptime)"
echo "# host cpu:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); guest: qemu TCG, 2 vCPUs, ${EMBPERF_VM_MEM} MiB; null_blk completions after ${lat_us} us (iodepth 1, 8) and ${lat32_us} us (iodepth 32); fio pinned by $fio_pin; target $target; fio's extra arguments: ${fio_args:-none}; beside: ${beside:-nothing}"
vm_boot_runs
grep -o '@@ \(devices\|clocksource\|no null_blk\|files\|beside\).*' "$T/log" | sed 's/^@@ /# guest /'
all=$T/all
: >"$all"
echo "case tool round load1 MB/s IOPS p50_us p99_us cpu_pct cpu_us_per_io"
while read -r name tool r load file; do
	line=$(summary "$tool" "$file" 2>/dev/null) || { echo "# $name $tool $r: no report" >&2; continue; }
	echo "$name $tool $r $load $line" | tee -a "$all"
done <"$T/runs"
fio_tables "$rounds" "$all"

# The device's own count (/sys/block/DEV/stat, before and after each run):
# its I/Os' mean time from queueing to completion, against which each
# tool's mean completion latency is read.
echo "# mean completion latency / the kernel's mean time per request (/sys/block/nullbN/stat), medians"
echo "case blk fio"
python3 - "$T/log" "$T/runs" <<'PY'
import json, statistics, sys
kernel, tool_mean, requests, cpu_us = {}, {}, {}, {}
for line in open(sys.argv[1]):
    if line.startswith("@@ kstat "):
        f = line.split()
        before, after = f[5:f.index("/")], f[f.index("/") + 1:]
        d = [int(b) - int(a) for a, b in zip(before, after)]
        ios, ticks_ms = d[0] + d[4], d[3] + d[7]
        if ios:
            kernel[(f[2], f[3], f[4])] = ticks_ms * 1e3 / ios
            requests[(f[2], f[3], f[4])] = ios
    elif line.startswith("@@ cpu ") and len(line.split()) == 7:
        f = line.split()
        cpu_us[(f[2], f[3], f[4])] = int(f[5]) + int(f[6])
for line in open(sys.argv[2]):
    name, tool, rnd, _, path = line.split()
    try:
        d = json.load(open(path))
        if tool == "fio":
            j = d["jobs"][0]
            io = j["read"] if j["read"]["io_bytes"] else j["write"]
            tool_mean[(name, tool, rnd)] = io["clat_ns"]["mean"] / 1e3
        else:
            r = {x["metric"]: x for x in d["results"]}
            tool_mean[(name, tool, rnd)] = r["latency"]["distribution"]["mean"]
    except (OSError, ValueError, KeyError, IndexError):
        pass
ratio = {}
for k, v in tool_mean.items():
    if kernel.get(k):
        ratio.setdefault((k[0], k[1]), []).append(v / kernel[k])
for name in sorted({k[0] for k in ratio}):
    print(name, " ".join("%.3f" % statistics.median(ratio[(name, t)]) if (name, t) in ratio
                         else "-" for t in ("blk", "fio")))
# Each tool's whole CPU (cpu-of: every thread, io-wq workers and process
# start included) per request the device completed.
per_req = {}
for k, us in cpu_us.items():
    if requests.get(k):
        per_req.setdefault((k[0], k[1]), []).append(us / requests[k])
print("# whole-process CPU (cpu-of) per request the device completed, us, medians; blk/fio")
print("case blk fio ratio")
for name in sorted({k[0] for k in per_req}):
    m = {t: statistics.median(per_req[(name, t)]) for t in ("blk", "fio") if (name, t) in per_req}
    print(name, " ".join("%.1f" % m[t] if t in m else "-" for t in ("blk", "fio")),
          "%.3f" % (m["blk"] / m["fio"]) if m.get("fio") and "blk" in m else "-")
PY
fio_pairs "$all" | paired_rounds >"$T/paired"
paired_table fio "$T/paired"
