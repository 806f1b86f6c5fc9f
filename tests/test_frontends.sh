#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_frontends.sh - the lmbench-compatible front ends, checked the way the
# scripts that parse lmbench's output use them: each front end runs with
# small sizes and one repetition, its output goes through the awk/sed/grep
# a vendor's script applies (lmbench's own getsummary, test-farm parsers),
# and what comes out must be a positive number. Usage errors must print
# lmbench's "Usage:" line and exit 255, as the originals do.
#
# Run by meson as `test_frontends.sh PATH-TO-embperf-lmbench PATH-TO-embperf
# PATH-TO-embperf-hello`.
# A front end whose kernel this build lacks must fail cleanly ("kernel X
# not available", exit 1): that is checked, and its output checks are
# skipped with the reason. Prints TAP; exits 1 when a check fails.
# Timing is never asserted (the machine is shared and noisy).

set -u

LMBENCH=${1:?usage: test_frontends.sh PATH-TO-embperf-lmbench PATH-TO-embperf [PATH-TO-embperf-hello]}
EMBPERF=${2:?usage: test_frontends.sh PATH-TO-embperf-lmbench PATH-TO-embperf [PATH-TO-embperf-hello]}
# lat_proc exec/shell run the build tree's embperf-hello (not installed yet).
if [ -n "${3:-}" ]; then
	export EMBPERF_HELLO=$3
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/test_frontends.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
BIN=$T/bin
# The front ends' own temporary files go here, to check that none is left.
export TMPDIR=$T/tmp
mkdir -p "$BIN" "$TMPDIR" "$T/fs"

NAMES="lat_mem_rd bw_mem stream lat_ops par_ops mhz lat_ctx lat_syscall lat_sig
lat_proc lat_sem lat_pagefault lat_mmap lat_pipe lat_unix lat_tcp lat_udp
lat_connect lat_select bw_pipe bw_unix lat_fs bw_file_rd bw_mmap_rd lat_usleep line
par_mem lat_fcntl lat_cmd lmdd"

# The symlinks an installation makes (install_symlink), made here.
for n in $NAMES; do
	ln -s "$LMBENCH" "$BIN/$n" || exit 1
done

status=0

. "$(dirname "$0")/tap.sh"

# After a failure, what the command printed.
tap_fail_extra() {
	echo "# output: $(head -c 800 "$T/out")"
}

# fe NAME ARGS...: run a front end through its symlink; stdout and stderr
# together in $T/out (as `2>&1` in a script), stdout alone in $T/stdout.
fe() {
	local name=$1

	shift
	"$BIN/$name" "$@" >"$T/stdout" 2>"$T/stderr"
	status=$?
	cat "$T/stdout" "$T/stderr" >"$T/out"
}

