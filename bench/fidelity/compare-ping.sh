#!/bin/sh
# SPDX-License-Identifier: MIT
#
# compare-ping.sh - iputils `ping -f -c COUNT` and `embperf run
# net.icmp.ping count=COUNT interval=0` side by side, interleaved, on
# loopback and across a veth pair between two network namespaces made here
# (198.18.0.1 and 198.18.0.2, removed at the end); prints each round's rtt
# avg of both tools, then per path the median of each tool, its spread and
# the ratio embperf / ping with a distribution-free 95 % interval
# (paired-ratios.awk beside it). The target: rtt avg within 10 % of ping's.
#
# ping prints its times truncated to whole microseconds; on loopback, where
# a round trip is a few microseconds, that alone moves its avg by up to
# 20 %, so the loopback rows need many rounds; DELAY adds a netem delay on
# the veth so that its rows compare at a round trip ping resolves.
#
# Run as root (namespaces, raw sockets, ping's flood), on a quiet machine.
#
# Usage: compare-ping.sh [PATH ...]      PATH: lo veth (default: both)
# Environment:
#   EMBPERF   the embperf command (required)
#   PING      iputils ping (default: ping on PATH; `ping -V` must say iputils)
#   COUNT     requests per run (default 10000, as the issue's ping -f -c 10000)
#   ROUNDS    runs of each tool per path, interleaved (default 11)
#   PIN_CPU   run both tools under `taskset -c PIN_CPU`
#   DELAY     netem delay on the veth's sender side, e.g. 100us (default none;
#             needs sch_netem)
#   SAMPLES_OUT  also write "PATH TOOL RTT_AVG_MS" per run here
set -eu
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)

: "${EMBPERF:?set EMBPERF to the embperf command}"
PING=${PING:-ping}
COUNT=${COUNT:-10000}
ROUNDS=${ROUNDS:-11}
PIN_CPU=${PIN_CPU:-}
DELAY=${DELAY:-}
here=$(dirname "$0")
ns_a=epcmp$$a
ns_b=epcmp$$b
tmp=$(mktemp -d)
made_ns=

die() {
	echo "compare-ping.sh: $*" >&2
	exit 2
}

cleanup() {
	if [ -n "$made_ns" ]; then
		ip netns del "$ns_a" 2>/dev/null || true
		ip netns del "$ns_b" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

"$PING" -V 2>&1 | grep -q iputils || die "'$PING' is not iputils ping (PING=...)"
[ "$(id -u)" = 0 ] || die "run as root: ping -f and the namespaces need it"

pin() {
	if [ -n "$PIN_CPU" ]; then taskset -c "$PIN_CPU" "$@"; else "$@"; fi
}

# in_ns NS COMMAND...: run in namespace NS, or here for NS "-".
in_ns() {
	ns=$1
	shift
	if [ "$ns" = - ]; then pin "$@"; else ip netns exec "$ns" sh -c \
		"${PIN_CPU:+taskset -c $PIN_CPU }\"\$@\"" sh "$@"; fi
}

# ping's avg from "rtt min/avg/max/mdev = a/b/c/d ms".
ping_avg() { # NS HOST
	in_ns "$1" "$PING" -f -q -c "$COUNT" "$2" 2>&1 |
		awk -F'[/ ]+' '/^rtt / { print $8 }'
}

# net.icmp.ping's rtt_avg from its CSV.
ep_avg() { # NS HOST
	in_ns "$1" "$EMBPERF" -q --format=csv run net.icmp.ping host="$2" count="$COUNT" \
		interval=0 metrics=rtt_avg |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			 { print $c["value"]; exit }'
}

veth_up() {
	command -v ip >/dev/null || die "the ip command (iproute2) is missing"
	ip netns add "$ns_a" && made_ns=1
	ip netns add "$ns_b"
	ip link add epcmpa netns "$ns_a" type veth peer name epcmpb netns "$ns_b"
	ip -n "$ns_a" addr add 198.18.0.1/30 dev epcmpa
	ip -n "$ns_b" addr add 198.18.0.2/30 dev epcmpb
	for ns in "$ns_a" "$ns_b"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$ns_a" link set epcmpa up
	ip -n "$ns_b" link set epcmpb up
	if [ -n "$DELAY" ]; then
		ip netns exec "$ns_a" tc qdisc add dev epcmpa root netem delay "$DELAY" ||
			die "tc netem failed (sch_netem?)"
	fi
	# A first ping resolves the neighbour before anything is timed.
	ip netns exec "$ns_a" "$PING" -c 1 -W 2 198.18.0.2 >/dev/null || die "the veth does not answer"
}

add() { # PATH TOOL VALUE
	case $3 in
	'' | *[!0-9.eE+-]*) echo "compare-ping.sh: $1 $2: no result" >&2 ;;
	*) echo "$1 $2 $3" | tee -a "$tmp/samples" ;;
	esac
}

paths=${*:-lo veth}
: >"$tmp/samples"
for p in $paths; do
	case $p in
	lo) ;;
	veth) veth_up ;;
	*) die "unknown path '$p' (lo veth)" ;;
	esac
done
echo "# round by round: PATH TOOL RTT_AVG_MS (COUNT=$COUNT, ROUNDS=$ROUNDS${DELAY:+, DELAY=$DELAY})"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	quiet_round "$r"
	for p in $paths; do
		if [ "$p" = lo ]; then ns=- host=127.0.0.1; else ns=$ns_a host=198.18.0.2; fi
		# ping first on odd rounds, embperf first on even ones.
		if [ $((r % 2)) -eq 1 ]; then
			add "$p" reference "$(ping_avg "$ns" "$host")"
			add "$p" embperf "$(ep_avg "$ns" "$host")"
		else
			add "$p" embperf "$(ep_avg "$ns" "$host")"
			add "$p" reference "$(ping_avg "$ns" "$host")"
		fi
	done
	r=$((r + 1))
done
[ -n "${SAMPLES_OUT:-}" ] && cp "$tmp/samples" "$SAMPLES_OUT"
echo "# medians per path (ms), spread = (max - min) / median"
sort -k1,1 -k2,2 -k3,3g "$tmp/samples" |
	awk -v keyname=path -v refname=ping -v keywidth=8 -v numfmt=%12.4g \
		-v spreadwidth=7 -f "$here/median-table.awk"
echo "# paired ratios embperf / ping per path, round by round"
awk -f "$here/paired-ratios.awk" "$tmp/samples"
