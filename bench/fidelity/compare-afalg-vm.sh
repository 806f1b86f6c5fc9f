#!/bin/bash
# SPDX-License-Identifier: MIT
#
# compare-afalg-vm.sh - crypto.speed's AF_ALG back end next to `openssl
# speed -elapsed -engine afalg -evp ALG`, in a VM booted from Debian's kernel
# under qemu (TCG) as tests/vm/crypto-afalg.sh boots it (tests/vm/lib.sh):
# many hosts, this project's CI machine among them, have no AF_ALG sockets,
# so openssl's afalg engine does not load there. Not run by the tests. Under
# TCG, on a shared host, the figures check that the comparison works; they
# are not fidelity evidence (doc/methodology-crypto.md).
#
#   bench/fidelity/compare-afalg-vm.sh [BUILD_DIR]
#
# Environment: ALGS ("aes-128-cbc aes-256-cbc": OpenSSL's afalg engine
# offers AES-128/192/256-CBC and nothing else; a digest or ECB through
# "-engine afalg" is libcrypto's own code, not the kernel's, so they are
# refused), SIZES ("16 1024 16384", among openssl speed's six), SECS (3,
# openssl speed's default: its -seconds and crypto.speed's duration), ROUNDS
# (5), IO (crypto.speed's io: sync, its default path, one sendmsg() with the
# data and a read(); aio, the engine's own system calls per buffer as Debian
# builds it, sendmsg() with the data, io_submit(), read() of the eventfd,
# io_getevents(); aio-splice, its zero-copy build's, vmsplice() and splice()
# of the data instead; printed in the header, and as embperf's labels name
# it after the run), OPENSSL (openssl),
# LOG (a file to keep the guest's console in), and the VM tier's
# EMBPERF_VM_* (EMBPERF_VM_TIMEOUT set from the runs' count).
#
# The initramfs holds the modules af_alg, algif_skcipher and algif_hash,
# embperf, and openssl with engines-3/afalg.so (dlopened, so copied with its
# libraries on its own) and openssl.cnf. The guest loads the modules, asks
# `openssl engine -t -c afalg`, and reads /proc/crypto's refcnt of cbc(aes)
# while an `openssl speed -engine afalg` runs and after it: the script stops
# unless the engine is available and holds the kernel's cbc(aes) (openssl
# speed runs on libcrypto's code when its -engine fails to load). Then per
# round and algorithm, the reference first in odd rounds:
#   reference  openssl speed -elapsed -seconds SECS -mr -engine afalg -evp ALG
#   embperf    embperf run crypto.speed backend=afalg io=IO alg=ALG
#              size=SIZES duration=SECSs repetitions=1
# Printed: per ALG-SIZE and round both tools' kB/s (1000 bytes per second),
# embperf / reference and the guest's load before the first of the two,
# then the paired ratios (paired-ratios.awk).
set -u
. "$(dirname "$0")/quiet.sh" # the host quiet when the guest starts (fidelity protocol)

BUILD=${1:-build}
algs=${ALGS:-"aes-128-cbc aes-256-cbc"}
sizes=${SIZES:-"16 1024 16384"}
secs=${SECS:-3}
rounds=${ROUNDS:-5}
io=${IO:-sync}
openssl=$(command -v "${OPENSSL:-openssl}")
engine=$("$openssl" version -e 2>/dev/null | sed -n 's/^ENGINESDIR: "\(.*\)"$/\1/p')/afalg.so
# Each round and algorithm: openssl's six sizes, embperf's, and 40 s for
# both processes' start under TCG on a loaded host (~20 s seen); the boot.
export EMBPERF_VM_TIMEOUT=${EMBPERF_VM_TIMEOUT:-$((rounds * $(echo $algs | wc -w) * (6 * secs + $(echo $sizes | wc -w) * secs + 40) + 180))}
. "$(dirname "$0")/../../tests/vm/lib.sh"
die() { echo "compare-afalg-vm.sh: $1" >&2; exit 1; }
skip_all() { die "$1"; }

for a in $algs; do
	case $a in aes-128-cbc | aes-192-cbc | aes-256-cbc) ;;
	*) die "ALGS: '$a': OpenSSL's afalg engine offers aes-128-cbc, aes-192-cbc and aes-256-cbc only" ;;
	esac
done
case $io in sync | aio | aio-splice) ;;
*) die "IO: '$io' is not crypto.speed's io; accepted: sync, aio, aio-splice" ;;
esac
for s in $sizes; do
	case $s in 16 | 64 | 256 | 1024 | 8192 | 16384) ;; *) die "SIZES: '$s' is not one of openssl speed's" ;; esac
done
[ -x "$openssl" ] || die "openssl not found (apt-get install openssl)"
[ -f "$engine" ] || die "no $engine (Debian's libssl3 has it)"
vm_need_tools
vm_kernel_deb
vm_unpack './lib/modules/*/kernel/crypto/*'
for m in af_alg algif_skcipher algif_hash; do
	vm_module "$m" || die "$deb has no $m.ko"
