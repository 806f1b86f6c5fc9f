# SPDX-License-Identifier: MIT
# fam-net.sh - the network kernels beside the tools people use for them, on
# loopback (fidelity.sh family). Servers, each in a session of its own,
# started once: embperf serve (15301), iperf3 -s (15201), sockperf server
# TCP (15401) and UDP (15402). Per round, each row's two runs in turn:
#   tcp_tx, tcp_rx  iperf3 -c 127.0.0.1 [-R] -O 1 -t S -J (its defaults: 128 KiB
#                   writes and reads; the receiver's Mbit/s) beside
#                   net.tcp.stream direction=tx|rx size=128k rsize=128k ramp=1s
#                   io_wait=select
#   tcp_both        two iperf3 clients at once, one -R, against two servers
#                   (15201, 15202): the sum of both receivers' Mbit/s, as TI
#                   runs netperf TCP_STREAM and TCP_MAERTS at once; beside
#                   net.tcp.stream direction=both size=128k rsize=128k ramp=1s
#                   io_wait=select.
#                   Not iperf3 --bidir: before 3.16 iperf3 runs both of a
#                   test's streams in one thread, which caps their sum at one
#                   CPU (20 Gbit/s here, against 19 for one way alone)
#   tcp_rr, udp_rr  sockperf ping-pong [--tcp] -m 64 -t S --mps=max
#                   (transactions/s; p50 round trip = 2 x its half) beside
#                   net.tcp.rr / net.udp.rr request=64 response=64
#   udp64           iperf3 -c 127.0.0.1 -u -b 0 -l 64 -t S -J (datagrams/s
#                   sent) beside net.udp.stream size=64 unpaced; a generator
#                   is meant to be at least as fast: its band is open above
#   udprx           (fam-netshaped.sh's link) iperf3 -c HOST -u -b UDP_RATE -l 1472
#                   -t S -J: the receiver's Mbit/s (its "receiver" line,
#                   sum_received) beside net.udp.stream size=1472
#                   rate=UDP_RATE ramp=200ms: its throughput, what the peer
#                   got in the measured window. Offered above the link's rate,
#                   so the shaper drops the excess and both read the link
# Neither side is pinned (both tools' defaults); each run in its own session.
# The tcp rows run net.tcp.stream with io_wait=select (NET_IO_WAIT): iperf3
# polls the socket before each read and write, netperf and io_wait=none do
# not; on loopback, where the four ends of tcp_both share 2 CPUs, the polls
# cost about a tenth of the sum (ratio 1.105 with io_wait=none, 0.984 with
# select: doc/fidelity/README.md). EP_ARGS goes to the same runs.
# NET_ROWS picks the groups of rows (default "tcp rr udp64"). Where the
# runs go is net_host, net_server and net_client: loopback here; another
# family (fam-netshaped.sh) sources this file and moves them into network
# namespaces.

NET_SECS=${NET_SECS:-5}
NET_IO_WAIT=${NET_IO_WAIT:-select}

fam_describe() { echo "net.* vs iperf3 $(iperf3 --version 2>/dev/null | head -1 | cut -d' ' -f2) and sockperf on loopback, ${NET_SECS} s a run; tcp rows io_wait=$NET_IO_WAIT"; }
fam_bands() { echo "udp64=0.95:100;_rr=0.90:1.10;.*=0.95:1.05"; }
fam_refs() {
	local t
	for t in iperf3 sockperf python3; do
		command -v "$t" >/dev/null || { echo "$t: not found (apt-get install $t)"; return 1; }
	done
	echo "iperf3=$(command -v iperf3) ($(iperf3 --version | head -1)); sockperf=$(command -v sockperf) ($(sockperf --version 2>&1 | head -1))"
}
net_host=127.0.0.1
# net_server COMMAND... - a server in a session of its own, in the background.
net_server() {
	setsid "$@" >/dev/null 2>&1 &
	net_pids+=($!)
}
# net_client COMMAND... - a client run in a session of its own, waited for.
net_client() { setsid -w "$@"; }

net_servers() {
	net_tmp=$(mktemp -d)
	net_pids=()
	net_server "$EMBPERF" serve -q --listen "$net_host:15301"
	net_server iperf3 -s -B "$net_host" -p 15201
	net_server iperf3 -s -B "$net_host" -p 15202
	net_server sockperf server --tcp -i "$net_host" -p 15401
	net_server sockperf server -i "$net_host" -p 15402
	sleep 1
}
fam_setup() { net_servers; }
fam_cleanup() {
	local p
	for p in "${net_pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "${net_tmp:-/nonexistent}"
}

json_value() { # FILE PYTHON-EXPRESSION (d: the JSON)
	python3 -c "import json,sys; d = json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null
}
ep_value() { # FILE METRIC
	json_value "$1" "[r for r in d['results'] if r['metric'] == '$2'][0]['value']"
}
ep_p50() { # FILE METRIC
	json_value "$1" "{p['pct']: p['value'] for p in [r for r in d['results'] if r['metric'] == '$2'][0]['percentiles']}[50]"
}

