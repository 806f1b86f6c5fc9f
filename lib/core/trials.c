// SPDX-License-Identifier: MIT
/*
 * trials.c - the driver of trial cases: repetitions or a
 * search, settle pauses, budget and cancel, and the results one tally per
 * trial gives (rates, latency percentiles, CPU load, the kernel's counters,
 * the searched value with its trial log), all on the run's clock.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "result.h"
#include "run.h"
#include "trial.h"

#define MAX_TRIALS 100000  /* a search that never says done still ends */
#define SETTLE_STEP_NS 10000000ULL

/**
 * struct case_run - a trial case being run.
 * @values:   per metric, one value per trial (NaN where the trial gave none).
 * @n:        trials run (with a measured part).
 * @cap:      room in each @values row and in @log.
 * @log:      one row per trial, for searches.
 * @all:      latencies of every trial (repetitions) or of the best one (search).
 * @trial:    the trial being run (reused).
 * @best:     search: index of the trial the results describe (-1: none).
 * @counters: summed engine counters (CPU load summed here, averaged at the end).
 * @named:    summed kernel counters.
 */
struct case_run {
	struct ep_run *run;
	struct ep_run_case *rc;
	int index;
	uint64_t hard_end_ns;
	int hard_is_budget;
	double **values;
	size_t n, cap;
	struct ep_trial_row *log;
	struct ep_hist *all;
	struct ep_trial *trial;
	int best;
	struct ep_counters ctr;
	int ctr_open;
	double counters[EP_CTR_COUNT];
	unsigned char ok[EP_CTR_COUNT];
	double named[EP_TALLY_MAX_COUNTERS];
	uint64_t ops;
	int n_load;
	int truncated;
	int ended_in_ramp;
};

static int is_trial_metric(enum ep_metric_kind kind)
{
	return (kind >= EP_METRIC_TRIAL_MBPS && kind <= EP_METRIC_TRIAL_CPU_SYSTEM) ||
	       kind == EP_METRIC_TRIAL_DERIVED;
}

/* Index among the case's counters of the one metric @m reads, or -1. */
static int counter_of(const struct ep_trial_case *tc, const struct ep_metric_desc *m)
{
	for (int i = 0; i < tc->n_counters; i++)
		if (!strcmp(tc->counters[i], m->name))
			return i;
	return -1;
}

/* A derived metric's value: the case's derive(), NaN without one or for a non-number. */
static double derived_value(const struct case_run *cr, int m)
{
	const struct ep_trial_case *tc = &cr->rc->tc;
	double v = tc->derive ? tc->derive(tc->arg, m, &cr->trial->tally) : NAN;

	return isfinite(v) ? v : NAN;
}

/* One trial's value of metric @m (NaN: this trial gives none). */
static double metric_value(const struct case_run *cr, int mi, const double *ctr,
			   const unsigned char *ok)
{
	const struct ep_metric_desc *m = &cr->run->kernel->metrics[mi];
	const struct ep_tally *ta = &cr->trial->tally;
	double elapsed = (double)ep_trial_elapsed_ns(cr->trial);
	double scale = m->time_scale > 0.0 ? m->time_scale : 1.0;
	int ci = counter_of(&cr->rc->tc, m);

	switch (m->kind) {
	case EP_METRIC_TRIAL_MBPS:
		return (double)ta->bytes / elapsed * 1000.0;
	case EP_METRIC_TRIAL_BITS:
		return (double)ta->bytes * 8.0 / elapsed * 1e9 / scale;
	case EP_METRIC_TRIAL_OPS:
		return (double)ta->ops / elapsed * 1e9 / scale;
	case EP_METRIC_TRIAL_LATENCY:
		if (!ta->has_latency)
			return NAN;
		return ep_hist_percentile(&ta->hist, 50.0) / scale;
	case EP_METRIC_TRIAL_COUNTER:
		return ci < 0 ? NAN : ta->counters[ci];
	case EP_METRIC_TRIAL_CPU_PROCESS:
		return ok[EP_CTR_CPU_PROCESS_PCT] ? ctr[EP_CTR_CPU_PROCESS_PCT] : NAN;
	case EP_METRIC_TRIAL_CPU_SYSTEM:
		return ok[EP_CTR_CPU_SYSTEM_PCT] ? ctr[EP_CTR_CPU_SYSTEM_PCT] : NAN;
	case EP_METRIC_TRIAL_DERIVED:
		return derived_value(cr, mi);
	default:
		return NAN;
	}
}

