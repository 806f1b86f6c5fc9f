/* SPDX-License-Identifier: MIT */
/*
 * stats.h - statistics of samples (stats.c): the summary of a result, the
 * library's one median and the robust spread of the stop rule.
 */
#ifndef EMBPERF_CORE_STATS_H
#define EMBPERF_CORE_STATS_H

#include <stddef.h>

/**
 * struct ep_stats - statistics of a result's samples.
 * Fields are NaN when undefined (no samples; stddev of one sample).
 */
struct ep_stats {
	size_t n;
	double min, max, mean, median, stddev;
};

/** ep_stats_compute() - statistics of @n values (any order; not modified). */
void ep_stats_compute(const double *values, size_t n, struct ep_stats *out);

/**
 * ep_median_inplace() - median of @v[0..@n-1], sorting @v in place (the
 * library's one median: the engine's stop rule, statistics, kernels).
 * Return: the middle value; the mean of the two middle ones for even @n;
 * NaN for @n 0.
 */
double ep_median_inplace(double *v, size_t n);

/**
 * ep_robust_spread() - the samples' spread: 1.4826 x median absolute
 * deviation / |median| (stddev / mean for normal samples, but deaf to a few
 * stretched ones). @tmp has room for @n values. Return: NaN for no
 * samples; for a median of 0, 0 when most samples are 0 (a counter no
 * trial counted), else INFINITY.
 */
double ep_robust_spread(const double *v, size_t n, double *tmp);

/**
 * ep_median_ci_halfwidth() - how far the distribution-free 95 % interval of
 * the median of @v[0..@n-1] reaches from it, relative to it: the interval
 * is the values of ranks j and n + 1 - j of the sorted samples, j the
 * largest with P(Binomial(n, 1/2) < j) <= 0.025. @tmp has room for @n
 * values. Return: the larger side over |median|; INFINITY below 6 samples
 * (no such interval) or for a median of 0.
 */
double ep_median_ci_halfwidth(const double *v, size_t n, double *tmp);

#endif /* EMBPERF_CORE_STATS_H */
