#!/bin/bash
# SPDX-License-Identifier: MIT
# Every test: set up, build with -Werror (gcc, and clang for its warnings),
# run the test suite, run it again under AddressSanitizer and
# UndefinedBehaviorSanitizer, compare the ABI with the committed baseline,
# and check the stripped library's size.
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

# The limit for the whole library with every area (issue 12: <= 400 KiB on
# x86_64); the trial engine and os.timer stayed under 300 KiB (issue 6).
step "size of the stripped library (target <= 400 KiB with every area)"
strip -o "$root/libembperf.stripped.so" "$lib"
bytes=$(stat -c %s "$root/libembperf.stripped.so")
echo "libembperf.so stripped: $bytes bytes"
if [ "$bytes" -gt 409600 ]; then
	echo "libembperf.so is larger than 400 KiB" >&2
	exit 1
fi

step "all tests passed"
