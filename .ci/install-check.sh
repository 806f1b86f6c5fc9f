#!/bin/bash
# SPDX-License-Identifier: MIT
# What a user of an installed libembperf meets: `meson install --destdir`
# of BUILD into a temporary tree, then a user's program compiled with
# -Wall -Wextra -Werror and nothing but `pkg-config embperf` (dynamic and
# static), run against that tree. Also: embperf.pc names no library that
# the library loads with dlopen (libpcap, libnl, libcrypto), and no
# placeholder URL.
#
#   bash .ci/install-check.sh BUILD
set -euo pipefail
build=$(readlink -f "${1:?usage: .ci/install-check.sh BUILD}")
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --destdir "$dest" >/dev/null
pc=$(find "$dest" -name embperf.pc | head -n 1)
[ -n "$pc" ] || { echo "install-check: no embperf.pc under the installed tree" >&2; exit 1; }
for bad in libpcap libnl libcrypto example.invalid; do
	if grep -q "$bad" "$pc"; then
		echo "install-check: $pc names '$bad':" >&2
		cat "$pc" >&2
		exit 1
	fi
done

export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest
cat >"$dest/user.c" <<'EOF'
#include <stdio.h>
#include <embperf.h>

int main(void)
{
	embperf_ctx *ctx = embperf_ctx_new();
	embperf_bench *b;
	int rc;

	if (!ctx)
		return 2;
	b = embperf_bench_new(ctx, "cpu.ops");
	if (!b || embperf_bench_set(b, "repetitions", "3"))
		return 2;
	rc = embperf_bench_run(b);
	if (rc) {
		fprintf(stderr, "run: %s\n", embperf_bench_errmsg(b));
		return 1;
	}
	printf("%s: %d results\n", embperf_version_string(), embperf_bench_result_count(b));
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
	return 0;
}
EOF
libdir=$(dirname "$(find "$dest" -name 'libembperf.so.1' | head -n 1)")
# shellcheck disable=SC2046 # pkg-config's words are separate arguments
gcc -Wall -Wextra -Werror -o "$dest/user" "$dest/user.c" $(pkg-config --cflags --libs embperf)
LD_LIBRARY_PATH=$libdir "$dest/user"
# Static: the archive (-l:libembperf.a) and what Libs.private and
# Requires.private add.
# shellcheck disable=SC2046
gcc -Wall -Wextra -Werror -o "$dest/user-static" "$dest/user.c" \
	$(pkg-config --cflags --libs --static embperf | sed 's/-lembperf\b/-l:libembperf.a/')
"$dest/user-static"
echo "install-check: a user's program built with pkg-config embperf alone (shared and static) runs; $(basename "$pc"): $(grep '^Requires.private' "$pc")"
