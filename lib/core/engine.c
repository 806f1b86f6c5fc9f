// SPDX-License-Identifier: MIT
/*
 * engine.c - measuring one case: calibration, overhead, warm-up, samples,
 * stop rule, statistics, counters and CPU load.
 *
 * Calibration follows lmbench and Google Benchmark: grow the number of
 * units per sample until one sample lasts at least sample_time (and at
 * least 1000 clock ticks), predicting the next count from the last timing.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "core.h"
#include "measure.h"

/*
 * The engine's parameters. The first block is for every kernel; then the
 * calibration parameters (kernels of calibrated cases) and the trial
 * parameters (kernels of trial cases): a parameter that means nothing for a
 * kernel's kind is not offered for it (ep_engine_param()).
 */
const struct ep_param_desc ep_engine_params[] = {
	{ "repetitions", EP_PT_INT, "11", { { 1, 1000000 } }, NULL, "",
	  "samples to take (calibrated kernels: at most, when 'spread' stops earlier), or trials (trial kernels)" },
	{ "max_time", EP_PT_DURATION, "60s", { { 0, 86400000000000LL } }, NULL, "ns",
	  "longest one case may take; it then keeps the samples it has (0: no limit)" },
	{ "cpu", EP_PT_INT, "-1", { { -1, 4095 } }, NULL, "",
	  "CPU to pin the run to (-1: the context's default)" },
	{ "counters", EP_PT_BOOL, "1", { { 0, 1 } }, NULL, "",
	  "record perf_event counters with each result (calibrated cases: over one extra sample after the timed ones; trials: over the trials)" },
	{ "metrics", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "keep only the results of these metrics, comma-separated (empty: all)" },
	/* Calibrated cases only. */
	{ "min_repetitions", EP_PT_INT, "5", { { 1, 1000000 } }, NULL, "",
	  "samples to take before 'spread' may stop the case" },
	{ "warmup", EP_PT_INT, "1", { { 0, 1000 } }, NULL, "",
	  "samples run and discarded before measuring" },
	{ "warmup_max", EP_PT_INT, "100", { { 0, 1000000 } }, NULL, "",
	  "most samples added to the warm-up while the samples still trend (0: only 'warmup')" },
	{ "sample_time", EP_PT_DURATION, "5ms", { { 1000, 60000000000LL } }, NULL, "ns",
	  "target duration of one sample; the engine calibrates the units per sample to it" },
	{ "spread", EP_PT_DOUBLE, "0.01", { .dmin = 0.0, .dmax = 1.0 }, NULL, "",
	  "stop a case early once the samples' spread (1.4826 x median absolute deviation / median) is below this (0: take all repetitions)" },
	/* Trial cases only. */
	{ "duration", EP_PT_DURATION, "1s", { { 1000000, 86400000000000LL } }, NULL, "ns",
	  "measured length of one trial (after 'ramp')" },
	{ "ramp", EP_PT_DURATION, "0", { { 0, 3600000000000LL } }, NULL, "ns",
	  "time each trial runs before it counts (warm-up, excluded from every figure)" },
	{ "settle", EP_PT_DURATION, "0", { { 0, 3600000000000LL } }, NULL, "ns",
	  "pause between two trials" },
	{ "percentiles", EP_PT_STRING, "50,90,99,99.9,99.99", { { 0, 0 } }, NULL, "",
	  "percentiles of latency distributions, comma-separated, each in (0, 100], at most 32" },
};
const int ep_engine_n_params = (int)EP_ARRAY_SIZE(ep_engine_params);

/* Index ranges in ep_engine_params of the three blocks. */
#define ENGINE_COMMON_END 5
#define ENGINE_CALIBRATED_END 10

int ep_engine_param_count(const struct ep_kernel *k)
{
	return ENGINE_COMMON_END + (k->trials ? ep_engine_n_params - ENGINE_CALIBRATED_END
					      : ENGINE_CALIBRATED_END - ENGINE_COMMON_END);
}

const struct ep_param_desc *ep_engine_param(const struct ep_kernel *k, int index)
{
	if (index < 0 || index >= ep_engine_param_count(k))
		return NULL;
	if (index < ENGINE_COMMON_END)
		return &ep_engine_params[index];
	return &ep_engine_params[index + (k->trials ? ENGINE_CALIBRATED_END - ENGINE_COMMON_END : 0)];
}

