#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/vm/crypto-afalg.sh - crypto.speed's AF_ALG back end against the
# kernel crypto API of Debian's kernel (many VMs and containers, this
# project's CI machine among them, have no AF_ALG sockets): boots it under
# qemu-system-x86_64 (TCG) with a small initramfs holding busybox, the
# AF_ALG and algorithm modules, the embperf command with its libraries and
# test_crypto with its own, and runs them there once.
#
#   tests/vm/crypto-afalg.sh BUILD_DIR
#
# Prints TAP. Skips ("1..0 # SKIP reason", exit 0) when qemu-system-x86_64,
# a static busybox or the kernel package is not available (tests/vm/lib.sh
# has the settings), or when BUILD_DIR has no crypto.speed.
#
# Checks, inside the VM:
#   - io=sync: every algorithm of crypto.speed (AES-128/192/256 CBC and
#     ECB, TDES CBC, MD5, SHA-1, SHA-256, SHA-512) passes its known vector
#     through AF_ALG and runs (alg=all: none left out), kB/s above 0 at 16
#     and 1024 bytes, each row labelled io=sync and its driver label the
#     highest-priority driver /proc/crypto lists for the algorithm, for TDES
#     the assembler one of des3_ede-x86_64 rather than the generic
#     template's;
#   - io=aio (OpenSSL's afalg engine's path: sendmsg() with the data,
#     io_submit(), read() of the eventfd, io_getevents()) and io=aio-splice
#     (its zero-copy build's: sendmsg() with MSG_MORE, vmsplice() and
#     splice(), then the same AIO read): every cipher passes its known
#     vector and runs (alg=all: the 7 ciphers, the digests left out), kB/s
#     above 0 at 16 and 1024 bytes, each row labelled with its io and the
#     driver of its io=sync row;
#   - test_crypto's AF_ALG tests: the known vectors, and corrupted vectors
#     (answer, key, input) failing the check, through the real sockets,
#     with io=sync, io=aio and io=aio-splice, and a 64 KiB buffer over 17
#     pages encrypted by both AIO paths as by io=sync;
#   - backend=evp is refused naming libcrypto (embperf does not link it;
#     the copy test_crypto brought along is removed before);
#   - a TDES buffer that is not a whole number of 8-byte blocks is refused.
set -u

BUILD=${1:?usage: tests/vm/crypto-afalg.sh BUILD_DIR}
TEST_CRYPTO=$BUILD/tests/test_crypto
. "$(dirname "$0")/lib.sh"

vm_need_tools
"$EMBPERF" describe crypto.speed >/dev/null 2>&1 || skip_all "$EMBPERF has no crypto.speed"
vm_kernel_deb

# The AF_ALG sockets and the algorithms that are modules in Debian's
# kernel (cbc, AES, MD5, SHA-1 and SHA-256 are built in), dependencies first.
# des3_ede-x86_64 (assembler, no CPU feature needed) registers cbc(des3_ede)
# above the generic template's priority, as an accelerator's driver would.
MODULES="af_alg algif_hash algif_skcipher ecb libdes des_generic des3_ede-x86_64 sha512_generic"
vm_unpack './lib/modules/*/kernel/crypto/*' './lib/modules/*/kernel/lib/crypto/libdes.ko' \
	'./lib/modules/*/kernel/arch/x86/crypto/des3_ede-x86_64.ko'
for m in $MODULES; do
	vm_module "$m" || skip_all "$deb has no $m.ko"
done
vm_install_embperf
have_test=0
if [ -x "$TEST_CRYPTO" ]; then
	vm_copy_with_libs "$(readlink -f "$TEST_CRYPTO")"
	ln -s "$(readlink -f "$TEST_CRYPTO")" "$R/bin/test_crypto"
	have_test=1
fi

{
	vm_init_head
	echo "for m in $MODULES; do insmod \$m.ko; done"
	echo 'echo "@@ modules loaded"' # the console's first line carries escape codes
	echo "have_test=$have_test"
	cat <<'INIT'
run all run crypto.speed backend=afalg io=sync alg=all size=16,1024 duration=50ms \
	repetitions=1 --format=csv
run aio run crypto.speed backend=afalg io=aio alg=all size=16,1024 duration=50ms \
	repetitions=1 --format=csv
run aio-splice run crypto.speed backend=afalg io=aio-splice alg=all size=16,1024 \
	duration=50ms repetitions=1 --format=csv
echo "@@ begin proc_crypto"; cat /proc/crypto; echo "@@ rc proc_crypto 0"
echo "@@ begin unit"
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm # criterion's runner wants it
[ "$have_test" = 1 ] && test_crypto --tap --filter='crypto/*afalg*' 2>&1
echo "@@ rc unit $?"
# test_crypto brought libcrypto along (its runner links it); embperf does not
find / -xdev -name 'libcrypto.so*' -exec rm -f {} \;
run evp run crypto.speed backend=evp duration=10ms
run tdes_size run crypto.speed backend=afalg alg=des-ede3-cbc size=20 duration=10ms
echo "@@ done"
poweroff -f
INIT
} >"$R/init"
vm_boot

vm_ran_to_the_end

