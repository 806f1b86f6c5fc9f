// SPDX-License-Identifier: MIT
/*
 * plot.c - pictures of searches: `embperf plot REPORT.json [-o FILE.svg]`
 * and `--plot FILE` of run and suite. For each result that carries a trial
 * log (a searched value such as RFC 2544's zero-loss rate), one row of the
 * picture:
 *
 *   - the search: the configuration each trial offered, in the order run,
 *     a marker per trial, green when it passed and red when it failed, and
 *     the value found as a dashed line;
 *   - the curve: the outcome (e.g. the loss) against the configuration,
 *     when the log has outcomes at two configurations or more.
 *
 * The SVG is written by hand (no library, svg.c): a board-farm user opens
 * it in a browser. Markers carry class="trial pass|fail" and data-* attributes with
 * the trial's values, so a script can read the picture back.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "svg.h"

#define COLOR_PASS "#1a9850"
#define COLOR_FAIL "#d73027"
#define COLOR_FOUND "#4575b4"
#define COLOR_LINE "#999999"

/* Geometry, in SVG pixels: two panels per row, each with room for its axes. */
#define PANEL_W 460.0
#define PANEL_H 260.0
#define MARGIN_L 72.0
#define MARGIN_R 24.0
#define MARGIN_T 48.0
#define MARGIN_B 52.0
#define ROW_H (MARGIN_T + PANEL_H + MARGIN_B)
#define COL_W (MARGIN_L + PANEL_W + MARGIN_R)

/* A panel whose top left is (@x, @y), for svg_axes(). */
static void axes(struct textbuf *s, double x, double y, const struct axis *ax,
		 const struct axis *ay, const char *xlabel, const char *ylabel, const char *title)
{
	const double frame[4] = { x, y, PANEL_W, PANEL_H };

	svg_axes(s, frame, ax, ay, xlabel, ylabel, title);
}

/* One trial of the log. */
struct trial {
	double config, outcome;
	int pass;
};

static void marker(struct textbuf *s, const struct trial *t, int index, double cx, double cy)
{
	tb_printf(s, "<circle class=\"trial %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" "
	       "data-trial=\"%d\" data-config=\"%.17g\" data-pass=\"%d\"",
	    t->pass ? "pass" : "fail", cx, cy, t->pass ? COLOR_PASS : COLOR_FAIL, index + 1,
	    t->config, t->pass);
	if (isfinite(t->outcome))
		tb_printf(s, " data-outcome=\"%.17g\"", t->outcome);
	tb_printf(s, "><title>trial %d: %.6g, %s</title></circle>\n", index + 1, t->config,
	    t->pass ? "pass" : "fail");
}

/* "o pass  o fail", right-aligned at (@x, @y). */
static void legend(struct textbuf *s, double x, double y)
{
	tb_printf(s, "<g class=\"legend\">"
	       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"" COLOR_PASS "\"/>"
	       "<text x=\"%.1f\" y=\"%.1f\">pass</text>"
	       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"" COLOR_FAIL "\"/>"
	       "<text x=\"%.1f\" y=\"%.1f\">fail</text></g>\n",
	    x - 86, y - 4, x - 78, y, x - 36, y - 4, x - 28, y);
}

/* The search panel: configuration per trial, in order, and the value found. */
static void search_panel(struct textbuf *s, double x, double y, const embperf_result *r,
			 const struct trial *t, int n, const char *cname, const char *title)
{
	double found = embperf_result_value(r), min = INFINITY, max = -INFINITY;
	struct axis ax, ay;
	char ylabel[160];

	for (int i = 0; i < n; i++) {
		min = fmin(min, t[i].config);
		max = fmax(max, t[i].config);
	}
	if (isfinite(found)) {
		min = fmin(min, found);
		max = fmax(max, found);
	}
	axis_fit(&ax, n > 1 ? 1.0 : 0.0, n > 1 ? (double)n : 2.0, x, x + PANEL_W);
	if (ax.step < 1.0) {
		ax.step = 1.0;
		ax.lo = floor(ax.lo);
		ax.hi = ceil(ax.hi);
	}
	axis_fit(&ay, min, max, y + PANEL_H, y);
	snprintf(ylabel, sizeof(ylabel), "%s (%s)", cname, embperf_result_unit(r));
	axes(s, x, y, &ax, &ay, "trial", ylabel, title);
	tb_printf(s, "<polyline class=\"path\" fill=\"none\" stroke=\"" COLOR_LINE "\" points=\"");
	for (int i = 0; i < n; i++)
		tb_printf(s, "%.1f,%.1f ", axis_px(&ax, i + 1), axis_px(&ay, t[i].config));
	tb_printf(s, "\"/>\n");
	if (isfinite(found)) {
		tb_printf(s, "<line class=\"found\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		       "stroke=\"" COLOR_FOUND "\" stroke-dasharray=\"6,4\" data-value=\"%.17g\"/>\n",
		    x, axis_px(&ay, found), x + PANEL_W, axis_px(&ay, found), found);
		/* the label below the line when the line runs along the top */
		tb_printf(s, "<text x=\"%.1f\" y=\"%.1f\" fill=\"" COLOR_FOUND "\">found %.6g ", x + 4,
		    axis_px(&ay, found) < y + 20 ? axis_px(&ay, found) + 15 : axis_px(&ay, found) - 5, found);
		tb_escape(s, embperf_result_unit(r));
		tb_printf(s, "</text>\n");
	} else {
		tb_printf(s, "<text class=\"found-none\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
		       "fill=\"" COLOR_FAIL "\">no trial passed</text>\n",
		    x + PANEL_W - 4, y + 16);
	}
	for (int i = 0; i < n; i++)
		marker(s, &t[i], i, axis_px(&ax, i + 1), axis_px(&ay, t[i].config));
	legend(s, x + PANEL_W, y - 10);
}

