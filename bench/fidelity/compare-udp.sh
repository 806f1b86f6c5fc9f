#!/bin/bash
# SPDX-License-Identifier: MIT
#
# compare-udp.sh - net.udp.stream next to iperf3 on loopback, interleaved:
# the UDP targets (unpaced: at least 2x iperf3's packets/s at no more CPU
# per packet; paced: the asked rate within 1 %). Not run by the tests (it
# takes minutes); the figures go to doc/benchmarks-net.md.
#
#   bench/fidelity/compare-udp.sh [BUILD_DIR]
#
# Environment: ROUNDS (5), SECS (10: paced runs), UNPACED_SECS (5), PARTS ("A B"),
# PRIORITY (0; N: embperf priority=N and the iperf3 client under `chrt -f N`,
# both senders SCHED_FIFO alike; the servers stay SCHED_OTHER).
#
# Servers: `embperf serve --listen 127.0.0.1:5301` and `iperf3 -s -p 5201`,
# each in its own session (setsid: with scheduler autogroups the processes
# of one session share one CPU share). Runs alternate tool order by round.
#
# A. Unpaced, 64-byte payload:
#      embperf run net.udp.stream peer=127.0.0.1 size=64 duration=Ns repetitions=1
#      iperf3 -c 127.0.0.1 -p 5201 -u -b 0 -l 64 -t N -J
#    sent datagrams/s, received/s, and the sender's CPU per sent datagram
#    (embperf's cpu_process, iperf3's cpu_utilization_percent.host_total:
#    both the sending process's user + system time over the run).
# B. Paced, 1472-byte payload, at 10, 50 and 90 % of the unpaced capacity
#    at that size (measured first, the observer capturing as in the paced
#    runs: what embperf's receiver got): both tools asked the same
#    payload rate for SECS seconds. Achieved = each tool's own sender figure
#    (embperf: offered = counted datagrams sent / measured time, the ramp
#    not counted; iperf3: end.sum_sent packets / seconds), and each tool's
#    receiver figure; embperf's 'forgiven' (datagrams the pacer gave up
#    on). A neutral observer (bench/probes/udp-bins, libpcap on lo) gives the most
#    datagrams in any 1 ms window (and what pcap itself dropped).
#    Printed: achieved / asked, received / asked, max 1 ms / (asked per 1 ms).
# Last (also when B is left out): embperf over iperf3 within each round,
# for A's sent/s, received/s, CPU % and CPU per sent datagram, and for B's
# achieved, received and peak 1 ms over asked per asked rate; the median of
# those ratios and its 95 % interval (paired-ratios.awk).
set -u
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)
. "$(dirname "$0")/paired.sh"

build=${1:-build}
rounds=${ROUNDS:-5}
parts=${PARTS:-A B}
prio=${PRIORITY:-0}
fifo=()
[ "$prio" -gt 0 ] && fifo=(chrt -f "$prio")
secs=${SECS:-10}
unpaced_secs=${UNPACED_SECS:-5}
embperf="$build/bench/embperf"
bins="$build/bench/probes/udp-bins"
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
: >"$tmp/a.txt"
: >"$tmp/bb.txt"

command -v iperf3 >/dev/null || { echo "iperf3 not found (apt-get install iperf3)" >&2; exit 1; }
[ -x "$embperf" ] && [ -x "$bins" ] || { echo "$embperf or $bins not built" >&2; exit 1; }

setsid "$embperf" serve -q --listen 127.0.0.1:5301 &
pids+=($!)
setsid iperf3 -s -p 5201 >/dev/null 2>&1 &
pids+=($!)
sleep 1

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs," \
	"kernel $(uname -r), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)," \
	"senders' priority: $prio"

# embperf_run ARGS... -> "sent_pps recv_pps cpu_pct forgiven" of one net.udp.stream run
embperf_run() {
	setsid -w "$embperf" run net.udp.stream peer=127.0.0.1 repetitions=1 ramp=200ms \
		priority="$prio" --format=json -o "$tmp/e.json" "$@" >/dev/null 2>&1 ||
		{ echo "nan nan nan nan"; return; }
	python3 - "$tmp/e.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
v = {r["metric"]: r["value"] for r in d["results"]}
size = int([r for r in d["results"] if r["metric"] == "kpps"][0]["labels"]["size"])
sent = v["offered"] * 1e6 / (8 * size)
print("%.0f %.0f %.1f %.0f" % (sent, v["kpps"] * 1e3, v["cpu_process"], v["forgiven"]))
EOF
}

# iperf3_run ARGS... -> "sent_pps recv_pps cpu_pct" (its own figures: sum_sent, sum_received)
iperf3_run() {
	setsid -w "${fifo[@]}" iperf3 -c 127.0.0.1 -p 5201 -u -J "$@" >"$tmp/i.json" 2>/dev/null
	python3 - "$tmp/i.json" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    e = d["end"]
    s, r = e.get("sum_sent", e["sum"]), e.get("sum_received", e["sum"])
    print("%.0f %.0f %.1f" % (s["packets"] / s["seconds"],
                              (r["packets"] - r["lost_packets"]) / r["seconds"],
                              e["cpu_utilization_percent"]["host_total"]))
except Exception:
    print("nan nan nan")
EOF
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# udp_paired: the paired table, from the rounds of A (a.txt: "round tool
# sent_pps recv_pps cpu_pct cpu_ns_per_sent") and of B (bb.txt: "round tool
# pct asked_pps sent_pps achieved_ratio recv_ratio forgiven max_1ms
# peak_ratio pcap_dropped"); embperf's forgiven has no iperf3 counterpart.
udp_paired() {
	{
		awk '{ t = $2 == "embperf" ? "embperf" : "reference"
			print "A-sent-pps", $1, t, $3; print "A-recv-pps", $1, t, $4
			print "A-cpu-%", $1, t, $5; print "A-cpu-ns/sent", $1, t, $6 }' "$tmp/a.txt"
		awk '{ t = $2 == "embperf" ? "embperf" : "reference"; k = "B" $3 "-"
			print k "achieved/asked", $1, t, $6; print k "received/asked", $1, t, $7
			print k "peak1ms/asked", $1, t, $10 }' "$tmp/bb.txt"
	} | paired_rounds >"$tmp/paired"
	echo
	paired_table iperf3 "$tmp/paired"
}

