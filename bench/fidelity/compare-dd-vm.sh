#!/bin/bash
# SPDX-License-Identifier: MIT
#
# compare-dd-vm.sh - blk.fs next to a reimplementation of TI's filesystem
# method (REF, kept outside the tree: see compare-dd.sh and
# doc/benchmarks-blk.md) on ext4 over a block device whose speed is set by
# the device: the kernel's null_blk driver, memory-backed (it keeps the
# data, so a cold read really reads the device) and throttled to MBPS, in a
# VM booted from Debian's kernel under qemu (TCG) as the VM test tier does
# (tests/vm/lib.sh). On the host's virtio disk a read after DONTNEED comes
# from the host's cache, in two modes for any tool; on a board it comes from
# the medium, as here. Not run by the tests.
#
#   REF=/path/to/ti-method-program bench/fidelity/compare-dd-vm.sh [BUILD_DIR]
#
# REF is run as `REF FILE SIZE_BYTES BS` and prints "write_MB/s read_MB/s"
# (MB = 10^6): write() calls of BS and an fsync timed, posix_fadvise
# DONTNEED, read() calls of BS timed. Environment: MBPS (50: null_blk's
# bandwidth limit, MiB/s, below what the guest's CPU can copy under TCG),
# SIZE_MB (64), ROUNDS (6), BS ("102400 1048576 5242880"), LOG (a file to
# keep the guest's console in), and the VM tier's EMBPERF_VM_CACHE,
# EMBPERF_VM_TIMEOUT, EMBPERF_VM_MEM (1536: the device's 512 MiB are guest
# memory), EMBPERF_VM_APPEND ("clocksource=tsc tsc=reliable", as
# compare-fio-vm.sh).
#
# Inside the guest: a 512 MiB null_blk disk made with mke2fs -t ext4 and
# mounted on /mnt; per round and buffer size both tools on the guest's CPU 1
# (taskset), the order alternating by round:
#   ref     REF /mnt/compare-dd.dat SIZE BS
#   blk.fs  embperf run blk.fs folder=/mnt size=SIZE_MBM bs=BS repetitions=1
# The tables are compare-dd.sh's (bench/fidelity/dd_tables.sh), and after
# them, as there, blk.fs over ref within each round (write and read per
# buffer size; a run that gave no figures leaves its round out), the median
# of those ratios and its 95 % interval (paired-ratios.awk).
set -u
. "$(dirname "$0")/quiet.sh" # the host quiet when the guest starts (fidelity protocol)

BUILD=${1:-build}
rounds=${ROUNDS:-6}
size_mb=${SIZE_MB:-64}
mbps=${MBPS:-50}
sizes=${BS:-"102400 1048576 5242880"}
export EMBPERF_VM_MEM=${EMBPERF_VM_MEM:-1536}
export EMBPERF_VM_APPEND=${EMBPERF_VM_APPEND-clocksource=tsc tsc=reliable}
# Each run writes and reads SIZE_MB at about MBPS, plus ~5 s of start under TCG.
export EMBPERF_VM_TIMEOUT=${EMBPERF_VM_TIMEOUT:-$((rounds * $(echo $sizes | wc -w) * 2 * (2 * size_mb / mbps + 6) + 180))}

export EMBPERF_VM_SMP=${EMBPERF_VM_SMP:-2} # both tools run on the guest's CPU 1
. "$(dirname "$0")/../../tests/vm/lib.sh"
. "$(dirname "$0")/dd_tables.sh"
. "$(dirname "$0")/paired.sh"
die() { echo "compare-dd-vm.sh: $1" >&2; exit 1; }
skip_all() { die "$1"; }

[ -n "${REF:-}" ] && [ -x "$REF" ] || die "REF: '${REF:-}' is not a program (the TI-method reference)"
command -v python3 >/dev/null || die "python3 not found"
vm_need_tools
vm_kernel_deb
vm_unpack './lib/modules/*/kernel/drivers/block/null_blk/*' './lib/modules/*/kernel/fs/configfs/*' \
	"${VM_EXT4_PATHS[@]}"
vm_module null_blk || die "$deb has no null_blk.ko"
vm_ext4 || exit 1
vm_module configfs || true
vm_install_embperf
vm_copy_with_libs "$(readlink -f "$REF")"
ref=$(readlink -f "$REF")

{
	vm_init_head
	vm_init_interleave
	cat <<INIT
rounds=$rounds; size_mb=$size_mb; mbps=$mbps; sizes="$sizes"; ref=$ref; mke2fs=$(command -v mke2fs)
ext4_modules="$VM_EXT4_MODULES"
INIT
	cat <<'INIT'
for m in configfs null_blk $ext4_modules; do
	[ -f $m.ko ] && insmod $m.ko $([ $m = null_blk ] && echo nr_devices=0)
done
mount -t configfs none /sys/kernel/config
d=/sys/kernel/config/nullb/nullb0
mkdir "$d" && echo 512 >"$d/size" && echo 4096 >"$d/blocksize" && echo 1 >"$d/memory_backed" &&
	echo "$mbps" >"$d/mbps" && echo 1 >"$d/power" || echo "@@ no null_blk device"
"$mke2fs" -q -F -t ext4 /dev/nullb0 && mkdir -p /mnt && mount -t ext4 /dev/nullb0 /mnt ||
	echo "@@ no ext4 on /dev/nullb0"
echo "@@ mounted: $(grep ' /mnt ' /proc/mounts)"
run_tool() {
	if [ "$1" = ref ]; then
		taskset -c 1 "$ref" /mnt/compare-dd.dat $((size_mb * 1048576)) "$bs"
	else
		taskset -c 1 embperf run blk.fs folder=/mnt size="${size_mb}M" bs="$bs" \
			repetitions=1 -q --format=json
	fi
}
set_case() { bs=$1 label=$1; }
quiet_wait # the guest runs every round: the host must be quiet before it boots
echo "# host before the guest: $(quiet_state)" >&2
run_rounds "$rounds" "$sizes" "ref blk"
INIT
} >"$R/init"

echo "# $(uptime)"
echo "# host cpu:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); guest: qemu TCG, 2 vCPUs, ${EMBPERF_VM_MEM} MiB; ext4 on null_blk (memory-backed, mbps=$mbps), ${size_mb} MiB per file; reference $REF"
vm_boot_runs
grep '^@@ mounted\|^@@ no ' "$T/log" | sed 's/^@@ /# guest /'

: >"$T/all"
echo "bs tool round load1 write_MB/s read_MB/s src_MB/s"
while read -r bs tool r load file; do
	if [ "$tool" = ref ]; then
		line=$(awk 'NF == 2 { print $1, $2; exit }' "$file")
	else
		line=$(blk_fs_figures "$file")
	fi
	[ -n "$line" ] || { echo "# $bs $tool $r: no figures" >&2; continue; }
	echo "$bs $tool $r $load $line -" | tee -a "$T/all"
done <"$T/runs"
echo "# $(uptime)"
dd_tables "$rounds" "$T/all" ref
dd_pairs "$T/all" ref | paired_rounds >"$T/paired"
paired_table ref "$T/paired"
