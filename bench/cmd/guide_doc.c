// SPDX-License-Identifier: MIT
/*
 * guide_doc.c - a guide's report laid out as the vendor's guide: its
 * tables in order, each from the layout directives of the guide file
 * (doc/cli.md, "Guide files"), written as markdown and as one HTML page
 * with the plots inline; beside a baseline (a former guide), each cell
 * shows both values and the change.
 *
 *   @table [match=GLOB] [kernel=K,..] [metric=M,..] [LABEL=VALUE ..]
 *          [sort=name] [unit=FROM:TO:FACTOR] [from=system] TITLE
 *   @key LABEL [divide=N] [size=fio] [command=P1,P2..] HEADER
 *                                a key column: rows are the label's values
 *                                (divide=N: shown as a number divided by N;
 *                                size=fio: a size as fio prints bs, 4k, 256k,
 *                                1m; command=P1,..: the command that ran the
 *                                row, "embperf run KERNEL P1=V1 ..")
 *   @column [metric=M] [label=L] [LABEL=VALUE ..] [unit=..] HEADER
 *   @unmeasured REASON           why the table has no rows (no kernel)
 *   @missing "ROW" REASON        a row no kernel measures (yet), and why
 *   @text PARAGRAPH              a paragraph under the table
 *   @plot kind=.. [filters] TITLE   a plot under the table (guide_plot.c)
 *
 * A table without @key lists its results, one row each, "name (unit)"
 * and the value; with @key, its results are grouped by the key labels'
 * values and each @column takes the result of its metric and labels.
 * Rows that could not be measured are in the report's system entry
 * "guide_not_measured", one line each: KEY TAB KERNEL TAB PARAMS TAB
 * REASON, KEY the entry's row name template; a table shows the reasons
 * of the entries its filters select.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "guide.h"

#define MAX_KEYS 4
#define MAX_COLS 12
#define CELL_MAX 320

/* Operands of @table that are not filters of results. */
static const char *const table_options[] = { "sort", "unit", "from", NULL };
/* Operands of @column that are not filters. */
static const char *const column_options[] = { "label", "unit", NULL };

/**
 * guide_arg() - one operand of a directive's "key=value ... words".
 * @args: the operands.
 * @key:  the key.
 * @buf:  receives the value.
 * @size: size of @buf.
 *
 * Return: @buf, or NULL when @args has no @key.
 */
const char *guide_arg(const char *args, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	const char *p = args;

	while (*p) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (!memchr(p, '=', len))
			break; /* the title starts: operands come first */
		if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			snprintf(buf, size, "%.*s", (int)(len - klen - 1), p + klen + 1);
			return buf;
		}
		p += len;
	}
	return NULL;
}

/* The words after the operands: a directive's title or header. */
static const char *words_of(const char *args)
{
	const char *p = args;

	for (;;) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (!len || !memchr(p, '=', len))
			return p;
		p += len;
	}
}

/* Is @value one of the comma-separated @list? */
static int in_csv(const char *list, const char *value)
{
	size_t len = strlen(value);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, value, n))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

static int ignored(const char *key, size_t len, const char *const *ignore)
{
	for (int i = 0; ignore && ignore[i]; i++)
		if (strlen(ignore[i]) == len && !strncmp(ignore[i], key, len))
			return 1;
	return 0;
}

/* Does operand @op ("k=v", @len bytes) hold for @r? */
static int filter_holds(const embperf_result *r, const char *op, size_t len)
{
	const char *eq = memchr(op, '=', len);
	char key[64], value[256], label[256], rkey[512];
	size_t klen = (size_t)(eq - op);

	snprintf(key, sizeof(key), "%.*s", (int)klen, op);
	snprintf(value, sizeof(value), "%.*s", (int)(len - klen - 1), eq + 1);
	if (!strcmp(key, "match")) {
		embperf_result_key(r, rkey, sizeof(rkey));
		return fnmatch(value, rkey, 0) == 0;
	}
	if (!strcmp(key, "kernel"))
		return in_csv(value, embperf_result_kernel(r));
	if (!strcmp(key, "metric"))
		return in_csv(value, embperf_result_metric(r));
	return embperf_result_label(r, key, label, sizeof(label)) >= 0 && in_csv(value, label);
}

/**
 * guide_matches() - whether a directive's filters select @r.
 * @r:      result.
 * @args:   the directive's operands.
 * @ignore: operand keys that are not filters, NULL-terminated (or NULL).
 *
 * Return: 1 or 0.
 */
int guide_matches(const embperf_result *r, const char *args, const char *const *ignore)
{
	const char *p = args;

	for (;;) {
		size_t len, klen;

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (!len || !memchr(p, '=', len))
			return 1;
		klen = (size_t)((const char *)memchr(p, '=', len) - p);
		if (!ignored(p, klen, ignore) && !filter_holds(r, p, len))
			return 0;
		p += len;
	}
}

/**
 * guide_number() - a label value as a number.
 * @text: "4k", "1M", "1536k" (binary multiples), "102400", "48000".
 *
 * Return: the number, or NaN.
 */
double guide_number(const char *text)
{
	char *end;
	double v = strtod(text, &end);

	if (end == text)
		return NAN;
	switch (*end) {
	case 'k': case 'K': v *= 1024.0; end++; break;
	case 'm': case 'M': v *= 1048576.0; end++; break;
	case 'g': case 'G': v *= 1073741824.0; end++; break;
	}
	return *end ? NAN : v;
}

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */

