#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_lmbench_suite.sh - the built-in `lmbench` suite and the alias lines of
# the suite format.
#
# The suite must give exactly the rows of the LMBench table of TI's
# Processor SDK Linux performance guide (the list below is that table's
# first column, taken from the guide), each in the guide's unit; every entry
# must be accepted by the library (kernel and parameters); an alias line
# "= NEWTITLE TITLE" must report the entry's results again under NEWTITLE
# without running it twice, and bad alias lines must be refused with the
# file and line.
#
# Run by meson as `test_lmbench_suite.sh PATH-TO-embperf PATH-TO-embperf-hello`. Prints TAP; exits
# 1 when a check fails. Checks that need a kernel this build lacks are
# skipped with the reason.

set -u

EMBPERF=${1:?usage: test_lmbench_suite.sh PATH-TO-embperf [PATH-TO-embperf-hello]}
HELLO=${2:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/test_lmbench_suite.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

status=0

. "$(dirname "$0")/tap.sh"

ep() {
	"$EMBPERF" "$@" >"$T/out" 2>"$T/err"
	status=$?
}

# The rows of the guide's LMBench table and their unit there (data, from
# seeds/000: TI AM62Px Processor SDK Linux performance guide).
cat >"$T/ti-rows" <<'EOF'
af_unix_sock_stream_latency microsec
af_unix_socket_stream_bandwidth mbs
bw_file_rd-io-1mb mb/s
bw_file_rd-o2c-1mb mb/s
bw_mem-bcopy-16mb mb/s
bw_mem-bcopy-1mb mb/s
bw_mem-bcopy-2mb mb/s
bw_mem-bcopy-4mb mb/s
bw_mem-bcopy-8mb mb/s
bw_mem-bzero-16mb mb/s
bw_mem-bzero-1mb mb/s
bw_mem-bzero-2mb mb/s
bw_mem-bzero-4mb mb/s
bw_mem-bzero-8mb mb/s
bw_mem-cp-16mb mb/s
bw_mem-cp-1mb mb/s
bw_mem-cp-2mb mb/s
bw_mem-cp-4mb mb/s
bw_mem-cp-8mb mb/s
bw_mem-fcp-16mb mb/s
bw_mem-fcp-1mb mb/s
bw_mem-fcp-2mb mb/s
bw_mem-fcp-4mb mb/s
bw_mem-fcp-8mb mb/s
bw_mem-frd-16mb mb/s
bw_mem-frd-1mb mb/s
bw_mem-frd-2mb mb/s
bw_mem-frd-4mb mb/s
bw_mem-frd-8mb mb/s
bw_mem-fwr-16mb mb/s
bw_mem-fwr-1mb mb/s
bw_mem-fwr-2mb mb/s
bw_mem-fwr-4mb mb/s
bw_mem-fwr-8mb mb/s
bw_mem-rd-16mb mb/s
bw_mem-rd-1mb mb/s
bw_mem-rd-2mb mb/s
bw_mem-rd-4mb mb/s
bw_mem-rd-8mb mb/s
bw_mem-rdwr-16mb mb/s
bw_mem-rdwr-1mb mb/s
bw_mem-rdwr-2mb mb/s
bw_mem-rdwr-4mb mb/s
bw_mem-rdwr-8mb mb/s
bw_mem-wr-16mb mb/s
bw_mem-wr-1mb mb/s
bw_mem-wr-2mb mb/s
bw_mem-wr-4mb mb/s
bw_mem-wr-8mb mb/s
bw_mmap_rd-mo-1mb mb/s
bw_mmap_rd-o2c-1mb mb/s
bw_pipe mb/s
bw_unix mb/s
lat_connect us
lat_ctx-2-128k us
lat_ctx-2-256k us
lat_ctx-4-128k us
lat_ctx-4-256k us
lat_fs-0k num_files
lat_fs-10k num_files
lat_fs-1k num_files
lat_fs-4k num_files
lat_mem_rd-stride128-sz1000k ns
lat_mem_rd-stride128-sz125k ns
lat_mem_rd-stride128-sz250k ns
lat_mem_rd-stride128-sz31k ns
lat_mem_rd-stride128-sz50 ns
lat_mem_rd-stride128-sz500k ns
lat_mem_rd-stride128-sz62k ns
lat_mmap-1m us
lat_ops-double-add ns
lat_ops-double-div ns
lat_ops-double-mul ns
lat_ops-float-add ns
lat_ops-float-div ns
lat_ops-float-mul ns
lat_ops-int-add ns
lat_ops-int-bit ns
lat_ops-int-div ns
lat_ops-int-mod ns
lat_ops-int-mul ns
lat_ops-int64-add ns
lat_ops-int64-bit ns
lat_ops-int64-div ns
lat_ops-int64-mod ns
lat_ops-int64-mul ns
lat_pagefault us
lat_pipe us
lat_proc-exec us
lat_proc-fork us
lat_proc-proccall us
lat_select us
lat_sem us
lat_sig-catch us
lat_sig-install us
lat_sig-prot us
lat_syscall-fstat us
lat_syscall-null us
lat_syscall-open us
lat_syscall-read us
lat_syscall-stat us
lat_syscall-write us
lat_tcp us
lat_unix us
latency_for_0.50_mb_block_size nanosec
latency_for_1.00_mb_block_size nanosec
pipe_bandwidth mbs
pipe_latency microsec
procedure_call microsec
select_on_200_tcp_fds microsec
semaphore_latency microsec
signal_handler_latency microsec
signal_handler_overhead microsec
tcp_ip_connection_cost_to_localhost microsec
tcp_latency_using_localhost microsec
EOF

# --- the suite text ------------------------------------------------------------

ep suites
if [ "$status" -eq 0 ] && grep -qE '^lmbench +[0-9]+ +[^ ]' "$T/out"; then
	pass "embperf suites parses every built-in suite and lists lmbench"
else
	fail "embperf suites parses every built-in suite and lists lmbench" "exit $status: $(head -c 300 "$T/err")"
fi

ep suites lmbench
cp "$T/out" "$T/lmbench.suite"
if [ "$status" -eq 0 ] && [ -s "$T/lmbench.suite" ]; then
	pass "embperf suites lmbench prints the suite"
else
	fail "embperf suites lmbench prints the suite" "exit $status"
fi

# Rows of the suite: the title of each entry, the new title of each alias.
awk '/^[ \t]*(#|@|$)/ { next } $1 == "=" { print $2; next } { print $1 }' \
	"$T/lmbench.suite" >"$T/titles"
sort "$T/titles" >"$T/titles.sorted"
awk '{ print $1 }' "$T/ti-rows" | sort >"$T/ti.sorted"

dups=$(uniq -d "$T/titles.sorted")
if [ -z "$dups" ]; then pass "no row name twice"; else fail "no row name twice" "$dups"; fi

extra=$(comm -23 "$T/titles.sorted" "$T/ti.sorted")
if [ -z "$extra" ]; then
	pass "every row of the suite is a row of the guide's table"
else
	fail "every row of the suite is a row of the guide's table" "not in the guide: $(echo $extra)"
fi
missing=$(comm -13 "$T/titles.sorted" "$T/ti.sorted")
if [ -z "$missing" ]; then
	pass "every row of the guide's table is in the suite ($(wc -l <"$T/ti.sorted") rows)"
else
	fail "every row of the guide's table is in the suite" "missing: $(echo $missing)"
fi
if ! grep -q '{' "$T/titles"; then
	pass "no row name is a template (each row is named as in the guide)"
else
	fail "no row name is a template (each row is named as in the guide)"
fi

# Kernel of each row: its entry's, or that of the entry an alias names.
awk '/^[ \t]*(#|@|$)/ { next }
	$1 == "=" { print $2, kernel[$3]; next }
	{ kernel[$1] = $2; print $1, $2 }' "$T/lmbench.suite" >"$T/row-kernels"
kernels=$(awk '{ print $2 }' "$T/row-kernels" | sort -u)
absent=
for k in $kernels; do
	"$EMBPERF" describe "$k" >"$T/describe.$k" 2>/dev/null || absent="$absent $k"
done

# --- units, as the guide gives them -------------------------------------------------

# The unit the library reports for a guide's unit. lat_fs's num_files is
# reported as the creation rate (see the suite's header comment).
expected_unit() {
	case $1 in
	microsec | us) echo us ;;
	mb/s | mbs) echo MB/s ;;
	ns | nanosec) echo ns ;;
	num_files) echo files/s ;;
	*) echo "?" ;;
	esac
}

