// SPDX-License-Identifier: MIT
/*
 * net_rfc2544.c - net.udp.rfc2544: RFC 2544's benchmarks on the UDP
 * generator, per frame size, each a search of the engine over trials of
 * one flow (udp_flow.c), every trial logged (doc/methodology-net.md,
 * "RFC 2544").
 *
 *   throughput     §26.1: the engine's rate search (ep_rate_search_next())
 *                  for the highest offered rate whose loss is within
 *                  loss_tolerance (0: none).
 *   latency        §26.2: the throughput search, then trials at the rate it
 *                  found with every tag_every-th frame echoed by the peer:
 *                  the round trips' distribution.
 *   loss           §26.3: from 100 % of the top rate down in steps of 10 %
 *                  until two successive trials lose nothing; the loss curve
 *                  is the trial log.
 *   back-to-back   §26.4: binary search over the length of a burst sent at
 *                  full speed for the longest one without loss.
 *
 * layer=l2 sends and counts raw Ethernet frames of exactly the frame size
 * instead of UDP datagrams (l2.h), with the same flows, pacing and searches.
 *
 * The top rate is `rate` (the line rate, frames + preamble and gap), else
 * the link's speed when the interface tells it, else the rate a first
 * unpaced trial achieves (TRex's NDR search starts the same way).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kclient.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/search.h"
#include "lib/core/result.h"
#include "lib/core/util.h"
#include "linkspeed.h"
#include "linkstats.h"
#include "l2.h"
#include "udp_flow.h"
#include "wire.h"

#define MAX_FRAMES 16
/*
 * A trial's sender behind its schedule may catch up 20 ms' worth at once.
 * On a loaded machine its sleeps end on the scheduler tick (4 ms at HZ=250)
 * or tens of ms late (63 ms at load 16): with the pacer's default (a tenth
 * of a millisecond's worth per wake-up) it offered 50-60 % of the rate asked
 * at 1600 frames/s, load 14, and the search stopped there. The search
 * judges the average offered rate; what a stall owes arrives as a burst of
 * that much more, which the link's buffers take or not whatever the depth
 * (doc/methodology-net.md, "RFC 2544").
 */
#define CATCH_UP_MS 20.0
/*
 * A trial that lost frames after its sender stalled this long (sent nothing
 * though frames were due) says nothing about the link: what the stall owed
 * went out as a burst (stalls of 100-550 ms at load 18 made 2-8 % loss
 * below the shaped rate). The search does not count it as a failure and
 * runs the rate again, once: a rerun that fails counts (at load 21, stalls
 * over 10 ms came in most trials and excused every failure just above the
 * shaped rate).
 */
#define STALL_MS 10.0
/* ...when it still offered this share of the rate asked: it repaid the
 * stall (a sender at its limit is preempted too, but never repays); and
 * when it lost no more than the stall owed (a rate above the link's loses
 * more in a trial of seconds). */
#define STALL_RATE 0.8
/* The most trials of one search (parameter max_trials). */
#define MAX_CASE_TRIALS 200

enum test_kind { T_THROUGHPUT, T_LATENCY, T_LOSS, T_BACK_TO_BACK };

enum {
	M_RATE, M_NO_LOSS, M_BURST, M_PAYLOAD, M_L2, M_KPPS, M_LOSS, M_LATENCY, M_CPU_PROCESS,
	M_CPU_SYSTEM, M_PEER_CPU_SYSTEM,
};

enum {
	C_L2, C_LOSS, C_SENT, C_LOST, C_PEER_CPU_SYSTEM, C_BYTES_EACH,
	C_WHERE, /* the places of linkstats.h, in enum ep_loss_place order */
	C_STALL = C_WHERE + EP_LOSS_PLACES,
};

static const char *const rfc_counters[] = {
	"throughput_l2", "loss", "sent", "lost", "peer_cpu_system",
	/* bytes the receiver counted per packet: UDP payload, l2 the frame without FCS */
	"received_bytes_each",
	/* where the lost datagrams went (EP_LOSS_* order) */
	"sender_socket_drops", "sender_qdisc_drops", "sender_nic_drops", "receiver_nic_drops",
	"receiver_socket_drops", "receiver_udp_errors", "receiver_no_port",
	"sender_stall_ms",
};

