// SPDX-License-Identifier: MIT
/*
 * cmd_info.c - the commands that describe rather than run: `list`,
 * `describe KERNEL` and `suites [NAME]`. All of it comes from the library's
 * kernel descriptions and the suite texts, so a new kernel or suite shows up
 * here without a change to this file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "suite.h"

/* Text of a field, "" when the library has none. */
static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/**
 * cmd_list() - `embperf list`: every kernel with its summary.
 * @opt: options (no operands).
 *
 * Return: CLI_EXIT_OK, or CLI_EXIT_USAGE when operands were given.
 */
int cmd_list(const struct cli_options *opt)
{
	int n = embperf_kernel_count();
	int width = 6;

	if (opt->argc != 0) {
		cli_error("list takes no operands, got '%s'", opt->argv[0]);
		return CLI_EXIT_USAGE;
	}
	for (int i = 0; i < n; i++) {
		int len = (int)strlen(embperf_kernel_name(i));

		if (len > width)
			width = len;
	}
	for (int i = 0; i < n; i++) {
		const char *name = embperf_kernel_name(i);

		printf("%-*s  %s\n", width, name, or_empty(embperf_kernel_summary(name)));
	}
	return CLI_EXIT_OK;
}

/* Name the kernels that exist, as the library does for embperf_bench_new(). */
static int unknown_kernel(const char *kernel)
{
	char list[1024] = "";
	size_t used = 0;

	for (int i = 0; i < embperf_kernel_count() && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
					 embperf_kernel_name(i));
	cli_error("unknown kernel '%s' (accepted: %s)", kernel, list);
	return CLI_EXIT_USAGE;
}

/* Column widths of a table of parameters or metrics. */
struct columns {
	int width[EMBPERF_INFO_GROUP + 1];
};

/* Field text of a parameter or metric: the library fills a caller's buffer. */
#define FIELD_MAX 512
typedef int (*info_fn)(const char *kernel, int index, enum embperf_info field, char *buf,
		       size_t size);

/* The field's text in @buf, "" when the library has none. */
static const char *field_text(info_fn info, const char *kernel, int index,
			      enum embperf_info field, char *buf)
{
	if (info(kernel, index, field, buf, FIELD_MAX) < 0)
		buf[0] = '\0';
	return buf;
}

static void measure(struct columns *c, info_fn info, const char *kernel, int count,
		    const enum embperf_info *fields, int n_fields)
{
	for (int i = 0; i < count; i++) {
		for (int f = 0; f < n_fields; f++) {
			char buf[FIELD_MAX];
			int len = (int)strlen(field_text(info, kernel, i, fields[f], buf));

			if (len > c->width[fields[f]])
				c->width[fields[f]] = len;
		}
	}
}

static void print_row(const struct columns *c, const char *const *cells,
		      const enum embperf_info *fields, int n_fields)
{
	fputs("  ", stdout);
	for (int f = 0; f < n_fields; f++) {
		if (f == n_fields - 1)
			printf("%s\n", cells[f]);
		else
			printf("%-*s  ", c->width[fields[f]], cells[f]);
	}
}

static const enum embperf_info param_fields[] = {
	EMBPERF_INFO_NAME,  EMBPERF_INFO_TYPE, EMBPERF_INFO_DEFAULT,
	EMBPERF_INFO_RANGE, EMBPERF_INFO_UNIT, EMBPERF_INFO_HELP,
};
#define N_PARAM_FIELDS ((int)(sizeof(param_fields) / sizeof(param_fields[0])))

static const enum embperf_info metric_fields[] = {
	EMBPERF_INFO_NAME,   EMBPERF_INFO_UNIT, EMBPERF_INFO_PRIMARY,
	EMBPERF_INFO_BETTER, EMBPERF_INFO_HELP,
};
#define N_METRIC_FIELDS ((int)(sizeof(metric_fields) / sizeof(metric_fields[0])))

/* Parameters of one group ("kernel" or "engine"), under a heading. */
static void print_params(const char *kernel, int count, const struct columns *c,
			 const char *group, const char *heading)
{
	static const char *const header[] = { "NAME", "TYPE", "DEFAULT", "RANGE", "UNIT", "HELP" };
	char texts[N_PARAM_FIELDS][FIELD_MAX], buf[FIELD_MAX];
	int printed = 0;

	for (int i = 0; i < count; i++) {
		const char *cells[N_PARAM_FIELDS];

		field_text(embperf_kernel_param_info, kernel, i, EMBPERF_INFO_GROUP, buf);
		if (strcmp(buf, group) != 0)
			continue;
		if (!printed++) {
			printf("\n%s:\n", heading);
			print_row(c, header, param_fields, N_PARAM_FIELDS);
		}
		for (int f = 0; f < N_PARAM_FIELDS; f++)
			cells[f] = field_text(embperf_kernel_param_info, kernel, i, param_fields[f],
					      texts[f]);
		print_row(c, cells, param_fields, N_PARAM_FIELDS);
	}
}

