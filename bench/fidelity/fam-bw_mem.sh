# SPDX-License-Identifier: MIT
# fam-bw_mem.sh - mem.bw beside lmbench3's bw_mem (fidelity.sh family).
# Reference: LMBENCH_BIN=the folder of lmbench3's programs, built as its
# users build it (make in lmbench's top folder or src/; bin/<os>/).
# Rows: every op at 1 MiB and 64 MiB, MB/s (10^6 bytes), both pinned alike;
# bw_mem is given the byte count ("1m" would be 2^20 but "1M" 10^6).

BW_SIZES=${BW_SIZES:-1048576 67108864}
BW_OPS=${BW_OPS:-rd wr rdwr cp fcp frd fwr bzero bcopy}

fam_describe() { echo "mem.bw vs lmbench3 bw_mem, ops $BW_OPS at $BW_SIZES bytes, MB/s"; }
fam_bands() { echo ".*=0.95:1.05"; }
fam_refs() {
	[ -x "${LMBENCH_BIN:-}/bw_mem" ] || { echo "LMBENCH_BIN: no bw_mem in '${LMBENCH_BIN:-}'"; return 1; }
	echo "LMBENCH_BIN=$LMBENCH_BIN (bw_mem); $(lmb_timing)"
}
fam_setup() { :; }
bw_ref() {
	emit "$op-$((size >> 20))M" reference \
		"$(pinned "$LMBENCH_BIN/bw_mem" "$size" "$op" 2>&1 | awk 'NF == 2 { v = $2 } END { print v }')"
}
bw_ep() {
	emit "$op-$((size >> 20))M" embperf "$(pinned_ep_csv run mem.bw op="$op" size="$size" |
		awk '{ print $3; exit }')"
}
fam_round() {
	for size in $BW_SIZES; do
		for op in $BW_OPS; do
			in_turn "$1" bw_ref bw_ep
		done
	done
}