static int grow(struct case_run *cr)
{
	size_t cap = cr->cap ? cr->cap * 2 : 16;
	int n_metrics = cr->run->kernel->n_metrics;
	struct ep_trial_row *log = realloc(cr->log, cap * sizeof(*log));

	if (!log)
		return -ENOMEM;
	cr->log = log;
	for (int m = 0; m < n_metrics; m++) {
		double *v = realloc(cr->values[m], cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cr->values[m] = v;
	}
	cr->cap = cap;
	return 0;
}

/* Add one trial's engine counters to the case's sums. */
static void sum_counters(struct case_run *cr, const double *ctr, const unsigned char *ok)
{
	for (int i = 0; i < EP_CTR_COUNT; i++) {
		if (!ok[i])
			continue;
		cr->counters[i] = (cr->ok[i] ? cr->counters[i] : 0.0) + ctr[i];
		cr->ok[i] = 1;
	}
	cr->n_load += ok[EP_CTR_CPU_PROCESS_PCT] || ok[EP_CTR_CPU_SYSTEM_PCT];
}

/* Record the trial just run: its values, counters and latencies. */
static int keep_trial(struct case_run *cr, const double *ctr, const unsigned char *ok)
{
	const struct ep_kernel *k = cr->run->kernel;
	const struct ep_tally *ta = &cr->trial->tally;
	int rc = cr->n == cr->cap ? grow(cr) : 0;

	if (rc)
		return rc;
	for (int m = 0; m < k->n_metrics; m++)
		cr->values[m][cr->n] = metric_value(cr, m, ctr, ok);
	cr->log[cr->n].duration_ns = ep_trial_elapsed_ns(cr->trial);
	cr->log[cr->n].config = cr->trial->config;
	cr->n++;
	if (cr->rc->tc.search)
		return 0; /* a search keeps only its best trial's figures */
	sum_counters(cr, ctr, ok);
	for (int i = 0; i < EP_TALLY_MAX_COUNTERS; i++)
		cr->named[i] += ta->counters[i];
	cr->ops += ta->ops;
	if (ta->has_latency)
		ep_hist_merge(cr->all, &ta->hist);
	return 0;
}

/* A search's trial passed with a higher configuration than before: keep its figures. */
static void keep_best(struct case_run *cr, const double *ctr, const unsigned char *ok)
{
	const struct ep_tally *ta = &cr->trial->tally;

	cr->best = (int)cr->n - 1;
	memset(cr->counters, 0, sizeof(cr->counters));
	memset(cr->ok, 0, sizeof(cr->ok));
	cr->n_load = 0;
	sum_counters(cr, ctr, ok);
	memcpy(cr->named, ta->counters, sizeof(cr->named));
	cr->ops = ta->ops;
	ep_hist_reset(cr->all);
	if (ta->has_latency)
		ep_hist_merge(cr->all, &ta->hist);
}

/* Pause 'settle' between trials, in short steps so cancel is seen. */
static int settle(struct case_run *cr)
{
	const struct ep_clock *clk = cr->run->clock;
	uint64_t end = ep_clock_now_ns(clk) + (uint64_t)cr->run->cfg.settle_ns;

	for (uint64_t now = ep_clock_now_ns(clk); now < end; now = ep_clock_now_ns(clk)) {
		uint64_t step = end - now < SETTLE_STEP_NS ? end - now : SETTLE_STEP_NS;

		if (embperf_ctx_is_cancelled(cr->run->ctx))
			return -ECANCELED;
		if (now >= cr->hard_end_ns)
			return 1;
		ep_clock_sleep_until_ns(clk, now + step);
	}
	return 0;
}

/* Run one trial at @config. Return: 0, 1 when it was cut short, or an error. */
static int run_trial(struct case_run *cr, double config, double *ctr, unsigned char *ok)
{
	const struct ep_engine_cfg *cfg = &cr->run->cfg;
	struct ep_trial_limits lim = {
		.config = config,
		.index = (int)cr->n,
		.ctr = cr->ctr_open ? &cr->ctr : NULL,
		.ramp_ns = (uint64_t)cfg->ramp_ns,
		.duration_ns = (uint64_t)cfg->duration_ns,
		.hard_end_ns = cr->hard_end_ns,
	};
	int rc = cr->rc->tc.before_trial ? cr->rc->tc.before_trial(cr->rc->tc.arg, (int)cr->n) : 0;

	if (rc)
		return rc == -ECANCELED && !embperf_ctx_is_cancelled(cr->run->ctx) ? 1 : rc;
	ep_trial_init(cr->trial, cr->run->ctx, &lim);
	rc = cr->rc->tc.body(cr->rc->tc.arg, cr->trial);
	ep_trial_close(cr->trial, ctr, ok);
	if (embperf_ctx_is_cancelled(cr->run->ctx))
		return -ECANCELED;
	if (rc && rc != -ETIME && rc != -ECANCELED)
		return rc;
	if (!cr->trial->measured) {
		cr->ended_in_ramp = !cr->trial->truncated;
		return 1;
	}
	return cr->trial->truncated;
}

/* Before a trial: cancelled, or no time left? Return: 0 go, 1 stop, -ECANCELED. */
static int may_start(struct case_run *cr)
{
	if (embperf_ctx_is_cancelled(cr->run->ctx))
		return -ECANCELED;
	if (cr->n && cr->run->cfg.settle_ns) {
		int rc = settle(cr);

		if (rc)
			return rc;
	}
	return ep_clock_now_ns(cr->run->clock) >= cr->hard_end_ns ? 1 : 0;
}

/* After a trial that was cut short: note why. */
static void note_cut(struct case_run *cr)
{
	cr->truncated = 1;
	if (cr->hard_is_budget && ep_clock_now_ns(cr->run->clock) >= cr->hard_end_ns)
		cr->run->budget_hit = 1;
}

static int repeat_trials(struct case_run *cr)
{
	size_t reps = (size_t)cr->run->cfg.repetitions;
	double ctr[EP_CTR_COUNT];
	unsigned char ok[EP_CTR_COUNT];
	int rc = 0;

	while (cr->n < reps) {
		rc = may_start(cr);
		if (rc)
			break;
		memset(ok, 0, sizeof(ok));
		rc = run_trial(cr, 0.0, ctr, ok);
		if (rc < 0)
			return rc;
		if (cr->trial->measured) {
			int err = keep_trial(cr, ctr, ok);

			if (err)
				return err;
		}
		ep_run_progress(cr->run, cr->index, cr->rc->labels, (double)cr->n / (double)reps);
		if (rc)
			break;
	}
	if (rc > 0 || cr->n < reps)
		note_cut(cr);
	return rc < 0 ? rc : 0;
}

static int search_trials(struct case_run *cr)
{
	const struct ep_search *s = cr->rc->tc.search;
	double ctr[EP_CTR_COUNT], config, best_config = -INFINITY;
	unsigned char ok[EP_CTR_COUNT];
	int rc;

	for (;;) {
		struct ep_trial_row *row;

		rc = s->next(s->arg, cr->log, cr->n, &config);
		if (rc <= 0)
			return rc;
		if (cr->n >= MAX_TRIALS || (rc = may_start(cr)) != 0)
			break;
		memset(ok, 0, sizeof(ok));
		rc = run_trial(cr, config, ctr, ok);
		if (rc < 0)
			return rc;
		if (rc)
			break; /* a cut trial judges nothing */
		config = cr->trial->config; /* as the body says it ran */
		rc = keep_trial(cr, ctr, ok);
		row = rc ? NULL : &cr->log[cr->n - 1];
		if (!rc)
			rc = s->judge(s->arg, &cr->trial->tally, config, &row->outcome, &row->pass);
		if (rc)
			return rc;
		if (row->pass && config > best_config) {
			best_config = config;
			keep_best(cr, ctr, ok);
		}
		/* A search does not know how many trials it will take. */
		ep_run_progress(cr->run, cr->index, cr->rc->labels, 0.5);
	}
	if (rc < 0)
		return rc;
	note_cut(cr);
	return 0;
}

/* The engine counters a result of this case carries. */
static void set_counters(struct case_run *cr, struct embperf_result *r)
{
	memcpy(r->counters, cr->counters, sizeof(r->counters));
	memcpy(r->counter_ok, cr->ok, sizeof(r->counter_ok));
	static const int pct[] = { EP_CTR_CPU_PROCESS_PCT, EP_CTR_CPU_SYSTEM_PCT,
				   EP_CTR_CPU_WAIT_PCT };

	for (size_t i = 0; i < EP_ARRAY_SIZE(pct); i++)
		if (r->counter_ok[pct[i]] && cr->n_load)
			r->counters[pct[i]] /= cr->n_load; /* the mean over the trials */
	r->counters[EP_CTR_UNITS] = (double)cr->ops;
	r->counter_ok[EP_CTR_UNITS] = 1;
	r->counter_ok[EP_CTR_OVERHEAD_NS] = 0;
}

static int set_distribution(struct case_run *cr, struct embperf_result *r,
			    const struct ep_metric_desc *m)
{
	const struct ep_engine_cfg *cfg = &cr->run->cfg;
	double scale = m->time_scale > 0.0 ? m->time_scale : 1.0;
	struct ep_pct pcts[EP_MAX_PERCENTILES];

	if (!ep_hist_count(cr->all))
		return 0;
	r->has_dist = 1;
	r->dist_n = (double)ep_hist_count(cr->all);
	r->dist_min = (double)ep_hist_min(cr->all) / scale;
	r->dist_max = (double)ep_hist_max(cr->all) / scale;
	r->dist_mean = ep_hist_mean(cr->all) / scale;
	for (int i = 0; i < cfg->n_percentiles; i++) {
		pcts[i].pct = cfg->percentiles[i];
		pcts[i].value = ep_hist_percentile(cr->all, cfg->percentiles[i]) / scale;
	}
	return ep_result_set_pcts(r, pcts, (size_t)cfg->n_percentiles);
}

/* The samples of metric @m: every trial's, or the best trial's for a search. */
static size_t gather(struct case_run *cr, int m, double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < cr->n; i++) {
		if (cr->rc->tc.search && (int)i != cr->best)
			continue;
		if (!isnan(cr->values[m][i]))
			out[n++] = cr->values[m][i];
	}
	return n;
}

