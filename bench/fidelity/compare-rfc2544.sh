#!/bin/bash
# SPDX-License-Identifier: MIT
#
# compare-rfc2544.sh - net.udp.rfc2544 against a known bottleneck and against
# a netperf search by hand: the RFC 2544 targets (the shaped rate within
# 2 % in at most 12 trials; the seeds/000 table in at most half the time
# of the search by hand). Not run by the tests (it takes minutes); the
# figures go to doc/benchmarks-net.md.
#
#   bench/fidelity/compare-rfc2544.sh [BUILD_DIR]
#
# Needs root (namespaces, tc). Creates two network namespaces of its own
# (ep-rfc-a<pid>, ep-rfc-b<pid>) joined by a veth pair, 198.18.0.1/30 and
# 198.18.0.2/30 (RFC 2544's benchmarking range), `embperf serve` (and
# netserver) in b, the senders in a; removes them on every exit. Every
# command is bounded by timeout(1).
#
# Environment:
#   ROUNDS (3), TRIAL (2s: each trial's measured time), PART (ab),
#   RATES ("10 50 100": Mbit/s), FRAMES ("128 1518"),
#   TABLE_RATE (50), TABLE_FRAMES ("64 128 256 1024 1518"),
#   BURST_MS (10), LATENCY_MS (10): tbf's bucket and queue, in ms at R,
#   RESOLUTION (0.5: % of the highest rate that passed), MAX_TRIALS (12),
#   NETPERF_DIR (/tmp/netperf-inst/bin; netperf must be configured with
#   --enable-intervals, else -b/-w are ignored and every trial is unpaced:
#   the one in /tmp/netperf-inst is not, /tmp/netperf-iv was built from the
#   same source with it, and CFLAGS=-fcommon for gcc 12),
#   SHAPE_A (egress), SHAPE_B (ifb): where tbf sits, below.
#
# The shaper: `tc qdisc add dev VA root tbf rate R burst B latency L` on the
# sender's end (egress), or the same on an ifb device in b that the UDP
# arriving at VB is redirected to (ifb: tc ingress, u32 match ip protocol
# 17, mirred egress redirect); B = R x BURST_MS (at least two 1514-byte
# frames), L = LATENCY_MS (doc/methodology-net.md, "RFC 2544", says why these). tbf
# counts each frame as the skb's length: the Ethernet frame without its
# 4-byte FCS (checked on this kernel with `tc -s qdisc`: 1000 datagrams of
# 1472 bytes counted 1 514 000 bytes, of 82 bytes 124 000), so R passes
# R / (8 x (frame - 4)) frames/s: "R's frame rate" below.
#
# A. Per R in RATES and frame in FRAMES, ROUNDS rounds:
#      embperf run net.udp.rfc2544 test=throughput peer=198.18.0.2 frame=F
#        duration=TRIAL ramp=100ms settle=300ms repetitions=1
#        max_trials=MAX_TRIALS resolution=RESOLUTION
#    (the top: the veth's 10 Gbit/s line rate). Printed: the rate found,
#    found / R's frame rate, and the trials it took.
# B. The seeds/000 table (TABLE_FRAMES) through tbf TABLE_RATE (SHAPE_B:
#    ifb, because netperf does not see a drop in the sender's own qdisc: its
#    send() gets ENOBUFS and it sends again, so LOCAL_SEND_CALLS =
#    REMOTE_RECV_CALLS while tc counts 48 727 drops in 2 s), ROUNDS rounds, each round both ways, the order alternating:
#      embperf: one net.udp.rfc2544 run over all frame sizes (as A);
#      by hand: per frame size a first unpaced trial
#        netperf -H 198.18.0.2 -l T -t UDP_STREAM -- -m SIZE -s 4M -S 4M
#      then a binary search over netperf's burst (-b N -w 10, seeds/000's
#      way) between 0 and the unpaced trial's rate, halving until the
#      interval is below RESOLUTION % of the highest passing rate (or one
#      datagram per burst), at most MAX_TRIALS trials; a trial passes when
#      netserver received every datagram netperf sent (LOCAL_SEND_CALLS =
#      REMOTE_RECV_CALLS); the found rate is its REMOTE_RECV_CALLS / time.
#    Printed: trials x trial time of each, the ratio, and per frame size
#    the spread over the rounds ((max - min) / median of the found rates).
# Last, the paired tables (paired-ratios.awk: per row the median of the
# ratios within each round and its 95 % interval): for A, embperf's found
# rate over R's frame rate, per R and frame size; the reference there is
# that computed truth of the shaper, not a tool. For B, embperf over the
# netperf search by hand, the found rate per frame size and the table's
# trials x trial time.
set -u
. "$(dirname "$0")/quiet.sh" # wait for a quiet machine before each round (fidelity protocol)
. "$(dirname "$0")/paired.sh"

