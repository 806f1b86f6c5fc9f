# SPDX-License-Identifier: MIT
# fam-fio.sh - blk.io beside fio on one file, the same engine and flags
# (fidelity.sh family). fio as its users run a job: --name --filename
# --size --rw --bs --direct=1, its default engine (psync) and iodepth (1)
# unless the case names io_uring, --time_based --runtime=S, JSON output;
# --norandommap (blk.io draws random blocks uniformly, with repeats). Both
# run pinned alike (PIN_CPU) in a session of their own (setsid -w: with
# autogroups a busy shell session's share would count). The file
# (FIO_DIR/fidelity-fio.dat, FIO_SIZE, default 512M in /var/tmp: a disk,
# not tmpfs) is written once by fio itself, as a user's first job would.
# Rows per case: MB/s (10^6), IOPS, p50 and p99 completion latency (us).
# Cases: FIO_CASES (seqread seqwrite randread); more in fio_tables.sh.
# FIO_MEM: fio's --mem, malloc (its default; blk.io hugepages=off) or
# shmhuge (blk.io hugepages=on; FIO_HUGEPAGES more huge pages are reserved
# for the family and given back after). With malloc a 1 MiB block lies in
# as many physically contiguous runs of pages as the page allocator gives
# each process, and on a virtio disk that moves both tools' sequential MB/s
# by up to 2x from one process to the next (doc/methodology-blk.md, "The
# I/O buffer"); shmhuge puts each block in one run on both sides.

FIO_DIR=${FIO_DIR:-/var/tmp}
FIO_SIZE=${FIO_SIZE:-512M}
FIO_SECS=${FIO_SECS:-5}
FIO_CASES=${FIO_CASES:-seqread seqwrite randread}
FIO_MEM=${FIO_MEM:-malloc}
FIO_HUGEPAGES=${FIO_HUGEPAGES:-8}

fam_describe() { echo "blk.io vs fio $(fio --version 2>/dev/null), $FIO_CASES on a $FIO_SIZE file in $FIO_DIR ($(stat -f -c %T "$FIO_DIR" 2>/dev/null)), O_DIRECT, ${FIO_SECS} s a run, fio --mem=$FIO_MEM (blk.io hugepages=$(ep_hugepages))"; }
ep_hugepages() { case $FIO_MEM in malloc) echo off ;; shmhuge) echo on ;; esac; }
fam_bands() { echo "-p99=0.90:1.10;.*=0.95:1.05"; }
# Measured in one run on Zen 5's virtio disk (data file fio, started
# 2026-12-05 15:39: each process's buffer read from /proc/PID/pagemap,
# doc/methodology-blk.md); the runs of that family since have no measured
# cause, and a run written to the same file later does not inherit it.
fam_causes() {
	case "$cpu_slug/$data_name/$data_started" in
	"amd-epyc-f26-m2/fio/2026-12-05 15:39")
		echo "^seq(read|write)-=[the buffer's layout](../methodology-blk.md#the-io-buffer)" ;;
	esac
}
fam_refs() {
	command -v fio >/dev/null || { echo "fio: not found (apt-get install fio)"; return 1; }
	command -v python3 >/dev/null || { echo "python3: not found (reads the JSON reports)"; return 1; }
	echo "fio=$(command -v fio) ($(fio --version))"
}
fam_setup() {
	. "$here/fio_tables.sh"
	case $FIO_MEM in
	malloc) ;;
	shmhuge)
		huge_before=$(cat /proc/sys/vm/nr_hugepages)
		echo $((huge_before + FIO_HUGEPAGES)) >/proc/sys/vm/nr_hugepages ||
			{ echo "fio family: FIO_MEM=shmhuge needs vm.nr_hugepages raised (root)" >&2; return 1; } ;;
	*) echo "fio family: FIO_MEM='$FIO_MEM'; accepted: malloc, shmhuge" >&2; return 1 ;;
	esac
	fio_file=$FIO_DIR/fidelity-fio.dat
	fio_tmp=$(mktemp -d)
	fio --name=lay-out --filename="$fio_file" --size="$FIO_SIZE" --rw=write --bs=1M --direct=1 \
		--end_fsync=1 >/dev/null
}
fam_cleanup() {
	rm -rf "${fio_tmp:-/nonexistent}" "${fio_file:-/nonexistent}"
	[ -z "${huge_before:-}" ] || echo "$huge_before" >/proc/sys/vm/nr_hugepages
}

session() { setsid -w taskset -c "$PIN_CPU" "$@"; }
fio_side() { # uses name rw bs engine depth
	session fio --name="$name" --filename="$fio_file" --size="$FIO_SIZE" --rw="$rw" --bs="$bs" \
		--direct=1 --ioengine="$engine" --iodepth="$depth" --time_based --runtime="$FIO_SECS" \
		--norandommap --mem="$FIO_MEM" --output-format=json >"$fio_tmp/out.json" &&
		fio_emit reference fio
}
blk_side() {
	session "$EMBPERF" run blk.io target="$fio_file" size="$FIO_SIZE" rw="$rw" bs="$bs" direct=1 \
		engine="$engine" iodepth="$depth" hugepages="$(ep_hugepages)" time_based=1 duration="${FIO_SECS}s" repetitions=1 \
		${EP_ARGS:-} --format=json >"$fio_tmp/out.json" && fio_emit embperf blk
}
fio_emit() { # TOOL SUMMARY-TOOL
	local s
	s=$(summary "$2" "$fio_tmp/out.json") || { echo "fio family: $name: no $1 figures" >&2; return 0; }
	set -- "$1" $s
	emit "$name-MB/s" "$1" "$2"
	emit "$name-IOPS" "$1" "$3"
	emit "$name-p50" "$1" "$4"
	emit "$name-p99" "$1" "$5"
}
fam_round() {
	local c oifs round=$1
	for c in $(CASES="$FIO_CASES" fio_cases); do
		oifs=$IFS
		IFS=:
		set -- $c
		IFS=$oifs
		name=$1 rw=$2 bs=$3 engine=$4 depth=$5
		in_turn "$round" fio_side blk_side
	done
}
