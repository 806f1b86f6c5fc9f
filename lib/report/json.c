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
#include <stddef.h>
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
/* The schema                                                               */
/* ------------------------------------------------------------------------ */

/*
 * The fixed members of each object of the format, in the order they are
 * written: the writer and the reader both walk these tables, so a member
 * is named, typed and checked in one place. What is not a fixed member
 * (labels, parameters, samples, counters, flags, the system entries, the
 * comparison summary) has a function of its own on each side.
 */

/* What a member holds in its struct, and so how it is written and read. */
enum jkind {
	JK_STR,     /* char *: a string (NULL is written as "") */
	JK_KEY,     /* the result's key: written, read only as a string */
	JK_NUM,     /* double: a finite number, or null for NaN */
	JK_PCT,     /* double: a percentile, above 0 and at most 100 */
	JK_COUNT,   /* size_t: an integer 0..INT_MAX */
	JK_NS,      /* uint64_t: an integer 0..INT64_MAX (more is written as INT64_MAX) */
	JK_CPU,     /* int: an integer -1..INT_MAX */
	JK_BOOL,    /* int: true or false */
	JK_PRIMARY, /* enum ep_primary: "median", "min" or "max" */
	JK_BETTER,  /* int, an enum ep_better: "lower", "higher" or "zero" */
	JK_VERDICT, /* int, an enum embperf_verdict: "none", "pass", ... */
};

/* Flags of a member (and of a member lookup). */
enum {
	JP_REQUIRED = 1, /* absent is an error */
	JP_NULLABLE = 2, /* null is accepted (as NaN, or as absent) */
	JP_NONEMPTY = 4, /* a string must not be "" */
};

/**
 * struct jfield - one member of an object.
 * @name:   its JSON name.
 * @kind:   an enum jkind.
 * @flags:  JP_* flags of the reader.
 * @offset: where its value is in the struct the object is made from.
 */
struct jfield {
	const char *name;
	unsigned char kind;
	unsigned char flags;
	unsigned short offset;
};

#define JF(type, member, name, kind, flags) { name, kind, flags, offsetof(type, member) }
#define REQ JP_REQUIRED
#define NUL JP_NULLABLE
/* A table and its length, as the walkers take them. */
#define TABLE(t) t, EP_ARRAY_SIZE(t)

/* "stats" of a result. */
static const struct jfield stats_fields[] = {
	JF(struct ep_stats, n, "n", JK_COUNT, REQ),
	JF(struct ep_stats, min, "min", JK_NUM, REQ | NUL),
	JF(struct ep_stats, max, "max", JK_NUM, REQ | NUL),
	JF(struct ep_stats, mean, "mean", JK_NUM, REQ | NUL),
	JF(struct ep_stats, median, "median", JK_NUM, REQ | NUL),
	JF(struct ep_stats, stddev, "stddev", JK_NUM, REQ | NUL),
};

/* A result's identity, before its labels and parameters. */
static const struct jfield identity_fields[] = {
	JF(struct embperf_result, title, "title", JK_STR, 0),
	{ "key", JK_KEY, 0, 0 },
	JF(struct embperf_result, kernel, "kernel", JK_STR, REQ | JP_NONEMPTY),
	JF(struct embperf_result, metric, "metric", JK_STR, REQ | JP_NONEMPTY),
	JF(struct embperf_result, unit, "unit", JK_STR, REQ),
};

/* A result's value and how to read it, after its parameters. */
static const struct jfield value_fields[] = {
	JF(struct embperf_result, primary, "primary", JK_PRIMARY, REQ),
	JF(struct embperf_result, value, "value", JK_NUM, REQ | NUL),
	JF(struct embperf_result, higher_better, "better", JK_BETTER, REQ),
};

/* A result's members after its counters. */
static const struct jfield tail_fields[] = {
	JF(struct embperf_result, cpu, "cpu", JK_CPU, 0),
	JF(struct embperf_result, truncated, "truncated", JK_BOOL, 0),
};

/* "distribution" of a result (format version 2). */
static const struct jfield dist_fields[] = {
	JF(struct embperf_result, dist_n, "n", JK_NUM, REQ),
	JF(struct embperf_result, dist_min, "min", JK_NUM, REQ | NUL),
	JF(struct embperf_result, dist_max, "max", JK_NUM, REQ | NUL),
	JF(struct embperf_result, dist_mean, "mean", JK_NUM, REQ | NUL),
};

