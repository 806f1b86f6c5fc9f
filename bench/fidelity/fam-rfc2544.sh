# SPDX-License-Identifier: MIT
# fam-rfc2544.sh - net.udp.rfc2544's throughput search against a known
# bottleneck (fidelity.sh family). Two network namespaces joined by a veth
# pair (198.18.0.1 and .2, the benchmarking range); `embperf serve` in the
# second; the UDP arriving there redirected to an ifb device shaped by
#   tc qdisc ... tbf rate RFC_RATE burst (10 ms of RFC_RATE, >= 3028 B) latency 10ms
# (the receiving end, as a slower link behind the device would be: a tbf on
# the sender's own egress throttles its sender without a loss, and the
# search then finds nothing to bound it; doc/methodology-net.md, "The
# shaper as a bottleneck"). Per round one search over RFC_FRAMES (default
# 64 128 512 1518), run as a user runs it from the first namespace:
#   embperf run net.udp.rfc2544 peer=198.18.0.2 frame=F,... (its defaults:
#   test=throughput, trials of 2 s after a 100 ms ramp, resolution 0.5 %,
#   max_trials 20)
# The reference is not a tool but the shaper: tbf passes RFC_RATE / (8 x
# (F - 4)) frames/s (it counts a frame without its FCS), plus at most its
# bucket and queue (20 ms of RFC_RATE) over a trial. Rows per frame size:
#   F-fps     the rate found against the shaper's frame rate; band 0.98 to
#             1.02 (RFC 2544's target: within 2 %; the bucket and queue
#             pass up to 20 ms of R more, about 1 % of a 2.1 s trial)
#   F-trials  the trials the search took against RFC 2544's target of 12;
#             band 0 to 1
# netperf's search by hand (seeds/000's method) is compare-rfc2544.sh's
# part B: netperf is not packaged and must be built with
# --enable-intervals. Needs root (namespaces, tc, ifb) and python3 (the
# trial log is read from the JSON report).

RFC_RATE=${RFC_RATE:-50}
RFC_FRAMES=${RFC_FRAMES:-64 128 512 1518}

fam_describe() { echo "net.udp.rfc2544 (its defaults) through tbf ${RFC_RATE} Mbit/s on an ifb at the receiver; frames ${RFC_FRAMES// /,}; the found rate against tbf's frame rate, trials against 12"; }
fam_bands() { echo ".*-fps=0.98:1.02;.*-trials=0:1"; }
fam_fixed() { echo '.*'; } # the shaper's rate and the target of 12 trials
fam_refs() {
	[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces, tc)"; return 1; }
	command -v tc >/dev/null || { echo "tc: not found (apt-get install iproute2)"; return 1; }
	command -v python3 >/dev/null || { echo "python3: not found (the trial log is read from JSON)"; return 1; }
	echo "the shaper: tbf rate ${RFC_RATE}mbit burst $(rfc_burst_bytes) latency 10ms on an ifb (ingress redirect of UDP); $(tc -V 2>&1 | head -1)"
}

# 10 ms of the rate, at least two 1514-byte frames.
rfc_burst_bytes() { awk -v r="$RFC_RATE" 'BEGIN { b = r * 1e6 / 8 / 100; if (b < 3028) b = 3028; printf "%d", b }'; }

fam_setup() {
	. "$here/veth.sh"
	rfc_ns=eprfc$$
	rfc_tmp=$(mktemp -d)
	local b=${rfc_ns}b
	veth_up "${rfc_ns}a" "$b" eprfca eprfcb
	ip -n "$b" link add eprfci type ifb && ip -n "$b" link set eprfci up &&
		ip netns exec "$b" tc qdisc add dev eprfcb handle ffff: ingress &&
		ip netns exec "$b" tc filter add dev eprfcb parent ffff: protocol ip u32 \
			match ip protocol 17 0xff action mirred egress redirect dev eprfci &&
		ip netns exec "$b" tc qdisc add dev eprfci root tbf rate "${RFC_RATE}mbit" \
			burst "$(rfc_burst_bytes)" latency 10ms
	ip netns exec "$b" setsid timeout 7200 "$EMBPERF" serve -q --listen 198.18.0.2:5301 \
		--allow 198.18.0.0/30 --for 7200s >/dev/null 2>&1 &
	local i
	for i in $(seq 50); do
		ip netns exec "$b" ss -ltn 2>/dev/null | grep -q 198.18.0.2:5301 && return 0
		sleep 0.1
	done
	echo "fidelity: embperf serve did not listen on 198.18.0.2:5301" >&2
	return 1
}
fam_cleanup() {
	veth_down "${rfc_ns}a" "${rfc_ns}b"
	rm -rf "${rfc_tmp:-/nonexistent}"
}

# One search over every frame size; "F found_fps trials" per frame size.
rfc_search() {
	local frames=${RFC_FRAMES// /,}
	ip netns exec "${rfc_ns}a" timeout 900 "$EMBPERF" -q run net.udp.rfc2544 \
		peer=198.18.0.2 frame="$frames" metrics=throughput --format=json \
		-o "$rfc_tmp/r.json" >"$rfc_tmp/r.log" 2>&1 ||
		{ sed 's/^/    /' "$rfc_tmp/r.log" >&2; echo "fidelity: net.udp.rfc2544 failed" >&2; }
	python3 - "$rfc_tmp/r.json" <<-'EOF'
		import json, sys
		try:
		    results = json.load(open(sys.argv[1]))["results"]
		except (OSError, ValueError, KeyError):
		    sys.exit(0)
		for r in results:
		    if r["metric"] == "throughput" and r["value"] is not None:
		        rows = (r.get("trials") or {}).get("rows", [])
		        print(r["labels"]["frame"], "%.1f" % r["value"], len(rows))
	EOF
}

fam_round() {
	local f found trials
	rfc_search >"$rfc_tmp/found"
	for f in $RFC_FRAMES; do
		read -r found trials < <(awk -v f="$f" '$1 == f { print $2, $3 }' "$rfc_tmp/found") || true
		emit "$f-fps" reference "$(awk -v r="$RFC_RATE" -v f="$f" 'BEGIN { printf "%.1f", r * 1e6 / (8 * (f - 4)) }')"
		emit "$f-fps" embperf "${found:-}"
		emit "$f-trials" reference 12
		emit "$f-trials" embperf "${trials:-}"
	done
}
