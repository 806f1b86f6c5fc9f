#!/bin/bash
# SPDX-License-Identifier: MIT
# test_net_netns.sh EMBPERF - net.udp.stream across a real link with a known
# bottleneck: two network namespaces joined by a veth pair (198.18.0.1/30
# and 198.18.0.2/30, RFC 2544's benchmarking range), `embperf serve` in one,
# the kernel in the other, `tc qdisc ... tbf rate 20mbit` on the sending
# side as ground truth (shared/probes REPORT.md §2). Below the rate nothing
# is lost; at twice the rate about half is. net.udp.rfc2544 searches the
# same link with UDP datagrams and with raw Ethernet frames (layer=l2). The
# namespaces are this test's own (named with its pid) and are removed on
# every exit path; every run is bounded by `timeout`.
set -u
embperf=$1
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/netns_pair.sh"
echo "TAP version 13"

a=epa$$
b=epb$$
serve_pid=
serve2_pid=
obs_pid=
trap 'netns_pair_down "$serve_pid" "$serve2_pid" "$obs_pid"' EXIT
trap 'exit 1' INT TERM

netns_pair_up "net.udp.stream across namespaces" 198.18.0.1 198.18.0.2
# 20 Mbit/s on each sending side; the queue holds 5 ms.
ip netns exec "$a" tc qdisc add dev va$$ root tbf rate 20mbit burst 32kb latency 5ms
ip netns exec "$b" tc qdisc add dev vb$$ root tbf rate 20mbit burst 32kb latency 5ms

netns_serve serve_pid "$b" 198.18.0.2:5301 198.18.0.0/30 120s
echo "1..25"

# median of METRIC from the CSV of one run: run_metric METRIC ARGS...
out=
run() {
	out=$(ip netns exec "$a" timeout 60 "$embperf" run net.udp.stream peer=198.18.0.2 \
		duration=1s ramp=200ms repetitions=1 --format=csv "$@" 2>&1)
}
tap_fail_extra() { echo "$out" | sed 's/^/#   /' | head -20; }
# counter NAME: a kernel counter of the first result (CSV column kernel_counters)
counter() {
	echo "$out" | awk -F, 'NR == 2 { print $23 }' | tr ' ' '\n' |
		awk -F= -v n="$1" '$1 == n { print $2 }'
}

# The most tbf can pass in the 1 s measured part: its rate, plus what its
# bucket held at the start (the 32 KiB burst, full when the sender paused
# long enough, as a descheduled one on a loaded machine does) and what its
# queue held at the end (tc's limit from latency: rate x 5 ms + burst,
# 45 268 bytes, delivered after the end and counted, as they were sent in
# the measured part): 20.62 Mbit/s of the 1514-byte frames tbf counts,
# 20.68 of the 1518-byte frames throughput_l2 counts. (The bound was 20.5,
# which left out the queue; CI once read 20.64 with the other jobs beside.)
# rx counts what arrived inside its measured part by the kernel's arrival
# stamps: a receiver descheduled over the ramp's end once counted what
# queued meanwhile too, and read high by delay / duration (26 Mbit/s after a
# 300 ms delay); now it reads what tbf passed, however late it looked.
max_l2=$(awk 'BEGIN { burst = 32768; limit = 20e6 / 8 * 0.005 + burst
	printf "%.2f", (20e6 + (burst + limit) * 8) / 1e6 * 1518 / 1514 }')