static struct embperf_result *new_result(struct case_run *cr, int metric)
{
	struct embperf_result *r = ep_run_new_result(cr->run, metric, cr->rc->labels);
	const struct ep_trial_case *tc = &cr->rc->tc;

	if (!r)
		return NULL;
	r->truncated = cr->truncated;
	set_counters(cr, r);
	for (int i = 0; i < tc->n_counters; i++) {
		if (ep_result_add_named(r, tc->counters[i], cr->named[i])) {
			ep_result_free(r);
			return NULL;
		}
	}
	return r;
}

static int add_metric_result(struct case_run *cr, int m, double *scratch)
{
	const struct ep_metric_desc *d = &cr->run->kernel->metrics[m];
	size_t n = gather(cr, m, scratch);
	struct embperf_result *r;

	if (!n)
		return 0; /* no trial gave this metric (no latencies recorded) */
	r = new_result(cr, m);
	if (!r || ep_result_set_samples(r, scratch, n) || ep_result_assess(r, 0, cr->run->kernel->cpu_bound) ||
	    (d->kind == EP_METRIC_TRIAL_LATENCY && set_distribution(cr, r, d)) ||
	    ep_run_add_result(cr->run, r)) {
		ep_result_free(r);
		return -ENOMEM;
	}
	return 0;
}