/**
 * struct conv - a display unit: values in @from are shown in @to, times @factor.
 */
struct conv {
	char from[32], to[32];
	double factor;
};

/* "unit=Mbit/s:kbit/s:1000" of @args, or none. */
static void parse_conv(const char *args, struct conv *c)
{
	char buf[128];

	c->factor = 0;
	if (guide_arg(args, "unit", buf, sizeof(buf)) &&
	    sscanf(buf, "%31[^:]:%31[^:]:%lf", c->from, c->to, &c->factor) != 3)
		c->factor = 0;
}

/* The unit @r is shown in, and the factor. */
static const char *shown_unit(const embperf_result *r, const struct conv *c, double *factor)
{
	*factor = 1.0;
	if (c && c->factor > 0 && !strcmp(embperf_result_unit(r), c->from)) {
		*factor = c->factor;
		return c->to;
	}
	return embperf_result_unit(r);
}

/* A number as the tables print it: %.2f from 0.1 to 10^15, else 3 significant digits. */
static void number(double v, char *buf, size_t size)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, size, "n/a");
	else if (v == 0.0 || (a >= 0.1 && a < 1e15))
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "%.3g", v);
}

/* "mean (min X, max Y)", the value alone for one sample, n/a for none. */
static void stat_text(const embperf_result *r, const struct conv *c, char *buf, size_t size)
{
	double f, n = embperf_result_stat(r, EMBPERF_STAT_N);
	char mean[40], min[40], max[40];

	shown_unit(r, c, &f);
	number(embperf_result_stat(r, n > 1 ? EMBPERF_STAT_MEAN : EMBPERF_STAT_PRIMARY) * f, mean,
	       sizeof(mean));
	if (n <= 1) {
		snprintf(buf, size, "%s", n < 1 ? "n/a" : mean);
		return;
	}
	number(embperf_result_stat(r, EMBPERF_STAT_MIN) * f, min, sizeof(min));
	number(embperf_result_stat(r, EMBPERF_STAT_MAX) * f, max, sizeof(max));
	snprintf(buf, size, "%s (min %s, max %s)", mean, min, max);
}

/**
 * struct cell - what one table cell shows.
 * @now:     this guide's result, or NULL.
 * @then:    the baseline's, or NULL.
 * @text:    plain text (a label's value, a not-measured reason), or "".
 */
struct cell {
	const embperf_result *now, *then;
	char text[CELL_MAX];
};

/**
 * struct row - one table row.
 * @cells: its cells, key columns first.
 * @note:  a not-measured row: the reason, spanning the row (cells unused).
 */
struct row {
	struct cell cells[MAX_KEYS + MAX_COLS];
	char note[CELL_MAX];
};

/**
 * struct table - a table being laid out.
 * @args:     the @table operands and title.
 * @keys:     its @key directives.
 * @cols:     its @column directives.
 * @n_keys:   number of @keys.
 * @n_cols:   number of @cols (0: a list table, one value column).
 * @unmeasured: its @unmeasured directive, or NULL.
 * @missing:  its @missing directives.
 * @n_missing: their number.
 * @conv:     the table's display unit.
 * @rows:     the rows.
 * @n_rows:   number of @rows.
 * @prefix:   the literal start of match=, which row names leave out.
 */
struct table {
	const char *args;
	const struct suite_directive *keys[MAX_KEYS], *cols[MAX_COLS];
	int n_keys, n_cols;
	const struct suite_directive *unmeasured;
	const struct suite_directive *missing[32];
	int n_missing;
	struct conv conv;
	struct row *rows;
	int n_rows;
	char prefix[128];
};

/* ------------------------------------------------------------------------ */
/* Rows                                                                      */

static struct row *new_row(struct table *t)
{
	struct row *grown = realloc(t->rows, (size_t)(t->n_rows + 1) * sizeof(*grown));

	if (!grown)
		return NULL;
	t->rows = grown;
	memset(&t->rows[t->n_rows], 0, sizeof(*t->rows));
	return &t->rows[t->n_rows++];
}

/* The row name of a list table's row: the key less the match prefix, and the unit. */
static void list_name(const struct table *t, const embperf_result *r, char *buf, size_t size)
{
	char key[256];
	size_t plen = strlen(t->prefix);
	double f;

	embperf_result_key(r, key, sizeof(key));
	snprintf(buf, size, "%s (%s)", strncmp(key, t->prefix, plen) ? key : key + plen,
		 shown_unit(r, &t->conv, &f));
}

/* The operands and header of "@key LABEL [options] HEADER", after the label. */
static const char *key_rest(const struct suite_directive *d, char *label, size_t size)
{
	size_t len = strcspn(d->args, " \t");

	snprintf(label, size, "%.*s", (int)len, d->args);
	return d->args + len + strspn(d->args + len, " \t");
}

/*
 * A size as fio prints a block size: the largest binary suffix that divides
 * it, lowercase (4k, 256k, 1m). TI keys its fio tables so; a label written
 * "1M" or "1048576" shows the same. Left as it is when not a whole size.
 */