static const struct ep_param_desc rfc_params[] = {
	{ "peer", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "HOST[:PORT] of the host running `embperf serve`, or 'local' (127.0.0.1, this process)" },
	{ "direction", EP_PT_ENUM, "tx", { { 0, 0 } }, "tx|rx", "",
	  "tx: this host sends, the peer receives; rx: the peer sends" },
	{ "layer", EP_PT_ENUM, "l4", { { 0, 0 } }, "l4|l2", "",
	  "l4: UDP datagrams; l2: raw Ethernet frames of the exact frame size (libpcap, "
	  "CAP_NET_RAW, an IPv4 peer on this Ethernet segment)" },
	{ "test", EP_PT_ENUM, "throughput", { { 0, 0 } }, "throughput|latency|loss|back-to-back", "",
	  "RFC 2544 §26.1 throughput, §26.2 latency, §26.3 frame loss rate, §26.4 back-to-back" },
	{ "frame", EP_PT_STRING, "64,128,256,512,1024,1280,1518", { { 0, 0 } }, NULL, "bytes",
	  "Ethernet frame sizes, comma-separated (64..1518; UDP payload = frame - 46)" },
	{ "rate", EP_PT_RATE, "0", { { 0, INT64_C(400000000000) } }, NULL, "bit/s",
	  "the top of the search: the line rate (frames with preamble and gap); 0: the link's "
	  "speed, or what a first unpaced trial achieves" },
	{ "loss_tolerance", EP_PT_DOUBLE, "0", { .dmin = 0, .dmax = 100 }, NULL, "%",
	  "a trial passes with at most this loss (0: RFC 2544; above 0: a partial drop rate, as "
	  "TRex's PDR)" },
	{ "resolution", EP_PT_DOUBLE, "0.5", { .dmin = 0.001, .dmax = 50 }, NULL, "%",
	  "the search stops when its interval is below this share of the highest rate that "
	  "passed" },
	{ "confirm", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",
	  "1: end a throughput search only with a failing trial within the resolution above the "
	  "rate found (one trial more); 0: also when the rate found is within the resolution "
	  "below what a trial just above the bottleneck delivered" },
	{ "max_trials", EP_PT_INT, "20", { { 1, MAX_CASE_TRIALS } }, NULL, "", "the most trials per frame size" },
	{ "tag_every", EP_PT_INT, "100", { { 1, 1000000 } }, NULL, "",
	  "test=latency: the peer echoes every Nth frame; their round trips are the latency" },
	{ "batch", EP_PT_INT, "16", { { 1, 64 } }, NULL, "", "most datagrams per sendmmsg()" },
	{ "timeout", EP_PT_DURATION, "5s", { { 1000000, 600000000000LL } }, NULL, "ns",
	  "how long to wait for the peer: connecting, and each answer" },
};