const struct ep_default ep_lmbench_defaults[] = {
	{ "repetitions", "11" },
	{ "spread", "0" },
	{ NULL, NULL },
};

void ep_engine_read_cfg(struct ep_run *run)
{
	struct ep_engine_cfg *cfg = &run->cfg;

	cfg->repetitions = ep_param_int(run, "repetitions");
	cfg->min_repetitions = ep_param_int(run, "min_repetitions");
	if (cfg->min_repetitions > cfg->repetitions)
		cfg->min_repetitions = cfg->repetitions;
	cfg->warmup = ep_param_int(run, "warmup");
	cfg->sample_time_ns = ep_param_int(run, "sample_time");
	cfg->max_time_ns = ep_param_int(run, "max_time");
	cfg->spread = ep_param_double(run, "spread");
	cfg->counters = (int)ep_param_int(run, "counters");
	cfg->duration_ns = ep_param_int(run, "duration");
	cfg->ramp_ns = ep_param_int(run, "ramp");
	cfg->settle_ns = ep_param_int(run, "settle");
	cfg->n_percentiles = 0;
	if (run->kernel->trials) {
		int n = ep_percentiles_parse(ep_param_text(run, "percentiles"), cfg->percentiles,
					     NULL, 0);

		cfg->n_percentiles = n > 0 ? n : 0;
	}
}

/* Time @units units of the body. */
static int time_body(ep_body_fn fn, void *arg, uint64_t units, uint64_t *elapsed_ns)
{
	uint64_t t0, t1;
	int rc;

	t0 = ep_now_ns();
	rc = fn(arg, units);
	t1 = ep_now_ns();
	*elapsed_ns = t1 - t0;
	return rc;
}

/* Deadline for this case: the context's budget or the case's max_time. */
static uint64_t case_deadline(const struct ep_run *run, uint64_t start_ns, int *from_budget)
{
	uint64_t budget = ep_ctx_deadline_ns(run->ctx);
	uint64_t own = run->cfg.max_time_ns ? start_ns + (uint64_t)run->cfg.max_time_ns : 0;

	*from_budget = 0;
	if (budget && (!own || budget <= own)) {
		*from_budget = 1;
		return budget;
	}
	return own;
}

struct case_state {
	struct ep_run *run;
	const struct ep_case *c;
	uint64_t deadline_ns;
	int deadline_is_budget;
	uint64_t units;          /* per sample, after calibration */
	double overhead_ns;      /* per unit, subtracted */
	double *samples;
	double *scratch; /* room for the samples, for ep_robust_spread() */
	size_t n;
	int64_t warmup_max;    /* 'warmup_max': most samples trend_warmup() may discard */
	int64_t extra_warmup;  /* samples it discarded */
	int truncated;
};

/* 0 to go on; -ECANCELED; 1 when the deadline leaves no room for @next_ns. */
static int may_continue(struct case_state *cs, uint64_t next_ns)
{
	uint64_t now;

	if (embperf_ctx_is_cancelled(cs->run->ctx))
		return -ECANCELED;
	if (!cs->deadline_ns)
		return 0;
	now = ep_now_ns();
	if (now + next_ns <= cs->deadline_ns)
		return 0;
	if (cs->deadline_is_budget)
		cs->run->budget_hit = 1;
	cs->truncated = 1;
	return 1;
}

/*
 * A calibration timing that reaches the target is suspect when nothing
 * predicts it (the first timing, of one unit) or when it took over three
 * times what the step before predicts: a preemption, or a partner process not
 * yet scheduled, would otherwise fix every sample at a few units (one
 * 20 us round trip per sample when the first took 5 ms).
 */
static int is_suspect(uint64_t elapsed, uint64_t units, uint64_t below_elapsed,
		      uint64_t below_units)
{
	if (!below_units)
		return 1;
	return (double)elapsed > 3.0 * (double)below_elapsed * (double)units / (double)below_units;
}

/* Time @units once more; keep the shorter of the two timings in *@elapsed. */
static int retime_min(struct case_state *cs, uint64_t units, uint64_t *elapsed)
{
	uint64_t again;
	int rc = time_body(cs->c->body, cs->c->arg, units, &again);

	if (!rc && again < *elapsed)
		*elapsed = again;
	return rc;
}

/* How long a sample should last: 'sample_time', at least 1000 clock ticks. */
static uint64_t sample_target_ns(const struct case_state *cs)
{
	uint64_t res = ep_ctx_clock_res_ns(cs->run->ctx);
	uint64_t target = (uint64_t)cs->run->cfg.sample_time_ns;

	return target < 1000 * res ? 1000 * res : target;
}

