// SPDX-License-Identifier: MIT
/*
 * json.c - the JSON rendering of a report (doc/report-format.md) and its
 * strict reader: embperf_report_parse() and embperf_report_load().
 *
 * Numbers are written as the shortest decimal text that reads back to the
 * same double, so samples and statistics survive a save/load bit for bit;
 * NaN (an undefined statistic) is written as null.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/core/ctx.h"
#include "lib/report/report.h"

/* A report file larger than this is refused before parsing. */
#define EP_REPORT_MAX_BYTES (256u << 20)

/* ------------------------------------------------------------------------ */
/* Rendering                                                                */
/* ------------------------------------------------------------------------ */

/* Add @val under @key; a NULL @val is a failed allocation and marks *@failed. */
static void put(json_object *obj, const char *key, json_object *val, int *failed)
{
	if (!val || json_object_object_add(obj, key, val)) {
		json_object_put(val);
		*failed = 1;
	}
}

static void put_null(json_object *obj, const char *key, int *failed)
{
	if (json_object_object_add(obj, key, NULL))
		*failed = 1;
}

static void put_string(json_object *obj, const char *key, const char *s, int *failed)
{
	put(obj, key, json_object_new_string(s), failed);
}

/* A double as exact JSON text; NULL (JSON null) for NaN and infinities. */
static json_object *new_number(double v, int *failed)
{
	char text[40];
	json_object *num;

	if (!isfinite(v))
		return NULL;
	/* "-0" would read back as the integer 0 and lose the sign. */
	if (v == 0.0 && signbit(v))
		snprintf(text, sizeof(text), "-0.0");
	else
		ep_format_double(v, text, sizeof(text));
	num = json_object_new_double_s(v, text);
	if (!num)
		*failed = 1;
	return num;
}

static void put_number(json_object *obj, const char *key, double v, int *failed)
{
	if (!isfinite(v))
		put_null(obj, key, failed);
	else
		put(obj, key, new_number(v, failed), failed);
}

/**
 * pairs_object() - labels or parameters as a JSON object, name -> value.
 * @kv:     the pairs, as the result parsed them (values exact, unquoted).
 * @failed: set on a failed allocation.
 *
 * Return: the object, or NULL (with *@failed set).
 */
static json_object *pairs_object(const struct ep_pairs *kv, int *failed)
{
	json_object *obj = json_object_new_object();

	if (!obj) {
		*failed = 1;
		return NULL;
	}
	for (size_t i = 0; i < kv->n; i++)
		put_string(obj, kv->keys[i], kv->values[i], failed);
	return obj;
}

static json_object *stats_object(const struct embperf_result *r, int *failed)
{
	json_object *obj = json_object_new_object();

	if (!obj) {
		*failed = 1;
		return NULL;
	}
	put(obj, "n", json_object_new_int64((int64_t)r->stats.n), failed);
	put_number(obj, "min", r->stats.min, failed);
	put_number(obj, "max", r->stats.max, failed);
	put_number(obj, "mean", r->stats.mean, failed);
	put_number(obj, "median", r->stats.median, failed);
	put_number(obj, "stddev", r->stats.stddev, failed);
	return obj;
}

static json_object *samples_array(const struct embperf_result *r, int *failed)
{
	json_object *arr = json_object_new_array_ext((int)r->n_samples);

	if (!arr) {
		*failed = 1;
		return NULL;
	}
	for (size_t i = 0; i < r->n_samples; i++) {
		json_object *num = new_number(r->samples[i], failed);

		if (json_object_array_add(arr, num)) {
			json_object_put(num);
			*failed = 1;
		}
	}
	return arr;
}

/**
 * counters_object() - the engine's counters (null when unavailable), then
 * the counters the kernel declared ("xruns"), under their names.
 * @r:      the result.
 * @failed: set on a failed allocation.
 *
 * Return: the object, or NULL (with *@failed set).
 */
static json_object *counters_object(const struct embperf_result *r, int *failed)
{
	json_object *obj = json_object_new_object();

	if (!obj) {
		*failed = 1;
		return NULL;
	}
	for (int i = 0; i < EP_CTR_COUNT; i++) {
		if (r->counter_ok[i])
			put_number(obj, ep_counter_name(i), r->counters[i], failed);
		else
			put_null(obj, ep_counter_name(i), failed);
	}
	for (size_t i = 0; i < r->n_named; i++)
		put_number(obj, r->named[i].name, r->named[i].value, failed);
	return obj;
}

/**
 * distribution_object() - "distribution": n, min, max, mean of every
 * recorded operation.
 * @r:      a result with a distribution.
 * @failed: set on a failed allocation.
 *
 * Return: the object, or NULL (with *@failed set).
 */
static json_object *distribution_object(const struct embperf_result *r, int *failed)
{
	json_object *obj = json_object_new_object();

	if (!obj) {
		*failed = 1;
		return NULL;
	}
	put_number(obj, "n", r->dist_n, failed);
	put_number(obj, "min", r->dist_min, failed);
	put_number(obj, "max", r->dist_max, failed);
	put_number(obj, "mean", r->dist_mean, failed);
	return obj;
}

/**
 * objects_array() - an array of @n objects, the i-th made by @item.
 * @r:      the result.
 * @n:      number of items.
 * @item:   makes item i (NULL on a failed allocation, with *@failed set).
 * @failed: set on a failed allocation.
 *
 * Return: the array, or NULL (with *@failed set).
 */
static json_object *objects_array(const struct embperf_result *r, size_t n,
				  json_object *(*item)(const struct embperf_result *r, size_t i,
						       int *failed),
				  int *failed)
{
	json_object *arr = json_object_new_array_ext((int)n);

	if (!arr) {
		*failed = 1;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *obj = item(r, i, failed);

		if (!obj || json_object_array_add(arr, obj)) {
			json_object_put(obj);
			*failed = 1;
		}
	}
	return arr;
}

/**
 * percentile_object() - item @i of "percentiles": {"pct": 99.9, "value": ...}.
 * @r:      a result with a distribution (percentiles ascending).
 * @i:      the index.
 * @failed: set on a failed allocation.
 *
 * Return: the object, or NULL (with *@failed set).
 */
static json_object *percentile_object(const struct embperf_result *r, size_t i, int *failed)
{
	json_object *obj = json_object_new_object();

	if (!obj) {
		*failed = 1;
		return NULL;
	}
	put_number(obj, "pct", r->pcts[i].pct, failed);
	put_number(obj, "value", r->pcts[i].value, failed);
	return obj;
}

