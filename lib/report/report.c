// SPDX-License-Identifier: MIT
/*
 * report.c - the report object: results copied from benches under titles,
 * system information, lookup by key. Its renderings (json.c, table.c,
 * farm.c) are above it, and render.c above them picks one and saves it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/report/report.h"

static const char *const verdict_names[] = {
	[EMBPERF_VERDICT_NONE] = "none",
	[EMBPERF_VERDICT_PASS] = "pass",
	[EMBPERF_VERDICT_IMPROVED] = "improved",
	[EMBPERF_VERDICT_REGRESSED] = "regressed",
};

const char *ep_verdict_name(int verdict)
{
	if (verdict < 0 || (size_t)verdict >= EP_ARRAY_SIZE(verdict_names))
		return NULL;
	return verdict_names[verdict];
}

int ep_report_fail(struct embperf_report *report, int err, const char *fmt, ...)
{
	va_list ap;

	if (!report)
		return err;
	va_start(ap, fmt);
	vsnprintf(report->errmsg, sizeof(report->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

/*
 * The current time as UTC ISO-8601, e.g. "2024-05-01T12:00:00Z". Printed
 * field by field rather than with strftime(), which would bring a static
 * musl program its time-zone and locale code (some 8 KiB) for a format
 * that has neither (doc/building.md).
 */
static void utc_now(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;
	int len;

	if (now == (time_t)-1 || !gmtime_r(&now, &tm)) {
		snprintf(buf, size, "1970-01-01T00:00:00Z");
		return;
	}
	len = snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
		       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (len < 0 || (size_t)len >= size)
		snprintf(buf, size, "1970-01-01T00:00:00Z");
}

struct embperf_report *ep_report_alloc(const char *created, const char *library_version)
{
	struct embperf_report *report = calloc(1, sizeof(*report));
	char now[32];

	if (!report)
		return NULL;
	if (!created) {
		utc_now(now, sizeof(now));
		created = now;
	}
	report->created = ep_strdup(created);
	report->library_version = ep_strdup(library_version ? library_version
							    : embperf_version_string());
	if (!report->created || !report->library_version) {
		embperf_report_free(report);
		return NULL;
	}
	return report;
}

/**
 * embperf_report_new() - create an empty report recording @ctx's system information.
 * @ctx: session, or NULL for a report without system information.
 *
 * Return: the report, or NULL with errno ENOMEM.
 */
embperf_report *embperf_report_new(embperf_ctx *ctx)
{
	struct embperf_report *report = ep_report_alloc(NULL, NULL);
	int n = ctx ? embperf_ctx_sysinfo_count(ctx) : 0;

	if (!report)
		goto nomem;
	for (int i = 0; i < n; i++) {
		const char *key = embperf_ctx_sysinfo_key(ctx, i);
		const char *value = key ? embperf_ctx_sysinfo(ctx, key) : NULL;

		if (value && ep_report_set_sysinfo(report, key, value))
			goto nomem;
	}
	return report;
nomem:
	embperf_report_free(report);
	errno = ENOMEM;
	return NULL;
}

void ep_report_clear_comparison(struct embperf_report *report)
{
	for (int i = 0; i < report->n_results; i++) {
		struct embperf_result *r = report->results[i];

		r->verdict = EMBPERF_VERDICT_NONE;
		r->has_baseline = 0;
		r->baseline = 0.0;
		r->ratio = 0.0;
	}
	for (int i = 0; i < report->n_missing; i++) {
		free(report->missing[i].key);
		free(report->missing[i].unit);
	}
	free(report->missing);
	report->missing = NULL;
	free(report->baseline_cpu);
	report->baseline_cpu = NULL;
	report->n_missing = 0;
	report->compared = 0;
	report->tolerance_pct = 0.0;
}

int ep_report_failures(const struct embperf_report *report)
{
	int n = report->n_missing;

	for (int i = 0; i < report->n_results; i++)
		n += report->results[i]->verdict == EMBPERF_VERDICT_REGRESSED;
	return n;
}

/**
 * embperf_report_free() - release a report and its results.
 * @report: report, or NULL.
 */
