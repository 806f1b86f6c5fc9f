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
# I/O buffer"); shmhuge puts each block in one run on both sides. So each
# sequential run's layout is kept in the data file's header ("# layout:
# round R CASE TOOL N runs", as root: fio's job process's first block read
# from its /proc/PID/pagemap a second or so in, by buffer_runs.py on
# another CPU than PIN_CPU; blk.io's from its own log, -v), and a row
# whose reference drew its blocks in clearly fewer runs names that as its
# cause (fam_causes). FIO_CACHE: warm (default): before each run, each
# tool's program and the libraries ldd names are read into the page cache,
# as a host without proactive reclaim has them after a tool's first run
# (fio's start then takes its ~2000 anonymous pages, not ~4400); evict: the
# same files dropped from the page cache first (posix_fadvise DONTNEED), as
# a host that reclaims unused pages (this VM's DAMON pageout) has them a
# minute or two after a run; keep: the page cache as the host has it.

FIO_DIR=${FIO_DIR:-/var/tmp}
FIO_SIZE=${FIO_SIZE:-512M}
FIO_SECS=${FIO_SECS:-5}
FIO_CASES=${FIO_CASES:-seqread seqwrite randread}
FIO_MEM=${FIO_MEM:-malloc}
FIO_HUGEPAGES=${FIO_HUGEPAGES:-8}
FIO_CACHE=${FIO_CACHE:-warm}