/* The lowest configuration a search tried (NaN: none). */
static double lowest_config(const struct ep_trial_row *log, size_t n)
{
	double lowest = NAN;

	for (size_t i = 0; i < n; i++)
		if (isnan(lowest) || log[i].config < lowest)
			lowest = log[i].config;
	return lowest;
}

static int add_search_result(struct case_run *cr)
{
	const struct ep_search *s = cr->rc->tc.search;
	struct embperf_result *r = new_result(cr, s->metric);
	double value;
	int rc;

	if (!r)
		return -ENOMEM;
	rc = s->found(s->arg, cr->log, cr->n, &value);
	if (rc && rc != -ENOENT) {
		ep_result_free(r);
		return rc;
	}
	if ((!rc && ep_result_set_samples(r, &value, 1)) ||
	    ep_result_set_trials(r, s->config_name, s->outcome_name, cr->log, cr->n) ||
	    ep_run_add_result(cr->run, r)) {
		ep_result_free(r);
		return -ENOMEM;
	}
	if (rc == -ENOENT)
		ep_run_log(cr->run, EMBPERF_LOG_INFO, "%s [%s]: no trial of %zu passed: no %s at or "
			   "above %g passed", cr->run->kernel->name, cr->rc->labels, cr->n,
			   s->config_name, lowest_config(cr->log, cr->n));
	return 0;
}