/**
 * trial_row_object() - row @i of a trial log.
 * @r:      a result with a trial log.
 * @i:      the index.
 * @failed: set on a failed allocation.
 *
 * Return: {"config", "outcome", "pass", "duration_ns"}, or NULL (with *@failed set).
 */
static json_object *trial_row_object(const struct embperf_result *r, size_t i, int *failed)
{
	const struct ep_trial_row *row = &r->trials[i];
	json_object *obj = json_object_new_object();
	uint64_t ns = row->duration_ns > INT64_MAX ? INT64_MAX : row->duration_ns;

	if (!obj) {
		*failed = 1;
		return NULL;
	}
	put_number(obj, "config", row->config, failed);
	put_number(obj, "outcome", row->outcome, failed);
	put(obj, "pass", json_object_new_boolean(row->pass), failed);
	put(obj, "duration_ns", json_object_new_int64((int64_t)ns), failed);
	return obj;
}

/**
 * trials_object() - "trials": the names of the configuration and outcome
 * columns, and the rows in the order the search ran them.
 * @r:      a result with a trial log.
 * @failed: set on a failed allocation.
 *
 * Return: the object, or NULL (with *@failed set).
 */
static json_object *trials_object(const struct embperf_result *r, int *failed)
{
	json_object *obj = json_object_new_object();

	if (!obj) {
		*failed = 1;
		return NULL;
	}
	put_string(obj, "config", r->trial_config_name ? r->trial_config_name : "", failed);
	put_string(obj, "outcome", r->trial_outcome_name ? r->trial_outcome_name : "", failed);
	put(obj, "rows", objects_array(r, r->n_trials, trial_row_object, failed), failed);
	return obj;
}

/**
 * put_trial_parts() - the members of format version 2 that trial kernels
 * fill: "distribution" and "percentiles" when the result has a
 * distribution, "trials" when it has a trial log.
 * @obj:    the result object.
 * @r:      the result.
 * @failed: set on a failed allocation.
 */
static void put_trial_parts(json_object *obj, const struct embperf_result *r, int *failed)
{
	if (r->has_dist) {
		put(obj, "distribution", distribution_object(r, failed), failed);
		put(obj, "percentiles", objects_array(r, r->n_pcts, percentile_object, failed),
		    failed);
	}
	if (r->n_trials)
		put(obj, "trials", trials_object(r, failed), failed);
}

/* The comparison members of a result of a compared report. */
static void put_comparison(json_object *obj, const struct embperf_result *r, int *failed)
{
	if (r->has_baseline) {
		put_number(obj, "baseline", r->baseline, failed);
		put_number(obj, "ratio", r->ratio, failed);
	}
	put_string(obj, "verdict", ep_verdict_name(r->verdict) ? ep_verdict_name(r->verdict)
							       : "none", failed);
}

/* The marks of a result that set any: "flags": ["disturbed", ...], "note". */
static void put_flags(json_object *obj, const struct embperf_result *r, int *failed)
{
	json_object *arr;

	if (!r->flags)
		return;
	arr = json_object_new_array();
	if (!arr) {
		*failed = 1;
		return;
	}
	for (unsigned bit = 1; bit; bit <<= 1) {
		const char *name = r->flags & bit ? ep_result_flag_name(bit) : NULL;
		json_object *s = name ? json_object_new_string(name) : NULL;

		if (name && (!s || json_object_array_add(arr, s))) {
			json_object_put(s);
			*failed = 1;
		}
	}
	put(obj, "flags", arr, failed);
	put_string(obj, "note", r->note, failed);
}

static json_object *result_object(const struct embperf_report *report,
				  const struct embperf_result *r, int *failed)
{
	json_object *obj = json_object_new_object();
	char *key = ep_result_key_dup(r);

	if (!obj || !key) {
		json_object_put(obj);
		free(key);
		*failed = 1;
		return NULL;
	}
	put_string(obj, "title", r->title, failed);
	put_string(obj, "key", key, failed);
	free(key);
	put_string(obj, "kernel", r->kernel, failed);
	put_string(obj, "metric", r->metric, failed);
	put_string(obj, "unit", r->unit, failed);
	put(obj, "labels", pairs_object(&r->label_kv, failed), failed);
	put(obj, "params", pairs_object(&r->param_kv, failed), failed);
	put_string(obj, "primary", ep_primary_name(r->primary), failed);
	put_number(obj, "value", r->value, failed);
	put_string(obj, "better", ep_better_name(r->higher_better), failed);
	put(obj, "stats", stats_object(r, failed), failed);
	/* A result loaded without its samples keeps stats.n: no "samples" then. */
	if (r->n_samples == (size_t)r->stats.n)
		put(obj, "samples", samples_array(r, failed), failed);
	put_trial_parts(obj, r, failed);
	put(obj, "counters", counters_object(r, failed), failed);
	put(obj, "cpu", json_object_new_int(r->cpu), failed);
	put(obj, "truncated", json_object_new_boolean(r->truncated), failed);
	put_flags(obj, r, failed);
	if (report->compared)
		put_comparison(obj, r, failed);
	return obj;
}

static json_object *system_object(const struct embperf_report *report, int *failed)
{
	json_object *obj = json_object_new_object();

	if (!obj) {
		*failed = 1;
		return NULL;
	}
	for (int i = 0; i < report->n_sysinfo; i++)
		put_string(obj, report->sysinfo[i].key, report->sysinfo[i].value, failed);
	return obj;
}

static json_object *results_array(const struct embperf_report *report, int *failed)
{
	json_object *arr = json_object_new_array_ext(report->n_results);

	if (!arr) {
		*failed = 1;
		return NULL;
	}
	for (int i = 0; i < report->n_results; i++) {
		json_object *res = result_object(report, report->results[i], failed);

		if (!res || json_object_array_add(arr, res)) {
			json_object_put(res);
			*failed = 1;
		}
	}
	return arr;
}

