# SPDX-License-Identifier: MIT
# fam-ping.sh - net.icmp.ping beside iputils ping's flood (fidelity.sh
# family; the target: rtt avg within 10 % of ping's). Per round, each row's
# two runs in turn, both pinned alike (PIN_CPU):
#   lo-avg    ping -f -q -c PING_COUNT 127.0.0.1 (its rtt avg) beside
#             net.icmp.ping host=127.0.0.1 count=PING_COUNT interval=0 (rtt_avg)
#   veth-avg  the same to 198.18.0.2 across a veth pair between two network
#             namespaces made in fam_setup (198.18.0.1 and .2) and removed in
#             fam_cleanup; PING_DELAY (e.g. 100us) adds a netem delay there
#   tbf-avg   the same across a second veth pair whose first end sends
#             through tbf at PING_SHAPE (default 4mbit) with a bucket of
#             1600 bytes: a flood ping has one echo in flight, so once the
#             first 16 echoes have emptied the bucket each one waits for
#             the tokens of its own 98-byte frame, 196 us at 4 Mbit/s (a
#             slow link's delay; netem is not needed)
# ping prints whole microseconds: on loopback and an unshaped veth (a few us
# a round trip) that truncation alone moves its avg by 20 to 50 %, so those
# rows stay unresolved; the tbf row's round trip is long enough to tell a
# 1 % difference. Needs root.

PING_COUNT=${PING_COUNT:-10000}
PING=${PING:-ping}
PING_SHAPE=${PING_SHAPE:-4mbit}

fam_describe() { echo "net.icmp.ping vs iputils $("$PING" -V 2>&1 | head -1 | awk '{ print $NF }') ping -f -c $PING_COUNT on lo, a veth pair and one through tbf $PING_SHAPE; rtt avg, ms"; }
fam_bands() { echo ".*=0.90:1.10:0.001"; } # ping prints whole microseconds
fam_refs() {
	"$PING" -V 2>&1 | grep -q iputils || { echo "PING: '$PING' is not iputils ping (apt-get install iputils-ping)"; return 1; }
	[ "$(id -u)" = 0 ] || { echo "needs root (ping -f, network namespaces)"; return 1; }
	command -v ip >/dev/null || { echo "ip: not found (apt-get install iproute2)"; return 1; }
	command -v tc >/dev/null || { echo "tc: not found (apt-get install iproute2)"; return 1; }
	echo "PING=$(command -v "$PING") ($("$PING" -V 2>&1 | head -1)); PING_DELAY=${PING_DELAY:-none}; PING_SHAPE=$PING_SHAPE"
}
fam_setup() {
	. "$here/veth.sh"
	ping_ns=epfam$$
	veth_up "${ping_ns}a" "${ping_ns}b" epfama epfamb
	[ -z "${PING_DELAY:-}" ] ||
		ip netns exec "${ping_ns}a" tc qdisc add dev epfama root netem delay "$PING_DELAY"
	ip netns exec "${ping_ns}a" "$PING" -c 1 -W 2 198.18.0.2 >/dev/null
	# The second pair, shaped; its own namespaces, so the same addresses.
	veth_up "${ping_ns}c" "${ping_ns}d" epfamc epfamd
	ip netns exec "${ping_ns}c" tc qdisc add dev epfamc root tbf rate "$PING_SHAPE" burst 1600 latency 50ms
	ip netns exec "${ping_ns}c" "$PING" -c 1 -W 2 198.18.0.2 >/dev/null
}
fam_cleanup() {
	veth_down "${ping_ns}a" "${ping_ns}b"
	veth_down "${ping_ns}c" "${ping_ns}d"
}

# in_path PATH COMMAND... - on loopback here, or in the first namespace of
# the veth pair (veth) or of the shaped one (tbf).
in_path() {
	local p=$1 ns
	shift
	case $p in
	lo) pinned "$@"; return ;;
	veth) ns=${ping_ns}a ;;
	*) ns=${ping_ns}c ;;
	esac
	ip netns exec "$ns" taskset -c "${PIN_CPU:-0}" "$@"
}
host_of() { [ "$1" = lo ] && echo 127.0.0.1 || echo 198.18.0.2; }

ping_ref() { # PATH
	emit "$1-avg" reference "$(in_path "$1" "$PING" -f -q -c "$PING_COUNT" "$(host_of "$1")" 2>&1 |
		awk -F'[/ ]+' '/^rtt / { print $8 }')"
}
ping_ep() { # PATH
	emit "$1-avg" embperf "$(in_path "$1" "$EMBPERF" -q --format=csv run net.icmp.ping \
		host="$(host_of "$1")" count="$PING_COUNT" interval=0 metrics=rtt_avg | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ print $col["value"]; exit }')"
}

fam_round() {
	local p
	for p in lo veth tbf; do
		in_turn "$1" ping_ref ping_ep "$p"
	done
}
