// SPDX-License-Identifier: MIT
/*
 * guide_plot.c - the plots of a guide, one SVG element each, drawn by hand
 * (svg.c; no plotting library: four kinds of line chart do not need one,
 * and the page stays one file a board team can mail):
 *
 *   kind=curve          value against a numeric label (x=LABEL), a line per
 *                       series (series=LABEL,...); logx=2 or logx=10 for a
 *                       log axis: throughput per buffer size
 *   kind=latency-curve  mem.lat's sweep: ns against the array size on a
 *                       binary log axis, the cache levels the sweep found
 *                       (its cache_level_size results) as dashed lines
 *   kind=loss           RFC 2544 searches: loss (%) against the offered load
 *                       in Mbit/s of Ethernet frames, a line per frame size
 *   kind=distribution   latency distributions (timer wake-ups, audio
 *                       lateness): the share of operations later than
 *                       each value, a cumulative histogram, log-log
 *
 * With a baseline, its series are drawn dashed beside the guide's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guide.h"

#define W 720.0
#define H 300.0
#define MARGIN_L 72.0
#define MARGIN_T 48.0
#define MARGIN_B 52.0
#define LEGEND_W 180.0
#define MAX_SERIES 24
#define MAX_POINTS 256

static const char *const palette[] = { "#4575b4", "#d73027", "#1a9850", "#984ea3",
				       "#ff7f00", "#a65628", "#f781bf", "#666666" };

/* Operands of @plot that are not filters of results. */
static const char *const plot_options[] = { "kind", "x", "series", "logx", NULL };

/**
 * struct series - the points of one line.
 * @name:     its legend.
 * @x, @y:    the points, sorted by x.
 * @n:        their number.
 * @baseline: from the baseline report (drawn dashed).
 */
struct series {
	char name[96];
	double x[MAX_POINTS], y[MAX_POINTS];
	int n;
	int baseline;
};

/**
 * struct chart - what a plot draws.
 * @s:       the series.
 * @n:       their number.
 * @xlabel:  name of the x axis.
 * @ylabel:  name of the y axis.
 * @logx:    0, 2 or 10.
 * @logy:    0 or 10.
 * @vlines:  x positions of marked levels (cache sizes), with @vnames.
 * @n_vlines: their number.
 */
struct chart {
	struct series *s;
	int n;
	char xlabel[96], ylabel[96];
	int logx, logy;
	double vlines[8];
	char vnames[8][32];
	int n_vlines;
};

/* The series named @name (of this side), made when new; NULL when full. */
static struct series *series_for(struct chart *c, const char *name, int baseline)
{
	for (int i = 0; i < c->n; i++)
		if (c->s[i].baseline == baseline && !strcmp(c->s[i].name, name))
			return &c->s[i];
	if (c->n == MAX_SERIES)
		return NULL;
	memset(&c->s[c->n], 0, sizeof(c->s[c->n]));
	snprintf(c->s[c->n].name, sizeof(c->s[c->n].name), "%s", name);
	c->s[c->n].baseline = baseline;
	return &c->s[c->n++];
}

static void add_point(struct series *s, double x, double y)
{
	if (s && s->n < MAX_POINTS && isfinite(x) && isfinite(y)) {
		s->x[s->n] = x;
		s->y[s->n++] = y;
	}
}

/*
 * The legend of @r: its values of the series labels; without them its
 * metric when @labels is "" (a curve), or its key when it is NULL.
 */
static void series_name(const embperf_result *r, const char *labels, int baseline, char *buf,
			size_t size)
{
	char list[128], *save = NULL, *label, value[64];
	size_t used = 0;

	buf[0] = '\0';
	snprintf(list, sizeof(list), "%s", labels ? labels : "");
	for (label = strtok_r(list, ",", &save); label; label = strtok_r(NULL, ",", &save))
		if (embperf_result_label(r, label, value, sizeof(value)) >= 0)
			used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", used ? " " : "",
						 label, value);
	/* No series labels: one line per metric (curves), or per result. */
	if (!buf[0] && labels)
		snprintf(buf, size, "%s", embperf_result_metric(r));
	else if (!buf[0])
		embperf_result_key(r, buf, size);
	if (baseline)
		snprintf(buf + strlen(buf), size - strlen(buf), " (baseline)");
}

