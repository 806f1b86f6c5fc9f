#!/bin/bash
# SPDX-License-Identifier: MIT
# Footprint: the stripped shared library of the release and minsize build
# types (what board teams ship), with every area and with each area left out
# in turn; what an area adds is the difference. The limit, 400 KiB with every
# area on x86_64 (issue 12), is checked on the release build.
#
# Each build type has one build folder reconfigured per variant: -Dareas
# changes config.h, which only a handful of files include, so a variant
# costs a few compilations and a link.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${BUILD_ROOT:-build-ci}
limit_bytes=409600
areas=(mem cpu os blk audio net crypto)

# lib_bytes DIR AREAS - the stripped size of DIR's library built with AREAS.
lib_bytes() {
	local dir=$1 list=$2
	meson configure "$dir" "-Dareas=$list" >/dev/null
	meson compile -C "$dir" embperf:shared_library >/dev/null
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

release_full=
for type in release minsize; do
	dir=$root/footprint-$type
	rm -rf "$dir"
	# No -Werror: the gcc and clang builds check warnings; -O3 brings gcc
	# 12's false positives (maybe-uninitialized, format-truncation).
	meson setup "$dir" -Dbuildtype="$type" -Dtests=disabled \
		-Dexamples=false -Dpython=false >/dev/null
	full=$(lib_bytes "$dir" "$(IFS=,; echo "${areas[*]}")")
	[ "$type" = release ] && release_full=$full
	printf '%-8s all areas: libembperf.so stripped %7d bytes (%d KiB)\n' "$type" "$full" \
		$((full / 1024))
	for a in "${areas[@]}"; do
		without=$(lib_bytes "$dir" "$(all_but "$a")")
		printf '%-8s   area %-6s adds %7d bytes\n' "$type" "$a" $((full - without))
	done
	core=$(lib_bytes "$dir" "")
	printf '%-8s   core alone (-Dareas=): %d bytes\n' "$type" "$core"
done

if [ "$release_full" -gt "$limit_bytes" ]; then
	echo "the release libembperf.so with every area is larger than 400 KiB" >&2
	exit 1
fi
echo "release library with every area: $release_full bytes <= $limit_bytes"
