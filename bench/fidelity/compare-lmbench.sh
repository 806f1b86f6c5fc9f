#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-lmbench.sh - run the CPU and OS rows of embperf's `lmbench` suite
# and the lmbench3 programs they reimplement side by side on this machine,
# interleaved, and print the median of each tool per row, its spread and
# their ratio, then the harness's paired table (paired.sh). (The memory
# rows, bw_mem and lat_mem_rd, are compared by compare-memory.sh.)
#
# The reference binaries are given by path; this script never downloads or
# builds them. Build lmbench3 yourself outside the source tree
# (`make -C src`: the programs land in bin/<os>/).
#
# Usage: compare-lmbench.sh [GROUP ...]
#   GROUP: ops syscall sig proc ctx ipc tcp connect fs file fcntl cmd; with no
#   operand all of them, in that order (cmd only when LAT_CMD is set).
#   fcntl: lat_fcntl against os.fcntl; cmd: lat_cmd /bin/true against
#   os.proc op=cmd cmd=/bin/true (the lat_cmd row of TI's guide).
#
# Environment:
#   EMBPERF        the embperf command (required unless FRONT_END is set)
#   LMBENCH_BIN    folder of lmbench3's programs (lat_syscall, lat_ctx, ...,
#                  and hello) (required). lat_proc exec runs /tmp/hello: when
#                  it is missing, LMBENCH_BIN/hello is copied there for the
#                  run and removed afterwards.
#   EMBPERF_HELLO  the program os.proc execs (embperf-hello of the build)
#   LAT_CMD        a working lat_cmd (group cmd): lmbench3's own never runs
#                  its command (its child tests `case '0':`, not 0, and forks
#                  on; doc/methodology-os.md), so build a copy outside the
#                  tree with that label fixed, beside the others, e.g. in
#                  lmbench3's src/:  sed "s/case '0':/case 0:/" lat_cmd.c
#                  >lat_cmd_fixed.c && gcc -O -I/usr/include/tirpc -o
#                  ../bin/x86_64-linux-gnu/lat_cmd_fixed lat_cmd_fixed.c
#                  ../bin/x86_64-linux-gnu/lmbench.a -lm
#   FRONT_END      embperf's lmbench front end (embperf-lmbench): when set,
#                  the embperf side runs it under the lmbench program names
#                  with the very command lines given to lmbench, and its
#                  output goes through the same parser as lmbench's
#   REPEATS        runs of each tool per row, interleaved (default 5)
#   SLOW_REPEATS   runs for the slow groups fs and connect (default REPEATS)
#   PIN_CPU        pin the single-process rows of both tools to this CPU
#                  (taskset on both sides); rows with several processes (fork,
#                  exec, ctx, pipes, sockets, semaphores) are not pinned,
#                  as lmbench does not pin them, unless PIN_ALL is set
#   PIN_ALL        with PIN_CPU: run the rows with several processes, and
#                  lmbench's TCP servers, under `taskset -c PIN_CPU` too, on
#                  both sides, so that every process shares that one CPU.
#                  Where a wake-up on another CPU costs much more than a
#                  switch on the same one (a VM), unpinned two-process rows
#                  come out in either mode from run to run; this fixes the
#                  mode on both sides
#   WORKDIR        folder for the test file and lat_fs's files (default: a
#                  new folder under $TMPDIR or /tmp, removed at the end)
#   WALL_LOG       append "TOOL SECONDS COMMAND" per call to this file
#   SAMPLES_OUT    also write every value, "ROW TOOL VALUE" per line, here
#
# lmbench's timing: set ENOUGH, TIMING_O and LOOP_O in the environment
# (lmbench's own config-run does) or every lmbench call calibrates first;
# doc/benchmarks-lmbench.md gives the values used there.
#
# Parameters are the suite's on both sides: lat_syscall stat/fstat/open and
# lat_sig prot on an 8 MiB test file; lat_ctx -s 128|256 2|4; lat_select
# -n 200 tcp; lat_fs DIR (sizes 0k 1k 4k 10k, create and delete rates); bw_file_rd 1m
# io_only|open2close, bw_mmap_rd 1m mmap_only|open2close, lat_mmap 1m and
# lat_pagefault on the test file (size=8M for os.pagefault).
#
# Each row runs both tools once per run, the reference first on odd runs and
# embperf first on even runs; pinning (PIN_CPU, PIN_ALL) applies to both.
#
# Output: one line per row: the median of each tool over its runs, the
# spread of each (max - min in % of its median) and embperf / reference.
# Units are the suite's: us, ns (lat_ops), MB/s (MB = 10^6 bytes), files/s.
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)
. "$(dirname "$0")/paired.sh"

