#!/bin/bash
# SPDX-License-Identifier: MIT
# Footprint: the stripped shared library of the release build type (what
# board teams ship), with every area and with each area left out in turn;
# what an area adds is the difference. The limit is checked on the release
# build with every area (doc/building.md, "Footprint per area"). The
# minsize build gives the same library (lib/meson.build chooses each file's
# optimization by what it holds, not by the build type); CI no longer
# spends a second full build to show it again.
#
# One build folder reconfigured per variant: -Dareas changes config.h,
# which only a handful of files include, so a variant costs a few
# compilations and a link.
set -euo pipefail
# A failing command inside $(...) fails the assignment that uses it.
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
root=${BUILD_ROOT:-build-ci}
limit_bytes=450560
areas=(mem cpu os blk audio net crypto)

# lib_bytes DIR AREAS - the stripped size of DIR's library built with AREAS.
# A variant that does not build fails the script, with the compiler's
# last words: the areas are meant to build in any combination.
lib_bytes() {
	local dir=$1 list=$2
	meson configure "$dir" "-Dareas=$list" >/dev/null
	if ! meson compile -C "$dir" embperf:shared_library >"$dir/compile.log" 2>&1; then
		tail -n 15 "$dir/compile.log" >&2
		echo "footprint: the library does not build with -Dareas=$list" >&2
		return 1
	fi
	strip -o "$dir/libembperf.stripped.so" "$(readlink -f "$dir/lib/libembperf.so")"
	stat -c %s "$dir/libembperf.stripped.so"
}

# all_but AREA - the area list without AREA, comma-separated.
all_but() {
	local a out=()
	for a in "${areas[@]}"; do
		[ "$a" = "$1" ] || out+=("$a")
	done
	local IFS=,
	echo "${out[*]}"
}

# The release build, with every area and with each left out in turn.
dir=$root/footprint-release
rm -rf "$dir"
# No -Werror: the gcc and clang builds check warnings; -O3 brings gcc 12's
# false positives (maybe-uninitialized, format-truncation).
meson setup "$dir" -Dbuildtype=release -Dtests=disabled -Dexamples=false -Dpython=false >/dev/null
release_full=$(lib_bytes "$dir" "$(IFS=,; echo "${areas[*]}")")
printf 'release  all areas: libembperf.so stripped %7d bytes (%d KiB)\n' "$release_full" \
	$((release_full / 1024))
for a in "${areas[@]}"; do
	without=$(lib_bytes "$dir" "$(all_but "$a")")
	printf 'release    area %-6s adds %7d bytes\n' "$a" $((release_full - without))
done
core_bytes=$(lib_bytes "$dir" "")
printf 'release    core alone (-Dareas=): %d bytes\n' "$core_bytes"

if [ "$release_full" -gt "$limit_bytes" ]; then
	echo "the release libembperf.so with every area is $((release_full - limit_bytes)) bytes above the limit of $limit_bytes (doc/building.md, 'Footprint per area')" >&2
	exit 1
fi
echo "release library with every area: $release_full bytes <= $limit_bytes"