void embperf_report_free(embperf_report *report)
{
	if (!report)
		return;
	ep_report_clear_comparison(report);
	for (int i = 0; i < report->n_results; i++)
		ep_result_free(report->results[i]);
	free(report->results);
	ep_kv_free(report->sysinfo, report->n_sysinfo);
	free(report->library_version);
	free(report->created);
	free(report);
}

/* Make room for @extra more results. */
static int reserve_results(struct embperf_report *report, int extra)
{
	struct embperf_result **grown;
	int cap = report->cap_results ? report->cap_results : 16;

	if (extra > INT32_MAX / 2 - report->n_results)
		return -ENOMEM;
	while (cap < report->n_results + extra)
		cap *= 2;
	if (cap == report->cap_results)
		return 0;
	grown = realloc(report->results, (size_t)cap * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	report->results = grown;
	report->cap_results = cap;
	return 0;
}

int ep_report_append(struct embperf_report *report, struct embperf_result *result)
{
	if (reserve_results(report, 1))
		return -ENOMEM;
	report->results[report->n_results++] = result;
	return 0;
}

int ep_report_set_sysinfo(struct embperf_report *report, const char *key, const char *value)
{
	struct ep_kv *grown;
	char *k, *v = ep_strdup(value);

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < report->n_sysinfo; i++) {
		if (!strcmp(report->sysinfo[i].key, key)) {
			free(report->sysinfo[i].value);
			report->sysinfo[i].value = v;
			return 0;
		}
	}
	k = ep_strdup(key);
	grown = k ? realloc(report->sysinfo,
			    (size_t)(report->n_sysinfo + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	report->sysinfo = grown;
	report->sysinfo[report->n_sysinfo++] = (struct ep_kv){ .key = k, .value = v };
	return 0;
}

int ep_report_add_missing(struct embperf_report *report, const char *key, const char *unit,
			  double baseline)
{
	struct ep_missing *grown;
	char *k = ep_strdup(key), *u = ep_strdup(unit);

	grown = k && u ? realloc(report->missing,
				 (size_t)(report->n_missing + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(k);
		free(u);
		return -ENOMEM;
	}
	report->missing = grown;
	report->missing[report->n_missing++] = (struct ep_missing){ .key = k, .unit = u,
								   .baseline = baseline };
	return 0;
}

/**
 * label_find() - the value of a label of @r, by a name that need not be
 * NUL-terminated.
 * @r:        the result, whose labels are already parsed (label_kv).
 * @name:     the label name.
 * @name_len: its length in bytes.
 *
 * Return: the value, owned by @r; NULL when @r has no such label.
 */
static const char *label_find(const struct embperf_result *r, const char *name, size_t name_len)
{
	for (size_t i = 0; i < r->label_kv.n; i++)
		if (strlen(r->label_kv.keys[i]) == name_len &&
		    !strncmp(r->label_kv.keys[i], name, name_len))
			return r->label_kv.values[i];
	return NULL;
}

/**
 * label_names() - the label names of @r, "op, size", for error messages.
 * @r:    the result.
 * @buf:  destination, NUL-terminated.
 * @size: size of @buf (> 0).
 */
static void label_names(const struct embperf_result *r, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->label_kv.n; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", r->label_kv.keys[i]);

		if (n < 0 || (size_t)n >= size - len)
			break; /* truncated: the message says enough */
		len += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, size, "none");
}

/*
 * "{metric:FROM=TO,...}": the metric's name, or the TO of the item whose
 * FROM it is (TO may be empty): a data sheet's column name for a metric
 * ("throughput" for throughput_l2) without a second run. @list is the text
 * after "metric:", @len its length.
 */
static int expand_renamed_metric(struct embperf_report *report, const char *tmpl,
				 const char *list, size_t len, const struct embperf_result *r,
				 struct ep_buf *out)
{
	const char *end = list + len, *item = list;

	while (item <= end) {
		const char *comma = memchr(item, ',', (size_t)(end - item));
		const char *stop = comma ? comma : end;
		const char *eq = memchr(item, '=', (size_t)(stop - item));

		if (!eq || eq == item || memchr(eq + 1, '=', (size_t)(stop - eq - 1)))
			return ep_report_fail(report, -EINVAL,
					      "title '%s': '{metric:%.*s}': item '%.*s' is not FROM=TO; accepted: {metric:FROM=TO[,FROM=TO...]} (TO may be empty)",
					      tmpl, (int)len, list, (int)(stop - item), item);
		if ((size_t)(eq - item) == strlen(r->metric) &&
		    !strncmp(item, r->metric, (size_t)(eq - item))) {
			ep_buf_append(out, eq + 1, (size_t)(stop - eq - 1));
			return 0;
		}
		item = stop + 1;
	}
	ep_buf_append(out, r->metric, strlen(r->metric));
	return 0;
}

/* Replace the {NAME} of @tmpl between @open and @close by its value for @r. */
static int expand_name(struct embperf_report *report, const char *tmpl, const char *open,
		       const char *close, const struct embperf_result *r, struct ep_buf *out)
{
	const char *name = open + 1, *value;
	size_t name_len = (size_t)(close - name);
	char names[256];

	if (!name_len)
		return ep_report_fail(report, -EINVAL,
				      "title '%s': empty '{}' at offset %td; accepted: {metric} or {LABEL}",
				      tmpl, open - tmpl);
	if (name_len == 6 && !strncmp(name, "metric", 6)) {
		ep_buf_append(out, r->metric, strlen(r->metric));
		return 0;
	}
	if (name_len >= 7 && !strncmp(name, "metric:", 7))
		return expand_renamed_metric(report, tmpl, name + 7, name_len - 7, r, out);
	value = label_find(r, name, name_len);
	if (!value) {
		label_names(r, names, sizeof(names));
		return ep_report_fail(report, -EINVAL,
				      "title '%s': result %s/%s[%s] has no label '%.*s'; accepted: {metric}, {metric:FROM=TO,...} or a label of the result (%s)",
				      tmpl, r->kernel, r->metric, r->labels, (int)name_len, name,
				      names);
	}
	ep_buf_append(out, value, strlen(value));
	return 0;
}

/* Expand the title template @tmpl for @r into @out. Return: 0, -EINVAL or -ENOMEM. */
static int expand_title(struct embperf_report *report, const char *tmpl,
			const struct embperf_result *r, struct ep_buf *out)
{
	const char *p = tmpl;

	while (*p) {
		const char *open = strchr(p, '{'), *close;
		int err;

		if (!open) {
			ep_buf_append(out, p, strlen(p));
			break;
		}
		ep_buf_append(out, p, (size_t)(open - p));
		close = strchr(open + 1, '}');
		if (!close)
			return ep_report_fail(report, -EINVAL,
					      "title '%s': the '{' at offset %td has no closing '}'; accepted: text with {metric} or {LABEL} names",
					      tmpl, open - tmpl);
		err = expand_name(report, tmpl, open, close, r, out);
		if (err)
			return err;
		p = close + 1;
	}
	return out->failed ? ep_report_fail(report, -ENOMEM, "title: out of memory") : 0;
}

/* Copy @src under the title template @title. Return: 0, -EINVAL or -ENOMEM. */
static int copy_titled(struct embperf_report *report, const struct embperf_result *src,
		       const char *title, struct embperf_result **out)
{
	struct embperf_result *copy;
	struct ep_buf text;
	int err;

	ep_buf_init(&text);
	err = expand_title(report, title ? title : "", src, &text);
	if (err) {
		ep_buf_free(&text);
		return err;
	}
	copy = ep_result_dup(src);
	if (!copy || ep_result_set_title(copy, text.data ? text.data : "")) {
		ep_result_free(copy);
		ep_buf_free(&text);
		return ep_report_fail(report, -ENOMEM, "out of memory copying a result");
	}
	ep_buf_free(&text);
	/* A bench's results carry no comparison; a report's copies start clean. */
	copy->verdict = EMBPERF_VERDICT_NONE;
	copy->has_baseline = 0;
	*out = copy;
	return 0;
}

/* Two results of one add must not share a title: compare could not tell them apart. */
static int check_unique_titles(struct embperf_report *report, struct embperf_result **copies,
			       int n, const char *title)
{
	for (int i = 0; i < n; i++) {
		if (!copies[i]->title[0])
			continue;
		for (int j = i + 1; j < n; j++)
			if (!strcmp(copies[i]->title, copies[j]->title))
				return ep_report_fail(report, -EINVAL,
						      "title '%s' gives %d results the same name '%s'; accepted: a template that tells them apart, e.g. with {metric} or a {LABEL}",
						      title, n, copies[i]->title);
	}
	return 0;
}

int ep_report_add_results(struct embperf_report *report,
			  const struct embperf_result *const *results, int n, const char *title)
{
	struct embperf_result **copies;
	int err = 0, made = 0;

	if (n <= 0)
		return 0;
	copies = calloc((size_t)n, sizeof(*copies));
	if (!copies)
		return ep_report_fail(report, -ENOMEM, "out of memory adding %d results", n);
	for (; made < n && !err; made++)
		err = copy_titled(report, results[made], title, &copies[made]);
	if (!err)
		err = check_unique_titles(report, copies, n, title);
	if (!err && reserve_results(report, n))
		err = ep_report_fail(report, -ENOMEM, "out of memory adding %d results", n);
	if (!err) {
		memcpy(report->results + report->n_results, copies, (size_t)n * sizeof(*copies));
		report->n_results += n;
	} else {
		for (int i = 0; i < made; i++)
			ep_result_free(copies[i]);
	}
	free(copies);
	return err ? err : n;
}

/**
 * embperf_report_add() - copy the results of a bench's last run into a report.
 * @report: report.
 * @bench:  bench that has run.
 * @title:  title template, or NULL to let the key derive from kernel, metric
 *          and labels.
 *
 * Return: number of results added, -EINVAL or -ENOMEM (detail in
 * embperf_report_errmsg()); the report is unchanged on failure.
 */
int embperf_report_add(embperf_report *report, const embperf_bench *bench, const char *title)
{
	const struct embperf_result **results;
	int n, err;

	if (!report)
		return -EINVAL;
	if (!bench)
		return ep_report_fail(report, -EINVAL, "bench: NULL; accepted: a bench that has run");
	n = embperf_bench_result_count(bench);
	if (n <= 0)
		return 0;
	results = calloc((size_t)n, sizeof(*results));
	if (!results)
		return ep_report_fail(report, -ENOMEM, "out of memory adding %d results", n);
	for (int i = 0; i < n; i++)
		results[i] = embperf_bench_result(bench, i);
	err = ep_report_add_results(report, results, n, title);
	free(results);
	return err;
}

/**
 * embperf_report_result_count() - number of results in a report.
 * @report: report, or NULL (0).
 *
 * Return: the count.
 */
int embperf_report_result_count(const embperf_report *report)
{
	return report ? report->n_results : 0;
}

/**
 * embperf_report_result() - one result of a report.
 * @report: report.
 * @index:  0 to embperf_report_result_count() - 1.
 *
 * Return: the result, owned by @report; NULL when out of range.
 */
const embperf_result *embperf_report_result(const embperf_report *report, int index)
{
	if (!report || index < 0 || index >= report->n_results)
		return NULL;
	return report->results[index];
}

/**
 * embperf_result_key() - the key reports match results by.
 * @result: result.
 * @buf:    destination, NUL-terminated when @size > 0; may be NULL when @size is 0.
 * @size:   size of @buf.
 *
 * The title when there is one; otherwise "kernel/metric[labels]", or
 * "kernel/metric" when the result has no labels.
 *
 * Return: length of the key (may exceed @size), or -EINVAL for a NULL result.
 */
int embperf_result_key(const embperf_result *result, char *buf, size_t size)
{
	if (!result)
		return -EINVAL;
	if (!buf)
		size = 0;
	if (result->title[0])
		return snprintf(buf, size, "%s", result->title);
	if (!result->labels[0])
		return snprintf(buf, size, "%s/%s", result->kernel, result->metric);
	return snprintf(buf, size, "%s/%s[%s]", result->kernel, result->metric, result->labels);
}

char *ep_result_key_dup(const struct embperf_result *result)
{
	int len = embperf_result_key(result, NULL, 0);
	char *key = len >= 0 ? malloc((size_t)len + 1) : NULL;

	if (key)
		embperf_result_key(result, key, (size_t)len + 1);
	return key;
}

/* Whether @key starts with @part; then advance it past @part. */
static int eat(const char **key, const char *part)
{
	size_t n = strlen(part);

	if (strncmp(*key, part, n))
		return 0;
	*key += n;
	return 1;
}

/* Whether @key is the key of @result, without allocating. */
static int key_matches(const struct embperf_result *result, const char *key)
{
	if (result->title[0])
		return !strcmp(result->title, key);
	if (!eat(&key, result->kernel) || !eat(&key, "/") || !eat(&key, result->metric))
		return 0;
	if (!result->labels[0])
		return !*key;
	return eat(&key, "[") && eat(&key, result->labels) && !strcmp(key, "]");
}

/**
 * embperf_report_find() - look a result up by its key.
 * @report: report.
 * @key:    a title, or "kernel/metric[labels]".
 *
 * Return: the first matching result, owned by @report; NULL when none.
 */
const embperf_result *embperf_report_find(const embperf_report *report, const char *key)
{
	if (!report || !key)
		return NULL;
	for (int i = 0; i < report->n_results; i++)
		if (key_matches(report->results[i], key))
			return report->results[i];
	return NULL;
}

/**
 * embperf_report_sysinfo() - a system information entry recorded in the report.
 * @report: report.
 * @key:    entry name, e.g. "cpu_model".
 *
 * Return: the value, owned by @report; NULL when absent.
 */
const char *embperf_report_sysinfo(const embperf_report *report, const char *key)
{
	if (!report || !key)
		return NULL;
	for (int i = 0; i < report->n_sysinfo; i++)
		if (!strcmp(report->sysinfo[i].key, key))
			return report->sysinfo[i].value;
	return NULL;
}

/* The sysinfo keys a caller may set: short names JSON readers can use as they are. */
static int sysinfo_key_ok(const char *key)
{
	size_t len = key ? strlen(key) : 0;

	if (!len || len > 64)
		return 0;
	for (const char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_-.", *p)))
			return 0;
	return 1;
}

/**
 * embperf_report_set_sysinfo() - record a system information entry.
 * @report: report.
 * @key:    name (letters, digits, '_', '-', '.'; 1 to 64 of them).
 * @value:  text.
 *
 * Return: 0, -EINVAL or -ENOMEM (detail in embperf_report_errmsg()).
 */
int embperf_report_set_sysinfo(embperf_report *report, const char *key, const char *value)
{
	if (!report)
		return -EINVAL;
	if (!sysinfo_key_ok(key))
		return ep_report_fail(report, -EINVAL,
				      "sysinfo key '%s': accepted: 1 to 64 letters, digits, '_', '-' or '.'",
				      key ? key : "(null)");
	if (!value)
		return ep_report_fail(report, -EINVAL, "sysinfo '%s': value NULL; accepted: a string",
				      key);
	if (ep_report_set_sysinfo(report, key, value))
		return ep_report_fail(report, -ENOMEM, "out of memory recording sysinfo '%s'", key);
	return 0;
}

/**
 * embperf_report_add_result() - copy one result into a report.
 * @report: report.
 * @result: result of a bench or a report.
 * @title:  title template, or NULL to keep the result's title as it is.
 *
 * Return: 1, -EINVAL or -ENOMEM (detail in embperf_report_errmsg()); the
 * report is unchanged on failure.
 */
int embperf_report_add_result(embperf_report *report, const embperf_result *result,
			      const char *title)
{
	struct embperf_result *copy;

	if (!report)
		return -EINVAL;
	if (!result)
		return ep_report_fail(report, -EINVAL,
				      "result: NULL; accepted: a result of a bench or a report");
	if (title)
		return ep_report_add_results(report, &result, 1, title);
	/* The title as it is: a stored title is text, not a template. */
	copy = ep_result_dup(result);
	if (copy) {
		copy->verdict = EMBPERF_VERDICT_NONE;
		copy->has_baseline = 0;
	}
	if (!copy || ep_report_append(report, copy)) {
		ep_result_free(copy);
		return ep_report_fail(report, -ENOMEM, "out of memory copying a result");
	}
	return 1;
}

/**
 * embperf_report_errmsg() - detail of the report's last failure.
 * @report: report.
 *
 * Return: the message, owned by @report; "" when there was none.
 */
const char *embperf_report_errmsg(const embperf_report *report)
{
	return report ? report->errmsg : "";
}
