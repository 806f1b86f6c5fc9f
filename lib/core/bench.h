/* SPDX-License-Identifier: MIT */
/*
 * bench.h - the bench object (bench.c).
 */
#ifndef EMBPERF_CORE_BENCH_H
#define EMBPERF_CORE_BENCH_H

#include "embperf.h"
#include "util.h"

struct ep_kernel;
struct ep_value;

struct embperf_bench {
	embperf_ctx *ctx;
	const struct ep_kernel *kernel;
	int n_params;
	struct ep_value *values;
	struct embperf_result **results;
	int n_results;
	char errmsg[EP_ERRMSG_MAX];
};

/**
 * ep_bench_new_kernel() - a bench for a kernel given directly (tests use
 * it to run synthetic kernels that are not in the registry).
 */
embperf_bench *ep_bench_new_kernel(embperf_ctx *ctx, const struct ep_kernel *k);

#endif /* EMBPERF_CORE_BENCH_H */
