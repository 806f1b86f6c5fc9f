// SPDX-License-Identifier: MIT
/*
 * hist-bench.c - cost of one ep_hist_record(), in ns.
 *
 * Times 10^7 records of varied values (log-uniform over 100 ns to 10 ms,
 * taken from a table of 4096 so the generator is not timed) with
 * CLOCK_MONOTONIC_RAW, several runs, and prints the median ns per record.
 * A second loop that only sums the same table gives the loop's own cost,
 * printed for reference (not subtracted).
 *
 * Built by meson, not installed, not run by the tests:
 *   BUILD/bench/hist-bench [runs]
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/core/hist.h"

#define RECORDS 10000000u
#define TABLE 4096u	/* a power of two: index with a mask */
#define MAX_RUNS 101

/* splitmix64: fixed-seed values, the same in every run. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* fill_values() - @n log-uniform values over [100 ns, 10 ms]. */
static void fill_values(uint64_t *v, size_t n)
{
	uint64_t state = 1;

	for (size_t i = 0; i < n; i++) {
		double u = (double)(splitmix64(&state) >> 11) * 0x1.0p-53;

		v[i] = (uint64_t)exp(log(100.0) + u * log(1e5));
	}
}

/* now_ns() - CLOCK_MONOTONIC_RAW in ns. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* time_records() - ns per ep_hist_record() over RECORDS records. */
static double time_records(struct ep_hist *h, const uint64_t *v)
{
	uint64_t t0, t1;

	ep_hist_reset(h);
	t0 = now_ns();
	for (uint32_t i = 0; i < RECORDS; i++)
		ep_hist_record(h, v[i & (TABLE - 1)]);
	t1 = now_ns();
	return (double)(t1 - t0) / RECORDS;
}

/* time_loop() - ns per iteration of the same loop summing instead of recording. */
static double time_loop(const uint64_t *v, uint64_t *sink)
{
	volatile uint64_t acc = 0;
	uint64_t t0, t1;

	t0 = now_ns();
	for (uint32_t i = 0; i < RECORDS; i++)
		acc += v[i & (TABLE - 1)];
	t1 = now_ns();
	*sink = acc;
	return (double)(t1 - t0) / RECORDS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* median() - median of @n values (sorts them). */
static double median(double *x, int n)
{
	qsort(x, (size_t)n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
}

int main(int argc, char **argv)
{
	static uint64_t values[TABLE];
	double rec[MAX_RUNS], loop[MAX_RUNS], med_rec, med_loop;
	int runs = argc > 1 ? atoi(argv[1]) : 11;
	struct ep_hist *h = ep_hist_new();
	uint64_t sink = 0;

	if (!h || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: %s [runs 1..%d]\n", argv[0], MAX_RUNS);
		return 2;
	}
	fill_values(values, TABLE);
	time_records(h, values);	/* warm-up: fault the histogram in */
	for (int r = 0; r < runs; r++) {
		rec[r] = time_records(h, values);
		loop[r] = time_loop(values, &sink);
	}
	med_rec = median(rec, runs);	/* sorts rec: rec[0] is then the fastest run */
	med_loop = median(loop, runs);
	printf("ep_hist_record: %u records x %d runs, values 100 ns..10 ms (log-uniform)\n",
		RECORDS, runs);
	printf("record: median %.2f ns, min %.2f, max %.2f ns per record (last run: p99 %.0f ns, count %" PRIu64 ")\n",
		med_rec, rec[0], rec[runs - 1], ep_hist_percentile(h, 99), ep_hist_count(h));
	printf("loop alone (not subtracted): median %.2f ns per iteration (sink %" PRIu64 ")\n",
		med_loop, sink);
	ep_hist_free(h);
	return 0;
}
