#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_cli.sh - checks of the `embperf` command: commands, formats, the
# compare verdicts, suite files, and the exit code and message of each kind
# of bad input. Run by meson as `test_cli.sh PATH-TO-EMBPERF`, with
# EMBPERF_SRCDIR set to the source tree. Prints TAP; exits 1 when a check fails.
#
# Timing is never asserted (the machine is shared and noisy): the wall time
# of the quick suite is printed, not judged.

set -u

EMBPERF=${1:?usage: test_cli.sh PATH-TO-EMBPERF}
SRCDIR=${EMBPERF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/test_cli.XXXXXX") || exit 1
BG_PID=
trap 'if [ -n "$BG_PID" ]; then kill "$BG_PID" 2>/dev/null; fi; rm -rf "$T"' EXIT

status=0
# Files this script writes into $T; anything else found there at the end is
# a file the command left behind.
written=(out err)

. "$(dirname "$0")/tap.sh"

# After a failure, what the command printed.
tap_fail_extra() {
	echo "# stderr: $(head -c 600 "$T/err")"
}

# ep ARGS...: run the command; stdout in $T/out, stderr in $T/err, code in $status.
ep() {
	"$EMBPERF" "$@" >"$T/out" 2>"$T/err"
	status=$?
}

# expect_status NAME CODE: the last command exited with CODE.
expect_status() {
	if [ "$status" -eq "$2" ]; then pass "$1"; else fail "$1" "exit code $status, expected $2"; fi
}

# expect_grep NAME FILE ERE: FILE (out or err) matches the extended regex.
expect_grep() {
	if grep -Eq -- "$3" "$T/$2"; then pass "$1"; else fail "$1" "$2 lacks /$3/"; fi
}

# expect_error NAME CODE ERE: exit code CODE and a stderr message matching ERE.
expect_error() {
	local ok=1

	[ "$status" -eq "$2" ] || ok=0
	grep -Eq -- "$3" "$T/err" || ok=0
	if [ $ok -eq 1 ]; then
		pass "$1"
	else
		fail "$1" "exit code $status (expected $2), stderr should match /$3/"
	fi
}

# json_check FILE PYTHON-EXPR: the expression over the parsed report `d` is true.
json_check() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$@" 2>>"$T/err"
}

echo "# embperf: $EMBPERF"

# --- informational commands ------------------------------------------------

ep --version
expect_status "--version exits 0" 0
expect_grep "--version names the library and its features" out 'libembperf [0-9]+\.[0-9]+.*'
expect_grep "--version lists the json feature" out 'json=(yes|no)'

ep --help
expect_status "--help exits 0" 0
expect_grep "--help lists the exit codes" out '^ *130 +cancelled'

ep help run
expect_status "help run exits 0" 0
expect_grep "help run shows its usage" out '^usage: embperf run KERNEL'

ep run --help
expect_status "run --help exits 0" 0

ep
expect_status "no command is a usage error (2)" 2

ep frobnicate
expect_error "unknown command exits 2 and names it" 2 "frobnicate"

ep list
expect_status "list exits 0" 0
expect_grep "list contains mem.lat" out '^mem\.lat +[^ ]'

ep describe mem.bw
expect_status "describe mem.bw exits 0" 0
expect_grep "describe mem.bw lists op with its choices" out '^ +op +enum +.*rd\|.*wr'
expect_grep "describe mem.bw lists the engine's repetitions" out '^ +repetitions +'
expect_grep "describe mem.bw lists the bandwidth metric in MB/s" out 'MB/s'

ep suites
expect_status "suites exits 0" 0
expect_grep "suites lists quick" out '^quick +[0-9]+ +[^ ]'
expect_grep "suites lists memory" out '^memory +[0-9]+ +[^ ]'

# --- run ---------------------------------------------------------------------

ep run mem.lat size=16k repetitions=3
expect_status "run mem.lat size=16k repetitions=3 exits 0" 0
expect_grep "run prints a row 'X (min Y, max Z)'" out \
	'[0-9.]+ \(min [0-9.]+, max [0-9.]+\)'

ep run mem.lat size=16k repetitions=3 --format=json
cp "$T/out" "$T/run.json"
written+=(run.json)
if json_check "$T/run.json" 'isinstance(d.get("results"), list) and len(d["results"]) > 0'; then
	pass "--format=json parses and has results"
else
	fail "--format=json parses and has results"