static void fio_size(char *value, size_t size)
{
	static const char suffix[] = "kmgt";
	double v = guide_number(value);
	int i = -1;

	if (isnan(v) || v < 1.0 || v != floor(v))
		return;
	while (i < 3 && fmod(v, 1024.0) == 0.0) {
		v /= 1024.0;
		i++;
	}
	if (i < 0)
		snprintf(value, size, "%.15g", v);
	else
		snprintf(value, size, "%.15g%c", v, suffix[i]);
}

/*
 * command=P1,P2: the row's "Command Used" as the command that measured it,
 * "embperf run KERNEL P1=V1 P2=V2" with the values it ran with (a vendor
 * prints its tool's command line there; ours is the honest equivalent).
 */
static void command_shown(const char *names, const embperf_result *r, char *value, size_t size)
{
	char list[128], one[96], *save = NULL;
	size_t used;

	snprintf(list, sizeof(list), "%s", names);
	used = (size_t)snprintf(value, size, "embperf run %s", embperf_result_kernel(r));
	for (char *name = strtok_r(list, ",", &save); name && used < size;
	     name = strtok_r(NULL, ",", &save))
		if (guide_arg(embperf_result_params(r), name, one, sizeof(one)))
			used += (size_t)snprintf(value + used, size - used, " %s=%s", name, one);
}

/* A key label's value as its @key options show it (divide=N, size=fio, command=..). */
static void key_shown(const char *rest, const embperf_result *r, char *value, size_t size)
{
	char opt[128];

	if (guide_arg(rest, "divide", opt, sizeof(opt)) && atof(opt) > 0 &&
	    !isnan(guide_number(value)))
		snprintf(value, size, "%.15g", guide_number(value) / atof(opt));
	if (guide_arg(rest, "size", opt, sizeof(opt)) && !strcmp(opt, "fio"))
		fio_size(value, size);
	if (guide_arg(rest, "command", opt, sizeof(opt)))
		command_shown(opt, r, value, size);
}

/* The key tuple of @r as one string "v1\tv2"; 0 when @r lacks a key label. */
static int key_of(const struct table *t, const embperf_result *r, char *buf, size_t size)
{
	char label[64], value[128];
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < t->n_keys; k++) {
		const char *rest = key_rest(t->keys[k], label, sizeof(label));

		if (embperf_result_label(r, label, value, sizeof(value)) < 0)
			return 0;
		key_shown(rest, r, value, sizeof(value));
		used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? "\t" : "", value);
	}
	return 1;
}

/* Index of the row whose first cell (or key tuple) is @name, or -1. */
static int find_row(const struct table *t, const char *name)
{
	for (int i = 0; i < t->n_rows; i++)
		if (!t->rows[i].note[0] && !strcmp(t->rows[i].cells[0].text, name))
			return i;
	return -1;
}

static int is_candidate(const struct table *t, const embperf_result *r)
{
	return guide_matches(r, t->args, table_options);
}

/* A list table: a row per result; the baseline's fill the second side. */
static int list_rows(struct table *t, const embperf_report *rep, int then)
{
	char name[CELL_MAX];

	for (int i = 0; i < embperf_report_result_count(rep); i++) {
		const embperf_result *r = embperf_report_result(rep, i);
		struct row *row;
		int at;

		if (!is_candidate(t, r))
			continue;
		list_name(t, r, name, sizeof(name));
		at = find_row(t, name);
		row = at >= 0 ? &t->rows[at] : new_row(t);
		if (!row)
			return -ENOMEM;
		snprintf(row->cells[0].text, sizeof(row->cells[0].text), "%s", name);
		if (then)
			row->cells[1].then = r;
		else if (!row->cells[1].now)
			row->cells[1].now = r;
	}
	return 0;
}

/* Does column @c take @r? */
static int column_takes(const struct suite_directive *c, const embperf_result *r)
{
	return guide_matches(r, c->args, column_options);
}

/* A grid table: rows by key tuple, a cell per column. */
static int grid_rows(struct table *t, const embperf_report *rep, int then)
{
	char tuple[CELL_MAX], label[64];

	for (int i = 0; i < embperf_report_result_count(rep); i++) {
		const embperf_result *r = embperf_report_result(rep, i);
		struct row *row;
		int at;

		if (!is_candidate(t, r) || !key_of(t, r, tuple, sizeof(tuple)))
			continue;
		at = find_row(t, tuple);
		row = at >= 0 ? &t->rows[at] : new_row(t);
		if (!row)
			return -ENOMEM;
		snprintf(row->cells[0].text, sizeof(row->cells[0].text), "%s", tuple);
		for (int c = 0; c < t->n_cols; c++) {
			struct cell *cell = &row->cells[t->n_keys + c];

			if (guide_arg(t->cols[c]->args, "label", label, sizeof(label))) {
				if (!cell->text[0])
					embperf_result_label(r, label, cell->text,
							     sizeof(cell->text));
				continue;
			}
			if (!column_takes(t->cols[c], r))
				continue;
			if (then)
				cell->then = r;
			else if (!cell->now)
				cell->now = r;
		}
	}
	return 0;
}

/* The key tuple "a\tb" into the key cells. */
static void split_keys(struct table *t)
{
	for (int i = 0; i < t->n_rows; i++) {
		struct row *row = &t->rows[i];
		char tuple[CELL_MAX], *save = NULL, *part;
		int k = 0;

		if (row->note[0] || t->n_keys < 2)
			continue;
		snprintf(tuple, sizeof(tuple), "%s", row->cells[0].text);
		for (part = strtok_r(tuple, "\t", &save); part && k < t->n_keys;
		     part = strtok_r(NULL, "\t", &save))
			snprintf(row->cells[k++].text, sizeof(row->cells[0].text), "%s", part);
	}
}

