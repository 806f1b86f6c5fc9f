# SPDX-License-Identifier: MIT
# fam-netperf.sh - the network kernels beside netperf, the tool of the
# vendors' Ethernet tables (seeds/000: TI's TCP_STREAM and TCP_MAERTS, seeds/004:
# TCP_STREAM, TCP_MAERTS, TCP_RR, TCP_CRR, UDP_RR), on loopback (fidelity.sh
# family). netperf is not packaged: NETPERF_DIR names a folder holding
# netperf and netserver built outside the tree as their users build them
# (https://github.com/HewlettPackard/netperf: ./autogen.sh && ./configure &&
# make; doc/fidelity/README.md). netperf runs with its defaults and
# `-l NP_SECS` (default 6); `-o` picks its output fields and changes no test
# parameter. embperf's kernels run with their own defaults, which are
# netperf's (16 KiB sends, 128 KiB receives, 1-byte request and response,
# no polling: doc/methodology-net.md), their 3 trials of 2 s after a ramp
# giving the same 6 s measured. Servers, each in a session of its own, started
# once: netserver (15501) and embperf serve (15311). Rows per round, each
# tool's run in turn:
#   np_stream, np_maerts   TCP_STREAM / TCP_MAERTS (10^6 bit/s, the
#                          receiver's) beside net.tcp.stream direction=tx|rx
#   np_both                TCP_STREAM and TCP_MAERTS started together from one
#                          session, their sum (TI's two netperf processes) beside
#                          net.tcp.stream direction=both
#   np_tcp_rr, np_udp_rr   TCP_RR / UDP_RR: transactions/s and the median
#                          round trip (P50_LATENCY, whole µs) beside
#                          net.tcp.rr / net.udp.rr
#   np_tcp_crr             TCP_CRR: transactions/s beside net.tcp.crr
# Neither side is pinned (both tools' defaults). NP_ROWS picks the groups
# (default "stream both rr crr").

# fam-net.sh's helpers: net_server, net_client, fam_cleanup, ep_value, ep_p50
# (its fam_* functions are redefined below).
. "$here/fam-net.sh"

NP_SECS=${NP_SECS:-6}
np_host=127.0.0.1

fam_describe() { echo "net.* vs netperf $("${NETPERF_DIR:-.}/netperf" -V 2>/dev/null | awk '{ print $NF; exit }') on loopback, its defaults, -l ${NP_SECS}; embperf's defaults (3 trials of 2 s)"; }
fam_bands() { echo "_rr-trans|_crr-trans|_rr-p50=0.90:1.10;.*=0.95:1.05"; }
# The runs before the pair shared a session (data files netperf and
# netperf-stream10) gave each client a session of its own; their np_both
# row names that as its cause, and a later run in those files does not.
fam_causes() {
	case "$cpu_slug/$data_name/$data_started" in
	"amd-epyc-f26-m2/netperf/2026-12-07 05:52" | "amd-epyc-f26-m2/netperf-stream10/2026-12-07 06:17")
		echo "^np_both-=[netperf's clients each in a session of their own](README.md#the-netperf-pairs-sessions)" ;;
	esac
}
fam_refs() {
	local t
	for t in netperf netserver; do
		[ -x "${NETPERF_DIR:-}/$t" ] ||
			{ echo "NETPERF_DIR: no $t in '${NETPERF_DIR:-}' (build netperf outside the tree: doc/fidelity/README.md)"; return 1; }
	done
	command -v python3 >/dev/null || { echo "python3: not found (reads embperf's JSON)"; return 1; }
	echo "NETPERF_DIR=$NETPERF_DIR ($("$NETPERF_DIR/netperf" -V 2>&1 | head -1))"
}
fam_setup() {
	net_tmp=$(mktemp -d)
	net_pids=()
	net_server "$NETPERF_DIR/netserver" -D -L "$np_host" -p 15501
	net_server "$EMBPERF" serve -q --listen "$np_host:15311"
	sleep 1
}

