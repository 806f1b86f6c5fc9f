#!/bin/bash
# SPDX-License-Identifier: MIT
# Cross builds for the boards: aarch64 and armhf with Debian's cross
# compilers and multiarch -dev packages (.ci/cross/*.ini; where this
# machine's mirror cannot give them, a sysroot of their .debs: deps.sh,
# ensure_arch_packages), -Werror, every
# target built, and the programs run under qemu-user: the command's list,
# runs of a memory, a CPU and an OS kernel, a bad parameter's message, and
# the self-test example writing a baseline and comparing with it; then, for
# the architectures in CROSS_UNIT_TESTS (default: arm-linux-gnueabihf), the
# unit tests under qemu-user (meson test, through the cross file's
# exe_wrapper). armhf is the one whose unit tests tell something the native
# suite cannot: 32-bit long and size_t, 64-bit time_t on a 32-bit ABI,
# alignment; aarch64 is LP64 like the build machine, and its unit tests under
# emulation took 140-240 s of CI's 2 CPUs to repeat the native suite (its
# build, programs and self-test still run under qemu). Called by test.sh,
# once per architecture; alone:
# bash .ci/cross.sh [aarch64-linux-gnu|arm-linux-gnueabihf]...
# CROSS_UNIT_TESTS="aarch64-linux-gnu arm-linux-gnueabihf" runs both suites.
#
# The unit tests link the lite runner (tests/lite, -Dtest_runner=auto):
# Debian has no armhf criterion, and its arm64 one cannot be installed
# beside the build machine's (its libnanomsg5 is not multiarch). The test
# setup of a cross build sets EMBPERF_EMULATED: timing-shape tests skip and
# say so (doc/tests.md, "Under emulation"); without binfmt_misc the shell
# tests, which start target programs, skip too.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/deps.sh
root=${BUILD_ROOT:-build-ci}

ensure_foreign_arch arm64 armhf
ensure_packages "${CROSS_PACKAGES[@]}"

# cross_setup DIR INI [meson options...]
cross_setup() {
	local dir=$1 ini=$2
	shift 2
	rm -rf "$dir"
	# No debug information: nothing here is debugged, and it is about a
	# tenth of a build's compile time.
	meson setup "$dir" -Dwerror=true -Dpython=false -Ddebug=false --cross-file "$ini" "$@" >/dev/null
}

# smoke ARCH-INI DIR - the programs under qemu.
smoke() {
	local dir=$2 q
	q=$(sed -n "s/^exe_wrapper = \[\(.*\)\]/\1/p" "$1" | tr -d "',")
	$q "$dir/bench/embperf" list | grep '^mem.lat ' >/dev/null
	$q "$dir/bench/embperf" run mem.lat size=16k repetitions=3 | grep '^mem.lat' >/dev/null
	$q "$dir/bench/embperf" run cpu.ops type=int op=add repetitions=3 | grep '^cpu.ops' >/dev/null
	$q "$dir/bench/embperf" run os.syscall repetitions=3 | grep '^os.syscall' >/dev/null
	# Bad input: exit status 2 and a message naming the parameter and value.
	if $q "$dir/bench/embperf" run mem.lat size=12q 2>"$dir/err"; then
		echo "size=12q was accepted" >&2
		exit 1
	fi
	grep -q "size.*12q" "$dir/err"
	$q "$dir/examples/selftest" --budget="$SELFTEST_BUDGET_S" --write-baseline "$dir/baseline.json" >/dev/null
	# A comparison under emulation only has to run: its verdict is noise.
	compare_only "$dir/selftest.out" $q "$dir/examples/selftest" --budget="$SELFTEST_BUDGET_S" --tolerance=1000 "$dir/baseline.json"
}

# unit_tests DIR - meson test under qemu-user; on failure, what each failed
# TAP subtest reported (as test.sh does), and exit 1. The suite 'slow' (the
# slowest real-clock tests: os.files, os.proc, mem.par, and shell tests that
# skip here anyway) runs natively in the gcc job, as for the sanitizers and
# the variants; under emulation it was 77 s of the armhf suite's 272. So does
# the suite 'source' (tests of the source tree, the same in every build).
unit_tests() {
	local dir=$1 start=$SECONDS
	if ! meson test -C "$dir" --num-processes 2 --print-errorlogs "${GCC_JOB_ONLY[@]}" \
		>"$dir/unit.out" 2>&1; then
		grep -E '^ *[0-9]+/[0-9]+ ' "$dir/unit.out" | grep -vE ' (OK|SKIP|EXPECTEDFAIL) ' || true
		grep -A3 '^not ok' "$dir/meson-logs/testlog.txt" || true
		tail -n 8 "$dir/unit.out"
		exit 1
	fi
	grep -E '^(Ok|Expected Fail|Fail|Skipped|Timeout):' "$dir/unit.out" | tr -s ' ' | paste -sd ' '
	echo "(unit tests under qemu: $((SECONDS - start)) s)"
}

# The architectures named on the command line, or both.
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(aarch64-linux-gnu arm-linux-gnueabihf)
unit_arches=" ${CROSS_UNIT_TESTS-arm-linux-gnueabihf} "
for arch in "${arches[@]}"; do
	[ -f ".ci/cross/$arch.ini" ] || { echo "cross.sh: no .ci/cross/$arch.ini" >&2; exit 2; }
	case $arch in aarch64-linux-gnu) deb_arch=arm64 ;; arm-linux-gnueabihf) deb_arch=armhf ;; esac
	if ! arch_ready "$deb_arch" "$arch cross build"; then
		skipped="${skipped:-} $arch"
		continue
	fi
	ini=.ci/cross/$arch.ini
	if sysroot=$(arch_sysroot "$deb_arch"); then
		# The multiarch packages could not be installed: the same build
		# against a sysroot of them (deps.sh, ensure_arch_sysroot), and
		# qemu-user's loader and libraries from it, also for the programs
		# binfmt_misc starts (the shell tests), which get no -L.
		arch_sysroot_note "$deb_arch"
		ini=$root/$arch-sysroot.ini
		arch_sysroot_cross_file ".ci/cross/$arch.ini" "$sysroot" "$ini"
		export QEMU_LD_PREFIX=$sysroot
	fi
	if [[ "$unit_arches" == *" $arch "* ]]; then
		step "$arch cross build, -Werror; programs and unit tests under qemu-user"
		cross_setup "$root/$arch" "$ini" -Dtests=enabled
	else
		step "$arch cross build, -Werror; programs under qemu-user (unit tests: CROSS_UNIT_TESTS)"
		cross_setup "$root/$arch" "$ini" -Dtests=disabled
	fi
	build "$root/$arch"
	smoke "$ini" "$root/$arch"
	echo "$arch: built; list, runs, bad input and the self-test passed under qemu"
	if [[ "$unit_arches" == *" $arch "* ]]; then
		unit_tests "$root/$arch"
	fi
	[ -z "$sysroot" ] || unset QEMU_LD_PREFIX
done

step "cross builds passed${skipped:+ (skipped, their packages not installable here:$skipped)}"
