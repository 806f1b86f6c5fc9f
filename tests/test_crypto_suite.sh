#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_crypto_suite.sh - the built-in `crypto` suite and the crypto kernels'
# missing back ends, through the embperf command: the suite prints TI's two
# tables (every algorithm at every size in kB/s, then the CPU load per
# algorithm, in that order); without libcrypto (hidden by a bind mount in a
# mount namespace of its own: root only) the EVP back end and crypto.pkey
# are refused naming libcrypto, never faked; without AF_ALG sockets
# backend=afalg is refused naming them. Trials of 10 ms: this checks the
# rows, not the figures.
#
# Run by meson as `test_crypto_suite.sh PATH-TO-embperf`. Prints TAP;
# exits 1 when a check fails.

set -u

EMBPERF=${1:?usage: test_crypto_suite.sh PATH-TO-embperf}
T=$(mktemp -d "${TMPDIR:-/tmp}/test_crypto_suite.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

. "$(dirname "$0")/tap.sh"

ALGS="aes-128-cbc aes-192-cbc aes-256-cbc aes-128-ecb aes-192-ecb aes-256-ecb sha256 sha512"

if "$EMBPERF" suite crypto duration=10ms repetitions=1 --format=csv >"$T/out" 2>"$T/err"; then
	pass "embperf suite crypto runs"
	missing=""
	for alg in $ALGS; do
		for size in 16 64 256 1024 8192 16384; do
			grep -q "^$alg-$size-kbps,.*,kbps,kB/s," "$T/out" || missing="$missing $alg-$size-kbps"
		done
		grep -q "^$alg-all-cpu_load,.*,cpu_load,%," "$T/out" || missing="$missing $alg-all-cpu_load"
	done
	rows=$(($(wc -l <"$T/out") - 1))
	if [ -z "$missing" ] && [ "$rows" = 56 ]; then
		pass "48 rows ALG-SIZE-kbps (kB/s) and 8 rows ALG-all-cpu_load (%)"
	else
		fail "48 rows ALG-SIZE-kbps (kB/s) and 8 rows ALG-all-cpu_load (%)" \
			"$rows rows; missing:$missing"
	fi
	# TI's two tables: every throughput row before the first CPU load row
	last_kbps=$(grep -n -- '-kbps,' "$T/out" | tail -1 | cut -d: -f1)
	first_load=$(grep -n -- '-cpu_load,' "$T/out" | head -1 | cut -d: -f1)
	if [ -n "$last_kbps" ] && [ -n "$first_load" ] && [ "$last_kbps" -lt "$first_load" ]; then
		pass "the throughput table comes first, then the CPU load table"
	else
		fail "the throughput table comes first, then the CPU load table" \
			"last kbps row $last_kbps, first cpu_load row $first_load"
	fi
elif grep -q "libcrypto" "$T/err"; then
	skip "embperf suite crypto runs" "no libcrypto here: $(head -c 200 "$T/err")"
else
	fail "embperf suite crypto runs" "$(head -c 400 "$T/err")"
fi

# refused NAME PATTERN CMD...: CMD exits 3 (a run failed) saying PATTERN.
refused() {
	local name=$1 pattern=$2 status
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	status=$?
	if [ "$status" = 3 ] && grep -q "$pattern" "$T/err"; then
		pass "$name"
	else
		fail "$name" "exit $status: $(head -c 400 "$T/err")"
	fi
}

lib=$(ldconfig -p 2>/dev/null | awk '/libcrypto\.so\.3 .*=>/ { print $NF; exit }')
if [ "$(id -u)" != 0 ] || [ -z "$lib" ] || ! unshare -m true 2>/dev/null; then
	skip "without libcrypto, backend=evp is refused naming it" \
		"needs root, unshare and a libcrypto.so.3 to hide"
	skip "without libcrypto, crypto.pkey is refused naming it" "the same"
else
	hide="mount --make-rprivate / && mount --bind /dev/null $(readlink -f "$lib") && exec"
	refused "without libcrypto, backend=evp is refused naming it" \
		"parameter 'backend': value 'evp': libcrypto of OpenSSL 3 cannot be loaded" \
		unshare -m sh -c "$hide \"\$0\" run crypto.speed duration=10ms" "$EMBPERF"
	refused "without libcrypto, crypto.pkey is refused naming it" \
		"crypto.pkey: libcrypto of OpenSSL 3 cannot be loaded" \
		unshare -m sh -c "$hide \"\$0\" run crypto.pkey duration=10ms" "$EMBPERF"
fi

if "$EMBPERF" run crypto.speed backend=afalg alg=sha256 size=64 duration=10ms repetitions=1 \
	>"$T/out" 2>"$T/err"; then
	skip "without AF_ALG, backend=afalg is refused naming it" "this kernel has AF_ALG sockets"
else
	refused "without AF_ALG, backend=afalg is refused naming it" \
		"parameter 'backend': value 'afalg': the kernel has no AF_ALG sockets" \
		"$EMBPERF" run crypto.speed backend=afalg duration=10ms
fi

echo "1..$checks"
[ "$failures" = 0 ]
