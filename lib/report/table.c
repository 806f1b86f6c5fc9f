// SPDX-License-Identifier: MIT
/*
 * table.c - the human renderings of a report: an aligned text table and a
 * markdown pipe table, both with rows in the vendor guides' form
 * "mean (min X, max Y)", and CSV for spreadsheets (RFC 4180).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/report.h"

/* Columns of the tables; the last three only after a compare. */
enum {
	COL_NAME,
	COL_VALUE,
	COL_PRIMARY,
	COL_N,
	COL_KERNEL,
	COL_BASELINE,
	COL_RATIO,
	COL_VERDICT,
	COL_COUNT
};

static const char *const text_headers[COL_COUNT] = {
	"Benchmark (unit)", "mean (min, max)", "primary", "n", "kernel and labels",
	"baseline", "ratio", "verdict",
};

static const char *const markdown_headers[COL_COUNT] = {
	"Benchmarks", "value", "primary", "n", "kernel",
	"baseline", "ratio", "verdict",
};

void ep_report_format_value(double value, char *buf, size_t size)
{
	double mag = fabs(value);

	if (!isfinite(value))
		snprintf(buf, size, "n/a");
	else if (mag == 0.0 || (mag >= 0.1 && mag < 1e15))
		snprintf(buf, size, "%.2f", value);
	else
		/* Two decimals would print 0.00 or 20 digits: keep 3 significant. */
		snprintf(buf, size, "%.3g", value);
}

/* "mean (min X, max Y)"; the value alone for one sample; "n/a" for none. */
static void format_spread(const struct embperf_result *r, char *buf, size_t size)
{
	char mean[40], min[40], max[40];

	ep_report_format_value(r->stats.mean, mean, sizeof(mean));
	if (r->stats.n != 1 && isfinite(r->stats.mean)) {
		ep_report_format_value(r->stats.min, min, sizeof(min));
		ep_report_format_value(r->stats.max, max, sizeof(max));
		snprintf(buf, size, "%s (min %s, max %s)", mean, min, max);
	} else {
		snprintf(buf, size, "%s", mean);
	}
}

/**
 * format_distribution() - the row value of a result with a latency
 * distribution, in the seeds' form with the percentiles inside:
 * "mean (min X, p50 A, p99 B, p99.9 C, max Y)" over every recorded operation.
 * @r: a result with has_dist set.
 *
 * Return: malloc'd text, or NULL on ENOMEM.
 */
static char *format_distribution(const struct embperf_result *r)
{
	char num[40];
	struct ep_buf b;

	ep_buf_init(&b);
	ep_report_format_value(r->dist_mean, num, sizeof(num));
	ep_buf_printf(&b, "%s (min ", num);
	ep_report_format_value(r->dist_min, num, sizeof(num));
	ep_buf_printf(&b, "%s", num);
	for (size_t i = 0; i < r->n_pcts; i++) {
		ep_report_format_value(r->pcts[i].value, num, sizeof(num));
		ep_buf_printf(&b, ", p%g %s", r->pcts[i].pct, num);
	}
	ep_report_format_value(r->dist_max, num, sizeof(num));
	ep_buf_printf(&b, ", max %s)", num);
	return ep_buf_take(&b);
}

/**
 * format_count() - the n cell: the samples, then in parentheses what else
 * counts: "3 (153600 ops, 12 trials, truncated)".
 * @r:    the result.
 * @buf:  destination.
 * @size: size of @buf.
 */
static void format_count(const struct embperf_result *r, char *buf, size_t size)
{
	char extra[96] = "";
	int len = 0;

	if (r->has_dist)
		len += snprintf(extra, sizeof(extra), "%.0f ops", r->dist_n);
	if (r->n_trials)
		len += snprintf(extra + len, sizeof(extra) - (size_t)len, "%s%zu trial%s",
				len ? ", " : "", r->n_trials, r->n_trials == 1 ? "" : "s");
	if (r->truncated)
		snprintf(extra + len, sizeof(extra) - (size_t)len, "%struncated", len ? ", " : "");
	snprintf(buf, size, extra[0] ? "%zu (%s)" : "%zu", r->stats.n, extra);
}

