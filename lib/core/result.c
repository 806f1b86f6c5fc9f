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
	[EP_CTR_UNITS] = "units",
	[EP_CTR_CPU_PROCESS_PCT] = "cpu_process_pct",
	[EP_CTR_CPU_SYSTEM_PCT] = "cpu_system_pct",
	[EP_CTR_TASK_CLOCK_NS] = "task_clock_ns",
	[EP_CTR_CONTEXT_SWITCHES] = "context_switches",
	[EP_CTR_CPU_MIGRATIONS] = "cpu_migrations",
	[EP_CTR_PAGE_FAULTS] = "page_faults",
	[EP_CTR_CYCLES] = "cycles",
	[EP_CTR_INSTRUCTIONS] = "instructions",
	[EP_CTR_CACHE_REFERENCES] = "cache_references",
	[EP_CTR_CACHE_MISSES] = "cache_misses",
	[EP_CTR_OVERHEAD_NS] = "overhead_ns",
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

int ep_primary_parse(const char *name)
{
	for (size_t i = 0; name && i < EP_ARRAY_SIZE(primary_names); i++)
		if (!strcmp(primary_names[i], name))
			return (int)i;
	return -1;
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
	r->labels = ep_strdup(labels);
	r->params = ep_strdup(params);
	if (!r->kernel || !r->metric || !r->unit || !r->title || !r->labels || !r->params) {
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

struct embperf_result *ep_result_dup(const struct embperf_result *r)
{
	struct embperf_result *d = ep_result_new(r->kernel, r->metric, r->unit, r->labels,
						 r->params);

	if (!d)
		return NULL;
	if (ep_result_set_title(d, r->title) || ep_result_set_samples(d, r->samples, r->n_samples)) {
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
	free(r->labels);
	free(r->params);
	free(r->samples);
	free(r);
}

int ep_labels_get(const char *labels, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	const char *p = labels;

	while (p && *p) {
		size_t n = strcspn(p, " ");

		if (n > klen && p[klen] == '=' && !strncmp(p, key, klen)) {
			size_t vlen = n - klen - 1;

			if (size)
				snprintf(buf, size, "%.*s", (int)vlen, p + klen + 1);
			return (int)vlen;
		}
		p += n;
		p += strspn(p, " ");
	}
	return -ENOENT;
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
	return key ? ep_labels_get(result->labels, key, buf, size) : -ENOENT;
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
	return result->higher_better;
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
	(void)result;
	return EP_CTR_COUNT;
}

const char *embperf_result_counter_name(const embperf_result *result, int index)
{
	(void)result;
	return ep_counter_name(index);
}

int embperf_result_counter(const embperf_result *result, const char *name, double *value)
{
	int i = ep_counter_index(name);

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
