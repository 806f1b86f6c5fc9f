# SPDX-License-Identifier: MIT
# tests/netns_pair.sh - sourced by the namespace tests (after tap.sh): two
# network namespaces joined by a veth pair, addresses from RFC 2544's
# benchmarking range (198.18.0.0/15) only. The caller names the namespaces
# ($a, $b) with its pid, removes them in its EXIT trap, and sets its own
# shaping; the veth ends are va$$ (in $a) and vb$$ (in $b).

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
