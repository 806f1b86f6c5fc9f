// SPDX-License-Identifier: MIT
/*
 * selftest.c - a product self-test: a few memory checks within a time
 * budget, compared with a baseline report. The exit status is the verdict.
 *
 *   selftest --write-baseline BASELINE.json   record this board's figures
 *   selftest BASELINE.json                    0 pass, 1 regressed, 2 error
 *
 * Options: --budget=SECONDS (default 10), --tolerance=PERCENT (default 15).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <embperf.h>

struct check {
	const char *title;
	const char *kernel;
	const char *params[4][2];
};

/* Each check is small enough that all of them fit a boot-time budget. */
static const struct check checks[] = {
	{ "l1-latency", "mem.lat", { { "size", "16k" }, { "repetitions", "5" } } },
	{ "dram-latency", "mem.lat", { { "size", "64M" }, { "repetitions", "5" } } },
	{ "bcopy-1mb", "mem.bw", { { "op", "bcopy" }, { "size", "1M" }, { "repetitions", "5" } } },
	{ "stream-{metric}", "mem.stream", { { "size", "4M" }, { "repetitions", "5" } } },
	{ "int-add", "cpu.ops", { { "type", "int" }, { "op", "add" }, { "repetitions", "5" } } },
};

static embperf_ctx *signal_ctx;

static void on_signal(int sig)
{
	(void)sig;
	embperf_ctx_cancel(signal_ctx); /* async-signal-safe */
}

static int run_check(embperf_ctx *ctx, embperf_report *report, const struct check *c)
{
	embperf_bench *b = embperf_bench_new(ctx, c->kernel);
	int rc;

	if (!b) {
		fprintf(stderr, "selftest: %s\n", embperf_ctx_errmsg(ctx));
		return -errno;
	}
	for (int i = 0; i < 4 && c->params[i][0]; i++) {
		rc = embperf_bench_set(b, c->params[i][0], c->params[i][1]);
		if (rc)
			goto out;
	}
	rc = embperf_bench_run(b);
	if (rc == 0 || rc == -ETIME) {
		int added = embperf_report_add(report, b, c->title);

		if (added < 0)
			rc = added;
	}
out:
	if (rc)
		fprintf(stderr, "selftest: %s: %s\n", c->title, embperf_bench_errmsg(b));
	embperf_bench_free(b);
	return rc;
}

static int verdict(embperf_ctx *ctx, embperf_report *report, const char *baseline_path,
		   double tolerance_pct)
{
	embperf_report *baseline = embperf_report_load(ctx, baseline_path);
	char *table;
	int failures;

	if (!baseline) {
		fprintf(stderr, "selftest: %s\n", embperf_ctx_errmsg(ctx));
		return 2;
	}
	failures = embperf_report_compare(report, baseline, tolerance_pct);
	table = embperf_report_render(report, EMBPERF_FORMAT_TEXT);
	if (table)
		fputs(table, stdout);
	embperf_free(table);
	embperf_report_free(baseline);
	if (failures < 0)
		return 2;
	printf("selftest: %s (%d failure%s, tolerance %.0f%%)\n", failures ? "FAIL" : "PASS",
	       failures, failures == 1 ? "" : "s", tolerance_pct);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	double budget_s = 10, tolerance_pct = 15;
	const char *path = NULL;
	int write_baseline = 0, status = 0;
	embperf_report *report;
	embperf_ctx *ctx;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--budget=", 9))
			budget_s = atof(argv[i] + 9);
		else if (!strncmp(argv[i], "--tolerance=", 12))
			tolerance_pct = atof(argv[i] + 12);
		else if (!strcmp(argv[i], "--write-baseline"))
			write_baseline = 1;
		else
			path = argv[i];
	}
	if (!path || budget_s <= 0) {
		fprintf(stderr, "usage: selftest [--write-baseline] [--budget=S] [--tolerance=PCT] BASELINE.json\n");
		return 2;
	}
	ctx = embperf_ctx_new();
	report = embperf_report_new(ctx);
	if (!ctx || !report)
		return 2;
	signal_ctx = ctx;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	embperf_ctx_set_budget_ns(ctx, (uint64_t)(budget_s * 1e9));

	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]) && !status; i++) {
		int rc = run_check(ctx, report, &checks[i]);

		if (rc == -ETIME)
			fprintf(stderr, "selftest: budget of %.1f s exhausted at %s\n", budget_s,
				checks[i].title);
		if (rc)
			status = 2;
	}
	if (!status && write_baseline) {
		if (embperf_report_save(report, EMBPERF_FORMAT_JSON, path)) {
			fprintf(stderr, "selftest: %s\n", embperf_report_errmsg(report));
			status = 2;
		} else {
			printf("selftest: baseline written to %s\n", path);
		}
	} else if (!status) {
		status = verdict(ctx, report, path, tolerance_pct);
	}
	embperf_report_free(report);
	embperf_ctx_free(ctx);
	return status;
}