static uint64_t units_cap(const struct case_state *cs)
{
	return cs->c->max_units ? cs->c->max_units : UINT64_MAX / 4;
}

/* The longest a sample grows to reach the case's min_units, in sample times. */
#define MIN_UNITS_MAX_TARGETS 20

/*
 * @units raised to the case's min_units, but not past MIN_UNITS_MAX_TARGETS
 * sample times at @ns_per_unit: a whole walk of a random chain that a busy
 * machine slowed 20x would otherwise take seconds per sample.
 */
static uint64_t at_least_min_units(const struct case_state *cs, uint64_t units,
				   double ns_per_unit)
{
	double most = MIN_UNITS_MAX_TARGETS * (double)sample_target_ns(cs) /
		      (ns_per_unit > 0.0 ? ns_per_unit : 1.0);
	uint64_t floor = cs->c->min_units;

	if ((double)floor > most)
		floor = (uint64_t)most;
	return units > floor ? units : floor;
}

static int calibrate(struct case_state *cs)
{
	uint64_t target = sample_target_ns(cs);
	uint64_t cap = units_cap(cs);
	uint64_t units = 1, elapsed = 0, below_units = 0, below_elapsed = 0;
	int rc;

	for (;;) {
		rc = time_body(cs->c->body, cs->c->arg, units, &elapsed);
		if (!rc && elapsed >= target && units < cap &&
		    is_suspect(elapsed, units, below_elapsed, below_units))
			rc = retime_min(cs, units, &elapsed);
		if (rc)
			return rc;
		if (elapsed >= target || units >= cap)
			break;
		rc = may_continue(cs, 0);
		if (rc)
			return rc;
		below_units = units;
		below_elapsed = elapsed;
		/* Aim 40% past the target; grow at most 10x from tiny timings. */
		double mult = 1.4 * (double)target / (double)(elapsed ? elapsed : 1);

		if ((double)elapsed < 0.1 * (double)target && mult > 10.0)
			mult = 10.0;
		uint64_t next = (uint64_t)ceil((double)units * mult);

		units = next > units ? next : units + 1;
		if (units > cap)
			units = cap;
	}
	/*
	 * Scale back to the target from the last (overshooting) timing, but
	 * never below the units of the step before, which stayed under the
	 * target: a last timing stretched by preemption would otherwise shrink
	 * every sample (down to one unit when the very first timing is hit).
	 */
	double fit = (double)units * (double)target / (double)elapsed;

	if (fit < (double)below_units)
		fit = (double)below_units;
	cs->units = fit < 1.0 ? 1 : (uint64_t)fit;
	cs->units = at_least_min_units(cs, cs->units, (double)elapsed / (double)units);
	if (cs->units > cap)
		cs->units = cap;
	return 0;
}

/*
 * Overhead timings: many short ones (an eighth of a sample each, 16 of them:
 * two sample times in all). Five timings of a whole sample each were all
 * preempted once in CI (two tests at once on 2 vCPUs): the overhead read
 * above the body and os.signal's catch came out as 0; the best of many
 * short timings is an undisturbed one.
 */
#define OVERHEAD_TIMINGS 16
#define OVERHEAD_SHARE 8 /* a timing is 1/OVERHEAD_SHARE of a sample */

/* Best of OVERHEAD_TIMINGS short timings of @fn, in ns per unit, into *@per_unit_ns. */
static int best_per_unit(struct case_state *cs, ep_body_fn fn, double *per_unit_ns)
{
	uint64_t best = UINT64_MAX, elapsed;
	uint64_t units = cs->units / OVERHEAD_SHARE ? cs->units / OVERHEAD_SHARE : 1;

	for (int i = 0; i < OVERHEAD_TIMINGS; i++) {
		int rc = time_body(fn, cs->c->arg, units, &elapsed);

		if (rc)
			return rc;
		if (elapsed < best)
			best = elapsed;
	}
	*per_unit_ns = (double)best / (double)units;
	return 0;
}

/* The overhead per unit: the empty loop's best, less its credited part. */
static int measure_overhead(struct case_state *cs)
{
	double credit_ns = 0.0;
	int rc;

	cs->overhead_ns = 0.0;
	if (!cs->c->overhead)
		return 0;
	rc = best_per_unit(cs, cs->c->overhead, &cs->overhead_ns);
	if (!rc && cs->c->overhead_credit)
		rc = best_per_unit(cs, cs->c->overhead_credit, &credit_ns);
	cs->overhead_ns -= credit_ns;
	return rc;
}