: "${LMBENCH_BIN:?set LMBENCH_BIN to the folder of the lmbench3 programs}"
[ -n "${FRONT_END:-}" ] || : "${EMBPERF:?set EMBPERF to the embperf command}"
REPEATS=${REPEATS:-5}
SLOW_REPEATS=${SLOW_REPEATS:-$REPEATS}
PIN_CPU=${PIN_CPU:-}
PIN_ALL=${PIN_ALL:-}
[ -z "$PIN_ALL" ] || [ -n "$PIN_CPU" ] || {
	echo "compare-lmbench.sh: PIN_ALL needs PIN_CPU" >&2
	exit 2
}
WALL_LOG=${WALL_LOG:-/dev/null}

tmp=$(mktemp -d)
made_hello=
cleanup() {
	[ -n "$made_hello" ] && rm -f /tmp/hello
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
samples="$tmp/samples" # lines: CASE TOOL VALUE
: >"$samples"
work=${WORKDIR:-$tmp/work}
mkdir -p "$work"
file="$work/lmb-file"

die() {
	echo "compare-lmbench.sh: $*" >&2
	exit 2
}

if [ -n "${FRONT_END:-}" ]; then
	[ -x "$FRONT_END" ] || die "FRONT_END '$FRONT_END' is not executable"
	mkdir "$tmp/fe"
	for p in lat_ops lat_syscall lat_sig lat_proc lat_ctx lat_pipe bw_pipe \
		lat_unix bw_unix lat_tcp lat_connect lat_select lat_sem lat_fs \
		bw_file_rd bw_mmap_rd lat_mmap lat_pagefault lat_fcntl lat_cmd; do
		ln -s "$FRONT_END" "$tmp/fe/$p"
	done
fi
# Group cmd's reference runs as lat_cmd (its name on PATH, as the others').
if [ -n "${LAT_CMD:-}" ]; then
	[ -x "$LAT_CMD" ] || die "LAT_CMD '$LAT_CMD' is not executable"
	mkdir "$tmp/ref"
	ln -s "$LAT_CMD" "$tmp/ref/lat_cmd"
fi

# Seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }

# Run COMMAND..., timing it into WALL_LOG under TOOL; PIN (1 or 0) pins it.
timed() { # TOOL PIN COMMAND...
	tool=$1 pin=$2
	shift 2
	t0=$(now)
	if [ "$pin" = 1 ] && [ -n "$PIN_CPU" ]; then
		taskset -c "$PIN_CPU" "$@" 2>&1 || true
	else
		"$@" 2>&1 || true
	fi
	echo "$tool $(echo "$(now) $t0" | awk '{ printf "%.3f", $1 - $2 }') $*" >>"$WALL_LOG"
}

# The value of an lmbench result line on stdin: the last line holding a
# number; its last field if numeric, else the field before (the unit).
lmb_value() {
	awk 'NF >= 1 && $0 ~ /[0-9]/ { line = $0 }
	     END { n = split(line, f, " ")
		   if (f[n] ~ /^[0-9.eE+-]+$/) print f[n]; else print f[n - 1] }'
}

# From embperf's CSV on stdin: "METRIC LABELS VALUE" per result, labels
# joined by '_' so the line splits on blanks.
csv_values() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		 { lab = $col["labels"]; gsub(/ /, "_", lab); if (lab == "") lab = "-"
		   print $col["metric"], lab, $col["value"] }'
}

add() { # CASE TOOL VALUE
	case $3 in
	'' | *[!0-9.eE+-]*) echo "compare-lmbench.sh: $1 $2: no result" >&2 ;;
	*) echo "$1 $2 $3" >>"$samples" ;;
	esac
}

# Run the functions REF and EMBPERF (one run of each tool) in the order of
# the run number r: the reference first on odd runs, embperf first on even
# ones, so that a machine that drifts during the comparison (other jobs,
# warming caches, a clock) does not favour the tool that always runs first.
in_turn() { # REF EMBPERF
	if [ $((r % 2)) -eq 1 ]; then
		"$1"
		"$2"
	else
		"$2"
		"$1"
	fi
}

# One row, one run of each tool: CASE PIN 'LMBENCH ARGS' 'KERNEL PARAMS'.
# The embperf result is the first of metric METRIC (default: the first).
row() { # CASE PIN PROG_ARGS EMBPERF_ARGS [METRIC]
	c=$1 pin=$2 prog=$3 ep=$4 metric=${5:-}
	# Several processes under PIN_ALL: taskset on both sides (all of them).
	[ "$pin" = 0 ] && [ -n "$PIN_ALL" ] && pin=1
	in_turn row_ref row_ep
}

row_ref() { # uses c, pin, prog
	bin=$LMBENCH_BIN
	case $prog in lat_cmd*) bin=$tmp/ref ;; esac
	# shellcheck disable=SC2086 # the argument strings split on blanks
	add "$c" reference "$(timed lmbench "$pin" "$bin"/$prog | lmb_value)"
}

