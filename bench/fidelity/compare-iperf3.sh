#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-iperf3.sh - the TCP and request/response kernels next to the
# tools people use for them, interleaved, on loopback or across a veth pair
# with a known bottleneck. Not run by the tests (it takes minutes);
# doc/benchmarks-net.md holds its figures.
#
#   bench/fidelity/compare-iperf3.sh [BUILD_DIR]
#
# Environment: SECONDS_PER_RUN (5), ROUNDS (5), SIZE (16k: TCP write size,
# netperf's default), CASES (all: a list of the cases below), PIN ("0 1":
# every client on CPU 0, every server on CPU 1, both tools alike (taskset);
# "none": where the scheduler puts them), MSG (64: request and response bytes of the rr cases;
# sockperf's default message size), LINK (loopback, or veth: two network
# namespaces ep-nettcp-a and ep-nettcp-b joined by a veth pair,
# 198.18.0.1/30 and 198.18.0.2/30 (the benchmarking range), each end's
# egress shaped by tbf at RATE (500mbit); needs root; the namespaces are
# removed at the end).
#
# Servers, each its own process on the server's address (127.0.0.1, or
# 198.18.0.2 in ep-nettcp-b; the clients then run in ep-nettcp-a), started once:
#   embperf serve --listen ADDR:15301
#   iperf3 -s -p 15201, and a second one on 15202 (tcp_both_pair: an iperf3
#   server serves one test at a time)
#   sockperf server --tcp -p 15401, and a UDP one on 15402
# Cases, each run by both tools per round, the order alternating by round:
#   tcp_tx   iperf3 -c 127.0.0.1 -l SIZE -O 1 -t S -J (receiver's bits/s)
#            embperf run net.tcp.stream direction=tx size=SIZE rsize=SIZE ramp=1s
#            duration=Ss (iperf3 -l sets the reads' size too)
#            (both leave out their first second: slow start, buffer growth)
#   tcp_rx   the same with iperf3 -R / direction=rx
#            (SIZE=128k: iperf3's default -l; net.tcp.stream takes up to 1 MiB)
#   tcp_both iperf3 -c 127.0.0.1 -l SIZE -O 1 -t S --bidir -J: one client,
#            a connection each way in one test, as direction=both (the sum
#            of end.sum_received and end.sum_received_bidir_reverse)
#            embperf run net.tcp.stream direction=both size=SIZE rsize=SIZE
#            ramp=1s duration=Ss (throughput: the sum of the two ways)
#            Also printed: each way (tcp_both_tx, tcp_both_rx), to see
#            where a difference in the sum comes from.
#   tcp_both_pair  the same beside two iperf3 clients at once (the target's
#            wording), iperf3 -c ... -p 15201 and iperf3 -c ... -p 15202 -R,
#            each as tcp_tx/tcp_rx
#   tcp_rr   sockperf ping-pong --tcp -m MSG -t S --mps=max
#            embperf run net.tcp.rr request=MSG response=MSG duration=Ss
#   udp_rr   sockperf ping-pong -m MSG -t S --mps=max
#            embperf run net.udp.rr request=MSG response=MSG duration=Ss
# With NETPERF_DIR (a folder holding netperf and netserver, built outside
# the tree from https://github.com/HewlettPackard/netperf: ./autogen.sh &&
# ./configure && make), netserver runs too (port 15501) and the cases
#   np_tcp_tx, np_tcp_rx  netperf -t TCP_STREAM / TCP_MAERTS -l S -- -m SIZE
#                         next to net.tcp.stream size=SIZE (rsize: its default,
#                         128k = netperf's receive size here)
#   np_tcp_rr, np_udp_rr  netperf -t TCP_RR / UDP_RR -l S -- -r MSG,MSG
#                         next to net.tcp.rr / net.udp.rr
#   np_tcp_both           netperf -t TCP_STREAM and -t TCP_MAERTS at the same
#                         time, -l S -- -m SIZE (TI's bidirectional table,
#                         seeds/000: two netperf processes), the sum next to
#                         net.tcp.stream direction=both size=SIZE
# are added, with netperf as their reference.
# Figures: Mbit/s (10^6; iperf3's end.sum_received); transactions/s
# (sockperf: ReceivedMessages / RunTime of its valid duration) and the
# median round trip in us (sockperf reports half the round trip: x 2).
# Each run starts in a session of its own (setsid -w), as in compare-fio.sh.
# Printed at the end: each tool's median and spread (median-table.awk), then
# the ratio within each round, its median and a 95 % confidence interval of
# that median (paired-ratios.awk), which leaves out what moves a whole
# round on a shared machine.
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)

