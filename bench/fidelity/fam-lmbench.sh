# SPDX-License-Identifier: MIT
# fam-lmbench.sh - the CPU and OS rows of the lmbench suite beside the
# lmbench3 programs they reimplement (fidelity.sh family; the memory rows
# are the bw_mem and lat_mem_rd families).
# Reference: LMBENCH_BIN=the folder of lmbench3's programs, built as its
# users build it; lat_proc exec runs /tmp/hello (LMBENCH_BIN/hello is copied
# there for the run when missing). lmbench's timing as its config-run sets
# it: ENOUGH, TIMING_O and LOOP_O in the environment when given, else every
# lmbench call calibrates first, as a bare lmbench program does.
# Parameters are the suite's on both sides (doc/methodology-os.md). One-
# process rows run pinned (PIN_CPU) on both sides; rows of several
# processes run unpinned on both sides, as lmbench runs them, unless
# PIN_ALL=1 pins every process of both to PIN_CPU.
# GROUPS: ops syscall sig proc ctx ipc tcp connect fs file fcntl cmd exit
# (default: all but exit; cmd only when LAT_CMD is set). exit: lat_proc fork
# beside os.proc op=fork child_exit=exit, once as is and once with the shared
# libraries embperf maps preloaded into lat_proc (LD_PRELOAD), to time what
# exit() costs a child per library (doc/methodology-os.md, os.proc).
# cmd: lat_cmd /bin/true beside os.proc
# op=cmd; lmbench3's own lat_cmd never runs its command (its child's
# `case '0':`, doc/methodology-os.md), so LAT_CMD names a copy with that
# label fixed (bench/fidelity/compare-lmbench.sh's header says how).

LMB_GROUPS=${GROUPS_LMBENCH:-ops syscall sig proc ctx ipc tcp connect fs file fcntl${LAT_CMD:+ cmd}}
lmb_progs="lat_ops lat_syscall lat_sig lat_proc lat_ctx lat_pipe bw_pipe lat_unix bw_unix
	lat_tcp lat_connect lat_select lat_sem lat_fs bw_file_rd bw_mmap_rd lat_mmap lat_pagefault
	lat_fcntl"

fam_describe() { echo "lmbench suite's CPU and OS rows vs lmbench3 ($LMB_GROUPS); us, ns, MB/s, files/s"; }
# lat_ops's bit rows count three operations of which gcc -O leaves two on the
# critical path (its objdump: `r |= s` after `s ^= r` becomes `r | s_old`);
# cpu.ops counts one dependent instruction per operation: 3/2 by method,
# so the band is 1.5 +- 5 % (doc/benchmarks-lmbench.md, (a)). Its add rows
# read 0 (gcc folds the 100 repeats into one pair) and have no ratio.
fam_bands() { echo "lat_ops-int(64)?-bit=1.425:1.575;.*=0.90:1.10"; }
# Measured on Zen 5 (doc/methodology-os.md, os.proc, bench/probes/fork-exit).
fam_causes() {
	case $cpu_slug in
	amd-epyc-f26-m2)
		local doc=../methodology-os.md#osproc--process-creation-lat_proc
		echo "^lat_proc-fork-exit$=[exit() runs every mapped library's destructors]($doc);^lat_proc-fork$=[lat_proc's child pays libc's exit()]($doc)" ;;
	esac
}
fam_refs() {
	local p
	for p in $lmb_progs hello; do
		[ -x "${LMBENCH_BIN:-}/$p" ] || { echo "LMBENCH_BIN: no $p in '${LMBENCH_BIN:-}'"; return 1; }
	done
	if [[ " $LMB_GROUPS " == *" cmd "* ]] && [ ! -x "${LAT_CMD:-}" ]; then
		echo "LAT_CMD: group cmd needs a lat_cmd with its case label fixed, got '${LAT_CMD:-}'"
		return 1
	fi
	echo "LMBENCH_BIN=$LMBENCH_BIN; LAT_CMD=${LAT_CMD:-unset}; $(lmb_timing); PIN_ALL=${PIN_ALL:-0}"
}
fam_setup() {
	lmb_work=$(mktemp -d)
	lmb_file=$lmb_work/lmb-file
	dd if=/dev/urandom of="$lmb_file" bs=1048576 count=8 status=none
	cat "$lmb_file" >/dev/null
	lmb_hello=
	if [ ! -e /tmp/hello ]; then
		cp "$LMBENCH_BIN/hello" /tmp/hello && lmb_hello=1
	fi
}
fam_cleanup() {
	[ -n "${lmb_hello:-}" ] && rm -f /tmp/hello
	"$LMBENCH_BIN/lat_tcp" -S 127.0.0.1 >/dev/null 2>&1 || true
	"$LMBENCH_BIN/lat_connect" -S 127.0.0.1 >/dev/null 2>&1 || true
	rm -rf "${lmb_work:-/nonexistent}"
}

