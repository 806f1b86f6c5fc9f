#!/bin/bash
# SPDX-License-Identifier: MIT
# Every test: set up, build with -Werror (gcc, and clang for its warnings),
# run the test suite, run it again under AddressSanitizer and
# UndefinedBehaviorSanitizer, compare the ABI with the committed baseline,
# check that lib/ has no call or include circle nor lib/core an upward call;
# the library without its optional dependencies, and with the memory and CPU
# areas only; the VM tier
# (tests/vm/: Debian's kernel under qemu, for the MTD, UBIFS, VFAT and ALSA
# drivers this machine lacks); the aarch64 and armhf cross builds under
# qemu-user (cross.sh); the musl static self-test and its limit (musl.sh);
# the footprint per area and its limit (footprint.sh).
#
# The packages are installed once, first. Then the steps run as jobs, up to
# $CI_JOBS (4) at a time, longest first: each job is a chain of steps that
# depend on each other (the gcc build before its tests); the tests assert
# nothing that load can break (doc/tests.md), so they may share the CPUs.
# Each job's output is kept and printed whole, in the order of the list
# below, as soon as it and the jobs before it have ended; the run fails when
# any step failed, after every job has ended.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/deps.sh
. .ci/summary.sh
root=${BUILD_ROOT:-build-ci}
export BUILD_ROOT=$root
mkdir -p "$root"

ensure_foreign_arch arm64 armhf
ensure_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${CROSS_PACKAGES[@]}" \
	"${MUSL_PACKAGES[@]}"
# The boards' packages, each architecture on its own: one the mirror cannot
# give skips its cross build and musl self-test, saying so (deps.sh).
for arch in arm64 armhf; do
	ensure_arch_packages "$arch" || true
done
export EMBPERF_ARCH_CHECKED=1

setup() { # setup DIR [meson options...]
	local dir=$1
	shift
	rm -rf "$dir"
	meson setup "$dir" -Dwerror=true "$@" >/dev/null
}

# run_tests DIR [meson test options...]: meson test; on failure also print
# what each failed TAP subtest reported (meson's error log shows only
# stderr, criterion's --tap messages go to stdout).
run_tests() {
	local dir=$1
	shift
	if meson test -C "$dir" --print-errorlogs "$@"; then
		return 0
	fi
	echo "--- failed subtests ($dir/meson-logs/testlog.txt)"
	# A program can fail with every test "ok": criterion exits 1 after a
	# warning (tests/check_test_sources.py) or when a worker ends abnormally
	# after its test passed (a sanitizer report, printed below by asan).
	grep -A12 '^not ok' "$dir/meson-logs/testlog.txt" ||
		echo "no test printed 'not ok': a program exited non-zero with every test ok (doc/tests.md, flake table)"
	return 1
}

# The jobs. Each is a function; a failing command ends it (errexit is on
# in the job's own shell, set by run_job).

job_gcc() {
	step "gcc build, -Werror"
	setup "$root/gcc" -Dtests=enabled
	build "$root/gcc"
	step "tests"
	# 4 test programs at a time: much of the suite waits (trials, shaped
	# links, peers), so 4 take 127 s where 2 take 147 s on a quiet 2-CPU
	# machine, for the same CPU time; and this job is CI's longest chain.
	run_tests "$root/gcc" --num-processes 4
	step "ABI against lib/libembperf.abi (additions pass; removals and changes fail)"
	local lib
	lib=$(readlink -f "$root/gcc/lib/libembperf.so")
	# --hd2: only types defined in the public header count; the library's
	# private structs (opaque to callers) may change freely.
	if ! abidiff --no-added-syms --hd2 include lib/libembperf.abi "$lib"; then
		echo "ABI changed or lost symbols (abidiff above); see doc/api.md, 'ABI rules'" >&2
		return 1
	fi
	echo "abidiff: no removed or changed symbols"
	step "install: a user's program built against an installed tree with pkg-config alone"
	bash .ci/install-check.sh "$root/gcc"
	step "layering: no call or include circle in lib/, no upward call in lib/core"
	python3 .ci/layering.py "$root/gcc"
	# The VM tier: each script boots Debian's kernel (its package fetched
	# once with apt-get download) under qemu TCG, bounded by
	# EMBPERF_VM_TIMEOUT, and prints TAP; it skips, saying why, where qemu
	# or the package is missing, and fails the step when a check fails.
	step "VM tier: blk.mtd on mtdram and nandsim, blk.fs on UBIFS and VFAT, ALSA's snd-dummy and snd-aloop, AF_ALG"
	# The kernel package is decompressed once for the three (lib.sh).
	local s
	export EMBPERF_VM_TAR
	EMBPERF_VM_TAR=$(realpath -m "$root/vm-kernel.tar")
	for s in tests/vm/blk-mtd.sh tests/vm/audio-alsa.sh tests/vm/crypto-afalg.sh; do
		echo "--- $s"
		bash "$s" "$root/gcc"
	done
	rm -f "$EMBPERF_VM_TAR" "$EMBPERF_VM_TAR.from" "$EMBPERF_VM_TAR.tmp" # 400 MB
}

