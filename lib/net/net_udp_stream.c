// SPDX-License-Identifier: MIT
/*
 * net_udp_stream.c - net.udp.stream: paced UDP datagrams between this host
 * and an embperf peer, one flow per trial; netperf's UDP_STREAM and its
 * -b/-w pacing, with loss, reordering, duplicates and RFC 3550 jitter
 * counted by the receiver, and CPU load on both ends
 * (doc/methodology-net.md).
 *
 * The flow itself (both directions, the peer's part, echoes) is
 * udp_flow.c's; this file reads the parameters and turns each trial's
 * outcome into the kernel's figures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "kclient.h"
#include "lib/core/sched_fifo.h"
#include "lib/core/util.h"
#include "linkstats.h"
#include "udp_flow.h"
#include "udp_io.h"
#include "wire.h"

enum {
	M_THROUGHPUT, M_OFFERED, M_L2, M_KPPS, M_LOSS, M_LOST, M_REORDERED, M_DUPLICATED,
	M_JITTER, M_RTT, M_CPU_PROCESS, M_CPU_SYSTEM, M_PEER_CPU_PROCESS, M_PEER_CPU_SYSTEM,
	M_FORGIVEN,
};

/* The kernel's counters: each a per-trial figure (metric of the same name). */
enum {
	C_OFFERED, C_L2, C_LOSS, C_LOST, C_REORDERED, C_DUPLICATED, C_JITTER, C_PEER_CPU_PROCESS,
	C_PEER_CPU_SYSTEM, C_FORGIVEN,
	C_WHERE, /* the places of linkstats.h, in enum ep_loss_place order */
};

static const char *const udp_counters[] = {
	"offered", "throughput_l2", "loss", "lost", "reordered", "duplicated", "jitter",
	"peer_cpu_process", "peer_cpu_system", "forgiven",
	/* where the lost datagrams went (EP_LOSS_* order) */
	"sender_socket_drops", "sender_qdisc_drops", "sender_nic_drops", "receiver_nic_drops",
	"receiver_socket_drops", "receiver_udp_errors", "receiver_no_port",
};

static const struct ep_param_desc udp_params[] = {
	{ "peer", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "HOST[:PORT] of the host running `embperf serve` (port 5301), or 'local' for a peer in "
	  "this process on 127.0.0.1" },
	{ "direction", EP_PT_ENUM, "tx", { { 0, 0 } }, "tx|rx", "",
	  "tx: this host sends, the peer receives (egress); rx: the peer sends (ingress)" },
	{ "size", EP_PT_SIZE, "1472", { { EP_WIRE_HEADER_BYTES, EP_WIRE_MAX_PAYLOAD_BYTES } }, NULL,
	  "bytes", "UDP payload of each datagram" },
	{ "frame", EP_PT_SIZE, "0", { { 0, EP_WIRE_MAX_PAYLOAD_BYTES + EP_WIRE_FRAME_OVERHEAD_BYTES } }, NULL, "bytes",
	  "Ethernet frame size instead of size: payload = frame - 46 (IPv4); at least 64" },
	{ "rate", EP_PT_RATE, "0", { { 0, INT64_C(400000000000) } }, NULL, "bit/s",
	  "offered payload rate; 0: as fast as the sender can (unpaced)" },
	{ "pps", EP_PT_INT, "0", { { 0, 1000000000 } }, NULL, "1/s",
	  "offered datagrams per second instead of rate" },
	{ "pacing", EP_PT_ENUM, "precise", { { 0, 0 } }, "precise|burst", "",
	  "precise: every datagram at its own time from the trial's start; burst: netperf's -b/-w, "
	  "'burst' datagrams every 'wait'" },
	{ "burst", EP_PT_INT, "0", { { 0, 1000000 } }, NULL, "",
	  "pacing=burst: datagrams per burst; 0: from rate, size and wait (rate/8/size x wait)" },
	{ "wait", EP_PT_DURATION, "10ms", { { 1000, 10000000000LL } }, NULL, "ns",
	  "pacing=burst: time between bursts (netperf -w)" },
	{ "batch", EP_PT_INT, "16", { { 1, EP_UDP_MAX_BATCH } }, NULL, "",
	  "most datagrams per sendmmsg() (unpaced, or catching up)" },
	{ "drop_every", EP_PT_INT, "0", { { 0, 1000000000 } }, NULL, "",
	  "test of the loss count: the receiver discards every Nth datagram; 0: none" },
	{ "echo_every", EP_PT_INT, "0", { { 0, 1000000000 } }, NULL, "",
	  "direction=tx: the peer sends back the header of every Nth datagram, and the round "
	  "trips give the rtt metric; 0: none" },
	{ "priority", EP_PT_INT, "0", { { 0, 99 } }, NULL, "",
	  "0: the caller's scheduling; 1..99: SCHED_FIFO at that priority for the sending (or "
	  "receiving) thread (needs CAP_SYS_NICE or RLIMIT_RTPRIO)" },
	{ "timeout", EP_PT_DURATION, "5s", { { 1000000, 600000000000LL } }, NULL, "ns",
	  "how long to wait for the peer: connecting, and each answer" },
};

