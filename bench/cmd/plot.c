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
 * The SVG is written by hand (no library): a board-farm user opens it in a
 * browser. Markers carry class="trial pass|fail" and data-* attributes with
 * the trial's values, so a script can read the picture back.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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
#define TICKS 5

/* Growable text; @failed once an allocation failed. */
struct svg {
	char *text;
	size_t len, cap;
	int failed;
};

__attribute__((format(printf, 2, 3))) static void out(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(s->text ? s->text + s->len : NULL, s->text ? s->cap - s->len : 0, fmt,
			      ap);
		va_end(ap);
		if (n < 0) {
			s->failed = 1;
			return;
		}
		if (s->text && s->len + (size_t)n < s->cap) {
			s->len += (size_t)n;
			return;
		}
		size_t cap = s->cap ? s->cap * 2 : 8192;
		while (cap < s->len + (size_t)n + 1)
			cap *= 2;
		char *t = realloc(s->text, cap);
		if (!t) {
			s->failed = 1;
			return;
		}
		s->text = t;
		s->cap = cap;
	}
}

/* Text with the five XML specials escaped. */
static void out_text(struct svg *s, const char *text)
{
	for (const char *p = text ? text : ""; *p; p++) {
		switch (*p) {
		case '&': out(s, "&amp;"); break;
		case '<': out(s, "&lt;"); break;
		case '>': out(s, "&gt;"); break;
		case '"': out(s, "&quot;"); break;
		case '\'': out(s, "&apos;"); break;
		default: out(s, "%c", *p);
		}
	}
}

/**
 * struct axis - a value range mapped onto pixels, with round tick steps.
 * @lo, @hi: the range shown; @step: between ticks; @p0, @p1: its pixels.
 */
struct axis {
	double lo, hi, step;
	double p0, p1;
};

/* Round range around [min, max] with ticks at 1, 2 or 5 times a power of ten. */
static void axis_fit(struct axis *a, double min, double max, double p0, double p1)
{
	double raw, mag, norm;

	if (!(max > min)) {
		double pad = min != 0.0 ? fabs(min) * 0.1 : 1.0;

		min -= pad;
		max += pad;
	}
	raw = (max - min) / TICKS;
	mag = pow(10.0, floor(log10(raw)));
	norm = raw / mag;
	a->step = (norm <= 1.0 ? 1.0 : norm <= 2.0 ? 2.0 : norm <= 5.0 ? 5.0 : 10.0) * mag;
	a->lo = floor(min / a->step) * a->step;
	a->hi = ceil(max / a->step) * a->step;
	a->p0 = p0;
	a->p1 = p1;
}

