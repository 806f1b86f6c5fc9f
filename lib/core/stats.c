// SPDX-License-Identifier: MIT
/*
 * stats.c - statistics of a result's samples, and the library's one median.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double ep_median_inplace(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void ep_stats_compute(const double *values, size_t n, struct ep_stats *out)
{
	double sum = 0.0, mean, ss = 0.0;
	double small[64], *sorted = small;

	out->n = n;
	out->min = out->max = out->mean = out->median = out->stddev = NAN;
	if (!n)
		return;
	if (n > (sizeof(small) / sizeof(small[0])) && !(sorted = malloc(n * sizeof(*sorted))))
		sorted = NULL;
	for (size_t i = 0; i < n; i++)
		sum += values[i];
	mean = sum / (double)n;
	/* Two passes: the textbook one-pass formula loses precision when the
	 * spread is tiny next to the mean, which is the common case here. */
	for (size_t i = 0; i < n; i++)
		ss += (values[i] - mean) * (values[i] - mean);
	out->mean = mean;
	out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	out->min = out->max = values[0];
	for (size_t i = 1; i < n; i++) {
		if (values[i] < out->min)
			out->min = values[i];
		if (values[i] > out->max)
			out->max = values[i];
	}
	if (sorted) {
		memcpy(sorted, values, n * sizeof(*sorted));
		out->median = ep_median_inplace(sorted, n);
		if (sorted != small)
			free(sorted);
	}
}

/* The largest rank j with P(Binomial(n, 1/2) < j) <= 0.025 (0: none). */
static size_t median_ci_rank(size_t n)
{
	double term = pow(0.5, (double)n), below = term;
	size_t j;

	for (j = 1; j <= n && below <= 0.025; j++) {
		term = term * (double)(n - j + 1) / (double)j;
		below += term;
	}
	return j - 1;
}

double ep_median_ci_halfwidth(const double *v, size_t n, double *tmp)
{
	size_t j;
	double median;

	if (n < 6)
		return INFINITY;
	memcpy(tmp, v, n * sizeof(*tmp));
	median = ep_median_inplace(tmp, n); /* sorts tmp */
	j = median_ci_rank(n);
	if (!j || median == 0.0)
		return INFINITY;
	return fmax(median - tmp[j - 1], tmp[n - j] - median) / fabs(median);
}

/*
 * 1.4826 x the median absolute deviation over the median's magnitude, which
 * equals stddev / mean for normally spread samples. A plain relative
 * standard deviation never falls again after one sample a preemption
 * stretched 100x (it grows as the square root of the count), so the stop
 * rule would take every repetition on a shared machine.
 */
double ep_robust_spread(const double *v, size_t n, double *tmp)
{
	double median, mad;

	if (!n)
		return NAN;
	memcpy(tmp, v, n * sizeof(*tmp));
	median = ep_median_inplace(tmp, n);
	for (size_t i = 0; i < n; i++)
		tmp[i] = fabs(v[i] - median);
	mad = ep_median_inplace(tmp, n);
	/* Around a median of 0 (a counter no trial counted, a loss of 0 %) the
	 * samples agree when they are all 0, and a relative spread means
	 * nothing otherwise. */
	if (median == 0.0)
		return mad == 0.0 ? 0.0 : INFINITY;
	return 1.4826 * mad / fabs(median);
}
