// SPDX-License-Identifier: MIT
/*
 * net_udp_stream.c - net.udp.stream: paced UDP datagrams between this host
 * and an embperf peer, one flow per trial; netperf's UDP_STREAM and its
 * -b/-w pacing, with loss, reordering, duplicates and RFC 3550 jitter
 * counted by the receiver, and CPU load on both ends
 * (doc/methodology-net.md).
 *
 * direction=tx: this host sends, the peer receives and reports what it
 * counted (exact loss: this side knows how many it sent). direction=rx:
 * the peer sends, this host counts the datagrams of its measured part
 * (loss from the sequence numbers of the first and last seen, RFC 3550
 * A.3). Each trial has its own flow id; a ramp's datagrams travel but are
 * not counted.
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "client.h"
#include "lib/core/kernel.h"
#include "linkspeed.h"
#include "pace.h"
#include "udp_io.h"
#include "lib/core/util.h"
#include "wire.h"

enum {
	M_THROUGHPUT, M_OFFERED, M_L2, M_KPPS, M_LOSS, M_LOST, M_REORDERED, M_DUPLICATED,
	M_JITTER, M_CPU_PROCESS, M_CPU_SYSTEM, M_PEER_CPU_PROCESS, M_PEER_CPU_SYSTEM,
};

/* The kernel's counters: each a per-trial figure (metric of the same name). */
enum {
	C_OFFERED, C_L2, C_LOSS, C_LOST, C_REORDERED, C_DUPLICATED, C_JITTER, C_PEER_CPU_PROCESS,
	C_PEER_CPU_SYSTEM,
};

static const char *const udp_counters[] = {
	"offered", "throughput_l2", "loss", "lost", "reordered", "duplicated", "jitter",
	"peer_cpu_process", "peer_cpu_system",
};

