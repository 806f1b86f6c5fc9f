// SPDX-License-Identifier: MIT
/*
 * test_hist.c - the log-linear latency histogram against exact answers:
 * percentiles against a sorted copy of the same data (same nearest-rank
 * rule), the bucket layout and its error bound, huge values, merge, and
 * the NaN cases.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/hist.h"

#define N_POINTS 1000000

/* Percentiles checked, in parts per 10^4 so the exact rank is integer arithmetic. */
static const unsigned int pct_e4[] = { 5000, 9000, 9900, 9990, 9999 };

/* splitmix64 (Steele, Lea, Flood 2014): a fixed-seed generator of our own. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static double unit(uint64_t *state)
{
	return (double)(splitmix64(state) >> 11) * 0x1.0p-53;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Exact nearest-rank value: sorted[ceil(p / 10^4 * n) - 1], in integers. */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, unsigned int p_e4)
{
	uint64_t rank = ((uint64_t)p_e4 * n + 9999) / 10000;

	return sorted[(rank ? rank : 1) - 1];
}

/*
 * Record @v into a histogram, sort @v, and compare: each percentile within
 * 1/128 of the exact value (the scheme's bound; stricter than 1 %), min,
 * max and mean exact.
 */
static void check_against_sorted(uint64_t *v, size_t n, const char *name)
{
	struct ep_hist *h = ep_hist_new();
	uint64_t sum = 0;

	cr_assert_not_null(h);
	for (size_t i = 0; i < n; i++) {
		ep_hist_record(h, v[i]);
		sum += v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	cr_expect_eq(ep_hist_count(h), n, "%s: count", name);
	cr_expect_eq(ep_hist_min(h), v[0], "%s: min", name);
	cr_expect_eq(ep_hist_max(h), v[n - 1], "%s: max", name);
	cr_expect(ep_hist_mean(h) == (double)sum / (double)n, "%s: mean %.6f, exact %.6f",
		name, ep_hist_mean(h), (double)sum / (double)n);
	for (size_t k = 0; k < sizeof(pct_e4) / sizeof(pct_e4[0]); k++) {
		double got = ep_hist_percentile(h, pct_e4[k] / 100.0);
		double exact = (double)exact_percentile(v, n, pct_e4[k]);

		cr_expect(fabs(got - exact) <= exact / 128.0,
			"%s p%g: histogram %.1f, exact %.0f (error %.3f %%, bound 0.78 %%)",
			name, pct_e4[k] / 100.0, got, exact, 100.0 * fabs(got - exact) / exact);
	}
	ep_hist_free(h);
}

/* Data from @gen, 10^6 points, checked against the sorted copy. */
static void check_data(uint64_t (*gen)(uint64_t *state), const char *name)
{
	uint64_t *v = malloc(N_POINTS * sizeof(*v));
	uint64_t state = 0x5eed0f415705ull;

	cr_assert_not_null(v);
	for (size_t i = 0; i < N_POINTS; i++)
		v[i] = gen(&state);
	check_against_sorted(v, N_POINTS, name);
	free(v);
}

/* Uniform over [100 ns, 10 ms]. */
static uint64_t gen_uniform(uint64_t *s)
{
	return 100 + (uint64_t)(unit(s) * (10e6 - 100));
}

/* 100 ns plus an exponential of mean 200 us (tail to a few ms). */
static uint64_t gen_exponential(uint64_t *s)
{
	return 100 + (uint64_t)(-log1p(-unit(s)) * 200e3);
}

/* 80 % around 2 us (1.5 to 2.5 us), 20 % around 5 ms (4.5 to 5.5 ms). */
static uint64_t gen_bimodal(uint64_t *s)
{
	double u = unit(s), w = unit(s);

	return u < 0.8 ? 1500 + (uint64_t)(w * 1000) : 4500000 + (uint64_t)(w * 1e6);
}

/* Log-uniform over [100 ns, 10 ms]: every group of the range gets values. */
static uint64_t gen_loguniform(uint64_t *s)
{
	return (uint64_t)exp(log(100.0) + unit(s) * log(1e5));
}

Test(hist, uniform_percentiles)
{
	check_data(gen_uniform, "uniform");
}

Test(hist, exponential_percentiles)
{
	check_data(gen_exponential, "exponential");
}

Test(hist, bimodal_percentiles)
{
	check_data(gen_bimodal, "bimodal");
}

Test(hist, loguniform_percentiles)
{
	check_data(gen_loguniform, "log-uniform");
}

Test(hist, exact_below_128)
{
	struct ep_hist h;

	ep_hist_reset(&h);
	for (uint64_t v = 0; v < 128; v++)
		ep_hist_record(&h, v);
	for (uint64_t v = 0; v < 128; v++) {
		double pct = (double)(v + 1) / 128.0 * 100.0;

		cr_expect(ep_hist_percentile(&h, pct) == (double)v, "p%g: %g, want %llu", pct,
			ep_hist_percentile(&h, pct), (unsigned long long)v);
		cr_expect_eq(ep_hist_bucket_index(v), v);
	}
	cr_expect_eq(ep_hist_min(&h), 0);
	cr_expect_eq(ep_hist_max(&h), 127);
	cr_expect(ep_hist_mean(&h) == 63.5);
}

Test(hist, nearest_rank_rule)
{
	struct ep_hist h;

	ep_hist_reset(&h);
	for (uint64_t v = 1; v <= 100; v++)
		ep_hist_record(&h, v);
	cr_expect(ep_hist_percentile(&h, 50) == 50.0);
	cr_expect(ep_hist_percentile(&h, 50.5) == 51.0, "ceil(50.5) is rank 51");
	cr_expect(ep_hist_percentile(&h, 1) == 1.0);
	cr_expect(ep_hist_percentile(&h, 0.001) == 1.0, "the smallest rank is 1");
	cr_expect(ep_hist_percentile(&h, 99.9) == 100.0);
	cr_expect(ep_hist_percentile(&h, 100) == 100.0);

	ep_hist_reset(&h);
	for (int i = 0; i < 3; i++)
		ep_hist_record(&h, 5);
	ep_hist_record(&h, 7);
	cr_expect(ep_hist_percentile(&h, 75) == 5.0, "3 of 4 values are <= 5");
	cr_expect(ep_hist_percentile(&h, 75.1) == 7.0);
}

/* 99.9 % of 10^6 is rank 999000, not 999001 from the rounding of 99.9. */
Test(hist, rank_is_not_shifted_by_rounding)
{
	struct ep_hist *h = ep_hist_new();

	cr_assert_not_null(h);
	for (uint64_t i = 0; i < 1000000; i++)
		ep_hist_record(h, i < 999000 ? 10 : 20);
	cr_expect(ep_hist_percentile(h, 99.9) == 10.0, "rank 999000 is the last 10");
	cr_expect(ep_hist_percentile(h, 99.90001) == 20.0);
	ep_hist_free(h);
}

/* Buckets are contiguous, ascending, and their midpoints within 1/128 of their values. */
Test(hist, bucket_layout)
{
	size_t n = ep_hist_bucket_count();

	cr_assert_eq(n, 2240);
	cr_expect_eq(ep_hist_bucket_lower_ns(n - 1), (1ull << 40) - (1ull << 33));
	for (size_t i = 0; i + 1 < n; i++) {
		uint64_t lo = ep_hist_bucket_lower_ns(i), hi = ep_hist_bucket_lower_ns(i + 1);
		uint64_t width = hi - lo;

		cr_assert_gt(hi, lo, "bucket %zu", i);
		cr_assert_eq(ep_hist_bucket_index(lo), i, "lower edge of %zu", i);
		cr_assert_eq(ep_hist_bucket_index(hi - 1), i, "upper edge of %zu", i);
		if (i < 128)
			cr_assert_eq(width, 1, "bucket %zu is exact", i);
		else
			cr_assert_leq((double)(width - 1) / 2.0 / (double)lo, 1.0 / 128.0,
				"bucket %zu: midpoint error over 0.78 %%", i);
	}
	cr_expect_eq(ep_hist_bucket_index((1ull << 40) - 1), n - 1);
	cr_expect_eq(ep_hist_bucket_index(1ull << 40), n - 1);
	cr_expect_eq(ep_hist_bucket_index(UINT64_MAX), n - 1);
	cr_expect_lt(ep_hist_bucket_index(600000000000ull), n - 1, "10 min is in range");
}

/* Random values of every magnitude fall in the bucket whose edges hold them. */
Test(hist, bucket_of_random_values)
{
	uint64_t state = 42;
	size_t last = ep_hist_bucket_count() - 1;

	for (int k = 0; k < 100000; k++) {
		uint64_t v = splitmix64(&state) >> (splitmix64(&state) % 64);
		size_t i = ep_hist_bucket_index(v);

		cr_assert_leq(ep_hist_bucket_lower_ns(i), v, "value %llu", (unsigned long long)v);
		if (i < last)
			cr_assert_lt(v, ep_hist_bucket_lower_ns(i + 1), "value %llu",
				(unsigned long long)v);
	}
}

Test(hist, huge_values)
{
	struct ep_hist h;

	ep_hist_reset(&h);
	for (uint64_t i = 0; i < 1000; i++)
		ep_hist_record(&h, 600000000000ull + i * 1000000);	/* 10 min, 1 ms apart */
	cr_expect(fabs(ep_hist_percentile(&h, 50) - 600499000000.0) <= 600499000000.0 / 128,
		"10 min: p50 %.0f", ep_hist_percentile(&h, 50));

	ep_hist_reset(&h);
	ep_hist_record(&h, 1);
	ep_hist_record(&h, UINT64_MAX);
	ep_hist_record(&h, 3600000000000ull);	/* one hour */
	cr_expect_eq(ep_hist_count(&h), 3);
	cr_expect_eq(ep_hist_min(&h), 1);
	cr_expect_eq(ep_hist_max(&h), UINT64_MAX);
	cr_expect_eq(h.buckets[ep_hist_bucket_count() - 1], 2, "both counted in the last bucket");
	cr_expect(ep_hist_percentile(&h, 100) == (double)UINT64_MAX);
	cr_expect(ep_hist_percentile(&h, 10) == 1.0);
	/* the sum carries past 2^64: (2^64 - 1 + 1 + 3.6e12) / 3 */
	cr_expect(ep_hist_mean(&h) == (18446744073709551616.0 + 3600000000000.0) / 3.0,
		"mean %g", ep_hist_mean(&h));

	ep_hist_reset(&h);
	for (int i = 0; i < 4; i++)
		ep_hist_record(&h, UINT64_MAX);
	cr_expect(ep_hist_mean(&h) == (double)UINT64_MAX, "mean %g", ep_hist_mean(&h));
}

/* Merging per-thread histograms equals recording everything into one. */
Test(hist, merge_equals_one_histogram)
{
	struct ep_hist *all = ep_hist_new(), *part[3], *sum = ep_hist_new();
	uint64_t state = 7;

	cr_assert(all && sum);
	for (int p = 0; p < 3; p++)
		cr_assert_not_null(part[p] = ep_hist_new());
	for (int i = 0; i < 300000; i++) {
		uint64_t v = gen_loguniform(&state);

		ep_hist_record(all, v);
		ep_hist_record(part[i % 3], v);
	}
	ep_hist_record(all, UINT64_MAX);	/* the carry word merges too */
	ep_hist_record(part[1], UINT64_MAX);
	for (int p = 0; p < 3; p++)
		ep_hist_merge(sum, part[p]);
	cr_expect_eq(memcmp(all, sum, sizeof(*all)), 0, "merged histogram differs");
	cr_expect_eq(ep_hist_count(sum), 300001);
	cr_expect(ep_hist_percentile(sum, 99) == ep_hist_percentile(all, 99));

	ep_hist_reset(part[0]);
	ep_hist_merge(sum, part[0]);
	cr_expect_eq(memcmp(all, sum, sizeof(*all)), 0, "merging an empty one changes nothing");
	for (int p = 0; p < 3; p++)
		ep_hist_free(part[p]);
	ep_hist_free(all);
	ep_hist_free(sum);
}

Test(hist, empty)
{
	struct ep_hist h;

	ep_hist_reset(&h);
	cr_expect_eq(ep_hist_count(&h), 0);
	cr_expect_eq(ep_hist_min(&h), 0);
	cr_expect_eq(ep_hist_max(&h), 0);
	cr_expect(isnan(ep_hist_mean(&h)));
	cr_expect(isnan(ep_hist_percentile(&h, 50)));
	cr_expect(isnan(ep_hist_percentile(&h, 100)));

	ep_hist_record(&h, 1000);
	ep_hist_reset(&h);
	cr_expect_eq(ep_hist_count(&h), 0, "reset empties");
	cr_expect(isnan(ep_hist_percentile(&h, 50)));
	ep_hist_free(NULL);
}

Test(hist, bad_percentile)
{
	struct ep_hist h;

	ep_hist_reset(&h);
	ep_hist_record(&h, 1000);
	cr_expect(isnan(ep_hist_percentile(&h, 0)));
	cr_expect(isnan(ep_hist_percentile(&h, -1)));
	cr_expect(isnan(ep_hist_percentile(&h, NAN)));
	cr_expect(isnan(ep_hist_percentile(&h, 100.0001)));
	cr_expect(isnan(ep_hist_percentile(&h, INFINITY)));
	cr_expect(isnan(ep_hist_percentile(&h, -INFINITY)));
	cr_expect(ep_hist_percentile(&h, 100) == 1000.0);
	cr_expect(ep_hist_percentile(&h, 1e-9) == 1000.0);
}