/* The system lines above a table, each without its line end. */
static void system_line(const struct embperf_report *report, int which, struct ep_buf *b)
{
	static const struct {
		const char *key, *name;
	} caches[] = {
		{ "cache_l1d_bytes", "L1d" }, { "cache_l2_bytes", "L2" },
		{ "cache_l3_bytes", "L3" }, { "cache_line_bytes", "line" },
	};
	const char *cpu = embperf_report_sysinfo(report, "cpu_model");
	const char *cpus = embperf_report_sysinfo(report, "cpus_online");
	const char *kernel = embperf_report_sysinfo(report, "kernel");
	const char *machine = embperf_report_sysinfo(report, "machine");
	char size[32];
	int listed = 0;

	switch (which) {
	case 0:
		ep_buf_printf(b, "cpu: %s", cpu ? cpu : "unknown");
		if (cpus)
			ep_buf_printf(b, ", %s CPUs online", cpus);
		break;
	case 1:
		ep_buf_printf(b, "caches:");
		for (size_t i = 0; i < EP_ARRAY_SIZE(caches); i++) {
			const char *v = embperf_report_sysinfo(report, caches[i].key);

			if (!v)
				continue;
			ep_format_size(strtoll(v, NULL, 10), size, sizeof(size));
			ep_buf_printf(b, "%s %s %s%s", listed++ ? "," : "", caches[i].name, size,
				      i == 3 ? " bytes" : "");
		}
		if (!listed)
			ep_buf_printf(b, " unknown");
		break;
	case 2:
		ep_buf_printf(b, "kernel: %s%s%s", kernel ? kernel : "unknown",
			      machine ? " " : "", machine ? machine : "");
		break;
	default:
		ep_buf_printf(b, "bandwidth MB = 10^6 bytes/s; sizes use binary multiples, k = 1024");
		break;
	}
}

static void header(const struct embperf_report *report, int markdown, struct ep_buf *b)
{
	int failures = ep_report_failures(report), marked = 0;

	for (int i = 0; i < report->n_results; i++)
		marked += report->results[i]->verdict == EMBPERF_VERDICT_REGRESSED &&
			  report->results[i]->flags;

	ep_buf_printf(b, markdown ? "**libembperf %s report**, created %s\n\n"
				  : "libembperf %s report, created %s\n",
		      report->library_version, report->created);
	for (int i = 0; i < 4; i++) {
		ep_buf_printf(b, "%s", markdown ? "- " : "");
		system_line(report, i, b);
		ep_buf_printf(b, "\n");
	}
	if (report->compared) {
		char tol[40];

		ep_format_double(report->tolerance_pct, tol, sizeof(tol));
		ep_buf_printf(b, "%scompared with a baseline, tolerance %s%%: %d failure%s (%d regressed, %d missing)\n",
			      markdown ? "- " : "", tol, failures, failures == 1 ? "" : "s",
			      failures - report->n_missing, report->n_missing);
		if (report->baseline_cpu)
			ep_buf_printf(b, "%sthe baseline was measured on another CPU (%s): differences "
				      "may be the machine's, not regressions\n",
				      markdown ? "- " : "", report->baseline_cpu);
		if (marked)
			ep_buf_printf(b, "%s%d regressed result%s marked (see the notes): "
				      "the run may not have had its CPU; run it again before blaming the code\n",
				      markdown ? "- " : "", marked, marked == 1 ? " is" : "s are");
	}
	ep_buf_printf(b, "\n");
}

/*
 * A marked result's value cell ends in " !N", its note is listed under the
 * table as "!N", and a regression of it says it is marked: the figure may be
 * the machine's (another task had its CPU), not the code's.
 */
static char *mark(char *cell, int note)
{
	char *marked;

	if (!cell || !note)
		return cell;
	marked = ep_asprintf("%s !%d", cell, note);
	free(cell);
	return marked;
}