static void print_metrics(const char *kernel, int count, const struct columns *c)
{
	static const char *const header[] = { "NAME", "UNIT", "PRIMARY", "BETTER", "HELP" };
	char texts[N_METRIC_FIELDS][FIELD_MAX];

	printf("\nMetrics:\n");
	print_row(c, header, metric_fields, N_METRIC_FIELDS);
	for (int i = 0; i < count; i++) {
		const char *cells[N_METRIC_FIELDS];

		for (int f = 0; f < N_METRIC_FIELDS; f++)
			cells[f] = field_text(embperf_kernel_metric_info, kernel, i,
					      metric_fields[f], texts[f]);
		print_row(c, cells, metric_fields, N_METRIC_FIELDS);
	}
}

static void init_widths(struct columns *c)
{
	/* At least as wide as the headings. */
	memset(c, 0, sizeof(*c));
	c->width[EMBPERF_INFO_NAME] = 4;
	c->width[EMBPERF_INFO_TYPE] = 4;
	c->width[EMBPERF_INFO_DEFAULT] = 7;
	c->width[EMBPERF_INFO_RANGE] = 5;
	c->width[EMBPERF_INFO_UNIT] = 4;
	c->width[EMBPERF_INFO_PRIMARY] = 7;
	c->width[EMBPERF_INFO_BETTER] = 6;
}

/**
 * cmd_describe() - `embperf describe KERNEL`: parameters and metrics.
 * @opt: options; operand: the kernel.
 *
 * Return: CLI_EXIT_OK, or CLI_EXIT_USAGE for a missing or unknown kernel.
 */
int cmd_describe(const struct cli_options *opt)
{
	struct columns pc, mc;
	const char *kernel, *summary;
	int n_params, n_metrics;

	if (opt->argc != 1) {
		cli_error("describe needs one kernel name (see `embperf list`)");
		return CLI_EXIT_USAGE;
	}
	kernel = opt->argv[0];
	summary = embperf_kernel_summary(kernel);
	n_params = embperf_kernel_param_count(kernel);
	n_metrics = embperf_kernel_metric_count(kernel);
	if (!summary || n_params < 0 || n_metrics < 0) {
		return unknown_kernel(kernel);
	}
	init_widths(&pc);
	init_widths(&mc);
	measure(&pc, embperf_kernel_param_info, kernel, n_params, param_fields, N_PARAM_FIELDS);
	measure(&mc, embperf_kernel_metric_info, kernel, n_metrics, metric_fields,
		N_METRIC_FIELDS);
	printf("%s - %s\n", kernel, summary);
	print_params(kernel, n_params, &pc, "kernel", "Parameters of the kernel");
	print_params(kernel, n_params, &pc, "engine",
		     "Parameters of the engine (for every kernel of this kind)");
	print_metrics(kernel, n_metrics, &mc);
	printf("\nSet parameters as key=value: embperf run %s key=value ...\n", kernel);
	return CLI_EXIT_OK;
}

static int list_suites(void)
{
	char err[256];
	int width = 4;

	for (int i = 0; i < suite_builtin_count; i++) {
		int len = (int)strlen(suite_builtins[i].name);

		if (len > width)
			width = len;
	}
	printf("%-*s  %7s  %s\n", width, "NAME", "ENTRIES", "DESCRIPTION");
	for (int i = 0; i < suite_builtin_count; i++) {
		struct suite *s;

		if (suite_parse(suite_builtins[i].name, suite_builtins[i].text, &s, err,
				sizeof(err)) < 0) {
			/* A built-in suite that does not parse is a bug: say so. */
			cli_error("%s", err);
			return CLI_EXIT_FILE;
		}
		printf("%-*s  %7d  %s\n", width, suite_builtins[i].name, s->n_entries,
		       s->description);
		suite_free(s);
	}
	printf("\nShow one with `embperf suites NAME`; run it with `embperf suite NAME`.\n");
	return CLI_EXIT_OK;
}

/**
 * cmd_suites() - `embperf suites [NAME]`: the built-in suites, or the text
 * of one (to copy into a suite file and edit).
 * @opt: options; optional operand: a suite name.
 *
 * Return: CLI_EXIT_OK, or CLI_EXIT_USAGE for an unknown suite.
 */
int cmd_suites(const struct cli_options *opt)
{
	const char *text;

	if (opt->argc == 0)
		return list_suites();
	if (opt->argc > 1) {
		cli_error("suites takes at most one suite name");
		return CLI_EXIT_USAGE;
	}
	text = suite_builtin_text(opt->argv[0]);
	if (!text) {
		cli_error("unknown suite '%s' (see `embperf suites`)", opt->argv[0]);
		return CLI_EXIT_USAGE;
	}
	fputs(text, stdout);
	return CLI_EXIT_OK;
}