static const struct ep_metric_desc rfc_metrics[] = {
	[M_RATE] = { "throughput", "frames/s", EP_METRIC_SEARCH, 1.0, EP_PRIMARY_MEDIAN, 1,
		     "§26.1: the highest offered rate whose loss was within loss_tolerance" },
	[M_NO_LOSS] = { "no_loss", "%", EP_METRIC_SEARCH, 1.0, EP_PRIMARY_MEDIAN, 1,
			"§26.3: the higher of the first two successive trials without loss, in % "
			"of the top rate; the trial log is the loss curve" },
	[M_BURST] = { "back_to_back", "frames", EP_METRIC_SEARCH, 1.0, EP_PRIMARY_MEDIAN, 1,
		      "§26.4: the longest burst at full speed that lost nothing" },
	[M_PAYLOAD] = { "throughput_payload", "Mbit/s", EP_METRIC_TRIAL_BITS, 1e6,
			EP_PRIMARY_MEDIAN, 1,
			"UDP payload (l2: Ethernet payload, frame - 18) received / time, in the trial "
			"the search kept (Mbit = 10^6)" },
	[M_L2] = { "throughput_l2", "Mbit/s", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 1,
		   "Ethernet frames received (with FCS, without preamble and gap) / time" },
	[M_KPPS] = { "kpps", "kPPS", EP_METRIC_TRIAL_OPS, 1e3, EP_PRIMARY_MEDIAN, 1,
		     "frames received per second / 1000" },
	[M_LOSS] = { "loss", "%", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0,
		     "frames lost / frames sent" },
	[M_LATENCY] = { "latency", "us", EP_METRIC_TRIAL_LATENCY, 1000.0, EP_PRIMARY_MEDIAN, 0,
			"§26.2: round trip of the tagged frames at the throughput rate" },
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_THIS_PROCESS_HELP),
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM("this host's CPU load, % of all CPUs"),
	[M_PEER_CPU_SYSTEM] = EP_METRIC_PEER_CPU("peer_cpu_system",
						 "the peer host's CPU load, % of all CPUs"),
};

struct rfc_state;

/**
 * struct rfc_case - one frame size (and, for test=latency, one step).
 * @st:        the kernel's state.
 * @flow:      the flow settings and the peer, shared by every case.
 * @frame:     the Ethernet frame size.
 * @top_fps:   the search's top in frames/s; 0 until known.
 * @bs:        the binary search (back-to-back).
 * @rs:        the rate search (throughput).
 * @latency:   the latency step of test=latency (rate from @rate_case).
 * @rate_case: the throughput case whose found rate the latency step uses.
 * @config:    the configuration of the trial about to run.
 * @sender_limited: a trial passed at a rate well below the one asked: the
 *             sender, not the path, is the limit, and searching higher is
 *             pointless.
 * @label:     the case's labels.
 * @stall_ms:  the last trial's sender stall that was repaid as a burst (it
 *             offered at least STALL_RATE of the rate asked), else 0.
 * @judged:    trials judged so far.
 * @stalled:   per trial: it failed after its sender stalled (STALL_MS); the
 *             search does not count it.
 */
struct rfc_case {
	struct rfc_state *st;
	uint32_t frame;
	double top_fps;
	struct ep_bsearch bs;
	struct ep_rate_search rs;
	struct ep_search search;
	int latency;
	struct rfc_case *rate_case;
	double config;
	int sender_limited;
	char label[96];
	double stall_ms;
	int judged;
	unsigned char stalled[MAX_CASE_TRIALS];
};

struct rfc_state {
	struct ep_run *run;
	struct ep_udp_flow flow;
	enum test_kind test;
	double tolerance_pct;
	double resolution;
	int max_trials;
	int confirm;
	uint32_t tag_every;
	int n_cases;
	struct rfc_case cases[2 * MAX_FRAMES];
};