/* Fill the cells of one row; @note is its note's number (0: unmarked). Return: 0 or -ENOMEM. */
static int row_cells(const struct embperf_result *r, int compared, int note, char **cells)
{
	char value[160], stat[64], n[128], base[40], ratio[40];
	const char *verdict = ep_verdict_name(r->verdict);
	char *key = ep_result_key_dup(r);

	if (!key)
		return -ENOMEM;
	format_spread(r, value, sizeof(value));
	ep_report_format_value(r->value, stat, sizeof(stat));
	format_count(r, n, sizeof(n));
	cells[COL_NAME] = r->unit[0] ? ep_asprintf("%s (%s)", key, r->unit) : ep_strdup(key);
	cells[COL_VALUE] = mark(r->has_dist ? format_distribution(r) : ep_strdup(value), note);
	cells[COL_PRIMARY] = ep_asprintf("%s=%s", ep_primary_name(r->primary), stat);
	cells[COL_N] = ep_strdup(n);
	cells[COL_KERNEL] = ep_asprintf("%s%s%s", r->kernel, r->labels[0] ? " " : "", r->labels);
	free(key);
	if (compared) {
		if (r->has_baseline)
			ep_report_format_value(r->baseline, base, sizeof(base));
		if (r->has_baseline && isfinite(r->ratio))
			snprintf(ratio, sizeof(ratio), "%.3f", r->ratio);
		cells[COL_BASELINE] = ep_strdup(r->has_baseline ? base : "-");
		cells[COL_RATIO] = ep_strdup(r->has_baseline && isfinite(r->ratio) ? ratio : "-");
		cells[COL_VERDICT] = r->verdict == EMBPERF_VERDICT_REGRESSED && note
					     ? ep_asprintf("%s (marked !%d: may be the machine's)",
							   verdict, note)
					     : ep_strdup(r->verdict && verdict ? verdict : "-");
	}
	for (int c = 0; c < (compared ? COL_COUNT : COL_BASELINE); c++)
		if (!cells[c])
			return -ENOMEM;
	return 0;
}

/* Append @cell, escaping '|' for markdown. */
static void put_cell(struct ep_buf *b, const char *cell, int markdown)
{
	for (const char *p = cell; *p; p++) {
		if (markdown && *p == '|')
			ep_buf_append(b, "\\", 1);
		ep_buf_append(b, p, 1);
	}
}

static void put_row(struct ep_buf *b, char *const *cells, int ncols, const size_t *width,
		    int markdown)
{
	for (int c = 0; c < ncols; c++) {
		if (markdown) {
			ep_buf_printf(b, "| ");
			put_cell(b, cells[c], 1);
			ep_buf_printf(b, " ");
		} else {
			ep_buf_printf(b, "%s%-*s", c ? " | " : "",
				      c == ncols - 1 ? 0 : (int)width[c], cells[c]);
		}
	}
	ep_buf_printf(b, markdown ? "|\n" : "\n");
}

/* The rule under the header row. */
static void put_rule(struct ep_buf *b, int ncols, const size_t *width, int markdown)
{
	for (int c = 0; c < ncols; c++) {
		if (markdown) {
			ep_buf_printf(b, "|---");
			continue;
		}
		if (c)
			ep_buf_printf(b, "-+-");
		for (size_t i = 0; i < width[c]; i++)
			ep_buf_append(b, "-", 1);
	}
	ep_buf_printf(b, markdown ? "|\n" : "\n");
}

static void put_missing(const struct embperf_report *report, int markdown, struct ep_buf *b)
{
	if (!report->n_missing)
		return;
	ep_buf_printf(b, "\nmissing from this report (in the baseline; each counts as a failure):\n");
	for (int i = 0; i < report->n_missing; i++) {
		char value[40];

		ep_report_format_value(report->missing[i].baseline, value, sizeof(value));
		ep_buf_printf(b, "%s", markdown ? "- " : "  ");
		put_cell(b, report->missing[i].key, 0);
		ep_buf_printf(b, ": baseline %s%s%s\n", value, report->missing[i].unit[0] ? " " : "",
			      report->missing[i].unit);
	}
}