fi

ep run mem.lat size=16k repetitions=3 --format=csv
expect_status "--format=csv exits 0" 0
expect_grep "--format=csv has a header and a row" out ','

ep run mem.lat size=16k repetitions=3 --format=markdown
expect_grep "--format=markdown prints a table" out '^\|.*\|$'

ep run mem.lat size=16k repetitions=3 --format=json -o "$T/saved.json"
written+=(saved.json)
if [ "$status" -eq 0 ] && [ -s "$T/saved.json" ] && [ ! -s "$T/out" ]; then
	pass "-o writes the file and nothing to stdout"
else
	fail "-o writes the file and nothing to stdout" "exit code $status"
fi
expect_grep "-o notes the file on stderr" err 'saved\.json'

if json_check "$T/run.json" 'd["format_version"] == 2'; then
	pass "--format=json writes report format version 2"
else
	fail "--format=json writes report format version 2"
fi

# A string parameter holding a space, a quote and a backslash stays one value.
mkdir "$T/a b \"q\" c\\d"
written+=('a b "q" c\d')
ep run os.syscall op=stat "tmpdir=$T/a b \"q\" c\\d" repetitions=3 sample_time=200us --format=json
if [ "$status" -eq 0 ] && json_check "$T/out" \
	'd["results"][0]["params"]["tmpdir"] == sys.argv[3]' "$T/a b \"q\" c\\d"; then
	pass "a tmpdir with a space and a quote is one parameter in the JSON"
else
	fail "a tmpdir with a space and a quote is one parameter in the JSON" "exit code $status"
fi

# Reports recorded in format version 1 still compare, with each other and
# with the version 2 rendering of one of them.
V1="$SRCDIR/tests/data/report-v1-suite.json"
ep compare "$V1" "$V1"
expect_status "compare of a version 1 report with itself exits 0" 0
ep compare "$V1" "$V1" --format=json -o "$T/v1-as-v2.json"
written+=(v1-as-v2.json)
if json_check "$T/v1-as-v2.json" 'd["format_version"] == 2 and len(d["results"]) == 2'; then
	pass "compare -o writes the version 1 report's results as version 2"
else
	fail "compare -o writes the version 1 report's results as version 2" "exit code $status"
fi
ep compare "$V1" "$T/v1-as-v2.json"
expect_status "a version 2 report compares against a version 1 baseline" 0

ep run mem.lat size=16k repetitions=3 -o "$T/by-extension.json"
written+=(by-extension.json)
if [ "$status" -eq 0 ] && json_check "$T/by-extension.json" 'len(d["results"]) == 1'; then
	pass "-o FILE.json without --format writes JSON"
else
	fail "-o FILE.json without --format writes JSON" "exit code $status"
fi

ep compare "$T/saved.json" "$T/saved.json"
expect_status "compare a report with itself exits 0" 0

# A doctored baseline: the latency was half of what was measured, so the
# current value is a 100% regression whatever the machine does.
python3 - "$T/saved.json" "$T/regressed.json" <<'EOF' 2>>"$T/err"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    for k in ("value", "min", "max", "mean", "median"):
        if isinstance(r.get(k), (int, float)):
            r[k] = r[k] / 2
    st = r.get("stats")
    if isinstance(st, dict):
        for k, v in st.items():
            if k != "n" and isinstance(v, (int, float)):
                st[k] = v / 2
    if isinstance(r.get("samples"), list):
        r["samples"] = [v / 2 for v in r["samples"]]
json.dump(d, open(sys.argv[2], "w"))
EOF
written+=(regressed.json)
ep compare "$T/regressed.json" "$T/saved.json"
expect_error "compare against a doctored baseline exits 1 and lists it" 1 \
	'regressed: mem\.lat'

# A baseline holding a metric the current report lacks.
python3 - "$T/saved.json" "$T/extra.json" <<'EOF' 2>>"$T/err"
import copy, json, sys
d = json.load(open(sys.argv[1]))
extra = copy.deepcopy(d["results"][0])
extra["title"] = extra["key"] = "no-such-row"
d["results"].append(extra)
json.dump(d, open(sys.argv[2], "w"))
EOF
written+=(extra.json)
ep compare "$T/extra.json" "$T/saved.json"
expect_error "a baseline metric missing from current exits 1 and is listed" 1 \
	'missing: no-such-row'