fam_describe() { echo "blk.io vs fio $(fio --version 2>/dev/null), $FIO_CASES on a $FIO_SIZE file in $FIO_DIR ($(stat -f -c %T "$FIO_DIR" 2>/dev/null)), O_DIRECT, ${FIO_SECS} s a run, fio --mem=$FIO_MEM (blk.io hugepages=$(ep_hugepages))$(cache_describe)"; }
cache_describe() {
	case $FIO_CACHE in
	evict) echo ", each tool's program and libraries evicted from the page cache before each run (FIO_CACHE=evict)" ;;
	warm) echo ", each tool's program and libraries read into the page cache before each run (FIO_CACHE=warm)" ;;
	keep) echo ", the page cache as the host left it (FIO_CACHE=keep)" ;;
	esac
}
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
	*) layout_causes "$data/$data_name.tsv" ;;
	esac
}
# layout_causes FILE - "^CASE-=TEXT", joined by ';', for each case whose
# layout notes in FILE give fio's blocks a median run count below 3/4 of
# blk.io's; TEXT adds the MB/s ratio's median over the rounds whose layouts
# were alike (fio's runs at least 3/4 of blk.io's), what is left without it.
layout_causes() {
	[ -f "$1" ] || return 0
	awk 'function med(a, m,   i, j, x) {
			for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		function med_of(k,   i, a) { for (i = 1; i <= n[k]; i++) a[i] = v[k, i]; return med(a, n[k]) }
		$2 == "layout:" && $3 == "round" { k = $5 " " $6; v[k, ++n[k]] = $7 + 0; runs[$4, k] = $7 + 0; c[$5] = 1 }
		!/^#/ && $2 ~ /-MB\/s$/ { mbs[$1, substr($2, 1, length($2) - 5), $3] = $4 + 0; rounds[$1] = 1 }
		END { for (k in c) {
			if (!n[k " reference"] || !n[k " embperf"]) continue
			r = med_of(k " reference"); e = med_of(k " embperf")
			if (r >= 0.75 * e)
				continue
			m = 0
			for (x in rounds) {
				fr = runs[x, k " reference"]; er = runs[x, k " embperf"]
				if (fr && er && fr >= 0.75 * er && mbs[x, k, "reference"] > 0)
					ratio[++m] = mbs[x, k, "embperf"] / mbs[x, k, "reference"]
			}
			alike = m ? sprintf(", in the %d round%s with alike layouts MB/s %.3f of fio at the median", m, m == 1 ? "" : "s", med(ratio, m)) : ", no round with alike layouts"
			printf "%s^%s-=[fio drew its blocks in fewer physically contiguous runs: medians %g and %g%s](../methodology-blk.md#the-io-buffer)", sep, k, r, e, alike
			sep = ";"
		} }' "$1"
}
fam_refs() {
	command -v fio >/dev/null || { echo "fio: not found (apt-get install fio)"; return 1; }
	command -v python3 >/dev/null || { echo "python3: not found (reads the JSON reports)"; return 1; }
	echo "fio=$(command -v fio) ($(fio --version))"
}
fam_setup() {
	. "$here/fio_tables.sh"
	case $FIO_CACHE in
	keep | evict | warm) ;;
	*) echo "fio family: FIO_CACHE='$FIO_CACHE'; accepted: keep, evict, warm" >&2; return 1 ;;
	esac
	# each tool's files, listed once: ldd maps the libraries, which reads some
	# of them into the page cache, so it must not run just before a tool
	fio_files=$(lib_files "$(command -v fio)")
	ep_files=$(lib_files "$EMBPERF")
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
fio_side() { # uses name rw bs engine depth round
	local fio_pid runs cached rc=0
	set_cache $fio_files
	! layout_kept || cached=$(fio_cached) # before fio starts reading them
	session fio --name="$name" --filename="$fio_file" --size="$FIO_SIZE" --rw="$rw" --bs="$bs" \
		--direct=1 --ioengine="$engine" --iodepth="$depth" --time_based --runtime="$FIO_SECS" \
		--norandommap --mem="$FIO_MEM" --output-format=json >"$fio_tmp/out.json" &
	fio_pid=$!
	if layout_kept; then
		# a second or so in, and until half the run has gone while fio's job
		# is still starting (a start that reads its libraries takes longer)
		local tries=$(awk -v s="$FIO_SECS" 'BEGIN { print int(s * 2) }')
		sleep "$(awk -v s="$FIO_SECS" 'BEGIN { print (s / 3 < 1.5) ? s / 3 : 1.5 }')"
		runs=$(fio_job_runs)
		while [ -z "$runs" ] && [ "$tries" -gt 0 ]; do
			sleep 0.25
			runs=$(fio_job_runs)
			tries=$((tries - 1))
		done
	fi
	wait "$fio_pid" || rc=$?
	[ "$rc" = 0 ] || return "$rc"
	[ -n "${cached:-}" ] && cached=", fio and its libraries $cached in the page cache at its start"
	[ -z "${runs:-}" ] || data_note "layout: round $round $name reference $runs runs${cached:-}"
	fio_emit reference fio
}
blk_side() {
	local runs
	set_cache $ep_files
	session "$EMBPERF" run blk.io target="$fio_file" size="$FIO_SIZE" rw="$rw" bs="$bs" direct=1 \
		engine="$engine" iodepth="$depth" hugepages="$(ep_hugepages)" time_based=1 duration="${FIO_SECS}s" repetitions=1 \
		${EP_ARGS:-} -v --format=json >"$fio_tmp/out.json" 2>"$fio_tmp/err" || { grep -v ': info: ' "$fio_tmp/err" >&2; return 1; }
	grep -v ': info: ' "$fio_tmp/err" >&2 || true
	runs=$(sed -n 's/.*lies in \([0-9]*\) physically contiguous run.*/\1/p' "$fio_tmp/err" | head -1)
	layout_kept && [ -n "$runs" ] && data_note "layout: round $round $name embperf $runs runs"
	fio_emit embperf blk
}
# layout_kept - whether this case's layouts are read: blocks of 64 KiB and
# more (a smaller one lies in a page or a few), read by root.
layout_kept() {
	[ "$(id -u)" = 0 ] || return 1
	case $bs in *[Mm] | *[Mm]i[Bb] | [0-9][0-9][0-9]*[Kk] | 6[4-9][Kk] | [7-9][0-9][Kk]) return 0 ;; esac
	return 1
}
# fio_job_runs - the run count of fio's job process's first block: the
# one fio process whose parent is fio, read from a CPU other than PIN_CPU.
fio_job_runs() {
	local p job= other=
	for p in $(pgrep -x fio); do
		[ "$(cat "/proc/$(ps -o ppid= -p "$p" | tr -d ' ')/comm" 2>/dev/null)" = fio ] && job=$p
	done
	[ -n "$job" ] || return 0
	[ -n "${PIN_CPU:-}" ] && [ "$(nproc)" -gt 1 ] && other=$(( PIN_CPU == 0 ? 1 : 0 ))
	${other:+taskset -c "$other"} python3 "$here/buffer_runs.py" "$job" "$bs" "$depth" || true
}
# fio_cached - how much of fio's program and libraries is in the page cache
# ("R of T MiB", fincore), the pages its start does not have to read: a start
# that reads them takes thousands of pages on its CPU before the job's
# buffer (doc/methodology-blk.md, "What gives fio's job the contiguous
# buffer").
fio_cached() {
	command -v fincore >/dev/null || return 0
	# shellcheck disable=SC2086 # a list of paths
	fincore -b -n -o RES,SIZE $fio_files 2>/dev/null |
		awk '{ r += ($1 < $2 ? $1 : $2); t += $2 } END { if (t) printf "%.1f of %.1f MiB", r / 1048576, t / 1048576 }'
}
# lib_files PROGRAM - PROGRAM and the libraries ldd names, one a line.
lib_files() {
	{ echo "$1"; ldd "$1" 2>/dev/null; } | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u
}
# set_cache FILE... - the files' pages as FIO_CACHE says: left, dropped or read.
set_cache() {
	case $FIO_CACHE in
	evict) evict_files "$@" ;;
	warm) cat "$@" >/dev/null ;;
	esac
}
# evict_files FILE... - drop the files' pages from the page cache (pages
# a running process maps stay).
evict_files() {
	python3 -c 'import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)' "$@"
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