/*
 * Render the table body from @cells (rows of @ncols, the first the header);
 * @groups[r], when not NULL, is a line of its own printed above row r.
 */
static void put_table(struct ep_buf *b, char **cells, char **groups, int nrows, int ncols,
		      int markdown)
{
	size_t width[COL_COUNT] = { 0 };

	for (int r = 0; r < nrows; r++)
		for (int c = 0; c < ncols; c++)
			if (strlen(cells[r * COL_COUNT + c]) > width[c])
				width[c] = strlen(cells[r * COL_COUNT + c]);
	for (int r = 0; r < nrows; r++) {
		if (groups && groups[r])
			ep_buf_printf(b, "%s\n", groups[r]);
		put_row(b, cells + r * COL_COUNT, ncols, width, markdown);
		if (!r)
			put_rule(b, ncols, width, markdown);
	}
}

/* The notes of marked results, numbered as their value cells are. */
static void put_notes(const struct embperf_report *report, int markdown, struct ep_buf *b)
{
	int note = 0;

	for (int i = 0; i < report->n_results; i++) {
		const struct embperf_result *r = report->results[i];

		if (!r->flags)
			continue;
		if (!note)
			ep_buf_printf(b, "\nmarked results (their own counters or samples say why):\n");
		ep_buf_printf(b, "%s!%d ", markdown ? "- " : "  ", ++note);
		put_cell(b, r->note, 0);
		ep_buf_printf(b, "\n");
	}
}

/* One trial log as a table: trial, configuration, outcome, pass, time. */
static void put_trial_log(const struct embperf_result *r, int markdown, struct ep_buf *b)
{
	const char *sep = markdown ? " | " : "  ";
	char config[32], outcome[32];

	ep_buf_printf(b, "\n%s%s/%s[%s]: %zu trial%s, %s searched, judged by %s\n",
		      markdown ? "**" : "", r->kernel, r->metric, r->labels, r->n_trials,
		      r->n_trials == 1 ? "" : "s", r->trial_config_name, r->trial_outcome_name);
	if (markdown)
		ep_buf_printf(b, "**\n\n| trial | %s | %s | pass | ms |\n|---|---|---|---|---|\n",
			      r->trial_config_name, r->trial_outcome_name);
	else
		ep_buf_printf(b, "  %5s%s%14s%s%12s%s%4s%s%8s\n", "trial", sep, r->trial_config_name,
			      sep, r->trial_outcome_name, sep, "pass", sep, "ms");
	for (size_t i = 0; i < r->n_trials; i++) {
		const struct ep_trial_row *t = &r->trials[i];

		ep_report_format_value(t->config, config, sizeof(config));
		ep_report_format_value(t->outcome, outcome, sizeof(outcome));
		if (markdown)
			ep_buf_printf(b, "| %zu | %s | %s | %s | %.1f |\n", i + 1, config, outcome,
				      t->pass ? "yes" : "no", (double)t->duration_ns / 1e6);
		else
			ep_buf_printf(b, "  %5zu%s%14s%s%12s%s%4s%s%8.1f\n", i + 1, sep, config, sep,
				      outcome, sep, t->pass ? "yes" : "no", sep,
				      (double)t->duration_ns / 1e6);
	}
}

/* The trial logs of searched values (RFC 2544's, ...), after the table. */
static void put_trial_logs(const struct embperf_report *report, int markdown, struct ep_buf *b)
{
	for (int i = 0; i < report->n_results; i++)
		if (report->results[i]->n_trials)
			put_trial_log(report->results[i], markdown, b);
}

/*
 * Whether the "kernel and labels" column would only repeat the first: no
 * result has a title of its own, so every key already is kernel/metric[labels].
 */
static int kernel_column_repeats_key(const struct embperf_report *report)
{
	for (int i = 0; i < report->n_results; i++)
		if (report->results[i]->title[0])
			return 0;
	return 1;
}

