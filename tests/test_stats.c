// SPDX-License-Identifier: MIT
/*
 * test_stats.c - statistics on known data.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>

#include "lib/core/result.h"

Test(stats, even_count)
{
	const double v[] = { 4, 1, 3, 2 };
	struct ep_stats s;

	ep_stats_compute(v, 4, &s);
	cr_assert_eq(s.n, 4);
	cr_assert_float_eq(s.mean, 2.5, 1e-12);
	cr_assert_float_eq(s.median, 2.5, 1e-12);
	cr_assert_float_eq(s.min, 1.0, 0);
	cr_assert_float_eq(s.max, 4.0, 0);
	cr_assert_float_eq(s.stddev, sqrt(5.0 / 3.0), 1e-12, "sample stddev uses n - 1");
	cr_assert_float_eq(v[0], 4.0, 0, "input is not reordered");
}

Test(stats, odd_count_median)
{
	const double v[] = { 9, 1, 5, 7, 3 };
	struct ep_stats s;

	ep_stats_compute(v, 5, &s);
	cr_assert_float_eq(s.median, 5.0, 0);
	cr_assert_float_eq(s.mean, 5.0, 1e-12);
}

Test(stats, one_and_none)
{
	const double v[] = { 42 };
	struct ep_stats s;

	ep_stats_compute(v, 1, &s);
	cr_assert_float_eq(s.median, 42.0, 0);
	cr_assert(isnan(s.stddev), "stddev of one sample is undefined");
	ep_stats_compute(NULL, 0, &s);
	cr_assert_eq(s.n, 0);
	cr_assert(isnan(s.mean) && isnan(s.min) && isnan(s.median));
}

Test(stats, precise_when_spread_is_tiny)
{
	double v[3] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	struct ep_stats s;

	ep_stats_compute(v, 3, &s);
	cr_assert_float_eq(s.stddev, 1.0, 1e-9);
}

Test(stats, median_inplace_sorts_and_takes_the_middle)
{
	double odd[] = { 9, 1, 5, 7, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 42 };

	cr_assert_float_eq(ep_median_inplace(odd, 5), 5.0, 0);
	cr_assert(odd[0] == 1.0 && odd[4] == 9.0, "sorted in place");
	cr_assert_float_eq(ep_median_inplace(even, 4), 2.5, 0, "mean of the two middle ones");
	cr_assert_float_eq(ep_median_inplace(one, 1), 42.0, 0);
	cr_assert(isnan(ep_median_inplace(NULL, 0)));
}

Test(stats, many_samples_use_the_heap_path)
{
	double v[1001];
	struct ep_stats s;

	for (int i = 0; i < 1001; i++)
		v[i] = (double)((i * 7919) % 1001); /* a permutation of 0..1000 */
	ep_stats_compute(v, 1001, &s);
	cr_assert_float_eq(s.median, 500.0, 0);
	cr_assert_float_eq(s.min, 0.0, 0);
	cr_assert_float_eq(s.max, 1000.0, 0);
	cr_assert_float_eq(s.mean, 500.0, 1e-9);
}

Test(stats, result_primary_follows_metric)
{
	const double v[] = { 3, 1, 2 };
	struct embperf_result *r = ep_result_new("k", "m", "ns", "a=1 b=22", "x=1");

	cr_assert(r);
	r->primary = EP_PRIMARY_MIN;
	cr_assert_eq(ep_result_set_samples(r, v, 3), 0);
	cr_assert_float_eq(embperf_result_value(r), 1.0, 0);
	cr_assert_str_eq(embperf_result_primary(r), "min");
	r->primary = EP_PRIMARY_MAX;
	ep_result_set_samples(r, v, 3);
	cr_assert_float_eq(embperf_result_value(r), 3.0, 0);
	cr_assert_float_eq(embperf_result_stat(r, EMBPERF_STAT_MEDIAN), 2.0, 0);
	cr_assert_float_eq(embperf_result_sample(r, 0), 3.0, 0, "samples keep their order");
	cr_assert(isnan(embperf_result_sample(r, 3)));
	ep_result_free(r);
}

Test(stats, labels)
{
	char buf[16];

	cr_assert_eq(ep_labels_get("op=rd size=1M", "size", buf, sizeof(buf)), 2);
	cr_assert_str_eq(buf, "1M");
	cr_assert_eq(ep_labels_get("op=rd size=1M", "op", buf, sizeof(buf)), 2);
	cr_assert_str_eq(buf, "rd");
	cr_assert_eq(ep_labels_get("op=rd size=1M", "o", buf, sizeof(buf)), -ENOENT);
	cr_assert_eq(ep_labels_get("", "op", buf, sizeof(buf)), -ENOENT);
}

/* A counter no trial counted (all 0) agrees with itself; a median of 0 with
 * samples scattered around it has no relative spread. */
Test(stats, robust_spread_around_zero)
{
	const double zeros[] = { 0, 0, 0, 0 };
	const double scattered[] = { -2, 0, 3, -1, 0.5 };
	const double some[] = { 10, 11, 9, 10 };
	double tmp[5];

	cr_assert_eq(ep_robust_spread(zeros, 4, tmp), 0.0);
	cr_assert(isinf(ep_robust_spread(scattered, 5, tmp)));
	cr_assert_float_eq(ep_robust_spread(some, 4, tmp), 1.4826 * 0.5 / 10.0, 1e-12);
}