/* An item of "percentiles". */
static const struct jfield pct_fields[] = {
	JF(struct ep_pct, pct, "pct", JK_PCT, REQ),
	JF(struct ep_pct, value, "value", JK_NUM, REQ | NUL),
};

/* "trials": the names of its columns, before its "rows". */
static const struct jfield trials_fields[] = {
	JF(struct embperf_result, trial_config_name, "config", JK_STR, REQ | JP_NONEMPTY),
	JF(struct embperf_result, trial_outcome_name, "outcome", JK_STR, REQ | JP_NONEMPTY),
};

/* An item of "trials.rows". */
static const struct jfield row_fields[] = {
	JF(struct ep_trial_row, config, "config", JK_NUM, REQ | NUL),
	JF(struct ep_trial_row, outcome, "outcome", JK_NUM, REQ | NUL),
	JF(struct ep_trial_row, pass, "pass", JK_BOOL, REQ),
	JF(struct ep_trial_row, duration_ns, "duration_ns", JK_NS, REQ),
};

/* A result's comparison with its baseline metric (compared reports only). */
static const struct jfield baseline_fields[] = {
	JF(struct embperf_result, baseline, "baseline", JK_NUM, NUL),
	JF(struct embperf_result, ratio, "ratio", JK_NUM, NUL),
	JF(struct embperf_result, verdict, "verdict", JK_VERDICT, 0),
};

/* "comparison" of a compared report: what the reader takes of it. */
static const struct jfield comparison_fields[] = {
	JF(struct embperf_report, tolerance_pct, "tolerance_pct", JK_NUM, REQ),
};

/* An item of "missing". */
static const struct jfield missing_fields[] = {
	JF(struct ep_missing, key, "key", JK_STR, REQ),
	JF(struct ep_missing, unit, "unit", JK_STR, 0),
	JF(struct ep_missing, baseline, "baseline", JK_NUM, NUL),
};

/* The choices of @kind: the @i-th name, NULL past the last one. */
static const char *choice_name(int kind, int i)
{
	if (kind == JK_VERDICT)
		return ep_verdict_name(i);
	if (i < 0 || i > EP_BETTER_ZERO)
		return NULL;
	return kind == JK_PRIMARY ? ep_primary_name((enum ep_primary)i) : ep_better_name(i);
}

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

static void put_string(json_object *obj, const char *key, const char *s, int *failed)
{
	put(obj, key, json_object_new_string(s ? s : ""), failed);
}

/* A new object, or NULL with *@failed set. */
static json_object *new_object(int *failed)
{
	json_object *obj = json_object_new_object();

	if (!obj)
		*failed = 1;
	return obj;
}

/* A new array with room for @n items, or NULL with *@failed set. */
static json_object *new_array(size_t n, int *failed)
{
	json_object *arr = json_object_new_array_ext((int)n);

	if (!arr)
		*failed = 1;
	return arr;
}

