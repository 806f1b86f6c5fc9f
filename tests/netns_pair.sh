# SPDX-License-Identifier: MIT
# tests/netns_pair.sh - sourced by the namespace tests (after tap.sh): two
# network namespaces joined by a veth pair, addresses from RFC 2544's
# benchmarking range (198.18.0.0/15) only. The caller names the namespaces
# ($a, $b) with its pid, removes them in its EXIT trap (netns_pair_down),
# and sets its own shaping; the veth ends are va$$ (in $a) and vb$$ (in $b). The embperf
# command is $embperf; `embperf serve` runs in one namespace (netns_serve),
# a kernel in the other, its CSV output kept in $out (metric, check).

# netns_pair_up WHAT ADDR_A ADDR_B - create $a and $b, the veth pair with
# ADDR_A/30 on va$$ and ADDR_B/30 on vb$$, everything up. Without root,
# iproute2 or namespaces, print a TAP plan with one skip naming WHAT and
# exit 0.
netns_pair_up() {
	local what=$1 addr_a=$2 addr_b=$3 ns
	if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null ||
		! ip netns add "$a" 2>/dev/null; then
		echo "1..1"
		skip "$what" "needs root, iproute2 and network namespaces"
		exit 0
	fi
	ip netns add "$b"
	ip link add va$$ netns "$a" type veth peer name vb$$ netns "$b"
	ip -n "$a" addr add "$addr_a/30" dev va$$
	ip -n "$b" addr add "$addr_b/30" dev vb$$
	for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
	ip -n "$a" link set va$$ up
	ip -n "$b" link set vb$$ up
}

# netns_pair_down [PID...] - for the caller's EXIT trap: stop the processes
# PID... (empty ones are passed over) and remove $a and $b.
netns_pair_down() {
	local pid
	for pid in "$@"; do
		[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	ip netns del "$a" 2>/dev/null
	ip netns del "$b" 2>/dev/null
}

# netns_serve VAR NS LISTEN ALLOW FOR [WRAPPER...] - `embperf serve` in NS
# in the background (through WRAPPER..., e.g. setpriv, when given),
# listening on LISTEN (ADDR:PORT) for clients in ALLOW, for FOR; its pid in
# the variable VAR (for the caller's EXIT trap). Returns when it listens,
# or after 5 s.
netns_serve() {
	local var=$1 ns=$2 listen=$3 allow=$4 serve_for=$5
	shift 5
	ip netns exec "$ns" "$@" "$embperf" serve -q --listen "$listen" --allow "$allow" \
		--for "$serve_for" &
	printf -v "$var" %s "$!"
	for _ in $(seq 50); do
		ip netns exec "$ns" ss -ltn 2>/dev/null | grep -q "$listen" && break
		sleep 0.1
	done
}

# metric METRIC: the value of METRIC's first row in $out (CSV).
metric() { echo "$out" | awk -F, -v m="$1" '$4 == m { print $8; exit }'; }

# check NAME LOW HIGH VALUE: passes when VALUE is there and LOW <= VALUE <= HIGH.
check() {
	if [ -n "$4" ] && awk -v v="$4" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
		pass "$1: $4"
	else
		fail "$1: '$4' not in $2..$3"
	fi
}
