# SPDX-License-Identifier: MIT
# fam-cpu.sh - cpu.whetstone and cpu.linpack beside the C originals built
# outside the tree with the same compiler and -O2 (fidelity.sh family):
# WHETSTONE (whetstone.c, gcc -O2 -DPRINTOUT ... -lm; run with its LOOP as
# argument, timed around the process: its own figure counts whole
# seconds) and LINPACK (linpackc.new, gcc -O2 ... -lm; its n=200 prompt
# answered as its users do, which times n=100's solve) — doc/methodology-cpu.md.
# Both pinned alike. Rows: whetstone MIPS, linpack kflops. EP_ARGS goes to
# cpu.linpack's run (e.g. EP_ARGS="sample_time=1s repetitions=5": samples as
# long as linpackc.new's own timing, doc/methodology-cpu.md).

CPU_LOOPS=${CPU_LOOPS:-100000}

fam_describe() { echo "cpu.whetstone (loops=$CPU_LOOPS) vs whetstone.c, cpu.linpack (n=100, blas=both) vs linpackc.new"; }
fam_bands() { echo ".*=0.95:1.05"; }
# Measured on Zen 4 (doc/methodology-cpu.md, cpu.linpack, "Samples and the
# host's slow spells"). A cause's text holds no ';' and no '=' (table.awk).
fam_causes() {
	case $cpu_slug in
	amd-epyc-f25-m17)
		echo "^linpack-kflops$=[the median of 5 ms samples passes over the host's slow spells, which linpackc.new's 10 s average holds: 1 s samples give its figure](../methodology-cpu.md#cpulinpack--linpack-100-kflops)" ;;
	esac
}
fam_refs() {
	[ -x "${WHETSTONE:-}" ] || { echo "WHETSTONE: not set to a whetstone.c binary"; return 1; }
	[ -x "${LINPACK:-}" ] || { echo "LINPACK: not set to a linpackc.new binary"; return 1; }
	echo "WHETSTONE=$WHETSTONE LINPACK=$LINPACK ($(cc --version | head -1))"
}
fam_setup() { cpu_tmp=$(mktemp -d); }
fam_cleanup() { rm -rf "${cpu_tmp:-/nonexistent}"; }
ep_value() { # KERNEL METRIC PARAMS...
	local k=$1 m=$2
	shift 2
	pinned "$EMBPERF" -q run "$k" "$@" --format=csv | awk -F, -v m="$m" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["metric"] == m { print $col["value"]; exit }'
}
whet_ref() {
	local t0 t1
	t0=$(date +%s%N)
	pinned "$WHETSTONE" "$CPU_LOOPS" >/dev/null 2>&1 || true
	t1=$(date +%s%N)
	emit whetstone-MIPS reference "$(awk -v l="$CPU_LOOPS" -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f", 0.1 * l / (ns / 1e9) }')"
}
whet_ep() { emit whetstone-MIPS embperf "$(ep_value cpu.whetstone mips loops="$CPU_LOOPS")"; }
lin_ref() {
	printf '200\nq\n' | pinned "$LINPACK" >"$cpu_tmp/out" 2>&1 || true
	emit linpack-kflops reference "$(awk '$1 ~ /^[0-9]+$/ && NF == 6 { k = $6 } END { print k }' "$cpu_tmp/out")"
}
# shellcheck disable=SC2086
lin_ep() { emit linpack-kflops embperf "$(ep_value cpu.linpack kflops n=100 blas=both ${EP_ARGS:-})"; }
fam_round() {
	in_turn "$1" whet_ref whet_ep
	in_turn "$1" lin_ref lin_ep
}