/* Whether @kv holds the pair @key=@value. */
static int kv_holds(const struct ep_pairs *kv, const char *key, const char *value)
{
	for (size_t i = 0; i < kv->n; i++)
		if (!strcmp(kv->keys[i], key) && !strcmp(kv->values[i], value))
			return 1;
	return 0;
}

/* Whether every result of @r's kernel in @report has @r's label @index. */
static int label_shared(const struct embperf_report *report, const struct embperf_result *r,
			size_t index)
{
	for (int i = 0; i < report->n_results; i++) {
		const struct embperf_result *o = report->results[i];

		if (!strcmp(o->kernel, r->kernel) &&
		    !kv_holds(&o->label_kv, r->label_kv.keys[index], r->label_kv.values[index]))
			return 0;
	}
	return 1;
}

/*
 * labels_part() - @r's labels that every result of its kernel holds
 * (@shared = 1) or that some lack (0), "k=v k=\"a b\"", in @r's order.
 * Return: malloc'd text or NULL.
 */
static char *labels_part(const struct embperf_report *report, const struct embperf_result *r,
			 int shared)
{
	struct ep_buf b;

	ep_buf_init(&b);
	ep_buf_append(&b, "", 0);
	for (size_t i = 0; i < r->label_kv.n; i++) {
		if (label_shared(report, r, i) != shared)
			continue;
		ep_buf_printf(&b, "%s%s", b.len ? " " : "", r->label_kv.keys[i]);
		if (r->label_kv.values[i][0]) {
			ep_buf_append(&b, "=", 1);
			ep_pairs_append_value(&b, r->label_kv.values[i]);
		}
	}
	return ep_buf_take(&b);
}

/*
 * group_rows() - in the text table without row titles, the labels once: a
 * line "kernel [labels every result of the kernel holds]" above the first
 * row of each run of rows of one kernel, and each row named by its metric
 * with only the labels that differ, "  latency[size=16k] (ns)".
 * @groups: nrows entries, set where a kernel line goes (the rest NULL).
 * Return: 0 or -ENOMEM.
 */
static int group_rows(const struct embperf_report *report, char **cells, char **groups)
{
	for (int i = 0; i < report->n_results; i++) {
		const struct embperf_result *r = report->results[i];
		int first = !i || strcmp(report->results[i - 1]->kernel, r->kernel);
		char *common = labels_part(report, r, 1), *rest, **name;

		if (!common)
			return -ENOMEM;
		rest = labels_part(report, r, 0);
		name = &cells[(i + 1) * COL_COUNT + COL_NAME];
		free(*name);
		*name = rest ? ep_asprintf("  %s%s%s%s%s%s%s", r->metric, rest[0] ? "[" : "", rest,
					   rest[0] ? "]" : "", r->unit[0] ? " (" : "", r->unit,
					   r->unit[0] ? ")" : "")
			     : NULL;
		if (first)
			groups[i + 1] = ep_asprintf("%s%s%s%s", r->kernel, common[0] ? " [" : "",
						    common, common[0] ? "]" : "");
		free(common);
		free(rest);
		if (!*name || (first && !groups[i + 1]))
			return -ENOMEM;
	}
	return 0;
}

/* Remove column @col from every one of @nrows rows of @cells (COL_COUNT wide). */
static void drop_column(char **cells, int nrows, int col)
{
	for (int r = 0; r < nrows; r++) {
		char **row = cells + r * COL_COUNT;

		free(row[col]);
		memmove(row + col, row + col + 1, (size_t)(COL_COUNT - col - 1) * sizeof(*row));
		row[COL_COUNT - 1] = NULL;
	}
}