build=${1:-build}
rounds=${ROUNDS:-3}
trial=${TRIAL:-2s}
part=${PART:-ab}
rates=${RATES:-10 50 100}
frames=${FRAMES:-128 1518}
table_rate=${TABLE_RATE:-50}
table_frames=${TABLE_FRAMES:-64 128 256 1024 1518}
burst_ms=${BURST_MS:-10}
latency_ms=${LATENCY_MS:-10}
resolution=${RESOLUTION:-0.5}
max_trials=${MAX_TRIALS:-12}
np=${NETPERF_DIR:-/tmp/netperf-inst/bin}
shape_a=${SHAPE_A:-egress}
shape_b=${SHAPE_B:-ifb}
embperf=$(realpath "$build/bench/embperf")
trial_s=$(awk -v t="$trial" 'BEGIN { print t + 0 }')

a=ep-rfc-a$$
b=ep-rfc-b$$
va=rfa$$
vb=rfb$$
tmp=$(mktemp -d)
: >"$tmp/a.txt"
: >"$tmp/b.txt"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns pids "$b" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del "$a" 2>/dev/null
	ip netns del "$b" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || { echo "needs root (namespaces, tc)" >&2; exit 1; }
[ -x "$embperf" ] || { echo "$embperf not built" >&2; exit 1; }
case $part in *b*) [ -x "$np/netperf" ] && [ -x "$np/netserver" ] ||
	{ echo "netperf/netserver not found in $np (NETPERF_DIR)" >&2; exit 1; } ;; esac

ip netns add "$a" && ip netns add "$b" || exit 1
ip link add "$va" netns "$a" type veth peer name "$vb" netns "$b" || exit 1
ip -n "$a" addr add 198.18.0.1/30 dev "$va"
ip -n "$b" addr add 198.18.0.2/30 dev "$vb"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "$va" up
ip -n "$b" link set "$vb" up

# shape MBIT egress|ifb: tbf on the sender's end, or on b's ifb
shape() {
	local burst
	burst=$(awk -v r="$1" -v ms="$burst_ms" 'BEGIN { b = r * 1e6 / 8 * ms / 1000;
		if (b < 3028) b = 3028; printf "%d", b }')
	ip netns exec "$a" tc qdisc del dev "$va" root 2>/dev/null
	ip netns exec "$b" tc qdisc del dev ifb0 root 2>/dev/null
	if [ "$2" = ifb ]; then
		ip netns exec "$b" tc qdisc replace dev ifb0 root tbf rate "${1}mbit" \
			burst "$burst" latency "${latency_ms}ms"
	else
		ip netns exec "$a" tc qdisc replace dev "$va" root tbf rate "${1}mbit" \
			burst "$burst" latency "${latency_ms}ms"
	fi
}
ip -n "$b" link add ifb0 type ifb && ip -n "$b" link set ifb0 up &&
	ip netns exec "$b" tc qdisc add dev "$vb" handle ffff: ingress &&
	ip netns exec "$b" tc filter add dev "$vb" parent ffff: protocol ip u32 \
		match ip protocol 17 0xff action mirred egress redirect dev ifb0 || exit 1

ip netns exec "$b" timeout 7200 "$embperf" serve -q --listen 198.18.0.2:5301 \
	--allow 198.18.0.0/30 --for 7200s &
pids+=($!)
case $part in *b*)
	ip netns exec "$b" timeout 7200 "$np/netserver" -D -L 198.18.0.2 -p 12865 >/dev/null 2>&1 &
	pids+=($!) ;;