/* Append @val (NULL is JSON null) to @arr; a failed append marks *@failed. */
static void append(json_object *arr, json_object *val, int *failed)
{
	if (json_object_array_add(arr, val)) {
		json_object_put(val);
		*failed = 1;
	}
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

/* Add @v under @key: null for NaN and infinities. */
static void put_number(json_object *obj, const char *key, double v, int *failed)
{
	json_object *num = new_number(v, failed);

	if (json_object_object_add(obj, key, num)) {
		json_object_put(num);
		*failed = 1;
	}
}

/* Member @f of the struct at @base into @obj. */
static void put_field(json_object *obj, const struct jfield *f, const void *base, int *failed)
{
	const char *slot = (const char *)base + f->offset;
	const char *name;
	uint64_t ns;
	char *key;

	switch (f->kind) {
	case JK_STR:
		put_string(obj, f->name, *(char *const *)slot, failed);
		break;
	case JK_KEY:
		key = ep_result_key_dup(base);
		if (!key)
			*failed = 1;
		put_string(obj, f->name, key, failed);
		free(key);
		break;
	case JK_NUM:
	case JK_PCT:
		put_number(obj, f->name, *(const double *)slot, failed);
		break;
	case JK_COUNT:
		put(obj, f->name, json_object_new_int64((int64_t)*(const size_t *)slot), failed);
		break;
	case JK_NS:
		ns = *(const uint64_t *)slot;
		put(obj, f->name, json_object_new_int64(ns > INT64_MAX ? INT64_MAX : (int64_t)ns),
		    failed);
		break;
	case JK_CPU:
		put(obj, f->name, json_object_new_int(*(const int *)slot), failed);
		break;
	case JK_BOOL:
		put(obj, f->name, json_object_new_boolean(*(const int *)slot), failed);
		break;
	default:
		name = choice_name(f->kind, *(const int *)slot);
		put_string(obj, f->name, name ? name : choice_name(f->kind, 0), failed);
	}
}

/* The @n members of table @f, from the struct at @base, into @obj. */
static void put_fields(json_object *obj, const struct jfield *f, size_t n, const void *base,
		       int *failed)
{
	for (size_t i = 0; i < n; i++)
		put_field(obj, &f[i], base, failed);
}

/* An object of the members of table @f. Return: it, or NULL (with *@failed set). */
static json_object *fields_object(const struct jfield *f, size_t n, const void *base,
				  int *failed)
{
	json_object *obj = new_object(failed);

	if (obj)
		put_fields(obj, f, n, base, failed);
	return obj;
}

/**
 * records_array() - an array of @n objects of table @f, made from the
 * structs of @size bytes at @items.
 * Return: the array, or NULL (with *@failed set).
 */
static json_object *records_array(const void *items, size_t n, size_t size,
				  const struct jfield *f, size_t nf, int *failed)
{
	json_object *arr = new_array(n, failed);

	for (size_t i = 0; arr && i < n; i++)
		append(arr, fields_object(f, nf, (const char *)items + i * size, failed), failed);
	return arr;
}

/* Labels or parameters as a JSON object, name -> value (values exact, unquoted). */
static json_object *pairs_object(const struct ep_pairs *kv, int *failed)
{
	json_object *obj = new_object(failed);

	for (size_t i = 0; obj && i < kv->n; i++)
		put_string(obj, kv->keys[i], kv->values[i], failed);
	return obj;
}

static json_object *samples_array(const struct embperf_result *r, int *failed)
{
	json_object *arr = new_array(r->n_samples, failed);

	for (size_t i = 0; arr && i < r->n_samples; i++)
		append(arr, new_number(r->samples[i], failed), failed);
	return arr;
}

/**
 * counters_object() - the engine's counters (null when unavailable), then
 * the counters the kernel declared ("xruns"), under their names.
 * Return: the object, or NULL (with *@failed set).
 */
static json_object *counters_object(const struct embperf_result *r, int *failed)
{
	json_object *obj = new_object(failed);

	for (int i = 0; obj && i < EP_CTR_COUNT; i++)
		put_number(obj, ep_counter_name(i), r->counter_ok[i] ? r->counters[i] : NAN, failed);
	for (size_t i = 0; obj && i < r->n_named; i++)
		put_number(obj, r->named[i].name, r->named[i].value, failed);
	return obj;
}

/*
 * The members of format version 2 that trial kernels fill: "distribution"
 * and "percentiles" when the result has a distribution, "trials" (the
 * names of its columns and the rows in the order the search ran them)
 * when it has a trial log.
 */
static void put_trial_parts(json_object *obj, const struct embperf_result *r, int *failed)
{
	json_object *trials;

	if (r->has_dist) {
		put(obj, "distribution", fields_object(TABLE(dist_fields), r, failed), failed);
		put(obj, "percentiles",
		    records_array(r->pcts, r->n_pcts, sizeof(*r->pcts), TABLE(pct_fields), failed),
		    failed);
	}
	if (!r->n_trials)
		return;
	trials = fields_object(TABLE(trials_fields), r, failed);
	if (trials)
		put(trials, "rows", records_array(r->trials, r->n_trials, sizeof(*r->trials),
						  TABLE(row_fields), failed), failed);
	put(obj, "trials", trials, failed);
}

/* The marks of a result that set any: "flags": ["disturbed", ...], "note". */
static void put_flags(json_object *obj, const struct embperf_result *r, int *failed)
{
	json_object *arr;

	if (!r->flags)
		return;
	arr = new_array(0, failed);
	for (unsigned bit = 1; arr && bit; bit <<= 1) {
		const char *name = r->flags & bit ? ep_result_flag_name(bit) : NULL;
		json_object *s = name ? json_object_new_string(name) : NULL;

		*failed |= name && !s;
		if (s)
			append(arr, s, failed);
	}
	put(obj, "flags", arr, failed);
	put_string(obj, "note", r->note, failed);
}

static json_object *result_object(const struct embperf_report *report,
				  const struct embperf_result *r, int *failed)
{
	json_object *obj = new_object(failed);

	if (!obj)
		return NULL;
	put_fields(obj, TABLE(identity_fields), r, failed);
	put(obj, "labels", pairs_object(&r->label_kv, failed), failed);
	put(obj, "params", pairs_object(&r->param_kv, failed), failed);
	put_fields(obj, TABLE(value_fields), r, failed);
	put(obj, "stats", fields_object(TABLE(stats_fields), &r->stats, failed), failed);
	/* A result loaded without its samples keeps stats.n: no "samples" then. */
	if (r->n_samples == (size_t)r->stats.n)
		put(obj, "samples", samples_array(r, failed), failed);
	put_trial_parts(obj, r, failed);
	put(obj, "counters", counters_object(r, failed), failed);
	put_fields(obj, TABLE(tail_fields), r, failed);
	put_flags(obj, r, failed);
	/* "baseline" and "ratio" only for a result that had a baseline metric. */
	if (report->compared && r->has_baseline)
		put_fields(obj, TABLE(baseline_fields), r, failed);
	else if (report->compared)
		put_field(obj, &baseline_fields[2], r, failed);
	return obj;
}

static json_object *system_object(const struct embperf_report *report, int *failed)
{
	json_object *obj = new_object(failed);

	for (int i = 0; obj && i < report->n_sysinfo; i++)
		put_string(obj, report->sysinfo[i].key, report->sysinfo[i].value, failed);
	return obj;
}

static json_object *results_array(const struct embperf_report *report, int *failed)
{
	json_object *arr = new_array((size_t)report->n_results, failed);

	for (int i = 0; arr && i < report->n_results; i++)
		append(arr, result_object(report, report->results[i], failed), failed);
	return arr;
}

/* "comparison" summary of a compared report: its tolerance, then the counts. */
static json_object *comparison_object(const struct embperf_report *report, int *failed)
{
	static const char *const names[] = { "failures", "passed", "improved", "regressed",
					     "missing" };
	json_object *obj = fields_object(TABLE(comparison_fields), report, failed);
	int count[5] = { 0 };

	if (!obj)
		return NULL;
	/* count[0]: failures; count[1 + v - PASS]: verdict v; count[4]: missing. */
	for (int i = 0; i < report->n_results; i++) {
		int v = report->results[i]->verdict;

		if (v >= EMBPERF_VERDICT_PASS && v <= EMBPERF_VERDICT_REGRESSED)
			count[v]++;
	}
	count[4] = report->n_missing;
	count[0] = count[EMBPERF_VERDICT_REGRESSED] + report->n_missing;
	for (size_t i = 0; i < EP_ARRAY_SIZE(names); i++)
		put(obj, names[i], json_object_new_int(count[i]), failed);
	return obj;
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
		put(root, "missing", records_array(report->missing, (size_t)report->n_missing,
						   sizeof(*report->missing), TABLE(missing_fields),
						   &failed), &failed);
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

/* bad() at "@where.@key". */
static int bad_member(struct jp *p, const char *where, const char *key, const char *expected,
		      json_object *found, int present)
{
	char place[256];

	place_of(place, sizeof(place), where, key);
	return bad(p, place, expected, found, present);
}

/*
 * Look @key up in @obj. Return: 1 when present (*@val may be JSON null),
 * 0 when absent and optional, -EBADMSG when absent and required.
 */
static int member(struct jp *p, json_object *obj, const char *where, const char *key,
		  int flags, const char *expected, json_object **val)
{
	*val = NULL;
	if (json_object_object_get_ex(obj, key, val))
		return 1;
	if (!(flags & JP_REQUIRED))
		return 0;
	return bad_member(p, where, key, expected, NULL, 0);
}

static int get_string(struct jp *p, json_object *obj, const char *where, const char *key,
		      int flags, const char **out)
{
	json_object *v;
	const char *expected = flags & JP_NONEMPTY ? "a non-empty string" : "a string";
	int found = member(p, obj, where, key, flags, expected, &v);
	size_t len;

	if (found <= 0)
		return found;
	if (!json_object_is_type(v, json_type_string))
		return bad_member(p, where, key, expected, v, 1);
	len = (size_t)json_object_get_string_len(v);
	if (strlen(json_object_get_string(v)) != len)
		return bad_member(p, where, key, "a string without NUL characters", v, 1);
	if (!len && (flags & JP_NONEMPTY))
		return bad_member(p, where, key, expected, v, 1);
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
	char expected[96];
	json_object *v;
	int found;

	snprintf(expected, sizeof(expected), "an integer from %lld to %lld", (long long)min,
		 (long long)max);
	found = member(p, obj, where, key, flags, expected, &v);
	if (found <= 0)
		return found;
	if (!json_object_is_type(v, json_type_int))
		return bad_member(p, where, key, expected, v, 1);
	/* json-c saturates integers beyond 64 bits; the range check rejects them. */
	errno = 0;
	*out = json_object_get_int64(v);
	if (errno || *out < min || *out > max)
		return bad_member(p, where, key, expected, v, 1);
	return 1;
}

static int get_bool(struct jp *p, json_object *obj, const char *where, const char *key,
		    int flags, int *out)
{
	json_object *v;
	int found = member(p, obj, where, key, flags, "true or false", &v);

	if (found <= 0)
		return found;
	if (json_object_is_type(v, json_type_boolean)) {
		*out = json_object_get_boolean(v);
		return 1;
	}
	return bad_member(p, where, key, "true or false", v, 1);
}

/* A member that must be of container @type ("an object", "an array"). */
static int get_container(struct jp *p, json_object *obj, const char *where, const char *key,
			 int flags, json_type type, json_object **out)
{
	const char *expected = type == json_type_object ? "an object" : "an array";
	json_object *v;
	int found = member(p, obj, where, key, flags, expected, &v);

	if (found <= 0)
		return found;
	if (json_object_is_type(v, type)) {
		*out = v;
		return 1;
	}
	return bad_member(p, where, key, expected, v, 1);
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
	int err = get_container(p, res, where, "flags", 0, json_type_array, &arr);

	if (err < 0)
		return err;
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *v = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(v, json_type_string))
			return bad_member(p, where, "flags", "an array of strings", v, 1);
		flags |= ep_result_flag_parse(json_object_get_string(v));
	}
	err = get_string(p, res, where, "note", 0, &note);
	if (err < 0)
		return err;
	return ep_result_set_note(r, flags, note) ? -ENOMEM : 0;
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

/* A member of choice @kind (enum jkind); its index in *@out. */
static int get_choice(struct jp *p, json_object *obj, const char *where, const char *key,
		      int flags, int kind, int *out)
{
	static const char *const expected[] = {
		"\"median\", \"min\" or \"max\"",
		"\"higher\", \"lower\" or \"zero\"",
		"\"none\", \"pass\", \"improved\" or \"regressed\"",
	};
	const char *what = expected[kind - JK_PRIMARY];
	json_object *v;
	int found = member(p, obj, where, key, flags, what, &v);

	if (found <= 0)
		return found;
	for (int i = 0; json_object_is_type(v, json_type_string) && choice_name(kind, i); i++) {
		if (!strcmp(choice_name(kind, i), json_object_get_string(v))) {
			*out = i;
			return 1;
		}
	}
	return bad_member(p, where, key, what, v, 1);
}

/* A number of member @f: a percentile must be above 0 and at most 100. */
static int get_field_number(struct jp *p, json_object *obj, const char *where,
			    const struct jfield *f, double *out)
{
	json_object *v = NULL;
	int found = get_number(p, obj, where, f->name, f->flags, out);

	if (found <= 0 || f->kind != JK_PCT || (*out > 0.0 && *out <= 100.0))
		return found;
	json_object_object_get_ex(obj, f->name, &v);
	return bad_member(p, where, f->name, "a percentile above 0 and at most 100", v, 1);
}

/*
 * Member @f of @obj into the struct at @base (a string points into the
 * document). An absent optional number reads as NaN; other absent members
 * leave their slot as it was.
 * Return: 1 when present, 0 when absent, -EBADMSG.
 */
static int get_field(struct jp *p, json_object *obj, const char *where, const struct jfield *f,
		     void *base)
{
	char *slot = (char *)base + f->offset;
	const char *key;
	int64_t i = 0;
	int found;

	switch (f->kind) {
	case JK_STR:
		return get_string(p, obj, where, f->name, f->flags, (const char **)slot);
	case JK_KEY:
		return get_string(p, obj, where, f->name, f->flags, &key);
	case JK_NUM:
	case JK_PCT:
		*(double *)slot = NAN;
		return get_field_number(p, obj, where, f, (double *)slot);
	case JK_COUNT:
	case JK_NS:
	case JK_CPU:
		found = get_int(p, obj, where, f->name, f->flags, f->kind == JK_CPU ? -1 : 0,
				f->kind == JK_NS ? INT64_MAX : INT_MAX, &i);
		if (found > 0 && f->kind == JK_COUNT)
			*(size_t *)slot = (size_t)i;
		else if (found > 0 && f->kind == JK_NS)
			*(uint64_t *)slot = (uint64_t)i;
		else if (found > 0)
			*(int *)slot = (int)i;
		return found;
	case JK_BOOL:
		return get_bool(p, obj, where, f->name, f->flags, (int *)slot);
	default:
		return get_choice(p, obj, where, f->name, f->flags, f->kind, (int *)slot);
	}
}

/* The @n members of table @f. Return: 0 or -EBADMSG. */
static int get_fields(struct jp *p, json_object *obj, const char *where, const struct jfield *f,
		      size_t n, void *base)
{
	for (size_t i = 0; i < n; i++) {
		int err = get_field(p, obj, where, &f[i], base);

		if (err < 0)
			return err;
	}
	return 0;
}

/* The object member @key of @parent, read by table @f. Return: 1, 0 when absent, -EBADMSG. */
static int get_object(struct jp *p, json_object *parent, const char *where, const char *key,
		      int flags, const struct jfield *f, size_t n, void *base)
{
	char place[256];
	json_object *obj = NULL;
	int err = get_container(p, parent, where, key, flags, json_type_object, &obj);

	if (err <= 0)
		return err;
	place_of(place, sizeof(place), where, key);
	err = get_fields(p, obj, place, f, n, base);
	return err < 0 ? err : 1;
}

/**
 * get_records() - every item of the array @arr, an object of table @f, into
 * a new array of structs of @size bytes.
 * @p:     parse state.
 * @arr:   the JSON array.
 * @place: its place ("results[0].percentiles").
 * @size:  size of one struct.
 * @f:     the table of an item, of @nf members.
 * @out:   receives the calloc'd items (the caller frees them); absent
 *         members read as get_field() says.
 * @n:     receives their count.
 *
 * Return: 0, -EBADMSG or -ENOMEM.
 */
static int get_records(struct jp *p, json_object *arr, const char *place, size_t size,
		       const struct jfield *f, size_t nf, void **out, size_t *n)
{
	char where[320], expected[128];
	size_t len = json_object_array_length(arr), used;
	char *items = calloc(len ? len : 1, size);
	int err = 0;

	if (!items)
		return -ENOMEM;
	used = (size_t)snprintf(expected, sizeof(expected), "an object {");
	for (size_t i = 0; i < nf && used < sizeof(expected); i++)
		used += (size_t)snprintf(expected + used, sizeof(expected) - used, "%s\"%s\"",
					 i ? ", " : "", f[i].name);
	if (used < sizeof(expected))
		snprintf(expected + used, sizeof(expected) - used, "}");
	for (size_t i = 0; i < len && !err; i++) {
		json_object *item = json_object_array_get_idx(arr, i);

		snprintf(where, sizeof(where), "%s[%zu]", place, i);
		if (!json_object_is_type(item, json_type_object))
			err = bad(p, where, expected, item, 1);
		else
			err = get_fields(p, item, where, f, nf, items + i * size);
	}
	if (err) {
		free(items);
		return err;
	}
	*out = items;
	*n = len;
	return 0;
}

/* The array member @key of @parent read by table @f (see get_records()). Return: 1, 0, <0. */
static int get_array(struct jp *p, json_object *parent, const char *where, const char *key,
		     int flags, size_t size, const struct jfield *f, size_t nf, void **out,
		     size_t *n)
{
	char place[256];
	json_object *arr = NULL;
	int err = get_container(p, parent, where, key, flags, json_type_array, &arr);

	if (err <= 0)
		return err;
	place_of(place, sizeof(place), where, key);
	err = get_records(p, arr, place, size, f, nf, out, n);
	return err < 0 ? err : 1;
}

/**
 * parse_distribution() - "distribution" and its "percentiles" (sorted by
 * pct into @r); both absent for a result without a distribution.
 * Return: 0, -EBADMSG or -ENOMEM.
 */
static int parse_distribution(struct jp *p, json_object *res, const char *where,
			      struct embperf_result *r)
{
	void *pcts = NULL;
	size_t n = 0;
	int err = get_object(p, res, where, "distribution", 0, TABLE(dist_fields), r);

	if (err < 0)
		return err;
	if (!err && json_object_object_get_ex(res, "percentiles", NULL))
		return bad_member(p, where, "distribution",
				  "an object (\"percentiles\" need their distribution)", NULL, 0);
	if (!err)
		return 0;
	r->has_dist = 1;
	err = get_array(p, res, where, "percentiles", 0, sizeof(struct ep_pct), TABLE(pct_fields),
			&pcts, &n);
	if (err > 0 && ep_result_set_pcts(r, pcts, n))
		err = -ENOMEM;
	free(pcts);
	return err < 0 ? err : 0;
}

/**
 * parse_trials() - "trials" (optional): the trial log of a searched value.
 * Return: 0, -EBADMSG or -ENOMEM.
 */
static int parse_trials(struct jp *p, json_object *res, const char *where,
			struct embperf_result *r)
{
	struct embperf_result names = { 0 }; /* the column names, pointing into the document */
	char place[256];
	json_object *obj = NULL;
	void *rows = NULL;
	size_t n = 0;
	int err = get_container(p, res, where, "trials", 0, json_type_object, &obj);

	if (err <= 0)
		return err;
	place_of(place, sizeof(place), where, "trials");
	if ((err = get_fields(p, obj, place, TABLE(trials_fields), &names)) < 0 ||
	    (err = get_array(p, obj, place, "rows", JP_REQUIRED, sizeof(struct ep_trial_row),
			     TABLE(row_fields), &rows, &n)) < 0)
		return err;
	if (ep_result_set_trials(r, names.trial_config_name, names.trial_outcome_name, rows, n))
		err = -ENOMEM;
	free(rows);
	return err < 0 ? err : 0;
}

/* Comparison members of a result saved after embperf_report_compare(). */
static int parse_comparison(struct jp *p, json_object *res, const char *where,
			    struct embperf_result *r)
{
	int err = get_field(p, res, where, &baseline_fields[0], r);

	r->has_baseline = err > 0;
	if (err >= 0)
		err = get_fields(p, res, where, baseline_fields + 1, 2, r);
	return err;
}

/*
 * The fixed members of a result before its samples into @f (strings
 * pointing into the document), its labels and params into lines.
 */
static int parse_head(struct jp *p, json_object *res, const char *where,
		      struct embperf_result *f, struct ep_buf *labels, struct ep_buf *params)
{
	int err;

	if ((err = get_fields(p, res, where, TABLE(identity_fields), f)) < 0 ||
	    (err = get_pairs(p, res, where, "labels", labels)) < 0 ||
	    (err = get_pairs(p, res, where, "params", params)) < 0 ||
	    (err = get_fields(p, res, where, TABLE(value_fields), f)) < 0 ||
	    (err = get_object(p, res, where, "stats", JP_REQUIRED, TABLE(stats_fields),
			      &f->stats)) < 0 ||
	    (err = get_fields(p, res, where, TABLE(tail_fields), f)) < 0)
		return err;
	return labels->failed || params->failed ? -ENOMEM : 0;
}

/* A result from its head @f: identity, samples, and the rest of @res. */
static int parse_body(struct jp *p, json_object *res, const char *where,
		      const struct embperf_result *f, struct embperf_result *r)
{
	int err;

	if (ep_result_set_title(r, f->title ? f->title : ""))
		return -ENOMEM;
	err = parse_samples(p, res, where, f->stats.n, r);
	if (err < 0)
		return err;
	/* The file is the record: its statistics win over a recomputation. */
	r->primary = f->primary;
	r->higher_better = f->higher_better;
	r->stats = f->stats;
	r->value = f->value;
	r->cpu = f->cpu;
	r->truncated = f->truncated;
	if ((err = parse_distribution(p, res, where, r)) < 0 ||
	    (err = parse_trials(p, res, where, r)) < 0 ||
	    (err = parse_counters(p, res, where, r)) < 0 ||
	    (err = parse_flags(p, res, where, r)) < 0)
		return err;
	return parse_comparison(p, res, where, r);
}

/*
 * Metrics renamed since a report could have been saved: a result of @kernel
 * named @old is read as @now, so that a baseline saved before the rename
 * meets today's results in a compare, a guide and a merge
 * (doc/report-format.md, "Renamed metrics").
 */
static const struct {
	const char *kernel, *old, *now;
} renamed[] = {
	/* the whole system's CPU load, named as by every other kernel */
	{ "blk.fs", "cpu_load", "cpu_system" },
};

/* The name of today of @kernel's metric @metric. */
static const char *metric_now(const char *kernel, const char *metric)
{
	for (size_t i = 0; i < EP_ARRAY_SIZE(renamed); i++)
		if (!strcmp(kernel, renamed[i].kernel) && !strcmp(metric, renamed[i].old))
			return renamed[i].now;
	return metric;
}

/*
 * @r's metric was read under its new name: its title (a row name a
 * template's {metric} made) gets the new name in place of the last
 * occurrence of @old. Return: 0 or -ENOMEM.
 */
static int retitle(struct embperf_result *r, const char *old)
{
	const char *at = NULL;
	char *title;
	int err;

	for (const char *s = strstr(r->title, old); s; s = strstr(s + 1, old))
		at = s;
	if (!at)
		return 0;
	title = ep_asprintf("%.*s%s%s", (int)(at - r->title), r->title, r->metric,
			    at + strlen(old));
	if (!title)
		return -ENOMEM;
	err = ep_result_set_title(r, title);
	free(title);
	return err;
}

static int parse_result(struct jp *p, json_object *res, int index, struct embperf_report *report)
{
	struct embperf_result f = { .cpu = -1 }, *r = NULL;
	struct ep_buf labels, params;
	const char *metric = NULL;
	char where[64];
	int err;

	snprintf(where, sizeof(where), "results[%d]", index);
	if (!json_object_is_type(res, json_type_object))
		return bad(p, where, "an object", res, 1);
	ep_buf_init(&labels);
	ep_buf_init(&params);
	err = parse_head(p, res, where, &f, &labels, &params);
	if (!err)
		metric = metric_now(f.kernel, f.metric);
	if (!err && !(r = ep_result_new(f.kernel, metric, f.unit, labels.data, params.data)))
		err = -ENOMEM;
	ep_buf_free(&labels);
	ep_buf_free(&params);
	if (!err)
		err = parse_body(p, res, where, &f, r);
	if (!err && metric != f.metric)
		err = retitle(r, f.metric);
	if (!err && ep_report_append(report, r))
		err = -ENOMEM;
	if (err)
		ep_result_free(r);
	return err;
}

/* "comparison" and "missing": present when the report was saved after a compare. */
static int parse_compared(struct jp *p, json_object *root, struct embperf_report *report)
{
	struct ep_missing *missing = NULL;
	size_t n = 0;
	int err = get_object(p, root, "", "comparison", 0, TABLE(comparison_fields), report);

	if (err <= 0)
		return err;
	report->compared = 1;
	err = get_array(p, root, "", "missing", 0, sizeof(*missing), TABLE(missing_fields),
			(void **)&missing, &n);
	for (size_t i = 0; err > 0 && i < n; i++)
		if (ep_report_add_missing(report, missing[i].key,
					  missing[i].unit ? missing[i].unit : "", missing[i].baseline))
			err = -ENOMEM;
	free(missing);
	return err < 0 ? err : 0;
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

/* Append all of @fd to @text (less than EP_REPORT_MAX_BYTES). Return: 0 or a negative errno. */
static int read_all(int fd, struct ep_buf *text)
{
	char chunk[16384];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return text->failed ? -ENOMEM : 0;
		if (text->len + (size_t)n >= EP_REPORT_MAX_BYTES)
			return -EFBIG;
		ep_buf_append(text, chunk, (size_t)n);
	}
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
	struct ep_buf text;
	struct stat st;
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
	ep_buf_init(&text);
	err = read_all(fd, &text);
	close(fd);
	if (err) {
		ep_buf_free(&text);
		return load_fail(ctx, err, path, "read");
	}
	report = parse_text(ctx, path, text.data ? text.data : "", text.len);
	ep_buf_free(&text);
	return report;
}
