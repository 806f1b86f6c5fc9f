// SPDX-License-Identifier: MIT
/*
 * synth.c - synthetic kernels for tests (see synth.h).
 */
#include <stdio.h>

#include "synth.h"

struct synth synth_cfg;

/* Work @ns: on the simulated clock when there is one, else busy-wait. */
static void busy_ns(uint64_t ns)
{
	uint64_t end;

	if (synth_cfg.sim) {
		tp_sim_work(synth_cfg.sim, ns);
		return;
	}
	end = ep_now_ns() + ns;
	while (ep_now_ns() < end)
		;
}

/* This call is one of the slow ones: slow_call .. slow_call + slow_calls - 1. */
static int is_slow(const struct synth *s)
{
	int n = s->slow_calls ? s->slow_calls : 1;

	return s->slow_call && s->calls >= s->slow_call && s->calls < s->slow_call + n;
}

/* How much slower than @unit_ns this call is: 100 when slow, the jitter's
 * or the ramp's factor, or 1. */
static double slowdown(const struct synth *s)
{
	if (is_slow(s))
		return 100.0;
	if (s->jitter)
		return 1.0 + 0.1 * (double)(s->calls % 5);
	if (s->ramp_factor > 0.0 && s->calls <= s->ramp_calls)
		return 1.0 + (s->ramp_factor - 1.0) * (double)(s->ramp_calls - s->calls + 1) /
				     (double)s->ramp_calls;
	return 1.0;
}

static int synth_body(void *arg, uint64_t units)
{
	struct synth *s = arg;

	s->calls++;
	if (s->before_ns && s->before_calls != s->calls)
		s->unpaired++;
	if (s->fail_after && s->calls > s->fail_after)
		return s->fail_rc;
	busy_ns((uint64_t)((double)(units * s->unit_ns) * slowdown(s)));
	return 0;
}

static int synth_overhead(void *arg, uint64_t units)
{
	struct synth *s = arg;

	busy_ns(units * s->overhead_ns);
	return 0;
}

static int synth_before(void *arg, uint64_t units)
{
	struct synth *s = arg;

	s->before_calls++;
	busy_ns(units * s->before_ns);
	return 0;
}

static int synth_credit(void *arg, uint64_t units)
{
	struct synth *s = arg;

	busy_ns(units * s->credit_ns);
	return 0;
}

static const struct ep_param_desc synth_params[] = {
	{ "size", EP_PT_SIZE, "64M", { { 512, 1LL << 40 } }, NULL, "bytes", "a size" },
	{ "span", EP_PT_SIZE_RANGE, "1k", { { 512, 1LL << 40 } }, NULL, "bytes", "a sweep" },
	{ "op", EP_PT_ENUM, "rd", { { 0, 0 } }, "rd|wr|bcopy", "", "an operation" },
	{ "count", EP_PT_INT, "10", { { 1, 1000000 } }, NULL, "", "a count" },
	{ "period", EP_PT_DURATION, "10ms", { { 1000, 3600000000000LL } }, NULL, "ns", "a time" },
	{ "ratio", EP_PT_DOUBLE, "0.5", { .dmin = 0.0, .dmax = 1.0 }, NULL, "", "a fraction" },
	{ "flag", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "", "a switch" },
	{ "rate", EP_PT_RATE, "100Mbit", { { 1000, 100000000000LL } }, NULL, "bit/s", "a rate" },
	{ "freq", EP_PT_FREQ, "48k", { { 8000, 384000 } }, NULL, "Hz", "a sample rate" },
	{ "path", EP_PT_STRING, "", { { 0, 0 } }, NULL, "", "a path" },
};

static const struct ep_metric_desc synth_metrics[] = {
	{ "latency", "ns", EP_METRIC_TIME, 1.0, EP_PRIMARY_MEDIAN, 0, "time per unit" },
	{ "best", "ns", EP_METRIC_TIME, 1.0, EP_PRIMARY_MIN, 0, "time per unit, min" },
	{ "bandwidth", "MB/s", EP_METRIC_RATE, 0.0, EP_PRIMARY_MAX, 1, "1000 bytes per unit" },
	{ "derived", "ns", EP_METRIC_VALUE, 0.0, EP_PRIMARY_MEDIAN, 0, "a derived value" },
	{ "rate", "1/s", EP_METRIC_PER_SECOND, 0.0, EP_PRIMARY_MEDIAN, 1, "units per second" },
};

static int synth_setup(struct ep_run *run, void **state)
{
	struct synth *s = &synth_cfg;
	int cases = s->cases ? s->cases : 1;

	*state = s;
	for (int i = 0; i < cases; i++) {
		char labels[32];
		struct ep_case c = {
			.metric = s->metric,
			.labels = labels,
			.body = synth_body,
			.overhead = s->overhead_ns ? synth_overhead : NULL,
			.overhead_credit = s->credit_ns ? synth_credit : NULL,
			.before = s->before_ns ? synth_before : NULL,
			.arg = s,
			.bytes_per_unit = 1000.0,
			.max_units = s->max_units,
			.min_units = s->min_units,
		};

		snprintf(labels, sizeof(labels), "case=%d", i);
		int rc = ep_run_add_case(run, &c);
		if (rc)
			return rc;
	}
	return 0;
}

static int synth_finish(struct ep_run *run, void *state)
{
	struct synth *s = state;

	s->finished = 1;
	return s->derived ? ep_run_add_value(run, 3, "what=derived", s->derived) : 0;
}

static void synth_teardown(void *state)
{
	struct synth *s = state;

	s->torn_down = 1;
}

const struct ep_kernel synth_kernel = {
	.name = "test.synth",
	.summary = "synthetic kernel for tests",
	EP_PARAMS(synth_params),
	EP_METRICS(synth_metrics),
	.setup = synth_setup,
	.finish = synth_finish,
	.teardown = synth_teardown,
	.cpu_bound = 1,
};
