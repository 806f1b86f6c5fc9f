#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_guide.sh - `embperf guide` on this machine: the ti-am62px guide with
# a profile of folders, the loopback peer (peer=local), the tests' paced
# ALSA device (tests/paced_pcm.c built as a plugin, when alsa-lib's headers
# are here) and loop devices (as root: a VFAT file system, a raw target),
# at very short durations; then, table by table, the guide against the facts
# of TI's guide (tests/data/guide/ti-am62px.tables, tests/guide_tables.py);
# the HTML page in a real browser (chromium --headless, when installed); a
# compare of two guides (one doctored: a bandwidth halved, a latency halved,
# a result marked disturbed); profiles refused before anything runs, naming
# the line; a medium that fills up (as root: a small tmpfs); a profile that
# lacks the peer; Ctrl-C keeping what was measured; merging reports.
# Nothing here asserts a timing: figures are whatever this machine gives.
#
# Run by meson as `test_guide.sh PATH-TO-embperf SOURCE-DIR PATH-TO-embperf-hello`.
# Prints TAP; exits 1 when a check fails.

set -u
EMBPERF=${1:?usage: test_guide.sh EMBPERF SRCDIR HELLO}
SRC=${2:?}
export EMBPERF_HELLO=${3:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/test_guide.XXXXXX") || exit 1
MOUNTS=() LOOPS=()
cleanup() {
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
# KEEP=1 keeps the folder (and its mounts) for a look after a failure.
[ -n "${KEEP:-}" ] && trap - EXIT && echo "# kept $T"
. "$SRC/tests/tap.sh"
started=$(date +%s)

# --- what this machine has -------------------------------------------------
mkdir -p "$T/emmc" "$T/sd" "$T/ospi" "$T/alsa"
truncate -s 50M "$T/ospi.raw"
audio_line="" measured_audio="" no_audio=""
if ! "$EMBPERF" --version | grep -q "alsa=yes"; then
	no_audio="the library is built without alsa-lib"
elif command -v "${CC:-cc}" >/dev/null && pkg-config --exists alsa 2>/dev/null; then
	. "$SRC/bench/fidelity/paced_device.sh"
	if paced_device_setup "$T/alsa" >"$T/alsa/build.log" 2>&1; then
		audio_line="[audio]
device = $DEVICE"
		measured_audio="Audio Capture;Audio Playback;"
	else
		no_audio="the paced ALSA plugin did not build: $(head -c 200 "$T/alsa/build.log")"
	fi
else
	no_audio="needs a C compiler and alsa-lib's headers (pkg-config alsa) for the paced ALSA device"
fi
loop_lines="" measured_loop="" no_loop=""
# The eMMC VFAT folder is a loop device's file system: VFAT where this
# kernel has it, else ext4 standing in (the table is the same).
mkfs=mkfs.vfat
grep -qw vfat /proc/filesystems || mkfs="mkfs.ext4 -q -F"
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null && command -v ${mkfs%% *} >/dev/null; then
	truncate -s 64M "$T/vfat.img" "$T/raw.img"
	VFAT_DEV=$(losetup -f --show "$T/vfat.img") && LOOPS+=("$VFAT_DEV")
	RAW_DEV=$(losetup -f --show "$T/raw.img") && LOOPS+=("$RAW_DEV")
	mkdir -p "$T/vfat"
	if [ -n "${VFAT_DEV:-}" ] && [ -n "${RAW_DEV:-}" ] && $mkfs "$VFAT_DEV" >"$T/mkfs.log" 2>&1 &&
		mount "$VFAT_DEV" "$T/vfat" 2>>"$T/mkfs.log"; then
		MOUNTS+=("$T/vfat")
		loop_lines="emmc-vfat = $T/vfat
raw-sd = $RAW_DEV
destructive = 1"
		measured_loop="EMMC VFAT;MMC/SD RAW;"
	else
		no_loop="losetup, $mkfs or mount failed: $(tr '\n' ' ' <"$T/mkfs.log" | head -c 200)"
	fi
else
	no_loop="needs root, losetup and ${mkfs%% *} for the VFAT and raw-device tables"
fi

cat >"$T/board.profile" <<EOF
# the board profile of test_guide.sh
board = test board
guide = ti-am62px
durations = short

[network]
peer = local

$audio_line

[storage]
emmc-ext4 = $T/emmc
sd-ext4 = $T/sd
ospi-ubifs = $T/ospi
raw-ospi = $T/ospi.raw
file_size = 8M
ubifs_file_size = 8M
fio_file_size = 4M
$loop_lines

[parameters]
repetitions = 1
duration = 50ms
sample_time = 1ms
ramp = 0
settle = 0
max_trials = 3
cpu.whetstone.loops = 1000
EOF

# --- the guide ---------------------------------------------------------------
"$EMBPERF" guide "$T/board.profile" -o "$T/g1" >"$T/out1" 2>"$T/err1"
status=$?
if [ $status -eq 0 ] && [ -s "$T/g1/guide.json" ] && [ -s "$T/g1/guide.md" ] &&
	[ -s "$T/g1/guide.html" ]; then
	pass "embperf guide PROFILE -o DIR writes guide.json, guide.md and guide.html"
else
	fail "embperf guide PROFILE -o DIR writes guide.json, guide.md and guide.html" \
		"exit $status" "$(grep -v '^ALSA lib' "$T/err1" | head -c 1500)"
fi
echo "# the guide took $(($(date +%s) - started)) s"
if head -1 "$T/err1" | grep -qE "guide ti-am62px for test board: [0-9]+ entries to run, about [0-9]+ (s|min) at short durations; [0-9]+ not measured"; then
	pass "the plan and its time are announced before the runs"
else
	fail "the plan and its time are announced before the runs" "$(head -2 "$T/err1")"
fi

measured="LMBench;Whetstone;Linpack;Stream;${measured_audio}TCP Bidirectional Throughput;UDP Egress Throughput (0% loss);UDP Ingress Throughput (0% loss);UDP Ingress Throughput (possible loss);OSPI Flash: UBIFS;OSPI Flash: RAW;EMMC EXT4 FIO 1G;EMMC EXT4;MMC/SD EXT4 FIO 1G;${measured_loop}"
if "$EMBPERF" list | grep -q '^crypto.speed' && "$EMBPERF" run crypto.speed alg=sha256 size=16 \
	duration=1ms repetitions=1 >/dev/null 2>&1; then
	measured="${measured}OpenSSL Performance;OpenSSL CPU Load;"
else
	echo "# the OpenSSL tables are not required here: crypto.speed cannot run (no libcrypto?)"
fi
[ -n "$no_audio" ] && skip "the audio tables measured" "$no_audio"
[ -n "$no_loop" ] && skip "the VFAT and raw-device tables measured" "$no_loop"
# The table by table check prints its own TAP lines: renumber them into ours.
python3 "$SRC/tests/guide_tables.py" "$SRC/tests/data/guide/ti-am62px.tables" "$T/g1/guide.md" \
	"test board" "--measured=$measured" "--own-command=TCP Bidirectional Throughput" >"$T/tables" 2>&1
while IFS= read -r line; do
	case $line in
	"ok "*) checks=$((checks + 1)); echo "ok $checks - seed 000: ${line#ok * - }" ;;
	"not ok "*"# TODO"*) checks=$((checks + 1)); echo "not ok $checks - seed 000: ${line#not ok * - }" ;;
	"not ok "*) checks=$((checks + 1)); failures=$((failures + 1))
		echo "not ok $checks - seed 000: ${line#not ok * - }" ;;
	"#"*) echo "$line" ;;
	esac