static const struct ep_param_desc udp_params[] = {
	{ "peer", EP_PT_STRING, "", 0, 0, 0, 0, NULL, "",
	  "HOST[:PORT] of the host running `embperf serve` (port 5301), or 'local' for a peer in "
	  "this process on 127.0.0.1" },
	{ "direction", EP_PT_ENUM, "tx", 0, 0, 0, 0, "tx|rx", "",
	  "tx: this host sends, the peer receives (egress); rx: the peer sends (ingress)" },
	{ "size", EP_PT_SIZE, "1472", EP_WIRE_HEADER_BYTES, EP_WIRE_MAX_PAYLOAD_BYTES, 0, 0, NULL,
	  "bytes", "UDP payload of each datagram" },
	{ "frame", EP_PT_SIZE, "0", 0, EP_WIRE_MAX_PAYLOAD_BYTES + EP_WIRE_FRAME_OVERHEAD_BYTES, 0,
	  0, NULL, "bytes",
	  "Ethernet frame size instead of size: payload = frame - 46 (IPv4); at least 64" },
	{ "rate", EP_PT_RATE, "0", 0, INT64_C(400000000000), 0, 0, NULL, "bit/s",
	  "offered payload rate; 0: as fast as the sender can (unpaced)" },
	{ "pps", EP_PT_INT, "0", 0, 1000000000, 0, 0, NULL, "1/s",
	  "offered datagrams per second instead of rate" },
	{ "pacing", EP_PT_ENUM, "precise", 0, 0, 0, 0, "precise|burst", "",
	  "precise: every datagram at its own time from the trial's start; burst: netperf's -b/-w, "
	  "'burst' datagrams every 'wait'" },
	{ "burst", EP_PT_INT, "0", 0, 1000000, 0, 0, NULL, "",
	  "pacing=burst: datagrams per burst; 0: from rate, size and wait (rate/8/size x wait)" },
	{ "wait", EP_PT_DURATION, "10ms", 1000, 10000000000LL, 0, 0, NULL, "ns",
	  "pacing=burst: time between bursts (netperf -w)" },
	{ "batch", EP_PT_INT, "16", 1, EP_UDP_MAX_BATCH, 0, 0, NULL, "",
	  "most datagrams per sendmmsg() (unpaced, or catching up)" },
	{ "drop_every", EP_PT_INT, "0", 0, 1000000000, 0, 0, NULL, "",
	  "test of the loss count: the receiver discards every Nth datagram; 0: none" },
	{ "timeout", EP_PT_DURATION, "5s", 1000000, 600000000000LL, 0, 0, NULL, "ns",
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
	[M_CPU_PROCESS] = { "cpu_process", "%", EP_METRIC_TRIAL_CPU_PROCESS, 1.0,
			    EP_PRIMARY_MEDIAN, 0, "this process's CPU load, % of one CPU" },
	[M_CPU_SYSTEM] = { "cpu_system", "%", EP_METRIC_TRIAL_CPU_SYSTEM, 1.0, EP_PRIMARY_MEDIAN, 0,
			   "this host's CPU load, % of all CPUs (netperf's LOCAL_CPU_UTIL, TI's "
			   "/proc/stat method)" },
	[M_PEER_CPU_PROCESS] = { "peer_cpu_process", "%", EP_METRIC_TRIAL_COUNTER, 1.0,
				 EP_PRIMARY_MEDIAN, 0,
				 "the peer process's CPU load over the flow, % of one CPU" },
	[M_PEER_CPU_SYSTEM] = { "peer_cpu_system", "%", EP_METRIC_TRIAL_COUNTER, 1.0,
				EP_PRIMARY_MEDIAN, 0,
				"the peer host's CPU load over the flow, % of all CPUs "
				"(netperf's REMOTE_CPU_UTIL)" },
};

/**
 * struct udp_stream - the kernel's state.
 * @tx:          direction=tx.
 * @size_bytes:  UDP payload.
 * @frame_bytes: the Ethernet frame it makes.
 * @pps:         offered datagrams/s (0: unpaced).
 * @data_fd:     the trial's data socket (-1 between trials).
 * @req:         the running trial's request (flow id).
 */
struct udp_stream {
	struct ep_run *run;
	struct ep_peer_conn peer;
	int tx;
	uint32_t size_bytes;
	uint32_t frame_bytes;
	double pps;
	enum ep_pacing pacing;
	uint32_t burst;
	uint64_t wait_ns;
	uint32_t batch;
	uint32_t drop_every;
	uint64_t flow_cap_ns;
	int data_fd;
	struct ep_start req;
	char label[160];
};

static void close_data(struct udp_stream *st)
{
	if (st->data_fd >= 0)
		close(st->data_fd);
	st->data_fd = -1;
}

static int fail_peer(struct udp_stream *st, int rc, const char *err)
{
	close_data(st);
	return ep_run_fail(st->run, rc, "net.udp.stream: %s", err);
}

/* tx: a socket connected to the peer's data port. */
static int open_tx_socket(struct udp_stream *st, uint16_t port)
{
	struct sockaddr_storage a = st->peer.addr;
	int fd = ep_udp_socket(a.ss_family, 1);

	if (fd < 0)
		return fd;
	ep_addr_set_port(&a, port);
	if (connect(fd, (struct sockaddr *)&a, st->peer.addr_len)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	st->data_fd = fd;
	return 0;
}

/* rx: a socket on this side's control address, any port; its port into *@port. */
static int open_rx_socket(struct udp_stream *st, uint16_t *port)
{
	struct sockaddr_storage a = st->peer.local;
	socklen_t len = st->peer.local_len;
	int fd = ep_udp_socket(a.ss_family, 1);

	if (fd < 0)
		return fd;
	ep_addr_set_port(&a, 0);
	if (bind(fd, (struct sockaddr *)&a, len) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	st->data_fd = fd;
	*port = ep_addr_port(&a);
	return 0;
}

static void fill_request(struct udp_stream *st)
{
	memset(&st->req, 0, sizeof(st->req));
	st->req.test = st->tx ? EP_TEST_UDP_SINK : EP_TEST_UDP_SOURCE;
	st->req.size_bytes = st->size_bytes;
	st->req.rate_bps = st->pps * st->size_bytes * 8.0;
	st->req.pacing = st->pacing;
	st->req.burst = st->burst;
	st->req.wait_ns = st->wait_ns;
	st->req.batch = st->batch;
	st->req.duration_ns = st->flow_cap_ns;
	st->req.drop_every = st->tx ? st->drop_every : 0;
}

/**
 * udp_before_trial() - before each trial (not timed): a new flow. tx: the
 * peer opens a sink and says its port; rx: this side opens its socket and
 * the peer starts sending to it.
 */
static int udp_before_trial(void *arg, int index)
{
	struct udp_stream *st = arg;
	char err[320];
	uint16_t port = 0;
	int rc;

	(void)index;
	close_data(st);
	fill_request(st);
	if (!st->tx) {
		rc = open_rx_socket(st, &st->req.port);
		if (rc)
			return ep_run_fail(st->run, rc, "net.udp.stream: data socket: %s", strerror(-rc));
	}
	rc = ep_peer_start(&st->peer, &st->req, &port, err, sizeof(err));
	if (rc)
		return fail_peer(st, rc, err);
	if (st->tx) {
		rc = open_tx_socket(st, port);
		if (rc)
			return ep_run_fail(st->run, rc, "net.udp.stream: data socket to %s port %u: %s",
					   st->peer.name, port, strerror(-rc));
	}
	return 0;
}

/* The control connection has something to say mid-trial: the peer left or refused. */
static int peer_gone(const struct udp_stream *st)
{
	struct pollfd p = { .fd = st->peer.fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

static double or_nan(double pct)
{
	return pct < 0.0 ? NAN : pct;
}

/* The per-trial figures that are not plain tally counts. */
static void count_figures(struct udp_stream *st, struct ep_tally *ta, uint64_t sent,
			  uint64_t received, uint64_t reordered, uint64_t duplicated,
			  double jitter_ns, const struct ep_report *r)
{
	double secs = (double)ep_tally_elapsed_ns(ta) / 1e9;
	uint64_t lost = sent > received ? sent - received : 0;

	ep_tally_add_after(ta, received, received * st->size_bytes);
	if (secs <= 0.0)
		return;
	ep_tally_count_after(ta, C_OFFERED, (double)sent * st->size_bytes * 8.0 / secs / 1e6);
	ep_tally_count_after(ta, C_L2, (double)received * st->frame_bytes * 8.0 / secs / 1e6);
	ep_tally_count_after(ta, C_LOSS, sent ? 100.0 * (double)lost / (double)sent : NAN);
	ep_tally_count_after(ta, C_LOST, (double)lost);
	ep_tally_count_after(ta, C_REORDERED, (double)reordered);
	ep_tally_count_after(ta, C_DUPLICATED, (double)duplicated);
	ep_tally_count_after(ta, C_JITTER, jitter_ns / 1e3);
	ep_tally_count_after(ta, C_PEER_CPU_PROCESS, or_nan(r->cpu_process_pct));
	ep_tally_count_after(ta, C_PEER_CPU_SYSTEM, or_nan(r->cpu_system_pct));
}

static int body_tx(struct udp_stream *st, struct ep_trial *t)
{
	struct ep_udp_tx tx;
	struct ep_pacer pacer;
	struct ep_report r;
	char err[320];
	uint64_t checked_ns = ep_now_ns();
	int rc = ep_udp_tx_init(&tx, st->data_fd, st->size_bytes, st->req.flow);

	if (rc)
		return rc;
	ep_pacer_init(&pacer, st->pacing, st->pps, st->burst, st->wait_ns, st->batch, ep_now_ns());
	while (ep_trial_running(t)) {
		uint32_t n = ep_pacer_next(&pacer, ep_trial_end_ns(t));

		if (n)
			ep_pacer_sent(&pacer, ep_udp_tx_send(&tx, n, ep_trial_start_ns(t) != 0));
		if (ep_now_ns() - checked_ns > 50000000) {
			checked_ns = ep_now_ns();
			if (peer_gone(st))
				break;
		}
	}
	close_data(st);
	ep_udp_tx_free(&tx);
	rc = ep_peer_stop(&st->peer, st->req.flow, tx.sent, &r, err, sizeof(err));
	if (rc)
		return fail_peer(st, rc, err);
	count_figures(st, ep_trial_tally(t), tx.sent, r.received, r.reordered, r.duplicated,
		      r.jitter_ns, &r);
	return 0;
}

static int body_rx(struct udp_stream *st, struct ep_trial *t)
{
	struct ep_udp_rx rx;
	struct ep_report r;
	char err[320];
	int rc = ep_udp_rx_init(&rx, st->data_fd, st->req.flow, st->size_bytes);

	if (rc)
		return rc;
	memcpy(&rx.from, &st->peer.addr, sizeof(rx.from));
	rx.from_len = st->peer.addr_len;
	rx.drop_every = st->drop_every;
	while (ep_trial_running(t)) {
		rc = ep_udp_rx_poll(&rx, 5, ep_trial_start_ns(t) != 0);
		if (rc < 0 || (rc == 0 && peer_gone(st)))
			break;
	}
	close_data(st);
	rc = ep_peer_stop(&st->peer, st->req.flow, 0, &r, err, sizeof(err));
	if (!rc)
		count_figures(st, ep_trial_tally(t), ep_seq_expected(rx.count),
			      rx.count->received, rx.count->reordered, rx.count->duplicated,
			      rx.count->jitter_ns, &r);
	ep_udp_rx_free(&rx);
	return rc ? fail_peer(st, rc, err) : 0;
}

/** udp_body() - one trial: send or receive until the engine's deadline, then the report. */
static int udp_body(void *arg, struct ep_trial *t)
{
	struct udp_stream *st = arg;
	int slack_ns = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
	int rc;

	/* A sleeping sender wakes late by the timer slack (50 us by default);
	 * the caller's thread gets its own back. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	rc = st->tx ? body_tx(st, t) : body_rx(st, t);
	if (slack_ns > 0)
		(void)prctl(PR_SET_TIMERSLACK, (unsigned long)slack_ns, 0UL, 0UL, 0UL);
	return rc;
}

/* size or frame; pps from rate or pps; burst from rate and wait. */
static int read_rates(struct ep_run *run, struct udp_stream *st)
{
	int64_t frame = ep_param_int(run, "frame");
	int64_t rate = ep_param_int(run, "rate");
	int64_t pps = ep_param_int(run, "pps");

	if (frame && frame < 64)
		return ep_run_fail(run, -EINVAL, "parameter 'frame': value '%s': accepted: 64 or "
				   "more (an Ethernet frame; 0: use size)",
				   ep_param_text(run, "frame"));
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

/* The offered rate against the peer's limit and the link's speed. */
static int check_rate(struct ep_run *run, struct udp_stream *st)
{
	double l2_bps = st->pps * (st->frame_bytes + EP_WIRE_GAP_BYTES) * 8.0;
	double payload_bps = st->pps * st->size_bytes * 8.0;
	int64_t link_bps = ep_link_speed_bps(&st->peer.local);

	if (payload_bps > st->peer.welcome.max_rate_bps)
		return ep_run_fail(run, -ERANGE, "parameter 'rate': %.0f bit/s is above the limit of "
				   "peer %s (%.0f bit/s; `embperf serve --max-rate`)", payload_bps,
				   st->peer.name, st->peer.welcome.max_rate_bps);
	if (st->size_bytes > st->peer.welcome.max_size_bytes)
		return ep_run_fail(run, -ERANGE, "parameter 'size': %u bytes is above the limit of "
				   "peer %s (%u bytes)", st->size_bytes, st->peer.name,
				   st->peer.welcome.max_size_bytes);
	if (link_bps > 0 && l2_bps > (double)link_bps)
		return ep_run_fail(run, -ERANGE, "parameter 'rate': %.0f datagrams/s of %u bytes take "
				   "%.0f bit/s on the wire (frames + preamble and gap); the link "
				   "to peer %s runs at %lld bit/s", st->pps, st->size_bytes, l2_bps,
				   st->peer.name, (long long)link_bps);
	return 0;
}

static int connect_peer(struct ep_run *run, struct udp_stream *st)
{
	const char *peer = ep_param_text(run, "peer");
	char err[320];
	int rc;

	if (!peer[0])
		return ep_run_fail(run, -EINVAL, "parameter 'peer': not set; accepted: HOST[:PORT] of "
				   "a host running `embperf serve`, or 'local' (a peer in this "
				   "process, on 127.0.0.1)");
	rc = ep_peer_open(&st->peer, peer, (uint64_t)ep_param_int(run, "timeout"), err,
			  sizeof(err));
	return rc ? ep_run_fail(run, rc, "net.udp.stream: %s", err) : 0;
}

static void make_label(struct ep_run *run, struct udp_stream *st)
{
	char rate[40];

	if (st->pacing == EP_PACING_NONE)
		snprintf(rate, sizeof(rate), "unpaced");
	else if (st->pacing == EP_PACING_BURST)
		snprintf(rate, sizeof(rate), "burst=%u wait=%s", st->burst,
			 ep_param_text(run, "wait"));
	else
		snprintf(rate, sizeof(rate), "pps=%.0f", st->pps);
	snprintf(st->label, sizeof(st->label), "direction=%s frame=%u size=%u %s",
		 ep_param_text(run, "direction"), st->frame_bytes, st->size_bytes, rate);
}

/** udp_teardown() - close the data socket and the session (bye). */
static void udp_teardown(void *state)
{
	struct udp_stream *st = state;

	if (!st)
		return;
	close_data(st);
	ep_peer_close(&st->peer);
	free(st);
}

/** udp_setup() - read the parameters, connect to the peer, add the trial case. */
static int udp_setup(struct ep_run *run, void **state)
{
	struct udp_stream *st = calloc(1, sizeof(*st));
	struct ep_trial_case tc = {
		.body = udp_body,
		.before_trial = udp_before_trial,
		.counters = udp_counters,
		.n_counters = (int)EP_ARRAY_SIZE(udp_counters),
	};
	int rc;

	if (!st)
		return -ENOMEM;
	st->data_fd = -1;
	st->peer.fd = -1;
	st->run = run;
	*state = st;
	st->tx = ep_param_int(run, "direction") == 0;
	st->batch = (uint32_t)ep_param_int(run, "batch");
	st->drop_every = (uint32_t)ep_param_int(run, "drop_every");
	/* The peer stops a flow by itself a little after ramp + duration. */
	st->flow_cap_ns = (uint64_t)ep_param_int(run, "ramp") +
			  (uint64_t)ep_param_int(run, "duration") + 2000000000ULL;
	rc = read_rates(run, st);
	if (!rc)
		rc = connect_peer(run, st);
	if (!rc)
		rc = check_rate(run, st);
	if (rc)
		return rc;
	make_label(run, st);
	tc.labels = st->label;
	tc.arg = st;
	return ep_run_add_trial(run, &tc);
}

static const struct ep_default udp_defaults[] = {
	{ "duration", "2s" },
	{ "ramp", "100ms" },
	{ "settle", "100ms" },
	{ "repetitions", "3" },
	{ NULL, NULL },
};

const struct ep_kernel ep_kernel_net_udp_stream = {
	.name = "net.udp.stream",
	.summary = "paced UDP stream to or from an embperf peer: Mbit/s, kPPS, loss, jitter, CPU "
		   "load on both ends",
	.params = udp_params,
	.n_params = (int)EP_ARRAY_SIZE(udp_params),
	.metrics = udp_metrics,
	.n_metrics = (int)EP_ARRAY_SIZE(udp_metrics),
	.engine_defaults = udp_defaults,
	.setup = udp_setup,
	.teardown = udp_teardown,
	.trials = 1,
};