static const struct ep_metric_desc udp_metrics[] = {
	[M_THROUGHPUT] = { "throughput", "Mbit/s", EP_METRIC_TRIAL_BITS, 1e6, EP_PRIMARY_MEDIAN, 1,
			   "UDP payload the receiver got / measured time (Mbit = 10^6 bits)" },
	[M_OFFERED] = { "offered", "Mbit/s", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 1,
			"UDP payload the sender sent / measured time" },
	[M_L2] = { "throughput_l2", "Mbit/s", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 1,
		   "Ethernet frames received (payload + 46 bytes: headers and FCS, without preamble "
		   "and gap) / measured time" },
	[M_KPPS] = { "kpps", "kPPS", EP_METRIC_TRIAL_OPS, 1e3, EP_PRIMARY_MEDIAN, 1,
		     "datagrams received per second / 1000" },
	[M_LOSS] = { "loss", "%", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0,
		     "datagrams lost / datagrams sent in the measured part" },
	[M_LOST] = { "lost", "datagrams", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0,
		     "datagrams sent and not received, per trial" },
	[M_REORDERED] = { "reordered", "datagrams", EP_METRIC_TRIAL_COUNTER, 1.0,
			  EP_PRIMARY_MEDIAN, 0,
			  "datagrams that came after one sent later (RFC 4737), per trial" },
	[M_DUPLICATED] = { "duplicated", "datagrams", EP_METRIC_TRIAL_COUNTER, 1.0,
			   EP_PRIMARY_MEDIAN, 0, "datagrams received more than once, per trial" },
	[M_JITTER] = { "jitter", "us", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0,
		       "RFC 3550 interarrival jitter at the end of the trial" },
	[M_RTT] = { "rtt", "us", EP_METRIC_TRIAL_LATENCY, 1000.0, EP_PRIMARY_MEDIAN, 0,
		    "round trip of the echoed datagrams (echo_every), under the stream's load; "
		    "percentiles of every echo" },
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_THIS_PROCESS_HELP),
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM("this host's CPU load, % of all CPUs (netperf's "
					      "LOCAL_CPU_UTIL, TI's /proc/stat method)"),
	[M_PEER_CPU_PROCESS] = EP_METRIC_PEER_CPU("peer_cpu_process", EP_PEER_CPU_PROCESS_HELP),
	[M_PEER_CPU_SYSTEM] = EP_METRIC_PEER_CPU("peer_cpu_system", EP_PEER_CPU_SYSTEM_HELP),
	[M_FORGIVEN] = { "forgiven", "datagrams", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN,
			 0, "tx: datagrams due that the pacer gave up on (sender over 100 ms "
			 "behind), per trial" },
};

/**
 * struct udp_stream - the kernel's state.
 * @flow:  the flow settings and the peer (udp_flow.h).
 * @priority: SCHED_FIFO priority of the trial's thread (0: none).
 * @label: the case's labels.
 */
struct udp_stream {
	struct ep_udp_flow flow;
	int priority;
	char label[160];
};