static double px(const struct axis *a, double v)
{
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* The frame, grid and tick labels of a panel whose top left is (@x, @y). */
static void axes(struct svg *s, double x, double y, const struct axis *ax, const struct axis *ay,
		 const char *xlabel, const char *ylabel, const char *title)
{
	out(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
	       "stroke=\"#333\"/>\n", x, y, PANEL_W, PANEL_H);
	for (double v = ax->lo; v <= ax->hi + ax->step / 2; v += ax->step) {
		double p = px(ax, v);

		out(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
		    p, y, p, y + PANEL_H);
		out(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.6g</text>\n", p,
		    y + PANEL_H + 16, fabs(v) < ax->step * 1e-9 ? 0.0 : v);
	}
	for (double v = ay->lo; v <= ay->hi + ay->step / 2; v += ay->step) {
		double p = px(ay, v);

		out(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
		    x, p, x + PANEL_W, p);
		out(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.6g</text>\n", x - 6, p + 4,
		    fabs(v) < ay->step * 1e-9 ? 0.0 : v);
	}
	out(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + PANEL_W / 2,
	    y + PANEL_H + 38);
	out_text(s, xlabel);
	out(s, "</text>\n<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
	       "text-anchor=\"middle\">", x - 54, y + PANEL_H / 2);
	out_text(s, ylabel);
	out(s, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">", x, y - 28);
	out_text(s, title);
	out(s, "</text>\n");
}

/* One trial of the log. */
struct trial {
	double config, outcome;
	int pass;
};

static void marker(struct svg *s, const struct trial *t, int index, double cx, double cy)
{
	out(s, "<circle class=\"trial %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" "
	       "data-trial=\"%d\" data-config=\"%.17g\" data-pass=\"%d\"",
	    t->pass ? "pass" : "fail", cx, cy, t->pass ? COLOR_PASS : COLOR_FAIL, index + 1,
	    t->config, t->pass);
	if (isfinite(t->outcome))
		out(s, " data-outcome=\"%.17g\"", t->outcome);
	out(s, "><title>trial %d: %.6g, %s</title></circle>\n", index + 1, t->config,
	    t->pass ? "pass" : "fail");
}

/* "o pass  o fail", right-aligned at (@x, @y). */
static void legend(struct svg *s, double x, double y)
{
	out(s, "<g class=\"legend\">"
	       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"" COLOR_PASS "\"/>"
	       "<text x=\"%.1f\" y=\"%.1f\">pass</text>"
	       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"" COLOR_FAIL "\"/>"
	       "<text x=\"%.1f\" y=\"%.1f\">fail</text></g>\n",
	    x - 86, y - 4, x - 78, y, x - 36, y - 4, x - 28, y);
}

/* The search panel: configuration per trial, in order, and the value found. */
static void search_panel(struct svg *s, double x, double y, const embperf_result *r,
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
	out(s, "<polyline class=\"path\" fill=\"none\" stroke=\"" COLOR_LINE "\" points=\"");
	for (int i = 0; i < n; i++)
		out(s, "%.1f,%.1f ", px(&ax, i + 1), px(&ay, t[i].config));
	out(s, "\"/>\n");
	if (isfinite(found)) {
		out(s, "<line class=\"found\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		       "stroke=\"" COLOR_FOUND "\" stroke-dasharray=\"6,4\" data-value=\"%.17g\"/>\n",
		    x, px(&ay, found), x + PANEL_W, px(&ay, found), found);
		/* the label below the line when the line runs along the top */
		out(s, "<text x=\"%.1f\" y=\"%.1f\" fill=\"" COLOR_FOUND "\">found %.6g ", x + 4,
		    px(&ay, found) < y + 20 ? px(&ay, found) + 15 : px(&ay, found) - 5, found);
		out_text(s, embperf_result_unit(r));
		out(s, "</text>\n");
	} else {
		out(s, "<text class=\"found-none\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
		       "fill=\"" COLOR_FAIL "\">no trial passed</text>\n",
		    x + PANEL_W - 4, y + 16);
	}
	for (int i = 0; i < n; i++)
		marker(s, &t[i], i, px(&ax, i + 1), px(&ay, t[i].config));
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
static int curve_panel(struct svg *s, double x, double y, const embperf_result *r,
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
	out(s, "<polyline class=\"curve\" fill=\"none\" stroke=\"" COLOR_FOUND "\" points=\"");
	for (int i = 0; i < m; i++)
		out(s, "%.1f,%.1f ", px(&ax, c[i].config), px(&ay, c[i].outcome));
	out(s, "\"/>\n");
	for (int i = 0; i < m; i++)
		out(s, "<circle class=\"point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" "
		       "data-config=\"%.17g\" data-outcome=\"%.17g\"/>\n",
		    c[i].pass ? "pass" : "fail", px(&ax, c[i].config), px(&ay, c[i].outcome),
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
static void plot_result(struct svg *s, const embperf_result *r, double y)
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
	out(s, "<g class=\"result\" data-key=\"");
	out_text(s, key);
	out(s, "\" data-trials=\"%d\">\n", n);
	search_panel(s, MARGIN_L, y + MARGIN_T, r, t, n, cname && *cname ? cname : "config", title);
	curve_panel(s, COL_W + MARGIN_L, y + MARGIN_T, r, t, n, cname && *cname ? cname : "config",
		    oname && *oname ? oname : "outcome");
	out(s, "</g>\n");
	free(t);
}

/* Write @text to @path through a temporary file, so @path is old or complete. */
static int save(const char *path, const char *text, size_t len)
{
	char *tmp = malloc(strlen(path) + 32);
	FILE *f;
	int ok;

	if (!tmp)
		return -ENOMEM;
	sprintf(tmp, "%s.tmp-%ld", path, (long)getpid());
	f = fopen(tmp, "wx");
	if (!f) {
		int err = -errno;

		free(tmp);
		return err;
	}
	ok = fwrite(text, 1, len, f) == len;
	ok = fflush(f) == 0 && ok;
	ok = fsync(fileno(f)) == 0 && ok;
	ok = fclose(f) == 0 && ok;
	ok = ok && rename(tmp, path) == 0;
	if (!ok) {
		int err = errno ? -errno : -EIO;

		unlink(tmp);
		free(tmp);
		return err;
	}
	free(tmp);
	return 0;
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
	struct svg s = { 0 };

	for (int i = 0; i < count; i++)
		rows += embperf_result_trial_count(embperf_report_result(report, i)) > 0;
	if (!rows) {
		cli_error("%s: no trial log in %s %d result%s (only searched values, such as a "
			  "zero-loss rate, have one); nothing plotted, nothing written",
			  source, count == 1 ? "its" : "any of its", count, count == 1 ? "" : "s");
		return CLI_EXIT_FILE;
	}
	out(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
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
	out(&s, "</svg>\n");
	if (s.failed) {
		free(s.text);
		cli_error("out of memory drawing the plot");
		return CLI_EXIT_RUN;
	}
	if (!path) {
		cli_progress_clear();
		rc = fwrite(s.text, 1, s.len, stdout) == s.len ? 0 : -EIO;
	} else {
		rc = save(path, s.text, s.len);
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
