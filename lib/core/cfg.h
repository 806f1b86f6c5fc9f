/* SPDX-License-Identifier: MIT */
/*
 * cfg.h - the engine's parameters and the settings of a run read from them
 * (cfg.c). Every engine parameter is declared, checked and read here.
 */
#ifndef EMBPERF_CORE_CFG_H
#define EMBPERF_CORE_CFG_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

struct ep_value;

/** The engine's own parameters, accepted by every kernel after its own. */
extern const struct ep_param_desc ep_engine_params[];
extern const int ep_engine_n_params;

/** ep_engine_param_count() - engine parameters offered for kernel @k's kind. */
int ep_engine_param_count(const struct ep_kernel *k);

/** ep_engine_param() - engine parameter @index of those offered for @k, or NULL. */
const struct ep_param_desc *ep_engine_param(const struct ep_kernel *k, int index);

/** The most percentiles the 'percentiles' parameter may list. */
#define EP_MAX_PERCENTILES 32

/**
 * ep_percentiles_parse() - the 'percentiles' parameter's list.
 * Return: the count (1..EP_MAX_PERCENTILES), or -EINVAL with a message in
 * @err (when @err_size) that names the parameter, the value and what is
 * accepted.
 */
int ep_percentiles_parse(const char *text, double *out, char *err, size_t err_size);

/**
 * ep_cfg_check() - the checks of an engine parameter beyond its type's:
 * 'percentiles' must parse, 'metrics' must name metrics of @k.
 * Return: 0, or -EINVAL with the message in @err.
 */
int ep_cfg_check(const struct ep_kernel *k, const char *name, const char *text, char *err,
		 size_t err_size);

/** ep_list_has() - whether the comma-separated @list holds @item. */
int ep_list_has(const char *list, const char *item);

/**
 * struct ep_engine_cfg - the engine settings of one run.
 * @metrics: the 'metrics' list (points into the bench's values).
 * The rest as the parameters of the same names (durations in ns).
 */
struct ep_engine_cfg {
	int64_t repetitions;
	int64_t max_time_ns;
	int cpu;
	int counters;
	const char *metrics;
	/* Calibrated cases. */
	int64_t min_repetitions;
	int64_t warmup;
	int64_t warmup_max;
	int64_t sample_time_ns;
	double spread;
	double precision;
	/* Trial cases. */
	int64_t duration_ns;
	int64_t ramp_ns;
	int64_t settle_ns;
	double percentiles[EP_MAX_PERCENTILES];
	int n_percentiles;
};

/**
 * ep_cfg_read() - the settings from @values, the kernel's parameter values
 * in the order of its combined list (its own, then the engine's offered).
 * min_repetitions is capped at repetitions; a parameter not offered for
 * @k's kind reads as 0.
 */
void ep_cfg_read(struct ep_engine_cfg *cfg, const struct ep_kernel *k,
		 const struct ep_value *values);

#endif /* EMBPERF_CORE_CFG_H */
