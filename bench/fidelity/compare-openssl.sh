#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-openssl.sh - crypto.speed next to `openssl speed -elapsed -evp
# ALG`, interleaved: crypto.speed's fidelity check (EVP within 5 % of
# openssl speed for every algorithm and size of TI's table; AF_ALG within
# 10 % of `openssl speed -engine afalg`). Not run by the tests (it takes
# minutes); doc/methodology-crypto.md says how to read it, and has no
# figures of it yet.
#
#   bench/fidelity/compare-openssl.sh [BUILD_DIR]
#
# Environment: ALGS (TI's eight: aes-128/192/256-cbc and -ecb, sha256,
# sha512), ROUNDS (5), SECS (3: openssl speed's -seconds, and the trial's
# duration), BACKEND (evp; afalg: backend=afalg next to openssl speed
# -engine afalg, whose engine offers aes-128/192/256-cbc only), PIN (0:
# both tools run under `taskset -c PIN`; empty: not pinned), OPENSSL
# (openssl: the command, e.g. an OpenSSL built outside the tree).
#
# Per algorithm and round, the tool order alternating by round:
#   reference  OPENSSL speed -elapsed -seconds SECS -mr -evp ALG
#              [-engine afalg]: bytes per second per size, from its "+F:" line
#   embperf    embperf run crypto.speed alg=ALG backend=BACKEND duration=SECSs
#              repetitions=1: kbps per size (1000 bytes per second)
# both printed in kB/s (1000 bytes), one value per size. Each run starts in a
# session of its own (setsid -w). Printed at the end: each tool's median and
# spread per ALG-SIZE (median-table.awk), then the ratio embperf / openssl
# within each round, its median and a 95 % confidence interval of that
# median (paired-ratios.awk).
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)

build=${1:-build}
algs=${ALGS:-"aes-128-cbc aes-192-cbc aes-256-cbc aes-128-ecb aes-192-ecb aes-256-ecb sha256 sha512"}
rounds=${ROUNDS:-5}
secs=${SECS:-3}
backend=${BACKEND:-evp}
pin=${PIN-0}
openssl=${OPENSSL:-openssl}
embperf="$build/bench/embperf"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
[ -x "$embperf" ] || { echo "$embperf not built" >&2; exit 1; }
command -v "$openssl" >/dev/null || { echo "$openssl not found (apt-get install openssl)" >&2; exit 1; }
engine=""
if [ "$backend" = afalg ]; then
	engine="-engine afalg"
	"$openssl" engine -t afalg >/dev/null 2>&1 || {
		echo "openssl's afalg engine does not load here (no AF_ALG sockets, or no" \
			"engines-3/afalg.so); compare in a VM (compare-afalg-vm.sh) or with" \
			"the kernel's tcrypt instead (doc/methodology-crypto.md)" >&2
		exit 1
	}
fi

# pinned CMD...: CMD in a session of its own, on the CPU of PIN.
pinned() {
	if [ -n "$pin" ]; then
		setsid -w taskset -c "$pin" "$@"
	else
		setsid -w "$@"
	fi
}

# run_openssl ALG: "ALG-SIZE reference KBPS" lines from openssl speed -mr.
run_openssl() {
	# shellcheck disable=SC2086 # $engine is empty or two words
	pinned "$openssl" speed -elapsed -seconds "$secs" -mr $engine -evp "$1" 2>/dev/null |
		awk -F: -v alg="$1" '$1 == "+H" { for (i = 2; i <= NF; i++) size[i + 2] = $i }
			$1 == "+F" { for (i = 4; i <= NF; i++) printf "%s-%s reference %.2f\n", alg, size[i], $i / 1000 }'
}

# run_embperf ALG: "ALG-SIZE embperf KBPS" lines from crypto.speed's kbps rows.
run_embperf() {
	pinned "$embperf" -q run crypto.speed alg="$1" backend="$backend" duration="${secs}s" \
		repetitions=1 --format=csv |
		awk -F, -v alg="$1" '$4 == "kbps" { split($6, l, " "); sub("size=", "", l[2]);
			printf "%s-%s embperf %.2f\n", alg, l[2], $8 }'
}

echo "# $(date -u +%FT%TZ) $(uname -r), $($openssl version), backend $backend, ${secs} s per size, $rounds rounds, pin '${pin}'"
round=1
while [ "$round" -le "$rounds" ]; do
	quiet_round "$round"
	for alg in $algs; do
		echo "# round $round $alg" >&2 # its load: quiet_round's line above
		if [ $((round % 2)) = 1 ]; then
			run_openssl "$alg" >>"$tmp/all"
			run_embperf "$alg" >>"$tmp/all"
		else
			run_embperf "$alg" >>"$tmp/all"
			run_openssl "$alg" >>"$tmp/all"
		fi
	done
	round=$((round + 1))
done

echo "kB/s (1000 bytes per second), each tool's median and spread:"
sort -k1,1 -k2,2 -k3,3g "$tmp/all" |
	awk -v keyname=case -v refname=openssl -v keywidth=22 -v numfmt=%12.2f \
		-v spreadwidth=7 -f "$(dirname "$0")/median-table.awk"
echo "embperf / openssl, paired within each round:"
awk -f "$(dirname "$0")/paired-ratios.awk" "$tmp/all" | { read -r head; echo "$head"; sort; }