/* "comparison" summary of a compared report. */
static json_object *comparison_object(const struct embperf_report *report, int *failed)
{
	json_object *obj = json_object_new_object();
	int count[4] = { 0 };

	if (!obj) {
		*failed = 1;
		return NULL;
	}
	for (int i = 0; i < report->n_results; i++)
		if (report->results[i]->verdict >= 0 && report->results[i]->verdict < 4)
			count[report->results[i]->verdict]++;
	put_number(obj, "tolerance_pct", report->tolerance_pct, failed);
	put(obj, "failures",
	    json_object_new_int(count[EMBPERF_VERDICT_REGRESSED] + report->n_missing), failed);
	put(obj, "passed", json_object_new_int(count[EMBPERF_VERDICT_PASS]), failed);
	put(obj, "improved", json_object_new_int(count[EMBPERF_VERDICT_IMPROVED]), failed);
	put(obj, "regressed", json_object_new_int(count[EMBPERF_VERDICT_REGRESSED]), failed);
	put(obj, "missing", json_object_new_int(report->n_missing), failed);
	return obj;
}

static json_object *missing_array(const struct embperf_report *report, int *failed)
{
	json_object *arr = json_object_new_array_ext(report->n_missing);

	if (!arr) {
		*failed = 1;
		return NULL;
	}
	for (int i = 0; i < report->n_missing; i++) {
		json_object *m = json_object_new_object();

		if (!m || json_object_array_add(arr, m)) {
			json_object_put(m);
			*failed = 1;
			continue;
		}
		put_string(m, "key", report->missing[i].key, failed);
		put_string(m, "unit", report->missing[i].unit, failed);
		put_number(m, "baseline", report->missing[i].baseline, failed);
	}
	return arr;
}

char *ep_report_render_json(const struct embperf_report *report)
{
	json_object *root = json_object_new_object();
	int failed = !root;
	char *text = NULL;

	if (failed)
		return NULL;
	put_string(root, "format", EP_REPORT_FORMAT, &failed);
	put(root, "format_version", json_object_new_int(EP_REPORT_FORMAT_VERSION), &failed);
	put_string(root, "generator", "libembperf", &failed);
	put_string(root, "library_version", report->library_version, &failed);
	put_string(root, "created", report->created, &failed);
	put_string(root, "units_note", EP_REPORT_UNITS_NOTE, &failed);
	put(root, "system", system_object(report, &failed), &failed);
	put(root, "results", results_array(report, &failed), &failed);
	if (report->compared) {
		put(root, "comparison", comparison_object(report, &failed), &failed);
		put(root, "missing", missing_array(report, &failed), &failed);
	}
	if (!failed) {
		int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			    JSON_C_TO_STRING_NOSLASHESCAPE;
		const char *s = json_object_to_json_string_ext(root, flags);

		text = s ? ep_asprintf("%s\n", s) : NULL;
	}
	json_object_put(root);
	return text;
}

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * struct jp - state of one parse.
 * @source:  what the message names: the file, or "JSON text".
 * @version: the document's format_version, once checked.
 * @msg:    detail of the first error.
 */
struct jp {
	const char *source;
	int version;
	char msg[EP_ERRMSG_MAX];
};

/* What @v is, for "found ..." in messages. */
static void describe(json_object *v, int present, char *buf, size_t size)
{
	if (!present) {
		snprintf(buf, size, "nothing (the member is missing)");
		return;
	}
	switch (json_object_get_type(v)) {
	case json_type_null:
		snprintf(buf, size, "null");
		break;
	case json_type_boolean:
		snprintf(buf, size, "%s", json_object_get_boolean(v) ? "true" : "false");
		break;
	case json_type_double:
	case json_type_int: {
		char num[40];

		ep_format_double(json_object_get_double(v), num, sizeof(num));
		snprintf(buf, size, "the number %s", num);
		break;
	}
	case json_type_string:
		snprintf(buf, size, "the string \"%.40s%s\"", json_object_get_string(v),
			 json_object_get_string_len(v) > 40 ? "..." : "");
		break;
	case json_type_object:
		snprintf(buf, size, "an object");
		break;
	case json_type_array:
		snprintf(buf, size, "an array");
		break;
	}
}

/* Record "SOURCE: PLACE: expected WHAT, found ..." and return -EBADMSG. */
static int bad(struct jp *p, const char *place, const char *expected, json_object *found,
	       int present)
{
	char what[96];

	describe(found, present, what, sizeof(what));
	snprintf(p->msg, sizeof(p->msg), "%s: %s: expected %s, found %s", p->source,
		 place[0] ? place : "top level", expected, what);
	return -EBADMSG;
}

/* "@where.@key", or @key at the top level. */
static void place_of(char *buf, size_t size, const char *where, const char *key)
{
	snprintf(buf, size, "%s%s%s", where, where[0] ? "." : "", key);
}

/* Flags of a member lookup. */
enum {
	JP_REQUIRED = 1, /* absent is an error */
	JP_NULLABLE = 2, /* null is accepted (as NaN, or as absent) */
	JP_NONEMPTY = 4, /* a string must not be "" */
};

/*
 * Look @key up in @obj. Return: 1 when present (*@val may be JSON null),
 * 0 when absent and optional, -EBADMSG when absent and required.
 */
static int member(struct jp *p, json_object *obj, const char *where, const char *key,
		  int flags, const char *expected, json_object **val)
{
	char place[256];

	*val = NULL;
	if (json_object_object_get_ex(obj, key, val))
		return 1;
	if (!(flags & JP_REQUIRED))
		return 0;
	place_of(place, sizeof(place), where, key);
	return bad(p, place, expected, NULL, 0);
}

static int get_string(struct jp *p, json_object *obj, const char *where, const char *key,
		      int flags, const char **out)
{
	char place[256];
	json_object *v;
	const char *expected = flags & JP_NONEMPTY ? "a non-empty string" : "a string";
	int found = member(p, obj, where, key, flags, expected, &v);
	size_t len;

	if (found <= 0)
		return found;
	place_of(place, sizeof(place), where, key);
	if (!json_object_is_type(v, json_type_string))
		return bad(p, place, expected, v, 1);
	len = (size_t)json_object_get_string_len(v);
	if (strlen(json_object_get_string(v)) != len)
		return bad(p, place, "a string without NUL characters", v, 1);
	if (!len && (flags & JP_NONEMPTY))
		return bad(p, place, expected, v, 1);
	*out = json_object_get_string(v);
	return 1;
}

