/* SPDX-License-Identifier: MIT */
/*
 * bench.h - internals of the bench object and of a run, shared by bench.c
 * (parameters, orchestration) and engine.c (measuring one case).
 */
#ifndef EMBPERF_CORE_BENCH_H
#define EMBPERF_CORE_BENCH_H

#include "kernel.h"
#include "params.h"
#include "result.h"
#include "util.h"

/** The engine's own parameters, accepted by every kernel after its own. */
extern const struct ep_param_desc ep_engine_params[];
extern const int ep_engine_n_params;

/** ep_engine_param_count() - engine parameters offered for kernel @k's kind. */
int ep_engine_param_count(const struct ep_kernel *k);

/** ep_engine_param() - engine parameter @index of those offered for @k, or NULL. */
const struct ep_param_desc *ep_engine_param(const struct ep_kernel *k, int index);

/** ep_kernel_param_total() - kernel parameters plus engine parameters. */
int ep_kernel_param_total(const struct ep_kernel *k);

/** ep_kernel_param() - parameter @index of the combined list, or NULL. */
const struct ep_param_desc *ep_kernel_param(const struct ep_kernel *k, int index);

/** ep_kernel_param_default() - default text of parameter @index for kernel @k. */
const char *ep_kernel_param_default(const struct ep_kernel *k, int index);

struct embperf_bench {
	embperf_ctx *ctx;
	const struct ep_kernel *kernel;
	int n_params;
	struct ep_value *values;
	struct embperf_result **results;
	int n_results;
	char errmsg[EP_ERRMSG_MAX];
};

/** The most percentiles the 'percentiles' parameter may list. */
#define EP_MAX_PERCENTILES 32

/**
 * ep_percentiles_parse() - the 'percentiles' parameter's list.
 * Return: the count (1..EP_MAX_PERCENTILES), or -EINVAL with a message in
 * @err that names the parameter, the value and what is accepted.
 */
int ep_percentiles_parse(const char *text, double *out, char *err, size_t err_size);

/** Engine settings of one run, read from the engine parameters. */
struct ep_engine_cfg {
	int64_t repetitions;
	int64_t min_repetitions;
	int64_t warmup;
	int64_t sample_time_ns;
	int64_t max_time_ns;
	double spread;
	int counters;
	/* Trial cases. */
	int64_t duration_ns;
	int64_t ramp_ns;
	int64_t settle_ns;
	double percentiles[EP_MAX_PERCENTILES];
	int n_percentiles;
};

/**
 * struct ep_run_case - a case as the run keeps it: calibrated (@c) or a
 * trial case (@tc, with its own copy of the search in @search).
 */
struct ep_run_case {
	struct ep_case c;
	struct ep_trial_case tc;
	struct ep_search search;
	int is_trial;
	char *labels;
};

struct ep_run {
	embperf_bench *bench;
	embperf_ctx *ctx;
	const struct ep_kernel *kernel;
	struct ep_engine_cfg cfg;
	int cpu;
	char *params_text;
	struct ep_run_case *cases;
	int n_cases;
	int cap_cases;
	struct embperf_result **results;
	int n_results;
	int cap_results;
	int budget_hit;   /* the context's budget stopped a case early */
};

/**
 * ep_bench_new_kernel() - a bench for a kernel given directly (tests use
 * it to run synthetic kernels that are not in the registry).
 */
embperf_bench *ep_bench_new_kernel(embperf_ctx *ctx, const struct ep_kernel *k);

/**
 * ep_engine_read_cfg() - fill @run->cfg from the engine parameters of
 * ep_engine_params[] (min_repetitions capped at repetitions). 'cpu' and
 * 'metrics' are read where they act: pinning, and the end of the run.
 */
void ep_engine_read_cfg(struct ep_run *run);

/** ep_run_add_result() - append a finished result to the run. Return: 0 or -ENOMEM. */
int ep_run_add_result(struct ep_run *run, struct embperf_result *r);

/**
 * ep_engine_measure() - calibrate, warm up and sample one case, and add its
 * result to the run.
 * Return: 0; -ECANCELED; -ETIME when the context's budget ended before the
 * first sample; a kernel error.
 */
int ep_engine_measure(struct ep_run *run, struct ep_run_case *rc, int index);

/**
 * ep_trial_measure() - run the trials of a trial case (repeated, or as its
 * search asks) and add its results to the run.
 * Return: 0; -ECANCELED; -ETIME when the budget ended before any trial
 * counted; a kernel error.
 */
int ep_trial_measure(struct ep_run *run, struct ep_run_case *rc, int index);

#endif /* EMBPERF_CORE_BENCH_H */
