// SPDX-License-Identifier: MIT
/*
 * clock-seam.c - what the engine's clock seam (lib/core/clock.h) costs in
 * a measurement loop: a trial body that does nothing but ask
 * ep_trial_running() and count, so each operation is one clock read
 * through the seam, one phase check and one tally. Prints the ns per
 * operation of each trial, then their median.
 *
 *   clock-seam [TRIALS [SECONDS]]        (default 7 trials of 1 s)
 *
 * It reaches the engine's internal headers, and compiles against trees
 * from before the seam too (where kernel.h declared everything), so that
 * bench/fidelity/clock-seam.sh can run it built from both, side by side.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/core/bench.h"
#include "lib/core/kernel.h"
#if __has_include("lib/core/run.h")
#include "lib/core/run.h"
#include "lib/core/trial.h"
#endif

static int spin_body(void *arg, struct ep_trial *t)
{
	struct ep_tally *ta = ep_trial_tally(t);

	(void)arg;
	while (ep_trial_running(t))
		ep_tally_add(ta, 1, 0);
	return 0;
}

static int spin_setup(struct ep_run *run, void **state)
{
	struct ep_trial_case tc = { .labels = "loop=check", .body = spin_body };

	*state = NULL;
	return ep_run_add_trial(run, &tc);
}

static const struct ep_metric_desc spin_metrics[] = {
	{ "checks", "1/s", EP_METRIC_TRIAL_OPS, 1, EP_PRIMARY_MEDIAN, 1,
	  "ep_trial_running() calls per second" },
};

static const struct ep_kernel spin_kernel = {
	.name = "probe.clock_seam",
	.summary = "ep_trial_running() in a loop",
	.metrics = spin_metrics,
	.n_metrics = 1,
	.setup = spin_setup,
	.trials = 1,
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 7;
	const char *seconds = argc > 2 ? argv[2] : "1";
	embperf_ctx *ctx = embperf_ctx_new();
	embperf_bench *b = ctx ? ep_bench_new_kernel(ctx, &spin_kernel) : NULL;
	const embperf_result *r;
	double ns[64];
	int n;

	if (!b || trials < 1 || trials > 64) {
		fprintf(stderr, "usage: clock-seam [TRIALS (1..64) [SECONDS]]\n");
		return 2;
	}
	if (embperf_bench_set_int(b, "repetitions", trials) ||
	    embperf_bench_set(b, "duration", seconds) || embperf_bench_set(b, "cpu", "0") ||
	    embperf_bench_set(b, "counters", "0") || embperf_bench_run(b)) {
		fprintf(stderr, "clock-seam: %s\n", embperf_bench_errmsg(b));
		return 1;
	}
	r = embperf_bench_result(b, 0);
	n = embperf_result_sample_count(r);
	for (int i = 0; i < n; i++) {
		ns[i] = 1e9 / embperf_result_sample(r, i);
		printf("trial %d: %.3f ns per check\n", i + 1, ns[i]);
	}
	qsort(ns, (size_t)n, sizeof(ns[0]), cmp_double);
	printf("median %.3f ns per check (min %.3f, max %.3f), %d trials of %s s\n", ns[n / 2],
	       ns[0], ns[n - 1], n, seconds);
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
	return 0;
}