# is_positive TEXT: TEXT is one positive decimal number.
is_positive() {
	[[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v v="$1" 'BEGIN { exit !(v > 0) }'
}

# expect_numbers NAME TEXT: every word of TEXT (one or more) is a positive number.
expect_numbers() {
	local name=$1 text=$2 word count=0

	for word in $text; do
		count=$((count + 1))
		if ! is_positive "$word"; then
			fail "$name" "'$word' is not a positive number (exit $status)"
			return
		fi
	done
	if [ $count -eq 0 ]; then
		fail "$name" "the parse gave nothing (exit $status)"
	else
		pass "$name"
	fi
}

expect_status() {
	if [ "$status" -eq "$2" ]; then pass "$1"; else fail "$1" "exit code $status, expected $2"; fi
}

# expect_usage NAME PROGRAM: exit 255 and lmbench's usage line naming PROGRAM.
expect_usage() {
	if [ "$status" -eq 255 ] && grep -q "^Usage: $BIN/$2 " "$T/stderr"; then
		pass "$1"
	else
		fail "$1" "exit code $status (expected 255 and 'Usage: $BIN/$2 ...' on stderr)"
	fi
}

# has_kernels KERNEL...: all of them are in this build.
has_kernels() {
	local k

	for k in "$@"; do
		"$EMBPERF" describe "$k" >/dev/null 2>&1 || return 1
	done
	return 0
}

# measure NAME KERNEL -- ARGS...: run front end NAME. When KERNEL is
# missing, check the clean failure and return 1 (the caller skips its
# parse); otherwise return 0 with the output in $T/out.
measure() {
	local name=$1 kernel=$2

	shift 3
	fe "$name" "$@"
	if has_kernels "$kernel"; then
		if [ "$status" -ne 0 ]; then
			fail "$name $*: exits 0" "exit code $status"
			return 1
		fi
		return 0
	fi
	if [ "$status" -eq 1 ] && grep -q "kernel $kernel not available" "$T/stderr"; then
		pass "$name $*: fails cleanly without kernel $kernel"
	else
		fail "$name $*: fails cleanly without kernel $kernel" "exit code $status"
	fi
	skip "$name $*: output parse" "this build lacks kernel $kernel"
	return 1
}

# Quick settings for every measurement: one sample, no warm-up.
Q="-N 1 -W 0"

echo "# front ends: $LMBENCH (as symlinks in $BIN)"

# --- usage errors: the original's usage line, exit 255 -------------------------

fe lat_syscall
expect_usage "lat_syscall without an operand" lat_syscall
fe lat_syscall frobnicate
expect_usage "lat_syscall with an unknown operation" lat_syscall
fe lat_mem_rd -Z 1
expect_usage "lat_mem_rd with an unknown option" lat_mem_rd
fe lat_mem_rd -P 0 1
expect_usage "lat_mem_rd -P 0" lat_mem_rd
fe lat_mem_rd -N
expect_usage "lat_mem_rd -N without its value" lat_mem_rd
fe bw_mem 12 rd
expect_usage "bw_mem below 512 bytes" bw_mem
fe bw_mem 1m frobnicate
expect_usage "bw_mem with an unknown operation" bw_mem
fe lat_ctx -s 16
expect_usage "lat_ctx without process counts" lat_ctx
fe lat_sig prot
expect_usage "lat_sig prot without its file" lat_sig
fe lat_proc
expect_usage "lat_proc without an operand" lat_proc
fe lat_pipe extra
expect_usage "lat_pipe with an operand" lat_pipe
fe lat_udp -m 2 localhost
expect_usage "lat_udp -m below 4 bytes" lat_udp
fe lat_connect -P 1 localhost
expect_usage "lat_connect -P (listed but not handled by the original)" lat_connect
fe lat_select pipe
expect_usage "lat_select with an unknown type" lat_select
fe stream -v 3
expect_usage "stream -v 3" stream
fe bw_file_rd 1m sideways /etc/passwd
expect_usage "bw_file_rd with an unknown mode" bw_file_rd
fe lat_fs a b
expect_usage "lat_fs with two directories" lat_fs
fe mhz -x
expect_usage "mhz -x" mhz
fe lat_usleep -P 2 100
expect_usage "lat_usleep -P (listed but not handled by the original)" lat_usleep
fe lat_usleep -u snooze 100
expect_usage "lat_usleep with an unknown method" lat_usleep
fe lat_usleep
expect_usage "lat_usleep without its interval" lat_usleep
fe line -a
expect_usage "line -a (in the original's option string, but not handled)" line
fe par_mem 64k
expect_usage "par_mem with an operand" par_mem
# lmbench3 built on Linux has no pselect (_POSIX_SELECT is not defined).
fe lat_usleep -u pselect 100
expect_usage "lat_usleep -u pselect (not in lmbench3 on Linux)" lat_usleep

# Exits that are not usage errors.
fe bw_file_rd 100 io_only /etc/passwd
if [ "$status" -eq 1 ] && [ ! -s "$T/out" ]; then
	pass "bw_file_rd below 512 bytes exits 1 without a word, as the original"
else
	fail "bw_file_rd below 512 bytes exits 1 without a word, as the original" "exit $status"
fi
fe stream -v 2 -N 1 -M 1m
if [ "$status" -eq 0 ] && [ "$(grep -c '^STREAM2 \(fill\|copy\|daxpy\|sum\) \(latency\|bandwidth\): ' "$T/stderr")" -eq 8 ]; then
	pass "stream -v 2 prints the eight STREAM2 lines (fill, copy, daxpy, sum)"
else
	fail "stream -v 2 prints the eight STREAM2 lines (fill, copy, daxpy, sum)" "exit $status: $(cat "$T/stderr")"
fi
fe lat_syscall -P 2 null
if [ "$status" -eq 1 ] && grep -q -- "-P 2" "$T/stderr"; then
	pass "lat_syscall -P 2 is refused with a message naming -P"
else
	fail "lat_syscall -P 2 is refused with a message naming -P" "exit $status"
fi
fe lat_tcp -s
if [ "$status" -eq 0 ] && grep -q "loopback server" "$T/stderr"; then
	pass "lat_tcp -s succeeds and says the server is internal"
else
	fail "lat_tcp -s succeeds and says the server is internal" "exit $status"
fi
fe lat_tcp -S localhost
expect_status "lat_tcp -S localhost succeeds" 0
fe lat_tcp 192.0.2.1
if [ "$status" -eq 1 ] && grep -q "loopback" "$T/stderr"; then
	pass "lat_tcp to another host is refused: loopback only"
else
	fail "lat_tcp to another host is refused: loopback only" "exit $status"
fi
fe bw_mmap_rd 1m mmap_only "$T/no-such-file"
if [ "$status" -eq 1 ] && grep -q "no-such-file" "$T/stderr"; then
	pass "bw_mmap_rd on a missing file exits 1 naming it"
else
	fail "bw_mmap_rd on a missing file exits 1 naming it" "exit $status"
fi

# The multi-call binary under its own name.
"$LMBENCH" --help >"$T/out" 2>&1
status=$?
if [ "$status" -eq 0 ] && grep -q "lat_mem_rd" "$T/out" && grep -q "bw_mmap_rd" "$T/out"; then
	pass "embperf-lmbench --help lists the names"
else
	fail "embperf-lmbench --help lists the names" "exit $status"
fi
"$LMBENCH" lat_nothing >"$T/out" 2>&1
status=$?
expect_status "embperf-lmbench with an unknown name exits 255" 255
"$LMBENCH" bw_mem 12 rd >"$T/out" 2>"$T/stderr"
status=$?
if [ "$status" -eq 255 ] && grep -q "^Usage: bw_mem " "$T/stderr"; then
	pass "embperf-lmbench NAME ARGS acts as NAME"
else
	fail "embperf-lmbench NAME ARGS acts as NAME" "exit $status"
fi

# --- memory --------------------------------------------------------------------

# As the TI/lmbench parsers do: the "stride" header, then "MB NS" pairs.
if measure lat_mem_rd mem.lat -- $Q 1 128; then
	if [ "$(head -n 1 "$T/stderr")" = '"stride=128' ]; then
		pass "lat_mem_rd prints the \"stride=128 header first"
	else
		fail "lat_mem_rd prints the \"stride=128 header first"
	fi
	expect_numbers "lat_mem_rd: the latency column is positive" \
		"$(awk 'NR > 1 && NF == 2 { print $2 }' "$T/stderr")"
	lines=$(grep -cE '^[0-9]+\.[0-9]{5} [0-9]+\.[0-9]{3}$' "$T/stderr")
	# 512 bytes to 1 MB in lmbench3's step(): 512, 1k..4k by 1k, 6k..32k by
	# 2k, then eight per octave: 59 sizes, as lat_mem_rd prints.
	if [ "$lines" -eq 59 ]; then
		pass "lat_mem_rd 1 128 prints the 59 sizes from 0.00049 to 1.00000"
	else
		fail "lat_mem_rd 1 128 prints the 59 sizes from 0.00049 to 1.00000" "$lines lines"
	fi
	expect_numbers "lat_mem_rd: the 0.5 MB row (latency_for_0.50_mb_block_size)" \
		"$(awk '$1 == "0.50000" { print $2 }' "$T/stderr")"
	expect_numbers "lat_mem_rd: the first row is 512 bytes (sz50)" \
		"$(awk '$1 == "0.00049" { print $2 }' "$T/stderr")"
fi

for op in rd wr rdwr cp fwr frd fcp bzero bcopy; do
	if measure bw_mem mem.bw -- $Q 64k $op; then
		# "SIZE_MB MB/s": lmbench's scripts keep the second field.
		expect_numbers "bw_mem 64k $op: awk '{print \$2}' is a bandwidth" \
			"$(awk '$1 == "0.065536" { print $2 }' "$T/stderr")"
	fi
done
if measure bw_mem mem.bw -- $Q 1m bcopy; then
	expect_numbers "bw_mem 1m bcopy prints '1.05 MB/s' (MB = 10^6 bytes)" \
		"$(awk '$1 == "1.05" { print $2 }' "$T/stderr")"
fi

if measure stream mem.stream -- $Q -M 3m; then
	expect_numbers "stream: the four bandwidths (field 4 of 'STREAM x bandwidth: Y MB/sec')" \
		"$(awk '/^STREAM (copy|scale|add|triad) bandwidth: .* MB\/sec$/ { print $4 }' "$T/stderr")"
	expect_numbers "stream: the four latencies (field 4 of 'STREAM x latency: Y nanoseconds')" \
		"$(awk '/^STREAM (copy|scale|add|triad) latency: .* nanoseconds$/ { print $4 }' "$T/stderr")"
	n=$(grep -c '^STREAM ' "$T/stderr")
	if [ "$n" -eq 8 ]; then pass "stream prints 8 lines"; else fail "stream prints 8 lines" "$n"; fi
fi

# --- CPU -----------------------------------------------------------------------

if measure lat_ops cpu.ops -- $Q; then
	expect_numbers "lat_ops: 'integer add: X nanoseconds'" \
		"$(sed -n 's/^integer add: \([0-9.]*\) nanoseconds$/\1/p' "$T/stderr")"
	expect_numbers "lat_ops: 'int64 add'" \
		"$(sed -n 's/^int64 add: \([0-9.]*\) nanoseconds$/\1/p' "$T/stderr")"
	expect_numbers "lat_ops: 'double div'" \
		"$(awk -F': ' '$1 == "double div" { split($2, f, " "); print f[1] }' "$T/stderr")"
	bad=$(grep -cvE '^[a-z0-9]+ [a-z]+: [0-9]+\.[0-9]{2} nanoseconds$' "$T/stderr")
	if [ "$bad" -eq 0 ]; then pass "lat_ops: every line is 'TYPE OP: X nanoseconds'"; else fail "lat_ops: every line is 'TYPE OP: X nanoseconds'" "$bad other lines"; fi
fi

if measure par_ops cpu.par -- $Q; then
	expect_numbers "par_ops: 'integer add parallelism: X'" \
		"$(sed -n 's/^integer add parallelism: \([0-9.]*\)$/\1/p' "$T/stderr")"
fi

# mhz, like the original, answers "-1 System too busy" (exit 1) when the
# loop times are no whole multiples of one clock, which a loaded machine
# (CI runs tests side by side on two CPUs) causes at times: try up to five
# times; five busy answers in the right form are a skip, not a pass.
mhz_busy=0
for try in 1 2 3 4 5; do
	fe mhz
	[ "$status" -eq 1 ] && grep -qx -- '-1 System too busy' "$T/stdout" || break
	mhz_busy=$try
done
if [ "$mhz_busy" -eq 5 ]; then
	skip "mhz prints 'N MHz, X nanosec clock' on stdout" \
		"machine too busy: five '-1 System too busy' answers"
elif ! has_kernels cpu.mhz; then
	measure mhz cpu.mhz --
elif [ "$status" -ne 0 ]; then
	fail "mhz: exits 0" "exit code $status"
else
	if grep -qE '^[0-9]+ MHz, [0-9]+\.[0-9]{4} nanosec clock$' "$T/stdout"; then
		pass "mhz prints 'N MHz, X nanosec clock' on stdout"
	else
		fail "mhz prints 'N MHz, X nanosec clock' on stdout"
	fi
	expect_numbers "mhz: awk '{print \$1}' is the clock" "$(awk '{ print $1 }' "$T/stdout")"
	# The same five tries for -c (under the sanitizers at a load average of
	# 23 two were not enough); five busy answers are a skip.
	for try in 1 2 3 4 5; do
		fe mhz -c
		[ "$status" -eq 1 ] && grep -qx -- '-1 System too busy' "$T/stdout" || break
	done
	if [ "$status" -eq 1 ] && grep -qx -- '-1 System too busy' "$T/stdout"; then
		skip "mhz -c prints the period alone" "machine too busy: five '-1 System too busy' answers"
	else
		expect_numbers "mhz -c prints the period alone" "$(cat "$T/stdout")"
	fi
fi

# --- processes, system calls, signals -----------------------------------------------

if measure lat_ctx os.ctx -- $Q -s 0 2 4; then
	if sed -n 2p "$T/stderr" | grep -qE '^"size=0k ovr=[0-9]+\.[0-9]{2}$'; then
		pass "lat_ctx: an empty line, then the \"size=0k ovr=X header"
	else
		fail "lat_ctx: an empty line, then the \"size=0k ovr=X header"
	fi
	expect_numbers "lat_ctx: the '2 X' and '4 X' rows" \
		"$(awk '$1 == "2" || $1 == "4" { print $2 }' "$T/stderr")"
fi

for op in null read write stat fstat open; do
	if measure lat_syscall os.syscall -- $Q $op; then
		# "Simple syscall: 0.1234 microseconds": awk '{print $3}'.
		expect_numbers "lat_syscall $op: awk '{print \$3}' is the latency" \
			"$(awk '/microseconds$/ { print $3 }' "$T/stderr")"
	fi
done
# -N is lmbench's count: exactly that many samples, even where samples that
# agree would let the kernel stop at 11. EMBPERF_LOG=debug shows the count.
if EMBPERF_LOG=debug measure lat_syscall os.syscall -- -N 40 -W 0 null; then
	if grep -q "os.syscall .*, 40 samples," "$T/stderr"; then
		pass "lat_syscall -N 40: 40 samples (EMBPERF_LOG=debug)"
	else
		fail "lat_syscall -N 40: 40 samples (EMBPERF_LOG=debug)" \
			"$(grep samples "$T/stderr" | head -c 300)"
	fi
fi
# lmbench's stream times each kernel's passes back to back (benchmp per
# kernel): no pass of another kernel runs before each timed one, as
# mem.stream's default (STREAM's order) would run and log at debug.
if EMBPERF_LOG=debug measure stream mem.stream -- -N 3 -W 0 -M 3m; then
	if grep -q "mem.stream .*order=kernel.*samples" "$T/stderr" && ! grep -q "untimed before" "$T/stderr"; then
		pass "stream: each kernel's passes back to back, as lmbench's benchmp (order=kernel)"
	else
		fail "stream: each kernel's passes back to back, as lmbench's benchmp (order=kernel)" \
			"$(grep "mem.stream" "$T/stderr" | head -c 300)"
	fi
fi
EMBPERF_LOG=loud fe lat_syscall -N 1 null
if [ "$status" -eq 1 ] && grep -q "EMBPERF_LOG='loud'.*accepted: warning, info, debug" "$T/stderr"; then
	pass "EMBPERF_LOG=loud is refused, naming the variable, its value and what is accepted"
else
	fail "EMBPERF_LOG=loud is refused, naming the variable, its value and what is accepted" \
		"exit $status"
fi
echo data >"$T/statme"
if measure lat_syscall os.syscall -- $Q stat "$T/statme"; then
	expect_numbers "lat_syscall stat FILE" "$(awk '{ print $3 }' "$T/stderr")"
fi

for op in install catch "prot $T/statme"; do
	# shellcheck disable=SC2086 # "prot FILE" is two words on purpose
	if measure lat_sig os.signal -- $Q $op; then
		expect_numbers "lat_sig $op: the number before 'microseconds'" \
			"$(awk '/microseconds$/ { print $(NF - 1) }' "$T/stderr")"
	fi
done

for op in procedure fork exec shell; do
	if measure lat_proc os.proc -- $Q $op; then
		expect_numbers "lat_proc $op: the number before 'microseconds'" \
			"$(sed -n 's/^.*: \([0-9.]*\) microseconds$/\1/p' "$T/stderr")"
	fi
done

if measure lat_sem os.sem -- $Q; then
	expect_numbers "lat_sem: 'Semaphore latency: X microseconds'" \
		"$(sed -n 's/^Semaphore latency: \([0-9.]*\) microseconds$/\1/p' "$T/stderr")"
fi
if measure lat_fcntl os.fcntl -- $Q; then
	expect_numbers "lat_fcntl: 'Fcntl lock latency: X microseconds'" \
		"$(sed -n 's/^Fcntl lock latency: \([0-9.]*\) microseconds$/\1/p' "$T/stderr")"
fi
if measure lat_cmd os.proc -- $Q /bin/true; then
	expect_numbers "lat_cmd /bin/true: 'lat_cmd: X microseconds'" \
		"$(sed -n 's/^lat_cmd: \([0-9.]*\) microseconds$/\1/p' "$T/stderr")"
fi

# lmdd writes count x bs bytes to its file, and reads them back.
if measure lmdd blk.io -- of="$T/lmdd.out" bs=4k count=100 fsync=1; then
	if grep -qE '^0\.4096 MB in [0-9]+\.[0-9]{4} secs, [0-9]+\.[0-9]{4} MB/sec$' "$T/stderr" &&
		[ "$(stat -c %s "$T/lmdd.out")" = 409600 ]; then
		pass "lmdd of=FILE bs=4k count=100: 409600 bytes written, '0.4096 MB in X secs, Y MB/sec'"
	else
		fail "lmdd of=FILE bs=4k count=100: 409600 bytes written, '0.4096 MB in X secs, Y MB/sec'"
	fi
fi
if measure lmdd blk.io -- if="$T/lmdd.out" bs=4k; then
	expect_numbers "lmdd if=FILE: the MB moved and the rate" \
		"$(awk '$1 == "0.4096" && $2 == "MB" { print $1, $6 }' "$T/stderr")"
fi
fe lmdd if="$T/lmdd.out" of="$T/lmdd.copy"
if [ "$status" -eq 1 ] && grep -q "copy from file to file is not offered" "$T/stderr" &&
	[ ! -e "$T/lmdd.copy" ]; then
	pass "lmdd if=FILE of=FILE: refused, nothing written"
else
	fail "lmdd if=FILE of=FILE: refused, nothing written" "exit $status"
fi
rm -f "$T/lmdd.out"

# --- communication -----------------------------------------------------------

if measure lat_pipe os.pipe.lat -- $Q; then
	expect_numbers "lat_pipe: 'Pipe latency: X microseconds' field 3" \
		"$(awk '/^Pipe latency:/ { print $3 }' "$T/stderr")"
fi
if measure lat_unix os.unix.lat -- $Q; then
	expect_numbers "lat_unix: field 5 of 'AF_UNIX sock stream latency: X microseconds'" \
		"$(awk '/^AF_UNIX sock stream latency:/ { print $5 }' "$T/stderr")"
fi
if measure lat_tcp os.tcp.lat -- $Q localhost; then
	expect_numbers "lat_tcp localhost: 'TCP latency using localhost: X microseconds'" \
		"$(sed -n 's/^TCP latency using localhost: \([0-9.]*\) microseconds$/\1/p' "$T/stderr")"
fi
if measure lat_udp os.udp.lat -- $Q 127.0.0.1; then
	expect_numbers "lat_udp 127.0.0.1: 'UDP latency using 127.0.0.1: X microseconds'" \
		"$(sed -n 's/^UDP latency using 127\.0\.0\.1: \([0-9.]*\) microseconds$/\1/p' "$T/stderr")"
fi
if measure lat_connect os.tcp.connect -- -N 1 localhost; then
	expect_numbers "lat_connect localhost: 'TCP/IP connection cost to localhost: X microseconds'" \
		"$(sed -n 's/^TCP\/IP connection cost to localhost: \([0-9.]*\) microseconds$/\1/p' "$T/stderr")"
fi
if measure lat_select os.select -- $Q -n 10 tcp; then
	expect_numbers "lat_select -n 10 tcp: \"Select on 10 tcp fd's: X microseconds\"" \
		"$(sed -n "s/^Select on 10 tcp fd's: \([0-9.]*\) microseconds$/\1/p" "$T/stderr")"
fi
if measure lat_select os.select -- $Q -n 10 file; then
	expect_numbers "lat_select -n 10 file: \"Select on 10 fd's: X microseconds\"" \
		"$(sed -n "s/^Select on 10 fd's: \([0-9.]*\) microseconds$/\1/p" "$T/stderr")"
fi
if measure bw_pipe os.pipe.bw -- $Q -M 1m; then
	expect_numbers "bw_pipe: 'Pipe bandwidth: X MB/sec' field 3" \
		"$(awk '/^Pipe bandwidth:/ && $4 == "MB/sec" { print $3 }' "$T/stderr")"
fi
if measure bw_unix os.unix.bw -- $Q -M 1m; then
	expect_numbers "bw_unix: 'AF_UNIX sock stream bandwidth: X MB/sec' field 5" \
		"$(awk '/^AF_UNIX sock stream bandwidth:/ { print $5 }' "$T/stderr")"
fi

# --- files and mappings ------------------------------------------------------------

if measure lat_fs os.fs -- $Q -s 1k "$T/fs"; then
	expect_numbers "lat_fs -s 1k: 'SIZE<TAB>N<TAB>CREATES<TAB>DELETES' fields 2-4" \
		"$(awk -F'\t' '$1 == "1k" { print $2, $3, $4 }' "$T/stderr")"
	if [ -z "$(ls -A "$T/fs")" ]; then
		pass "lat_fs leaves no file in its directory"
	else
		fail "lat_fs leaves no file in its directory" "$(ls -A "$T/fs" | head -3)"
	fi
fi

# The file the original benchmarks read (lmbench's scripts make /tmp/XXX with lmdd).
dd if=/dev/zero of="$T/XXX" bs=1024 count=1024 2>/dev/null
if measure bw_file_rd os.file_rd -- $Q 1m io_only "$T/XXX"; then
	expect_numbers "bw_file_rd 1m io_only: '1.05 MB/s'" \
		"$(awk '$1 == "1.05" { print $2 }' "$T/stderr")"
fi
if measure bw_file_rd os.file_rd -- $Q 512k open2close "$T/XXX"; then
	expect_numbers "bw_file_rd 512k open2close: '0.524288 MB/s'" \
		"$(awk '$1 == "0.524288" { print $2 }' "$T/stderr")"
fi
if measure bw_mmap_rd os.mmap_rd -- $Q 1m mmap_only "$T/XXX"; then
	expect_numbers "bw_mmap_rd 1m mmap_only: '1.05 MB/s'" \
		"$(awk '$1 == "1.05" { print $2 }' "$T/stderr")"
fi
if measure bw_mmap_rd os.mmap_rd -- $Q 1m open2close "$T/XXX"; then
	expect_numbers "bw_mmap_rd 1m open2close" "$(awk '{ print $2 }' "$T/stderr")"
fi
if measure lat_mmap os.mmap -- $Q 1m "$T/XXX"; then
	expect_numbers "lat_mmap 1m: '1.048576 US'" \
		"$(awk '$1 == "1.048576" { print $2 }' "$T/stderr")"
fi
if measure lat_pagefault os.pagefault -- $Q "$T/XXX"; then
	expect_numbers "lat_pagefault: 'Pagefaults on FILE: X microseconds'" \
		"$(sed -n 's/^Pagefaults on .*: \([0-9.]*\) microseconds$/\1/p' "$T/stderr")"
fi

# --- the Xilinx guide's extra programs: lat_usleep, line, par_mem ---------------------

# "usleep 100 microseconds: X microseconds": no sleep is shorter than asked.
for method in usleep nanosleep select itimer; do
	if measure lat_usleep os.sleep -- $Q -u $method 100; then
		v=$(sed -n "s/^$method 100 microseconds: \([0-9.]*\) microseconds\$/\1/p" "$T/stderr")
		if is_positive "$v" && awk -v v="$v" 'BEGIN { exit !(v >= 100) }'; then
			pass "lat_usleep -u $method 100: '$method 100 microseconds: X', X >= 100"
		else
			fail "lat_usleep -u $method 100: '$method 100 microseconds: X', X >= 100" "X='$v'"
		fi
	fi
done

# line prints the size alone on stdout: a power of two, at least a pointer.
# Like the original it prints nothing when the strides give no jump then
# plateau: on CPUs whose prefetchers keep the time per load rising past the
# line (the Intel Xeon re-run's curve) always, on a noisy shared machine
# in some runs.
# Up to three runs; then "not found here" is a skip, not a failure, once
# -v has shown that the curve indeed gives no size (below).
line_try() { # ARGS...: run line until it prints something; 0 when it ran
	local try

	for try in 1 2 3; do
		measure line os.cacheline -- "$@" || return 1
		[ -s "$T/stdout" ] && return 0
	done
	return 0
}

# line_rule: the rule of line_find on "STRIDE NS" lines on stdin; prints the
# line size or 0 (an independent copy of lib/os/line_rule.c, to check it).
line_rule() {
	awk 'NR > 1 { if ($2 > 1.3 * prev) jumped = 1
	              else if (jumped && $2 < 1.15 * prev && pstride >= 16) { print pstride; found = 1; exit }
	              else if (jumped && $2 < 1.15 * prev) jumped = 0 }
	     { prev = $2; pstride = $1 }
	     END { if (!found) print 0 }'
}

if line_try -M 8m; then
	v=$(cat "$T/stdout")
	if [ -z "$v" ]; then
		skip "line -M 8m: stdout is one power of two" "cache line size not found here (three runs)"
	elif [[ $v =~ ^[0-9]+$ ]] && [ "$v" -ge 8 ] && [ $((v & (v - 1))) -eq 0 ]; then
		pass "line -M 8m: stdout is one power of two ($v)"
	else
		fail "line -M 8m: stdout is one power of two" "stdout '$v' (three runs)"
	fi
fi
if line_try -v -M 8m; then
	v=$(sed -n 's/^cache line size: \([0-9]*\) bytes$/\1/p' "$T/stdout")
	curve=$(sed -n 's/^cache line size: not found here: .*(\(.*\))$/\1/p' "$T/stderr")
	if [ -s "$T/stdout" ]; then
		expect_numbers "line -v: 'cache line size: N bytes'" "$v"
	elif [ -z "$curve" ]; then
		fail "line -v: without a size, 'not found here' and the curve on stderr" \
			"stderr: $(head -c 300 "$T/stderr")"
	else
		# Evidence: at least two points, and none that the rule turns into a size.
		points=$(echo "$curve" | tr ',' '\n' | sed -n 's/^ *\([0-9]*\) B \([0-9.]*\) ns$/\1 \2/p')
		if [ "$(echo "$points" | wc -l)" -ge 2 ] && [ "$(echo "$points" | line_rule)" = 0 ]; then
			pass "line -v: 'not found here' comes with a curve that gives no size"
			skip "line -v: 'cache line size: N bytes'" "not found here: $curve"
		else
			fail "line -v: 'not found here' comes with a curve that gives no size" \
				"curve '$curve' gives $(echo "$points" | line_rule)"
		fi
	fi
fi

# par_mem: "MB PARALLELISM" per size, doubling from 16 lines (4 KiB with
# 4 KiB pages) to -M; lmbench's scripts keep both columns.
if measure par_mem mem.par -- $Q -M 64k; then
	expect_numbers "par_mem -M 64k: every 'MB PARALLELISM' line" "$(cat "$T/stderr")"
	sizes=$(awk '{ printf "%s ", $1 }' "$T/stderr")
	if [ "$(getconf PAGESIZE)" != 4096 ]; then
		skip "par_mem -M 64k: sizes 4k..64k" "this machine lacks 4 KiB pages"
	elif [ "$sizes" = "0.004096 0.008192 0.016384 0.032768 0.065536 " ]; then
		pass "par_mem -M 64k: sizes 0.004096 to 0.065536 MB"
	else
		fail "par_mem -M 64k: sizes 0.004096 to 0.065536 MB" "sizes '$sizes'"
	fi
fi
fe par_mem -L 100 -M 64k
if [ "$status" -eq 1 ] && grep -q "'line'" "$T/stderr" && grep -q "'100'" "$T/stderr"; then
	pass "par_mem -L 100 fails naming the parameter and the value"
else
	fail "par_mem -L 100 fails naming the parameter and the value" "exit $status"
fi

# --- nothing left behind ---------------------------------------------------------------

if [ -z "$(ls -A "$TMPDIR")" ]; then
	pass "no temporary file left in \$TMPDIR"
else
	fail "no temporary file left in \$TMPDIR" "$(ls -A "$TMPDIR" | head -5)"
fi

echo "1..$checks"
if [ $failures -ne 0 ]; then
	echo "# $failures of $checks checks failed"
	exit 1
fi
exit 0
