// SPDX-License-Identifier: MIT
/*
 * farm.c - the renderings board farms collect: JUnit XML (Jenkins, GitLab
 * and most CI servers read it) and LAVA test-case lines (the LAVA test
 * shell's `lava-test-case` helper). See doc/board-farms.md.
 *
 * Both map one result to one test case. A test case fails when the last
 * embperf_report_compare() judged its result regressed; a baseline metric
 * the report lacks becomes a failed test case of its own, since compare
 * counts it as a failure too. A report with no results renders to nothing
 * a farm could tell from a lost file, so both refuse it (ENODATA).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/report.h"

/* LAVA keeps a test case name in a 100-character field. */
#define LAVA_NAME_MAX 100
/* Room kept at the end of a shortened name for "-" and 8 hex digits. */
#define LAVA_HASH_CHARS 9

/* The UTF-8 for U+FFFD, written for bytes XML cannot carry. */
static const char replacement_char[] = "\xEF\xBF\xBD";

/*
 * Length of the valid UTF-8 sequence of an XML 1.0 character at @s (1 to 4),
 * or 0 when the bytes there are not one: malformed or overlong sequences,
 * surrogates, U+FFFE, U+FFFF and the C0 controls other than tab, line feed
 * and carriage return.
 */
static size_t xml_char_len(const unsigned char *s)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' || s[0] == '\r';
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2;
		cp = s[0] & 0x1Fu;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		len = 3;
		cp = s[0] & 0x0Fu;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4;
		cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0; /* overlong, or beyond Unicode */
	if ((cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
		return 0;
	return len;
}

/* The entity of a character XML gives a meaning to, or NULL. */
static const char *xml_entity(char c, int attr)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&apos;";
	/* In an attribute a parser would turn these into spaces. */
	case '\t':
		return attr ? "&#9;" : NULL;
	case '\n':
		return attr ? "&#10;" : NULL;
	case '\r':
		return "&#13;";
	}
	return NULL;
}

/*
 * Append @s escaped for XML text (@attr 0) or a double-quoted attribute
 * value (@attr 1). Bytes that are no XML character become U+FFFD, so any
 * label a user gave still makes a well-formed document.
 */
static void xml_put(struct ep_buf *b, const char *s, int attr)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t len = xml_char_len(p);
		const char *entity = len == 1 ? xml_entity((char)*p, attr) : NULL;

		if (entity)
			ep_buf_append(b, entity, strlen(entity));
		else if (len)
			ep_buf_append(b, (const char *)p, len);
		else
			ep_buf_append(b, replacement_char, sizeof(replacement_char) - 1);
		p += len ? len : 1;
	}
}

/* @before, then @s escaped as xml_put() does (@attr), then @after. */
static void xml_wrap(struct ep_buf *b, const char *before, const char *s, int attr,
		     const char *after)
{
	ep_buf_append(b, before, strlen(before));
	xml_put(b, s, attr);
	ep_buf_append(b, after, strlen(after));
}

/* <property name="@name" value="@value"/> */
static void xml_property(struct ep_buf *b, const char *indent, const char *name,
			 const char *value)
{
	ep_buf_printf(b, "%s", indent);
	xml_wrap(b, "<property name=\"", name, 1, "\" value=\"");
	xml_wrap(b, "", value, 1, "\"/>\n");
}

static void xml_number_property(struct ep_buf *b, const char *indent, const char *name,
				double value)
{
	char text[40];

	ep_format_double(value, text, sizeof(text));
	xml_property(b, indent, name, isfinite(value) ? text : "nan");
}

/* "regressed: 1612.3 MB/s, baseline 1879.38 (-14.2%), tolerance 10%" */
static char *regression_message(const struct embperf_report *report,
				const struct embperf_result *r)
{
	char now[40], then[40], tol[40];

	ep_report_format_value(r->value, now, sizeof(now));
	ep_report_format_value(r->baseline, then, sizeof(then));
	ep_format_double(report->tolerance_pct, tol, sizeof(tol));
	return ep_asprintf("regressed: %s %s, baseline %s (%+.1f%%), tolerance %s%%", now, r->unit,
			   then, (r->ratio - 1.0) * 100.0, tol);
}

static void junit_result_properties(struct ep_buf *b, const struct embperf_result *r)
{
	static const char indent[] = "        ";
	char n[24];

	ep_buf_printf(b, "      <properties>\n");
	xml_number_property(b, indent, "value", r->value);
	xml_property(b, indent, "unit", r->unit);
	xml_property(b, indent, "metric", r->metric);
	xml_property(b, indent, "statistic", ep_primary_name(r->primary));
	snprintf(n, sizeof(n), "%zu", r->stats.n);
	xml_property(b, indent, "samples", n);
	xml_property(b, indent, "better", ep_better_name(r->higher_better));
	if (r->labels[0])
		xml_property(b, indent, "labels", r->labels);
	if (r->has_baseline) {
		xml_number_property(b, indent, "baseline", r->baseline);
		xml_number_property(b, indent, "ratio", r->ratio);
	}
	if (r->verdict != EMBPERF_VERDICT_NONE)
		xml_property(b, indent, "verdict", ep_verdict_name(r->verdict));
	if (r->note[0])
		xml_property(b, indent, "note", r->note);
	ep_buf_printf(b, "      </properties>\n");
}