char *ep_report_render_table(const struct embperf_report *report, int markdown)
{
	const char *const *headers = markdown ? markdown_headers : text_headers;
	int ncols = report->compared ? COL_COUNT : COL_BASELINE;
	int nrows = report->n_results + 1, err = 0;
	char **cells = calloc((size_t)nrows * COL_COUNT, sizeof(*cells));
	char **groups = calloc((size_t)nrows, sizeof(*groups));
	struct ep_buf b;

	if (!cells || !groups) {
		free(cells);
		free(groups);
		return NULL;
	}
	ep_buf_init(&b);
	for (int c = 0; c < ncols && !err; c++)
		err = (cells[c] = ep_strdup(headers[c])) ? 0 : -ENOMEM;
	for (int r = 1, note = 0; r < nrows && !err; r++) {
		const struct embperf_result *res = report->results[r - 1];

		note += res->flags != 0;
		err = row_cells(res, report->compared, res->flags ? note : 0, cells + r * COL_COUNT);
	}
	if (!err && kernel_column_repeats_key(report)) {
		drop_column(cells, nrows, COL_KERNEL);
		ncols--;
		if (!markdown)
			err = group_rows(report, cells, groups);
	}
	if (!err) {
		header(report, markdown, &b);
		put_table(&b, cells, groups, nrows, ncols, markdown);
		put_notes(report, markdown, &b);
		put_trial_logs(report, markdown, &b);
		put_missing(report, markdown, &b);
	}
	for (int i = 0; i < nrows * COL_COUNT; i++)
		free(cells[i]);
	for (int i = 0; i < nrows; i++)
		free(groups[i]);
	free(cells);
	free(groups);
	if (err)
		ep_buf_free(&b);
	return err ? NULL : ep_buf_take(&b);
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                      */
/* ------------------------------------------------------------------------ */

/* Columns added in 0.2, after all others so that the older ones keep their places. */
#define CSV_TRIAL_HEADER "dist_n,dist_mean,dist_min,dist_max,percentiles,trials,kernel_counters,flags,note"

/* Append one field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(struct ep_buf *b, const char *s, int first)
{
	if (!first)
		ep_buf_append(b, ",", 1);
	if (!strpbrk(s, ",\"\r\n")) {
		ep_buf_append(b, s, strlen(s));
		return;
	}
	ep_buf_append(b, "\"", 1);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			ep_buf_append(b, "\"", 1);
		ep_buf_append(b, p, 1);
	}
	ep_buf_append(b, "\"", 1);
}

/* A number with every digit needed to read it back; empty for NaN. */
static void csv_number(struct ep_buf *b, double v)
{
	char text[40] = "";

	if (isfinite(v))
		ep_format_double(v, text, sizeof(text));
	csv_field(b, text, 0);
}

static void csv_counter(struct ep_buf *b, const struct embperf_result *r, int counter)
{
	csv_number(b, r->counter_ok[counter] ? r->counters[counter] : NAN);
}

/**
 * csv_number_pairs() - one field of "name=value" pairs, every digit: the
 * percentiles ("p50=11.9 p99.9=35") or the counters the kernel declared
 * ("xruns=3 dropped=0"); empty when there are none.
 * @b:        the CSV text.
 * @r:        the result.
 * @counters: 1 for the kernel's counters, 0 for the percentiles.
 */
static void csv_number_pairs(struct ep_buf *b, const struct embperf_result *r, int counters)
{
	size_t n = counters ? r->n_named : r->has_dist ? r->n_pcts : 0;
	struct ep_buf f;
	char name[48], num[40];

	ep_buf_init(&f);
	ep_buf_append(&f, "", 0);
	for (size_t i = 0; i < n; i++) {
		if (counters)
			snprintf(name, sizeof(name), "%s", r->named[i].name);
		else
			ep_format_double(r->pcts[i].pct, name, sizeof(name));
		ep_format_double(counters ? r->named[i].value : r->pcts[i].value, num, sizeof(num));
		ep_buf_printf(&f, "%s%s%s=%s", i ? " " : "", counters ? "" : "p", name, num);
	}
	csv_field(b, f.data ? f.data : "", 0);
	b->failed |= f.failed;
	ep_buf_free(&f);
}

/* The result's marks as one field, "disturbed unstable"; empty when none. */
static void csv_flags(struct ep_buf *b, const struct embperf_result *r)
{
	char names[64] = "";

	for (unsigned bit = 1; bit; bit <<= 1) {
		const char *name = r->flags & bit ? ep_result_flag_name(bit) : NULL;

		if (name)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 names[0] ? " " : "", name);
	}
	csv_field(b, names, 0);
}

