#!/bin/bash
# SPDX-License-Identifier: MIT
# The static firmware self-test: examples/selftest.c linked statically with
# musl against a library of the memory and CPU areas that registers only the
# kernels the self-test runs ($selftest_kernels: a firmware image carries
# what it runs, -Dkernels=), for x86_64, aarch64 and armhf; its stripped
# size is printed, and held to 256 KiB on each. The x86_64 one runs here,
# the ARM ones under qemu-user.
#
# Debian ships no musl build of json-c, which the reports (the self-test's
# baseline) need: its Debian source package is fetched (apt, deb-src of the
# same release, in a private apt folder under the build folder) and built
# with each musl compiler. Called by test.sh; alone: bash .ci/musl.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/deps.sh
root=${BUILD_ROOT:-build-ci}
limit_bytes=262144
# The kernels examples/selftest.c runs (its checks[] table).
selftest_kernels=mem_lat,mem_bw,mem_stream,cpu_ops

ensure_foreign_arch arm64 armhf
ensure_packages "${MUSL_PACKAGES[@]}"

work=$(readlink -f "$root")/musl
mkdir -p "$work"

# jsonc_source - unpack Debian's json-c source in $work/json-c-src.
jsonc_source() {
	local apt=$work/apt suite
	[ -d "$work/json-c-src" ] && return 0
	suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
	mkdir -p "$apt/sources" "$apt/lists/partial" "$apt/cache" "$work/dl"
	cat >"$apt/sources/src.sources" <<-EOF
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: $suite
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	local opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt/sources"
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
	apt_retry "${opts[@]}" update -qq
	(cd "$work/dl" && apt_retry "${opts[@]}" source -qq --download-only json-c)
	mkdir -p "$work/json-c-src"
	tar -xzf "$work"/dl/json-c_*.orig.tar.gz -C "$work/json-c-src" --strip-components=1
}

# jsonc_build NAME CC SPECS [cmake options...] - json-c, static, in $work/NAME.
# Its parser switches to the "C" locale around strtod() (newlocale and
# uselocale, or setlocale) so that a program's LC_NUMERIC cannot turn the
# decimal point into a comma; musl's strtod() reads '.' whatever the locale,
# so for musl that is locale code (newlocale, the locale files' loader: about
# 2.5 KiB) that changes nothing: it is configured without them
# (HAVE_USELOCALE and HAVE_SETLOCALE off).
jsonc_build() {
	local name=$1 cc=$2 specs=$3
	shift 3
	local opts=(-G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF
		-DDISABLE_WERROR=ON -DHAVE_USELOCALE=OFF -DHAVE_SETLOCALE=OFF
		-DCMAKE_INSTALL_PREFIX="$work/$name" -DCMAKE_INSTALL_LIBDIR=lib "$@")
	# A build made with other options (an older script) is made again.
	# The Ninja generator: json-c's configuration took 8.7 CPU-s
	# with it against 12.9 with Makefiles (musl-gcc, 2026-12-06).
	if [ -e "$work/$name/lib/libjson-c.a" ] &&
		[ "$(cat "$work/$name/options" 2>/dev/null)" = "${opts[*]}" ]; then
		return 0
	fi
	rm -rf "$work/$name-build" "$work/$name"
	mkdir -p "$work/$name-build"
	# Only the library target: json-c's programs do not matter here.
	(cd "$work/$name-build" &&
		CC=$cc CFLAGS="-specs $specs -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables" \
			cmake "$work/json-c-src" "${opts[@]}" >/dev/null &&
		cmake --build . --target json-c -j 2 >/dev/null &&
		cmake --install . >/dev/null)
	echo "${opts[*]}" >"$work/$name/options"
}

