/* SPDX-License-Identifier: MIT */
/*
 * guide.h - `embperf guide`: a board profile (profile.c) names what the
 * board has; a guide (a suite with layout directives, bench/suites/) says
 * what to run and how to lay the results out as the vendor's performance
 * guide; guide.c runs it into one report, guide_doc.c lays the report out
 * as tables (beside a baseline's, for a comparison), guide_render.c writes
 * them as markdown and as one HTML page, guide_plot.c draws the plots.
 */
#ifndef EMBPERF_BENCH_GUIDE_H
#define EMBPERF_BENCH_GUIDE_H

#include <stddef.h>

#include "embperf.h"
#include "suite.h"
#include "svg.h"

/* The report's system entries a guide adds (embperf_report_set_sysinfo()). */
#define GUIDE_KEY_NAME "guide"                 /* the guide: built-in name or path */
#define GUIDE_KEY_BOARD "guide_board"          /* the profile's board = */
#define GUIDE_KEY_PROFILE "guide_profile"      /* the profile's path */
#define GUIDE_KEY_DURATIONS "guide_durations"  /* short or full */
#define GUIDE_KEY_INTERFACE "guide_interface"  /* the profile's network interface */
#define GUIDE_KEY_DATE "guide_date"            /* when the guide ran, UTC */
#define GUIDE_KEY_NOT_MEASURED "guide_not_measured" /* lines, see guide_doc.c */

/**
 * struct profile_item - one key = value of a profile.
 * @section: "" (the top), "network", "audio", "storage" or "parameters".
 * @key:     the key.
 * @value:   the value, trimmed.
 * @where:   "FILE:LINE" or "operand 'KEY=VALUE'", for messages.
 * @used:    a variable of the guide or a parameter of an entry named it.
 */
struct profile_item {
	const char *section;
	const char *key;
	const char *value;
	char where[160];
	int used;
};

/**
 * struct profile - a parsed board profile.
 * @origin:  its path, or the built-in guide's name it stands for.
 * @items:   the items, in order (operands after the file's lines).
 * @n_items: number of @items.
 * @text:    private copy of the text the items point into.
 * @owned:   the operands' copies.
 */
struct profile {
	char *origin;
	struct profile_item *items;
	int n_items;
	char *text;
	char *owned;
};

/**
 * profile_load() - read and check a board profile.
 * @arg:        the profile's path, or a built-in guide's name (a profile
 *              with only "guide = NAME").
 * @operands:   "key=value" operands that add to or replace the file's keys.
 * @n_operands: their number.
 * @out:        receives the profile.
 * @err:        receives the message naming the line when it is refused.
 * @err_size:   size of @err.
 *
 * Refuses, before anything runs: a line that is no "key = value" or
 * "[section]", an unknown section or key, a key given twice, a folder that
 * does not exist, a raw target that is neither a block device nor a file,
 * a mounted one (itself or a partition), a block device without
 * "destructive = 1", a network interface this host lacks, a bad value of
 * durations, destructive or remount.
 *
 * Return: 0; -ENOENT/-EACCES/... when the file cannot be read; -EBADMSG for
 * a malformed line or unknown key; -EINVAL for a refused value; -ENOMEM.
 */
int profile_load(const char *arg, char **operands, int n_operands, struct profile **out,
		 char *err, size_t err_size);
/** profile_find() - the item of @key, or NULL. */
struct profile_item *profile_find(const struct profile *p, const char *key);
/** profile_value() - the value of @key, or @dflt. */
const char *profile_value(const struct profile *p, const char *key, const char *dflt);
/**
 * profile_lacks() - why a guide row cannot run without variable @name: the
 * profile key, its section and what it holds, into @buf.
 */
void profile_lacks(const char *name, char *buf, size_t size);
/** profile_free() - release a profile; NULL is a no-op. */
void profile_free(struct profile *p);

/**
 * struct guide_doc - what a rendering lays out.
 * @layout:    the guide (its entries and layout directives).
 * @report:    the results (this guide's).
 * @baseline:  a former guide's results, or NULL: then each cell shows both
 *             values and the change.
 * @tolerance: the compare's tolerance in percent (with @baseline).
 * @plots_dir: folder the markdown's SVG files are written to, relative to
 *             the markdown file ("plots"), or NULL for no plots.
 */
struct guide_doc {
	const struct suite *layout;
	embperf_report *report;
	const embperf_report *baseline;
	double tolerance;
	const char *plots_dir;
};

/**
 * guide_write() - write DIR/guide.md, DIR/guide.html and the plots in DIR/plots/
 * (or compare.md, compare.html and compare-plots/ when @doc has a baseline).
 * @doc: what to lay out.
 * @dir: the folder (exists).
 * @err: receives why, on failure.
 *
 * Return: 0 or a negative errno.
 */
int guide_write(const struct guide_doc *doc, const char *dir, char *err, size_t err_size);

/**
 * guide_open_layout() - the guide a report was made with (its "guide"
 * system entry), or @name when given.
 * Return: 0, or -errno with the message in @err.
 */
int guide_open_layout(const embperf_report *report, const char *name, struct suite **out,
		      char *err, size_t err_size);

/* guide.c */

/** guide_report_path() - @arg itself, or @arg/guide.json when it is a folder. Return: @buf. */
const char *guide_report_path(const char *arg, char *buf, size_t size);

struct cli_options;
/**
 * guide_render_dir() - write a guide report's markdown, HTML and plots into
 * @dir (made when missing): guide.*, or compare.* beside @baseline.
 * Return: CLI_EXIT_OK or CLI_EXIT_FILE (the message printed).
 */
int guide_render_dir(const struct cli_options *opt, const struct suite *layout,
		     embperf_report *report, const embperf_report *baseline, const char *dir);

/* guide_plot.c */

/**
 * guide_plot() - one plot of a guide as an SVG element.
 * @b:        buffer the <svg> element is appended to.
 * @args:     the @plot directive's operands (kind=, match=, ...).
 * @report:   results.
 * @baseline: a former guide's results drawn dashed beside them, or NULL.
 * @title:    the plot's title.
 *
 * Return: 1 when drawn, 0 when there is nothing to draw, -EINVAL for a bad
 * directive (a message in @err).
 */
int guide_plot(struct textbuf *b, const char *args, const embperf_report *report,
	       const embperf_report *baseline, const char *title, char *err, size_t err_size);

/**
 * guide_matches() - whether @r is one of the results a directive selects.
 * @r:      result.
 * @args:   directive operands: match=GLOB (on the key), kernel=K[,K],
 *          metric=M[,M], and LABEL=VALUE filters; other keys named in
 *          @ignore are skipped.
 * @ignore: operand keys that are no filters (kind, x, series, ...).
 *
 * Return: 1 or 0.
 */
int guide_matches(const embperf_result *r, const char *args, const char *const *ignore);

/** guide_arg() - the value of operand @key of @args into @buf; NULL when absent. */
const char *guide_arg(const char *args, const char *key, char *buf, size_t size);

/** guide_number() - a label value as a number: "4k", "1M" (binary), "102400", "48000". NaN when not one. */
double guide_number(const char *text);

#endif /* EMBPERF_BENCH_GUIDE_H */