# rows [RUN]: ALG SIZE DRIVER KBPS IO of run RUN ("all"), its kbps rows
rows() {
	out "${1:-all}" | python3 -c 'import csv, sys
rows = [r for r in csv.reader(sys.stdin) if len(r) > 8]
h = rows[0] if rows and rows[0][0] == "title" else None
for r in rows[1:] if h else []:
    if r[h.index("metric")] != "kbps":
        continue
    l = dict(kv.split("=", 1) for kv in r[h.index("labels")].split())
    print(l["alg"], l["size"], l["driver"], r[h.index("value")], l.get("io", "-"))'
}
# best_driver KNAME: the highest-priority driver /proc/crypto listed for KNAME
best_driver() {
	out proc_crypto | awk -v want="$1" '
	BEGIN { best = -1 } $1 == "name" { name = $3 } $1 == "driver" { drv = $3 }
	$1 == "priority" && name == want && $3 > best { best = $3; pick = drv }
	END { print pick }'
}

cur=all
n=$(rows | awk '$4 > 0 && $5 == "sync"' | wc -l)
if [ "$(rc all)" = 0 ] && [ "$n" = 22 ]; then
	pass "io=sync: every algorithm passes its known vector through AF_ALG and runs: $(rows | awk '$2 == 1024 { printf "%s %s %.0f kB/s; ", $1, $3, $4 }')"
else
	fail "io=sync: every algorithm passes its known vector through AF_ALG and runs (22 rows above 0 kB/s, io=sync)" \
		"rc $(rc all), $n rows"
fi

bad=""
while read -r alg size driver kbps _; do
	case $alg in
	aes-*-cbc) kname="cbc(aes)" ;; aes-*-ecb) kname="ecb(aes)" ;;
	des-ede3-cbc) kname="cbc(des3_ede)" ;; *) kname=$alg ;;
	esac
	[ "$driver" = "$(best_driver "$kname")" ] || bad="$bad $alg:$driver/$(best_driver "$kname")"
done < <(rows)
if [ "$(rc all)" = 0 ] && [ -z "$bad" ]; then
	pass "each row names the highest-priority driver of /proc/crypto"
else
	fail "each row names the highest-priority driver of /proc/crypto" "label/proc:$bad"
fi

tdes=$(rows | awk '$1 == "des-ede3-cbc" { print $3; exit }')
if [ -n "$tdes" ] && [ "${tdes%generic*}" = "$tdes" ]; then
	pass "TDES CBC is served by the higher-priority assembler driver: $tdes"
else
	fail "TDES CBC is served by the higher-priority assembler driver, not the generic one" \
		"driver '$tdes'"
fi

# ALG:SIZE:DRIVER of each cipher row of run $1, sorted
drivers() { rows "$1" | awk '$1 !~ /^(md5|sha)/ { print $1 ":" $2 ":" $3 }' | sort; }
# check_aio IO: the checks of run IO, crypto.speed io=IO
check_aio() {
	cur=$1
	local n
	n=$(rows "$1" | awk -v io="$1" '$4 > 0 && $5 == io' | wc -l)
	if [ "$(rc "$1")" = 0 ] && [ "$n" = 14 ] && [ "$(rows "$1" | wc -l)" = 14 ]; then
		pass "io=$1: every cipher passes its known vector through AF_ALG's AIO path and runs: $(rows "$1" | awk '$2 == 1024 { printf "%s %.0f kB/s; ", $1, $4 }')"
	else
		fail "io=$1: every cipher passes its known vector through AF_ALG's AIO path and runs (14 rows above 0 kB/s, io=$1)" \
			"rc $(rc "$1"), $n rows"
	fi
	if [ "$(rc "$1")" = 0 ] && [ "$(drivers "$1")" = "$(drivers all)" ]; then
		pass "io=$1: each cipher row names the driver of its io=sync row"
	else
		fail "io=$1: each cipher row names the driver of its io=sync row" \
			"$1: $(drivers "$1" | tr '\n' ' ') sync: $(drivers all | tr '\n' ' ')"
	fi
}
check_aio aio
check_aio aio-splice

cur=unit
if [ "$have_test" = 0 ]; then
	skip "test_crypto's AF_ALG tests in the VM" "$TEST_CRYPTO not built (-Dtests=enabled)"
elif [ "$(rc unit)" = 0 ] && [ "$(out unit | grep -E "^ok .*(afalg_(aio_)?answers_every_(cipher_)?known_vector|a_corrupted_vector_fails_the_check_afalg)" |
	grep -vc SKIP)" = 4 ] &&
	out unit | grep -E "^ok .*the_aio_paths_give_the_sync_answer_for_a_64k_buffer" | grep -vq SKIP; then
	pass "test_crypto's AF_ALG tests, io=sync, aio and aio-splice: known vectors right, corrupted ones caught, 64 KiB as io=sync"
else
	fail "test_crypto's AF_ALG tests, io=sync, aio and aio-splice: known vectors right, corrupted ones caught, 64 KiB as io=sync" \
		"rc $(rc unit)"
fi

vm_check_refused evp "libcrypto of OpenSSL 3 cannot be loaded" \
	"without libcrypto backend=evp is refused naming it"
vm_check_refused tdes_size "parameter 'size': value '20'" \
	"a TDES buffer of 20 bytes is refused as not a whole number of blocks"

echo "1..$checks"
[ "$failures" -eq 0 ]
