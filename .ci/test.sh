#!/bin/bash
# SPDX-License-Identifier: MIT
# Every test: set up, build with -Werror (gcc, and clang for its warnings),
# run the test suite, run it again under AddressSanitizer and
# UndefinedBehaviorSanitizer, compare the ABI with the committed baseline;
# the library without its optional dependencies, and with the memory and
# CPU areas only; the VM tier (tests/vm/: Debian's kernel under qemu, for
# the MTD, UBIFS, VFAT and ALSA drivers this machine lacks); the footprint
# per area and its limit (footprint.sh); the aarch64 and armhf cross builds
# under qemu-user (cross.sh); the musl static self-test and its limit
# (musl.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/deps.sh
ensure_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"

root=${BUILD_ROOT:-build-ci}
step() { printf '\n=== %s\n' "$*"; }

setup() { # setup DIR [meson options...]
	local dir=$1
	shift
	rm -rf "$dir"
	meson setup "$dir" -Dwerror=true "$@" >/dev/null
}

# run_tests DIR: meson test; on failure also print what each failed TAP
# subtest reported (meson's error log shows only stderr, criterion's
# --tap messages go to stdout).
run_tests() {
	local dir=$1
	if meson test -C "$dir" --print-errorlogs; then
		return 0
	fi
	echo "--- failed subtests ($dir/meson-logs/testlog.txt)"
	grep -A12 '^not ok' "$dir/meson-logs/testlog.txt" || true
	return 1
}

step "gcc build, -Werror"
setup "$root/gcc" -Dtests=enabled
ninja -C "$root/gcc"

step "tests"
run_tests "$root/gcc"

step "tests under AddressSanitizer + UndefinedBehaviorSanitizer"
setup "$root/asan" -Dtests=enabled -Dpython=false -Db_sanitize=address,undefined \
	-Db_lundef=false -Dc_args=-fno-sanitize-recover=all -Dc_link_args=-fno-sanitize-recover=all
ninja -C "$root/asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	run_tests "$root/asan"

step "clang build, -Werror"
CC=clang setup "$root/clang" -Dtests=enabled
ninja -C "$root/clang"

# The network peer's message parser gets what a hostile client could send:
# libFuzzer, 30 s from the committed corpus (new inputs go to a temporary
# folder, not the tree).
step "fuzz the peer's message parser (libFuzzer, 30 s)"
fuzz_dir=$(mktemp -d)
"$root/clang/tests/fuzz_proto" -max_total_time=30 -max_len=4096 -print_final_stats=1 \
	"$fuzz_dir" tests/fuzz/corpus-proto 2>&1 | grep -E "^(stat::number_of_executed_units|Done)|ERROR|SUMMARY" ||
	true
status=${PIPESTATUS[0]}
rm -rf "$fuzz_dir"
if [ "$status" -ne 0 ]; then
	echo "the fuzzer found a crash (above); see tests/fuzz/fuzz_proto.c" >&2
	exit 1
fi

step "ABI against lib/libembperf.abi (additions pass; removals and changes fail)"
lib=$(readlink -f "$root/gcc/lib/libembperf.so")
# --hd2: only types defined in the public header count; the library's
# private structs (opaque to callers) may change freely.
if ! abidiff --no-added-syms --hd2 include lib/libembperf.abi "$lib"; then
	echo "ABI changed or lost symbols (abidiff above); see doc/api.md, 'ABI rules'" >&2
	exit 1
fi
echo "abidiff: no removed or changed symbols"

# timed STEP-NAME COMMAND... - run a step and print its wall time.
timed() {
	local name=$1 start=$SECONDS rc=0
	shift
	"$@" || rc=$?
	echo "($name: $((SECONDS - start)) s)"
	return "$rc"
}

no_optional_deps() {
	step "library without optional dependencies (alsa, pcap, libnl, perf, io_uring disabled)"
	# && chains: errexit does not reach into a function that timed runs.
	setup "$root/nodeps" -Dtests=enabled -Dpython=false -Dalsa=disabled -Dpcap=disabled \
		-Dlibnl=disabled -Dperf=disabled -Dio_uring=disabled &&
		ninja -C "$root/nodeps" >/dev/null &&
		run_tests "$root/nodeps"
}
timed "no optional dependencies" no_optional_deps

# A firmware's areas (the musl self-test's): the tests of the left-out
# areas skip and say so; the others pass.
areas_subset() {
	step "library with the memory and CPU areas only (-Dareas=mem,cpu)"
	setup "$root/areas" -Dtests=enabled -Dareas=mem,cpu &&
		ninja -C "$root/areas" >/dev/null &&
		run_tests "$root/areas"
}
timed "-Dareas=mem,cpu" areas_subset

# The VM tier: each script boots Debian's kernel (its package fetched once
# with apt-get download) under qemu TCG, bounded by EMBPERF_VM_TIMEOUT,
# and prints TAP; it skips, saying why, where qemu or the package is
# missing, and fails the step when a check fails.
vm_tier() {
	local s
	for s in tests/vm/blk-mtd.sh tests/vm/audio-alsa.sh; do
		echo "--- $s"
		bash "$s" "$root/gcc" || return 1
	done
}
step "VM tier: blk.mtd on mtdram and nandsim, blk.fs on UBIFS and VFAT, ALSA's snd-dummy and snd-aloop"
timed "VM tier" vm_tier

step "cross builds: aarch64, armhf"
timed "cross builds" bash .ci/cross.sh

# The two size limits come last, and both report before either fails.
size_failed=0
step "musl static self-test (limit 256 KiB)"
timed "musl self-test" bash .ci/musl.sh || size_failed=1

step "footprint: stripped library per build type and area (limit: release, every area, <= 400 KiB)"
timed footprint bash .ci/footprint.sh || size_failed=1
if [ "$size_failed" = 1 ]; then
	echo "a size limit was exceeded (above)" >&2
	exit 1
fi

step "all tests passed"