build=${1:-build}
secs=${SECONDS_PER_RUN:-5}
rounds=${ROUNDS:-5}
size=${SIZE:-16k}
msg=${MSG:-64}
link=${LINK:-loopback}
rate=${RATE:-500mbit}
embperf="$build/bench/embperf"
pin=${PIN:-0 1}
tmp=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	if [ "$link" = veth ]; then
		ip netns del ep-nettcp-a 2>/dev/null || true
		ip netns del ep-nettcp-b 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for t in iperf3 sockperf setsid python3; do
	command -v $t >/dev/null || { echo "$t not found (apt-get install $t)" >&2; exit 1; }
done
[ -x "$embperf" ] || { echo "$embperf not built" >&2; exit 1; }

# The two ends: where the servers listen, and how a command runs on each side.
if [ "$link" = veth ]; then
	srv=198.18.0.2
	on_server="ip netns exec ep-nettcp-b"
	on_client="ip netns exec ep-nettcp-a"
	ip netns add ep-nettcp-a
	ip netns add ep-nettcp-b
	ip link add ep-nt-a netns ep-nettcp-a type veth peer name ep-nt-b netns ep-nettcp-b
	ip -n ep-nettcp-a addr add 198.18.0.1/30 dev ep-nt-a
	ip -n ep-nettcp-b addr add 198.18.0.2/30 dev ep-nt-b
	for n in a b; do
		ip -n ep-nettcp-$n link set lo up
		ip -n ep-nettcp-$n link set ep-nt-$n up
		ip netns exec ep-nettcp-$n tc qdisc add dev ep-nt-$n root tbf rate "$rate" \
			burst 64kb latency 20ms
	done
else
	srv=127.0.0.1
	on_server=""
	on_client=""
fi
# Both tools' clients on one CPU and their servers on the other: the same
# placement for both, and a sender and receiver that never share a CPU.
if [ "$pin" != none ]; then
	set -- $pin
	on_client="$on_client taskset -c $1"
	on_server="$on_server taskset -c $2"
fi
# A peer that ends says how (exit status; 128 + N: killed by signal N).
$on_server sh -c 'trap "kill \$c; exit 0" TERM; "$0" serve -q --listen "$1" & c=$!; wait $c
	echo "# embperf serve ended: status $?" >&2' "$embperf" $srv:15301 & pids="$pids $!"
$on_server iperf3 -s -B $srv -p 15201 >/dev/null 2>&1 & pids="$pids $!"
$on_server iperf3 -s -B $srv -p 15202 >/dev/null 2>&1 & pids="$pids $!"
$on_server sockperf server --tcp -i $srv -p 15401 >/dev/null 2>&1 & pids="$pids $!"
$on_server sockperf server -i $srv -p 15402 >/dev/null 2>&1 & pids="$pids $!"
if [ -n "${NETPERF_DIR:-}" ]; then
	[ -x "$NETPERF_DIR/netperf" ] || { echo "$NETPERF_DIR/netperf not found" >&2; exit 1; }
	$on_server "$NETPERF_DIR/netserver" -D -L $srv -p 15501 >/dev/null 2>&1 & pids="$pids $!"
fi
sleep 1

# embperf_value JSON METRIC [PCT]: a metric's value, or its percentile PCT.
embperf_value() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["metric"]: x for x in d["results"]}[sys.argv[2]]
if len(sys.argv) > 3:
    print({p["pct"]: p["value"] for p in r["percentiles"]}[float(sys.argv[3])])
else:
    print(r["value"])
EOF
}

