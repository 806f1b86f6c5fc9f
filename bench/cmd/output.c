// SPDX-License-Identifier: MIT
/*
 * output.c - reports out (stdout or -o FILE), baselines in, verdicts, and
 * the commands made of those: `compare`, `render` and `merge`. A guide's
 * report (written by `embperf guide`) with -o naming a folder is laid out
 * as the guide there (guide.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <fnmatch.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli.h"
#include "guide.h"

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

/* Does -o name a folder (an existing one, or a path ending in '/')? */
static int output_is_folder(const struct cli_options *opt)
{
	struct stat st;
	size_t len = opt->output_path ? strlen(opt->output_path) : 0;

	return len && (opt->output_path[len - 1] == '/' ||
		       (stat(opt->output_path, &st) == 0 && S_ISDIR(st.st_mode)));
}

/*
 * -o DIR with a guide's report: the guide laid out in DIR (guide.md,
 * guide.html), or beside @baseline (compare.md, compare.html, and
 * compare.json: the report with its verdicts).
 */
static int render_guide(const struct cli_options *opt, embperf_report *report,
			const embperf_report *baseline)
{
	struct suite *layout = NULL;
	char err[512], path[4096];
	int status;

	if (guide_open_layout(report, NULL, &layout, err, sizeof(err)) < 0) {
		cli_error("-o %s: a folder takes a guide's report: %s", opt->output_path, err);
		return CLI_EXIT_FILE;
	}
	status = guide_render_dir(opt, layout, report, baseline, opt->output_path);
	if (status == CLI_EXIT_OK && baseline) {
		snprintf(path, sizeof(path), "%s/compare.json", opt->output_path);
		if (embperf_report_save(report, EMBPERF_FORMAT_JSON, path) < 0) {
			cli_error("%s", embperf_report_errmsg(report));
			status = CLI_EXIT_FILE;
		}
	}
	suite_free(layout);
	return status;
}

/**
 * cmd_compare() - `embperf compare BASELINE.json CURRENT.json`.
 * @opt: options; operands: the two files (or guide folders).
 *
 * Renders CURRENT with its verdicts and lists what failed; two guides with
 * -o DIR: the guide with both values and the change in every cell.
 *
 * Return: CLI_EXIT_OK, CLI_EXIT_REGRESSION, CLI_EXIT_USAGE or CLI_EXIT_FILE.
 */
int cmd_compare(const struct cli_options *opt)
{
	embperf_report *baseline = NULL, *current = NULL;
	embperf_ctx *ctx;
	int status = CLI_EXIT_FILE, verdict;
	char path[4096];

	if (opt->argc != 2) {
		cli_error("compare needs two files: BASELINE.json CURRENT.json");
		return CLI_EXIT_USAGE;
	}
	ctx = embperf_ctx_new();
	if (!ctx) {
		cli_error("cannot create a context: %s", embperf_strerror(-errno));
		return CLI_EXIT_RUN;
	}
	baseline = cli_load_report(ctx, guide_report_path(opt->argv[0], path, sizeof(path)));
	if (baseline)
		current = cli_load_report(ctx, guide_report_path(opt->argv[1], path, sizeof(path)));
	if (current) {
		verdict = cli_judge(opt, current, baseline);
		if (verdict == CLI_EXIT_USAGE)
			status = verdict;
		else if (output_is_folder(opt))
			status = render_guide(opt, current, baseline);
		else
			status = cli_emit_report(opt, current);
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
		status = output_is_folder(opt) ? render_guide(opt, report, NULL) :
						 cli_emit_report(opt, report);
	embperf_report_free(report);
	embperf_ctx_free(ctx);
	return status;
}

/* A not-measured line's key template as a glob: each {...}, and a "-" title, as '*'. */
static void template_glob(const char *line, char *glob, size_t size)
{
	size_t n = 0;

	for (const char *p = line; *p && *p != '\t' && n + 1 < size; p++) {
		if (*p == '{') {
			glob[n++] = '*';
			p += strcspn(p, "}\t");
			if (!*p || *p == '\t')
				break;
			continue;
		}
		glob[n++] = *p;
	}
	glob[n] = '\0';
	if (n && glob[n - 1] == '-' && (n == 1 || glob[n - 2] == '/'))
		glob[n - 1] = '*';
}

/*
 * The not-measured lines of all the merged reports, less those of rows
 * one of them measured.
 */
static int merge_not_measured(embperf_report *merged, const char *lines)
{
	struct textbuf b = { 0 };
	char *copy = strdup(lines), *save = NULL, *line, glob[512], key[512];
	int ret;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int measured = 0;

		template_glob(line, glob, sizeof(glob));
		for (int i = 0; i < embperf_report_result_count(merged) && !measured; i++) {
			embperf_result_key(embperf_report_result(merged, i), key, sizeof(key));
			measured = fnmatch(glob, key, 0) == 0;
		}
		if (!measured)
			tb_printf(&b, "%s\n", line);
	}
	free(copy);
	copy = tb_take(&b);
	ret = embperf_report_set_sysinfo(merged, GUIDE_KEY_NOT_MEASURED, copy ? copy : "");
	free(copy);
	return ret;
}