/** udp_before_trial() - before each trial (not timed): a new flow on the peer. */
static int udp_before_trial(void *arg, int index)
{
	struct udp_stream *st = arg;

	(void)index;
	return ep_udp_flow_begin(&st->flow);
}

/* The per-trial figures that are not plain tally counts. */
static void count_figures(const struct ep_udp_flow *f, struct ep_tally *ta,
			  const struct ep_udp_outcome *o)
{
	double secs = (double)ep_tally_elapsed_ns(ta) / 1e9;
	uint64_t lost = o->sent > o->received ? o->sent - o->received : 0;

	ep_tally_add_after(ta, o->received, o->received * f->size_bytes);
	if (secs <= 0.0)
		return;
	ep_tally_count_after(ta, C_OFFERED, (double)o->sent * f->size_bytes * 8.0 / secs / 1e6);
	ep_tally_count_after(ta, C_L2, (double)o->received * f->frame_bytes * 8.0 / secs / 1e6);
	ep_tally_count_after(ta, C_LOSS, o->sent ? 100.0 * (double)lost / (double)o->sent : NAN);
	ep_tally_count_after(ta, C_LOST, (double)lost);
	ep_tally_count_after(ta, C_REORDERED, (double)o->reordered);
	ep_tally_count_after(ta, C_DUPLICATED, (double)o->duplicated);
	ep_tally_count_after(ta, C_JITTER, o->jitter_ns / 1e3);
	ep_tally_count_after(ta, C_PEER_CPU_PROCESS, ep_netk_or_nan(o->peer.cpu_process_pct));
	ep_tally_count_after(ta, C_PEER_CPU_SYSTEM, ep_netk_or_nan(o->peer.cpu_system_pct));
	ep_tally_count_after(ta, C_FORGIVEN, (double)o->forgiven);
	for (int p = 0; p < EP_LOSS_PLACES; p++)
		ep_tally_count_after(ta, C_WHERE + p, o->where.read[p] ? (double)o->where.at[p] : NAN);
}

/**
 * udp_body() - one trial: send or receive until the engine's deadline, then
 * the report; at SCHED_FIFO with 'priority', so that other work on a busy
 * host does not hold the paced sender back (doc/methodology-net.md).
 */
static int udp_body(void *arg, struct ep_trial *t)
{
	struct udp_stream *st = arg;
	struct ep_udp_outcome o;
	struct ep_sched_saved saved;
	int rc = ep_sched_enter(st->priority, &saved);

	if (rc)
		return ep_run_fail(st->flow.run, rc, "parameter 'priority': value '%d': %s",
				   st->priority, strerror(-rc));
	rc = ep_udp_flow_run(&st->flow, t, &o);
	ep_sched_leave(&saved);
	if (!rc)
		count_figures(&st->flow, ep_trial_tally(t), &o);
	return rc;
}

/* size or frame; pps from rate or pps; burst from rate and wait. */
static int read_rates(struct ep_run *run, struct ep_udp_flow *st)
{
	int64_t frame = ep_param_int(run, "frame");
	int64_t rate = ep_param_int(run, "rate");
	int64_t pps = ep_param_int(run, "pps");

	if (frame && frame < 64)
		return ep_run_refuse(run, -EINVAL, "frame", ": accepted: 64 or more (an Ethernet "
				     "frame; 0: use size)");
	st->size_bytes = frame ? (uint32_t)(frame - EP_WIRE_FRAME_OVERHEAD_BYTES)
			       : (uint32_t)ep_param_int(run, "size");
	st->frame_bytes = st->size_bytes + EP_WIRE_FRAME_OVERHEAD_BYTES;
	if (rate && pps)
		return ep_run_fail(run, -EINVAL, "parameters 'rate' (%s) and 'pps' (%s): give one "
				   "of them", ep_param_text(run, "rate"), ep_param_text(run, "pps"));
	st->pps = pps ? (double)pps : (double)rate / (8.0 * st->size_bytes);
	st->pacing = (enum ep_pacing)ep_param_int(run, "pacing");
	st->wait_ns = (uint64_t)ep_param_int(run, "wait");
	st->burst = (uint32_t)ep_param_int(run, "burst");
	if (st->pacing == EP_PACING_BURST && !st->burst) {
		/* netperf's arithmetic (seeds/000): rate / 8 / size x wait. */
		st->burst = (uint32_t)llround(st->pps * (double)st->wait_ns / 1e9);
		if (!st->burst)
			return ep_run_fail(run, -EINVAL, "pacing=burst: parameter 'burst' is 0 and "
					   "rate %s with wait %s gives less than one datagram per "
					   "burst; give burst, or a higher rate",
					   ep_param_text(run, "rate"), ep_param_text(run, "wait"));
	}
	if (st->pacing == EP_PACING_BURST)
		st->pps = (double)st->burst * 1e9 / (double)st->wait_ns;
	else if (st->pps <= 0.0)
		st->pacing = EP_PACING_NONE;
	return 0;
}