/* A number, or null (NaN) when JP_NULLABLE. */
static int number_value(struct jp *p, json_object *v, const char *place, int flags, double *out)
{
	int nullable = flags & JP_NULLABLE;

	if (nullable && json_object_is_type(v, json_type_null)) {
		*out = NAN;
		return 1;
	}
	if ((json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
	    isfinite(json_object_get_double(v))) {
		*out = json_object_get_double(v);
		return 1;
	}
	return bad(p, place, nullable ? "a finite number or null" : "a finite number", v, 1);
}

static int get_number(struct jp *p, json_object *obj, const char *where, const char *key,
		      int flags, double *out)
{
	char place[256];
	json_object *v;
	int found = member(p, obj, where, key, flags,
			   flags & JP_NULLABLE ? "a finite number or null" : "a finite number", &v);

	if (found <= 0)
		return found;
	place_of(place, sizeof(place), where, key);
	return number_value(p, v, place, flags, out);
}

static int get_int(struct jp *p, json_object *obj, const char *where, const char *key,
		   int flags, int64_t min, int64_t max, int64_t *out)
{
	char place[256], expected[96];
	json_object *v;
	int found;

	snprintf(expected, sizeof(expected), "an integer from %lld to %lld", (long long)min,
		 (long long)max);
	found = member(p, obj, where, key, flags, expected, &v);
	if (found <= 0)
		return found;
	place_of(place, sizeof(place), where, key);
	if (!json_object_is_type(v, json_type_int))
		return bad(p, place, expected, v, 1);
	/* json-c saturates integers beyond 64 bits; the range check rejects them. */
	errno = 0;
	*out = json_object_get_int64(v);
	if (errno || *out < min || *out > max)
		return bad(p, place, expected, v, 1);
	return 1;
}

static int get_bool(struct jp *p, json_object *obj, const char *where, const char *key,
		    int flags, int *out)
{
	char place[256];
	json_object *v;
	int found = member(p, obj, where, key, flags, "true or false", &v);

	if (found <= 0)
		return found;
	if (json_object_is_type(v, json_type_boolean)) {
		*out = json_object_get_boolean(v);
		return 1;
	}
	place_of(place, sizeof(place), where, key);
	return bad(p, place, "true or false", v, 1);
}

/* A member that must be of container @type ("an object", "an array"). */
static int get_container(struct jp *p, json_object *obj, const char *where, const char *key,
			 int flags, json_type type, json_object **out)
{
	const char *expected = type == json_type_object ? "an object" : "an array";
	char place[256];
	json_object *v;
	int found = member(p, obj, where, key, flags, expected, &v);

	if (found <= 0)
		return found;
	if (json_object_is_type(v, type)) {
		*out = v;
		return 1;
	}
	place_of(place, sizeof(place), where, key);
	return bad(p, place, expected, v, 1);
}

/* One of @choices (NULL-terminated); its index in *@out. */
static int get_choice(struct jp *p, json_object *obj, const char *where, const char *key,
		      const char *const *choices, const char *expected, int *out)
{
	char place[256];
	const char *s = NULL;
	json_object *v;
	int found = member(p, obj, where, key, JP_REQUIRED, expected, &v);

	if (found <= 0)
		return found;
	if (json_object_is_type(v, json_type_string)) {
		s = json_object_get_string(v);
		for (int i = 0; choices[i]; i++) {
			if (!strcmp(choices[i], s)) {
				*out = i;
				return 1;
			}
		}
	}
	place_of(place, sizeof(place), where, key);
	return bad(p, place, expected, v, 1);
}

/**
 * get_pairs() - an optional object of strings as one "k=v k=v" line.
 * @p:     parse state.
 * @obj:   the result object.
 * @where: its place ("results[2]").
 * @key:   "labels" or "params".
 * @out:   receives the line; values that need it are quoted
 *         (ep_pairs_append_value()), so ep_pairs_parse() gives them back.
 *
 * Names may not be empty nor hold a space, '=' or a line break; values are
 * any string without a NUL character.
 *
 * Return: 1 when present, 0 when absent, -EBADMSG.
 */
static int get_pairs(struct jp *p, json_object *obj, const char *where, const char *key,
		     struct ep_buf *out)
{
	char place[512];
	json_object *pairs = NULL;
	int found = get_container(p, obj, where, key, 0, json_type_object, &pairs);

	ep_buf_append(out, "", 0);
	if (found <= 0)
		return found;
	json_object_object_foreach(pairs, name, val)
	{
		const char *s = json_object_is_type(val, json_type_string) ?
				json_object_get_string(val) : NULL;

		snprintf(place, sizeof(place), "%s.%s.%s", where, key, name);
		if (!name[0] || strpbrk(name, " =\t\r\n")) {
			snprintf(p->msg, sizeof(p->msg),
				 "%s: %s.%s: expected names without spaces or '=', found \"%.40s\"",
				 p->source, where, key, name);
			return -EBADMSG;
		}
		if (!s)
			return bad(p, place, "a string", val, 1);
		if (strlen(s) != (size_t)json_object_get_string_len(val))
			return bad(p, place, "a string without NUL characters", val, 1);
		ep_buf_printf(out, "%s%s=", out->len ? " " : "", name);
		ep_pairs_append_value(out, s);
	}
	return 1;
}

static int parse_stats(struct jp *p, json_object *res, const char *where, struct ep_stats *st)
{
	static const char *const names[] = { "min", "max", "mean", "median", "stddev" };
	double *fields[] = { &st->min, &st->max, &st->mean, &st->median, &st->stddev };
	char place[256];
	json_object *obj = NULL;
	int64_t n = 0;
	int err;

	err = get_container(p, res, where, "stats", JP_REQUIRED, json_type_object, &obj);
	if (err < 0)
		return err;
	place_of(place, sizeof(place), where, "stats");
	err = get_int(p, obj, place, "n", JP_REQUIRED, 0, INT_MAX, &n);
	for (size_t i = 0; err >= 0 && i < EP_ARRAY_SIZE(names); i++)
		err = get_number(p, obj, place, names[i], JP_REQUIRED | JP_NULLABLE, fields[i]);
	st->n = (size_t)n;
	return err < 0 ? err : 0;
}

/* The samples (optional), copied into @r; their count must be stats.n. */
static int parse_samples(struct jp *p, json_object *res, const char *where, size_t n,
			 struct embperf_result *r)
{
	char place[256], expected[96];
	json_object *arr = NULL;
	double *values;
	size_t len;
	int err = get_container(p, res, where, "samples", 0, json_type_array, &arr);

	if (err <= 0)
		return err;
	len = json_object_array_length(arr);
	place_of(place, sizeof(place), where, "samples");
	if (len != n) {
		snprintf(expected, sizeof(expected), "%zu samples (stats.n)", n);
		snprintf(p->msg, sizeof(p->msg), "%s: %s: expected %s, found %zu", p->source, place,
			 expected, len);
		return -EBADMSG;
	}
	values = malloc((len ? len : 1) * sizeof(*values));
	if (!values)
		return -ENOMEM;
	err = 0;
	for (size_t i = 0; i < len && !err; i++) {
		char item[300];

		snprintf(item, sizeof(item), "%s[%zu]", place, i);
		err = number_value(p, json_object_array_get_idx(arr, i), item, JP_NULLABLE,
				   &values[i]);
		err = err < 0 ? err : 0;
	}
	if (!err && ep_result_set_samples(r, values, len))
		err = -ENOMEM;
	free(values);
	return err;
}

/**
 * parse_named_counters() - the counters of @obj that are not the engine's:
 * in version 2 the kernel's own ("xruns"), a number each; null (a counter
 * of a newer engine that was unavailable) is skipped. Version 1 ignores them.
 * @p:     parse state.
 * @obj:   the "counters" object.
 * @place: its place, for messages.
 * @r:     the result that receives them.
 *
 * Return: 0, -EBADMSG or -ENOMEM.
 */
static int parse_named_counters(struct jp *p, json_object *obj, const char *place,
				struct embperf_result *r)
{
	char item[512];

	if (p->version < 2)
		return 0;
	json_object_object_foreach(obj, name, val)
	{
		double v;
		int err;

		if (ep_counter_index(name) >= 0)
			continue;
		snprintf(item, sizeof(item), "%s.%s", place, name);
		err = number_value(p, val, item, JP_NULLABLE, &v);
		if (err < 0)
			return err;
		if (!isnan(v) && ep_result_add_named(r, name, v))
			return -ENOMEM;
	}
	return 0;
}

/**
 * parse_counters() - "counters" (optional): the engine's by name, a number or
 * null (unavailable); then the kernel's (parse_named_counters()).
 * @p:     parse state.
 * @res:   the result object.
 * @where: its place.
 * @r:     the result that receives them.
 *
 * Return: 0, -EBADMSG or -ENOMEM.
 */
static int parse_counters(struct jp *p, json_object *res, const char *where,
			  struct embperf_result *r)
{
	char place[256];
	json_object *obj = NULL;
	int err = get_container(p, res, where, "counters", 0, json_type_object, &obj);

	if (err <= 0)
		return err;
	place_of(place, sizeof(place), where, "counters");
	for (int i = 0; i < EP_CTR_COUNT; i++) {
		double v = NAN;

		err = get_number(p, obj, place, ep_counter_name(i), JP_NULLABLE, &v);
		if (err < 0)
			return err;
		r->counter_ok[i] = err > 0 && !isnan(v);
		r->counters[i] = r->counter_ok[i] ? v : 0.0;
	}
	return parse_named_counters(p, obj, place, r);
}

/**
 * parse_items() - every item of an array, each by @item, into a new array.
 * @p:     parse state.
 * @arr:   the JSON array.
 * @place: its place ("results[0].percentiles").
 * @size:  size of one parsed item.
 * @item:  parses the item at a place ("...[2]") into its slot.
 * @out:   receives the malloc'd items (the caller frees them).
 * @n:     receives their count.
 *
 * Return: 0, -EBADMSG or -ENOMEM.
 */
static int parse_items(struct jp *p, json_object *arr, const char *place, size_t size,
		       int (*item)(struct jp *p, json_object *v, const char *place, void *out),
		       void **out, size_t *n)
{
	char where[320];
	size_t len = json_object_array_length(arr);
	char *items = calloc(len ? len : 1, size);
	int err = 0;

	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < len && !err; i++) {
		snprintf(where, sizeof(where), "%s[%zu]", place, i);
		err = item(p, json_object_array_get_idx(arr, i), where, items + i * size);
	}
	if (err) {
		free(items);
		return err;
	}
	*out = items;
	*n = len;
	return 0;
}