/* The line a person reads in the CI server: "1.23 ns (median of 11 samples) ...". */
static void junit_system_out(struct ep_buf *b, const struct embperf_result *r)
{
	char value[40];
	char *text;

	ep_report_format_value(r->value, value, sizeof(value));
	text = ep_asprintf("%s %s: %s %s (%s of %zu samples)%s%s%s%s", r->kernel, r->metric, value,
			   r->unit, ep_primary_name(r->primary), r->stats.n,
			   r->labels[0] ? "; " : "", r->labels, r->note[0] ? "; " : "", r->note);
	if (!text) {
		b->failed = 1;
		return;
	}
	xml_wrap(b, "      <system-out>", text, 0, "</system-out>\n");
	free(text);
}

static void junit_testcase(struct ep_buf *b, const struct embperf_report *report,
			   const struct embperf_result *r)
{
	xml_wrap(b, "    <testcase classname=\"", r->kernel, 1, "\" name=\"");
	/* The title when the suite gave one, else the metric and its labels. */
	xml_put(b, r->title[0] ? r->title : r->metric, 1);
	if (!r->title[0] && r->labels[0])
		xml_wrap(b, "[", r->labels, 1, "]");
	ep_buf_printf(b, "\">\n");
	junit_result_properties(b, r);
	if (r->verdict == EMBPERF_VERDICT_REGRESSED) {
		char *message = regression_message(report, r);

		if (!message) {
			b->failed = 1;
			return;
		}
		xml_wrap(b, "      <failure type=\"regression\" message=\"", message, 1, "\">");
		xml_wrap(b, "", message, 0, "</failure>\n");
		free(message);
	}
	junit_system_out(b, r);
	ep_buf_printf(b, "    </testcase>\n");
}

/* A baseline metric the report lacks: a failed test case of its own. */
static void junit_missing(struct ep_buf *b, const struct ep_missing *m)
{
	char value[40];

	ep_report_format_value(m->baseline, value, sizeof(value));
	xml_wrap(b, "    <testcase classname=\"missing\" name=\"", m->key, 1,
		 "\">\n      <failure type=\"missing\" message=\"in the baseline (");
	xml_put(b, value, 1);
	if (m->unit[0])
		xml_wrap(b, " ", m->unit, 1, "");
	ep_buf_printf(b, "), not in this report\"/>\n    </testcase>\n");
}

static void junit_suite_header(struct ep_buf *b, const struct embperf_report *report, int tests,
			       int failures)
{
	static const char indent[] = "      ";
	const char *host = embperf_report_sysinfo(report, "hostname");
	size_t stamp_len = strlen(report->created);

	ep_buf_printf(b, "  <testsuite name=\"embperf\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" timestamp=\"",
		      tests, failures);
	/* JUnit's timestamp has no zone designator; reports are in UTC. */
	if (stamp_len && report->created[stamp_len - 1] == 'Z')
		stamp_len--;
	ep_buf_append(b, report->created, stamp_len);
	ep_buf_printf(b, "\"");
	if (host)
		xml_wrap(b, " hostname=\"", host, 1, "\"");
	ep_buf_printf(b, ">\n    <properties>\n");
	xml_property(b, indent, "units", EP_REPORT_UNITS_NOTE);
	if (report->compared)
		xml_number_property(b, indent, "tolerance_pct", report->tolerance_pct);
	for (int i = 0; i < report->n_sysinfo; i++)
		xml_property(b, indent, report->sysinfo[i].key, report->sysinfo[i].value);
	ep_buf_printf(b, "    </properties>\n");
}

char *ep_report_render_junit(const struct embperf_report *report)
{
	int tests = report->n_results + report->n_missing;
	int failures = ep_report_failures(report);
	struct ep_buf b;

	ep_buf_init(&b);
	ep_buf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	ep_buf_printf(&b, "<testsuites name=\"embperf\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n",
		      tests, failures);
	junit_suite_header(&b, report, tests, failures);
	for (int i = 0; i < report->n_results; i++)
		junit_testcase(&b, report, report->results[i]);
	for (int i = 0; i < report->n_missing; i++)
		junit_missing(&b, &report->missing[i]);
	ep_buf_printf(&b, "  </testsuite>\n</testsuites>\n");
	return ep_buf_take(&b);
}