# iperf3_mbps JSON [_bidir_reverse]: the receiver's Mbit/s of an iperf3 -J
# run (--bidir: of the way the server sends).
iperf3_mbps() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received" + sys.argv[2]]["bits_per_second"] / 1e6)' "$1" "${2:-}"
}

# both_lines CASE TOOL TX RX: each way and their sum, as rows of CASE.
both_lines() {
	echo "$1_tx_Mbit/s $2 $3"
	echo "$1_rx_Mbit/s $2 $4"
	echo "$1_Mbit/s $2 $(awk -v a="$3" -v b="$4" 'BEGIN { print a + b }')"
}

# sockperf_summary LOG: "transactions/s p50_rtt_us" from sockperf's output.
sockperf_summary() {
	sed 's/\x1b\[[0-9;]*m//g' "$1" | awk '
	/\[Valid Duration\]/ { for (i = 1; i <= NF; i++) {
		if ($i ~ /^RunTime=/) { sub("RunTime=", "", $i); t = $i }
		if ($i ~ /^ReceivedMessages=/) { sub("ReceivedMessages=", "", $i); n = $i } } }
	/percentile 50.000/ { p50 = $NF }
	END { printf "%.0f %.2f\n", n / t, 2 * p50 }'
}

run_case() { # CASE TOOL ROUND
	out="$tmp/$1.$2.$3"
	case "$1.$2" in
	tcp_tx.ref | tcp_rx.ref)
		rev=""; [ "$1" = tcp_rx ] && rev="-R"
		$on_client setsid -w iperf3 -c $srv -p 15201 -l "$size" -O 1 -t "$secs" $rev -J >"$out"
		echo "$1_Mbit/s reference $(iperf3_mbps "$out")" ;;
	tcp_both.ref)
		$on_client setsid -w iperf3 -c $srv -p 15201 -l "$size" -O 1 -t "$secs" --bidir -J >"$out"
		both_lines "$1" reference "$(iperf3_mbps "$out")" "$(iperf3_mbps "$out" _bidir_reverse)" ;;
	tcp_both_pair.ref)
		# Two clients started together, as two netperf processes in TI's script.
		$on_client setsid -w iperf3 -c $srv -p 15201 -l "$size" -O 1 -t "$secs" -J >"$out.tx" &
		tx_pid=$!
		$on_client setsid -w iperf3 -c $srv -p 15202 -l "$size" -O 1 -t "$secs" -R -J >"$out.rx"
		wait $tx_pid
		both_lines "$1" reference "$(iperf3_mbps "$out.tx")" "$(iperf3_mbps "$out.rx")" ;;
	tcp_both.emb | tcp_both_pair.emb | np_tcp_both.emb)
		rsize="rsize=$size ramp=1s"; [ "$1" = np_tcp_both ] && rsize=""
		$on_client setsid -w "$embperf" run net.tcp.stream peer=$srv:15301 direction=both \
			size="$size" $rsize duration="${secs}s" repetitions=1 --format=json >"$out"
		both_lines "$1" embperf "$(embperf_value "$out" throughput_tx)" \
			"$(embperf_value "$out" throughput_rx)" ;;
	np_tcp_both.ref)
		# One session for both, as a user's script (autogroups: fam-netperf.sh).
		$on_client setsid -w bash -c '"$1" -H "$2" -p 15501 -t TCP_STREAM -l "$3" -- \
			-m "$4" -o THROUGHPUT >"$5.tx" &
			"$1" -H "$2" -p 15501 -t TCP_MAERTS -l "$3" -- -m "$4" -o THROUGHPUT >"$5.rx"
			wait' np-pair "$NETPERF_DIR/netperf" "$srv" "$secs" "$size" "$out"
		both_lines "$1" reference "$(tail -1 "$out.tx")" "$(tail -1 "$out.rx")" ;;
	tcp_tx.emb | tcp_rx.emb)
		dir=tx; [ "$1" = tcp_rx ] && dir=rx
		$on_client setsid -w "$embperf" run net.tcp.stream peer=$srv:15301 direction=$dir \
			size="$size" rsize="$size" ramp=1s duration="${secs}s" repetitions=1 --format=json >"$out"
		echo "$1_Mbit/s embperf $(embperf_value "$out" throughput)" ;;
	tcp_rr.ref | udp_rr.ref)
		if [ "$1" = tcp_rr ]; then opt="--tcp"; port=15401; else opt=""; port=15402; fi
		$on_client setsid -w sockperf ping-pong $opt -i $srv -p $port -m "$msg" -t "$secs" \
			--mps=max >"$out" 2>&1
		set -- "$1" $(sockperf_summary "$out")
		echo "$1_trans/s reference $2"
		echo "$1_p50_rtt_us reference $3" ;;
	np_tcp_tx.ref | np_tcp_rx.ref)
		t=TCP_STREAM; [ "$1" = np_tcp_rx ] && t=TCP_MAERTS
		$on_client setsid -w "$NETPERF_DIR/netperf" -H $srv -p 15501 -t $t -l "$secs" -- \
			-m "$size" -o THROUGHPUT >"$out"
		echo "$1_Mbit/s reference $(tail -1 "$out")" ;;
	np_tcp_tx.emb | np_tcp_rx.emb)
		dir=tx; [ "$1" = np_tcp_rx ] && dir=rx
		$on_client setsid -w "$embperf" run net.tcp.stream peer=$srv:15301 direction=$dir \
			size="$size" duration="${secs}s" repetitions=1 --format=json >"$out"
		echo "$1_Mbit/s embperf $(embperf_value "$out" throughput)" ;;
	np_tcp_rr.ref | np_udp_rr.ref)
		t=TCP_RR; [ "$1" = np_udp_rr ] && t=UDP_RR
		$on_client setsid -w "$NETPERF_DIR/netperf" -H $srv -p 15501 -t $t -l "$secs" -- \
			-r "$msg,$msg" -o THROUGHPUT,P50_LATENCY >"$out"
		tail -1 "$out" | tr ',' ' ' | {
			read -r tps p50
			echo "$1_trans/s reference $tps"
			echo "$1_p50_rtt_us reference $p50"
		} ;;
	tcp_rr.emb | udp_rr.emb | np_tcp_rr.emb | np_udp_rr.emb)
		k=net.tcp.rr; case "$1" in *udp_rr) k=net.udp.rr ;; esac
		$on_client setsid -w "$embperf" run $k peer=$srv:15301 request="$msg" response="$msg" \
			duration="${secs}s" repetitions=1 --format=json >"$out"
		echo "$1_trans/s embperf $(embperf_value "$out" transactions)"
		echo "$1_p50_rtt_us embperf $(embperf_value "$out" latency 50)" ;;
	esac
}