/* Convert time per unit to the metric's unit. */
static double convert(const struct ep_metric_desc *m, const struct ep_case *c, double ns_per_unit)
{
	if (ns_per_unit <= 0.0)
		ns_per_unit = 1e-6; /* below resolution after overhead removal */
	switch (m->kind) {
	case EP_METRIC_RATE:
		return c->bytes_per_unit / ns_per_unit * 1000.0; /* bytes/ns = GB/s */
	case EP_METRIC_TIME:
		return ns_per_unit / (m->time_scale > 0.0 ? m->time_scale : 1.0);
	case EP_METRIC_PER_SECOND:
		return 1e9 / ns_per_unit;
	default:
		return ns_per_unit;
	}
}

/*
 * A warm-up sample that took under a quarter of the target shows that
 * calibration settled too low (every timing it kept was stretched, e.g. a
 * partner process that twice waited to be scheduled): scale the units up to
 * the target from this timing. Samples of one unit would otherwise time
 * the clock and the loop more than the work. Return: the time a sample of
 * the (new) units is expected to take.
 */
static uint64_t rescale_short(struct case_state *cs, uint64_t elapsed)
{
	uint64_t target = sample_target_ns(cs), cap = units_cap(cs), before = cs->units;
	double fit;

	if (4 * elapsed >= target || cs->units >= cap)
		return elapsed;
	fit = (double)cs->units * (double)target / (double)(elapsed ? elapsed : 1);
	cs->units = fit >= (double)cap ? cap : (uint64_t)fit;
	return (uint64_t)((double)elapsed * (double)cs->units / (double)before);
}

/* Trend test's settings; see "Steady state" in doc/engine.md. */
#define TREND_MIN_SAMPLES 6   /* fewer cannot tell a trend from noise */
#define TREND_POINTS 64       /* longer series are thinned evenly (pairs: O(n^2)) */
#define TREND_MIN_CHANGE 0.02 /* change along the trend line, relative to the median */
#define TREND_NOISE 3.0       /* ... and in robust standard deviations of the residuals */

/* Theil-Sen slope of the points (@x, @y): the median of the pairwise slopes. */
static double theil_sen_slope(const double *x, const double *y, size_t m)
{
	double slopes[TREND_POINTS * (TREND_POINTS - 1) / 2];
	size_t k = 0;

	for (size_t i = 0; i + 1 < m; i++)
		for (size_t j = i + 1; j < m; j++)
			slopes[k++] = (y[j] - y[i]) / (x[j] - x[i]);
	return ep_median_inplace(slopes, k);
}

/* 1.4826 x the median absolute residual of (@x, @y) around @slope's line. */
static double residual_sigma(const double *x, const double *y, size_t m, double slope)
{
	double r[TREND_POINTS], icpt;

	for (size_t i = 0; i < m; i++)
		r[i] = y[i] - slope * x[i];
	icpt = ep_median_inplace(r, m);
	for (size_t i = 0; i < m; i++)
		r[i] = fabs(y[i] - slope * x[i] - icpt);
	return 1.4826 * ep_median_inplace(r, m);
}

/*
 * Whether the samples still trend: along their Theil-Sen line (robust to
 * the odd preempted sample, up to 29 % of them) they change, from the first
 * to the last, by more than TREND_MIN_CHANGE of their median and by more
 * than TREND_NOISE robust standard deviations of the residuals.
 */
static int still_trending(struct case_state *cs)
{
	size_t n = cs->n, step = (n + TREND_POINTS - 1) / TREND_POINTS, m = 0;
	double x[TREND_POINTS], y[TREND_POINTS], slope, change, level;

	if (n < TREND_MIN_SAMPLES)
		return 0;
	for (size_t i = 0; i < n && m < TREND_POINTS; i += step, m++) {
		x[m] = (double)i;
		y[m] = cs->samples[i];
	}
	slope = theil_sen_slope(x, y, m);
	change = fabs(slope) * (double)(n - 1);
	memcpy(cs->scratch, cs->samples, n * sizeof(*cs->scratch));
	level = ep_median_inplace(cs->scratch, n);
	return change > TREND_MIN_CHANGE * fabs(level) &&
	       change > TREND_NOISE * residual_sigma(x, y, m, slope);
}

