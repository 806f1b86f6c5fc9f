// SPDX-License-Identifier: MIT
/*
 * output.c - reports out (stdout or -o FILE), baselines in, verdicts, and
 * the `compare` command that is made of those three.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *format_name(enum embperf_format format)
{
	switch (format) {
	case EMBPERF_FORMAT_TEXT:
		return "table";
	case EMBPERF_FORMAT_MARKDOWN:
		return "markdown";
	case EMBPERF_FORMAT_JSON:
		return "json";
	case EMBPERF_FORMAT_CSV:
		return "csv";
	case EMBPERF_FORMAT_JUNIT:
		return "junit";
	case EMBPERF_FORMAT_LAVA:
		return "lava";
	}
	return "?";
}

/* Print a library message, naming @path first unless the message already does. */
static void error_about_file(const char *path, const char *errmsg, int err)
{
	if (errmsg && *errmsg && strstr(errmsg, path))
		cli_error("%s", errmsg);
	else if (errmsg && *errmsg)
		cli_error("%s: %s", path, errmsg);
	else
		cli_error("%s: %s", path, embperf_strerror(err));
}

static int save_report(const struct cli_options *opt, embperf_report *report)
{
	int err = embperf_report_save(report, opt->format, opt->output_path);

	if (err < 0) {
		error_about_file(opt->output_path, embperf_report_errmsg(report), err);
		/* No results is no file error: the file was left as it was. */
		return err == -ENODATA ? CLI_EXIT_RUN : CLI_EXIT_FILE;
	}
	cli_note(opt, "wrote %d result%s to %s (%s)", embperf_report_result_count(report),
		 embperf_report_result_count(report) == 1 ? "" : "s", opt->output_path,
		 format_name(opt->format));
	return CLI_EXIT_OK;
}

static int print_report(const struct cli_options *opt, const embperf_report *report)
{
	char *text = embperf_report_render(report, opt->format);
	int failed;

	if (!text && errno == ENODATA) {
		cli_error("the report has no results: nothing to render as %s (an empty %s output "
			  "would read as a run that found nothing wrong)",
			  format_name(opt->format), format_name(opt->format));
		return CLI_EXIT_RUN;
	}
	if (!text) {
		cli_error("cannot render the report as %s: %s", format_name(opt->format),
			  embperf_strerror(-errno));
		return CLI_EXIT_RUN;
	}
	cli_progress_clear();
	fputs(text, stdout);
	embperf_free(text);
	failed = fflush(stdout) != 0 || ferror(stdout);
	if (failed) {
		cli_error("cannot write the report to standard output: %s", strerror(errno));
		return CLI_EXIT_FILE;
	}
	return CLI_EXIT_OK;
}

/**
 * cli_emit_report() - hand a report to the user.
 * @opt:    options: the format, and -o FILE (saved atomically by the library,
 *          with a one-line note on stderr) or nothing (stdout).
 * @report: report.
 *
 * Return: CLI_EXIT_OK, CLI_EXIT_FILE when it cannot be written, CLI_EXIT_RUN
 * when it cannot be rendered.
 */
int cli_emit_report(const struct cli_options *opt, embperf_report *report)
{
	if (opt->output_path)
		return save_report(opt, report);
	return print_report(opt, report);
}

/**
 * cli_load_report() - load a JSON report written by `embperf ... --format=json`.
 * @ctx:  context that receives the library's detail message.
 * @path: file.
 *
 * Prints why on failure; the message names the file.
 *
 * Return: a report owned by the caller, or NULL.
 */
embperf_report *cli_load_report(embperf_ctx *ctx, const char *path)
{
	embperf_report *report = embperf_report_load(ctx, path);

	if (!report)
		error_about_file(path, embperf_ctx_errmsg(ctx), -errno);
	return report;
}

static void describe_change(const embperf_result *r, const char *what)
{
	char key[512];
	double base, ratio;

	embperf_result_key(r, key, sizeof(key));
	if (embperf_result_baseline(r, &base, &ratio) < 0) {
		cli_error("%s: %s", what, key);
		return;
	}
	cli_error("%s: %s %.6g %s, baseline %.6g (%+.1f%%)", what, key, embperf_result_value(r),
		  embperf_result_unit(r), base, (ratio - 1.0) * 100.0);
}

/* List the results of @report that regressed; return how many did. */
static int list_regressions(const struct cli_options *opt, const embperf_report *report)
{
	int count = 0;

	for (int i = 0; i < embperf_report_result_count(report); i++) {
		const embperf_result *r = embperf_report_result(report, i);

		if (embperf_result_verdict(r) != EMBPERF_VERDICT_REGRESSED)
			continue;
		count++;
		if (opt->quiet)
			continue;
		describe_change(r, "regressed");
		if (embperf_result_flags(r))
			cli_error("  but this result is marked, so the regression may be the machine's: %s",
				  embperf_result_note(r));
	}
	return count;
}

/*
 * Before judging: a baseline from another CPU model (or machine type) says
 * so, since a difference between two CPUs is no regression of the code.
 */