done <"$T/tables"

if grep -q "| not measured: no Dhrystone kernel in libembperf" "$T/g1/guide.md" &&
	grep -q "| not measured: needs the interface's interrupt pacing set by the board's setup (ethtool -C)" "$T/g1/guide.md"; then
	pass "a table no kernel measures is a row 'not measured: why'"
else
	fail "a table no kernel measures is a row 'not measured: why'"
fi
plots=$(ls "$T/g1/plots" 2>/dev/null | wc -l)
# As many level lines as the sweep found levels (how many it finds is the machine's).
levels=$(grep -c '"title": "mem-curve/mem.lat/cache_level_size' "$T/g1/guide.json")
if [ "$plots" -ge 6 ] && grep -q "<polyline class=\"series\"" "$T/g1/plots/plot-01.svg" &&
	[ "$(grep -o 'class="level"' "$T/g1/plots/plot-01.svg" | wc -l)" -eq "$levels" ]; then
	pass "the plots are written ($plots), the lat_mem_rd curve with its $levels cache levels"
else
	fail "the plots are written, the lat_mem_rd curve with its cache levels" "$plots plots, $levels levels"
fi

# --- the page in a browser ---------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --window-size=1280,2000 \
		--screenshot="$T/shot.png" "file://$T/g1/guide.html" >/dev/null 2>&1
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --dump-dom \
		"file://$T/g1/guide.html" >"$T/dom.html" 2>/dev/null
	tables=$(grep -o '<h2 id=' "$T/dom.html" | wc -l)
	svgs=$(grep -o '<svg ' "$T/dom.html" | wc -l)
	if [ "$(stat -c %s "$T/shot.png" 2>/dev/null || echo 0)" -gt 20000 ] &&
		[ "$tables" -eq 34 ] && [ "$svgs" -eq "$plots" ]; then
		pass "chromium renders the page: $tables tables, $svgs plots, a screenshot"
	else
		fail "chromium renders the page" "$tables tables, $svgs plots (want 34, $plots)" \
			"screenshot: $(stat -c %s "$T/shot.png" 2>/dev/null) bytes"
	fi
	[ -n "${GUIDE_SCREENSHOT:-}" ] && cp "$T/shot.png" "$GUIDE_SCREENSHOT"