# A baseline saved when blk.fs named the whole system's CPU load cpu_load (a
# storage suite row) against a report of today, where it is cpu_system: the
# rows meet, nothing is missing.
python3 - "$T/saved.json" "$T/fs-then.json" "$T/fs-now.json" <<'EOF' 2>>"$T/err"
import copy, json, sys
d = json.load(open(sys.argv[1]))
for path, metric in ((sys.argv[2], "cpu_load"), (sys.argv[3], "cpu_system")):
    r = copy.deepcopy(d["results"][0])
    r["kernel"], r["metric"], r["unit"] = "blk.fs", metric, "%"
    r["title"] = r["key"] = "write-ext4-102400-" + metric
    json.dump(dict(d, results=[r]), open(path, "w"))
EOF
written+=(fs-then.json fs-now.json)
ep compare "$T/fs-then.json" "$T/fs-now.json"
if [ "$status" -eq 0 ] && ! grep -q 'missing:' "$T/err"; then
	pass "a baseline's blk.fs cpu_load row meets today's cpu_system row"
else
	fail "a baseline's blk.fs cpu_load row meets today's cpu_system row" "exit code $status"
fi

ep run mem.lat size=16k repetitions=3 --baseline="$T/saved.json" --tolerance=1000 -q
expect_status "run --baseline within a wide tolerance exits 0" 0

ep run mem.lat size=16k repetitions=3 --baseline="$T/extra.json"
expect_error "run --baseline with a missing metric exits 1" 1 'missing: no-such-row'

# --- bad input: exit code and a message naming the culprit -----------------

ep run mem.nosuch
expect_error "unknown kernel exits 2 and names it" 2 'mem\.nosuch'

ep describe mem.nosuch
expect_error "describe of an unknown kernel exits 2 and names it" 2 'mem\.nosuch'

ep run mem.lat bogus=1
expect_error "unknown parameter exits 2 and names it" 2 'bogus'

ep run mem.lat size=12Q
expect_error "malformed value exits 2 and names parameter and value" 2 'size.*12Q|12Q.*size'

ep run mem.lat repetitions=0
expect_error "out-of-range value exits 2 and names the parameter" 2 'repetitions'

ep run mem.lat size
expect_error "an operand without '=' exits 2" 2 "key=value"

ep run mem.lat --baseline="$T/absent.json"
expect_error "missing baseline file exits 4 and names it" 4 'absent\.json'

printf '{"results": [ {"kernel": ' >"$T/broken.json"
written+=(broken.json)
ep compare "$T/broken.json" "$T/saved.json"
expect_error "malformed baseline exits 4 and names the file" 4 'broken\.json'

ep suite nosuch
expect_error "unknown suite exits 2 and names it" 2 "nosuch"

ep run mem.lat --format=yaml
expect_error "unknown format exits 2 and names it" 2 'yaml'

ep run mem.lat --tolerance=abc
expect_error "bad tolerance exits 2" 2 'tolerance'

ep run mem.lat --budget=soon
expect_error "bad budget exits 2" 2 'budget'

ep list -o "$T/list.txt"
expect_error "an option the command does not take exits 2" 2 'list'

ep run mem.lat size=16k repetitions=3 -o "$T/no-such-dir/r.txt"
expect_error "-o into a missing folder exits 4 and names the file" 4 'no-such-dir'

ep run mem.lat size=1T
expect_error "a run that cannot get its memory exits 3 and says why" 3 'size'
if [ ! -s "$T/out" ]; then pass "a failed run prints no empty table"; else fail "a failed run prints no empty table"; fi

ep compare "$T/saved.json"
expect_status "compare with one file is a usage error (2)" 2

# --- suites --------------------------------------------------------------

ep suites quick
expect_status "suites quick prints the suite" 0
expect_grep "the printed suite has entries" out '^[^#@ ]+ +mem\.'

cat >"$T/small.suite" <<'EOF'
# a comment, then a description and two entries
@description two small entries
lat-small          mem.lat size=16k repetitions=3
bw-{op}-small      mem.bw  op=rd size=64k repetitions=3
EOF
written+=(small.suite)
ep suite "$T/small.suite" repetitions=2 --format=json -o "$T/small.json"
written+=(small.json)
expect_status "a suite file runs, with an override" 0
if json_check "$T/small.json" \
	'sorted(r["title"] for r in d["results"]) == ["bw-rd-small", "lat-small"]'; then
	pass "suite titles come out as written, {op} expanded"
