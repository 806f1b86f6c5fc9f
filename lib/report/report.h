/* SPDX-License-Identifier: MIT */
/*
 * report.h - internals of the report object, shared by its renderings
 * (json.c, table.c, farm.c), the baseline comparison (compare.c), the
 * format dispatch and saving (render.c) and the tests. Layers, bottom up:
 * report.c; compare.c, json.c, table.c; farm.c (uses table.c's values);
 * render.c. Each calls only the layers below it.
 */
#ifndef EMBPERF_REPORT_REPORT_H
#define EMBPERF_REPORT_REPORT_H

#include <stddef.h>

#include "embperf.h"
#include "lib/core/sysinfo.h"
#include "lib/core/kernel.h"
#include "lib/core/result.h"
#include "lib/core/util.h"

/**
 * Name and version of the on-disk JSON format (doc/report-format.md): the
 * version written, and the oldest one read.
 */
#define EP_REPORT_FORMAT "embperf-report"
#define EP_REPORT_FORMAT_VERSION 2
#define EP_REPORT_FORMAT_VERSION_MIN 1

/** The unit conventions every rendering states. */
#define EP_REPORT_UNITS_NOTE "MB = 10^6 bytes; sizes use binary multiples k = 1024"

/**
 * struct ep_missing - a baseline metric the report lacked at its last compare.
 * @key:      the baseline result's key (embperf_result_key()).
 * @unit:     its unit.
 * @baseline: its value in the baseline (NaN when it had none).
 */
struct ep_missing {
	char *key;
	char *unit;
	double baseline;
};

/**
 * struct embperf_report - results of many runs and the system they ran on.
 * @results:         owned copies, in the order they were added.
 * @n_results:       number of @results.
 * @cap_results:     slots allocated in @results.
 * @sysinfo:         system information, copied from the context at creation
 *                   or read from JSON.
 * @n_sysinfo:       number of @sysinfo entries.
 * @library_version: version of the library that created the report.
 * @created:         creation time, UTC ISO-8601 ("2024-05-01T12:00:00Z").
 * @compared:        1 once embperf_report_compare() succeeded (or a loaded
 *                   report carried a comparison): renderings add the
 *                   baseline, ratio and verdict columns.
 * @tolerance_pct:   tolerance of that comparison.
 * @missing:         baseline metrics absent from the report at that comparison.
 * @n_missing:       number of @missing.
 * @baseline_cpu:    the baseline's cpu_model when it differs from this
 *                   report's (NULL otherwise): renderings say so.
 * @errmsg:          detail of the last failure.
 */
struct embperf_report {
	struct embperf_result **results;
	int n_results;
	int cap_results;
	struct ep_kv *sysinfo;
	int n_sysinfo;
	char *library_version;
	char *created;
	int compared;
	double tolerance_pct;
	struct ep_missing *missing;
	int n_missing;
	char *baseline_cpu;
	char errmsg[EP_ERRMSG_MAX];
};

/* report.c */

/**
 * ep_report_alloc() - an empty report without system information.
 * @created:         creation time to record, or NULL for now.
 * @library_version: version to record, or NULL for this library's.
 *
 * Return: the report, or NULL (ENOMEM).
 */
struct embperf_report *ep_report_alloc(const char *created, const char *library_version);

/**
 * ep_report_append() - hand a result over to a report.
 * @report: report.
 * @result: result allocated with ep_result_new() or ep_result_dup(); the
 *          report owns it on success, the caller keeps it on failure.
 *
 * Return: 0 or -ENOMEM.
 */
int ep_report_append(struct embperf_report *report, struct embperf_result *result);

/**
 * ep_report_add_results() - copy results into a report under a title template.
 * @report:  report.
 * @results: the results to copy.
 * @n:       number of @results.
 * @title:   template ("{metric}", "{LABEL}" expand), "" or NULL for none.
 *
 * All or nothing: on failure the report is unchanged.
 *
 * Return: @n, -EINVAL (a template names a label a result lacks, is
 * malformed, or gives two of the results the same title) or -ENOMEM.
 */
int ep_report_add_results(struct embperf_report *report,
			  const struct embperf_result *const *results, int n, const char *title);

/**
 * ep_report_set_sysinfo() - record a system information entry (replacing one
 * of the same key).
 *
 * Return: 0 or -ENOMEM.
 */
int ep_report_set_sysinfo(struct embperf_report *report, const char *key, const char *value);

/**
 * ep_report_add_missing() - record a baseline metric missing from the report.
 *
 * Return: 0 or -ENOMEM.
 */
int ep_report_add_missing(struct embperf_report *report, const char *key, const char *unit,
			  double baseline);

/** ep_report_clear_comparison() - forget verdicts and the missing list. */
void ep_report_clear_comparison(struct embperf_report *report);

/** ep_report_failures() - failures of the last compare: regressed results plus missing metrics. */
int ep_report_failures(const struct embperf_report *report);

/** ep_report_fail() - set the report's detail message and return @err. */
int ep_report_fail(struct embperf_report *report, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** ep_result_key_dup() - embperf_result_key() in a malloc'd string; NULL on ENOMEM. */
char *ep_result_key_dup(const struct embperf_result *result);

/** ep_verdict_name() - "none", "pass", "improved", "regressed"; NULL when out of range. */
const char *ep_verdict_name(int verdict);

/* json.c */

/** ep_report_render_json() - the JSON rendering. Return: malloc'd text, or NULL (ENOMEM). */
char *ep_report_render_json(const struct embperf_report *report);

/* table.c */

/**
 * ep_report_render_table() - the aligned text table or the markdown table.
 * @markdown: 0 for text, 1 for markdown.
 * Return: malloc'd text, or NULL (ENOMEM).
 */
char *ep_report_render_table(const struct embperf_report *report, int markdown);

/** ep_report_render_csv() - the CSV rendering. Return: malloc'd text, or NULL (ENOMEM). */
char *ep_report_render_csv(const struct embperf_report *report);

/**
 * ep_report_format_value() - a value as tables show it: "%.2f", more
 * significant digits below 0.1, "n/a" for NaN (doc/report-format.md).
 */
void ep_report_format_value(double value, char *buf, size_t size);

/* farm.c */

/**
 * ep_report_render_junit() - JUnit XML: one test case per result, a failure
 * for each regressed result and each missing baseline metric.
 * Return: malloc'd text, or NULL (ENOMEM).
 */
char *ep_report_render_junit(const struct embperf_report *report);

/**
 * ep_report_render_lava() - one `lava-test-case NAME --result pass|fail
 * --measurement X --units U` line per result, then per missing metric;
 * names are sanitised for LAVA and unique.
 * Return: malloc'd text, or NULL (ENOMEM).
 */
char *ep_report_render_lava(const struct embperf_report *report);

/* compare.c */

/**
 * ep_judge() - verdict of one value against its baseline.
 * @current:       the current value.
 * @baseline:      the baseline's value.
 * @higher_better: direction of the metric, an enum ep_better (EP_BETTER_ZERO:
 *                 the magnitudes are compared, lower better).
 * @tolerance_pct: allowed relative change, percent.
 * @ratio:         receives current / baseline (NaN when the baseline is 0 or NaN);
 *                 for EP_BETTER_ZERO |current| / |baseline|.
 *
 * Return: an enum embperf_verdict value.
 */
int ep_judge(double current, double baseline, int higher_better, double tolerance_pct,
	     double *ratio);

#endif /* EMBPERF_REPORT_REPORT_H */