case " $parts " in *" A "*) ;; *) skip_a=1 ;; esac
[ -z "${skip_a:-}" ] && {
echo
echo "## A. unpaced, 64-byte payload, ${unpaced_secs} s per run"
echo "round tool sent_pps recv_pps cpu_pct cpu_ns_per_sent"
for r in $(seq "$rounds"); do
	quiet_round "$r"
	order="embperf iperf3"
	[ $((r % 2)) -eq 0 ] && order="iperf3 embperf"
	for tool in $order; do
		if [ "$tool" = embperf ]; then
			set -- $(embperf_run size=64 duration="${unpaced_secs}s")
		else
			set -- $(iperf3_run -b 0 -l 64 -t "$unpaced_secs")
		fi
		per=$(awk -v c="$3" -v p="$1" 'BEGIN { printf "%.0f", c / 100 * 1e9 / p }')
		echo "$r $tool $1 $2 $3 $per" | tee -a "$tmp/a.txt"
	done
done
for tool in embperf iperf3; do
	for col in 3 4 5 6; do
		printf '%s ' "$(awk -v t="$tool" -v c="$col" '$2 == t { print $c }' "$tmp/a.txt" | median)"
	done | awk -v t="$tool" '{ printf "median %s sent_pps=%s recv_pps=%s cpu_pct=%s cpu_ns_per_sent=%s\n", t, $1, $2, $3, $4 }'
done
}
case " $parts " in *" B "*) ;; *) udp_paired; exit 0 ;; esac

echo
echo "## B. paced, 1472-byte payload, ${secs} s per run"
# The capacity is what reaches the receiver unpaced (sender, loopback and
# receiver together), not what the sender pushes into a socket that drops it;
# measured with the observer capturing, as in the paced runs: its tap on lo
# costs the sending CPU a clone per datagram (488 000/s without it, 194 000/s
# with it on the 2-vCPU VM of doc/benchmarks-net.md).
capacity_run() {
	"$bins" lo "udp and not port 5201" 2 >/dev/null 2>&1 &
	local bp=$!
	embperf_run size=1472 duration=3s | cut -d' ' -f2
	wait "$bp"
}
quiet_wait # a subshell cannot stop the script: wait here
cap=$(for r in $(seq "$rounds"); do capacity_run; done | median)
echo "unpaced capacity at 1472 bytes, the observer capturing (median received/s of $rounds embperf runs): $cap"
echo "round tool pct asked_pps sent_pps achieved_ratio recv_ratio forgiven max_1ms peak_ratio pcap_dropped"
for pct in 10 50 90; do
	pps=$(awk -v c="$cap" -v p="$pct" 'BEGIN { printf "%.0f", c * p / 100 }')
	bits=$(awk -v p="$pps" 'BEGIN { printf "%.0f", p * 1472 * 8 }')
	for r in $(seq "$rounds"); do
		quiet_round "$r"
		order="embperf iperf3"
		[ $((r % 2)) -eq 0 ] && order="iperf3 embperf"
		for tool in $order; do
			if [ "$tool" = embperf ]; then
				"$bins" lo "udp and not port 5201" "$((secs - 1))" >"$tmp/b.txt" 2>&1 &
				bp=$!
				set -- $(embperf_run size=1472 pps="$pps" duration="${secs}s")
			else
				"$bins" lo "udp dst port 5201" "$((secs - 1))" >"$tmp/b.txt" 2>&1 &
				bp=$!
				set -- $(iperf3_run -b "$bits" -l 1472 -t "$secs") -
			fi
			wait "$bp"
			peak=$(sed -n 's/.* max_1ms=\([0-9]*\).*/\1/p' "$tmp/b.txt")
			pdrop=$(sed -n 's/.* pcap_dropped=\([0-9]*\).*/\1/p' "$tmp/b.txt")
			echo "$r $tool $pct $pps $1 $(awk -v s="$1" -v v="$2" -v a="$pps" -v m="${peak:-0}" \
				'BEGIN { printf "%.4f %.4f", s / a, v / a }') $4 ${peak:-nan} $(awk \
				-v m="${peak:-0}" -v a="$pps" 'BEGIN { printf "%.2f", m / (a / 1000) }') ${pdrop:-nan}" |
				tee -a "$tmp/bb.txt"
		done
	done
done
for pct in 10 50 90; do
	for tool in embperf iperf3; do
		col() { awk -v t="$tool" -v p="$pct" -v c="$1" '$2 == t && $3 == p { print $c }' "$tmp/bb.txt" | median; }
		echo "median $tool ${pct}%: achieved/asked=$(col 6) received/asked=$(col 7)" \
			"forgiven=$(col 8) peak_1ms/asked=$(col 10)"
	done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
udp_paired
