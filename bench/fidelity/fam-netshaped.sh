# SPDX-License-Identifier: MIT
# fam-netshaped.sh - TCP one way and both ways at once across a link of a
# known rate (fidelity.sh family): the rows and tools of fam-net.sh's "tcp"
# group (iperf3, two clients at once for both ways, beside net.tcp.stream),
# run between two network namespaces joined by a veth pair whose two ends
# each send through a tbf of SHAPE_RATE (default 200mbit), 198.18.0.1 and
# .2 (the benchmarking range). Clients run in the first namespace, the
# servers in the second. Here the bottleneck is the shaper, not the CPUs:
# each direction's goodput sits just under SHAPE_RATE, and both ways at
# once near twice it, as on a board's full-duplex Ethernet port (TI's
# "TCP Bidirectional Throughput" table). Row udprx offers UDP at UDP_RATE
# (default 300M, above the link) and reads what arrives: the receiver's
# measured window against iperf3's. Needs root.

. "$here/fam-net.sh"

SHAPE_RATE=${SHAPE_RATE:-200mbit}
NET_ROWS=${NET_ROWS:-tcp udprx}
UDP_RATE=${UDP_RATE:-300M}

fam_describe() { echo "net.tcp.stream and net.udp.stream (rate=$UDP_RATE) vs iperf3 $(iperf3 --version 2>/dev/null | head -1 | cut -d' ' -f2) across a veth pair shaped to $SHAPE_RATE each way (tbf), ${NET_SECS} s a run; io_wait=$NET_IO_WAIT"; }
fam_refs() {
	[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces, tc)"; return 1; }
	command -v iperf3 >/dev/null || { echo "iperf3: not found (apt-get install iperf3)"; return 1; }
	command -v tc >/dev/null || { echo "tc: not found (apt-get install iproute2)"; return 1; }
	echo "iperf3=$(command -v iperf3) ($(iperf3 --version | head -1)); tbf rate $SHAPE_RATE burst 64kb latency 20ms on each end"
}

shaped_ns=epshp$$
net_host=198.18.0.2
net_server() {
	ip netns exec "${shaped_ns}b" setsid "$@" >/dev/null 2>&1 &
	net_pids+=($!)
}
net_client() { ip netns exec "${shaped_ns}a" setsid -w "$@"; }

fam_setup() {
	. "$here/veth.sh"
	veth_up "${shaped_ns}a" "${shaped_ns}b" epshpa epshpb
	ip netns exec "${shaped_ns}a" tc qdisc add dev epshpa root tbf rate "$SHAPE_RATE" burst 64kb latency 20ms
	ip netns exec "${shaped_ns}b" tc qdisc add dev epshpb root tbf rate "$SHAPE_RATE" burst 64kb latency 20ms
	net_servers
}
fam_cleanup() {
	local p
	for p in "${net_pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	veth_down "${shaped_ns}a" "${shaped_ns}b"
	rm -rf "${net_tmp:-/nonexistent}"
}