/**
 * csv_trial_columns() - the columns added in 0.2, last in the row:
 * dist_n, dist_mean, dist_min, dist_max, percentiles, trials, kernel_counters,
 * flags ("disturbed unstable"), note.
 * @b: the CSV text.
 * @r: the result.
 */
static void csv_trial_columns(struct ep_buf *b, const struct embperf_result *r)
{
	const double dist[] = { r->dist_n, r->dist_mean, r->dist_min, r->dist_max };
	char n[24] = "";

	for (size_t i = 0; i < EP_ARRAY_SIZE(dist); i++)
		csv_number(b, r->has_dist ? dist[i] : NAN);
	csv_number_pairs(b, r, 0);
	if (r->n_trials)
		snprintf(n, sizeof(n), "%zu", r->n_trials);
	csv_field(b, n, 0);
	csv_number_pairs(b, r, 1);
	csv_flags(b, r);
	csv_field(b, r->note, 0);
}

static void csv_row(struct ep_buf *b, const struct embperf_result *r, int compared)
{
	char n[24], *key = ep_result_key_dup(r);

	if (!key) {
		b->failed = 1;
		return;
	}
	snprintf(n, sizeof(n), "%zu", r->stats.n);
	csv_field(b, r->title, 1);
	csv_field(b, key, 0);
	free(key);
	csv_field(b, r->kernel, 0);
	csv_field(b, r->metric, 0);
	csv_field(b, r->unit, 0);
	csv_field(b, r->labels, 0);
	csv_field(b, ep_primary_name(r->primary), 0);
	csv_number(b, r->value);
	csv_field(b, n, 0);
	csv_number(b, r->stats.mean);
	csv_number(b, r->stats.min);
	csv_number(b, r->stats.max);
	csv_number(b, r->stats.median);
	csv_number(b, r->stats.stddev);
	csv_counter(b, r, EP_CTR_CPU_PROCESS_PCT);
	csv_counter(b, r, EP_CTR_CPU_SYSTEM_PCT);
	if (compared) {
		csv_number(b, r->has_baseline ? r->baseline : NAN);
		csv_number(b, r->has_baseline ? r->ratio : NAN);
		csv_field(b, ep_verdict_name(r->verdict) ? ep_verdict_name(r->verdict) : "none", 0);
	}
	csv_trial_columns(b, r);
	ep_buf_append(b, "\r\n", 2);
}

/* A baseline metric the report lacks: a row with only key, unit and baseline. */
static void csv_missing_row(struct ep_buf *b, const struct ep_missing *m)
{
	csv_field(b, "", 1);
	csv_field(b, m->key, 0);
	for (int i = 0; i < 2; i++)
		csv_field(b, "", 0);
	csv_field(b, m->unit, 0);
	for (int i = 0; i < 11; i++)
		csv_field(b, "", 0);
	csv_number(b, m->baseline);
	csv_field(b, "", 0);
	csv_field(b, "missing", 0);
	for (int i = 0; i < 9; i++)
		csv_field(b, "", 0);
	ep_buf_append(b, "\r\n", 2);
}

char *ep_report_render_csv(const struct embperf_report *report)
{
	struct ep_buf b;

	ep_buf_init(&b);
	ep_buf_printf(&b, "title,key,kernel,metric,unit,labels,primary,value,n,mean,min,max,median,stddev,cpu_process_pct,cpu_system_pct%s,%s\r\n",
		      report->compared ? ",baseline,ratio,verdict" : "", CSV_TRIAL_HEADER);
	for (int i = 0; i < report->n_results; i++)
		csv_row(&b, report->results[i], report->compared);
	for (int i = 0; report->compared && i < report->n_missing; i++)
		csv_missing_row(&b, &report->missing[i]);
	return ep_buf_take(&b);
}