# lmb PIN COMMAND... - on PIN_CPU when PIN is 1 (or PIN_ALL), else free.
lmb() {
	local pin=$1
	shift
	if [ "$pin" = 1 ] || [ "${PIN_ALL:-0}" = 1 ]; then
		pinned "$@" 2>&1
	else
		"$@" 2>&1
	fi
}

# The value of an lmbench result line on stdin: the last line holding a
# number; its last field if numeric, else the field before (the unit).
lmb_value() {
	awk 'NF >= 1 && $0 ~ /[0-9]/ { line = $0 }
	     END { n = split(line, f, " ")
		   if (f[n] ~ /^[0-9.eE+-]+$/) print f[n]; else print f[n - 1] }'
}

# One row: KEY PIN 'LMBENCH ARGS' 'KERNEL PARAMS'.
row_ref() {
	local run=$LMBENCH_BIN/$prog
	# lat_cmd: LAT_CMD's copy (a path without blanks), with the row's operands.
	case $prog in lat_cmd\ *) run="$LAT_CMD ${prog#lat_cmd }" ;; esac
	# shellcheck disable=SC2086
	emit "$key" reference "$(lmb "$pin" env ${ref_preload:+LD_PRELOAD=$ref_preload} $run |
		lmb_value)"
}
row_ep() {
	# shellcheck disable=SC2086
	emit "$key" embperf "$(lmb "$pin" "$EMBPERF" -q --format=csv run $ep | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ print $col["value"]; exit }')"
}
row() { # ROUND KEY PIN PROG EP [PRELOAD]
	key=$2 pin=$3 prog=$4 ep=$5 ref_preload=${6:-}
	in_turn "$1" row_ref row_ep
}

# The shared libraries $EMBPERF maps beyond libc and the loader, as a
# colon-separated LD_PRELOAD list.
embperf_libs() {
	ldd "$EMBPERF" | awk '$3 ~ /^\// && $1 !~ /^(libc\.so|ld-linux)/ { printf "%s%s", sep, $3; sep = ":" }'
}

ops_ref() {
	lmb 1 "$LMBENCH_BIN/lat_ops" | awk '{ t = $1; if (t == "integer") t = "int"
		if (t == "uint64") t = "int64"; op = $2; sub(/:$/, "", op)
		if (op != "bogomflops") print "lat_ops-" t "-" op, "reference", $3 }'
}
ops_ep() {
	lmb 1 "$EMBPERF" -q --format=csv run cpu.ops | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ n = split($col["labels"], a, " "); t = a[1]; o = a[2]
		  sub(/^type=/, "", t); sub(/^op=/, "", o)
		  if (o != "bogo") print "lat_ops-" t "-" o, "embperf", $col["value"] }'
}
fs_ref() {
	rm -rf "$lmb_work/fs"; mkdir -p "$lmb_work/fs"
	lmb 0 "$LMBENCH_BIN/lat_fs" "$lmb_work/fs" | awk 'NF == 4 && $1 ~ /k$/ {
		print "lat_fs-" $1, "reference", $3; print "lat_fs-" $1 "-delete", "reference", $4 }'
}
fs_ep() {
	rm -rf "$lmb_work/fs"; mkdir -p "$lmb_work/fs"
	lmb 0 "$EMBPERF" -q --format=csv run os.fs tmpdir="$lmb_work/fs" | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["metric"] == "create" || $col["metric"] == "delete" {
			s = $col["labels"]; sub(/^size=/, "", s)
			print "lat_fs-" s ($col["metric"] == "delete" ? "-delete" : ""), "embperf", $col["value"] }'
}

