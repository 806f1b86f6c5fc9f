#!/bin/bash
# SPDX-License-Identifier: MIT
# The public API is listed four times: the header (EMBPERF_API), the version
# script, tests/test_symbols.c and the shared library's dynamic exports.
# They must agree, so no symbol is exported by accident or left unversioned.
# And the library does not link libpcap, libnl or libcrypto: lib/core/lazylib.h
# loads them when a network path or a crypto run first needs them
# (test_net_netns runs layer=l2, test_net_linkstats the link counters,
# test_crypto the EVP back end through them).
# usage: check_symbols.sh SRCDIR LIBRARY.so
set -u
src=$1 lib=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep -oE 'EMBPERF_API [^;]*\bembperf_[a-z_0-9]+\(' "$src/include/embperf.h" |
	grep -oE 'embperf_[a-z_0-9]+\($' | tr -d '(' | sort > "$tmp/header"
sed -n '/global:/,/local:/p' "$src/lib/libembperf.map" | grep -oE 'embperf_[a-z_0-9]+' |
	sort > "$tmp/map"
grep -oE '\{ "embperf_[a-z_0-9]+"' "$src/tests/test_symbols.c" | grep -oE 'embperf_[a-z_0-9]+' |
	sort > "$tmp/test"
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "D" || $2 == "B" || $2 == "R" {print $3}' |
	sed 's/@.*//' | grep -v '^LIBEMBPERF' | sort -u > "$tmp/exports"

fail=0
for list in map test exports; do
	if ! diff -u "$tmp/header" "$tmp/$list" > "$tmp/diff"; then
		echo "FAIL: header and $list differ:"
		cat "$tmp/diff"
		fail=1
	fi
done
if nm -D --defined-only "$lib" | grep -q ' T ' && ! nm -D --defined-only "$lib" | grep -q 'LIBEMBPERF_'; then
	echo "FAIL: exports carry no LIBEMBPERF version node"
	fail=1
fi
if readelf -d "$lib" | grep -E 'NEEDED.*(libpcap|libnl|libcrypto)'; then
	echo "FAIL: the library links the above, which every process would then load at start-up"
	fail=1
fi
n=$(wc -l < "$tmp/header")
[ "$fail" = 0 ] && echo "ok: $n public symbols agree across header, version script, test and exports"
exit $fail