tcp_ref() { # uses dir
	local opt=() got="d['end']['sum_received']['bits_per_second'] / 1e6" back
	[ "$dir" = rx ] && opt=(-R)
	if [ "$dir" = both ]; then
		net_client iperf3 -c "$net_host" -p 15202 -O 1 -t "$NET_SECS" -R -J >"$net_tmp/r" 2>&1 &
		back=$!
	fi
	net_client iperf3 -c "$net_host" -p 15201 -O 1 -t "$NET_SECS" "${opt[@]}" -J >"$net_tmp/o" 2>&1
	if [ "$dir" = both ]; then
		wait "$back"
		emit "tcp_$dir-Mbit/s" reference "$(awk -v a="$(json_value "$net_tmp/o" "$got")" \
			-v b="$(json_value "$net_tmp/r" "$got")" 'BEGIN { if (a != "" && b != "") print a + b }')"
		return
	fi
	emit "tcp_$dir-Mbit/s" reference "$(json_value "$net_tmp/o" "$got")"
}
tcp_ep() {
	net_client "$EMBPERF" run net.tcp.stream peer="$net_host:15301" direction="$dir" size=128k \
		rsize=128k ramp=1s duration="${NET_SECS}s" repetitions=1 io_wait="$NET_IO_WAIT" \
		${EP_ARGS:-} --format=json >"$net_tmp/o" 2>&1
	emit "tcp_$dir-Mbit/s" embperf "$(ep_value "$net_tmp/o" throughput)"
}
rr_ref() { # uses proto
	local opt=() port=15402
	[ "$proto" = tcp ] && opt=(--tcp) port=15401
	net_client sockperf ping-pong "${opt[@]}" -i "$net_host" -p "$port" -m 64 -t "$NET_SECS" \
		--mps=max >"$net_tmp/o" 2>&1
	set -- $(sed 's/\x1b\[[0-9;]*m//g' "$net_tmp/o" | awk '
		/\[Valid Duration\]/ { for (i = 1; i <= NF; i++) {
			if ($i ~ /^RunTime=/) { sub("RunTime=", "", $i); t = $i }
			if ($i ~ /^ReceivedMessages=/) { sub("ReceivedMessages=", "", $i); n = $i } } }
		/percentile 50.000/ { p50 = $NF }
		END { if (t > 0) printf "%.0f %.2f\n", n / t, 2 * p50 }')
	emit "${proto}_rr-trans/s" reference "${1:-}"
	emit "${proto}_rr-p50_us" reference "${2:-}"
}
rr_ep() {
	net_client "$EMBPERF" run "net.$proto.rr" peer="$net_host:15301" request=64 response=64 \
		duration="${NET_SECS}s" repetitions=1 --format=json >"$net_tmp/o" 2>&1
	emit "${proto}_rr-trans/s" embperf "$(ep_value "$net_tmp/o" transactions)"
	emit "${proto}_rr-p50_us" embperf "$(ep_p50 "$net_tmp/o" latency)"
}
udp_ref() {
	net_client iperf3 -c "$net_host" -p 15201 -u -b 0 -l 64 -t "$NET_SECS" -J >"$net_tmp/o" 2>&1
	emit udp64-sent/s reference "$(json_value "$net_tmp/o" "(lambda s: s['packets'] / s['seconds'])(d['end'].get('sum_sent', d['end']['sum']))")"
}
udp_ep() {
	net_client "$EMBPERF" run net.udp.stream peer="$net_host:15301" size=64 ramp=200ms \
		duration="${NET_SECS}s" repetitions=1 --format=json >"$net_tmp/o" 2>&1
	emit udp64-sent/s embperf "$(json_value "$net_tmp/o" "[r for r in d['results'] if r['metric'] == 'offered'][0]['value'] * 1e6 / (8 * 64)")"
}
udprx_ref() {
	# stderr apart: iperf3 warns there that 1472 exceeds the TCP MSS
	net_client iperf3 -c "$net_host" -p 15201 -u -b "$UDP_RATE" -l 1472 -t "$NET_SECS" -J \
		>"$net_tmp/o" 2>"$net_tmp/e"
	emit udprx-Mbit/s reference "$(json_value "$net_tmp/o" "d['end']['sum_received']['bits_per_second'] / 1e6")"
}
udprx_ep() {
	net_client "$EMBPERF" run net.udp.stream peer="$net_host:15301" size=1472 rate="$UDP_RATE" \
		ramp=200ms duration="${NET_SECS}s" repetitions=1 --format=json >"$net_tmp/o" 2>&1
	emit udprx-Mbit/s embperf "$(ep_value "$net_tmp/o" throughput)"
}
fam_round() {
	local rows=" ${NET_ROWS:-tcp rr udp64} "
	[[ $rows == *" tcp "* ]] && for dir in tx rx both; do in_turn "$1" tcp_ref tcp_ep; done
	[[ $rows == *" rr "* ]] && for proto in tcp udp; do in_turn "$1" rr_ref rr_ep; done
	[[ $rows == *" udp64 "* ]] && in_turn "$1" udp_ref udp_ep
	[[ $rows == *" udprx "* ]] && in_turn "$1" udprx_ref udprx_ep
	return 0
}