else
	skip "chromium renders the page" "no chromium (apt-get install chromium)"
fi

# --- a compare of two guides ---------------------------------------------------
mkdir -p "$T/g2"
python3 - "$T/g1/guide.json" "$T/g2/guide.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
def scale(r, f):
    r["value"] *= f
    for k in ("min", "max", "mean", "median"):
        if r["stats"][k] is not None:
            r["stats"][k] *= f
    r["samples"] = [s * f for s in r.get("samples", [])]
for r in report["results"]:
    if r["title"] == "stream/copy":
        scale(r, 0.5)          # a bandwidth halved: worse
    elif r["title"] == "lmbench/lat_pipe":
        scale(r, 0.5)          # a latency halved: better
    elif r["title"] == "lmbench/lat_syscall-null":
        r["flags"] = ["disturbed"]
        r["note"] = "disturbed: doctored by test_guide.sh"
json.dump(report, open(sys.argv[2], "w"))
EOF
"$EMBPERF" compare "$T/g1" "$T/g2" -o "$T/cmp/" -q >/dev/null 2>"$T/errc"
status=$?
row() { grep -F "| $1 |" "$T/cmp/compare.md" | head -1; }
if [ $status -eq 1 ] && row "copy (MB/s)" | grep -qE "; was [0-9.]+[^;]*; \*\*-50\.0 % worse\*\*" &&
	row "lat_pipe (us)" | grep -q -- "-50.0 % better" &&
	row "lat_syscall-null (us)" | grep -qE "\[[0-9]+\]" &&
	grep -qE "^\[[0-9]+\] lmbench/lat_syscall-null: disturbed: doctored by test_guide.sh" "$T/cmp/compare.md"; then
	pass "compare of two guides: both values and the change per cell, direction-aware, marks, exit 1"
else
	fail "compare of two guides: both values and the change per cell, direction-aware, marks, exit 1" \
		"exit $status" "$(row "copy (MB/s)")" "$(row "lat_pipe (us)")" "$(row "lat_syscall-null (us)")"
fi
if [ -s "$T/cmp/compare.html" ] && grep -q 'class="chg worse"' "$T/cmp/compare.html" &&
	grep -q '"verdict": "regressed"' "$T/cmp/compare.json"; then
	pass "the comparison is also one HTML page and a JSON report with verdicts"
else
	fail "the comparison is also one HTML page and a JSON report with verdicts"
fi
"$EMBPERF" compare "$T/g1" "$T/g1" -o "$T/cmp-same/" -q >/dev/null 2>&1
status=$?
if [ $status -eq 0 ] && row_same=$(grep -F "| copy (MB/s) |" "$T/cmp-same/compare.md") &&
	echo "$row_same" | grep -q "+0.0 % same"; then
	pass "a guide against itself: every change 0, exit 0"
else
	fail "a guide against itself: every change 0, exit 0" "exit $status"
fi