/**
 * parse_percentile() - one item of "percentiles": {"pct", "value"}.
 * @p:     parse state.
 * @item:  the item.
 * @place: its place ("results[0].percentiles[2]").
 * @slot:  receives it (a struct ep_pct).
 *
 * Return: 0 or -EBADMSG.
 */
static int parse_percentile(struct jp *p, json_object *item, const char *place, void *slot)
{
	struct ep_pct *out = slot;
	char where[384];
	json_object *v = NULL;
	int err;

	if (!json_object_is_type(item, json_type_object))
		return bad(p, place, "an object {\"pct\", \"value\"}", item, 1);
	err = get_number(p, item, place, "pct", JP_REQUIRED, &out->pct);
	if (err < 0)
		return err;
	if (!(out->pct > 0.0 && out->pct <= 100.0)) {
		json_object_object_get_ex(item, "pct", &v);
		place_of(where, sizeof(where), place, "pct");
		return bad(p, where, "a percentile above 0 and at most 100", v, 1);
	}
	err = get_number(p, item, place, "value", JP_REQUIRED | JP_NULLABLE, &out->value);
	return err < 0 ? err : 0;
}

/**
 * parse_percentiles() - "percentiles" (optional): an array of {"pct", "value"}.
 * @p:     parse state.
 * @res:   the result object.
 * @where: its place.
 * @r:     the result that receives them (sorted by pct).
 *
 * Return: 0, -EBADMSG or -ENOMEM.
 */
static int parse_percentiles(struct jp *p, json_object *res, const char *where,
			     struct embperf_result *r)
{
	char place[256];
	json_object *arr = NULL;
	void *pcts = NULL;
	size_t n = 0;
	int err = get_container(p, res, where, "percentiles", 0, json_type_array, &arr);

	if (err <= 0)
		return err;
	place_of(place, sizeof(place), where, "percentiles");
	err = parse_items(p, arr, place, sizeof(struct ep_pct), parse_percentile, &pcts, &n);
	if (!err && ep_result_set_pcts(r, pcts, n))
		err = -ENOMEM;
	free(pcts);
	return err;
}

/**
 * parse_distribution() - "distribution" (n, min, max, mean) and its
 * "percentiles"; both absent for a result without a distribution.
 * @p:     parse state.
 * @res:   the result object.
 * @where: its place.
 * @r:     the result that receives them.
 *
 * Return: 0, -EBADMSG or -ENOMEM.
 */
static int parse_distribution(struct jp *p, json_object *res, const char *where,
			      struct embperf_result *r)
{
	char place[256];
	json_object *obj = NULL;
	int err = get_container(p, res, where, "distribution", 0, json_type_object, &obj);

