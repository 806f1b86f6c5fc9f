# SPDX-License-Identifier: MIT
# fam-crypto.sh - crypto.speed (backend=evp) beside `openssl speed -elapsed
# -evp ALG` (fidelity.sh family), TI's algorithms and openssl's sizes, both
# pinned alike, CRYPTO_SECS (3) seconds per size each (openssl -seconds,
# crypto.speed duration, one trial). Rows: ALG-SIZE in kB/s (1000 bytes,
# as openssl prints). OPENSSL: the openssl command (Debian's).

CRYPTO_ALGS=${CRYPTO_ALGS:-aes-128-cbc aes-256-cbc aes-128-ecb sha256 sha512}
CRYPTO_SECS=${CRYPTO_SECS:-3}

fam_describe() { echo "crypto.speed backend=evp vs $(${OPENSSL:-openssl} version 2>/dev/null) speed -elapsed -evp, ${CRYPTO_SECS} s per size, kB/s"; }
fam_bands() { echo ".*=0.95:1.05"; }
fam_refs() {
	command -v "${OPENSSL:-openssl}" >/dev/null || { echo "openssl: not found (apt-get install openssl)"; return 1; }
	echo "openssl=$(command -v "${OPENSSL:-openssl}") ($(${OPENSSL:-openssl} version))"
}
fam_setup() { :; }
ossl_ref() { # uses alg
	pinned "${OPENSSL:-openssl}" speed -elapsed -seconds "$CRYPTO_SECS" -mr -evp "$alg" 2>/dev/null |
		awk -F: -v alg="$alg" '$1 == "+H" { for (i = 2; i <= NF; i++) size[i + 2] = $i }
			$1 == "+F" { for (i = 4; i <= NF; i++) printf "%s-%s reference %.2f\n", alg, size[i], $i / 1000 }'
}
ossl_ep() {
	pinned "$EMBPERF" -q run crypto.speed alg="$alg" backend=evp duration="${CRYPTO_SECS}s" \
		repetitions=1 --format=csv | awk -F, -v alg="$alg" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["metric"] == "kbps" { n = split($col["labels"], l, " ")
			for (i = 1; i <= n; i++) if (l[i] ~ /^size=/) { s = l[i]; sub(/^size=/, "", s) }
			printf "%s-%s embperf %.2f\n", alg, s, $col["value"] }'
}
fam_round() { for alg in $CRYPTO_ALGS; do in_turn "$1" ossl_ref ossl_ep; done; }