done
vm_install_embperf
vm_copy_with_libs "$openssl"
vm_copy_with_libs "$engine"
cnf=$("$openssl" version -d | sed -n 's/^OPENSSLDIR: "\(.*\)"$/\1/p')/openssl.cnf
[ -f "$cnf" ] && mkdir -p "$R$(dirname "$cnf")" && cp -L "$cnf" "$R$cnf"

{
	vm_init_head
	vm_init_interleave
	echo "rounds=$rounds; algs=\"$algs\"; sizes=$(echo $sizes | tr ' ' ,); secs=$secs; io=$io; openssl=$openssl"
	cat <<'INIT'
for m in af_alg algif_skcipher algif_hash; do insmod $m.ko; done
echo "@@ modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
echo "@@ engine: $("$openssl" engine -t -c afalg 2>&1 | tr -s ' \n' ' ')"
refcnt() { awk '$1 == "name" { n = $3 } $1 == "driver" { d = $3 }
	$1 == "refcnt" && n == "cbc(aes)" { printf " %s %s", d, $3 }' /proc/crypto; }
"$openssl" speed -elapsed -seconds 4 -engine afalg -evp aes-128-cbc -bytes 16 >/dev/null 2>&1 &
sleep 3
echo "@@ refcnt during:$(refcnt)"
wait
echo "@@ refcnt after:$(refcnt)"
run_tool() {
	if [ "$1" = reference ]; then
		"$openssl" speed -elapsed -seconds "$secs" -mr -engine afalg -evp "$alg" 2>&1
	else
		embperf -q run crypto.speed backend=afalg io="$io" alg="$alg" size="$sizes" \
			duration="${secs}s" repetitions=1 --format=csv 2>&1
	fi
}
set_case() { alg=$1 label=$1; }
quiet_wait # the guest runs every round: the host must be quiet before it boots
echo "# host before the guest: $(quiet_state)" >&2
run_rounds "$rounds" "$algs" "reference embperf"
INIT
} >"$R/init"

echo "# $(date -u +%FT%TZ) $(uptime)"
echo "# guest: qemu TCG, $VM_SMP vCPU, $VM_MEM MiB; $("$openssl" version); SECS=$secs s per size (openssl speed -seconds, crypto.speed duration); $rounds rounds; embperf io=$io (IO)"
vm_boot_runs
grep '@@ modules\|^@@ engine\|^@@ refcnt' "$T/log" | sed 's/^.*@@ /# guest /'
grep -q '^@@ engine:.*\[ available \]' "$T/log" || die "openssl's afalg engine is not available in the guest"
awk '/^@@ refcnt during/ { for (i = 4; i < NF; i += 2) during += $(i + 1) }
	/^@@ refcnt after/ { for (i = 4; i < NF; i += 2) after += $(i + 1) }
	END { exit !(during > after) }' "$T/log" ||
	die "cbc(aes)'s refcnt did not rise while openssl speed -engine afalg ran: the engine did not serve it"

: >"$T/all"
while read -r alg tool r load file; do
	if [ "$tool" = reference ]; then
		awk -F: -v alg="$alg" -v want=" $sizes " '$1 == "+H" { for (i = 2; i <= NF; i++) size[i + 2] = $i }
			$1 == "+F" { for (i = 4; i <= NF; i++) if (index(want, " " size[i] " "))
				printf "%s-%s reference %.2f\n", alg, size[i], $i / 1000 }' "$file"
	else
		awk -F, -v alg="$alg" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			$col["metric"] == "kbps" { n = split($col["labels"], l, " ")
				for (i = 1; i <= n; i++) if (l[i] ~ /^size=/) { s = l[i]; sub(/^size=/, "", s) }
				printf "%s-%s embperf %.2f\n", alg, s, $col["value"] }' "$file"
	fi | sed "s/\$/ $r $load/" >>"$T/all"
done <"$T/runs"
echo "# embperf's driver: $(grep -ho 'driver=[^] ,"]*' "$T"/run.* | sort -u | tr '\n' ' ')"
echo "# embperf's io, from its labels: $(grep -ho ' io=[^] ,"]*' "$T"/run.* | sort -u | tr -d '\n' | sed 's/^ //')"
printf "%-20s %5s %6s %12s %12s %7s\n" case round load1 reference embperf ratio
awk '!(($1, $4) in load) { key[++n] = $1; round[n] = $4; load[$1, $4] = $5 } { v[$1, $4, $2] = $3 }
	END { for (i = 1; i <= n; i++) { a = v[key[i], round[i], "reference"]; b = v[key[i], round[i], "embperf"]
		ratio = (a > 0 && b != "") ? sprintf("%.3f", b / a) : "-"
		printf "%-20s %5s %6s %12s %12s %7s\n", key[i], round[i], load[key[i], round[i]], (a == "" ? "-" : a),
			(b == "" ? "-" : b), ratio } }' "$T/all" | sort -s -k1,1V
echo "embperf / reference, paired within each round:"
awk -f "$(dirname "$0")/paired-ratios.awk" "$T/all" | { read -r head; echo "$head"; sort -V; }
