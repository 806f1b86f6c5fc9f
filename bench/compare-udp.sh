#!/bin/bash
# SPDX-License-Identifier: MIT
#
# compare-udp.sh - net.udp.stream next to iperf3 on loopback, interleaved:
# issue 9's UDP targets. Not run by the tests (it takes minutes); the
# figures go to doc/benchmarks-net.md.
#
#   bench/compare-udp.sh [BUILD_DIR]
#
# Environment: ROUNDS (3), SECS (10: paced runs), UNPACED_SECS (5).
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
# B. Paced, 1472-byte payload, at 10, 50 and 90 % of embperf's unpaced
#    capacity at that size (measured first): both tools asked the same
#    payload rate for SECS seconds; a neutral observer (bench/udp-bins,
#    libpcap on lo) counts the datagrams and the most in any 1 ms window.
#    Printed: achieved / asked, and max 1 ms / (asked per 1 ms).
set -u

build=${1:-build}
rounds=${ROUNDS:-3}
secs=${SECS:-10}
unpaced_secs=${UNPACED_SECS:-5}
embperf="$build/bench/embperf"
bins="$build/bench/udp-bins"
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v iperf3 >/dev/null || { echo "iperf3 not found (apt-get install iperf3)" >&2; exit 1; }
[ -x "$embperf" ] && [ -x "$bins" ] || { echo "$embperf or $bins not built" >&2; exit 1; }

setsid "$embperf" serve -q --listen 127.0.0.1:5301 &
pids+=($!)
setsid iperf3 -s -p 5201 >/dev/null 2>&1 &
pids+=($!)
sleep 1

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs," \
	"kernel $(uname -r), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# embperf_json ARGS... -> "sent_pps recv_pps cpu_pct" of one net.udp.stream run
embperf_run() {
	setsid -w "$embperf" run net.udp.stream peer=127.0.0.1 repetitions=1 ramp=200ms \
		--format=json -o "$tmp/e.json" "$@" >/dev/null 2>&1 || { echo "nan nan nan"; return; }
	python3 - "$tmp/e.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
v = {r["metric"]: r["value"] for r in d["results"]}
size = int([r for r in d["results"] if r["metric"] == "kpps"][0]["labels"]["size"])
sent = v["offered"] * 1e6 / (8 * size)
print("%.0f %.0f %.1f" % (sent, v["kpps"] * 1e3, v["cpu_process"]))
EOF
}

# iperf3_run ARGS... -> "sent_pps recv_pps cpu_pct"
iperf3_run() {
	setsid -w iperf3 -c 127.0.0.1 -p 5201 -u -J "$@" >"$tmp/i.json" 2>/dev/null
	python3 - "$tmp/i.json" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    s = d["end"]["sum"]
    secs = s["seconds"]
    print("%.0f %.0f %.1f" % (s["packets"] / secs, (s["packets"] - s["lost_packets"]) / secs,
                              d["end"]["cpu_utilization_percent"]["host_total"]))
except Exception:
    print("nan nan nan")
EOF
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo
echo "## A. unpaced, 64-byte payload, ${unpaced_secs} s per run"
echo "round tool sent_pps recv_pps cpu_pct cpu_ns_per_sent"
for r in $(seq "$rounds"); do
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

echo
echo "## B. paced, 1472-byte payload, ${secs} s per run"
cap=$(for r in $(seq "$rounds"); do embperf_run size=1472 duration=3s | cut -d' ' -f1; done | median)
echo "embperf unpaced capacity at 1472 bytes (median sent/s of $rounds runs): $cap"
echo "round tool pct asked_pps observed_pps achieved_ratio max_1ms peak_ratio_to_asked"
for pct in 10 50 90; do
	pps=$(awk -v c="$cap" -v p="$pct" 'BEGIN { printf "%.0f", c * p / 100 }')
	bits=$(awk -v p="$pps" 'BEGIN { printf "%.0f", p * 1472 * 8 }')
	for r in $(seq "$rounds"); do
		order="embperf iperf3"
		[ $((r % 2)) -eq 0 ] && order="iperf3 embperf"
		for tool in $order; do
			if [ "$tool" = embperf ]; then
				filter="udp and not port 5201"
				"$bins" lo "$filter" "$((secs - 1))" >"$tmp/b.txt" 2>&1 &
				bp=$!
				embperf_run size=1472 pps="$pps" duration="${secs}s" >/dev/null
			else
				filter="udp dst port 5201"
				"$bins" lo "$filter" "$((secs - 1))" >"$tmp/b.txt" 2>&1 &
				bp=$!
				iperf3_run -b "$bits" -l 1472 -t "$secs" >/dev/null
			fi
			wait "$bp"
			obs=$(sed -n 's/.* pps=\([0-9.]*\).* max_1ms=\([0-9]*\).*/\1 \2/p' "$tmp/b.txt")
			set -- $obs
			echo "$r $tool $pct $pps ${1:-nan} $(awk -v o="${1:-0}" -v a="$pps" 'BEGIN { printf "%.4f", o / a }') ${2:-nan} $(awk -v m="${2:-0}" -v a="$pps" 'BEGIN { printf "%.2f", m / (a / 1000) }')" |
				tee -a "$tmp/bb.txt"
		done
	done
done
for pct in 10 50 90; do
	for tool in embperf iperf3; do
		a=$(awk -v t="$tool" -v p="$pct" '$2 == t && $3 == p { print $6 }' "$tmp/bb.txt" | median)
		m=$(awk -v t="$tool" -v p="$pct" '$2 == t && $3 == p { print $8 }' "$tmp/bb.txt" | median)
		echo "median $tool ${pct}%: achieved/asked=$a peak_1ms/asked=$m"
	done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