# selftest ARCH CROSS-FILE CC SPECS STRIP [cmake options...] - build the
# static self-test for ARCH and print its stripped size; the 256 KiB limit
# is checked on every architecture. $link_extra: more link arguments.
link_extra=
selftest() {
	local arch=$1 ini=$2 cc=$3 specs=$4 strip=$5 dir=$root/musl-$1 bytes
	shift 5
	jsonc_build "json-c-$arch" "$cc" "$specs" "$@"
	printf "[properties]\npkg_config_libdir = ['%s']\n" "$work/json-c-$arch/lib/pkgconfig" \
		>"$work/json-c-$arch.ini"
	rm -rf "$dir"
	meson setup "$dir" --cross-file "$ini" --cross-file "$work/json-c-$arch.ini" \
		-Dwerror=true -Dbuildtype=minsize -Dmeasure_optimization=s -Dprefer_static=true -Dareas=mem,cpu \
		-Dkernels="$selftest_kernels" \
		-Dalsa=disabled -Dpcap=disabled -Dlibnl=disabled -Dperf=disabled \
		-Dtests=disabled -Dpython=false \
		-Dc_args='-ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables' \
		-Dc_link_args="-Wl,--gc-sections -Wl,-z,noseparate-code $link_extra" >/dev/null
	build "$dir" examples/selftest
	"$strip" -o "$dir/selftest.stripped" "$dir/examples/selftest"
	bytes=$(stat -c %s "$dir/selftest.stripped")
	printf 'musl static selftest, %s, areas core,mem,cpu, kernels %s: %d bytes stripped (%d KiB; limit %d)\n' \
		"$arch" "$selftest_kernels" "$bytes" $((bytes / 1024)) "$limit_bytes"
	if [ "$bytes" -gt "$limit_bytes" ]; then
		echo "the static self-test for $arch is $((bytes - limit_bytes)) bytes above the 256 KiB limit (doc/building.md)" >&2
		exit 1
	fi
}

# run_selftest DIR [wrapper...] - write a baseline, then compare with it. The
# verdict is not judged (a loaded or emulated machine regresses); the program
# has to measure, write, read back and compare.
run_selftest() {
	local dir=$1
	shift
	"$@" "$dir/selftest.stripped" --budget="$SELFTEST_BUDGET_S" --write-baseline "$dir/baseline.json"
	compare_only "$dir/selftest.out" "$@" "$dir/selftest.stripped" --budget="$SELFTEST_BUDGET_S" --tolerance=1000 "$dir/baseline.json"
}

jsonc_source

step "musl static self-test, x86_64"
selftest x86_64 .ci/cross/x86_64-linux-musl.ini gcc /usr/lib/x86_64-linux-musl/musl-gcc.specs strip
run_selftest "$root/musl-x86_64"

cmake_cross() { echo "-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=$1"; }

step "musl static self-test, aarch64 (run under qemu-user)"
# ARM linkers align segments in the file to 64 KiB pages by default: board
# kernels use 4 KiB pages (a 64 KiB-page kernel needs the default back).
link_extra='-Wl,-z,max-page-size=4096'
skipped=
if ! arch_ready arm64 "musl static self-test, aarch64"; then
	skipped="$skipped aarch64"
else
	# -mno-outline-atomics: as in the cross file (libgcc's atomics helpers
	# call glibc's __getauxval, which musl lacks).
	# shellcheck disable=SC2046
	selftest aarch64 .ci/cross/aarch64-linux-musl.ini aarch64-linux-gnu-gcc \
		"/usr/lib/aarch64-linux-musl/musl-gcc.specs -mno-outline-atomics" \
		aarch64-linux-gnu-strip $(cmake_cross aarch64)
	run_selftest "$root/musl-aarch64" qemu-aarch64-static
fi

step "musl static self-test, armhf (run under qemu-user)"
if ! arch_ready armhf "musl static self-test, armhf"; then
	skipped="$skipped armhf"
else
	ini=.ci/cross/arm-linux-musleabihf.ini
	specs=/usr/lib/arm-linux-musleabihf/musl-gcc.specs
	if sysroot=$(arch_sysroot armhf); then
		# musl-dev:armhf unpacked in the sysroot (deps.sh), its specs
		# naming the sysroot's headers and libraries; the program is
		# static, qemu needs no -L.
		arch_sysroot_note armhf
		ini=$work/arm-linux-musleabihf-sysroot.ini
		arch_sysroot_cross_file .ci/cross/arm-linux-musleabihf.ini "$sysroot" "$ini"
		specs=$sysroot$specs
	fi
	# shellcheck disable=SC2046
	selftest armhf "$ini" arm-linux-gnueabihf-gcc "$specs" arm-linux-gnueabihf-strip \
		$(cmake_cross arm)
	run_selftest "$root/musl-armhf" qemu-arm-static
fi

step "musl static self-tests passed${skipped:+ (skipped, their packages not installable here:$skipped)}"