static int by_name(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return strcmp(x->cells[0].text, y->cells[0].text);
}

/* ------------------------------------------------------------------------ */
/* Not measured                                                              */

/* Does the not-measured line @line (KEY\tKERNEL\tPARAMS\tREASON) belong to table @t? */
static int record_belongs(const struct table *t, const char *key, const char *kernel,
			  const char *params)
{
	const char *p = t->args;
	char k[64], v[256], pv[256];

	for (;;) {
		size_t len, klen;
		const char *eq;

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		eq = memchr(p, '=', len);
		if (!len || !eq)
			return 1;
		klen = (size_t)(eq - p);
		snprintf(k, sizeof(k), "%.*s", (int)klen, p);
		snprintf(v, sizeof(v), "%.*s", (int)(len - klen - 1), eq + 1);
		p += len;
		if (ignored(k, klen, table_options) || !strcmp(k, "metric"))
			continue;
		if (!strcmp(k, "match") && fnmatch(v, key, 0))
			return 0;
		if (!strcmp(k, "kernel") && !in_csv(v, kernel))
			return 0;
		/* A label filter: the entry's parameter of that name, when it has one. */
		if (strcmp(k, "match") && strcmp(k, "kernel") &&
		    guide_arg(params, k, pv, sizeof(pv)) && !in_csv(v, pv))
			return 0;
	}
}

/* One not-measured row per distinct reason of @rep's records for @t. */
static int add_reasons(struct table *t, const embperf_report *rep, const char *side)
{
	const char *all = embperf_report_sysinfo(rep, GUIDE_KEY_NOT_MEASURED);
	char *copy = all ? strdup(all) : NULL, *save = NULL, *line, note[CELL_MAX];

	if (all && !copy)
		return -ENOMEM;
	for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[4] = { line, NULL, NULL, NULL };
		int dup = 0;

		for (int i = 1; i < 4 && f[i - 1]; i++) {
			f[i] = strchr(f[i - 1], '\t');
			if (f[i])
				*f[i]++ = '\0';
		}
		if (!f[3] || !record_belongs(t, f[0], f[1], f[2]))
			continue;
		snprintf(note, sizeof(note), "%snot measured: %s", side, f[3]);
		for (int i = 0; i < t->n_rows && !dup; i++)
			dup = !strcmp(t->rows[i].note, note);
		if (dup)
			continue;
		if (!new_row(t)) {
			free(copy);
			return -ENOMEM;
		}
		snprintf(t->rows[t->n_rows - 1].note, sizeof(note), "%s", note);
	}
	free(copy);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Building a table                                                          */

/* Collect the @key, @column and @unmeasured directives after table @d. */
static int table_from(const struct suite *layout, int d, struct table *t)
{
	char match[128];
	int i;

	memset(t, 0, sizeof(*t));
	t->args = layout->directives[d].args;
	parse_conv(t->args, &t->conv);
	if (guide_arg(t->args, "match", match, sizeof(match)))
		snprintf(t->prefix, sizeof(t->prefix), "%.*s", (int)strcspn(match, "*?["), match);
	for (i = d + 1; i < layout->n_directives; i++) {
		const struct suite_directive *x = &layout->directives[i];

		if (!strcmp(x->name, "table"))
			break;
		if (!strcmp(x->name, "key") && t->n_keys < MAX_KEYS)
			t->keys[t->n_keys++] = x;
		else if (!strcmp(x->name, "column") && t->n_cols < MAX_COLS)
			t->cols[t->n_cols++] = x;
		else if (!strcmp(x->name, "unmeasured"))
			t->unmeasured = x;
		else if (!strcmp(x->name, "missing") && t->n_missing < 32)
			t->missing[t->n_missing++] = x;
	}
	return i;
}

static int build_rows(struct table *t, const struct guide_doc *doc)
{
	char sort[16];
	int ret = 0;

	for (int side = 0; side < 2 && !ret; side++) {
		const embperf_report *rep = side ? doc->baseline : doc->report;

		if (rep)
			ret = t->n_keys ? grid_rows(t, rep, side) : list_rows(t, rep, side);
	}
	if (ret)
		return ret;
	if (guide_arg(t->args, "sort", sort, sizeof(sort)) && !strcmp(sort, "name"))
		qsort(t->rows, (size_t)t->n_rows, sizeof(*t->rows), by_name);
	split_keys(t);
	for (int m = 0; m < t->n_missing; m++) {
		const char *a = t->missing[m]->args, *name = a, *reason;
		int len;

		/* "ROW" REASON, or ROW REASON for a one-word row. */
		if (*a == '"' && strchr(a + 1, '"')) {
			name = a + 1;
			len = (int)(strchr(name, '"') - name);
		} else {
			len = (int)strcspn(a, " \t");
		}
		reason = name + len + (*a == '"');
		if (!new_row(t))
			return -ENOMEM;
		snprintf(t->rows[t->n_rows - 1].note, sizeof(t->rows[0].note), "not measured: %.*s: %s",
			 len, name, reason + strspn(reason, " \t"));
	}
	ret = add_reasons(t, doc->report, "");
	if (!ret && doc->baseline)
		ret = add_reasons(t, doc->baseline, "baseline: ");
	if (!ret && !t->n_rows) {
		if (!new_row(t))
			return -ENOMEM;
		snprintf(t->rows[0].note, sizeof(t->rows[0].note), "not measured: %s",
			 t->unmeasured ? t->unmeasured->args :
					 "the report holds no result of this table");
	}
	return ret;
}