row_ep() { # uses c, pin, prog, ep, metric
	if [ -n "${FRONT_END:-}" ]; then
		# shellcheck disable=SC2086
		add "$c" embperf "$(timed embperf "$pin" "$tmp"/fe/$prog | lmb_value)"
		return
	fi
	# Pinned as lmbench is: taskset on the whole process, not --cpu.
	# shellcheck disable=SC2086
	add "$c" embperf "$(timed embperf "$pin" "$EMBPERF" -q --format=csv run $ep |
		csv_values | awk -v m="$metric" 'm == "" || $1 == m { print $3; exit }')"
}

# lat_ops prints every op in one call: "integer add: 0.13 nanoseconds".
ops_lines() { # TOOL
	awk -v tool="$1" '
		{ t = $1; if (t == "integer") t = "int"; if (t == "uint64") t = "int64"
		  op = $2; sub(/:$/, "", op)
		  if (op != "bogomflops") print "lat_ops-" t "-" op, tool, $3 }' >>"$samples"
}

ops_ref() {
	timed lmbench "${PIN_CPU:+1}" "$LMBENCH_BIN/lat_ops" | ops_lines reference
}

ops_ep() {
	if [ -n "${FRONT_END:-}" ]; then
		timed embperf "${PIN_CPU:+1}" "$tmp/fe/lat_ops" | ops_lines embperf
		return
	fi
	timed embperf "${PIN_CPU:+1}" "$EMBPERF" -q --format=csv run cpu.ops |
		csv_values | awk '{ split($2, a, "_"); sub(/^type=/, "", a[1]); sub(/^op=/, "", a[2])
			if (a[2] != "bogo") print "lat_ops-" a[1] "-" a[2], "embperf", $3 }' >>"$samples"
}

ops_once() {
	in_turn ops_ref ops_ep
}

fs_ref() { # uses fs_pin
	# lat_fs prints "SIZE NUM_FILES CREATES/S DELETES/S" per size.
	timed lmbench "$fs_pin" "$LMBENCH_BIN/lat_fs" "$work/fs" | fs_lines reference
}

# lat_fs's lines on stdin: the create and the delete row of each size.
fs_lines() { # TOOL
	awk -v tool="$1" 'NF == 4 && $1 ~ /k$/ { print "lat_fs-" $1, tool, $3
		print "lat_fs-" $1 "-delete", tool, $4 }' >>"$samples"
}

fs_ep() { # uses fs_pin
	if [ -n "${FRONT_END:-}" ]; then
		timed embperf "$fs_pin" "$tmp/fe/lat_fs" "$work/fs" | fs_lines embperf
		return
	fi
	timed embperf "$fs_pin" "$EMBPERF" -q --format=csv run os.fs tmpdir="$work/fs" |
		csv_values | awk '$1 == "create" || $1 == "delete" { sub(/^size=/, "", $2)
			print "lat_fs-" $2 ($1 == "delete" ? "-delete" : ""), "embperf", $3 }' >>"$samples"
}

fs_once() {
	mkdir -p "$work/fs"
	fs_pin=0
	[ -n "$PIN_ALL" ] && fs_pin=1
	in_turn fs_ref fs_ep
}

# Start or stop one of lmbench's servers; under PIN_ALL on PIN_CPU.
server() { # PROGRAM ARGS...
	if [ -n "$PIN_ALL" ]; then
		taskset -c "$PIN_CPU" "$@" || true
	else
		"$@" || true
	fi
}