else
	fail "suite titles come out as written, {op} expanded"
fi

printf 'stream-copy mem.stream size=1M repetitions=2 @metric=copy\n' >"$T/metric.suite"
written+=(metric.suite)
ep suite "$T/metric.suite" --format=csv
expect_status "an entry with @metric= runs" 0
if [ "$(grep -c '^stream-copy,' "$T/out")" -eq 1 ] && ! grep -q 'scale\|triad' "$T/out"; then
	pass "@metric= keeps one row of a kernel with four metrics"
else
	fail "@metric= keeps one row of a kernel with four metrics" "$(cat "$T/out")"
fi

printf 'stream mem.stream size=1M @metric=copy,nosuch\n' >"$T/badmetric.suite"
written+=(badmetric.suite)
ep suite "$T/badmetric.suite"
expect_error "an unknown @metric= name exits 4 naming file, line and the name" 4 \
	'badmetric\.suite:1.*nosuch.*copy\|scale'

ep suite "$T/small.suite" nosuchparam=1
expect_error "an override no entry accepts exits 2 and names it" 2 'nosuchparam'

ep suite "$T/small.suite" size=12Q
expect_error "a malformed override exits 2" 2 '12Q'

printf 'lat mem.lat size=16k\nbad-line mem.lat size\n' >"$T/bad.suite"
written+=(bad.suite)
ep suite "$T/bad.suite"
expect_error "a malformed suite file exits 4 naming file and line" 4 'bad\.suite:2'

printf 'lat mem.nosuch size=16k\n' >"$T/badkernel.suite"
written+=(badkernel.suite)
ep suite "$T/badkernel.suite"
expect_error "a suite file with an unknown kernel exits 4 naming file and line" 4 \
	'badkernel\.suite:1.*mem\.nosuch'

printf 'good mem.lat size=16k repetitions=3\nhuge mem.lat size=1T\nalso-good mem.bw size=64k repetitions=3\n' \
	>"$T/failing.suite"
written+=(failing.suite)
ep suite "$T/failing.suite"
expect_error "a suite with a failed entry exits 3 naming the entry" 3 'failing\.suite:2: huge'
expect_grep "the entries after a failed one still run" out '^also-good '

# A budget of 2 s: ample for calibration and a first sample even when the
# machine is loaded (300 ms once ended before the first sample), and still
# far below the million samples asked for.
ep run mem.lat size=16k repetitions=1000000 --budget=2s
expect_status "a run cut short by the budget exits 5" 5
expect_grep "the budget-cut run still prints its partial row" out 'min [0-9.]+, max [0-9.]+'

ep suite "$T/absent.suite"
expect_error "a missing suite file exits 4 and names it" 4 'absent\.suite'

ep suite "$SRCDIR/bench/suites/quick.suite" --budget=1ms
expect_status "a budget too small for the suite exits 5" 5

# Cancel: SIGTERM while a long run is going exits 130 (the handler calls
# embperf_ctx_cancel; the run stops at its next check).
"$EMBPERF" run mem.bw op=rd size=64M repetitions=100000 precision=0 >"$T/out" 2>"$T/err" &
BG_PID=$!
# Signal once the handler is in: SigCgt has SIGTERM's bit (15: 0x4000). A
# fixed sleep of 1 s was a guess that a loaded machine with ASan could miss
# (the default action would then kill it: 143).
for _ in $(seq 100); do
	caught=$(awk '/^SigCgt:/ { print $2 }' "/proc/$BG_PID/status" 2>/dev/null)
	[ -n "$caught" ] && [ $(( 0x$caught & 0x4000 )) -ne 0 ] && break
	sleep 0.1
done
sleep 0.2 # into the run itself, past its setup
kill -TERM "$BG_PID"
wait "$BG_PID"
status=$?
BG_PID=
expect_status "SIGTERM during a run exits 130" 130

start_ns=$(date +%s%N)
ep suite quick
end_ns=$(date +%s%N)
expect_status "suite quick exits 0" 0
echo "# suite quick: wall time $(( (end_ns - start_ns) / 1000000 )) ms"
expect_grep "suite quick prints its rows" out 'lat-l1-16k'

# --- helper programs of the build tree ---------------------------------------

