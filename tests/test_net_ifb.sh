#!/bin/bash
# SPDX-License-Identifier: MIT
# test_net_ifb.sh EMBPERF - small frames against receive-side shaping:
# two network namespaces joined by a veth pair (198.18.0.5/30 and
# 198.18.0.6/30, RFC 2544's benchmarking range), each end's incoming UDP
# redirected (tc ingress + mirred) to an ifb device with `tbf rate 2mbit` on
# it, `embperf serve` in one namespace, net.udp.stream with 64-byte frames
# in the other, both directions. Shaping on the sender's own egress
# throttles a small-frame sender to the shaped rate without a loss
# (shared/probes REPORT.md §2c); on the receiver's ingress the sender
# overruns it and tbf drops. tbf there counts 60 bytes a frame (the frame
# without its FCS; checked with tc -s), so 2 Mbit/s pass 4 167 frames/s.
# Asserted, on any machine: the receiver gets at most what tbf passes; the
# loss is reported when the sender offered well above it; every lost
# datagram is one the ifb's tbf dropped (tc's counter) or one a receiver
# place counted; none is blamed on the sender. The namespaces are this
# test's own (named with its pid) and are removed on every exit path.
set -u
embperf=$1
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/netns_pair.sh"
echo "TAP version 13"

a=epia$$
b=epib$$
serve_pid=
trap 'netns_pair_down "$serve_pid"' EXIT
trap 'exit 1' INT TERM

netns_pair_up "small frames through ifb" 198.18.0.5 198.18.0.6
# shape_ingress NS DEV: UDP coming in on DEV goes through ifb0 with tbf on it
# (the control connection, TCP, is not shaped).
shape_ingress() {
	ip -n "$1" link add ifb0 type ifb &&
		ip -n "$1" link set ifb0 up &&
		ip netns exec "$1" tc qdisc add dev "$2" handle ffff: ingress &&
		ip netns exec "$1" tc filter add dev "$2" parent ffff: protocol ip u32 \
			match ip protocol 17 0xff action mirred egress redirect dev ifb0 &&
		ip netns exec "$1" tc qdisc add dev ifb0 root tbf rate 2mbit burst 4kb latency 10ms
}
if ! shape_ingress "$a" va$$ 2>/dev/null || ! shape_ingress "$b" vb$$ 2>/dev/null; then
	echo "1..1"
	skip "small frames through ifb" "no ifb device, ingress qdisc or mirred action here"
	exit 0
fi

netns_serve serve_pid "$b" 198.18.0.6:5301 198.18.0.4/30 120s
echo "1..8"

out=
tap_fail_extra() { echo "$out" | cut -c1-200 | sed 's/^/#   /' | head -20; }
# counter NAME: a kernel counter of the first result, 0 when NaN or absent
counter() {
	echo "$out" | awk -F, 'NR == 2 { print $23 }' | tr ' ' '\n' |
		awk -F= -v n="$1" '$1 == n { v = $2 } END { print (v == "" || v == "nan") ? 0 : v + 0 }'
}
# drops NS: what the ifb's tbf in NS dropped so far
drops() {
	ip netns exec "$1" tc -s qdisc show dev ifb0 | awk '/dropped/ { sub(",", "", $7); print $7 }'
}

# over DIRECTION RECEIVER_NS: 64-byte frames at 12 500/s, three times what
# tbf passes (4 167/s of 60 counted bytes; in 1 s at most 68 frames more
# from its 4 KB bucket, and the 10 ms queue drains after the measured second),
# in bursts of 50 every 4 ms: a loaded machine's sender wakes about once a
# scheduler tick, and one precisely paced datagram a wake-up offered only
# 2 800/s at load 19. rx counts by arrival stamps what came inside its
# measured part, not what a receiver descheduled over the ramp's end found
# queued when it looked (that read high by delay / duration).
over() {
	local d0 d1 kpps offered lost where
	d0=$(drops "$2")
	out=$(ip netns exec "$a" timeout 60 "$embperf" run net.udp.stream peer=198.18.0.6 \
		direction="$1" frame=64 pps=12500 pacing=burst burst=50 wait=4ms duration=1s \
		ramp=200ms repetitions=1 \
		--format=csv 2>&1)
	d1=$(drops "$2")
	kpps=$(metric kpps)
	# offered: Mbit/s of 18-byte payloads -> frames/s
	offered=$(awk -v o="$(metric offered)" 'BEGIN { printf "%.0f", o * 1e6 / 8 / 18 }')
	check "$1: 64-byte frames at 3x the ifb's shaping: the receiver gets at most its 4.17 kPPS (+10 %: bucket, queue, clocks)" \
		0.1 4.6 "$kpps"
	lost=$(counter lost)
	if awk -v o="$offered" 'BEGIN { exit !(o >= 5000) }'; then
		check "$1: offered $offered frames/s, above the shaping: the loss is reported (%)" \
			"$(awk -v o="$offered" 'BEGIN { print (1 - 4600 / o) * 100 }')" 100 "$(metric loss)"
	else
		skip "$1: the loss is reported" "the sender offered only $offered frames/s (machine busy)"
	fi
	# Every lost datagram is one the ifb's tbf dropped (the ramp's drops too:
	# more is fine) or one the receiver's socket or NIC counted; none is the
	# sender's (its veth has no qdisc to drop in).
	where=$(awk -v s="$(counter receiver_socket_drops)" -v n="$(counter receiver_nic_drops)" \
		'BEGIN { print s + n }')
	check "$1: the lost $lost are within the ifb's $((d1 - d0)) drops (+ $where at the receiver)" \
		0 "$((d1 - d0 + ${where%.*}))" "$lost"
	check "$1: nothing is attributed to the sender (socket, qdisc, NIC)" 0 0 \
		"$(awk -v a="$(counter sender_socket_drops)" -v b="$(counter sender_qdisc_drops)" \
			-v c="$(counter sender_nic_drops)" 'BEGIN { print a + b + c }')"
}

over tx "$b"
over rx "$a"
exit $((failures > 0))