/* Add every result of @from to @into; a key @into has already is refused. */
static int merge_one(embperf_report *into, const embperf_report *from, const char *path)
{
	char key[512];

	for (int i = 0; i < embperf_report_result_count(from); i++) {
		const embperf_result *r = embperf_report_result(from, i);

		embperf_result_key(r, key, sizeof(key));
		if (embperf_report_find(into, key)) {
			cli_error("%s: row '%s' is already in the reports before it; accepted: reports whose row names differ (`embperf suite` and `guide` name rows per medium with @prefix=)",
				  path, key);
			return CLI_EXIT_FILE;
		}
		if (embperf_report_add_result(into, r, NULL) < 0) {
			cli_error("%s: %s", path, embperf_report_errmsg(into));
			return CLI_EXIT_RUN;
		}
	}
	return CLI_EXIT_OK;
}

/**
 * cmd_merge() - `embperf merge A.json B.json ... [-o OUT]`: one report of
 * the results of several (the system information of the first).
 * @opt: options; operands: the reports.
 *
 * Return: CLI_EXIT_OK, CLI_EXIT_USAGE, CLI_EXIT_FILE or CLI_EXIT_RUN.
 */
int cmd_merge(const struct cli_options *opt)
{
	embperf_report *merged = NULL;
	struct textbuf lines = { 0 };
	embperf_ctx *ctx;
	int status = CLI_EXIT_OK;
	char path[4096], *text;

	if (opt->argc < 2) {
		cli_error("merge needs two reports or more: A.json B.json ... [-o OUT.json]");
		return CLI_EXIT_USAGE;
	}
	ctx = embperf_ctx_new();
	if (!ctx)
		return CLI_EXIT_RUN;
	merged = cli_load_report(ctx, guide_report_path(opt->argv[0], path, sizeof(path)));
	status = merged ? CLI_EXIT_OK : CLI_EXIT_FILE;
	if (merged)
		tb_printf(&lines, "%s", embperf_report_sysinfo(merged, GUIDE_KEY_NOT_MEASURED) ?: "");
	for (int i = 1; i < opt->argc && status == CLI_EXIT_OK; i++) {
		embperf_report *next = cli_load_report(ctx, guide_report_path(opt->argv[i], path,
									      sizeof(path)));

		if (!next) {
			status = CLI_EXIT_FILE;
			break;
		}
		status = merge_one(merged, next, path);
		tb_printf(&lines, "%s", embperf_report_sysinfo(next, GUIDE_KEY_NOT_MEASURED) ?: "");
		embperf_report_free(next);
	}
	text = tb_take(&lines);
	if (status == CLI_EXIT_OK && text && merge_not_measured(merged, text) < 0)
		status = CLI_EXIT_RUN;
	free(text);
	if (status == CLI_EXIT_OK)
		status = cli_emit_report(opt, merged);
	embperf_report_free(merged);
	embperf_ctx_free(ctx);
	return status;
}
