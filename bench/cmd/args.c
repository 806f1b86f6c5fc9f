// SPDX-License-Identifier: MIT
/*
 * args.c - parsing of the command's option values and operands.
 *
 * Kernel parameters are parsed by the library (embperf_bench_set()); this
 * file only handles what belongs to the command itself: the output format,
 * the budget, the tolerance and the CPU.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Format names as the command line spells them, in enum embperf_format order. */
static const struct {
	const char *name;
	enum embperf_format format;
} format_names[] = {
	{ "table", EMBPERF_FORMAT_TEXT },
	{ "text", EMBPERF_FORMAT_TEXT }, /* alias */
	{ "markdown", EMBPERF_FORMAT_MARKDOWN },
	{ "md", EMBPERF_FORMAT_MARKDOWN }, /* alias */
	{ "json", EMBPERF_FORMAT_JSON },
	{ "csv", EMBPERF_FORMAT_CSV },
	{ "junit", EMBPERF_FORMAT_JUNIT },
	{ "lava", EMBPERF_FORMAT_LAVA },
};

/**
 * cli_parse_format() - parse an output format name.
 * @text:   "table", "markdown", "json", "csv", "junit" or "lava" ("text" and
 *          "md" are aliases).
 * @format: receives the format.
 *
 * Return: 0, or -EINVAL for any other text.
 */
int cli_parse_format(const char *text, enum embperf_format *format)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
		if (strcmp(text, format_names[i].name) == 0) {
			*format = format_names[i].format;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * cli_format_from_path() - the format a file name's extension implies.
 * @path:   file name.
 * @format: receives the format.
 *
 * Return: 0 for .json, .csv, .md, .txt and .xml (JUnit); -ENOENT otherwise.
 */
int cli_format_from_path(const char *path, enum embperf_format *format)
{
	static const struct {
		const char *ext;
		enum embperf_format format;
	} exts[] = {
		{ ".json", EMBPERF_FORMAT_JSON },
		{ ".csv", EMBPERF_FORMAT_CSV },
		{ ".md", EMBPERF_FORMAT_MARKDOWN },
		{ ".txt", EMBPERF_FORMAT_TEXT },
		{ ".xml", EMBPERF_FORMAT_JUNIT },
	};
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return -ENOENT;
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		if (strcmp(dot, exts[i].ext) == 0) {
			*format = exts[i].format;
			return 0;
		}
	}
	return -ENOENT;
}

/* Nanoseconds per unit of a duration suffix; 0 when unknown. */
static double duration_unit_ns(const char *suffix)
{
	static const struct {
		const char *suffix;
		double ns;
	} units[] = {
		{ "", 1e9 }, { "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(suffix, units[i].suffix) == 0)
			return units[i].ns;
	return 0.0;
}

/**
 * cli_parse_duration_ns() - parse a duration.
 * @text: a non-negative number with an optional unit: ns, us, ms, s, m (or
 *        min), h; a bare number counts seconds, as the library's durations do.
 * @ns:   receives nanoseconds.
 *
 * Return: 0, or -EINVAL for malformed, negative or too large values.
 */
int cli_parse_duration_ns(const char *text, uint64_t *ns)
{
	char *end;
	double value, unit_ns, total_ns;

	errno = 0;
	value = strtod(text, &end);
	if (end == text || errno || !isfinite(value) || value < 0.0)
		return -EINVAL;
	unit_ns = duration_unit_ns(end);
	if (unit_ns == 0.0)
		return -EINVAL;
	total_ns = value * unit_ns;
	/* 2^63 ns is about 292 years: anything beyond is a typo. */
	if (total_ns >= 9.2e18)
		return -EINVAL;
	*ns = (uint64_t)(total_ns + 0.5);
	return 0;
}

/**
 * cli_parse_tolerance() - parse a compare tolerance.
 * @text: percent, 0 to 1000, with an optional trailing '%'.
 * @pct:  receives the percentage.
 *
 * Return: 0, or -EINVAL.
 */
int cli_parse_tolerance(const char *text, double *pct)
{
	char *end;
	double value;

	errno = 0;
	value = strtod(text, &end);
	if (end == text || errno || !isfinite(value))
		return -EINVAL;
	if (*end == '%')
		end++;
	if (*end != '\0' || value < 0.0 || value > 1000.0)
		return -EINVAL;
	*pct = value;
	return 0;
}

/**
 * cli_parse_cpu() - parse a CPU number.
 * @text: decimal, 0 or more.
 * @cpu:  receives it.
 *
 * Whether the CPU exists is for embperf_ctx_set_cpu() to say.
 *
 * Return: 0, or -EINVAL.
 */
int cli_parse_cpu(const char *text, int *cpu)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (end == text || *end != '\0' || errno || value < 0 || value > INT_MAX)
		return -EINVAL;
	*cpu = (int)value;
	return 0;
}

/**
 * cli_split_assignment() - split a "key=value" operand.
 * @arg:      the operand.
 * @key:      receives the key, NUL-terminated.
 * @key_size: size of @key.
 * @value:    receives a pointer into @arg, after the '='.
 *
 * Return: 0, or -EINVAL when there is no '=', the key is empty or too long.
 */
int cli_split_assignment(const char *arg, char *key, size_t key_size, const char **value)
{
	const char *eq = strchr(arg, '=');
	size_t len;

	if (!eq || eq == arg)
		return -EINVAL;
	len = (size_t)(eq - arg);
	if (len >= key_size)
		return -EINVAL;
	memcpy(key, arg, len);
	key[len] = '\0';
	*value = eq + 1;
	return 0;
}
