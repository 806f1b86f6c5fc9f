// SPDX-License-Identifier: MIT
/*
 * svg.c - the text buffer, the axes and the atomic file write the
 * command's SVG pictures (plot.c, guide_plot.c) and HTML page share.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "svg.h"

/* Ticks on a linear axis: about this many. */
#define TICKS 5

/* Make room for @need more bytes and the NUL. Return: 0, or -1 (failed set). */
static int reserve(struct textbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 8192;
	char *t;

	if (b->text && b->len + need < b->cap)
		return 0;
	while (cap < b->len + need + 1)
		cap *= 2;
	t = realloc(b->text, cap);
	if (!t) {
		b->failed = 1;
		return -1;
	}
	b->text = t;
	b->cap = cap;
	return 0;
}

/**
 * tb_printf() - append formatted text to @b.
 * @b:   buffer.
 * @fmt: printf format.
 */
void tb_printf(struct textbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n) < 0) {
		b->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/**
 * tb_escape() - append text with the five XML specials escaped.
 * @b:    buffer.
 * @text: text, or NULL.
 */
void tb_escape(struct textbuf *b, const char *text)
{
	for (const char *p = text ? text : ""; *p; p++) {
		switch (*p) {
		case '&': tb_printf(b, "&amp;"); break;
		case '<': tb_printf(b, "&lt;"); break;
		case '>': tb_printf(b, "&gt;"); break;
		case '"': tb_printf(b, "&quot;"); break;
		case '\'': tb_printf(b, "&#39;"); break;
		default: tb_printf(b, "%c", *p);
		}
	}
}

/**
 * tb_take() - hand the text over.
 * @b: buffer; empty afterwards.
 *
 * Return: the text (free() it), or NULL after a failed allocation or when
 * nothing was written.
 */
char *tb_take(struct textbuf *b)
{
	char *t = b->failed ? NULL : b->text;

	if (b->failed)
		free(b->text);
	*b = (struct textbuf){ 0 };
	return t;
}

/**
 * axis_fit() - a round linear range around [@min, @max].
 * @a:   receives the axis.
 * @min: smallest value to show.
 * @max: largest value to show.
 * @p0:  pixel of the range's start.
 * @p1:  pixel of its end.
 */
void axis_fit(struct axis *a, double min, double max, double p0, double p1)
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
	a->log = 0;
}

/**
 * axis_fit_log() - a logarithmic range from a power of @base at or below
 * @min to one at or above @max.
 * @a:    receives the axis.
 * @min:  smallest value to show (above 0).
 * @max:  largest value to show.
 * @base: 10, or 2 (sizes).
 * @p0:   pixel of the range's start.
 * @p1:   pixel of its end.
 */
void axis_fit_log(struct axis *a, double min, double max, double base, double p0, double p1)
{
	double lmin = floor(log(min) / log(base)), lmax = ceil(log(max) / log(base));

	if (lmax <= lmin)
		lmax = lmin + 1;
	/* Binary axes over many octaves tick every fourth power: 1k, 16k, 256k... */
	a->step = base == 2.0 && lmax - lmin > 12 ? 16.0 : base;
	if (a->step == 16.0) {
		lmin = floor(lmin / 4) * 4;
		lmax = ceil(lmax / 4) * 4;
	}
	a->lo = pow(base, lmin);
	a->hi = pow(base, lmax);
	a->p0 = p0;
	a->p1 = p1;
	a->log = 1;
}

/**
 * axis_px() - where a value falls.
 * @a: axis.
 * @v: value (above 0 on a log axis).
 *
 * Return: the pixel.
 */
double axis_px(const struct axis *a, double v)
{
	if (a->log)
		return a->p0 + log(v / a->lo) / log(a->hi / a->lo) * (a->p1 - a->p0);
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/**
 * axis_next() - the next tick.
 * @a: axis.
 * @v: a tick.
 *
 * Return: the tick after @v.
 */
double axis_next(const struct axis *a, double v)
{
	return a->log ? v * a->step : v + a->step;
}

/**
 * cli_write_file() - write a file atomically.
 * @path: file to create or replace.
 * @text: content.
 * @len:  its length.
 *
 * Return: 0, or a negative errno (the temporary file is removed).
 */
int cli_write_file(const char *path, const char *text, size_t len)
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
	errno = 0;
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

/* A tick's label: sizes in k/M/G on a binary axis, else %.6g (0 for a rounding residue). */
static void tick_label(const struct axis *a, double v, char *buf, size_t size)
{
	static const char units[] = "kMGT";

	if (a->log && (a->step == 2.0 || a->step == 16.0) && v >= 1024.0) {
		int u = -1;

		while (v >= 1024.0 && u < 3) {
			v /= 1024.0;
			u++;
		}
		snprintf(buf, size, "%.6g%c", v, units[u]);
		return;
	}
	snprintf(buf, size, "%.6g", !a->log && fabs(v) < a->step * 1e-9 ? 0.0 : v);
}

/**
 * svg_axes() - frame, grid, tick labels, axis names and title of a panel.
 * @b:      buffer.
 * @frame:  the panel: x, y of its top left corner, width, height.
 * @ax:     horizontal axis (its pixels within the panel).
 * @ay:     vertical axis.
 * @xlabel: name of the horizontal axis.
 * @ylabel: name of the vertical axis.
 * @title:  title above the panel.
 */
void svg_axes(struct textbuf *b, const double frame[4], const struct axis *ax,
	      const struct axis *ay, const char *xlabel, const char *ylabel, const char *title)
{
	double x = frame[0], y = frame[1], w = frame[2], h = frame[3];
	char label[32];

	tb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		     "stroke=\"#333\"/>\n", x, y, w, h);
	for (double v = ax->lo; v <= ax->hi * (1 + 1e-9) + (ax->log ? 0 : ax->step / 2);
	     v = axis_next(ax, v)) {
		double p = axis_px(ax, v);

		tick_label(ax, v, label, sizeof(label));
		tb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			  p, y, p, y + h, p, y + h + 16, label);
	}
	for (double v = ay->lo; v <= ay->hi * (1 + 1e-9) + (ay->log ? 0 : ay->step / 2);
	     v = axis_next(ay, v)) {
		double p = axis_px(ay, v);

		tick_label(ay, v, label, sizeof(label));
		tb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			  x, p, x + w, p, x - 6, p + 4, label);
	}
	tb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + w / 2, y + h + 38);
	tb_escape(b, xlabel);
	tb_printf(b, "</text>\n<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
		     "text-anchor=\"middle\">", x - 54, y + h / 2);
	tb_escape(b, ylabel);
	tb_printf(b, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">", x, y - 28);
	tb_escape(b, title);
	tb_printf(b, "</text>\n");
}