/*
 * Called when the samples are complete. While they still trend (freshly
 * mapped memory that speeds up, a clock ramping), the older half becomes
 * warm-up and the case takes more samples, at most 'warmup_max' discarded
 * in all. Return: 1 when samples were discarded (sample on), else 0.
 */
static int trend_warmup(struct case_state *cs)
{
	size_t drop = cs->n / 2;

	if (cs->extra_warmup >= cs->warmup_max || !still_trending(cs))
		return 0;
	if ((int64_t)drop > cs->warmup_max - cs->extra_warmup)
		drop = (size_t)(cs->warmup_max - cs->extra_warmup);
	memmove(cs->samples, cs->samples + drop, (cs->n - drop) * sizeof(*cs->samples));
	cs->n -= drop;
	cs->extra_warmup += (int64_t)drop;
	return 1;
}

static int take_samples(struct case_state *cs, int index)
{
	struct ep_run *run = cs->run;
	const struct ep_engine_cfg *cfg = &run->cfg;
	const struct ep_metric_desc *m = &run->kernel->metrics[cs->c->metric];
	uint64_t elapsed = 0, last = 0;
	int rc;

	for (int64_t i = 0; i < cfg->warmup; i++) {
		rc = may_continue(cs, last);
		if (rc)
			return rc < 0 ? rc : 0;
		rc = time_body(cs->c->body, cs->c->arg, cs->units, &last);
		if (rc)
			return rc;
		last = rescale_short(cs, last);
	}
	while ((int64_t)cs->n < cfg->repetitions) {
		rc = may_continue(cs, last);
		if (rc)
			return rc < 0 ? rc : 0;
		rc = time_body(cs->c->body, cs->c->arg, cs->units, &elapsed);
		if (rc)
			return rc;
		last = elapsed;
		cs->samples[cs->n++] =
			convert(m, cs->c, (double)elapsed / (double)cs->units - cs->overhead_ns);
		ep_ctx_progress(run->ctx, run->kernel->name, cs->c->labels,
				((double)index + (double)cs->n / (double)cfg->repetitions) /
					(double)run->n_cases);
		if (cfg->spread > 0.0 && (int64_t)cs->n >= cfg->min_repetitions &&
		    ep_robust_spread(cs->samples, cs->n, cs->scratch) <= cfg->spread)
			break;
		if ((int64_t)cs->n == cfg->repetitions)
			trend_warmup(cs);
	}
	return 0;
}