fam_round() {
	local r=$1 g op p s f=$lmb_file
	for g in $LMB_GROUPS; do
		case $g in
		ops) in_turn "$r" ops_ref ops_ep ;;
		syscall)
			for op in null read write; do
				row "$r" "lat_syscall-$op" 1 "lat_syscall $op" "os.syscall op=$op"
			done
			for op in stat fstat open; do
				row "$r" "lat_syscall-$op" 1 "lat_syscall $op $f" "os.syscall op=$op file=$f"
			done ;;
		sig)
			row "$r" lat_sig-install 1 "lat_sig install" "os.signal op=install"
			row "$r" lat_sig-catch 1 "lat_sig catch" "os.signal op=catch"
			row "$r" lat_sig-prot 1 "lat_sig prot $f" "os.signal op=prot" ;;
		proc)
			row "$r" lat_proc-proccall 1 "lat_proc procedure" "os.proc op=proccall"
			row "$r" lat_proc-fork 0 "lat_proc fork" "os.proc op=fork"
			row "$r" lat_proc-exec 0 "lat_proc exec" "os.proc op=exec exec_path=/tmp/hello"
			row "$r" lat_proc-shell 0 "lat_proc shell" "os.proc op=sh exec_path=/tmp/hello" ;;
		ctx)
			for p in 2 4; do
				for s in 0 128 256; do
					row "$r" "lat_ctx-$p-${s}k" 0 "lat_ctx -s $s $p" "os.ctx procs=$p size=${s}k"
				done
			done ;;
		ipc)
			row "$r" lat_pipe 0 lat_pipe os.pipe.lat
			row "$r" bw_pipe 0 bw_pipe os.pipe.bw
			row "$r" lat_unix 0 lat_unix os.unix.lat
			row "$r" bw_unix 0 bw_unix os.unix.bw
			row "$r" lat_sem 0 lat_sem os.sem ;;
		tcp)
			lmb 0 "$LMBENCH_BIN/lat_tcp" -s >/dev/null
			row "$r" lat_tcp 0 "lat_tcp 127.0.0.1" os.tcp.lat
			lmb 0 "$LMBENCH_BIN/lat_tcp" -S 127.0.0.1 >/dev/null
			row "$r" lat_select-tcp-200 0 "lat_select -n 200 tcp" "os.select type=tcp n=200" ;;
		connect)
			lmb 0 "$LMBENCH_BIN/lat_connect" -s >/dev/null
			row "$r" lat_connect 0 "lat_connect 127.0.0.1" os.tcp.connect
			# lat_connect's own queue: lmbench's tcp_server() listens with 100.
			row "$r" lat_connect-backlog100 0 "lat_connect 127.0.0.1" "os.tcp.connect backlog=100"
			lmb 0 "$LMBENCH_BIN/lat_connect" -S 127.0.0.1 >/dev/null ;;
		fs) in_turn "$r" fs_ref fs_ep ;;
		file)
			row "$r" bw_file_rd-io-1m 1 "bw_file_rd 1m io_only $f" "os.file_rd size=1M mode=io file=$f"
			row "$r" bw_file_rd-o2c-1m 1 "bw_file_rd 1m open2close $f" "os.file_rd size=1M mode=o2c file=$f"
			row "$r" bw_mmap_rd-mo-1m 1 "bw_mmap_rd 1m mmap_only $f" "os.mmap_rd size=1M mode=mo file=$f"
			row "$r" bw_mmap_rd-o2c-1m 1 "bw_mmap_rd 1m open2close $f" "os.mmap_rd size=1M mode=o2c file=$f"
			row "$r" lat_mmap-1m 1 "lat_mmap 1m $f" "os.mmap size=1M file=$f"
			row "$r" lat_pagefault 1 "lat_pagefault $f" "os.pagefault size=8M file=$f" ;;
		fcntl) row "$r" lat_fcntl 0 lat_fcntl os.fcntl ;;
		cmd) row "$r" lat_cmd-true 0 "lat_cmd /bin/true" "os.proc op=cmd cmd=/bin/true" ;;
		exit)
			row "$r" lat_proc-fork-exit 0 "lat_proc fork" "os.proc op=fork child_exit=exit"
			row "$r" lat_proc-fork-exit-libs 0 "lat_proc fork" \
				"os.proc op=fork child_exit=exit" "$(embperf_libs)" ;;
		*) echo "fam-lmbench: unknown group '$g' (ops syscall sig proc ctx ipc tcp connect fs file fcntl cmd exit)" >&2
		   return 2 ;;
		esac
	done
}