static int by_config(const void *a, const void *b)
{
	const struct trial *x = a, *y = b;

	return (x->config > y->config) - (x->config < y->config);
}

/* Trials with an outcome, sorted by configuration, into @c. Return: how many. */
static int curve_points(const struct trial *t, int n, struct trial *c, int *distinct)
{
	int m = 0;

	for (int i = 0; i < n; i++)
		if (isfinite(t[i].outcome))
			c[m++] = t[i];
	qsort(c, (size_t)m, sizeof(*c), by_config);
	*distinct = m > 0;
	for (int i = 1; i < m; i++)
		*distinct += c[i].config != c[i - 1].config;
	return m;
}

/* The curve panel: outcome against configuration. Return: 1 when drawn. */
static int curve_panel(struct textbuf *s, double x, double y, const embperf_result *r,
		       const struct trial *t, int n, const char *cname, const char *oname)
{
	struct trial *c = malloc((size_t)n * sizeof(*c));
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	int m, distinct;
	struct axis ax, ay;
	char xlabel[160], title[200];

	if (!c) {
		s->failed = 1;
		return 0;
	}
	m = curve_points(t, n, c, &distinct);
	if (distinct < 2) {
		free(c);
		return 0;
	}
	for (int i = 0; i < m; i++) {
		xmin = fmin(xmin, c[i].config);
		xmax = fmax(xmax, c[i].config);
		ymin = fmin(ymin, c[i].outcome);
		ymax = fmax(ymax, c[i].outcome);
	}
	axis_fit(&ax, xmin, xmax, x, x + PANEL_W);
	axis_fit(&ay, fmin(ymin, 0.0), ymax, y + PANEL_H, y);
	snprintf(xlabel, sizeof(xlabel), "%s (%s)", cname, embperf_result_unit(r));
	snprintf(title, sizeof(title), "%s against %s", oname, cname);
	axes(s, x, y, &ax, &ay, xlabel, oname, title);
	tb_printf(s, "<polyline class=\"curve\" fill=\"none\" stroke=\"" COLOR_FOUND "\" points=\"");
	for (int i = 0; i < m; i++)
		tb_printf(s, "%.1f,%.1f ", axis_px(&ax, c[i].config), axis_px(&ay, c[i].outcome));
	tb_printf(s, "\"/>\n");
	for (int i = 0; i < m; i++)
		tb_printf(s, "<circle class=\"point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" "
		       "data-config=\"%.17g\" data-outcome=\"%.17g\"/>\n",
		    c[i].pass ? "pass" : "fail", axis_px(&ax, c[i].config), axis_px(&ay, c[i].outcome),
		    c[i].pass ? COLOR_PASS : COLOR_FAIL, c[i].config, c[i].outcome);
	free(c);
	return 1;
}

/* The trial log of @r; NULL on ENOMEM. */
static struct trial *read_log(const embperf_result *r, int n)
{
	struct trial *t = calloc((size_t)n, sizeof(*t));

	for (int i = 0; t && i < n; i++) {
		double pass = 0.0;

		if (embperf_result_trial(r, i, EMBPERF_TRIAL_CONFIG, &t[i].config) ||
		    embperf_result_trial(r, i, EMBPERF_TRIAL_OUTCOME, &t[i].outcome) ||
		    embperf_result_trial(r, i, EMBPERF_TRIAL_PASS, &pass))
			t[i].config = NAN;
		t[i].pass = pass != 0.0;
	}
	return t;
}