group_once() { # GROUP
	f=$file
	case $1 in
	ops) ops_once ;;
	syscall)
		for op in null read write; do
			row "lat_syscall-$op" 1 "lat_syscall $op" "os.syscall op=$op"
		done
		for op in stat fstat open; do
			row "lat_syscall-$op" 1 "lat_syscall $op $f" "os.syscall op=$op file=$f"
		done ;;
	sig)
		row lat_sig-install 1 "lat_sig install" "os.signal op=install"
		row lat_sig-catch 1 "lat_sig catch" "os.signal op=catch"
		row lat_sig-prot 1 "lat_sig prot $f" "os.signal op=prot" ;;
	proc)
		row lat_proc-proccall 1 "lat_proc procedure" "os.proc op=proccall"
		row lat_proc-fork 0 "lat_proc fork" "os.proc op=fork"
		row lat_proc-exec 0 "lat_proc exec" \
			"os.proc op=exec${EMBPERF_HELLO:+ exec_path=$EMBPERF_HELLO}" ;;
	ctx)
		for p in 2 4; do
			for s in 128 256; do
				row "lat_ctx-$p-${s}k" 0 "lat_ctx -s $s $p" "os.ctx procs=$p size=${s}k"
			done
		done ;;
	ipc)
		row lat_pipe 0 lat_pipe os.pipe.lat
		row bw_pipe 0 bw_pipe os.pipe.bw
		row lat_unix 0 lat_unix os.unix.lat
		row bw_unix 0 bw_unix os.unix.bw
		row lat_sem 0 lat_sem os.sem ;;
	tcp)
		server "$LMBENCH_BIN/lat_tcp" -s
		row lat_tcp 0 "lat_tcp 127.0.0.1" os.tcp.lat
		server "$LMBENCH_BIN/lat_tcp" -S 127.0.0.1
		row lat_select 0 "lat_select -n 200 tcp" "os.select type=tcp n=200" ;;
	connect)
		server "$LMBENCH_BIN/lat_connect" -s
		row lat_connect 0 "lat_connect 127.0.0.1" os.tcp.connect
		server "$LMBENCH_BIN/lat_connect" -S 127.0.0.1 ;;
	fs) fs_once ;;
	fcntl) row lat_fcntl 0 lat_fcntl os.fcntl ;;
	cmd) row lat_cmd 0 "lat_cmd /bin/true" "os.proc op=cmd cmd=/bin/true" ;;
	file)
		row bw_file_rd-io-1mb 1 "bw_file_rd 1m io_only $f" "os.file_rd size=1M mode=io file=$f"
		row bw_file_rd-o2c-1mb 1 "bw_file_rd 1m open2close $f" "os.file_rd size=1M mode=o2c file=$f"
		row bw_mmap_rd-mo-1mb 1 "bw_mmap_rd 1m mmap_only $f" "os.mmap_rd size=1M mode=mo file=$f"
		row bw_mmap_rd-o2c-1mb 1 "bw_mmap_rd 1m open2close $f" "os.mmap_rd size=1M mode=o2c file=$f"
		row lat_mmap-1m 1 "lat_mmap 1m $f" "os.mmap size=1M file=$f"
		row lat_pagefault 1 "lat_pagefault $f" "os.pagefault size=8M file=$f" ;;
	*) die "unknown group '$1' (ops syscall sig proc ctx ipc tcp connect fs file fcntl cmd)" ;;
	esac
}

groups=${*:-ops syscall sig proc ctx ipc tcp connect fs file fcntl${LAT_CMD:+ cmd}}
for g in $groups; do
	case $g in
	ops | syscall | sig | proc | ctx | ipc | tcp | connect | fs | file | fcntl) ;;
	cmd) [ -n "${LAT_CMD:-}" ] || die "group cmd needs LAT_CMD (see the top of this script)" ;;
	*) die "unknown group '$g' (ops syscall sig proc ctx ipc tcp connect fs file fcntl cmd)" ;;
	esac
done
for p in lat_ops lat_syscall lat_sig lat_proc lat_ctx lat_pipe bw_pipe lat_unix \
	bw_unix lat_tcp lat_connect lat_select lat_sem lat_fs bw_file_rd bw_mmap_rd \
	lat_mmap lat_pagefault lat_fcntl; do
	[ -x "$LMBENCH_BIN/$p" ] || die "LMBENCH_BIN lacks $p"
done
if [ ! -e /tmp/hello ]; then
	cp "$LMBENCH_BIN/hello" /tmp/hello || die "cannot copy hello to /tmp/hello"
	made_hello=1
fi
# The test file: 8 MiB of the page cache (lat_pagefault maps all of it).
dd if=/dev/urandom of="$file" bs=1048576 count=8 status=none
cat "$file" >/dev/null

start=$(date +%s)
r=1
while [ "$r" -le "$REPEATS" ] || [ "$r" -le "$SLOW_REPEATS" ]; do
	quiet_round "$r"
	for g in $groups; do
		case $g in
		fs | connect) [ "$r" -le "$SLOW_REPEATS" ] && group_once "$g" ;;
		*) [ "$r" -le "$REPEATS" ] && group_once "$g" ;;
		esac
	done
	r=$((r + 1))
done

[ -n "${SAMPLES_OUT:-}" ] && cp "$samples" "$SAMPLES_OUT"
echo "# interleaved runs per tool and row (REPEATS=$REPEATS, SLOW_REPEATS=$SLOW_REPEATS)," \
	"$(($(date +%s) - start)) s; spread = (max - min) / median"
# Print in the order the rows were first measured.
awk '!($1 in seen) { seen[$1] = ++n } { print seen[$1], $0 }' "$samples" |
	sort -k1,1n -k3,3 -k4,4g | cut -d' ' -f2- |
	awk -v keyname=row -v refname=lmbench -v keywidth=22 -v numfmt=%12.4g \
		-v spreadwidth=7 -f "$(dirname "$0")/median-table.awk"
# Then the harness's paired table: the i-th embperf run of a row over the
# i-th lmbench run, which were made in the same round.
echo
paired_table lmbench "$samples"
