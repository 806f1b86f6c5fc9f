# SPDX-License-Identifier: MIT
# veth.sh - sourced by the fidelity families that run across a link: two
# network namespaces joined by a veth pair, addresses from the benchmarking
# range (198.18.0.1/30 in the first, .2 in the second), both ends and both
# loopbacks up.

# veth_up NS_A NS_B DEV_A DEV_B - create the namespaces and the pair.
veth_up() {
	ip netns add "$1" && ip netns add "$2" &&
		ip link add "$3" netns "$1" type veth peer name "$4" netns "$2" &&
		ip -n "$1" addr add 198.18.0.1/30 dev "$3" &&
		ip -n "$2" addr add 198.18.0.2/30 dev "$4" &&
		ip -n "$1" link set "$3" up && ip -n "$2" link set "$4" up &&
		ip -n "$1" link set lo up && ip -n "$2" link set lo up
}

# veth_down NS_A NS_B - stop what still runs in them and remove both.
veth_down() {
	local ns
	for ns in "$1" "$2"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}
