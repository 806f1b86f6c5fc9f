/* SPDX-License-Identifier: MIT */
/*
 * results.h - reading the results of a run's cases back in finish(), for
 * the CPU kernels whose value is derived from several cases (cpu.par's
 * parallelism, cpu.mhz's clock).
 */
#ifndef EMBPERF_CPU_RESULTS_H
#define EMBPERF_CPU_RESULTS_H

#include "lib/core/kernel.h"

/**
 * ep_cpu_result_value() - the value of a case's result.
 * @run:    the run, in finish().
 * @metric: metric name ("step_time").
 * @labels: the case's labels, exactly as given to ep_run_add_case().
 *
 * Return: the result's primary statistic; NaN when the run has no such result.
 */
double ep_cpu_result_value(const struct ep_run *run, const char *metric, const char *labels);

#endif /* EMBPERF_CPU_RESULTS_H */