/* kind=curve and latency-curve: value against a numeric label. */
static void collect_curve(struct chart *c, const char *args, const embperf_report *rep,
			  int baseline)
{
	char x[64], series[128], name[160], value[64];

	if (!guide_arg(args, "x", x, sizeof(x)))
		snprintf(x, sizeof(x), "size");
	if (!guide_arg(args, "series", series, sizeof(series)))
		series[0] = '\0';
	for (int i = 0; i < embperf_report_result_count(rep); i++) {
		const embperf_result *r = embperf_report_result(rep, i);

		if (!guide_matches(r, args, plot_options) ||
		    embperf_result_label(r, x, value, sizeof(value)) < 0)
			continue;
		series_name(r, series, baseline, name, sizeof(name));
		add_point(series_for(c, name, baseline), guide_number(value),
			  embperf_result_value(r));
		if (!c->ylabel[0])
			snprintf(c->ylabel, sizeof(c->ylabel), "%s (%s)", embperf_result_metric(r),
				 embperf_result_unit(r));
	}
	snprintf(c->xlabel, sizeof(c->xlabel), "%s", x);
}

/* The cache levels mem.lat's sweep found: dashed lines at their sizes. */
static void collect_levels(struct chart *c, const char *args, const embperf_report *rep)
{
	char match[128], level[16];

	for (int i = 0; i < embperf_report_result_count(rep) && c->n_vlines < 8; i++) {
		const embperf_result *r = embperf_report_result(rep, i);
		char key[512];

		embperf_result_key(r, key, sizeof(key));
		if (strcmp(embperf_result_metric(r), "cache_level_size") ||
		    (guide_arg(args, "match", match, sizeof(match)) &&
		     strncmp(key, match, strcspn(match, "*?["))) ||
		    embperf_result_label(r, "level", level, sizeof(level)) < 0)
			continue;
		c->vlines[c->n_vlines] = embperf_result_value(r);
		snprintf(c->vnames[c->n_vlines++], sizeof(c->vnames[0]), "L%s", level);
	}
}

/* kind=loss: the trial log of each search, loss against the offered Mbit/s. */
static void collect_loss(struct chart *c, const char *args, const embperf_report *rep,
			 int baseline)
{
	char series[128], name[160], frame[32];

	if (!guide_arg(args, "series", series, sizeof(series)))
		snprintf(series, sizeof(series), "frame");
	for (int i = 0; i < embperf_report_result_count(rep); i++) {
		const embperf_result *r = embperf_report_result(rep, i);
		double bytes = 0;
		int n = embperf_result_trial_count(r);
		struct series *s;

		if (!n || !guide_matches(r, args, plot_options))
			continue;
		if (embperf_result_label(r, "frame", frame, sizeof(frame)) >= 0)
			bytes = guide_number(frame);
		series_name(r, series, baseline, name, sizeof(name));
		s = series_for(c, name, baseline);
		for (int t = 0; t < n; t++) {
			double config, outcome;

			if (embperf_result_trial(r, t, EMBPERF_TRIAL_CONFIG, &config) ||
			    embperf_result_trial(r, t, EMBPERF_TRIAL_OUTCOME, &outcome))
				continue;
			/* frames/s of a frame size: Mbit/s of Ethernet frames. */
			add_point(s, bytes > 0 ? config * bytes * 8.0 / 1e6 : config, outcome);
		}
	}
	snprintf(c->xlabel, sizeof(c->xlabel), "offered load (Mbit/s of Ethernet frames)");
	snprintf(c->ylabel, sizeof(c->ylabel), "loss (%%)");
}

/*
 * kind=distribution: a latency distribution as the share of operations
 * later than each value (a cumulative histogram, 100 - p at the value of
 * percentile p, from 100 % at the minimum), log against log. A result
 * carries percentiles, not buckets: this is what they say exactly, where
 * bars between percentiles would suggest a shape they do not hold.
 */