if [ -n "$absent" ]; then
	skip "each row's unit is the guide's unit" "this build lacks:$absent"
else
	wrong=
	while read -r row guide_unit; do
		kernel=$(awk -v r="$row" '$1 == r { print $2 }' "$T/row-kernels")
		# First metric listed by describe: the one the row reports.
		unit=$(awk 'done { next } /^Metrics:/ { m = 1; next }
			m == 1 { m = 2; next }
			m == 2 && NF { print $2; done = 1 }' "$T/describe.$kernel")
		[ "$unit" = "$(expected_unit "$guide_unit")" ] || wrong="$wrong $row($kernel:$unit)"
	done <"$T/ti-rows"
	if [ -z "$wrong" ]; then
		pass "each row's unit is the guide's unit"
	else
		fail "each row's unit is the guide's unit" "$wrong"
	fi
fi

# --- every entry accepted by the library ---------------------------------------------

# The command checks every kernel and parameter before measuring anything;
# a budget that runs out at once then stops the run: exit 5 means all of
# the suite was accepted, 4 that an entry was refused.
if [ -n "$absent" ]; then
	skip "every entry's kernel and parameters are accepted" "this build lacks:$absent"
else
	ep suite lmbench --budget=1ms -q -o "$T/budget.json"
	if [ "$status" -eq 5 ]; then
		pass "every entry's kernel and parameters are accepted"
	else
		fail "every entry's kernel and parameters are accepted" "exit $status: $(head -c 400 "$T/err")"
	fi
fi

# --- the whole suite, run ---------------------------------------------------------------

# One sample per entry: every row must come out, once, under the guide's
# name, with a positive value (a kernel giving several results under one
# title, or a helper program missing, fails here and nowhere else). Run as
# the README's build leaves a user: the build tree's command, no
# EMBPERF_HELLO, nothing installed; lat_proc's exec rows must find the
# build tree's embperf-hello themselves.
if [ -n "$absent" ]; then
	skip "the whole suite runs and gives every row once" "this build lacks:$absent"
elif [ -z "$HELLO" ] || [ ! -x "$HELLO" ]; then
	skip "the whole suite runs and gives every row once" "the build made no embperf-hello"
else
	unset EMBPERF_HELLO
	ep suite lmbench repetitions=1 warmup=0 --format=json -q -o "$T/run.json"
	if [ "$status" -eq 0 ] && python3 - "$T/run.json" "$T/ti.sorted" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
titles = [r["title"] for r in d["results"]]
want = open(sys.argv[2]).read().split()
assert sorted(titles) == sorted(want), (set(titles) ^ set(want))
bad = [r["title"] for r in d["results"] if not r["value"] > 0]
assert not bad, bad
EOF
	then
		pass "the whole suite runs and gives every row once, each positive"
	else
		fail "the whole suite runs and gives every row once, each positive" \
			"exit $status: $(head -c 400 "$T/err")"
	fi
fi

# --- alias lines -----------------------------------------------------------------------

cat >"$T/alias.suite" <<'EOF'
# SPDX-License-Identifier: MIT
@description alias lines
first   mem.lat size=16k repetitions=3 warmup=0
= again first
= third first
=kept   mem.lat size=8k repetitions=2 warmup=0
EOF
ep suite "$T/alias.suite" --format=json -q
cp "$T/out" "$T/alias.json"
if [ "$status" -eq 0 ] && python3 - "$T/alias.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["title"]: r for r in d["results"]}
assert sorted(rows) == ["=kept", "again", "first", "third"], sorted(rows)
for alias in ("again", "third"):
    # The same measurement: same value and same samples, not a second run.
    assert rows[alias]["value"] == rows["first"]["value"]
    assert rows[alias]["samples"] == rows["first"]["samples"]
assert rows["=kept"]["value"] > 0
EOF
then
	pass "an alias reports the entry's results again, samples and all; '=x' stays a title"
else
	fail "an alias reports the entry's results again, samples and all; '=x' stays a title" "exit $status"
fi

# bad_alias NAME TEXT ERE: a suite with TEXT is refused (exit 4) with a
# message naming the file, the line and matching ERE.
bad_alias() {
	printf '%b' "$2" >"$T/bad.suite"
	ep suite "$T/bad.suite" -q
	if [ "$status" -eq 4 ] && grep -Eq -- "bad\.suite:[0-9]+: .*$3" "$T/err"; then
		pass "$1"
	else
		fail "$1" "exit $status (expected 4), stderr: $(head -c 300 "$T/err")"
	fi
}

bad_alias "an alias of an unknown title is refused" \
	'a mem.lat size=16k\n= b nosuch\n' "no entry titled 'nosuch'"
bad_alias "an alias above its entry is refused" \
	'= b a\na mem.lat size=16k\n' "no entry titled 'a' above"
bad_alias "an alias reusing a title is refused" \
	'a mem.lat size=16k\nb mem.lat size=8k\n= b a\n' "already used"
bad_alias "an entry reusing an alias's title is refused" \
	'a mem.lat size=16k\n= b a\nb mem.lat size=8k\n' "already an alias"
bad_alias "an alias with one title is refused" \
	'a mem.lat size=16k\n= b\n' "expected '= NEWTITLE TITLE'"
bad_alias "an alias with three words is refused" \
	'a mem.lat size=16k\n= b a c\n' "expected '= NEWTITLE TITLE'"

echo "1..$checks"
if [ $failures -ne 0 ]; then
	echo "# $failures of $checks checks failed"
	exit 1
fi
exit 0