static int make_results(struct case_run *cr)
{
	const struct ep_kernel *k = cr->run->kernel;
	double *scratch = malloc((cr->n ? cr->n : 1) * sizeof(*scratch));
	int rc = scratch ? 0 : -ENOMEM;

	if (!rc && cr->rc->tc.search)
		rc = add_search_result(cr);
	for (int m = 0; m < k->n_metrics && !rc; m++)
		if (is_trial_metric(k->metrics[m].kind))
			rc = add_metric_result(cr, m, scratch);
	free(scratch);
	return rc;
}

/* No trial counted anything: the budget's -ETIME, or an error that says why. */
static int nothing_measured(struct case_run *cr)
{
	char text[32];

	if (cr->rc->tc.search && !cr->truncated)
		return make_results(cr); /* a search that chose to run no trial */
	if (cr->ended_in_ramp) {
		ep_format_duration(cr->run->cfg.ramp_ns, text, sizeof(text));
		return ep_run_fail(cr->run, -EINVAL,
				   "kernel %s: case '%s': the work ended within parameter 'ramp' (%s), "
				   "so nothing was measured; accepted: a ramp shorter than the work",
				   cr->run->kernel->name, cr->rc->labels, text);
	}
	return ep_run_nothing_measured(cr->run, cr->rc->labels, cr->hard_is_budget,
				       "trial was measured");
}

static int run_case(struct case_run *cr)
{
	int rc;

	if (cr->rc->tc.prepare) {
		rc = cr->rc->tc.prepare(cr->rc->tc.arg);
		if (rc)
			return rc;
	}
	if (cr->run->cfg.counters) {
		ep_clock_counters_open(cr->run->clock, &cr->ctr);
		cr->ctr_open = 1;
	}
	rc = cr->rc->tc.search ? search_trials(cr) : repeat_trials(cr);
	if (rc)
		return rc;
	return cr->n ? make_results(cr) : nothing_measured(cr);
}

static void free_case_run(struct case_run *cr)
{
	if (cr->ctr_open)
		ep_counters_close(&cr->ctr);
	for (int m = 0; cr->values && m < cr->run->kernel->n_metrics; m++)
		free(cr->values[m]);
	free(cr->values);
	free(cr->log);
	free(cr->all);
	free(cr->trial);
}

/*
 * Run the trials of a trial case (repeated, or as its search asks) and add
 * its results to the run. @index: its position among the run's cases (for
 * progress). Return: 0; -ECANCELED; -ETIME when the budget ended before any
 * trial counted; -ETIMEDOUT when 'max_time' did; a kernel error.
 */
static int trials_measure(struct ep_run *run, struct ep_run_case *rc, int index)
{
	struct case_run cr = { .run = run, .rc = rc, .index = index, .best = -1 };
	int err;

	cr.hard_end_ns = ep_run_case_deadline(run, &cr.hard_is_budget);
	cr.values = calloc((size_t)run->kernel->n_metrics, sizeof(*cr.values));
	cr.all = ep_hist_new();
	cr.trial = malloc(sizeof(*cr.trial));
	if (!cr.values || !cr.all || !cr.trial)
		err = -ENOMEM;
	else if (rc->tc.search && (rc->search.metric < 0 ||
				    rc->search.metric >= run->kernel->n_metrics ||
				    !rc->search.next || !rc->search.judge || !rc->search.found))
		err = ep_run_fail(run, -EINVAL, "kernel %s: case '%s': malformed search",
				  run->kernel->name, rc->labels);
	else
		err = run_case(&cr);
	free_case_run(&cr);
	return err;
}

int ep_run_add_trial(struct ep_run *run, const struct ep_trial_case *tc)
{
	return ep_run_add_trial_measured(run, tc, trials_measure);
}
