// SPDX-License-Identifier: MIT
/*
 * result.c - the result object and its public accessors.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "util.h"

static const char *const counter_names[EP_CTR_COUNT] = {
#define EP_CTR_NAME(id, name) [id] = name,
	EP_COUNTERS(EP_CTR_NAME)
#undef EP_CTR_NAME
};

static const char *const primary_names[] = {
	[EP_PRIMARY_MEDIAN] = "median",
	[EP_PRIMARY_MIN] = "min",
	[EP_PRIMARY_MAX] = "max",
};

const char *ep_counter_name(int counter)
{
	return counter >= 0 && counter < EP_CTR_COUNT ? counter_names[counter] : NULL;
}

int ep_counter_index(const char *name)
{
	for (int i = 0; name && i < EP_CTR_COUNT; i++)
		if (!strcmp(counter_names[i], name))
			return i;
	return -1;
}

const char *ep_primary_name(enum ep_primary p)
{
	return (unsigned)p < EP_ARRAY_SIZE(primary_names) ? primary_names[p] : "median";
}

const char *ep_better_name(int better)
{
	return better == EP_BETTER_HIGHER ? "higher" : better == EP_BETTER_ZERO ? "zero" : "lower";
}

struct embperf_result *ep_result_new(const char *kernel, const char *metric, const char *unit,
				     const char *labels, const char *params)
{
	struct embperf_result *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->kernel = ep_strdup(kernel);
	r->metric = ep_strdup(metric);
	r->unit = ep_strdup(unit);
	r->title = ep_strdup("");
	r->note = ep_strdup("");
	r->labels = ep_strdup(labels);
	r->params = ep_strdup(params);
	if (!r->kernel || !r->metric || !r->unit || !r->title || !r->labels || !r->params || !r->note ||
	    ep_pairs_parse(r->labels, &r->label_kv) || ep_pairs_parse(r->params, &r->param_kv)) {
		ep_result_free(r);
		return NULL;
	}
	ep_stats_compute(NULL, 0, &r->stats);
	r->value = NAN;
	r->cpu = -1;
	return r;
}

static double primary_of(const struct embperf_result *r)
{
	switch (r->primary) {
	case EP_PRIMARY_MIN:
		return r->stats.min;
	case EP_PRIMARY_MAX:
		return r->stats.max;
	default:
		return r->stats.median;
	}
}

int ep_result_set_samples(struct embperf_result *r, const double *samples, size_t n)
{
	double *copy = NULL;

	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, samples, n * sizeof(*copy));
	}
	free(r->samples);
	r->samples = copy;
	r->n_samples = n;
	ep_stats_compute(copy, n, &r->stats);
	r->value = primary_of(r);
	return 0;
}

int ep_result_set_title(struct embperf_result *r, const char *title)
{
	char *t = ep_strdup(title);

	if (!t)
		return -ENOMEM;
	free(r->title);
	r->title = t;
	return 0;
}

static const struct {
	unsigned bit;
	const char *name;
} flag_names[] = {
	{ EMBPERF_RESULT_DISTURBED, "disturbed" },
	{ EMBPERF_RESULT_UNSTABLE, "unstable" },
	{ EMBPERF_RESULT_MIGRATED, "migrated" },
};

const char *ep_result_flag_name(unsigned bit)
{
	for (size_t i = 0; i < EP_ARRAY_SIZE(flag_names); i++)
		if (flag_names[i].bit == bit)
			return flag_names[i].name;
	return NULL;
}

unsigned ep_result_flag_parse(const char *name)
{
	for (size_t i = 0; name && i < EP_ARRAY_SIZE(flag_names); i++)
		if (!strcmp(flag_names[i].name, name))
			return flag_names[i].bit;
	return 0;
}

int ep_result_set_note(struct embperf_result *r, unsigned flags, const char *note)
{
	char *copy = ep_strdup(note);

	if (!copy)
		return -ENOMEM;
	free(r->note);
	r->note = copy;
	r->flags = flags;
	return 0;
}

/* The samples' robust spread (NaN for fewer than 3). */
static double sample_spread(const struct embperf_result *r)
{
	double *tmp, spread;

	if (r->n_samples < 3)
		return NAN;
	tmp = malloc(r->n_samples * sizeof(*tmp));
	if (!tmp)
		return NAN;
	spread = ep_robust_spread(r->samples, r->n_samples, tmp);
	free(tmp);
	return spread;
}