/* One row: the search, and the curve beside it when there is one. */
static void plot_result(struct textbuf *s, const embperf_result *r, double y)
{
	int n = embperf_result_trial_count(r);
	const char *cname = embperf_result_trial_name(r, EMBPERF_TRIAL_CONFIG);
	const char *oname = embperf_result_trial_name(r, EMBPERF_TRIAL_OUTCOME);
	struct trial *t = read_log(r, n);
	char key[512], title[640];

	if (!t) {
		s->failed = 1;
		return;
	}
	embperf_result_key(r, key, sizeof(key));
	snprintf(title, sizeof(title), "%s: %d trials", key, n);
	tb_printf(s, "<g class=\"result\" data-key=\"");
	tb_escape(s, key);
	tb_printf(s, "\" data-trials=\"%d\">\n", n);
	search_panel(s, MARGIN_L, y + MARGIN_T, r, t, n, cname && *cname ? cname : "config", title);
	curve_panel(s, COL_W + MARGIN_L, y + MARGIN_T, r, t, n, cname && *cname ? cname : "config",
		    oname && *oname ? oname : "outcome");
	tb_printf(s, "</g>\n");
	free(t);
}

/**
 * cli_plot_report() - draw the trial logs of @report as SVG.
 * @opt:    options (-q for the note).
 * @report: results; those with a trial log are drawn, one row each.
 * @source: what the report is, for messages: its file, or "the run".
 * @path:   the file to write, or NULL for standard output.
 *
 * A report without any trial log is an error, and nothing is written.
 *
 * Return: CLI_EXIT_OK, CLI_EXIT_FILE (nothing to plot, or the file cannot
 * be written), or CLI_EXIT_RUN (out of memory).
 */
int cli_plot_report(const struct cli_options *opt, const embperf_report *report,
		    const char *source, const char *path)
{
	int count = embperf_report_result_count(report), rows = 0, rc;
	struct textbuf s = { 0 };

	for (int i = 0; i < count; i++)
		rows += embperf_result_trial_count(embperf_report_result(report, i)) > 0;
	if (!rows) {
		cli_error("%s: no trial log in %s %d result%s (only searched values, such as a "
			  "zero-loss rate, have one); nothing plotted, nothing written",
			  source, count == 1 ? "its" : "any of its", count, count == 1 ? "" : "s");
		return CLI_EXIT_FILE;
	}
	tb_printf(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<title>embperf: %d search%s</title>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
	    2 * COL_W, rows * ROW_H, 2 * COL_W, rows * ROW_H, rows, rows == 1 ? "" : "es");
	rows = 0;
	for (int i = 0; i < count; i++) {
		const embperf_result *r = embperf_report_result(report, i);

		if (embperf_result_trial_count(r) > 0)
			plot_result(&s, r, rows++ * ROW_H);
	}
	tb_printf(&s, "</svg>\n");
	if (s.failed) {
		free(s.text);
		cli_error("out of memory drawing the plot");
		return CLI_EXIT_RUN;
	}
	if (!path) {
		cli_progress_clear();
		rc = fwrite(s.text, 1, s.len, stdout) == s.len ? 0 : -EIO;
	} else {
		rc = cli_write_file(path, s.text, s.len);
	}
	free(s.text);
	if (rc) {
		cli_error("%s: cannot write the plot: %s", path ? path : "standard output",
			  strerror(-rc));
		return CLI_EXIT_FILE;
	}
	if (path)
		cli_note(opt, "wrote a plot of %d search%s to %s (SVG)", rows, rows == 1 ? "" : "es",
			 path);
	return CLI_EXIT_OK;
}

/**
 * cmd_plot() - `embperf plot REPORT.json [-o FILE.svg]`.
 * @opt: options; operand: the report.
 *
 * Return: CLI_EXIT_OK, CLI_EXIT_USAGE, CLI_EXIT_FILE or CLI_EXIT_RUN.
 */
int cmd_plot(const struct cli_options *opt)
{
	embperf_report *report;
	embperf_ctx *ctx;
	int status;

	if (opt->argc != 1) {
		cli_error("plot needs one file: REPORT.json (a report saved with --format=json)");
		return CLI_EXIT_USAGE;
	}
	if (opt->format_given) {
		cli_error("--format does not apply to `plot`: it writes SVG (see `embperf help plot`)");
		return CLI_EXIT_USAGE;
	}
	ctx = embperf_ctx_new();
	if (!ctx) {
		cli_error("cannot create a context: %s", embperf_strerror(-errno));
		return CLI_EXIT_RUN;
	}
	report = cli_load_report(ctx, opt->argv[0]);
	status = report ? cli_plot_report(opt, report, opt->argv[0], opt->output_path) : CLI_EXIT_FILE;
	embperf_report_free(report);
	embperf_ctx_free(ctx);
	return status;
}
