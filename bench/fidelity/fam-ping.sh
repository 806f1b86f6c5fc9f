# SPDX-License-Identifier: MIT
# fam-ping.sh - net.icmp.ping beside iputils ping's flood (fidelity.sh
# family; the target: rtt avg within 10 % of ping's). Per round, each row's
# two runs in turn, both pinned alike (PIN_CPU):
#   lo-avg    ping -f -q -c PING_COUNT 127.0.0.1 (its rtt avg) beside
#             net.icmp.ping host=127.0.0.1 count=PING_COUNT interval=0 (rtt_avg)
#   veth-avg  the same to 198.18.0.2 across a veth pair between two network
#             namespaces made in fam_setup (198.18.0.1 and .2) and removed in
#             fam_cleanup; PING_DELAY (e.g. 100us) adds a netem delay there
# ping prints whole microseconds: on loopback (a few us a round trip) that
# truncation alone moves its avg by up to 20 %, so the lo row needs many
# rounds and the veth row (with a delay) is the sharper one. Needs root.

PING_COUNT=${PING_COUNT:-10000}
PING=${PING:-ping}

fam_describe() { echo "net.icmp.ping vs iputils $("$PING" -V 2>&1 | head -1 | awk '{ print $NF }') ping -f -c $PING_COUNT; rtt avg, ms"; }
fam_bands() { echo ".*=0.90:1.10:0.001"; } # ping prints whole microseconds
fam_refs() {
	"$PING" -V 2>&1 | grep -q iputils || { echo "PING: '$PING' is not iputils ping (apt-get install iputils-ping)"; return 1; }
	[ "$(id -u)" = 0 ] || { echo "needs root (ping -f, network namespaces)"; return 1; }
	command -v ip >/dev/null || { echo "ip: not found (apt-get install iproute2)"; return 1; }
	echo "PING=$(command -v "$PING") ($("$PING" -V 2>&1 | head -1)); PING_DELAY=${PING_DELAY:-none}"
}
fam_setup() {
	. "$here/veth.sh"
	ping_ns=epfam$$
	veth_up "${ping_ns}a" "${ping_ns}b" epfama epfamb
	[ -z "${PING_DELAY:-}" ] ||
		ip netns exec "${ping_ns}a" tc qdisc add dev epfama root netem delay "$PING_DELAY"
	ip netns exec "${ping_ns}a" "$PING" -c 1 -W 2 198.18.0.2 >/dev/null
}
fam_cleanup() { veth_down "${ping_ns}a" "${ping_ns}b"; }

# in_path PATH COMMAND... - on loopback here, or in the veth's first namespace.
in_path() {
	local p=$1
	shift
	if [ "$p" = lo ]; then pinned "$@"; else ip netns exec "${ping_ns}a" taskset -c "${PIN_CPU:-0}" "$@"; fi
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
	for p in lo veth; do
		in_turn "$1" ping_ref ping_ep "$p"
	done
}