static void collect_distribution(struct chart *c, const char *args, const embperf_report *rep,
				 int baseline)
{
	char series[128], name[160];
	const char *labels = guide_arg(args, "series", series, sizeof(series));

	for (int i = 0; i < embperf_report_result_count(rep); i++) {
		const embperf_result *r = embperf_report_result(rep, i);
		int n = embperf_result_percentile_count(r);
		struct series *s;

		if (!n || !guide_matches(r, args, plot_options))
			continue;
		series_name(r, labels, baseline, name, sizeof(name));
		s = series_for(c, name, baseline);
		add_point(s, fmax(embperf_result_dist_stat(r, EMBPERF_STAT_MIN), 1e-3), 100.0);
		for (int k = 0; k < n; k++) {
			double p, v;

			if (embperf_result_percentile_at(r, k, &p, &v) == 0)
				add_point(s, fmax(v, 1e-3), 100.0 - p);
		}
		if (!c->xlabel[0])
			snprintf(c->xlabel, sizeof(c->xlabel), "%s (%s)", embperf_result_metric(r),
				 embperf_result_unit(r));
	}
	snprintf(c->ylabel, sizeof(c->ylabel), "share of operations later (%%)");
	c->logx = 10;
	c->logy = 10;
}

static int by_x(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* Sort a series' points by x. */
static void sort_series(struct series *s)
{
	double xy[MAX_POINTS][2];

	for (int i = 0; i < s->n; i++) {
		xy[i][0] = s->x[i];
		xy[i][1] = s->y[i];
	}
	qsort(xy, (size_t)s->n, sizeof(xy[0]), by_x);
	for (int i = 0; i < s->n; i++) {
		s->x[i] = xy[i][0];
		s->y[i] = xy[i][1];
	}
}

/* The range of the chart's values on each axis; 0 when there is no point. */
static int ranges(const struct chart *c, double *x0, double *x1, double *y0, double *y1)
{
	*x0 = *y0 = INFINITY;
	*x1 = *y1 = -INFINITY;
	for (int i = 0; i < c->n; i++) {
		const struct series *s = &c->s[i];

		for (int k = 0; k < s->n; k++) {
			if (c->logx ? s->x[k] > 0 : isfinite(s->x[k])) {
				*x0 = fmin(*x0, s->x[k]);
				*x1 = fmax(*x1, s->x[k]);
			}
			if (c->logy ? s->y[k] > 0 : isfinite(s->y[k])) {
				*y0 = fmin(*y0, s->y[k]);
				*y1 = fmax(*y1, s->y[k]);
			}
		}
	}
	for (int i = 0; i < c->n_vlines; i++) {
		*x0 = fmin(*x0, c->vlines[i]);
		*x1 = fmax(*x1, c->vlines[i]);
	}
	return isfinite(*x0) && isfinite(*y0);
}

static void draw_series(struct textbuf *b, const struct series *s, const struct axis *ax,
			const struct axis *ay, const char *color)
{
	tb_printf(b, "<polyline class=\"series\" data-series=\"");
	tb_escape(b, s->name);
	tb_printf(b, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"", color,
		  s->baseline ? " stroke-dasharray=\"5,4\"" : "");
	for (int k = 0; k < s->n; k++) {
		double y = ay->log ? fmax(s->y[k], ay->lo) : s->y[k];

		tb_printf(b, "%.1f,%.1f ", axis_px(ax, s->x[k]), axis_px(ay, y));
	}
	tb_printf(b, "\"/>\n");
	for (int k = 0; k < s->n; k++)
		tb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>%.6g, %.6g</title></circle>\n",
			  axis_px(ax, s->x[k]), axis_px(ay, ay->log ? fmax(s->y[k], ay->lo) : s->y[k]),
			  color, s->x[k], s->y[k]);
}

static void draw_legend(struct textbuf *b, const struct chart *c)
{
	double x = MARGIN_L + W + 16, y = MARGIN_T;

	for (int i = 0; i < c->n; i++) {
		int color = 0;

		/* A baseline series takes its guide series' colour. */
		for (int j = 0; j < c->n; j++)
			if (!c->s[j].baseline && !strncmp(c->s[i].name, c->s[j].name, strlen(c->s[j].name)))
				color = j;
		if (!c->s[i].baseline)
			color = i;
		tb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>"
			     "<text x=\"%.1f\" y=\"%.1f\">", x, y + 16 * i, x + 20, y + 16 * i,
			  palette[color % 8], c->s[i].baseline ? " stroke-dasharray=\"5,4\"" : "",
			  x + 26, y + 16 * i + 4);
		tb_escape(b, c->s[i].name);
		tb_printf(b, "</text>\n");
	}
}