static int make_result(struct case_state *cs, const double *counters, const unsigned char *ok,
		       int cpu, int moved)
{
	struct ep_run *run = cs->run;
	const struct ep_metric_desc *m = &run->kernel->metrics[cs->c->metric];
	struct embperf_result *r;

	r = ep_result_new(run->kernel->name, m->name, m->unit, cs->c->labels, run->params_text);
	if (!r)
		return -ENOMEM;
	r->primary = m->primary;
	r->higher_better = m->higher_better;
	r->cpu = cpu;
	r->truncated = cs->truncated;
	memcpy(r->counters, counters, sizeof(r->counters));
	memcpy(r->counter_ok, ok, sizeof(r->counter_ok));
	r->counters[EP_CTR_UNITS] = (double)cs->units * (double)cs->n;
	r->counter_ok[EP_CTR_UNITS] = 1;
	/* Unavailable for a case without an overhead body: nothing subtracted. */
	r->counters[EP_CTR_OVERHEAD_NS] = cs->overhead_ns;
	r->counter_ok[EP_CTR_OVERHEAD_NS] = cs->c->overhead != NULL;
	if (ep_result_set_samples(r, cs->samples, cs->n) || ep_result_assess(r, moved, run->kernel->cpu_bound) ||
	    ep_run_add_result(run, r)) {
		ep_result_free(r);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The deadline came before the first sample. The budget's end is the run's
 * -ETIME; a case's own 'max_time' is an error that says so, never a case
 * that silently gives no result.
 */
static int no_sample(struct case_state *cs)
{
	char text[32];

	if (cs->deadline_is_budget)
		return -ETIME;
	ep_format_duration(cs->run->cfg.max_time_ns, text, sizeof(text));
	return ep_run_fail(cs->run, -ETIMEDOUT,
			   "kernel %s: case '%s': parameter 'max_time' (%s) ended before the "
			   "first sample; accepted: a larger max_time, or 0 for no limit",
			   cs->run->kernel->name, cs->c->labels, text);
}

/*
 * The perf counters, over one more sample of the same units after the
 * timed ones, scaled to the @cs->n samples. Not over the timed samples
 * themselves: an attached perf event costs the kernel work on every context
 * switch, fork and page fault of the task, and that work lands in the
 * figures (here lat_ctx 2.67 us with events against 1.70 us without,
 * lat_pipe 6.35 against 4.48, lat_sig prot 0.52 against 0.42). Skipped,
 * leaving them unavailable, when the deadline leaves no room for a sample.
 */
static int count_one_sample(struct case_state *cs, uint64_t sample_ns, double *values,
			    unsigned char *ok)
{
	double pass[EP_CTR_COUNT] = { 0 };
	unsigned char pass_ok[EP_CTR_COUNT] = { 0 };
	struct ep_counters ctr;
	uint64_t elapsed;
	int rc;

	if (embperf_ctx_is_cancelled(cs->run->ctx))
		return -ECANCELED;
	if (cs->deadline_ns && ep_now_ns() + sample_ns > cs->deadline_ns)
		return 0; /* not a truncation: every sample was taken */
	ep_counters_open(&ctr);
	ep_counters_start(&ctr);
	rc = time_body(cs->c->body, cs->c->arg, cs->units, &elapsed);
	ep_counters_stop(&ctr, pass, pass_ok);
	ep_counters_close(&ctr);
	for (int i = 0; i < EP_CTR_COUNT && !rc; i++) {
		if (!pass_ok[i])
			continue;
		values[i] = pass[i] * (double)cs->n;
		ok[i] = 1;
	}
	return rc;
}

/* Calibrate, then sample with the CPU load recorded; then the counters. */
static int measure(struct case_state *cs, int index)
{
	struct ep_run *run = cs->run;
	double counters[EP_CTR_COUNT] = { 0 };
	unsigned char ok[EP_CTR_COUNT] = { 0 };
	struct ep_cpuload load;
	uint64_t start_ns;
	int cpu_before, cpu_after, rc;

	rc = calibrate(cs);
	if (!rc)
		rc = measure_overhead(cs);
	if (rc)
		return rc < 0 ? rc : no_sample(cs);
	cpu_before = sched_getcpu();
	ep_cpuload_start(&load);
	start_ns = ep_now_ns();
	rc = take_samples(cs, index);
	ep_cpuload_stop(&load, counters, ok);
	cpu_after = sched_getcpu();
	if (rc)
		return rc;
	if (!cs->n)
		return no_sample(cs);
	if (run->cfg.counters) {
		rc = count_one_sample(cs, (ep_now_ns() - start_ns) / cs->n, counters, ok);
		if (rc)
			return rc;
	}
	ep_run_log(run, EMBPERF_LOG_DEBUG,
		   "%s [%s]: %llu units/sample, %zu samples, overhead %.3g ns/unit, "
		   "%lld samples more warm-up while trending",
		   run->kernel->name, cs->c->labels, (unsigned long long)cs->units, cs->n,
		   cs->overhead_ns, (long long)cs->extra_warmup);
	return make_result(cs, counters, ok,
			   run->cpu >= 0 ? run->cpu : (cpu_before == cpu_after ? cpu_after : -1),
			   run->cpu < 0 && cpu_before != cpu_after);
}

int ep_engine_measure(struct ep_run *run, struct ep_run_case *rc, int index)
{
	struct case_state cs = { .run = run, .c = &rc->c };
	int err;

	cs.deadline_ns = case_deadline(run, ep_now_ns(), &cs.deadline_is_budget);
	cs.warmup_max = ep_param_int(run, "warmup_max");
	if (rc->c.metric < 0 || rc->c.metric >= run->kernel->n_metrics || !rc->c.body)
		return ep_run_fail(run, -EINVAL, "kernel %s: case '%s' is malformed",
				   run->kernel->name, rc->c.labels);
	if (rc->c.prepare) {
		err = rc->c.prepare(rc->c.arg);
		if (err)
			return err;
	}
	cs.samples = calloc((size_t)run->cfg.repetitions, sizeof(*cs.samples));
	cs.scratch = calloc((size_t)run->cfg.repetitions, sizeof(*cs.scratch));
	if (!cs.samples || !cs.scratch) {
		free(cs.samples);
		free(cs.scratch);
		return -ENOMEM;
	}
	err = measure(&cs, index);
	free(cs.samples);
	free(cs.scratch);
	return err;
}
