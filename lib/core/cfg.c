// SPDX-License-Identifier: MIT
/*
 * cfg.c - the engine's parameters (cfg.h): their table, which of them a
 * kernel is offered, their checks, and the settings of a run read from them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "params.h"
#include "util.h"

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
	{ "precision", EP_PT_DOUBLE, "0", { .dmin = 0.0, .dmax = 1.0 }, NULL, "",
	  "stop a case once the 95 % interval of the samples' median is within this share of it, after min_repetitions; samples that disagree take more, up to 'repetitions' (0: off)" },
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
#define ENGINE_CALIBRATED_END 11

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
	{ "repetitions", "101" },
	{ "min_repetitions", "11" },
	{ "precision", "0.02" },
	{ "spread", "0" },
	{ NULL, NULL },
};

const struct ep_default ep_lmbench_count_defaults[] = {
	{ "repetitions", "11" },
	{ "spread", "0" },
	{ NULL, NULL },
};

const struct ep_default ep_lmbench_ipc_defaults[] = {
	{ "repetitions", "11" },
	{ "spread", "0" },
	{ "sample_time", "100ms" },
	{ NULL, NULL },
};

int ep_percentiles_parse(const char *text, double *out, char *err, size_t err_size)
{
	const char *p = text;
	int n = 0;

	while (*p) {
		char *end;
		double v = strtod(p, &end);

		if (end == p || (*end && *end != ',') || !(v > 0.0 && v <= 100.0) ||
		    n == EP_MAX_PERCENTILES)
			return ep_say(err, err_size, -EINVAL,
				      "parameter 'percentiles': value '%s' is not accepted; accepted: "
				      "1 to %d comma-separated numbers, each above 0 and at most 100 "
				      "(e.g. 50,90,99,99.9)",
				      text, EP_MAX_PERCENTILES);
		out[n++] = v;
		p = *end ? end + 1 : end;
	}
	if (!n)
		return ep_say(err, err_size, -EINVAL,
			      "parameter 'percentiles': the list is empty; accepted: 1 to %d "
			      "comma-separated numbers in (0, 100]",
			      EP_MAX_PERCENTILES);
	return n;
}

/* Length of the comma-separated item at @p (up to the next comma or the end). */
static size_t item_len(const char *p)
{
	const char *comma = strchr(p, ',');

	return comma ? (size_t)(comma - p) : strlen(p);
}

int ep_list_has(const char *list, const char *item)
{
	size_t item_size = strlen(item);

	for (const char *p = list; *p;) {
		size_t len = item_len(p);

		if (len == item_size && !strncmp(p, item, len))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* The kernel's metric names, '|'-separated, for an error message. */
static void metric_names(const struct ep_kernel *k, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < k->n_metrics && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? "|" : "", k->metrics[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* 'metrics': every name listed must be a metric of the kernel. */
static int check_metrics(const struct ep_kernel *k, const char *list, char *err, size_t err_size)
{
	char names[512];

	for (const char *p = list; *p;) {
		size_t len = item_len(p);
		int found = 0;

		for (int i = 0; i < k->n_metrics && !found; i++)
			found = strlen(k->metrics[i].name) == len &&
				!strncmp(k->metrics[i].name, p, len);
		if (!found) {
			metric_names(k, names, sizeof(names));
			return ep_say(err, err_size, -EINVAL,
				      "parameter 'metrics': value '%s' names '%.*s', not a metric of "
				      "%s; accepted: a comma-separated list of %s",
				      list, (int)len, p, k->name, names);
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

int ep_cfg_check(const struct ep_kernel *k, const char *name, const char *text, char *err,
		 size_t err_size)
{
	double pcts[EP_MAX_PERCENTILES];
	int n;

	if (!strcmp(name, "metrics"))
		return check_metrics(k, text, err, err_size);
	if (strcmp(name, "percentiles"))
		return 0;
	n = ep_percentiles_parse(text, pcts, err, err_size);
	return n < 0 ? n : 0;
}

/* The value of engine parameter @name among @values (the kernel's list). */
static const struct ep_value *engine_value(const struct ep_kernel *k, const struct ep_value *values,
					   const char *name)
{
	for (int i = 0; i < ep_engine_param_count(k); i++)
		if (!strcmp(ep_engine_param(k, i)->name, name))
			return &values[k->n_params + i];
	return NULL;
}

static int64_t engine_int(const struct ep_kernel *k, const struct ep_value *values,
			  const char *name, int64_t none)
{
	const struct ep_value *v = engine_value(k, values, name);

	return v ? v->i : none;
}

void ep_cfg_read(struct ep_engine_cfg *cfg, const struct ep_kernel *k, const struct ep_value *values)
{
	const struct ep_value *v;

	memset(cfg, 0, sizeof(*cfg));
	cfg->repetitions = engine_int(k, values, "repetitions", 1);
	cfg->max_time_ns = engine_int(k, values, "max_time", 0);
	cfg->cpu = (int)engine_int(k, values, "cpu", -1);
	cfg->counters = (int)engine_int(k, values, "counters", 0);
	v = engine_value(k, values, "metrics");
	cfg->metrics = v ? v->text : "";
	/* Calibrated cases. */
	cfg->min_repetitions = engine_int(k, values, "min_repetitions", 1);
	if (cfg->min_repetitions > cfg->repetitions)
		cfg->min_repetitions = cfg->repetitions;
	cfg->warmup = engine_int(k, values, "warmup", 0);
	cfg->warmup_max = engine_int(k, values, "warmup_max", 0);
	cfg->sample_time_ns = engine_int(k, values, "sample_time", 0);
	v = engine_value(k, values, "spread");
	cfg->spread = v ? v->d : 0.0;
	v = engine_value(k, values, "precision");
	cfg->precision = v ? v->d : 0.0;
	/* Trial cases. */
	cfg->duration_ns = engine_int(k, values, "duration", 0);
	cfg->ramp_ns = engine_int(k, values, "ramp", 0);
	cfg->settle_ns = engine_int(k, values, "settle", 0);
	v = engine_value(k, values, "percentiles");
	if (v) {
		int n = ep_percentiles_parse(v->text, cfg->percentiles, NULL, 0);

		cfg->n_percentiles = n > 0 ? n : 0;
	}
}