# above DIRECTION: at 40 Mbit/s asked, the receiver never gets more than
# tbf passes (max_l2), and whatever the sender offered above that was
# lost. How close a busy sender comes to 40 depends on the machine: below
# 24 the loss is not asserted (the reason is printed).
above() {
	local l2 offered_l2 loss
	run direction="$1" rate=40Mbit
	l2=$(metric throughput_l2)
	offered_l2=$(awk -v o="$(metric offered)" 'BEGIN { print o * 1518 / 1472 }')
	loss=$(metric loss)
	check "$1 at twice the shaped rate: the receiver gets at most what tbf passes (Mbit/s L2)" \
		1 "$max_l2" "$l2"
	if awk -v o="$offered_l2" 'BEGIN { exit !(o >= 24) }'; then
		check "$1 at twice the shaped rate: what was offered above it is lost (%)" \
			"$(awk -v o="$offered_l2" -v m="$max_l2" 'BEGIN { print (1 - m / o) * 100 }')" 100 "$loss"
		# The sender's tbf dropped them (ramp included: at least the lost ones),
		# read from the sending side: this host (tx) or the peer's report (rx).
		# The qdisc counters come through libnl: without it they are NaN.
		if "$embperf" --version | grep -q 'libnl=yes'; then
			check "$1: the loss is attributed to the sender's qdisc (drops >= lost)" \
				"$(metric lost)" 1e12 "$(counter sender_qdisc_drops)"
		else
			skip "$1: the loss is attributed to the sender's qdisc" "built without libnl"
		fi
	else
		skip "$1 at twice the shaped rate: loss" "the sender offered only $offered_l2 Mbit/s (machine busy)"
		skip "$1: the loss is attributed to the sender's qdisc" "no loss to attribute (machine busy)"
	fi
}

run direction=tx rate=10Mbit
check "tx at half the shaped rate: no loss" 0 0 "$(metric loss)"
above tx
above rx
run direction=rx rate=10Mbit
check "rx at half the shaped rate: no loss" 0 0 "$(metric loss)"

# A veth link says it runs at 10 Gbit/s: 20 million 64-byte frames a second
# take 13.4 Gbit/s with preamble and gap (their payload, 2.9 Gbit/s, is within
# the peer's limit): refused before anything is sent, naming the link.
run frame=64 pps=20000000
if [ -z "$(metric throughput)" ] && echo "$out" | grep -q "parameter 'rate'.*the link to peer 198.18.0.2:5301 runs at 10000000000 bit/s"; then
	pass "a rate above the link's speed is refused"
else
	fail "a rate above the link's speed is refused"
fi

# RFC 2544 against the same ground truth. tbf passes 20 Mbit/s of 1514-byte
# frames (it counts without the FCS): 1651 frames/s, and in a trial of 1 s
# at most its 32 KB bucket and 12.5 KB queue more: 1681. A rate the search
# found passed without loss, so it cannot be far above that on any machine;
# the rate is the sender's count over its own measured second, and tbf's
# clock is not that one: found rates read 1688 (a session) and 1699.7 (CI,
# load 2.4), so the check allows 3 % above 1681: 1732. A search that kept a
# failing rate, or the top, reads far above it.
rfc_out=
rfc() {
	rfc_out=$(ip netns exec "$a" timeout 120 "$embperf" run net.udp.rfc2544 peer=198.18.0.2 \
		frame=1518 rate=100Mbit duration=1s ramp=100ms settle=100ms --format=csv "$@" 2>&1)
}
rfc_metric() { echo "$rfc_out" | awk -F, -v m="$1" '$4 == m { print $8; exit }'; }
# (JSON's members are indented: what is not is a message.)
tap_fail_extra() { echo "${rfc_out:-$out}" | grep -v '^ ' | cut -c1-200 | sed 's/^/#   /' | head -20; }