	place_of(place, sizeof(place), where, "distribution");
	if (err < 0)
		return err;
	if (!err) {
		if (json_object_object_get_ex(res, "percentiles", NULL))
			return bad(p, place, "an object (\"percentiles\" need their distribution)",
				   NULL, 0);
		return 0;
	}
	if ((err = get_number(p, obj, place, "n", JP_REQUIRED, &r->dist_n)) < 0 ||
	    (err = get_number(p, obj, place, "min", JP_REQUIRED | JP_NULLABLE, &r->dist_min)) < 0 ||
	    (err = get_number(p, obj, place, "max", JP_REQUIRED | JP_NULLABLE, &r->dist_max)) < 0 ||
	    (err = get_number(p, obj, place, "mean", JP_REQUIRED | JP_NULLABLE, &r->dist_mean)) < 0)
		return err;
	r->has_dist = 1;
	return parse_percentiles(p, res, where, r);
}

/**
 * parse_trial_row() - one row of a trial log.
 * @p:     parse state.
 * @row:   {"config", "outcome", "pass", "duration_ns"}.
 * @place: its place ("results[0].trials.rows[3]").
 * @slot:  receives it (a struct ep_trial_row).
 *
 * Return: 0 or -EBADMSG.
 */
static int parse_trial_row(struct jp *p, json_object *row, const char *place, void *slot)
{
	struct ep_trial_row *out = slot;
	int64_t ns = 0;
	int err;

	if (!json_object_is_type(row, json_type_object))
		return bad(p, place, "an object {\"config\", \"outcome\", \"pass\", \"duration_ns\"}",
			   row, 1);
	if ((err = get_number(p, row, place, "config", JP_REQUIRED | JP_NULLABLE, &out->config)) < 0 ||
	    (err = get_number(p, row, place, "outcome", JP_REQUIRED | JP_NULLABLE,
			      &out->outcome)) < 0 ||
	    (err = get_bool(p, row, place, "pass", JP_REQUIRED, &out->pass)) < 0 ||
	    (err = get_int(p, row, place, "duration_ns", JP_REQUIRED, 0, INT64_MAX, &ns)) < 0)
		return err;
	out->duration_ns = (uint64_t)ns;
	return 0;
}

/**
 * parse_trials() - "trials" (optional): the trial log of a searched value.
 * @p:     parse state.
 * @res:   the result object.
 * @where: its place.
 * @r:     the result that receives the log.
 *
 * Return: 0, -EBADMSG or -ENOMEM.
 */
static int parse_trials(struct jp *p, json_object *res, const char *where,
			struct embperf_result *r)
{
	char place[256], rows_place[272];
	const char *config = NULL, *outcome = NULL;
	json_object *obj = NULL, *arr = NULL;
	void *rows = NULL;
	size_t n = 0;
	int err = get_container(p, res, where, "trials", 0, json_type_object, &obj);

	if (err <= 0)
		return err;
	place_of(place, sizeof(place), where, "trials");
	if ((err = get_string(p, obj, place, "config", JP_REQUIRED | JP_NONEMPTY, &config)) < 0 ||
	    (err = get_string(p, obj, place, "outcome", JP_REQUIRED | JP_NONEMPTY, &outcome)) < 0 ||
	    (err = get_container(p, obj, place, "rows", JP_REQUIRED, json_type_array, &arr)) < 0)
		return err;
	place_of(rows_place, sizeof(rows_place), place, "rows");
	err = parse_items(p, arr, rows_place, sizeof(struct ep_trial_row), parse_trial_row, &rows,
			  &n);
	if (!err && ep_result_set_trials(r, config, outcome, rows, n))
		err = -ENOMEM;
	free(rows);
	return err;
}

/*
 * The marks a result set on itself (optional): names this version does not
 * know are ignored, so a newer writer's marks do not make the file unreadable.
 */
static int parse_flags(struct jp *p, json_object *res, const char *where,
		       struct embperf_result *r)
{
	const char *note = "";
	json_object *arr = NULL;
	unsigned flags = 0;
	char place[256];
	int err = get_container(p, res, where, "flags", 0, json_type_array, &arr);

	if (err < 0)
		return err;
	place_of(place, sizeof(place), where, "flags");
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *v = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(v, json_type_string))
			return bad(p, place, "an array of strings", v, 1);
		flags |= ep_result_flag_parse(json_object_get_string(v));
	}
	err = get_string(p, res, where, "note", 0, &note);
	if (err < 0)
		return err;
	return ep_result_set_note(r, flags, note) ? -ENOMEM : 0;
}

/* Comparison members of a result saved after embperf_report_compare(). */
static int parse_comparison(struct jp *p, json_object *res, const char *where,
			    struct embperf_result *r)
{
	static const char *const verdicts[] = { "none", "pass", "improved", "regressed", NULL };
	json_object *v;
	int err;

	if (json_object_object_get_ex(res, "verdict", &v)) {
		err = get_choice(p, res, where, "verdict", verdicts,
				 "\"none\", \"pass\", \"improved\" or \"regressed\"", &r->verdict);
		if (err < 0)
			return err;
	}
	err = get_number(p, res, where, "baseline", JP_NULLABLE, &r->baseline);
	if (err < 0)
		return err;
	r->has_baseline = err > 0;
	r->ratio = NAN;
	err = get_number(p, res, where, "ratio", JP_NULLABLE, &r->ratio);
	return err < 0 ? err : 0;
}

/* The identity of a result: strings, labels and params. */
static struct embperf_result *parse_identity(struct jp *p, json_object *res, const char *where,
					     int *err)
{
	const char *kernel = NULL, *metric = NULL, *unit = NULL, *title = "", *key = NULL;
	struct embperf_result *r = NULL;
	struct ep_buf labels, params;

	ep_buf_init(&labels);
	ep_buf_init(&params);
	if ((*err = get_string(p, res, where, "kernel", JP_REQUIRED | JP_NONEMPTY, &kernel)) >= 0 &&
	    (*err = get_string(p, res, where, "metric", JP_REQUIRED | JP_NONEMPTY, &metric)) >= 0 &&
	    (*err = get_string(p, res, where, "unit", JP_REQUIRED, &unit)) >= 0 &&
	    (*err = get_string(p, res, where, "title", 0, &title)) >= 0 &&
	    (*err = get_string(p, res, where, "key", 0, &key)) >= 0 &&
	    (*err = get_pairs(p, res, where, "labels", &labels)) >= 0 &&
	    (*err = get_pairs(p, res, where, "params", &params)) >= 0) {
		if (labels.failed || params.failed)
			*err = -ENOMEM;
		else if (!(r = ep_result_new(kernel, metric, unit, labels.data, params.data)) ||
			 ep_result_set_title(r, title))
			*err = -ENOMEM;
	}
	ep_buf_free(&labels);
	ep_buf_free(&params);
	if (*err < 0) {
		ep_result_free(r);
		return NULL;
	}
	return r;
}

