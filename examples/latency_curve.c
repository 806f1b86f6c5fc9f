// SPDX-License-Identifier: MIT
/*
 * latency_curve.c - print the memory latency curve (ns per load against
 * array size) and the cache levels found in it, next to what sysfs says.
 *
 *   latency_curve [MAX_SIZE [STRIDE]]      e.g. latency_curve 256M 128
 */
#include <stdio.h>
#include <string.h>

#include <embperf.h>

static int set_or_report(embperf_bench *b, const char *name, const char *value)
{
	int rc = embperf_bench_set(b, name, value);

	if (rc)
		fprintf(stderr, "latency_curve: %s\n", embperf_bench_errmsg(b));
	return rc;
}

int main(int argc, char **argv)
{
	char sweep[64], size[32];
	embperf_ctx *ctx = embperf_ctx_new();
	embperf_bench *b = ctx ? embperf_bench_new(ctx, "mem.lat") : NULL;
	int rc = 1;

	if (!b)
		return 1;
	snprintf(sweep, sizeof(sweep), "512..%s", argc > 1 ? argv[1] : "128M");
	if (set_or_report(b, "size", sweep) || set_or_report(b, "stride", argc > 2 ? argv[2] : "128") ||
	    set_or_report(b, "repetitions", "5"))
		goto out;
	if (embperf_bench_run(b)) {
		fprintf(stderr, "latency_curve: %s\n", embperf_bench_errmsg(b));
		goto out;
	}
	printf("# size  ns/load  (stride %s, lat_mem_rd convention: minimum)\n",
	       argc > 2 ? argv[2] : "128");
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (strcmp(embperf_result_metric(r), "latency"))
			continue;
		if (embperf_result_label(r, "size", size, sizeof(size)) < 0)
			continue;
		printf("%-8s %8.3f\n", size, embperf_result_value(r));
	}
	printf("# cache levels found in the curve\n");
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (!strcmp(embperf_result_metric(r), "latency"))
			continue;
		printf("%-22s %-40s %10.3f %s\n", embperf_result_metric(r), embperf_result_labels(r),
		       embperf_result_value(r), embperf_result_unit(r));
	}
	rc = 0;
out:
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
	return rc;
}