# json_value METRIC FIELD: FIELD of METRIC's first result in $rfc_out, JSON
# as embperf prints it (one member a line); empty when absent or null.
json_value() {
	echo "$rfc_out" | awk -v m="\"$1\"," -v f="\"$2\":" '
		$1 == "\"metric\":" { cur = $2 == m }
		cur && $1 == f { v = $2; sub(/,$/, "", v); if (v != "null") print v; exit }'
}
# A share of the time above this that the kept trial's threads waited for a
# CPU (cpu_wait_pct, from the kernel's run delay, not the library's own
# figures) is a machine too busy for the sender to keep its rate (the
# library calls a result disturbed above it); quiet, it reads below 1 %.
busy_wait_pct=5
# searched ARGS...: the throughput search of ARGS, again until one finds at
# least 90 % of tbf's 1651 frames/s (1486), 3 searches at most (12 trials
# each, ~16 s when each trial runs). A sender that other jobs keep off the
# CPU for a few hundred ms stalls, its trial loses what the stall owed, and
# the search stops low: a burst of load shows there before the 1-minute load
# average sees it. Sets $found (the best), $founds (every search's: each is
# checked against tbf's bound) and $waited (the kept trials' highest
# cpu_wait_pct).
searched() {
	local f w
	found= founds= waited=0
	for _ in 1 2 3; do
		rfc_out=$(ip netns exec "$a" timeout 120 "$embperf" run net.udp.rfc2544 \
			peer=198.18.0.2 frame=1518 rate=100Mbit duration=1s ramp=100ms settle=100ms \
			test=throughput max_trials=12 --format=json "$@" 2>&1)
		f=$(json_value throughput value) w=$(json_value throughput cpu_wait_pct)
		founds="$founds${founds:+ }${f:-none}"
		waited=$(awk -v w="$w" -v m="$waited" 'BEGIN { print (w + 0 > m ? w + 0 : m) }')
		[ -n "$f" ] || return
		found=$(awk -v f="$f" -v b="$found" 'BEGIN { print ((b == "" || f > b) ? f : b) }')
		awk -v f="$f" 'BEGIN { exit !(f >= 1486) }' && return
	done
}
# short_and_busy VALUE: VALUE is a result below 1486 and the kept trials
# show the machine busy ($waited above $busy_wait_pct).
short_and_busy() {
	[ -n "$1" ] && awk -v v="$1" -v w="$waited" -v b="$busy_wait_pct" \
		'BEGIN { exit !(v + 0 < 1486 && w + 0 > b) }'
}
# at_least_90 WHAT: $found is at least 90 % of 1651 frames/s; when no
# search got there, skipped only if the kept trials show the machine busy.
at_least_90() {
	if ! short_and_busy "$found"; then
		check "$1 through tbf 20 Mbit/s: at least 90 % of 1651 frames/s (searches found $founds; cpu_wait_pct up to $waited)" \
			1486 1732 "$found"
	else
		skip "$1: at least 90 % of the shaped rate" \
			"machine busy: searches found $founds, their sender waited for a CPU up to $waited % of a trial"
	fi
}
# most_found: the highest of $founds ("none" for a search without a result
# makes it empty: the check fails).
most_found() {
	echo "$founds" | tr ' ' '\n' | awk '$1 == "none" { bad = 1 } $1 > m { m = $1 }
		END { if (!bad && NR) print m }'
}

searched
check "rfc2544 throughput through tbf 20 Mbit/s: at most 3 % above its 1681 frames/s (searches found $founds)" \
	1 1732 "$(most_found)"
at_least_90 "rfc2544 throughput"
# Back to back: a burst that fits tbf's 32 KB bucket (21 frames of 1514
# bytes) always passes, however fast or slow the sender.
rfc test=back-to-back duration=500ms
check "rfc2544 back-to-back through tbf: at least the 21 frames its bucket holds" \
	21 100000 "$(rfc_metric back_to_back)"