/* The measurement part of a result: direction, statistics, samples, counters. */
static int parse_measurement(struct jp *p, json_object *res, const char *where,
			     struct embperf_result *r)
{
	static const char *const primaries[] = { "median", "min", "max", NULL };
	/* In enum ep_better's order. */
	static const char *const directions[] = { "lower", "higher", "zero", NULL };
	struct ep_stats stats;
	double value = NAN;
	int primary = 0, truncated = 0, err;
	int64_t cpu = -1;

	if ((err = get_choice(p, res, where, "primary", primaries,
			      "\"median\", \"min\" or \"max\"", &primary)) < 0 ||
	    (err = get_choice(p, res, where, "better", directions, "\"higher\", \"lower\" or \"zero\"",
			      &r->higher_better)) < 0 ||
	    (err = get_number(p, res, where, "value", JP_REQUIRED | JP_NULLABLE, &value)) < 0 ||
	    (err = parse_stats(p, res, where, &stats)) < 0 ||
	    (err = get_int(p, res, where, "cpu", 0, -1, INT_MAX, &cpu)) < 0 ||
	    (err = get_bool(p, res, where, "truncated", 0, &truncated)) < 0)
		return err;
	r->primary = (enum ep_primary)ep_primary_parse(primaries[primary]);
	err = parse_samples(p, res, where, stats.n, r);
	if (err < 0)
		return err;
	/* The file is the record: its statistics win over a recomputation. */
	r->stats = stats;
	r->value = value;
	r->cpu = (int)cpu;
	r->truncated = truncated;
	if ((err = parse_distribution(p, res, where, r)) < 0 ||
	    (err = parse_trials(p, res, where, r)) < 0 ||
	    (err = parse_counters(p, res, where, r)) < 0 ||
	    (err = parse_flags(p, res, where, r)) < 0)
		return err;
	return parse_comparison(p, res, where, r);
}

static int parse_result(struct jp *p, json_object *res, int index, struct embperf_report *report)
{
	struct embperf_result *r;
	char where[64];
	int err;

	snprintf(where, sizeof(where), "results[%d]", index);
	if (!json_object_is_type(res, json_type_object))
		return bad(p, where, "an object", res, 1);
	r = parse_identity(p, res, where, &err);
	if (!r)
		return err;
	err = parse_measurement(p, res, where, r);
	if (!err && ep_report_append(report, r))
		err = -ENOMEM;
	if (err)
		ep_result_free(r);
	return err;
}

static int parse_system(struct jp *p, json_object *root, struct embperf_report *report)
{
	char place[300];
	json_object *obj = NULL;
	int err = get_container(p, root, "", "system", 0, json_type_object, &obj);

	if (err <= 0)
		return err;
	json_object_object_foreach(obj, key, val)
	{
		const char *s = NULL;

		snprintf(place, sizeof(place), "system.%s", key);
		if (!json_object_is_type(val, json_type_string))
			return bad(p, place, "a string", val, 1);
		s = json_object_get_string(val);
		if (ep_report_set_sysinfo(report, key, s))
			return -ENOMEM;
	}
	return 0;
}

static int parse_missing(struct jp *p, json_object *root, struct embperf_report *report)
{
	json_object *arr = NULL;
	int err = get_container(p, root, "", "missing", 0, json_type_array, &arr);

	for (size_t i = 0; err > 0 && i < json_object_array_length(arr); i++) {
		json_object *m = json_object_array_get_idx(arr, i);
		const char *key = NULL, *unit = "";
		double baseline = NAN;
		char where[64];

		snprintf(where, sizeof(where), "missing[%zu]", i);
		if (!json_object_is_type(m, json_type_object))
			return bad(p, where, "an object", m, 1);
		if ((err = get_string(p, m, where, "key", JP_REQUIRED, &key)) < 0 ||
		    (err = get_string(p, m, where, "unit", 0, &unit)) < 0 ||
		    (err = get_number(p, m, where, "baseline", JP_NULLABLE, &baseline)) < 0)
			return err;
		if (ep_report_add_missing(report, key, unit, baseline))
			return -ENOMEM;
		err = 1;
	}
	return err < 0 ? err : 0;
}

/* "comparison" and "missing": present when the report was saved after a compare. */
static int parse_compared(struct jp *p, json_object *root, struct embperf_report *report)
{
	json_object *obj = NULL;
	double tolerance = 0.0;
	int err = get_container(p, root, "", "comparison", 0, json_type_object, &obj);

	if (err <= 0)
		return err;
	err = get_number(p, obj, "comparison", "tolerance_pct", JP_REQUIRED, &tolerance);
	if (err < 0)
		return err;
	report->compared = 1;
	report->tolerance_pct = tolerance;
	return parse_missing(p, root, report);
}

/* The format marker: "format" and a "format_version" this library reads. */
static int check_format(struct jp *p, json_object *root)
{
	const char *format = NULL;
	int64_t version = 0;
	int err;

	if (!json_object_is_type(root, json_type_object))
		return bad(p, "", "an object", root, 1);
	err = get_string(p, root, "", "format", JP_REQUIRED, &format);
	if (err < 0)
		return err;
	if (strcmp(format, EP_REPORT_FORMAT)) {
		json_object *v = NULL;

		json_object_object_get_ex(root, "format", &v);
		return bad(p, "format", "\"" EP_REPORT_FORMAT "\"", v, 1);
	}
	err = get_int(p, root, "", "format_version", JP_REQUIRED, EP_REPORT_FORMAT_VERSION_MIN,
		      INT_MAX, &version);
	if (err < 0)
		return err;
	if (version > EP_REPORT_FORMAT_VERSION) {
		snprintf(p->msg, sizeof(p->msg),
			 "%s: format_version: expected %d to %d, found %lld (written by a newer libembperf than %s, which reads versions %d to %d)",
			 p->source, EP_REPORT_FORMAT_VERSION_MIN, EP_REPORT_FORMAT_VERSION,
			 (long long)version, embperf_version_string(), EP_REPORT_FORMAT_VERSION_MIN,
			 EP_REPORT_FORMAT_VERSION);
		return -EBADMSG;
	}
	p->version = (int)version;
	return 0;
}

