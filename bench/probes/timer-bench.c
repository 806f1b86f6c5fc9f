// SPDX-License-Identifier: MIT
/*
 * timer-bench.c - run os.timer and print its latency distribution on one
 * line, for bench/fidelity/compare-cyclictest.sh; or measure how far a trial's
 * measured time overshoots its 'duration'.
 *
 *   timer-bench [key=value ...]
 *       one run; prints n, min, p50, p90, p99, p99.9, p99.99, max, mean
 *       (us), overruns and wake-ups per second
 *   timer-bench --overshoot RUNS [key=value ...]
 *       RUNS runs of one trial each; prints each trial's measured time -
 *       duration (us) and their min, median and max. The measured time is
 *       the trial's wake-ups divided by its wake-ups per second (both from
 *       the engine's tally: the rate is wake-ups / measured time).
 *
 * One line per run, in the layout bench/fidelity/compare-cyclictest.sh
 * parses; the reports carry the same percentiles. Built for developers,
 * not installed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embperf.h"

/** find() - the result of @metric from the last run, or NULL. */
static const embperf_result *find(const embperf_bench *b, const char *metric)
{
	for (int i = 0; i < embperf_bench_result_count(b); i++)
		if (!strcmp(embperf_result_metric(embperf_bench_result(b, i)), metric))
			return embperf_bench_result(b, i);
	return NULL;
}

/** counter() - a result's counter, NaN when absent. */
static double counter(const embperf_result *r, const char *name)
{
	double v = NAN;

	if (r)
		embperf_result_counter(r, name, &v);
	return v;
}

/** set_args() - apply key=value arguments. Return: 0 or -1 (reported). */
static int set_args(embperf_bench *b, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		int rc;

		if (!eq) {
			fprintf(stderr, "timer-bench: '%s' is not key=value\n", argv[i]);
			return -1;
		}
		*eq = '\0';
		rc = embperf_bench_set(b, argv[i], eq + 1);
		*eq = '=';
		if (rc) {
			fprintf(stderr, "timer-bench: %s\n", embperf_bench_errmsg(b));
			return -1;
		}
	}
	return 0;
}

/** run() - run the bench. Return: 0 or -1 (reported). */
static int run(embperf_bench *b)
{
	int rc = embperf_bench_run(b);

	if (rc) {
		fprintf(stderr, "timer-bench: %s\n", embperf_bench_errmsg(b));
		return -1;
	}
	return 0;
}

/** print_distribution() - one line: the latency distribution of the last run. */
static int print_distribution(const embperf_bench *b)
{
	const embperf_result *lat = find(b, "latency");

	if (!lat) {
		fprintf(stderr, "timer-bench: no wake-up was measured\n");
		return -1;
	}
	printf("n=%.0f min=%.3f", embperf_result_dist_stat(lat, EMBPERF_STAT_N),
	       embperf_result_dist_stat(lat, EMBPERF_STAT_MIN));
	for (int i = 0; i < embperf_result_percentile_count(lat); i++) {
		double pct, v;

		if (!embperf_result_percentile_at(lat, i, &pct, &v))
			printf(" p%g=%.3f", pct, v);
	}
	printf(" max=%.3f mean=%.3f overruns=%.0f wakeups_per_s=%.1f\n",
	       embperf_result_dist_stat(lat, EMBPERF_STAT_MAX),
	       embperf_result_dist_stat(lat, EMBPERF_STAT_MEAN), counter(lat, "overruns"),
	       embperf_result_value(find(b, "wakeups")));
	return 0;
}

/** duration_ns() - the canonical text of 'duration' ("200ms") in ns; 0 if unreadable. */
static double duration_ns(const embperf_bench *b)
{
	static const struct { const char *suffix; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char text[64], *end;
	double v;

	if (embperf_bench_get(b, "duration", text, sizeof(text)) < 0)
		return 0;
	v = strtod(text, &end);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix))
			return v * units[i].ns;
	return 0;
}

/** cmp_double() - qsort order of doubles. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/** overshoot() - @runs one-trial runs; print measured time - duration. */
static int overshoot(embperf_bench *b, int runs)
{
	double want_ns = duration_ns(b), *over_us = calloc((size_t)runs, sizeof(double));
	int rc = over_us && want_ns > 0 ? 0 : -1;

	if (!rc)
		rc = embperf_bench_set(b, "repetitions", "1") ? -1 : 0;
	for (int i = 0; i < runs && !rc; i++) {
		const embperf_result *w;

		rc = run(b);
		w = rc ? NULL : find(b, "wakeups");
		if (!w || embperf_result_value(w) <= 0) {
			fprintf(stderr, "timer-bench: run %d counted no wake-up\n", i);
			rc = -1;
			break;
		}
		over_us[i] = (counter(w, "units") / embperf_result_value(w) * 1e9 - want_ns) / 1e3;
		printf("run %d: measured - duration = %.1f us\n", i, over_us[i]);
	}
	if (!rc) {
		qsort(over_us, (size_t)runs, sizeof(double), cmp_double);
		printf("overshoot over %d trials (us): min=%.1f median=%.1f max=%.1f\n", runs,
		       over_us[0], over_us[runs / 2], over_us[runs - 1]);
	}
	free(over_us);
	return rc;
}

/** main() - one run, or --overshoot RUNS runs, of os.timer with key=value parameters. */
int main(int argc, char **argv)
{
	embperf_ctx *ctx = embperf_ctx_new();
	embperf_bench *b = ctx ? embperf_bench_new(ctx, "os.timer") : NULL;
	int runs = 0, first = 1, rc;

	if (!b) {
		fprintf(stderr, "timer-bench: cannot create the os.timer bench\n");
		return 1;
	}
	if (argc > 2 && !strcmp(argv[1], "--overshoot")) {
		runs = atoi(argv[2]);
		first = 3;
	}
	rc = set_args(b, argc - first, argv + first);
	if (!rc && runs > 0)
		rc = overshoot(b, runs);
	else if (!rc)
		rc = run(b) ? -1 : print_distribution(b);
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
	return rc ? 1 : 0;
}