static void make_label(struct ep_run *run, struct udp_stream *st)
{
	const struct ep_udp_flow *f = &st->flow;
	char rate[40];

	if (f->pacing == EP_PACING_NONE)
		snprintf(rate, sizeof(rate), "pacing=none");
	else if (f->pacing == EP_PACING_BURST)
		snprintf(rate, sizeof(rate), "burst=%u wait=%s", f->burst,
			 ep_param_text(run, "wait"));
	else
		snprintf(rate, sizeof(rate), "pps=%.0f", f->pps);
	snprintf(st->label, sizeof(st->label), "direction=%s frame=%u size=%u %s",
		 ep_param_text(run, "direction"), f->frame_bytes, f->size_bytes, rate);
}

/** udp_teardown() - close the data socket and the session (bye). */
static void udp_teardown(void *state)
{
	struct udp_stream *st = state;

	ep_udp_flow_close(&st->flow);
}

/** udp_setup() - read the parameters, connect to the peer, add the trial case. */
static int udp_setup(struct ep_run *run, void **state)
{
	struct udp_stream *st = *state;
	struct ep_udp_flow *f = &st->flow;
	struct ep_trial_case tc = {
		.body = udp_body,
		.before_trial = udp_before_trial,
		.counters = udp_counters,
		.n_counters = (int)EP_ARRAY_SIZE(udp_counters),
	};
	int rc;

	f->data_fd = -1;
	f->peer.fd = -1;
	f->tx = ep_param_int(run, "direction") == 0;
	f->batch = (uint32_t)ep_param_int(run, "batch");
	f->drop_every = (uint32_t)ep_param_int(run, "drop_every");
	f->echo_every = (uint32_t)ep_param_int(run, "echo_every");
	if (f->echo_every && !f->tx)
		return ep_run_refuse(run, -EINVAL, "echo_every", ": the peer echoes only what "
				     "this host sends; accepted: direction=tx");
	/* The peer stops a flow by itself a little after ramp + duration. */
	f->flow_cap_ns = ep_netk_flow_cap_ns(run);
	st->priority = (int)ep_param_int(run, "priority");
	rc = ep_sched_check(run, st->priority);
	if (!rc)
		rc = read_rates(run, f);
	if (!rc)
		rc = ep_udp_flow_connect(f, run, "net.udp.stream");
	if (!rc && f->pacing != EP_PACING_NONE)
		rc = ep_udp_flow_check_rate(f, f->pps);
	if (rc)
		return rc;
	make_label(run, st);
	tc.labels = st->label;
	tc.arg = st;
	return ep_run_add_trial(run, &tc);
}

const struct ep_kernel ep_kernel_net_udp_stream = {
	.name = "net.udp.stream",
	.summary = "paced UDP stream to or from an embperf peer: Mbit/s, kPPS, loss, jitter, CPU "
		   "load on both ends",
	EP_PARAMS(udp_params),
	EP_METRICS(udp_metrics),
	.engine_defaults = ep_net_defaults,
	.setup = udp_setup,
	.teardown = udp_teardown,
	.state_bytes = sizeof(struct udp_stream),
	.trials = 1,
};
