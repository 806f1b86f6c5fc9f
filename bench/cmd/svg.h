/* SPDX-License-Identifier: MIT */
/*
 * svg.h - what the command's pictures and pages are written with: a
 * growable text buffer with XML escaping, and axes (linear or logarithmic)
 * that map values onto pixels with round ticks. SVG and HTML are written by
 * hand, no library: the output is a few kinds of line charts, and a board
 * team opens it in any browser (doc/cli.md, "Guides").
 */
#ifndef EMBPERF_BENCH_SVG_H
#define EMBPERF_BENCH_SVG_H

#include <stddef.h>

/**
 * struct textbuf - growable NUL-terminated text.
 * @text:   the text (NULL until something is written).
 * @len:    its length.
 * @cap:    bytes allocated.
 * @failed: an allocation failed; the text is incomplete and writes are ignored.
 */
struct textbuf {
	char *text;
	size_t len, cap;
	int failed;
};

/** tb_printf() - append formatted text. */
void tb_printf(struct textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** tb_escape() - append @text with &, <, >, " and ' escaped for XML and HTML (NULL: nothing). */
void tb_escape(struct textbuf *b, const char *text);
/** tb_take() - the text, now the caller's (free()); NULL after a failure (freed) or when empty. */
char *tb_take(struct textbuf *b);

/**
 * struct axis - a value range mapped onto pixels.
 * @lo, @hi: the range shown (for a log axis, the values, not their logs).
 * @step:    linear: the value between two ticks; log: the factor between
 *           two ticks (10, or 2 for a binary size axis).
 * @p0, @p1: the pixels of @lo and @hi.
 * @log:     1 for a logarithmic axis.
 */
struct axis {
	double lo, hi, step;
	double p0, p1;
	int log;
};

/** axis_fit() - a linear axis over [@min, @max] with ticks at 1, 2 or 5 times a power of ten. */
void axis_fit(struct axis *a, double min, double max, double p0, double p1);
/**
 * axis_fit_log() - a logarithmic axis over [@min, @max] (both above 0),
 * ticks at the powers of @base (10, or 2 for sizes in bytes).
 */
void axis_fit_log(struct axis *a, double min, double max, double base, double p0, double p1);
/** axis_px() - the pixel of @v. */
double axis_px(const struct axis *a, double v);
/** axis_next() - the tick after @v (@v + step, or @v x step on a log axis). */
double axis_next(const struct axis *a, double v);

/**
 * svg_axes() - frame, grid, tick labels, axis names and title of a panel.
 * @frame: x, y (top left), width and height of the panel, in pixels.
 * A binary log axis labels its ticks 512, 1k, 16k, 1M...
 */
void svg_axes(struct textbuf *b, const double frame[4], const struct axis *ax,
	      const struct axis *ay, const char *xlabel, const char *ylabel, const char *title);

/**
 * cli_write_file() - write @len bytes of @text to @path through a temporary
 * file in the same folder, so that @path is either old or complete.
 * Return: 0 or a negative errno.
 */
int cli_write_file(const char *path, const char *text, size_t len);

#endif /* EMBPERF_BENCH_SVG_H */