esac
for _ in $(seq 50); do
	ip netns exec "$b" ss -ltn 2>/dev/null | grep -q 198.18.0.2:5301 && break
	sleep 0.1
done

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs," \
	"kernel $(uname -r), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# tbf burst ${burst_ms} ms at R (>= 3028 B), latency ${latency_ms} ms; trial $trial;" \
	"resolution $resolution %; max_trials $max_trials"

# rfc FRAMES OUT: one net.udp.rfc2544 search per frame size -> OUT.json;
# prints "frame found_fps trials" per frame size
rfc() {
	ip netns exec "$a" timeout 900 "$embperf" run net.udp.rfc2544 test=throughput \
		peer=198.18.0.2 frame="$1" duration="$trial" ramp=100ms settle=300ms \
		repetitions=1 max_trials="$max_trials" resolution="$resolution" \
		--format=json -o "$2.json" >"$2.log" 2>&1
	python3 - "$2.json" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(0)
for r in d["results"]:
    if r["metric"] == "throughput":
        rows = (r.get("trials") or {}).get("rows", [])
        v = r["value"] if r["value"] is not None else float("nan")
        print(r["labels"]["frame"], "%.1f" % v, len(rows))
        # the trial log, to stderr: fps/loss %/pass of each trial
        print("#   log frame=%s:" % r["labels"]["frame"],
              " ".join("%.0f/%.3g/%s" % (x["config"], x["outcome"], "y" if x["pass"] else "n")
                       for x in rows), file=sys.stderr)
EOF
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if [[ $part == *a* ]]; then
	echo
	echo "## A. the shaped rate found (tbf R: $shape_a)"
	echo "round R_mbit frame found_fps R_fps found/R_fps trials"
	for r in $(seq "$rounds"); do
		quiet_round "$r"
		for rate in $rates; do
			shape "$rate" "$shape_a"
			for f in $frames; do
				set -- $(rfc "$f" "$tmp/a")
				rfps=$(awk -v r="$rate" -v f="$f" 'BEGIN { printf "%.1f", r * 1e6 / (8 * (f - 4)) }')
				echo "$r $rate $f ${2:-nan} $rfps $(awk -v x="${2:-0}" -v y="$rfps" 'BEGIN { printf "%.4f", x / y }') ${3:-nan}" |
					tee -a "$tmp/a.txt"
				[ -n "${2:-}" ] || sed 's/^/#   /' "$tmp/a.log" | head -5
			done
		done
	done
	for rate in $rates; do
		for f in $frames; do
			awk -v r="$rate" -v f="$f" '$2 == r && $3 == f' "$tmp/a.txt" >"$tmp/sel"
			echo "summary R=$rate frame=$f: found/R_fps $(cut -d' ' -f6 "$tmp/sel" | sort -g | tr '\n' ' ')" \
				"median $(cut -d' ' -f6 "$tmp/sel" | median); trials $(cut -d' ' -f7 "$tmp/sel" | tr '\n' ' ')"
		done
	done
	echo "# load average after A: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

# netperf_trial SIZE [BURST]: "sent recvd secs" of one UDP_STREAM trial
netperf_trial() {
	local pace=()
	[ -n "${2:-}" ] && pace=(-b "$2" -w 10)
	ip netns exec "$a" timeout $((trial_s + 30)) "$np/netperf" -H 198.18.0.2 -p 12865 \
		-L 198.18.0.1 -l "$trial_s" -t UDP_STREAM "${pace[@]}" -P 0 -- -m "$1" \
		-s 4M -S 4M -o LOCAL_SEND_CALLS,REMOTE_RECV_CALLS,ELAPSED_TIME 2>/dev/null |
		awk -F, 'NF == 3 && $1 ~ /^[0-9]/ { print $1, $2, $3 }' | tail -1
}

# by_hand FRAME: "frame found_fps trials", the seeds/000 search with netperf
by_hand() {
	local size=$(($1 - 46)) n=1 lo=0 hi best=0 mid
	set -- $(netperf_trial "$size") "$1"
	[ $# -eq 4 ] || { echo "$1 nan 1"; return; }
	if [ "$1" -le "$2" ]; then
		echo "$4 $(awk -v r="$2" -v s="$3" 'BEGIN { printf "%.1f", r / s }') 1"
		return
	fi
	local frame=$4
	hi=$(awk -v s="$1" -v t="$3" 'BEGIN { printf "%d", s / t / 100 + 1 }')
	while [ "$n" -lt "$max_trials" ] &&
		awk -v lo="$lo" -v hi="$hi" -v b="$best" -v res="$resolution" \
			'BEGIN { exit !(hi - lo > 1 && (hi - lo) * 100 > b * res / 100) }'; do
		mid=$(((lo + hi) / 2))
		[ "$mid" -ge 1 ] || break
		set -- $(netperf_trial "$size" "$mid")
		n=$((n + 1))
		if [ $# -eq 3 ] && [ "$1" -le "$2" ]; then
			lo=$mid
			best=$(awk -v r="$2" -v s="$3" 'BEGIN { printf "%.1f", r / s }')
		else
			hi=$mid
		fi
	done
	echo "$frame $best $n"
}

if [[ $part == *b* ]]; then
	echo
	echo "## B. the seeds/000 table ($table_frames) through tbf ${table_rate} Mbit/s ($shape_b)"
	shape "$table_rate" "$shape_b"
	echo "round tool frame found_fps trials"
	for r in $(seq "$rounds"); do
		quiet_round "$r"
		order="embperf netperf"
		[ $((r % 2)) -eq 0 ] && order="netperf embperf"
		for tool in $order; do
			if [ "$tool" = embperf ]; then
				rfc "$(echo "$table_frames" | tr ' ' ',')" "$tmp/b" >"$tmp/b.rows"
			else
				for f in $table_frames; do by_hand "$f"; done >"$tmp/b.rows"
			fi
			sed "s/^/$r $tool /" "$tmp/b.rows" | tee -a "$tmp/b.txt"
		done
	done
	for tool in embperf netperf; do
		for r in $(seq "$rounds"); do
			awk -v r="$r" -v t="$tool" '$1 == r && $2 == t { n += $5 } END { print n + 0 }' "$tmp/b.txt"
		done | awk -v t="$tool" -v s="$trial_s" '{ n += $1; l = l " " $1 }
			END { printf "total %s: trials per round%s; mean trials x trial time %.1f s\n", t, l, n / NR * s }'
	done | tee "$tmp/tot"
	awk '{ m[$2] = $(NF - 1) + 0 } END { printf "ratio embperf / netperf (trials x trial time): %.3f\n", m["embperf:"] / m["netperf:"] }' \
		"$tmp/tot"
	for f in $table_frames; do
		for tool in embperf netperf; do
			awk -v f="$f" -v t="$tool" '$2 == t && $3 == f { print $4 }' "$tmp/b.txt" >"$tmp/sel"
			md=$(median <"$tmp/sel")
			sp=$(sort -g "$tmp/sel" | awk -v m="$md" 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f", (m > 0) ? (hi - lo) / m * 100 : 0 }')
			echo "spread frame=$f $tool: found $(sort -g "$tmp/sel" | tr '\n' ' ')median $md spread $sp %"
		done
	done
	echo "# load average after B: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

# The paired tables, of the parts run (see above).
if [[ $part == *a* ]]; then
	# "round R_mbit frame found_fps R_fps found/R_fps trials": R's frame rate the reference.
	awk '{ k = $2 "mbit-" $3 "-fps"; print k, $1, "reference", $5; print k, $1, "embperf", $4 }' \
		"$tmp/a.txt" | paired_rounds >"$tmp/a.paired"
	echo
	paired_table "R's frame rate (A: the shaper's computed rate)" "$tmp/a.paired"
fi
if [[ $part == *b* ]]; then
	# "round tool frame found_fps trials": netperf by hand the reference; per
	# round and tool also the table's trials x trial time, in s.
	awk -v s="$trial_s" '{ t = $2 == "embperf" ? "embperf" : "reference"
		print $3 "-fps", $1, t, $4; n[$1 " " t] += $5 }
		END { for (k in n) { split(k, x, " "); print "table-search-s", x[1], x[2], n[k] * s } }' \
		"$tmp/b.txt" | paired_rounds >"$tmp/b.paired"
	echo
	paired_table "netperf by hand (B)" "$tmp/b.paired"
fi
