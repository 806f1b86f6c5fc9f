// SPDX-License-Identifier: MIT
/*
 * cases.c - the driver of calibrated cases (cases.h): calibration,
 * overhead, warm-up, samples, stop rule, statistics, counters and CPU load
 * of one case, all timed on the run's clock.
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

#include "cases.h"
#include "clock.h"
#include "counters.h"
#include "cpuload.h"
#include "ctx.h"
#include "result.h"
#include "run.h"

struct case_state {
	struct ep_run *run;
	const struct ep_clock *clock;
	const struct ep_case *c;
	uint64_t deadline_ns;    /* UINT64_MAX: none */
	int deadline_is_budget;
	uint64_t units;          /* per sample, after calibration */
	double overhead_ns;      /* per unit, subtracted */
	double *samples;
	double *scratch; /* room for the samples, for ep_robust_spread() */
	size_t n;
	int64_t extra_warmup;  /* samples trend_warmup() discarded */
	uint64_t before_calls; /* calls of the case's untimed before() */
	int truncated;
};

/* The case's untimed before(), if any, ahead of a timed call of the body. */
static int run_before(struct case_state *cs, uint64_t units)
{
	if (!cs->c->before)
		return 0;
	cs->before_calls++;
	return cs->c->before(cs->c->arg, units);
}

/* Time @units units of @fn (the body, or an overhead loop) on the run's clock. */
static int time_fn(const struct case_state *cs, ep_body_fn fn, uint64_t units,
		   uint64_t *elapsed_ns)
{
	uint64_t t0, t1;
	int rc;

	t0 = ep_clock_now_ns(cs->clock);
	rc = fn(cs->c->arg, units);
	t1 = ep_clock_now_ns(cs->clock);
	*elapsed_ns = t1 - t0;
	return rc;
}

/* Time @units units of the body, after the case's untimed before(). */
static int time_body(struct case_state *cs, uint64_t units, uint64_t *elapsed_ns)
{
	int rc = run_before(cs, units);

	return rc ? rc : time_fn(cs, cs->c->body, units, elapsed_ns);
}

/* 0 to go on; -ECANCELED; 1 when the deadline leaves no room for @next_ns. */
static int may_continue(struct case_state *cs, uint64_t next_ns)
{
	int rc = ep_run_deadline_reached(cs->run, cs->deadline_ns, cs->deadline_is_budget, next_ns);

	if (rc > 0)
		cs->truncated = 1;
	return rc;
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
	int rc = time_body(cs, units, &again);

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
		rc = time_body(cs, units, &elapsed);
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
		int rc = time_fn(cs, fn, units, &elapsed);

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

	int64_t warmup_max = cs->run->cfg.warmup_max;

	if (cs->extra_warmup >= warmup_max || !still_trending(cs))
		return 0;
	if ((int64_t)drop > warmup_max - cs->extra_warmup)
		drop = (size_t)(warmup_max - cs->extra_warmup);
	memmove(cs->samples, cs->samples + drop, (cs->n - drop) * sizeof(*cs->samples));
	cs->n -= drop;
	cs->extra_warmup += (int64_t)drop;
	return 1;
}

/*
 * The stop rules, once min_repetitions were taken: the samples' robust
 * spread within 'spread', or the 95 % interval of their median within
 * 'precision' of it. Samples that disagree so take more, up to
 * 'repetitions'.
 */
static int precise_enough(struct case_state *cs)
{
	const struct ep_engine_cfg *cfg = &cs->run->cfg;

	if (cfg->spread > 0.0 && ep_robust_spread(cs->samples, cs->n, cs->scratch) <= cfg->spread)
		return 1;
	return cfg->precision > 0.0 &&
	       ep_median_ci_halfwidth(cs->samples, cs->n, cs->scratch) <= cfg->precision;
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
		rc = time_body(cs, cs->units, &last);
		if (rc)
			return rc;
		last = rescale_short(cs, last);
	}
	while ((int64_t)cs->n < cfg->repetitions) {
		rc = may_continue(cs, last);
		if (rc)
			return rc < 0 ? rc : 0;
		rc = time_body(cs, cs->units, &elapsed);
		if (rc)
			return rc;
		last = elapsed;
		cs->samples[cs->n++] =
			convert(m, cs->c, (double)elapsed / (double)cs->units - cs->overhead_ns);
		ep_run_progress(run, index, cs->c->labels, (double)cs->n / (double)cfg->repetitions);
		/* Precise is not enough while the samples still trend: as when
		 * all repetitions are taken, their older half becomes warm-up. */
		if ((int64_t)cs->n >= cfg->min_repetitions && precise_enough(cs)) {
			if (!trend_warmup(cs))
				break;
		} else if ((int64_t)cs->n == cfg->repetitions) {
			trend_warmup(cs);
		}
	}
	return 0;
}