# os.proc execs embperf-hello. Its default is the installed path; a library
# run from its build tree must use the helper built next to it, so the
# README's "meson setup build && ninja -C build" leaves a working command
# without EMBPERF_HELLO and without an installation. Run from / so that
# nothing depends on the current folder.
(cd / && env -u EMBPERF_HELLO "$EMBPERF" run os.proc op=exec repetitions=2 warmup=0 \
	>"$T/out" 2>"$T/err")
status=$?
expect_status "os.proc op=exec runs from the build tree without EMBPERF_HELLO" 0

# The helper is found next to the library's own file, not at a fixed path:
# a copy of the library in another folder, with a marker-writing
# os/embperf-hello beside it, execs that one.
lib=$(ldd "$EMBPERF" | awk '/libembperf\.so/ { print $3; exit }')
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
	skip "a relocated library execs the embperf-hello beside it" "ldd names no libembperf.so"
else
	mkdir -p "$T/reloc/os"
	cp -L "$lib" "$T/reloc/$(basename "$lib")"
	printf '#!/bin/sh\n: >%s/reloc/ran\n' "$T" >"$T/reloc/os/embperf-hello"
	chmod +x "$T/reloc/os/embperf-hello"
	(cd / && env -u EMBPERF_HELLO LD_LIBRARY_PATH="$T/reloc" "$EMBPERF" run os.proc \
		op=exec repetitions=1 warmup=0 >"$T/out" 2>"$T/err")
	status=$?
	if [ "$status" -eq 0 ] && [ -e "$T/reloc/ran" ]; then
		pass "a relocated library execs the embperf-hello beside it"
	else
		fail "a relocated library execs the embperf-hello beside it" \
			"exit $status; marker $([ -e "$T/reloc/ran" ] && echo written || echo missing)"
	fi
	rm -rf "$T/reloc"
fi

# An explicit exec_path still wins over the build tree's helper.
ep run os.proc op=exec exec_path=/nonexistent/embperf-hello repetitions=1
expect_error "an explicit exec_path is used as given" 3 "'exec_path'.*/nonexistent/embperf-hello"

# --- os.tcp.connect's backlog reaches listen() ----------------------------
# ss shows a listening socket's accept-queue limit as its Send-Q. While
# os.tcp.connect runs with backlog=77, the loopback listener of this run
# (its server's: a child process by default) must have 77 there; a kernel
# that dropped the parameter would show its default 4096. Only this run's
# processes are read: other tests (other CI jobs) may run embperf beside it.
if ! command -v ss >/dev/null || ! command -v pgrep >/dev/null; then
	skip "os.tcp.connect's backlog reaches listen()" "no ss or pgrep (apt-get install iproute2 procps)"
else
	"$EMBPERF" run os.tcp.connect backlog=77 >"$T/out" 2>"$T/err" &
	BG_PID=$!
	queues=
	for _ in $(seq 1 1000); do
		# Send-Q of each listener on 127.0.0.1 that this run's processes hold
		pids="$BG_PID $(pgrep -P "$BG_PID" | tr '\n' ' ')"
		queues=$(ss -ltnHp src 127.0.0.1 2>/dev/null | awk -v pids="$pids" '
			BEGIN { n = split(pids, pid, " ") }
			{ for (i = 1; i <= n; i++) if (index($0, "pid=" pid[i] ",")) { print $3; break } }' |
			sort -u | tr '\n' ' ')
		[ -n "$queues" ] && break
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.01
	done
	wait "$BG_PID"
	status=$?
	BG_PID=
	if [ "$status" -eq 0 ] && [ "$queues" = "77 " ]; then
		pass "os.tcp.connect backlog=77: its server listens with a queue of 77 (ss)"
	else
		fail "os.tcp.connect backlog=77 reaches listen()" \
			"exit $status; Send-Q of its listeners on 127.0.0.1: '${queues}'"
	fi
fi

# --- nothing left behind -------------------------------------------------

leftover=$(cd "$T" && for f in * .[!.]*; do
	[ -e "$f" ] || continue
	keep=0
	for w in "${written[@]}"; do [ "$f" = "$w" ] && keep=1; done
	[ $keep -eq 1 ] || echo "$f"
done)
if [ -z "$leftover" ]; then
	pass "nothing left in the temp folder but the test's own files"
else
	fail "nothing left in the temp folder but the test's own files" "left: $leftover"
fi

echo "1..$checks"
if [ $failures -ne 0 ]; then
	echo "# $failures of $checks checks failed"
	exit 1
fi
exit 0