job_asan() {
	step "tests under AddressSanitizer + UndefinedBehaviorSanitizer"
	# -g1: line tables only, which is what a sanitizer's report needs for
	# its file:line stack; with full debug information two files measured
	# took 14-33 % more (test_report_v2.c 2.03 against 1.53 CPU-s,
	# net_rfc2544.c 0.48 against 0.42).
	setup "$root/asan" -Dtests=enabled -Dpython=false -Db_sanitize=address,undefined \
		-Db_lundef=false -Ddebug=false "-Dc_args=-g1 -fno-sanitize-recover=all" \
		-Dc_link_args=-fno-sanitize-recover=all
	build "$root/asan"
	# The suites 'slow' (the slowest real-clock and shell tests, which run
	# in the gcc job: the real-clock tests ran three times over) and
	# 'source' (tests of the source tree, not of the build) are left out.
	#
	# The reports go to files: criterion runs each test in a worker process
	# whose stderr is lost, so a leak found when a worker exits made its
	# program exit 1 with every test "ok" and nothing said (doc/tests.md).
	local logs
	logs=$(realpath -m "$root/asan/sanitizer-logs")
	rm -rf "$logs"
	mkdir -p "$logs"
	if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:log_path=$logs/asan \
		UBSAN_OPTIONS=print_stacktrace=1:log_path=$logs/ubsan \
		run_tests "$root/asan" "${GCC_JOB_ONLY[@]}"; then
		return 0
	fi
	print_sanitizer_logs "$logs"
	return 1
}