# The loss curve (§26.3) through the same shaper, from the 100 Mbit/s top
# (8127 frames/s of 1518 bytes) down in 10 % steps until two trials lose
# nothing: what each trial got through, offered x (1 - loss), is at most
# what tbf passes in 1 s (1681 frames/s, checked to 1732 as above) and, on
# a machine that is not busy, at least 90 % of its 1651 when it lost; and
# the loss does not grow as the offered rate falls (by more than a point).
# A sender kept off the CPU gets less through in its trial: the curve runs
# again, 3 times at most (~13 s each), until its lossy trials got 90 %
# through; the first curve is the one checked for the bound and the rise
# (a starved sender that gave up on what it owed offered less than asked,
# so offered x (1 - loss) reads high in a rerun's curve: logged only).
curve_of() {
	echo "$rfc_out" | python3 -c '
import json, sys
top = 100e6 / ((1518 + 20) * 8)
for r in json.load(sys.stdin)["results"]:
    if r["metric"] == "no_loss":
        for t in r["trials"]["rows"]:
            print("%.2f %.4f" % (top * t["config"] / 100, t["outcome"]))' 2>/dev/null
}
curve_low() {
	echo "$1" | awk 'NF == 2 && $2 > 0 { p = $1 * (1 - $2 / 100);
		if (m == "" || p < m) m = p } END { print m }'
}
if command -v python3 >/dev/null; then
	curve= lows= low= waited=0
	for try in 1 2 3; do
		rfc_out=$(ip netns exec "$a" timeout 120 "$embperf" run net.udp.rfc2544 peer=198.18.0.2 \
			frame=1518 rate=100Mbit test=loss duration=1s ramp=100ms settle=100ms \
			--format=json 2>&1)
		this=$(curve_of)
		[ "$try" = 1 ] && curve=$this
		[ "$try" = 1 ] || echo "# loss curve, run $try (not checked for the bound): $(echo $this)"
		l=$(curve_low "$this")
		w=$(json_value no_loss cpu_wait_pct)
		waited=$(awk -v w="$w" -v m="$waited" 'BEGIN { print (w + 0 > m ? w + 0 : m) }')
		lows="$lows${lows:+ }${l:-none}"
		[ -n "$l" ] || break
		low=$(awk -v l="$l" -v b="$low" 'BEGIN { print ((b == "" || l > b) ? l : b) }')
		awk -v l="$l" 'BEGIN { exit !(l >= 1486) }' && break
	done
	got=$(echo "$curve" | awk 'NF == 2 { p = $1 * (1 - $2 / 100); if (p > m) m = p; n++ }
		END { if (n >= 3) print m }')
	check "rfc2544 loss curve through tbf 20 Mbit/s: at most its 1681 frames/s got through (3 %)" \
		1 1732 "$got"
	rise=$(echo "$curve" | awk 'NF == 2 { if (NR > 1 && $2 - prev > r) r = $2 - prev; prev = $2 }
		END { if (NR >= 3) print r + 0 }')
	check "rfc2544 loss curve: the loss does not grow as the rate falls (points)" -100 1 "$rise"
	if ! short_and_busy "$low"; then
		check "rfc2544 loss curve: the lossy trials got at least 90 % of 1651 frames/s through (runs: $lows; cpu_wait_pct up to $waited)" \
			1486 1732 "$low"
	else
		skip "rfc2544 loss curve: at least 90 % of the shaped rate" \
			"machine busy: runs got $lows through, their sender waited for a CPU up to $waited % of a trial"
	fi
else
	for c in "at most the shaped rate" "no growing loss" "at least 90 %"; do
		skip "rfc2544 loss curve: $c" "no python3 to read the trial log"
	done
fi

# --- layer=l2: raw Ethernet frames of the exact frame size (libpcap) -------
l2_checks=10
if ! "$embperf" --version | grep -q 'pcap=yes'; then
	for _ in $(seq $l2_checks); do skip "rfc2544 layer=l2" "built without libpcap"; done
	exit $((failures > 0))
fi
# rfc_counter NAME [METRIC]: a counter of the kept trial of METRIC's first result
rfc_counter() {
	echo "$rfc_out" | awk -F, -v m="${2:-throughput}" '$4 == m { print $23; exit }' |
		tr ' ' '\n' | awk -F= -v n="$1" '$1 == n { print $2 }'
}
# exact FRAME DIRECTION: one trial at 10 Mbit/s of line rate, half the shaped
# rate: every frame sent is counted, none lost, each as long as the frame
# without its 4-byte FCS.
l2_run() {
	rfc_out=$(ip netns exec "$a" timeout 60 "$embperf" run net.udp.rfc2544 peer=198.18.0.2 \
		layer=l2 frame="$1" direction="$2" rate=10Mbit max_trials=1 repetitions=1 \
		duration=1s ramp=100ms settle=100ms --format=csv 2>&1)
}
exact() {
	local sent lost each
	l2_run "$1" "$2"
	sent=$(rfc_counter sent) lost=$(rfc_counter lost) each=$(rfc_counter received_bytes_each)
	if [ -n "$sent" ] && [ "${sent%.*}" -gt 0 ] && [ "$lost" = 0 ] &&
		[ "$each" = $(($1 - 4)) ]; then
		pass "l2 $2 frame $1 at half the shaped rate: $sent frames sent, all counted, $each bytes each"
	else
		fail "l2 $2 frame $1 at half the shaped rate: sent '$sent' lost '$lost' bytes each '$each' (want $(($1 - 4)))"
	fi
}
exact 1518 tx
exact 64 tx
exact 1518 rx

# The frames on the wire, seen by an observer of its own (an AF_PACKET
# socket on the receiving end, not libpcap): EtherType 0x88B5, from the
# sender's MAC, 1514 bytes each (the FCS is not handed up).
obs_py='
import socket, sys, time
src = bytes.fromhex(sys.argv[2].replace(":", ""))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((sys.argv[1], 0))
s.settimeout(0.2)
print("ready", flush=True)
lens, n, end = {}, 0, time.monotonic() + 20
while n < 200 and time.monotonic() < end:
    try:
        b = s.recv(4096)
    except socket.timeout:
        continue
    if b[12:14] == b"\x88\xb5" and b[6:12] == src:
        lens[len(b)] = lens.get(len(b), 0) + 1
        n += 1
print("frames=%d lengths=%s" % (n, " ".join("%d:%d" % kv for kv in sorted(lens.items()))), flush=True)
'
if command -v python3 >/dev/null; then
	obs_out=$(mktemp)
	ip netns exec "$b" timeout 30 python3 -c "$obs_py" vb$$ \
		"$(ip netns exec "$a" cat /sys/class/net/va$$/address)" >"$obs_out" 2>&1 &
	obs_pid=$!
	for _ in $(seq 100); do grep -q ready "$obs_out" && break; sleep 0.1; done
	l2_run 1518 tx
	wait "$obs_pid"
	obs_pid=
	seen=$(grep frames= "$obs_out")
	rm -f "$obs_out"
	if echo "$seen" | grep -Eq '^frames=([1-9][0-9]+) lengths=1514:[0-9]+$'; then
		pass "the frames on the wire are 1514 bytes (frame 1518 without FCS): $seen"
	else
		fail "the frames on the wire are 1514 bytes (frame 1518 without FCS): '$seen'"
	fi
else
	skip "the frames on the wire are 1514 bytes" "no python3 for the observer"
fi

# The search with raw frames through the same tbf: tbf counts the same 1514
# bytes per frame as for a UDP datagram of 1472, so the same bound holds.
searched layer=l2
check "rfc2544 layer=l2 throughput through tbf 20 Mbit/s: at most 3 % above its 1681 frames/s (searches found $founds)" \
	1 1732 "$(most_found)"
at_least_90 "rfc2544 layer=l2 throughput"

# refused NAME PATTERN CMD...: the run fails, says PATTERN, and reports nothing.
refused() {
	local name=$1 pattern=$2
	shift 2
	rfc_out=$("$@" 2>&1)
	if [ $? -ne 0 ] && echo "$rfc_out" | grep -q "$pattern" &&
		! echo "$rfc_out" | grep -q '^,net.udp.rfc2544/'; then
		pass "$name"
	else
		fail "$name"
	fi
}
tx_packets() { ip netns exec "$a" cat /sys/class/net/va$$/statistics/tx_packets; }

# Without CAP_NET_RAW here: refused at setup, before any trial.
refused "l2 without CAP_NET_RAW is refused naming layer=l2" \
	"parameter 'layer': value 'l2': raw frames on interface va$$ need CAP_NET_RAW" \
	ip netns exec "$a" timeout 30 setpriv --bounding-set=-net_raw "$embperf" run \
	net.udp.rfc2544 peer=198.18.0.2 layer=l2 frame=1518 --format=csv
# Without it on the peer: the peer refuses the trial; nothing was sent but
# the control connection's few packets.
netns_serve serve2_pid "$b" 198.18.0.2:5302 198.18.0.0/30 60s setpriv --bounding-set=-net_raw
before=$(tx_packets)
refused "l2 on a peer without CAP_NET_RAW is refused naming layer=l2 and the peer" \
	"parameter 'layer': value 'l2': peer 198.18.0.2:5302: start: refused.*CAP_NET_RAW" \
	ip netns exec "$a" timeout 30 "$embperf" run net.udp.rfc2544 peer=198.18.0.2:5302 \
	layer=l2 frame=1518 --format=csv
check "l2 refused by the peer: nothing sent but the control connection (packets)" \
	0 40 $(($(tx_packets) - before))
# Loopback carries no Ethernet frame.
refused "l2 over loopback (peer=local) is refused naming the interface" \
	"parameter 'layer': value 'l2': interface lo is loopback" \
	ip netns exec "$a" timeout 30 "$embperf" run net.udp.rfc2544 peer=local layer=l2 \
	frame=1518 --format=csv
exit $((failures > 0))