# np TEST OUT FIELDS - one netperf run; its CSV line of FIELDS in OUT.
np() {
	net_client "$NETPERF_DIR/netperf" -H "$np_host" -p 15501 -t "$1" -l "$NP_SECS" -- -o "$3" \
		>"$2" 2>&1
}
np_field() { # OUT N - the Nth field of netperf's last line
	tail -1 "$1" | cut -d, -f"$2"
}
# ep KERNEL PARAMS... - one embperf run with its defaults; JSON in $net_tmp/e.
ep() {
	net_client "$EMBPERF" run "$@" peer="$np_host:15311" --format=json >"$net_tmp/e" 2>&1
}

stream_ref() { # uses dir
	local t=TCP_STREAM
	[ "$dir" = maerts ] && t=TCP_MAERTS
	np "$t" "$net_tmp/o" THROUGHPUT
	emit "np_$dir-Mbit/s" reference "$(np_field "$net_tmp/o" 1)"
}
stream_ep() {
	local d=tx
	[ "$dir" = maerts ] && d=rx
	ep net.tcp.stream direction=$d
	emit "np_$dir-Mbit/s" embperf "$(ep_value "$net_tmp/e" throughput)"
}
# Both clients in one session, as a user's script starts them. With the
# scheduler's autogroups (kernel.sched_autogroup_enabled=1) each session is
# one group of fair share: a session for each client gave them two shares
# of the 2 CPUs against the one that netserver's two children split, and
# embperf's direction=both read 1.079 of the pair's sum (doc/fidelity/README.md).
both_ref() {
	net_client bash -c '"$1" -H "$2" -p 15501 -t TCP_STREAM -l "$3" -- -o THROUGHPUT >"$4/tx" 2>&1 &
		"$1" -H "$2" -p 15501 -t TCP_MAERTS -l "$3" -- -o THROUGHPUT >"$4/rx" 2>&1
		wait' np-pair "$NETPERF_DIR/netperf" "$np_host" "$NP_SECS" "$net_tmp"
	emit np_both-Mbit/s reference "$(awk -v a="$(np_field "$net_tmp/tx" 1)" \
		-v b="$(np_field "$net_tmp/rx" 1)" 'BEGIN { if (a != "" && b != "") print a + b }')"
}
both_ep() {
	ep net.tcp.stream direction=both
	emit np_both-Mbit/s embperf "$(ep_value "$net_tmp/e" throughput)"
}
rr_ref() { # uses proto
	np "$(echo "$proto" | tr a-z A-Z)_RR" "$net_tmp/o" THROUGHPUT,P50_LATENCY
	emit "np_${proto}_rr-trans/s" reference "$(np_field "$net_tmp/o" 1)"
	emit "np_${proto}_rr-p50_us" reference "$(np_field "$net_tmp/o" 2)"
}
rr_ep() {
	ep "net.$proto.rr"
	emit "np_${proto}_rr-trans/s" embperf "$(ep_value "$net_tmp/e" transactions)"
	emit "np_${proto}_rr-p50_us" embperf "$(ep_p50 "$net_tmp/e" latency)"
}
crr_ref() {
	np TCP_CRR "$net_tmp/o" THROUGHPUT
	emit np_tcp_crr-trans/s reference "$(np_field "$net_tmp/o" 1)"
}
crr_ep() {
	ep net.tcp.crr
	emit np_tcp_crr-trans/s embperf "$(ep_value "$net_tmp/e" transactions)"
}
fam_round() {
	local rows=" ${NP_ROWS:-stream both rr crr} "
	[[ $rows == *" stream "* ]] && for dir in stream maerts; do in_turn "$1" stream_ref stream_ep; done
	[[ $rows == *" both "* ]] && in_turn "$1" both_ref both_ep
	[[ $rows == *" rr "* ]] && for proto in tcp udp; do in_turn "$1" rr_ref rr_ep; done
	[[ $rows == *" crr "* ]] && in_turn "$1" crr_ref crr_ep
	return 0
}