# --- profiles refused before anything runs, naming the line ------------------
# refuse NAME LINES STATUS PATTERN: a profile of LINES is refused, naming the line.
refuse() {
	printf '%s\n' "$2" >"$T/bad.profile"
	rm -rf "$T/bad-out"
	"$EMBPERF" guide "$T/bad.profile" -o "$T/bad-out" >"$T/out" 2>"$T/err"
	local got=$?
	if [ $got -eq "$3" ] && grep -qE "$4" "$T/err" && [ ! -e "$T/bad-out" ]; then
		pass "refused before anything runs: $1"
	else
		fail "refused before anything runs: $1" "exit $got (wanted $3)" "$(cat "$T/err")"
	fi
}
refuse "an unknown key" "guide = ti-am62px
[network]
peer = local
speed = 1G" 4 "bad.profile:4: unknown key 'speed' in \[network\] \(accepted: peer, interface\)"
refuse "an unknown section" "guide = ti-am62px
[gpu]" 4 "bad.profile:2: unknown section \[gpu\]"
refuse "a folder that does not exist" "guide = ti-am62px
[storage]
emmc-ext4 = $T/no-such-folder" 2 "bad.profile:3: emmc-ext4 = .*no-such-folder: No such file or directory"
refuse "a key given twice" "guide = ti-am62px
[network]
peer = local
peer = 198.18.0.1" 4 "bad.profile:4: key 'peer' is already given at .*bad.profile:3"
refuse "a line that is no key = value" "guide = ti-am62px
peer local" 4 "bad.profile:2: expected 'key = value' or '\[section\]'"
refuse "a bad durations" "guide = ti-am62px
durations = long" 2 "bad.profile:2: durations = long: accepted: short, full"
refuse "a network interface this host lacks" "guide = ti-am62px
[network]
interface = nosuch9" 2 "bad.profile:3: interface = nosuch9: this host has no such network interface"
refuse "a parameter no entry of the guide has" "guide = ti-am62px
[parameters]
no_such_param = 1" 2 "bad.profile:3: parameter 'no_such_param' is accepted by no entry of guide ti-am62px"
refuse "a parameter value a kernel refuses" "guide = ti-am62px
[parameters]
repetitions = many" 2 "bad.profile:3: parameter 'repetitions'"
if [ -z "$no_loop" ]; then
	refuse "a mounted raw target" "guide = ti-am62px
[storage]
destructive = 1
raw-sd = $VFAT_DEV" 2 "bad.profile:4: raw-sd = $VFAT_DEV: the device or one of its partitions is mounted"
	refuse "a block device without destructive = 1" "guide = ti-am62px
[storage]
raw-sd = $RAW_DEV" 2 "bad.profile:3: raw-sd = $RAW_DEV: .*add 'destructive = 1'"
else
	skip "refused: a mounted raw target, a block device without destructive = 1" "$no_loop"
fi

