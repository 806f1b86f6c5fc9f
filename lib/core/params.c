// SPDX-License-Identifier: MIT
/*
 * params.c - named parameters: unit parsing ("64M", "1.5ms", "100Mbit",
 * "48k", "1k..64M"), range checks, canonical text, and error messages
 * that name the parameter, the value and what is accepted.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "params.h"
#include "util.h"

#define TEXT_MAX 4096

struct suffix {
	const char *text;
	int64_t mult;
};

/* Sizes use binary multiples, as lmbench does ("1m" = 1048576). */
static const struct suffix size_suffixes[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", 1LL << 10 }, { "kb", 1LL << 10 }, { "kib", 1LL << 10 },
	{ "m", 1LL << 20 }, { "mb", 1LL << 20 }, { "mib", 1LL << 20 },
	{ "g", 1LL << 30 }, { "gb", 1LL << 30 }, { "gib", 1LL << 30 },
	{ "t", 1LL << 40 }, { "tb", 1LL << 40 }, { "tib", 1LL << 40 },
	{ NULL, 0 },
};

static const struct suffix count_suffixes[] = {
	{ "", 1 }, { "k", 1000 }, { "M", 1000000 }, { "G", 1000000000 }, { NULL, 0 },
};

static const struct suffix duration_suffixes[] = {
	{ "", 1000000000 }, { "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 },
	{ "ms", 1000000 }, { "s", 1000000000 }, { "min", 60000000000LL },
	{ "h", 3600000000000LL }, { NULL, 0 },
};

static const struct suffix rate_suffixes[] = {
	{ "", 1 }, { "bit", 1 }, { "bps", 1 }, { "bit/s", 1 },
	{ "k", 1000 }, { "kbit", 1000 }, { "kbps", 1000 }, { "kbit/s", 1000 },
	{ "M", 1000000 }, { "Mbit", 1000000 }, { "Mbps", 1000000 }, { "Mbit/s", 1000000 },
	{ "G", 1000000000 }, { "Gbit", 1000000000 }, { "Gbps", 1000000000 },
	{ "Gbit/s", 1000000000 }, { NULL, 0 },
};

static const struct suffix freq_suffixes[] = {
	{ "", 1 }, { "Hz", 1 }, { "k", 1000 }, { "kHz", 1000 },
	{ "M", 1000000 }, { "MHz", 1000000 }, { NULL, 0 },
};

static const char *const type_names[] = {
	[EP_PT_INT] = "int", [EP_PT_SIZE] = "size", [EP_PT_SIZE_RANGE] = "size-range",
	[EP_PT_DURATION] = "duration", [EP_PT_DOUBLE] = "double", [EP_PT_ENUM] = "enum",
	[EP_PT_BOOL] = "bool", [EP_PT_RATE] = "rate", [EP_PT_FREQ] = "freq",
	[EP_PT_STRING] = "string",
};

/* What a malformed value of each type should have looked like. */
static const char *const type_forms[] = {
	[EP_PT_INT] = "an integer with optional suffix k, M, G (x1000)",
	[EP_PT_SIZE] = "a byte count with optional suffix k, M, G, T (1k = 1024)",
	[EP_PT_SIZE_RANGE] = "a size, or MIN..MAX, sizes with optional suffix k, M, G, T (1k = 1024)",
	[EP_PT_DURATION] = "a duration with unit ns, us, ms, s, min, h (a bare number is seconds)",
	[EP_PT_DOUBLE] = "a real number, optionally with % (5% = 0.05)",
	[EP_PT_ENUM] = "one of the listed choices",
	[EP_PT_BOOL] = "0, 1, no, yes, off, on, false, true",
	[EP_PT_RATE] = "a bit rate with optional suffix bit, kbit, Mbit, Gbit (x1000)",
	[EP_PT_FREQ] = "a frequency with optional suffix Hz, k, kHz, M, MHz",
	[EP_PT_STRING] = "text",
};

const char *ep_ptype_name(enum ep_ptype type)
{
	return type <= EP_PT_STRING ? type_names[type] : "unknown";
}

static void format_int_value(const struct ep_param_desc *d, int64_t v, char *buf, size_t size)
{
	switch (d->type) {
	case EP_PT_SIZE:
	case EP_PT_SIZE_RANGE:
		ep_format_size(v, buf, size);
		break;
	case EP_PT_DURATION:
		ep_format_duration(v, buf, size);
		break;
	case EP_PT_RATE:
		if (v && v % 1000000000 == 0)
			snprintf(buf, size, "%" PRId64 "Gbit", v / 1000000000);
		else if (v && v % 1000000 == 0)
			snprintf(buf, size, "%" PRId64 "Mbit", v / 1000000);
		else if (v && v % 1000 == 0)
			snprintf(buf, size, "%" PRId64 "kbit", v / 1000);
		else
			snprintf(buf, size, "%" PRId64 "bit", v);
		break;
	case EP_PT_FREQ:
		if (v && v % 1000 == 0)
			snprintf(buf, size, "%" PRId64 "k", v / 1000);
		else
			snprintf(buf, size, "%" PRId64, v);
		break;
	default:
		snprintf(buf, size, "%" PRId64, v);
		break;
	}
}

void ep_param_accepted(const struct ep_param_desc *d, char *buf, size_t size)
{
	char lo[48], hi[48];

	switch (d->type) {
	case EP_PT_ENUM:
		snprintf(buf, size, "%s", d->choices ? d->choices : "");
		break;
	case EP_PT_BOOL:
		snprintf(buf, size, "0|1");
		break;
	case EP_PT_STRING:
		snprintf(buf, size, "text");
		break;
	case EP_PT_DOUBLE:
		ep_format_double(d->dmin, lo, sizeof(lo));
		ep_format_double(d->dmax, hi, sizeof(hi));
		snprintf(buf, size, "%s..%s", lo, hi);
		break;
	default:
		format_int_value(d, d->min, lo, sizeof(lo));
		format_int_value(d, d->max, hi, sizeof(hi));
		snprintf(buf, size, "%s..%s", lo, hi);
		break;
	}
}

static const struct suffix *suffixes_of(enum ep_ptype type)
{
	switch (type) {
	case EP_PT_SIZE:
	case EP_PT_SIZE_RANGE:
		return size_suffixes;
	case EP_PT_DURATION:
		return duration_suffixes;
	case EP_PT_RATE:
		return rate_suffixes;
	case EP_PT_FREQ:
		return freq_suffixes;
	default:
		return count_suffixes;
	}
}

static const struct suffix *find_suffix(enum ep_ptype type, const char *text)
{
	const struct suffix *s = suffixes_of(type);
	/* Byte sizes ignore case ("64m" as lmbench writes it, "64MB"). */
	int nocase = type == EP_PT_SIZE || type == EP_PT_SIZE_RANGE;

	for (; s->text; s++)
		if (nocase ? !strcasecmp(s->text, text) : !strcmp(s->text, text))
			return s;
	return NULL;
}

/*
 * Parse "[-]DIGITS[.DIGITS][SUFFIX]" of @len bytes. Whole numbers are scaled
 * exactly in 64-bit integers so overflow is detected; fractions go through
 * a double and are rounded to the nearest base unit.
 * Return: 0, -EINVAL (malformed), -EDOM (not a whole number of base
 * units) or -ERANGE (overflow).
 */
static int parse_scaled(enum ep_ptype type, const char *text, size_t len, int64_t *out)
{
	char num[128], *end;
	const struct suffix *sfx;
	size_t n = 0;
	int negative = 0, fraction = 0, digits = 0;

	if (len >= sizeof(num))
		return -EINVAL;
	if (text[0] == '-') {
		negative = 1;
		n = 1;
	}
	for (; n < len; n++) {
		if (text[n] >= '0' && text[n] <= '9')
			digits++;
		else if (text[n] == '.' && !fraction)
			fraction = 1;
		else
			break;
	}
	if (!digits)
		return -EINVAL;
	memcpy(num, text + n, len - n);
	num[len - n] = '\0';
	sfx = find_suffix(type, num);
	if (!sfx)
		return -EINVAL;
	memcpy(num, text, n);
	num[n] = '\0';

	if (fraction) {
		double v = strtod(num, &end) * (double)sfx->mult;

		if (*end || !isfinite(v) || fabs(v) >= 9.2e18)
			return -ERANGE;
		if (fabs(v - nearbyint(v)) > 1e-6)
			return -EDOM; /* "1.5" bytes, "0.3" of a count */
		*out = llround(v);
		return 0;
	}
	errno = 0;
	unsigned long long mag = strtoull(num + negative, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || mag > (unsigned long long)INT64_MAX)
		return -ERANGE;
	if (__builtin_mul_overflow((int64_t)mag, sfx->mult, out))
		return -ERANGE;
	if (negative)
		*out = -*out;
	return 0;
}

static int parse_bool(const char *text, int64_t *out)
{
	static const char *const yes[] = { "1", "yes", "on", "true", NULL };
	static const char *const no[] = { "0", "no", "off", "false", NULL };

	for (int i = 0; yes[i]; i++) {
		if (!strcasecmp(text, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(text, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_enum(const char *choices, const char *text, int64_t *out)
{
	size_t len = strlen(text);
	int index = 0;

	for (const char *p = choices; p && *p; index++) {
		size_t n = strcspn(p, "|");

		if (n == len && !strncmp(p, text, n)) {
			*out = index;
			return 0;
		}
		p += n;
		if (*p == '|')
			p++;
	}
	return -EINVAL;
}

static int parse_double(const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text)
		return -EINVAL;
	if (*end == '%' && end[1] == '\0') {
		v /= 100.0;
		end++;
	}
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	*out = v;
	return 0;
}

static int fail(char *err, size_t errlen, int code, const struct ep_param_desc *d,
		const char *text, const char *why)
{
	char accepted[256];

	ep_param_accepted(d, accepted, sizeof(accepted));
	snprintf(err, errlen, "parameter '%s': value '%s' %s; accepted: %s, %s", d->name, text,
		 why, type_forms[d->type], accepted);
	return code;
}

/* Parse one integer-like value (not a range) and check its bounds. */
static int parse_integer(const struct ep_param_desc *d, const char *text, size_t len,
			 int64_t *v, char *err, size_t errlen, const char *whole)
{
	int rc;

	if (d->type == EP_PT_BOOL)
		rc = parse_bool(text, v);
	else if (d->type == EP_PT_ENUM)
		rc = parse_enum(d->choices, text, v);
	else
		rc = parse_scaled(d->type, text, len, v);
	if (rc == -ERANGE)
		return fail(err, errlen, rc, d, whole, "overflows");
	if (rc == -EDOM)
		return fail(err, errlen, -EINVAL, d, whole, "is not a whole number of base units");
	if (rc)
		return fail(err, errlen, rc, d, whole, "is malformed");
	if (d->type != EP_PT_BOOL && d->type != EP_PT_ENUM && (*v < d->min || *v > d->max))
		return fail(err, errlen, -ERANGE, d, whole, "is out of range");
	return 0;
}

static int set_text(const struct ep_param_desc *d, struct ep_value *out, const char *text)
{
	char buf[128], lo[48], hi[48];

	if (d->type == EP_PT_STRING) {
		out->text = ep_strdup(text);
	} else if (d->type == EP_PT_DOUBLE) {
		ep_format_double(out->d, buf, sizeof(buf));
		out->text = ep_strdup(buf);
	} else if (d->type == EP_PT_BOOL) {
		out->text = ep_strdup(out->i ? "1" : "0");
	} else if (d->type == EP_PT_ENUM) {
		const char *p = d->choices;

		for (int64_t i = 0; i < out->i; i++)
			p += strcspn(p, "|") + 1;
		out->text = strndup(p, strcspn(p, "|"));
	} else if (d->type == EP_PT_SIZE_RANGE && out->hi != out->i) {
		format_int_value(d, out->i, lo, sizeof(lo));
		format_int_value(d, out->hi, hi, sizeof(hi));
		snprintf(buf, sizeof(buf), "%s..%s", lo, hi);
		out->text = ep_strdup(buf);
	} else {
		format_int_value(d, out->i, buf, sizeof(buf));
		out->text = ep_strdup(buf);
	}
	return out->text ? 0 : -ENOMEM;
}

int ep_param_parse(const struct ep_param_desc *d, const char *text, struct ep_value *out,
		   char *err, size_t errlen)
{
	struct ep_value v = { 0 };
	int rc;

	if (!text)
		return fail(err, errlen, -EINVAL, d, "(null)", "is missing");
	if (strlen(text) > TEXT_MAX)
		return fail(err, errlen, -EINVAL, d, "...", "is too long");
	if (d->type == EP_PT_STRING) {
		rc = 0;
	} else if (d->type == EP_PT_DOUBLE) {
		rc = parse_double(text, &v.d);
		if (rc == -ERANGE)
			return fail(err, errlen, rc, d, text, "overflows");
		if (rc)
			return fail(err, errlen, rc, d, text, "is malformed");
		if (v.d < d->dmin || v.d > d->dmax)
			return fail(err, errlen, -ERANGE, d, text, "is out of range");
	} else if (d->type == EP_PT_SIZE_RANGE && strstr(text, "..")) {
		const char *dots = strstr(text, "..");

		rc = parse_integer(d, text, (size_t)(dots - text), &v.i, err, errlen, text);
		if (!rc)
			rc = parse_integer(d, dots + 2, strlen(dots + 2), &v.hi, err, errlen, text);
		if (rc)
			return rc;
		if (v.hi < v.i)
			return fail(err, errlen, -ERANGE, d, text,
				    "has its lower bound above its upper bound");
	} else {
		rc = parse_integer(d, text, strlen(text), &v.i, err, errlen, text);
		if (rc)
			return rc;
		v.hi = v.i;
	}
	if (d->type != EP_PT_DOUBLE)
		v.d = (double)v.i;
	if (set_text(d, &v, text))
		return -ENOMEM;
	*out = v;
	return 0;
}

void ep_value_free(struct ep_value *v)
{
	free(v->text);
	v->text = NULL;
}