# print_sanitizer_logs DIR: each report the sanitizers wrote there (one file
# per process), but for the lite runner's own crash test, whose report is
# expected (tests/lite: it checks that a crash fails a test).
print_sanitizer_logs() {
	local f
	for f in "$1"/*; do
		[ -e "$f" ] || continue
		if grep -q '/tests/test_lite_runner+' "$f"; then
			echo "--- sanitizer report $f: the lite runner's crash test (expected)"
			continue
		fi
		echo "--- sanitizer report $f"
		head -60 "$f"
	done
}

job_clang() {
	step "clang build, -Werror"
	# -O0: clang's warnings do not depend on optimization (gcc's do, and
	# the gcc job builds at -O2); the fuzz target keeps its own -O2 and -g. No
	# debug information either: the build took 76 CPU-s without, 83 with.
	CC=clang setup "$root/clang" -Dtests=enabled -Doptimization=0 -Ddebug=false
	build "$root/clang"
	echo "clang: built"
	# The network peer's message parser gets what a hostile client could
	# send: libFuzzer, 30 s from the committed corpus (new inputs go to a
	# temporary folder, not the tree).
	step "fuzz the peer's message parser (libFuzzer, 30 s)"
	local fuzz_dir status
	fuzz_dir=$(mktemp -d)
	status=0
	"$root/clang/tests/fuzz_proto" -max_total_time=30 -max_len=4096 -print_final_stats=1 \
		"$fuzz_dir" tests/fuzz/corpus-proto >"$root/fuzz.log" 2>&1 || status=$?
	grep -E "^(stat::number_of_executed_units|Done)|ERROR|SUMMARY" "$root/fuzz.log" || true
	rm -rf "$fuzz_dir"
	if [ "$status" -ne 0 ]; then
		echo "the fuzzer found a crash (above); see tests/fuzz/fuzz_proto.c" >&2
		return 1
	fi
}

# The library without its optional dependencies, and a firmware's areas
# (the musl self-test's): the tests of the left-out parts skip and say so;
# the others pass.
job_variants() {
	# No debug information in these builds: criterion's messages carry
	# their file and line without it, and it cost 12 % of a build (73
	# against 64 CPU-s for nodeps).
	step "library without optional dependencies (alsa, pcap, libnl, perf, io_uring disabled)"
	setup "$root/nodeps" -Dtests=enabled -Ddebug=false -Dpython=false -Dalsa=disabled \
		-Dpcap=disabled -Dlibnl=disabled -Dperf=disabled -Dio_uring=disabled
	build "$root/nodeps"
	# The slowest tests need no optional dependency and ran in the gcc
	# job, as did the tests of the source tree; a variant changes which
	# parts are built (tests/meson.build).
	run_tests "$root/nodeps" "${GCC_JOB_ONLY[@]}"
	step "library with the memory and CPU areas only (-Dareas=mem,cpu)"
	setup "$root/areas" -Dtests=enabled -Ddebug=false -Dareas=mem,cpu
	build "$root/areas"
	run_tests "$root/areas" "${GCC_JOB_ONLY[@]}"
	step "library registering chosen kernels only (-Dkernels=mem_lat,cpu_ops)"
	# The areas build, reconfigured: -Dkernels changes config.h, so only
	# the files that include it are compiled again.
	local kernels=$root/areas list
	meson configure "$kernels" -Dkernels=mem_lat,cpu_ops >/dev/null
	build "$kernels" bench/embperf
	list=$("$kernels/bench/embperf" list | awk '{print $1}' | paste -sd ' ')
	if [ "$list" != "mem.lat cpu.ops" ]; then
		echo "-Dkernels=mem_lat,cpu_ops registers: $list" >&2
		return 1
	fi
	if "$kernels/bench/embperf" run mem.bw 2>"$kernels/err"; then
		echo "mem.bw ran in a build of -Dkernels=mem_lat,cpu_ops" >&2
		return 1
	fi
	grep "Dkernels=mem_lat,cpu_ops" "$kernels/err"
	rm -rf "$root/kernels-bad"
	if meson setup "$root/kernels-bad" -Dkernels=mem_lat,nosuch >"$kernels/bad" 2>&1; then
		echo "-Dkernels=nosuch was accepted" >&2
		return 1
	fi
	grep "'nosuch' is not a kernel; accepted: " "$kernels/bad" | cut -c1-160
}

# One job per board architecture, so that the two can share the CPUs.
job_cross_arm64() { bash .ci/cross.sh aarch64-linux-gnu; }
job_cross_armhf() { bash .ci/cross.sh arm-linux-gnueabihf; }
job_musl() { bash .ci/musl.sh; }
job_footprint() { bash .ci/footprint.sh; }

# The order output is printed in; jobs start in the order of $start_order.
jobs=(gcc asan clang variants cross_arm64 cross_armhf musl footprint)
start_order=(asan cross_arm64 gcc cross_armhf variants clang footprint musl)
# 4 at a time on 2 CPUs: much of a test job's time is spent waiting
# (trials, shaped links, qemu's boots), and the tests assert nothing load can
# break (doc/tests.md).
max_jobs=${CI_JOBS:-4}

declare -A pid_of rc_of
log_of() { echo "$root/job-$1.log"; }

# run_job NAME - the job in a shell of its own, its output to its log, its
# wall time at the end.
run_job() {
	local name=$1
	(
		SECONDS=0 # the job's own clock, for its steps' headings
		# The job in a subshell of its own with errexit on: a function
		# called as "job || rc=$?" runs with errexit off (bash ignores -e
		# in a || list), so a failing step would not end the job.
		set +e
		(
			set -euo pipefail
			"job_$name"
		)
		rc=$?
		times >"$root/times-$name"
		echo "($name: $SECONDS s, $(cpu_seconds "$root/times-$name") CPU-s)"
		exit "$rc"
	) >"$(log_of "$name")" 2>&1 &
	pid_of[$name]=$!
}

running() {
	local n=0 name
	for name in "${!pid_of[@]}"; do
		[ -z "${rc_of[$name]+x}" ] && n=$((n + 1))
	done
	echo "$n"
}

# reap - wait for one running job to end and record its status.
reap() {
	local name rc
	wait -n || true
	for name in "${!pid_of[@]}"; do
		[ -n "${rc_of[$name]+x}" ] && continue
		if ! kill -0 "${pid_of[$name]}" 2>/dev/null; then
			rc=0
			wait "${pid_of[$name]}" || rc=$?
			rc_of[$name]=$rc
		fi
	done
}

printed=0
# print_ready - print, in list order, the logs of the jobs that have ended.
print_ready() {
	while [ "$printed" -lt "${#jobs[@]}" ]; do
		local name=${jobs[$printed]}
		[ -n "${rc_of[$name]+x}" ] || return 0
		cat "$(log_of "$name")"
		[ "${rc_of[$name]}" -eq 0 ] || echo "*** job $name failed (status ${rc_of[$name]})"
		printed=$((printed + 1))
	done
}

ci_start=$SECONDS
for name in "${start_order[@]}"; do
	while [ "$(running)" -ge "$max_jobs" ]; do
		reap
		print_ready
	done
	run_job "$name"
done
while [ "$(running)" -gt 0 ]; do
	reap
	print_ready
done
print_ready

failed=()
for name in "${jobs[@]}"; do
	[ "${rc_of[$name]}" -eq 0 ] || failed+=("$name")
done
echo
echo "(all jobs: $((SECONDS - ci_start)) s)"
skipped=
for arch in arm64 armhf; do
	if [ -f "$(arch_unavailable_file "$arch")" ]; then
		echo "=== SKIPPED: the $arch cross build and musl self-test: $(head -n 1 \
			"$(arch_unavailable_file "$arch")")"
		skipped="$skipped $arch"
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	# Again at the end, where a reader looks first (.ci/summary.sh).
	for name in "${failed[@]}"; do
		summarize_failure "$name" "${rc_of[$name]}" "$(log_of "$name")"
	done
	echo "=== FAILED: ${failed[*]}" >&2
	exit 1
fi
step "all tests passed${skipped:+ (skipped, their packages not installable here:$skipped)}"