int ep_result_assess(struct embperf_result *r, int moved, int judge_wait)
{
	double wait = r->counters[EP_CTR_CPU_WAIT_PCT], spread = sample_spread(r);
	struct ep_buf note;
	unsigned flags = 0;
	int rc;

	ep_buf_init(&note);
	ep_buf_append(&note, "", 0);
	if (judge_wait && r->counter_ok[EP_CTR_CPU_WAIT_PCT] && wait > EP_DISTURBED_WAIT_PCT) {
		flags |= EMBPERF_RESULT_DISTURBED;
		ep_buf_printf(&note, "disturbed: its threads waited for a CPU %.0f %% of the time "
			      "(cpu_wait_pct; %.0f involuntary switches), another task had its CPU",
			      wait, r->counters[EP_CTR_INVOLUNTARY_SWITCHES]);
	}
	if (spread > EP_UNSTABLE_SPREAD) {
		flags |= EMBPERF_RESULT_UNSTABLE;
		ep_buf_printf(&note, "%sunstable: its %zu samples disagree (robust spread %.0f %%, "
			      "min %.4g, max %.4g)", note.len ? "; " : "", r->n_samples,
			      100.0 * spread, r->stats.min, r->stats.max);
	}
	if (moved) {
		flags |= EMBPERF_RESULT_MIGRATED;
		ep_buf_printf(&note, "%smigrated: it ran on more than one CPU (pin it with cpu=N)",
			      note.len ? "; " : "");
	}
	if (note.failed) {
		ep_buf_free(&note);
		return -ENOMEM;
	}
	rc = ep_result_set_note(r, flags, note.data);
	ep_buf_free(&note);
	return rc;
}

static int cmp_pct(const void *a, const void *b)
{
	double x = ((const struct ep_pct *)a)->pct, y = ((const struct ep_pct *)b)->pct;

	return (x > y) - (x < y);
}

int ep_result_set_pcts(struct embperf_result *r, const struct ep_pct *pcts, size_t n)
{
	struct ep_pct *copy = NULL;

	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, pcts, n * sizeof(*copy));
		qsort(copy, n, sizeof(*copy), cmp_pct);
	}
	free(r->pcts);
	r->pcts = copy;
	r->n_pcts = n;
	return 0;
}