/* The unit of column @c: its display unit, a result's, or the kernel's metric's. */
static void column_unit(const struct table *t, int c, char *buf, size_t size)
{
	char kernel[64], metric[64], *comma;
	struct conv conv;
	double f;

	parse_conv(t->cols[c]->args, &conv);
	buf[0] = '\0';
	if (guide_arg(t->cols[c]->args, "label", metric, sizeof(metric)))
		return;
	for (int i = 0; i < t->n_rows; i++) {
		const struct cell *cell = &t->rows[i].cells[t->n_keys + c];
		const embperf_result *r = cell->now ? cell->now : cell->then;

		if (r) {
			snprintf(buf, size, "%s", shown_unit(r, conv.factor > 0 ? &conv : &t->conv, &f));
			return;
		}
	}
	if (conv.factor > 0) {
		snprintf(buf, size, "%s", conv.to);
		return;
	}
	if (!guide_arg(t->args, "kernel", kernel, sizeof(kernel)) ||
	    !guide_arg(t->cols[c]->args, "metric", metric, sizeof(metric)))
		return;
	if ((comma = strchr(kernel, ',')))
		*comma = '\0';
	for (int m = 0; m < embperf_kernel_metric_count(kernel); m++) {
		char name[64];

		if (embperf_kernel_metric_info(kernel, m, EMBPERF_INFO_NAME, name, sizeof(name)) >= 0 &&
		    !strcmp(name, metric)) {
			embperf_kernel_metric_info(kernel, m, EMBPERF_INFO_UNIT, buf, size);
			return;
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */

/**
 * struct out - the two renderings written side by side.
 * @md:       markdown.
 * @html:     the HTML page's body.
 * @toc:      the HTML page's table of contents.
 * @marks:    notes of marked results, for the footnotes of the table.
 * @n_marks:  their number.
 * @n_tables: tables written so far.
 * @n_plots:  plots written so far.
 * @dir:      the output folder (plots as files for the markdown).
 * @doc:      what is laid out.
 * @err:      first error.
 */
struct out {
	struct textbuf md, html, toc, notes_md, notes_html;
	int n_marks, n_tables, n_plots;
	const char *dir;
	const struct guide_doc *doc;
	int err;
	char errmsg[4400];
};

/* Markdown cell text: '|' escaped, no line breaks. */
static void md_escape(struct textbuf *b, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (*p == '|')
			tb_printf(b, "\\|");
		else
			tb_printf(b, "%c", *p == '\n' || *p == '\t' ? ' ' : *p);
	}
}

/* A result's marks (disturbed, unstable) as a footnote number; 0 when none. */
static int mark(struct out *o, const embperf_result *r, const char *side)
{
	char key[512];

	if (!r || !embperf_result_flags(r))
		return 0;
	embperf_result_key(r, key, sizeof(key));
	o->n_marks++;
	tb_printf(&o->notes_md, "%s[%d] %s%s: ", o->n_marks == 1 ? "\n" : "", o->n_marks, side, key);
	md_escape(&o->notes_md, embperf_result_note(r));
	tb_printf(&o->notes_md, "  \n");
	tb_printf(&o->notes_html, "<li id=\"m%d-%d\">%s", o->n_tables, o->n_marks, side);
	tb_escape(&o->notes_html, key);
	tb_printf(&o->notes_html, ": ");
	tb_escape(&o->notes_html, embperf_result_note(r));
	tb_printf(&o->notes_html, "</li>\n");
	return o->n_marks;
}

static const char *verdict_word(int verdict)
{
	switch (verdict) {
	case EMBPERF_VERDICT_IMPROVED: return "better";
	case EMBPERF_VERDICT_REGRESSED: return "worse";
	case EMBPERF_VERDICT_PASS: return "same";
	}
	return "";
}

/* The change of @now against @then, "+3.2 % worse", and its verdict. */
static int change_text(const embperf_result *now, const embperf_result *then, char *buf,
		       size_t size)
{
	double a = embperf_result_value(now), b = embperf_result_value(then);
	int verdict = embperf_result_verdict(now);

	if (!isfinite(a) || !isfinite(b) || b == 0.0)
		snprintf(buf, size, "%s", verdict_word(verdict));
	else
		snprintf(buf, size, "%+.1f %% %s", (a - b) / fabs(b) * 100.0, verdict_word(verdict));
	return verdict;
}

/* One value cell, in both renderings. */
static void value_cell(struct out *o, const struct cell *cell, const struct conv *conv)
{
	char now[CELL_MAX] = "", then[CELL_MAX] = "", change[64] = "";
	int m_now = mark(o, cell->now, ""), m_then = mark(o, cell->then, "baseline: ");
	int verdict = 0;

	if (cell->now)
		stat_text(cell->now, conv, now, sizeof(now));
	if (cell->then)
		stat_text(cell->then, conv, then, sizeof(then));
	if (cell->now && cell->then)
		verdict = change_text(cell->now, cell->then, change, sizeof(change));
	/* markdown */
	tb_printf(&o->md, " %s", cell->now ? now : o->doc->baseline ? "not measured" : "");
	if (m_now)
		tb_printf(&o->md, " [%d]", m_now);
	if (o->doc->baseline)
		tb_printf(&o->md, "; was %s%s", cell->then ? then : "not measured",
			  m_then ? "" : "");
	if (m_then)
		tb_printf(&o->md, " [%d]", m_then);
	if (change[0])
		tb_printf(&o->md, verdict == EMBPERF_VERDICT_REGRESSED ? "; **%s**" : "; %s", change);
	tb_printf(&o->md, " |");
	/* HTML */
	tb_printf(&o->html, "<td>");
	tb_escape(&o->html, cell->now ? now : o->doc->baseline ? "not measured" : "");
	if (m_now)
		tb_printf(&o->html, "<a class=\"mark\" href=\"#m%d-%d\">[%d]</a>", o->n_tables, m_now,
			  m_now);
	if (o->doc->baseline) {
		tb_printf(&o->html, "<br><span class=\"was\">was ");
		tb_escape(&o->html, cell->then ? then : "not measured");
		if (m_then)
			tb_printf(&o->html, "<a class=\"mark\" href=\"#m%d-%d\">[%d]</a>", o->n_tables,
				  m_then, m_then);
		tb_printf(&o->html, "</span>");
	}
	if (change[0])
		tb_printf(&o->html, " <span class=\"chg %s\">%s</span>",
			  verdict == EMBPERF_VERDICT_REGRESSED ? "worse" :
			  verdict == EMBPERF_VERDICT_IMPROVED ? "better" : "same", change);
	tb_printf(&o->html, "</td>");
}

static void text_cell(struct out *o, const char *text)
{
	tb_printf(&o->md, " ");
	md_escape(&o->md, text);
	tb_printf(&o->md, " |");
	tb_printf(&o->html, "<td>");
	tb_escape(&o->html, text);
	tb_printf(&o->html, "</td>");
}

/* The header row: key columns, then value columns with their units. */
static int header(struct out *o, const struct table *t)
{
	const char *board = embperf_report_sysinfo(o->doc->report, GUIDE_KEY_BOARD);
	char text[CELL_MAX], unit[64];
	int n = 0;

	tb_printf(&o->md, "|");
	tb_printf(&o->html, "<table>\n<thead><tr>");
	if (!t->n_keys) {
		snprintf(text, sizeof(text), "Benchmarks");
		n = 2;
	}
	for (int c = 0; c < (t->n_keys ? t->n_keys + t->n_cols : 2); c++) {
		if (!t->n_keys && c == 1)
			snprintf(text, sizeof(text), "%s", board && *board ? board : "value");
		else if (t->n_keys && c < t->n_keys)
			snprintf(text, sizeof(text), "%s",
				 words_of(key_rest(t->keys[c], unit, sizeof(unit))));
		else if (t->n_keys) {
			column_unit(t, c - t->n_keys, unit, sizeof(unit));
			snprintf(text, sizeof(text), unit[0] ? "%s (%s)" : "%s",
				 words_of(t->cols[c - t->n_keys]->args), unit);
		}
		tb_printf(&o->md, " ");
		md_escape(&o->md, text);
		tb_printf(&o->md, " |");
		tb_printf(&o->html, "<th>");
		tb_escape(&o->html, text);
		tb_printf(&o->html, "</th>");
	}
	if (t->n_keys)
		n = t->n_keys + t->n_cols;
	tb_printf(&o->md, "\n|");
	for (int c = 0; c < n; c++)
		tb_printf(&o->md, "---|");
	tb_printf(&o->md, "\n");
	tb_printf(&o->html, "</tr></thead>\n<tbody>\n");
	return n;
}

static void write_rows(struct out *o, const struct table *t, int n_columns)
{
	for (int i = 0; i < t->n_rows; i++) {
		const struct row *row = &t->rows[i];

		tb_printf(&o->md, "|");
		if (row->note[0]) {
			tb_printf(&o->html, "<tr class=\"nm\"><td colspan=\"%d\">", n_columns);
			tb_escape(&o->html, row->note);
			tb_printf(&o->html, "</td></tr>\n");
			tb_printf(&o->md, " ");
			md_escape(&o->md, row->note);
			tb_printf(&o->md, " |");
			for (int c = 1; c < n_columns; c++)
				tb_printf(&o->md, " |");
			tb_printf(&o->md, "\n");
			continue;
		}
		tb_printf(&o->html, "<tr>");
		for (int c = 0; c < n_columns; c++) {
			const struct cell *cell = &row->cells[c];
			int is_key = t->n_keys ? c < t->n_keys : c == 0;
			struct conv conv = t->conv;

			if (t->n_keys && !is_key)
				parse_conv(t->cols[c - t->n_keys]->args, &conv);
			if (conv.factor <= 0)
				conv = t->conv;
			if (is_key || cell->text[0])
				text_cell(o, cell->text);
			else if (!cell->now && !cell->then)
				text_cell(o, "n/a");
			else
				value_cell(o, cell, &conv);
		}
		tb_printf(&o->md, "\n");
		tb_printf(&o->html, "</tr>\n");
	}
	tb_printf(&o->html, "</tbody></table>\n");
}

/* The heading of a table, in both renderings and the contents. */
static void heading(struct out *o, const char *title)
{
	o->n_tables++;
	tb_printf(&o->md, "\n## %s\n\n", title);
	tb_printf(&o->html, "<h2 id=\"t%d\">", o->n_tables);
	tb_escape(&o->html, title);
	tb_printf(&o->html, "</h2>\n");
	tb_printf(&o->toc, "<li><a href=\"#t%d\">", o->n_tables);
	tb_escape(&o->toc, title);
	tb_printf(&o->toc, "</a></li>\n");
}

static void flush_notes(struct out *o)
{
	char *md = tb_take(&o->notes_md), *html = tb_take(&o->notes_html);

	if (md)
		tb_printf(&o->md, "%s", md);
	if (html)
		tb_printf(&o->html, "<ol class=\"notes\">\n%s</ol>\n", html);
	free(md);
	free(html);
	o->n_marks = 0;
}

/* "Evaluation Modules": the board and the system the report names. */
static void system_table(struct out *o)
{
	static const char *const keys[] = { "cpu_model", "cpus_online", "kernel", "machine",
					    GUIDE_KEY_INTERFACE };
	static const char *const names[] = { "CPU", "CPUs online", "kernel", "machine",
					     "network interface" };

	tb_printf(&o->md, "| Name | Description |\n|---|---|\n");
	tb_printf(&o->html, "<table>\n<thead><tr><th>Name</th><th>Description</th></tr></thead>\n<tbody>\n");
	for (int side = 0; side < (o->doc->baseline ? 2 : 1); side++) {
		const embperf_report *rep = side ? o->doc->baseline : o->doc->report;
		const char *board = embperf_report_sysinfo(rep, GUIDE_KEY_BOARD);
		char desc[1024] = "";
		size_t used = 0;

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const char *v = embperf_report_sysinfo(rep, keys[i]);

			if (v && *v && used < sizeof(desc))
				used += (size_t)snprintf(desc + used, sizeof(desc) - used, "%s%s: %s",
							 used ? "; " : "", names[i], v);
		}
		tb_printf(&o->md, "|");
		tb_printf(&o->html, "<tr>");
		snprintf(desc + used, sizeof(desc) - used, "%s", "");
		text_cell(o, board && *board ? board : side ? "baseline" : "this board");
		text_cell(o, desc);
		tb_printf(&o->md, "\n");
		tb_printf(&o->html, "</tr>\n");
	}
	tb_printf(&o->html, "</tbody></table>\n");
}

static void write_table(struct out *o, const struct suite_directive *d, struct table *t)
{
	char from[16];

	heading(o, words_of(d->args));
	if (guide_arg(d->args, "from", from, sizeof(from)) && !strcmp(from, "system")) {
		system_table(o);
		return;
	}
	if (build_rows(t, o->doc) < 0) {
		o->err = -ENOMEM;
		return;
	}
	write_rows(o, t, header(o, t));
	flush_notes(o);
}

static void write_text(struct out *o, const struct suite_directive *d)
{
	tb_printf(&o->md, "\n");
	md_escape(&o->md, d->args);
	tb_printf(&o->md, "\n");
	tb_printf(&o->html, "<p>");
	tb_escape(&o->html, d->args);
	tb_printf(&o->html, "</p>\n");
}

/* A plot: inline in the page, a file beside the markdown. */
static void write_plot(struct out *o, const struct suite_directive *d)
{
	struct textbuf svg = { 0 };
	char path[4096], err[256];
	const char *title = words_of(d->args);
	int ret = guide_plot(&svg, d->args, o->doc->report, o->doc->baseline, title, err,
			     sizeof(err));
	char *text;

	if (ret < 0) {
		o->err = ret;
		snprintf(o->errmsg, sizeof(o->errmsg), "%s:%d: @plot: %s",
			 o->doc->layout->origin, d->line, err);
	}
	text = tb_take(&svg);
	if (ret <= 0 || !text) {
		free(text);
		return;
	}
	o->n_plots++;
	/* The title is the picture's own. */
	tb_printf(&o->html, "<figure>%s</figure>\n", text);
	if (o->doc->plots_dir) {
		snprintf(path, sizeof(path), "%s/%s/plot-%02d.svg", o->dir, o->doc->plots_dir,
			 o->n_plots);
		ret = cli_write_file(path, text, strlen(text));
		if (ret < 0 && !o->err) {
			o->err = ret;
			snprintf(o->errmsg, sizeof(o->errmsg), "%s: %s", path, strerror(-ret));
		}
		tb_printf(&o->md, "\n![");
		md_escape(&o->md, title);
		tb_printf(&o->md, "](%s/plot-%02d.svg)\n", o->doc->plots_dir, o->n_plots);
	}
	free(text);
}

static void write_directives(struct out *o)
{
	const struct suite *layout = o->doc->layout;
	struct table t = { 0 };

	for (int d = 0; d < layout->n_directives && !o->err; d++) {
		const struct suite_directive *x = &layout->directives[d];

		if (!strcmp(x->name, "table")) {
			free(t.rows);
			table_from(layout, d, &t);
			write_table(o, x, &t);
		} else if (!strcmp(x->name, "text")) {
			write_text(o, x);
		} else if (!strcmp(x->name, "plot")) {
			write_plot(o, x);
		}
	}
	free(t.rows);
}

/* The lines above the first table: what, where, when, units. */
static void preamble(struct out *o, struct textbuf *md, struct textbuf *html)
{
	const embperf_report *r = o->doc->report;
	const char *board = embperf_report_sysinfo(r, GUIDE_KEY_BOARD);
	const char *name = embperf_report_sysinfo(r, GUIDE_KEY_NAME);
	const char *durations = embperf_report_sysinfo(r, GUIDE_KEY_DURATIONS);
	const char *created = embperf_report_sysinfo(r, GUIDE_KEY_DATE);
	char title[512], line[1024];

	snprintf(title, sizeof(title), "Performance guide: %s%s", board && *board ? board : "this board",
		 o->doc->baseline ? " against the baseline" : "");
	snprintf(line, sizeof(line),
		 "Guide %s (%s), measured by libembperf %s%s%s at %s durations. %sUnits: MB = 10^6 bytes; "
		 "sizes in labels use binary multiples, k = 1024.",
		 name ? name : "?", o->doc->layout->description, embperf_report_sysinfo(r, "library_version") ?
		 embperf_report_sysinfo(r, "library_version") : embperf_version_string(),
		 created ? ", " : "", created ? created : "", durations ? durations : "short",
		 !o->doc->baseline ? "" : "Each cell: this guide's value; was: the baseline's; the change, "
				    "judged in the metric's direction (better, worse, or the same "
				    "within the tolerance). ");
	tb_printf(md, "# %s\n\n%s\n", title, line);
	tb_printf(html, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	tb_escape(html, title);
	tb_printf(html, "</title>\n<style>\nbody{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em}\n"
			"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}\n"
			"th{background:#eee}tr.nm td{color:#777;font-style:italic}.was{color:#555;font-size:90%%}\n"
			".chg.worse{color:#b00;font-weight:bold}.chg.better{color:#070}.chg.same{color:#555}\n"
			".mark{color:#a60;font-size:80%%}figure{margin:1em 0}svg{max-width:100%%;height:auto}\n"
			"</style></head><body>\n<h1>");
	tb_escape(html, title);
	tb_printf(html, "</h1>\n<p>");
	tb_escape(html, line);
	tb_printf(html, "</p>\n");
}

/* Write @text to DIR/NAME; on failure keep the first error. */
static void save(struct out *o, const char *name, char *text)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", o->dir, name);
	ret = text ? cli_write_file(path, text, strlen(text)) : -ENOMEM;
	if (ret < 0 && !o->err) {
		o->err = ret;
		snprintf(o->errmsg, sizeof(o->errmsg), "%s: %s", path, strerror(-ret));
	}
	free(text);
}

/**
 * guide_write() - write the markdown, the HTML page and the plots' files.
 * @doc:      what to lay out.
 * @dir:      folder (exists).
 * @err:      receives why, on failure.
 * @err_size: size of @err.
 *
 * Return: 0 or a negative errno.
 */
int guide_write(const struct guide_doc *doc, const char *dir, char *err, size_t err_size)
{
	struct out o = { .dir = dir, .doc = doc };
	struct textbuf md = { 0 }, html = { 0 };
	char path[4096], *body_md, *body_html, *toc;
	const char *base = doc->baseline ? "compare" : "guide";

	if (doc->plots_dir) {
		snprintf(path, sizeof(path), "%s/%s", dir, doc->plots_dir);
		if (mkdir(path, 0777) < 0 && errno != EEXIST) {
			snprintf(err, err_size, "%s: %s", path, strerror(errno));
			return -errno;
		}
	}
	write_directives(&o);
	preamble(&o, &md, &html);
	body_md = tb_take(&o.md);
	body_html = tb_take(&o.html);
	toc = tb_take(&o.toc);
	tb_printf(&md, "%s", body_md ? body_md : "");
	tb_printf(&html, "<nav><ol>\n%s</ol></nav>\n%s</body></html>\n", toc ? toc : "",
		  body_html ? body_html : "");
	free(body_md);
	free(body_html);
	free(toc);
	snprintf(path, sizeof(path), "%s.md", base);
	save(&o, path, tb_take(&md));
	snprintf(path, sizeof(path), "%s.html", base);
	save(&o, path, tb_take(&html));
	if (o.err) {
		snprintf(err, err_size, "%s", o.errmsg[0] ? o.errmsg : strerror(-o.err));
		return o.err;
	}
	return 0;
}

/**
 * guide_open_layout() - the guide a report was made with.
 * @report:   a guide's report.
 * @name:     a guide to use instead, or NULL.
 * @out:      receives the parsed guide.
 * @err:      receives why, on failure.
 * @err_size: size of @err.
 *
 * Return: 0; -ENOENT when the report names no guide; -errno from parsing.
 */
int guide_open_layout(const embperf_report *report, const char *name, struct suite **out,
		      char *err, size_t err_size)
{
	int ret;

	if (!name)
		name = embperf_report_sysinfo(report, GUIDE_KEY_NAME);
	if (!name) {
		snprintf(err, err_size, "the report names no guide (it was not written by `embperf guide`)");
		return -ENOENT;
	}
	ret = suite_open(name, out, err, err_size);
	if (ret == -ENOENT)
		snprintf(err, err_size, "guide '%s': no built-in guide of that name and no such file",
			 name);
	return ret;
}