static int make_result(struct case_state *cs, const double *counters, const unsigned char *ok,
		       int cpu, int moved)
{
	struct ep_run *run = cs->run;
	struct embperf_result *r = ep_run_new_result(run, cs->c->metric, cs->c->labels);

	if (!r)
		return -ENOMEM;
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

/* The deadline came before the first sample. */
static int no_sample(struct case_state *cs)
{
	return ep_run_nothing_measured(cs->run, cs->c->labels, cs->deadline_is_budget, "sample");
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
	if (ep_run_deadline_reached(cs->run, cs->deadline_ns, 0, sample_ns))
		return 0; /* not a truncation: every sample was taken */
	rc = run_before(cs, cs->units); /* outside the counters: they count the body */
	if (rc)
		return rc;
	ep_clock_counters_open(cs->clock, &ctr);
	ep_counters_start(&ctr);
	rc = time_fn(cs, cs->c->body, cs->units, &elapsed);
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
	ep_clock_load_start(cs->clock, &load);
	start_ns = ep_clock_now_ns(cs->clock);
	rc = take_samples(cs, index);
	ep_clock_load_stop(cs->clock, &load, counters, ok);
	cpu_after = sched_getcpu();
	if (rc)
		return rc;
	if (!cs->n)
		return no_sample(cs);
	if (run->cfg.counters) {
		rc = count_one_sample(cs, (ep_clock_now_ns(cs->clock) - start_ns) / cs->n, counters, ok);
		if (rc)
			return rc;
	}
	ep_run_log(run, EMBPERF_LOG_DEBUG,
		   "%s [%s]: %llu units/sample, %zu samples, overhead %.3g ns/unit, "
		   "%lld samples more warm-up while trending",
		   run->kernel->name, cs->c->labels, (unsigned long long)cs->units, cs->n,
		   cs->overhead_ns, (long long)cs->extra_warmup);
	if (cs->c->before)
		ep_run_log(run, EMBPERF_LOG_DEBUG, "%s [%s]: %llu untimed before() calls ahead of the timed ones",
			   run->kernel->name, cs->c->labels, (unsigned long long)cs->before_calls);
	return make_result(cs, counters, ok,
			   run->cpu >= 0 ? run->cpu : (cpu_before == cpu_after ? cpu_after : -1),
			   run->cpu < 0 && cpu_before != cpu_after);
}

int ep_cases_measure(struct ep_run *run, struct ep_run_case *rc, int index)
{
	struct case_state cs = { .run = run, .clock = run->clock, .c = &rc->c };
	int err;

	cs.deadline_ns = ep_run_case_deadline(run, &cs.deadline_is_budget);
	if (rc->c.metric < 0 || rc->c.metric >= run->kernel->n_metrics || !rc->c.body)
		return ep_run_fail(run, -EINVAL, "kernel %s: case '%s' is malformed",
				   run->kernel->name, rc->c.labels);
	if (rc->c.prepare) {
		err = rc->c.prepare(rc->c.arg);
		if (err)
			return err;
	}
	/* One block: the samples, then as much scratch room. */
	cs.samples = calloc(2 * (size_t)run->cfg.repetitions, sizeof(*cs.samples));
	if (!cs.samples)
		return -ENOMEM;
	cs.scratch = cs.samples + run->cfg.repetitions;
	err = measure(&cs, index);
	free(cs.samples);
	return err;
}