int ep_result_add_named(struct embperf_result *r, const char *name, double value)
{
	struct ep_named *p;

	for (size_t i = 0; i < r->n_named; i++) {
		if (!strcmp(r->named[i].name, name)) {
			r->named[i].value += value;
			return 0;
		}
	}
	p = realloc(r->named, (r->n_named + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	r->named = p;
	p[r->n_named].name = ep_strdup(name);
	if (!p[r->n_named].name)
		return -ENOMEM;
	p[r->n_named].value = value;
	r->n_named++;
	return 0;
}

int ep_result_set_trials(struct embperf_result *r, const char *config_name,
			 const char *outcome_name, const struct ep_trial_row *rows, size_t n)
{
	char *cname = ep_strdup(config_name), *oname = ep_strdup(outcome_name);
	struct ep_trial_row *copy = n ? malloc(n * sizeof(*copy)) : NULL;

	if (!cname || !oname || (n && !copy)) {
		free(cname);
		free(oname);
		free(copy);
		return -ENOMEM;
	}
	if (n)
		memcpy(copy, rows, n * sizeof(*copy));
	free(r->trial_config_name);
	free(r->trial_outcome_name);
	free(r->trials);
	r->trial_config_name = cname;
	r->trial_outcome_name = oname;
	r->trials = copy;
	r->n_trials = n;
	return 0;
}

/* Copy the distribution, the kernel's counters and the trial log of @r into @d. */
static int dup_trial_parts(struct embperf_result *d, const struct embperf_result *r)
{
	d->has_dist = r->has_dist;
	d->dist_n = r->dist_n;
	d->dist_min = r->dist_min;
	d->dist_max = r->dist_max;
	d->dist_mean = r->dist_mean;
	if (ep_result_set_pcts(d, r->pcts, r->n_pcts))
		return -ENOMEM;
	for (size_t i = 0; i < r->n_named; i++)
		if (ep_result_add_named(d, r->named[i].name, r->named[i].value))
			return -ENOMEM;
	if (r->trial_config_name &&
	    ep_result_set_trials(d, r->trial_config_name, r->trial_outcome_name, r->trials,
				 r->n_trials))
		return -ENOMEM;
	return 0;
}

struct embperf_result *ep_result_dup(const struct embperf_result *r)
{
	struct embperf_result *d = ep_result_new(r->kernel, r->metric, r->unit, r->labels,
						 r->params);

	if (!d)
		return NULL;
	if (ep_result_set_title(d, r->title) || ep_result_set_samples(d, r->samples, r->n_samples) ||
	    dup_trial_parts(d, r)) {
		ep_result_free(d);
		return NULL;
	}
	/* Copy the scalar fields wholesale, keeping d's own strings and samples. */
	d->primary = r->primary;
	d->higher_better = r->higher_better;
	d->stats = r->stats;
	d->value = r->value;
	memcpy(d->counters, r->counters, sizeof(d->counters));
	memcpy(d->counter_ok, r->counter_ok, sizeof(d->counter_ok));
	d->cpu = r->cpu;
	d->truncated = r->truncated;
	if (ep_result_set_note(d, r->flags, r->note)) {
		ep_result_free(d);
		return NULL;
	}
	d->verdict = r->verdict;
	d->has_baseline = r->has_baseline;
	d->baseline = r->baseline;
	d->ratio = r->ratio;
	return d;
}

void ep_result_free(struct embperf_result *r)
{
	if (!r)
		return;
	free(r->kernel);
	free(r->metric);
	free(r->unit);
	free(r->title);
	free(r->note);
	free(r->labels);
	free(r->params);
	ep_pairs_free(&r->label_kv);
	ep_pairs_free(&r->param_kv);
	free(r->samples);
	free(r->pcts);
	for (size_t i = 0; i < r->n_named; i++)
		free(r->named[i].name);
	free(r->named);
	free(r->trial_config_name);
	free(r->trial_outcome_name);
	free(r->trials);
	free(r);
}

/**
 * pairs_get() - value of @key among parsed pairs, copied to @buf.
 * @kv:   the pairs.
 * @key:  the name looked up.
 * @buf:  destination (truncated to @size, NUL-terminated when @size > 0).
 * @size: size of @buf.
 *
 * Return: length of the whole value, or -ENOENT.
 */
static int pairs_get(const struct ep_pairs *kv, const char *key, char *buf, size_t size)
{
	for (size_t i = 0; i < kv->n; i++) {
		if (!strcmp(kv->keys[i], key)) {
			if (size)
				snprintf(buf, size, "%s", kv->values[i]);
			return (int)strlen(kv->values[i]);
		}
	}
	return -ENOENT;
}

int ep_labels_get(const char *labels, const char *key, char *buf, size_t size)
{
	struct ep_pairs kv;
	int rc;

	if (ep_pairs_parse(labels, &kv))
		return -ENOMEM;
	rc = pairs_get(&kv, key, buf, size);
	ep_pairs_free(&kv);
	return rc;
}

/* Public accessors. */

const char *embperf_result_kernel(const embperf_result *result)
{
	return result->kernel;
}

const char *embperf_result_metric(const embperf_result *result)
{
	return result->metric;
}

const char *embperf_result_unit(const embperf_result *result)
{
	return result->unit;
}

const char *embperf_result_title(const embperf_result *result)
{
	return result->title;
}

const char *embperf_result_labels(const embperf_result *result)
{
	return result->labels;
}

int embperf_result_label(const embperf_result *result, const char *key, char *buf, size_t size)
{
	return key ? pairs_get(&result->label_kv, key, buf, size) : -ENOENT;
}

const char *embperf_result_params(const embperf_result *result)
{
	return result->params;
}

double embperf_result_value(const embperf_result *result)
{
	return result->value;
}

double embperf_result_stat(const embperf_result *result, enum embperf_stat stat)
{
	switch (stat) {
	case EMBPERF_STAT_PRIMARY:
		return result->value;
	case EMBPERF_STAT_N:
		return (double)result->stats.n;
	case EMBPERF_STAT_MIN:
		return result->stats.min;
	case EMBPERF_STAT_MAX:
		return result->stats.max;
	case EMBPERF_STAT_MEAN:
		return result->stats.mean;
	case EMBPERF_STAT_MEDIAN:
		return result->stats.median;
	case EMBPERF_STAT_STDDEV:
		return result->stats.stddev;
	}
	return NAN;
}

const char *embperf_result_primary(const embperf_result *result)
{
	return ep_primary_name(result->primary);
}

int embperf_result_higher_is_better(const embperf_result *result)
{
	return result->higher_better == EP_BETTER_HIGHER;
}

int embperf_result_sample_count(const embperf_result *result)
{
	return (int)result->n_samples;
}

double embperf_result_sample(const embperf_result *result, int index)
{
	if (index < 0 || (size_t)index >= result->n_samples)
		return NAN;
	return result->samples[index];
}

int embperf_result_counter_count(const embperf_result *result)
{
	return EP_CTR_COUNT + (int)result->n_named;
}

const char *embperf_result_counter_name(const embperf_result *result, int index)
{
	if (index >= EP_CTR_COUNT && (size_t)(index - EP_CTR_COUNT) < result->n_named)
		return result->named[index - EP_CTR_COUNT].name;
	return ep_counter_name(index);
}

int embperf_result_counter(const embperf_result *result, const char *name, double *value)
{
	int i = ep_counter_index(name);

	for (size_t k = 0; i < 0 && name && k < result->n_named; k++) {
		if (!strcmp(result->named[k].name, name)) {
			*value = result->named[k].value;
			return 0;
		}
	}
	if (i < 0)
		return -ENOENT;
	if (!result->counter_ok[i])
		return -EOPNOTSUPP;
	*value = result->counters[i];
	return 0;
}

int embperf_result_cpu(const embperf_result *result)
{
	return result->cpu;
}

int embperf_result_truncated(const embperf_result *result)
{
	return result->truncated;
}

unsigned embperf_result_flags(const embperf_result *result)
{
	return result->flags;
}

const char *embperf_result_note(const embperf_result *result)
{
	return result->note;
}

int embperf_result_verdict(const embperf_result *result)
{
	return result->verdict;
}

int embperf_result_baseline(const embperf_result *result, double *value, double *ratio)
{
	if (!result->has_baseline)
		return -ENODATA;
	*value = result->baseline;
	if (ratio)
		*ratio = result->ratio;
	return 0;
}

/* Distributions and trial logs (0.2). */

int embperf_result_percentile_count(const embperf_result *result)
{
	return (int)result->n_pcts;
}

int embperf_result_percentile_at(const embperf_result *result, int index, double *pct,
				 double *value)
{
	if (index < 0 || (size_t)index >= result->n_pcts)
		return -ENOENT;
	if (pct)
		*pct = result->pcts[index].pct;
	if (value)
		*value = result->pcts[index].value;
	return 0;
}

int embperf_result_percentile(const embperf_result *result, double pct, double *value)
{
	if (!(pct > 0.0 && pct <= 100.0))
		return -EINVAL;
	if (!result->has_dist)
		return -ENODATA;
	for (size_t i = 0; i < result->n_pcts; i++) {
		/* Percentiles are kept as asked, so a tiny tolerance suffices. */
		if (fabs(result->pcts[i].pct - pct) < 1e-9) {
			*value = result->pcts[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

double embperf_result_dist_stat(const embperf_result *result, enum embperf_stat stat)
{
	if (!result->has_dist)
		return NAN;
	switch (stat) {
	case EMBPERF_STAT_N:
		return result->dist_n;
	case EMBPERF_STAT_MIN:
		return result->dist_min;
	case EMBPERF_STAT_MAX:
		return result->dist_max;
	case EMBPERF_STAT_MEAN:
		return result->dist_mean;
	default:
		return NAN;
	}
}

int embperf_result_trial_count(const embperf_result *result)
{
	return (int)result->n_trials;
}

int embperf_result_trial(const embperf_result *result, int index, enum embperf_trial_field field,
			 double *value)
{
	const struct ep_trial_row *row;

	if (index < 0 || (size_t)index >= result->n_trials)
		return -ENOENT;
	row = &result->trials[index];
	switch (field) {
	case EMBPERF_TRIAL_CONFIG:
		*value = row->config;
		return 0;
	case EMBPERF_TRIAL_OUTCOME:
		*value = row->outcome;
		return 0;
	case EMBPERF_TRIAL_PASS:
		*value = row->pass;
		return 0;
	case EMBPERF_TRIAL_DURATION_NS:
		*value = (double)row->duration_ns;
		return 0;
	}
	return -EINVAL;
}

const char *embperf_result_trial_name(const embperf_result *result,
				      enum embperf_trial_field field)
{
	switch (field) {
	case EMBPERF_TRIAL_CONFIG:
		return result->trial_config_name;
	case EMBPERF_TRIAL_OUTCOME:
		return result->trial_outcome_name;
	case EMBPERF_TRIAL_PASS:
		return "pass";
	case EMBPERF_TRIAL_DURATION_NS:
		return "duration_ns";
	}
	return NULL;
}

int embperf_result_label_count(const embperf_result *result)
{
	return (int)result->label_kv.n;
}

const char *embperf_result_label_key(const embperf_result *result, int index)
{
	return index >= 0 && (size_t)index < result->label_kv.n ? result->label_kv.keys[index] : NULL;
}

const char *embperf_result_label_value(const embperf_result *result, int index)
{
	return index >= 0 && (size_t)index < result->label_kv.n ? result->label_kv.values[index]
								 : NULL;
}

int embperf_result_param_count(const embperf_result *result)
{
	return (int)result->param_kv.n;
}

const char *embperf_result_param_key(const embperf_result *result, int index)
{
	return index >= 0 && (size_t)index < result->param_kv.n ? result->param_kv.keys[index] : NULL;
}

const char *embperf_result_param_value(const embperf_result *result, int index)
{
	return index >= 0 && (size_t)index < result->param_kv.n ? result->param_kv.values[index]
								 : NULL;
}