/* The frame sizes of parameter 'frame'. Return: how many, or a negative errno. */
static int parse_frames(struct ep_run *run, uint32_t *frames)
{
	const char *text = ep_param_text(run, "frame");
	int n = 0;

	for (const char *p = text; *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v < 64 || v > 1518 || (*end && *end != ',') || n == MAX_FRAMES)
			return ep_run_refuse(run, -EINVAL, "frame", ": accepted: up to %d "
					     "Ethernet frame sizes from 64 to 1518, "
					     "comma-separated", MAX_FRAMES);
		frames[n++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	if (!n)
		return ep_run_fail(run, -EINVAL, "parameter 'frame': no frame size given");
	return n;
}

/* Frames per second the line carries at @frame bytes, from 'rate' or the link. */
static double line_fps(const struct rfc_state *st, uint32_t frame)
{
	double bps = (double)ep_param_int(st->run, "rate");

	if (bps <= 0.0)
		bps = (double)ep_link_speed_bps(&st->flow.peer.local);
	return bps > 0.0 ? bps / ((frame + EP_WIRE_GAP_BYTES) * 8.0) : 0.0;
}

/* Set the flow for a trial of case @c at configuration @config. */
static void configure(struct rfc_case *c, double config)
{
	struct ep_udp_flow *f = &c->st->flow;

	c->config = config;
	f->size_bytes = c->frame - (f->l2 ? EP_L2_FCS_BYTES : EP_WIRE_FRAME_OVERHEAD_BYTES);
	f->frame_bytes = c->frame;
	f->count = 0;
	f->echo_every = c->latency ? c->st->tag_every : 0;
	f->pacing = EP_PACING_PRECISE;
	f->catch_up_ms = CATCH_UP_MS;
	switch (c->st->test) {
	case T_BACK_TO_BACK:
		f->pacing = EP_PACING_NONE;
		f->count = (uint64_t)config;
		f->idle_ramp = 1; /* the burst starts from an idle link */
		break;
	case T_LOSS:
		f->pps = c->top_fps * config / 100.0;
		if (!c->top_fps)
			f->pacing = EP_PACING_NONE;
		break;
	default:
		f->pps = config;
		if (config <= 0.0)
			f->pacing = EP_PACING_NONE;
	}
}

/* --- the searches --------------------------------------------------------- */

/* Before the top is known, the first trial runs unpaced and says what it achieved. */
static int learn_top(struct rfc_case *c, const struct ep_trial_row *log, size_t n)
{
	if (c->top_fps > 0.0)
		return 0;
	if (n == 0)
		return 1;
	c->top_fps = log[0].config;
	return 0;
}

static int rate_next(void *arg, const struct ep_trial_row *log, size_t n, double *config)
{
	struct rfc_case *c = arg;
	int rc;

	if (learn_top(c, log, n)) {
		*config = 0.0; /* unpaced: the trial sets the rate it achieved */
		configure(c, *config);
		return 1;
	}
	if (c->sender_limited) {
		ep_run_log(c->st->run, EMBPERF_LOG_INFO, "net.udp.rfc2544 [%s]: a trial passed at "
			   "%.0f frames/s, well below the %.0f asked: the sender is the limit, the "
			   "search stops", c->label, log[n - 1].config, c->config);
		return 0;
	}
	if (n && n < (size_t)c->st->max_trials && c->stalled[n - 1]) {
		*config = c->config; /* the stalled trial's rate, once more */
		rc = 1;
	} else {
		c->rs.top = c->top_fps;
		rc = ep_rate_search_next(&c->rs, log, n, config);
	}
	if (rc == 1)
		configure(c, *config);
	return rc;
}

/* §26.3: 100 %, 90 %, ... until two successive trials lose nothing. */
static int loss_next(void *arg, const struct ep_trial_row *log, size_t n, double *config)
{
	struct rfc_case *c = arg;

	if (n >= 2 && log[n - 1].pass && log[n - 2].pass)
		return 0;
	if (n >= (size_t)c->st->max_trials)
		return 0;
	*config = 100.0 - 10.0 * (double)n;
	if (*config < 10.0)
		return 0;
	configure(c, *config);
	return 1;
}

static int loss_found(void *arg, const struct ep_trial_row *log, size_t n, double *value)
{
	(void)arg;
	if (n < 2 || !log[n - 1].pass || !log[n - 2].pass)
		return -ENOENT;
	*value = log[n - 2].config;
	return 0;
}

static int burst_next(void *arg, const struct ep_trial_row *log, size_t n, double *config)
{
	struct rfc_case *c = arg;
	int rc = ep_bsearch_next(&c->bs, log, n, config);

	if (rc == 1) {
		*config = floor(*config);
		configure(c, *config);
	}
	return rc;
}

static int judge(void *arg, const struct ep_tally *tally, double config, double *outcome,
		 int *pass)
{
	struct rfc_case *c = arg;
	double loss = ep_tally_counter(tally, C_LOSS);
	double sent = ep_tally_counter(tally, C_SENT);

	int i = c->judged++;

	*outcome = isnan(loss) ? 100.0 : loss;
	if (c->st->test == T_BACK_TO_BACK)
		*pass = sent >= config && ep_tally_counter(tally, C_LOST) == 0.0;
	else
		*pass = !isnan(loss) && loss <= c->st->tolerance_pct;
	if (!*pass && c->stall_ms > STALL_MS && i < MAX_CASE_TRIALS &&
	    !(i && c->stalled[i - 1])) {
		c->stalled[i] = 1;
		ep_run_log(c->st->run, EMBPERF_LOG_INFO, "net.udp.rfc2544 [%s]: trial %d lost %.3g %% "
			   "after this host's sender stalled for %.0f ms (what it owed went out as a "
			   "burst): not counted against the link, the rate runs again", c->label, i + 1, *outcome,
			   c->stall_ms);
	}
	return 0;
}

/* --- trials ----------------------------------------------------------------- */

static int rfc_before_trial(void *arg, int index)
{
	struct rfc_case *c = arg;

	(void)index;
	return ep_udp_flow_begin(&c->st->flow);
}

static void count_figures(struct rfc_case *c, struct ep_trial *t, const struct ep_udp_outcome *o)
{
	struct ep_tally *ta = ep_trial_tally(t);
	double secs = (double)ep_tally_elapsed_ns(ta) / 1e9;
	uint64_t lost = o->sent > o->received ? o->sent - o->received : 0;
	const struct ep_udp_flow *f = &c->st->flow;
	uint32_t payload = f->l2 ? c->frame - EP_L2_HEADER_BYTES - EP_L2_FCS_BYTES : f->size_bytes;

	ep_tally_add_after(ta, o->received, o->received * payload);
	ep_tally_count_after(ta, C_BYTES_EACH,
			     o->received ? (double)o->bytes / (double)o->received : NAN);
	ep_tally_count_after(ta, C_SENT, (double)o->sent);
	ep_tally_count_after(ta, C_LOST, (double)lost);
	ep_tally_count_after(ta, C_LOSS, o->sent ? 100.0 * (double)lost / (double)o->sent : NAN);
	ep_tally_count_after(ta, C_STALL, (double)o->stall_ns / 1e6);
	ep_tally_count_after(ta, C_PEER_CPU_SYSTEM, ep_netk_or_nan(o->peer.cpu_system_pct));
	for (int p = 0; p < EP_LOSS_PLACES; p++)
		ep_tally_count_after(ta, C_WHERE + p, o->where.read[p] ? (double)o->where.at[p] : NAN);
	if (secs > 0.0)
		ep_tally_count_after(ta, C_L2, (double)o->received * f->frame_bytes * 8.0 / secs / 1e6);

	c->stall_ms = 0.0;
	if (secs <= 0.0 || c->latency || c->st->test == T_BACK_TO_BACK)
		return;
	/*
	 * A rate trial ran at the rate the sender achieved, which a busy or
	 * slow sender keeps below the one asked: the search judges and logs
	 * that one, so that a found rate is never one that was not offered.
	 * (An unpaced first trial learns the top this way.)
	 */
	if (c->st->test == T_LOSS) {
		if (!c->top_fps)
			c->top_fps = (double)o->sent / secs;
		ep_trial_set_config(t, 100.0 * (double)o->sent / secs / c->top_fps);
	} else {
		double achieved = (double)o->sent / secs;

		/* A stall explains at most the frames it owed. */
		if (c->config > 0.0 && achieved >= STALL_RATE * c->config &&
		    (double)lost <= (double)o->stall_ns / 1e9 * c->config)
			c->stall_ms = (double)o->stall_ns / 1e6;

		/* Passed far below the rate asked without a stall, or below half
		 * of it with one: the sender could offer no more (a stall's
		 * shortfall is the machine's, and at most the 100 ms it forgives). */
		if (c->config > 0.0 && o->sent && o->received == o->sent &&
		    (achieved < 0.5 * c->config ||
		     (achieved < 0.95 * c->config && (double)o->stall_ns <= STALL_MS * 1e6)))
			c->sender_limited = 1;
		ep_trial_set_config(t, achieved);
	}
}

static int rfc_body(void *arg, struct ep_trial *t)
{
	struct rfc_case *c = arg;
	struct ep_udp_outcome o;
	int rc = ep_udp_flow_run(&c->st->flow, t, &o);

	if (!rc)
		count_figures(c, t, &o);
	return rc;
}

/* test=latency, second step: the rate the throughput search of this frame found. */
static int latency_prepare(void *arg)
{
	struct rfc_case *c = arg;
	const embperf_result *r = ep_run_find_result(c->st->run, M_RATE, c->rate_case->label);
	double fps = r ? embperf_result_value(r) : NAN;

	if (isnan(fps) || fps <= 0.0)
		return ep_run_fail(c->st->run, -ENOENT, "net.udp.rfc2544: frame %u: no rate passed "
				   "the throughput search, so there is no rate to measure latency "
				   "at", c->frame);
	configure(c, fps);
	return 0;
}

/* --- setup ------------------------------------------------------------------ */

/* "frame=F size=S direction=D": size is the UDP payload, or l2's frame without FCS. */
static void set_label(struct rfc_case *c)
{
	int l2 = c->st->flow.l2;

	snprintf(c->label, sizeof(c->label), "frame=%u size=%u direction=%s%s", c->frame,
		 c->frame - (l2 ? EP_L2_FCS_BYTES : EP_WIRE_FRAME_OVERHEAD_BYTES),
		 ep_param_text(c->st->run, "direction"), l2 ? " layer=l2" : "");
}

static int add_search_case(struct rfc_state *st, uint32_t frame, int metric,
			   int (*next)(void *, const struct ep_trial_row *, size_t, double *),
			   const char *config_name)
{
	struct rfc_case *c = &st->cases[st->n_cases++];
	struct ep_trial_case tc = {
		.body = rfc_body,
		.before_trial = rfc_before_trial,
		.counters = rfc_counters,
		.n_counters = (int)EP_ARRAY_SIZE(rfc_counters),
		.search = &c->search,
		.arg = c,
	};

	c->st = st;
	c->frame = frame;
	c->top_fps = line_fps(st, frame);
	c->bs = (struct ep_bsearch){ .lo = 1.0, .hi = c->top_fps, .max_trials = st->max_trials };
	c->rs = (struct ep_rate_search){
		.top = c->top_fps,
		.floor = 1.0,
		.resolution_pct = st->resolution,
		.tolerance_pct = st->tolerance_pct,
		.max_trials = st->max_trials,
		.confirm = st->confirm,
		.uncounted = c->stalled,
	};
	if (metric == M_BURST) {
		/* At most a second's worth at the line rate (or 10^6 frames). */
		c->bs.hi = c->top_fps > 0.0 ? floor(c->top_fps) : 1e6;
		c->bs.resolution = fmax(1.0, c->bs.hi * st->resolution / 100.0);
	}
	c->search = (struct ep_search){
		.next = next,
		.judge = judge,
		.found = metric == M_NO_LOSS ? loss_found : ep_bsearch_found,
		.arg = c,
		.metric = metric,
		.config_name = config_name,
		.outcome_name = "loss_pct",
	};
	set_label(c);
	tc.labels = c->label;
	if (metric == M_RATE && st->test == T_LATENCY)
		strncat(c->label, " step=throughput", sizeof(c->label) - strlen(c->label) - 1);
	return ep_run_add_trial(st->run, &tc);
}

static int add_latency_case(struct rfc_state *st, uint32_t frame)
{
	struct rfc_case *c = &st->cases[st->n_cases];
	struct ep_trial_case tc = {
		.body = rfc_body,
		.prepare = latency_prepare,
		.before_trial = rfc_before_trial,
		.counters = rfc_counters,
		.n_counters = (int)EP_ARRAY_SIZE(rfc_counters),
		.arg = c,
	};

	c->st = st;
	c->frame = frame;
	c->latency = 1;
	c->rate_case = &st->cases[st->n_cases - 1];
	st->n_cases++;
	set_label(c);
	tc.labels = c->label;
	return ep_run_add_trial(st->run, &tc);
}

static int add_cases(struct rfc_state *st, const uint32_t *frames, int n)
{
	int rc = 0;

	for (int i = 0; i < n && !rc; i++) {
		switch (st->test) {
		case T_THROUGHPUT:
		case T_LATENCY: /* the throughput search, then the latency at its rate */
			rc = add_search_case(st, frames[i], M_RATE, rate_next, "fps");
			if (!rc && st->test == T_LATENCY)
				rc = add_latency_case(st, frames[i]);
			break;
		case T_LOSS:
			rc = add_search_case(st, frames[i], M_NO_LOSS, loss_next, "rate_pct");
			break;
		case T_BACK_TO_BACK:
			rc = add_search_case(st, frames[i], M_BURST, burst_next, "burst");
			break;
		}
	}
	return rc;
}

static uint32_t max_frame(const uint32_t *frames, int n)
{
	uint32_t most = 0;

	for (int i = 0; i < n; i++)
		most = frames[i] > most ? frames[i] : most;
	return most;
}

static void rfc_teardown(void *state)
{
	struct rfc_state *st = state;

	ep_udp_flow_close(&st->flow);
}

static int rfc_setup(struct ep_run *run, void **state)
{
	struct rfc_state *st = *state;
	uint32_t frames[MAX_FRAMES];
	int n, rc;

	st->flow.data_fd = -1;
	st->flow.peer.fd = -1;
	st->run = run;
	st->test = (enum test_kind)ep_param_int(run, "test");
	st->tolerance_pct = ep_param_double(run, "loss_tolerance");
	st->resolution = ep_param_double(run, "resolution");
	st->max_trials = (int)ep_param_int(run, "max_trials");
	st->confirm = (int)ep_param_int(run, "confirm");
	st->tag_every = (uint32_t)ep_param_int(run, "tag_every");
	st->flow.tx = ep_param_int(run, "direction") == 0;
	st->flow.batch = (uint32_t)ep_param_int(run, "batch");
	st->flow.flow_cap_ns = ep_netk_flow_cap_ns(run);
	if ((st->test == T_LATENCY || st->test == T_BACK_TO_BACK) && !st->flow.tx)
		return ep_run_refuse(run, -EINVAL, "test", ": runs with direction=tx only (the "
				     "peer echoes what this host sends; a burst starts with this "
				     "host's measured part)");
	st->flow.l2 = ep_param_int(run, "layer") == 1;
	if (st->flow.l2 && st->test == T_LATENCY)
		return ep_run_fail(run, -EINVAL, "parameter 'test': value 'latency': runs with "
				   "layer=l4 only (the peer echoes UDP datagrams)");
	n = parse_frames(run, frames);
	if (n < 0)
		return n;
	rc = ep_udp_flow_connect(&st->flow, run, "net.udp.rfc2544");
	if (!rc && st->flow.l2)
		rc = ep_udp_flow_check_l2(&st->flow, max_frame(frames, n) - EP_L2_FCS_BYTES);
	if (rc)
		return rc;
	return add_cases(st, frames, n);
}

/* A longer settle than the other network kernels': between the trials of a search. */
static const struct ep_default rfc_defaults[] = EP_NET_DEFAULTS("100ms", "200ms");

const struct ep_kernel ep_kernel_net_udp_rfc2544 = {
	.name = "net.udp.rfc2544",
	.summary = "RFC 2544 on UDP with an embperf peer: zero-loss throughput search, latency, "
		   "loss curve, back-to-back, per frame size",
	EP_PARAMS(rfc_params),
	EP_METRICS(rfc_metrics),
	.engine_defaults = rfc_defaults,
	.setup = rfc_setup,
	.teardown = rfc_teardown,
	.state_bytes = sizeof(struct rfc_state),
	.trials = 1,
};