/* Build the report from a parsed document. Return: 0, -EBADMSG or -ENOMEM. */
static int build_report(struct jp *p, json_object *root, struct embperf_report **out)
{
	const char *created = NULL, *version = NULL, *s;
	struct embperf_report *report;
	json_object *results = NULL;
	int err = check_format(p, root);

	if (err < 0 ||
	    (err = get_string(p, root, "", "created", 0, &created)) < 0 ||
	    (err = get_string(p, root, "", "library_version", 0, &version)) < 0 ||
	    (err = get_string(p, root, "", "generator", 0, &s)) < 0 ||
	    (err = get_string(p, root, "", "units_note", 0, &s)) < 0 ||
	    (err = get_container(p, root, "", "results", JP_REQUIRED, json_type_array,
				 &results)) < 0)
		return err;
	report = ep_report_alloc(created ? created : "unknown", version ? version : "unknown");
	if (!report)
		return -ENOMEM;
	err = parse_system(p, root, report);
	for (size_t i = 0; !err && i < json_object_array_length(results); i++)
		err = parse_result(p, json_object_array_get_idx(results, i), (int)i, report);
	if (!err)
		err = parse_compared(p, root, report);
	if (err) {
		embperf_report_free(report);
		return err;
	}
	*out = report;
	return 0;
}

/* Line and column (from 1) of byte @offset of @text. */
static void line_col(const char *text, size_t offset, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* Parse @len bytes of JSON text. Return: the document, or NULL with p->msg set. */
static json_object *tokenize(struct jp *p, const char *text, size_t len, int *err)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *root;
	size_t line, col;

	*err = -EBADMSG;
	if (len > EP_REPORT_MAX_BYTES) {
		snprintf(p->msg, sizeof(p->msg), "%s: larger than %u MiB: not a report", p->source,
			 EP_REPORT_MAX_BYTES >> 20);
		return NULL;
	}
	if (memchr(text, '\0', len)) {
		snprintf(p->msg, sizeof(p->msg), "%s: not JSON text (contains a NUL byte)", p->source);
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		*err = -ENOMEM;
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!root || jerr != json_tokener_success) {
		line_col(text, json_tokener_get_parse_end(tok), &line, &col);
		if (jerr == json_tokener_continue)
			snprintf(p->msg, sizeof(p->msg),
				 "%s: line %zu, column %zu: not valid JSON: the text ends early (truncated?)",
				 p->source, line, col);
		else
			snprintf(p->msg, sizeof(p->msg), "%s: line %zu, column %zu: not valid JSON: %s",
				 p->source, line, col, json_tokener_error_desc(jerr));
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	return root;
}

/* Parse a report from @len bytes; on failure set errno and @ctx's message. */
static struct embperf_report *parse_text(embperf_ctx *ctx, const char *source, const char *text,
					 size_t len)
{
	struct embperf_report *report = NULL;
	struct jp p = { .source = source };
	json_object *root;
	int err;

	root = tokenize(&p, text, len, &err);
	if (root) {
		err = build_report(&p, root, &report);
		json_object_put(root);
	}
	if (err == -ENOMEM)
		snprintf(p.msg, sizeof(p.msg), "%s: out of memory reading the report", source);
	if (!report) {
		ep_ctx_fail(ctx, err, "%s", p.msg);
		errno = -err;
	}
	return report;
}

/**
 * embperf_report_parse() - read a JSON report from memory.
 * @ctx:  context that receives the detail message on failure; may be NULL.
 * @json: NUL-terminated JSON text.
 *
 * Return: a new report, or NULL with errno EINVAL (NULL text), EBADMSG (not
 * a valid report; the message names the place and what was expected) or ENOMEM.
 */
embperf_report *embperf_report_parse(embperf_ctx *ctx, const char *json)
{
	if (!json) {
		ep_ctx_fail(ctx, -EINVAL, "json: NULL; accepted: a NUL-terminated JSON text");
		errno = EINVAL;
		return NULL;
	}
	return parse_text(ctx, "JSON text", json, strlen(json));
}

/* Read all of @fd (at most EP_REPORT_MAX_BYTES). Return: 0 or a negative errno. */
static int read_all(int fd, char **out, size_t *out_len)
{
	size_t len = 0, cap = 64 << 10;
	char *buf = malloc(cap + 1), *grown;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap >= EP_REPORT_MAX_BYTES) {
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			grown = realloc(buf, cap + 1);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
}

/* Fail a load: set @ctx's message and errno; return NULL. */
static embperf_report *load_fail(embperf_ctx *ctx, int err, const char *path, const char *what)
{
	char why[128];

	if (err == -EFBIG) {
		ep_ctx_fail(ctx, -EBADMSG, "%s: larger than %u MiB: not a report", path,
			    EP_REPORT_MAX_BYTES >> 20);
		err = -EBADMSG;
	} else {
		ep_ctx_fail(ctx, err, "cannot %s report '%s': %s", what, path,
			    ep_strerror(err, why, sizeof(why)));
	}
	errno = -err;
	return NULL;
}

/**
 * embperf_report_load() - read a JSON report from a file.
 * @ctx:  context that receives the detail message on failure; may be NULL.
 * @path: file written by embperf_report_save() with EMBPERF_FORMAT_JSON.
 *
 * Return: a new report, or NULL with errno from opening or reading the file
 * (ENOENT, EACCES, EISDIR...), EBADMSG (not a valid report, or larger than
 * 256 MiB; the message names the file, the place and what was expected) or ENOMEM.
 */
embperf_report *embperf_report_load(embperf_ctx *ctx, const char *path)
{
	struct embperf_report *report;
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd, err;

	if (!path) {
		ep_ctx_fail(ctx, -EINVAL, "path: NULL; accepted: a file name");
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return load_fail(ctx, -errno, path, "open");
	/* open() accepts a directory; say so rather than failing on read(). */
	if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		close(fd);
		return load_fail(ctx, -EISDIR, path, "read");
	}
	err = read_all(fd, &text, &len);
	close(fd);
	if (err)
		return load_fail(ctx, err, path, "read");
	report = parse_text(ctx, path, text, len);
	free(text);
	return report;
}