/* A character LAVA accepts in a test case name (and the shell leaves alone). */
static int lava_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '_';
}

/* FNV-1a: a short, stable digest that tells shortened names apart. */
static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * The LAVA name of @key, in @out (LAVA_NAME_MAX + 1 bytes): each run of
 * other characters becomes one '_', none at either end ("result" when
 * nothing is left); a name longer than LAVA accepts keeps its start and
 * ends in "-" and 8 hex digits of the whole key.
 */
static void lava_sanitise(const char *key, char *out)
{
	size_t len = 0;
	int pending = 0;

	for (const char *p = key; *p; p++) {
		if (!lava_name_char(*p)) {
			pending = len > 0;
			continue;
		}
		if (pending && len < LAVA_NAME_MAX)
			out[len++] = '_';
		pending = 0;
		if (len < LAVA_NAME_MAX)
			out[len++] = *p;
		else
			len = LAVA_NAME_MAX + 1; /* mark: too long */
	}
	if (len == 0) {
		snprintf(out, LAVA_NAME_MAX + 1, "result");
		return;
	}
	if (len > LAVA_NAME_MAX)
		snprintf(out + LAVA_NAME_MAX - LAVA_HASH_CHARS, LAVA_HASH_CHARS + 1, "-%08x",
			 (unsigned)fnv1a(key));
	else
		out[len] = '\0';
}

/* Is @name among the first @n names of @names? */
static int lava_taken(char (*names)[LAVA_NAME_MAX + 1], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* Make names[@n] differ from the names before it: "-2", "-3", ... at the end. */
static void lava_make_unique(char (*names)[LAVA_NAME_MAX + 1], int n)
{
	char base[LAVA_NAME_MAX + 1], suffix[16];

	if (!lava_taken(names, n, names[n]))
		return;
	memcpy(base, names[n], sizeof(base));
	for (int k = 2;; k++) {
		size_t suffix_len = (size_t)snprintf(suffix, sizeof(suffix), "-%d", k);
		size_t keep = strlen(base);

		if (keep > LAVA_NAME_MAX - suffix_len)
			keep = LAVA_NAME_MAX - suffix_len;
		snprintf(names[n], LAVA_NAME_MAX + 1, "%.*s%s", (int)keep, base, suffix);
		if (!lava_taken(names, n, names[n]))
			return;
	}
}

/* A unit as one shell word without quotes: other characters become '_'. */
static void lava_put_unit(struct ep_buf *b, const char *unit)
{
	for (const char *p = unit; *p; p++) {
		char c = lava_name_char(*p) || *p == '/' || *p == '%' ? *p : '_';

		ep_buf_append(b, &c, 1);
	}
}

/*
 * A measurement in plain decimal notation (LAVA stores a decimal of at most
 * 10 places; an exponent is not what its helper expects): six significant
 * digits.
 */
static void lava_put_measurement(struct ep_buf *b, double v)
{
	int decimals = 0;

	if (v != 0.0) {
		decimals = 5 - (int)floor(log10(fabs(v)));
		decimals = decimals < 0 ? 0 : decimals > 10 ? 10 : decimals;
	}
	ep_buf_printf(b, " --measurement %.*f", decimals, v);
}

static void lava_line(struct ep_buf *b, const char *name, int pass, double value, const char *unit)
{
	ep_buf_printf(b, "lava-test-case %s --result %s", name, pass ? "pass" : "fail");
	if (isfinite(value)) {
		lava_put_measurement(b, value);
		if (unit[0]) {
			ep_buf_printf(b, " --units ");
			lava_put_unit(b, unit);
		}
	}
	ep_buf_printf(b, "\n");
}

char *ep_report_render_lava(const struct embperf_report *report)
{
	int n = report->n_results + report->n_missing;
	char(*names)[LAVA_NAME_MAX + 1] = calloc((size_t)n, sizeof(*names));
	struct ep_buf b;

	if (!names)
		return NULL;
	ep_buf_init(&b);
	for (int i = 0; i < n; i++) {
		const struct embperf_result *r = i < report->n_results ? report->results[i] : NULL;
		const struct ep_missing *m = r ? NULL : &report->missing[i - report->n_results];
		char *key = r ? ep_result_key_dup(r) : NULL;

		if (r && !key) {
			b.failed = 1;
			break;
		}
		lava_sanitise(r ? key : m->key, names[i]);
		free(key);
		lava_make_unique(names, i);
		if (r)
			lava_line(&b, names[i], r->verdict != EMBPERF_VERDICT_REGRESSED, r->value,
				  r->unit);
		else
			lava_line(&b, names[i], 0, NAN, m->unit);
	}
	free(names);
	return ep_buf_take(&b);
}