cases="tcp_tx tcp_rx tcp_both tcp_both_pair tcp_rr udp_rr"
[ -n "${NETPERF_DIR:-}" ] && cases="$cases np_tcp_tx np_tcp_rx np_tcp_both np_tcp_rr np_udp_rr"
cases=${CASES:-$cases}
echo "# $(uptime)"
echo "# cpu:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs; $(uname -r); link: $link$([ "$link" = veth ] && echo ", tbf $rate"); pinned (client server): $pin"
echo "# iperf3 $(iperf3 --version | head -1 | cut -d' ' -f2), sockperf $(sockperf --version 2>&1 | head -1 | sed 's/.*version //')"
for r in $(seq 1 "$rounds"); do
	quiet_round "$r"
	for c in $cases; do
		order="ref emb"
		[ $((r % 2)) -eq 0 ] && order="emb ref"
		for tool in $order; do
			run_case "$c" "$tool" "$r" | tee -a "$tmp/all"
		done
	done
done
echo "# $(uptime)"
echo "# median of $rounds rounds (reference: iperf3 for tcp_*, sockperf for tcp_rr/udp_rr, netperf for np_*)"
sort -k1,1 -k2,2 -k3,3g "$tmp/all" |
	awk -v keyname=case -v refname=reference -v keywidth=24 -v numfmt=%12.2f \
		-v spreadwidth=7 -f "$(dirname "$0")/median-table.awk"
echo "# embperf / reference round by round: the median ratio and its 95 % confidence interval"
awk -f "$(dirname "$0")/paired-ratios.awk" "$tmp/all" | { read -r head; echo "$head"; sort; }