# --- what the profile lacks; a guide file; a medium that fills up -------------
cat >"$T/mini.guide" <<'EOF'
@description test_guide.sh's own guide
@table match=mem/* Memory
mem/lat  mem.lat size=16k repetitions=1 sample_time=1ms
@table match=udp/* UDP
udp/{metric}  net.udp.stream peer=${peer} duration=50ms repetitions=1 @metric=throughput
@table match=sd/* kernel=blk.fs SD
@key bs Buffer size (bytes)
@column metric=throughput op=write Write
@include storage folder=${sd-ext4} target=${sd-ext4} size=${file_size:-8M} repetitions=1 @prefix=sd/
EOF
printf 'guide = %s\nboard = mini\n' "$T/mini.guide" >"$T/mini.profile"
"$EMBPERF" guide "$T/mini.profile" -o "$T/m1" -q >/dev/null 2>"$T/err"
status=$?
if [ $status -eq 0 ] && grep -q "| not measured: the profile names no peer (\[network\] peer = " "$T/m1/guide.md" &&
	grep -q "| not measured: the profile names no sd-ext4 " "$T/m1/guide.md" &&
	grep -q "^| lat (ns) | " "$T/m1/guide.md"; then
	pass "what the profile lacks is a row 'not measured: why'; a guide file runs"
else
	fail "what the profile lacks is a row 'not measured: why'; a guide file runs" "exit $status" \
		"$(cat "$T/err")"
fi
if [ "$(id -u)" = 0 ] && mkdir -p "$T/small" && mount -t tmpfs -o size=2m tmpfs "$T/small" 2>/dev/null; then
	MOUNTS+=("$T/small")
	"$EMBPERF" guide "$T/mini.profile" sd-ext4="$T/small" -o "$T/m2" -q >/dev/null 2>"$T/err"
	status=$?
	if [ $status -eq 3 ] && grep -q "| not measured: the medium filled up at an earlier row (No space left on device); the later rows of @include storage were not run" "$T/m2/guide.md" &&
		grep -q "^| lat (ns) | " "$T/m2/guide.md" && grep -q "storage:.*blk.fs:.*more" "$T/err"; then
		pass "a medium that fills up ends its rows with the reason; the guide goes on (exit 3)"
	else
		fail "a medium that fills up ends its rows with the reason; the guide goes on (exit 3)" \
			"exit $status" "$(cat "$T/err")" "$(grep -A6 '## SD' "$T/m2/guide.md")"
	fi
else
	skip "a medium that fills up ends its rows" "needs root to mount a small tmpfs"
fi

# --- Ctrl-C keeps what was measured -----------------------------------------------
cat >"$T/long.guide" <<'EOF'
@table match=mem/* Memory
mem/lat  mem.lat size=16k repetitions=1 sample_time=1ms
@table match=timer/* Timer
timer/{metric}  os.timer duration=1s repetitions=30 @metric=latency
EOF
"$EMBPERF" guide "$T/mini.profile" guide="$T/long.guide" -o "$T/c1" >/dev/null 2>"$T/errc" &
pid=$!
for _ in $(seq 300); do
	grep -q "\[2/2\] Timer" "$T/errc" && break
	sleep 0.1
done
kill -INT $pid
wait $pid
status=$?
if [ $status -eq 130 ] && grep -q '"title": "mem/lat"' "$T/c1/guide.json" &&
	grep -q "| not measured: cancelled (SIGINT) while this row ran" "$T/c1/guide.md"; then
	pass "Ctrl-C keeps what was measured: exit 130, the guide written with its rows"
else
	fail "Ctrl-C keeps what was measured: exit 130, the guide written with its rows" \
		"exit $status" "$(cat "$T/errc")"
fi

# --- the other built-in guides ----------------------------------------------
for guide in ti-am62px xilinx-lmbench microblaze-netperf; do
	"$EMBPERF" guide "$guide" peer=local --plan >"$T/plan" 2>"$T/err"
	status=$?
	entries=$("$EMBPERF" suites | awk -v g="$guide" '$1 == g { print $2 }')
	if [ $status -eq 0 ] && [ "$(wc -l <"$T/plan")" -eq "$entries" ] &&
		! grep -q "not measured (.*): .*unknown kernel" "$T/err" && [ ! -e "$T/plan-out" ]; then
		pass "guide $guide --plan: its $entries entries configured, nothing run"
	else
		fail "guide $guide --plan: its entries configured, nothing run" "exit $status" "$(cat "$T/err")"
	fi
done
"$EMBPERF" guide microblaze-netperf peer=local duration=20ms repetitions=2 -o "$T/mb" -q 2>"$T/err"
status=$?
if [ $status -eq 0 ] && grep -qE "^\| TCP_STREAM \(kbit/s\) \| [0-9]" "$T/mb/guide.md" &&
	grep -qE "^\| UDP_RR \(trans/s\) \| [0-9]" "$T/mb/guide.md" &&
	python3 - "$T/mb/guide.json" "$T/mb/guide.md" <<'EOF'
import json, re, sys
# The table shows netperf's kbit/s: 1000 x the report's Mbit/s.
r = {x["title"]: x for x in json.load(open(sys.argv[1]))["results"]}["netperf/TCP_STREAM"]
row = [l for l in open(sys.argv[2]) if l.startswith("| TCP_STREAM (kbit/s)")][0]
shown = float(re.match(r"\| TCP_STREAM \(kbit/s\) \| ([0-9.]+)", row).group(1))
sys.exit(0 if r["unit"] == "Mbit/s" and abs(shown - 1000 * r["stats"]["mean"]) <= 0.01 else 1)
EOF
then
	pass "guide microblaze-netperf: netperf's rows, throughput in kbit/s (1000 x Mbit/s)"
else
	fail "guide microblaze-netperf: netperf's rows, throughput in kbit/s" "exit $status" "$(cat "$T/err")"
fi

# --- merge --------------------------------------------------------------------
"$EMBPERF" run mem.lat size=16k repetitions=1 -o "$T/one.json" -q
"$EMBPERF" merge "$T/m1" "$T/one.json" -o "$T/merged.json" -q
status=$?
n1=$(grep -c '"kernel":' "$T/m1/guide.json")
n2=$(grep -c '"kernel":' "$T/merged.json" 2>/dev/null)
if [ $status -eq 0 ] && [ "$n2" -eq $((n1 + 1)) ] &&
	grep -q '"guide_not_measured": ".*no peer' "$T/merged.json"; then
	pass "merge: one report of both, the not-measured lines kept"
else
	fail "merge: one report of both" "exit $status, $n1 + 1 results wanted, $n2 found"
fi
"$EMBPERF" merge "$T/m1" "$T/m1/guide.json" -o "$T/merged2.json" 2>"$T/err"
status=$?
if [ $status -eq 4 ] && grep -q "row 'mem/lat' is already in the reports before it" "$T/err" &&
	[ ! -e "$T/merged2.json" ]; then
	pass "merge refuses two rows of one name, naming it"
else
	fail "merge refuses two rows of one name, naming it" "exit $status: $(cat "$T/err")"
fi

echo "# test_guide.sh took $(($(date +%s) - started)) s"
echo "1..$checks"
[ $failures -eq 0 ] || { echo "# $failures of $checks checks failed"; exit 1; }
exit 0