static void draw(struct textbuf *b, struct chart *c, const char *title)
{
	double x0, x1, y0, y1;
	const double frame[4] = { MARGIN_L, MARGIN_T, W, H };
	struct axis ax, ay;

	ranges(c, &x0, &x1, &y0, &y1);
	if (c->logx)
		axis_fit_log(&ax, x0, x1, c->logx, MARGIN_L, MARGIN_L + W);
	else
		axis_fit(&ax, x0, x1, MARGIN_L, MARGIN_L + W);
	if (c->logy)
		axis_fit_log(&ay, fmax(y0, 1e-3), y1, 10, MARGIN_T + H, MARGIN_T);
	else /* from 0; a loss of 0 everywhere on 0..1, not -1..1 */
		axis_fit(&ay, fmin(y0, 0.0), y1 > 0.0 || y0 < 0.0 ? y1 : 1.0, MARGIN_T + H, MARGIN_T);
	tb_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		     "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\" class=\"plot\">\n"
		     "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		  MARGIN_L + W + LEGEND_W, MARGIN_T + H + MARGIN_B, MARGIN_L + W + LEGEND_W,
		  MARGIN_T + H + MARGIN_B);
	svg_axes(b, frame, &ax, &ay, c->xlabel, c->ylabel, title);
	for (int i = 0; i < c->n_vlines; i++) {
		double px = axis_px(&ax, c->vlines[i]);

		tb_printf(b, "<line class=\"level\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			     "stroke=\"#888\" stroke-dasharray=\"3,3\" data-bytes=\"%.17g\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">%s</text>\n",
			  px, MARGIN_T, px, MARGIN_T + H, c->vlines[i], px + 3, MARGIN_T + 12,
			  c->vnames[i]);
	}
	for (int i = 0; i < c->n; i++) {
		int color = i;

		for (int j = 0; j < c->n; j++)
			if (c->s[i].baseline && !c->s[j].baseline &&
			    !strncmp(c->s[i].name, c->s[j].name, strlen(c->s[j].name)))
				color = j;
		sort_series(&c->s[i]);
		draw_series(b, &c->s[i], &ax, &ay, palette[color % 8]);
	}
	draw_legend(b, c);
	tb_printf(b, "</svg>\n");
}

static int collect(struct chart *c, const char *kind, const char *args,
		   const embperf_report *rep, int baseline)
{
	if (!strcmp(kind, "curve") || !strcmp(kind, "latency-curve"))
		collect_curve(c, args, rep, baseline);
	else if (!strcmp(kind, "loss"))
		collect_loss(c, args, rep, baseline);
	else if (!strcmp(kind, "distribution"))
		collect_distribution(c, args, rep, baseline);
	else
		return -EINVAL;
	if (!strcmp(kind, "latency-curve") && !baseline)
		collect_levels(c, args, rep);
	return 0;
}

/**
 * guide_plot() - one plot of a guide as an <svg> element.
 * @b:        buffer.
 * @args:     the @plot operands.
 * @report:   results.
 * @baseline: the baseline's, drawn dashed, or NULL.
 * @title:    the plot's title.
 * @err:      receives why a directive is refused.
 * @err_size: size of @err.
 *
 * Return: 1 when drawn, 0 when there is nothing to draw, -EINVAL or -ENOMEM.
 */
int guide_plot(struct textbuf *b, const char *args, const embperf_report *report,
	       const embperf_report *baseline, const char *title, char *err, size_t err_size)
{
	struct chart c = { 0 };
	char kind[32], logx[8];
	double x0, x1, y0, y1;
	int drawn;

	if (!guide_arg(args, "kind", kind, sizeof(kind))) {
		snprintf(err, err_size, "no kind= (accepted: curve, latency-curve, loss, distribution)");
		return -EINVAL;
	}
	c.s = calloc(MAX_SERIES, sizeof(*c.s));
	if (!c.s)
		return -ENOMEM;
	if (guide_arg(args, "logx", logx, sizeof(logx)))
		c.logx = atoi(logx) == 10 ? 10 : 2;
	if (!strcmp(kind, "latency-curve"))
		c.logx = 2;
	if (collect(&c, kind, args, report, 0) < 0 ||
	    (baseline && collect(&c, kind, args, baseline, 1) < 0)) {
		free(c.s);
		snprintf(err, err_size, "kind=%s: accepted: curve, latency-curve, loss, distribution", kind);
		return -EINVAL;
	}
	drawn = c.n > 0 && ranges(&c, &x0, &x1, &y0, &y1);
	if (drawn)
		draw(b, &c, title);
	free(c.s);
	return b->failed ? -ENOMEM : drawn;
}