static void warn_other_machine(const embperf_report *report, const embperf_report *baseline)
{
	static const char *const keys[] = { "cpu_model", "machine" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *now = embperf_report_sysinfo(report, keys[i]);
		const char *then = embperf_report_sysinfo(baseline, keys[i]);

		if (now && then && strcmp(now, then))
			cli_error("compare: the baseline was measured on another %s ('%s'; this "
				  "report: '%s'): a difference may be the machine's, not a regression",
				  keys[i], then, now);
	}
}

/* List the baseline metrics @report lacks; return how many there are. */
static int list_missing(const struct cli_options *opt, const embperf_report *report,
			const embperf_report *baseline)
{
	char key[512];
	int count = 0;

	for (int i = 0; i < embperf_report_result_count(baseline); i++) {
		const embperf_result *b = embperf_report_result(baseline, i);

		embperf_result_key(b, key, sizeof(key));
		if (embperf_report_find(report, key))
			continue;
		count++;
		cli_note(opt, "missing: %s (baseline %.6g %s)", key, embperf_result_value(b),
			 embperf_result_unit(b));
	}
	return count;
}

/**
 * cli_judge() - compare a report with a baseline and tell the outcome.
 * @opt:      options: --tolerance, -q.
 * @report:   current results; each receives its verdict (shown in renderings).
 * @baseline: reference.
 *
 * Lists regressed and missing metrics on stderr, then a one-line summary.
 *
 * Return: CLI_EXIT_OK when nothing regressed or went missing,
 * CLI_EXIT_REGRESSION otherwise, CLI_EXIT_USAGE for a tolerance the library
 * refuses.
 */
int cli_judge(const struct cli_options *opt, embperf_report *report,
	      const embperf_report *baseline)
{
	int failures, regressed, missing;

	warn_other_machine(report, baseline);
	failures = embperf_report_compare(report, baseline, opt->tolerance_pct);
	if (failures < 0) {
		cli_error("cannot compare: %s", embperf_report_errmsg(report));
		return CLI_EXIT_USAGE;
	}
	regressed = list_regressions(opt, report);
	missing = list_missing(opt, report, baseline);
	cli_note(opt, "compare: %s: %d regressed, %d missing of %d baseline metrics (tolerance %g%%)",
		 failures ? "FAIL" : "pass", regressed, missing,
		 embperf_report_result_count(baseline), opt->tolerance_pct);
	return failures ? CLI_EXIT_REGRESSION : CLI_EXIT_OK;
}

/**
 * cmd_compare() - `embperf compare BASELINE.json CURRENT.json`.
 * @opt: options; operands: the two files.
 *
 * Renders CURRENT with its verdicts and lists what failed.
 *
 * Return: CLI_EXIT_OK, CLI_EXIT_REGRESSION, CLI_EXIT_USAGE or CLI_EXIT_FILE.
 */
int cmd_compare(const struct cli_options *opt)
{
	embperf_report *baseline = NULL, *current = NULL;
	embperf_ctx *ctx;
	int status = CLI_EXIT_FILE, verdict;

	if (opt->argc != 2) {
		cli_error("compare needs two files: BASELINE.json CURRENT.json");
		return CLI_EXIT_USAGE;
	}
	ctx = embperf_ctx_new();
	if (!ctx) {
		cli_error("cannot create a context: %s", embperf_strerror(-errno));
		return CLI_EXIT_RUN;
	}
	baseline = cli_load_report(ctx, opt->argv[0]);
	if (baseline)
		current = cli_load_report(ctx, opt->argv[1]);
	if (current) {
		verdict = cli_judge(opt, current, baseline);
		status = verdict == CLI_EXIT_USAGE ? verdict : cli_emit_report(opt, current);
		if (status == CLI_EXIT_OK)
			status = verdict;
	}
	embperf_report_free(current);
	embperf_report_free(baseline);
	embperf_ctx_free(ctx);
	return status;
}

/**
 * cmd_render() - `embperf render REPORT.json`.
 * @opt: options; operand: the file.
 *
 * Renders a saved report in the format asked, with the verdicts of the
 * comparison it carries: a board saves JSON, the host turns it into what
 * its CI server reads.
 *
 * Return: CLI_EXIT_OK, CLI_EXIT_USAGE, CLI_EXIT_FILE, or CLI_EXIT_RUN when
 * there is nothing to render.
 */
int cmd_render(const struct cli_options *opt)
{
	embperf_report *report;
	embperf_ctx *ctx;
	int status = CLI_EXIT_FILE;

	if (opt->argc != 1) {
		cli_error("render needs one file: REPORT.json");
		return CLI_EXIT_USAGE;
	}
	ctx = embperf_ctx_new();
	if (!ctx) {
		cli_error("cannot create a context: %s", embperf_strerror(-errno));
		return CLI_EXIT_RUN;
	}
	report = cli_load_report(ctx, opt->argv[0]);
	if (report)
		status = cli_emit_report(opt, report);
	embperf_report_free(report);
	embperf_ctx_free(ctx);
	return status;
}
