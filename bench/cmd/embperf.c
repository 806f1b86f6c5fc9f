// SPDX-License-Identifier: MIT
/*
 * embperf.c - the `embperf` command: parse the command line, hand over to
 * the command, exit with its code.
 *
 *   embperf [OPTIONS] COMMAND [OPERANDS]
 *
 * Options may come before or after the command and its operands. The exit
 * codes are listed in cli.h, in `embperf --help` and in doc/cli.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Options that only some commands take (bits of struct command.accepts). */
enum {
	OPT_OUTPUT = 1 << 0,    /* -o, --format */
	OPT_BASELINE = 1 << 1,  /* --baseline */
	OPT_TOLERANCE = 1 << 2, /* --tolerance */
	OPT_SESSION = 1 << 3,   /* --budget, --cpu */
	OPT_SERVE = 1 << 4,     /* --listen, --allow, --max-rate, --max-duration, --for */
	OPT_PLOT = 1 << 5,      /* --plot */
	OPT_DRY = 1 << 6,       /* --plan */
};

/**
 * struct command - one command of the command line.
 * @name:    as typed.
 * @run:     implementation; returns an exit code.
 * @accepts: OPT_* options it takes besides -q, -v and --help.
 */
struct command {
	const char *name;
	int (*run)(const struct cli_options *opt);
	unsigned accepts;
};

static const struct command commands[] = {
	{ "list", cmd_list, 0 },
	{ "describe", cmd_describe, 0 },
	{ "run", cmd_run, OPT_OUTPUT | OPT_BASELINE | OPT_TOLERANCE | OPT_SESSION | OPT_PLOT },
	{ "suite", cmd_suite, OPT_OUTPUT | OPT_BASELINE | OPT_TOLERANCE | OPT_SESSION | OPT_PLOT },
	{ "suites", cmd_suites, 0 },
	{ "compare", cmd_compare, OPT_OUTPUT | OPT_TOLERANCE },
	{ "render", cmd_render, OPT_OUTPUT },
	{ "serve", cmd_serve, OPT_SERVE },
	{ "plot", cmd_plot, OPT_OUTPUT },
	{ "guide", cmd_guide, OPT_OUTPUT | OPT_BASELINE | OPT_TOLERANCE | OPT_SESSION | OPT_DRY },
	{ "merge", cmd_merge, OPT_OUTPUT },
};

/* Long-only options get codes above the character range. */
enum {
	LONG_FORMAT = 256,
	LONG_BUDGET,
	LONG_CPU,
	LONG_BASELINE,
	LONG_TOLERANCE,
	LONG_VERSION,
	LONG_LISTEN,
	LONG_ALLOW,
	LONG_MAX_RATE,
	LONG_MAX_DURATION,
	LONG_FOR,
	LONG_PLOT,
	LONG_PLAN,
};

static const struct option long_options[] = {
	{ "format", required_argument, NULL, LONG_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "budget", required_argument, NULL, LONG_BUDGET },
	{ "cpu", required_argument, NULL, LONG_CPU },
	{ "baseline", required_argument, NULL, LONG_BASELINE },
	{ "tolerance", required_argument, NULL, LONG_TOLERANCE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, LONG_VERSION },
	{ "listen", required_argument, NULL, LONG_LISTEN },
	{ "allow", required_argument, NULL, LONG_ALLOW },
	{ "max-rate", required_argument, NULL, LONG_MAX_RATE },
	{ "max-duration", required_argument, NULL, LONG_MAX_DURATION },
	{ "for", required_argument, NULL, LONG_FOR },
	{ "plot", required_argument, NULL, LONG_PLOT },
	{ "plan", no_argument, NULL, LONG_PLAN },
	{ NULL, 0, NULL, 0 },
};

/**
 * struct parsed - the command line beyond struct cli_options.
 * @help:    --help was given.
 * @version: --version was given.
 * @given:   OPT_* options that were given, to check the command takes them.
 * @format:  --format was given (else -o FILE's extension may choose).
 */
struct parsed {
	int help;
	int version;
	unsigned given;
	int format;
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int bad_value(const char *option, const char *value, const char *accepted)
{
	cli_error("%s: invalid value '%s' (accepted: %s)", option, value, accepted);
	return CLI_EXIT_USAGE;
}

/* The options of `embperf serve`; the peer checks their values. */
static int apply_serve_option(int code, const char *arg, struct cli_options *opt)
{
	switch (code) {
	case LONG_LISTEN:
		opt->listen = arg;
		break;
	case LONG_ALLOW:
		if (opt->n_allow == CLI_MAX_ALLOW)
			return bad_value("--allow", arg, "at most 32 --allow options");
		opt->allow[opt->n_allow++] = arg;
		break;
	case LONG_MAX_RATE:
		opt->max_rate = arg;
		break;
	case LONG_MAX_DURATION:
		opt->max_duration = arg;
		break;
	default:
		if (cli_parse_duration_ns(arg, &opt->serve_for_ns) < 0 || !opt->serve_for_ns)
			return bad_value("--for", arg, "a duration above 0 such as 30s, 10m");
	}
	return CLI_EXIT_OK;
}

/* Apply one option with a value. Return: CLI_EXIT_OK or CLI_EXIT_USAGE. */
static int apply_option(int code, const char *arg, struct cli_options *opt, struct parsed *p)
{
	switch (code) {
	case LONG_FORMAT:
		p->given |= OPT_OUTPUT;
		p->format = 1;
		if (cli_parse_format(arg, &opt->format) < 0)
			return bad_value("--format", arg, "table, markdown, json, csv, junit, lava");
		return CLI_EXIT_OK;
	case 'o':
		p->given |= OPT_OUTPUT;
		opt->output_path = arg;
		return CLI_EXIT_OK;
	case LONG_BUDGET:
		p->given |= OPT_SESSION;
		if (cli_parse_duration_ns(arg, &opt->budget_ns) < 0)
			return bad_value("--budget", arg,
					 "a duration such as 30s, 1.5m, 500ms; a bare number is seconds");
		return CLI_EXIT_OK;
	case LONG_CPU:
		p->given |= OPT_SESSION;
		if (cli_parse_cpu(arg, &opt->cpu) < 0)
			return bad_value("--cpu", arg, "a CPU number, 0 or more");
		return CLI_EXIT_OK;
	case LONG_PLOT:
		p->given |= OPT_PLOT;
		opt->plot_path = arg;
		return CLI_EXIT_OK;
	case LONG_BASELINE:
		p->given |= OPT_BASELINE;
		opt->baseline_path = arg;
		return CLI_EXIT_OK;
	case LONG_LISTEN:
	case LONG_ALLOW:
	case LONG_MAX_RATE:
	case LONG_MAX_DURATION:
	case LONG_FOR:
		p->given |= OPT_SERVE;
		return apply_serve_option(code, arg, opt);
	case LONG_TOLERANCE:
		p->given |= OPT_TOLERANCE;
		if (cli_parse_tolerance(arg, &opt->tolerance_pct) < 0)
			return bad_value("--tolerance", arg, "a percentage from 0 to 1000");
		return CLI_EXIT_OK;
	}
	return CLI_EXIT_USAGE;
}

/* Report an option getopt refused; @code is '?' or ':'. */
static int option_error(int code, char **argv)
{
	const char *given = argv[optind - 1];

	if (code == ':')
		cli_error("option '%s' needs a value (see `embperf --help`)", given);
	else if (optopt)
		cli_error("unknown option '-%c' (see `embperf --help`)", optopt);
	else
		cli_error("unknown option '%s' (see `embperf --help`)", given);
	return CLI_EXIT_USAGE;
}

static int parse_options(int argc, char **argv, struct cli_options *opt, struct parsed *p)
{
	int code;

	opterr = 0; /* messages are ours, in the command's format */
	while ((code = getopt_long(argc, argv, ":o:qvh", long_options, NULL)) != -1) {
		int status = CLI_EXIT_OK;

		switch (code) {
		case 'q':
			opt->quiet = 1;
			break;
		case 'v':
			opt->verbose++;
			break;
		case 'h':
			p->help = 1;
			break;
		case LONG_VERSION:
			p->version = 1;
			break;
		case LONG_PLAN:
			p->given |= OPT_DRY;
			opt->plan = 1;
			break;
		case '?':
		case ':':
			return option_error(code, argv);
		default:
			status = apply_option(code, optarg, opt, p);
		}
		if (status != CLI_EXIT_OK)
			return status;
	}
	return CLI_EXIT_OK;
}

/* Refuse options the command does not take, rather than ignore them. */
static int check_options(const struct command *cmd, unsigned given)
{
	static const struct {
		unsigned bit;
		const char *names;
	} groups[] = {
		{ OPT_OUTPUT, "-o/--format" },
		{ OPT_BASELINE, "--baseline" },
		{ OPT_TOLERANCE, "--tolerance" },
		{ OPT_SESSION, "--budget/--cpu" },
		{ OPT_SERVE, "--listen/--allow/--max-rate/--max-duration/--for" },
		{ OPT_PLOT, "--plot" },
		{ OPT_DRY, "--plan" },
	};

	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		if ((given & groups[i].bit) && !(cmd->accepts & groups[i].bit)) {
			cli_error("%s does not apply to `%s` (see `embperf help %s`)",
				  groups[i].names, cmd->name, cmd->name);
			return CLI_EXIT_USAGE;
		}
	}
	return CLI_EXIT_OK;
}

/* `embperf help [COMMAND]`. */
static int help_command(int argc, char **argv)
{
	if (argc == 0) {
		cli_print_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (cli_print_command_help(stdout, argv[0]) < 0) {
		cli_error("unknown command '%s' (see `embperf --help`)", argv[0]);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

static int dispatch(const struct cli_options *opt, const struct parsed *p, const char *name)
{
	const struct command *cmd;
	int status;

	if (strcmp(name, "help") == 0)
		return help_command(opt->argc, opt->argv);
	cmd = find_command(name);
	if (!cmd) {
		cli_error("unknown command '%s' (see `embperf --help`)", name);
		return CLI_EXIT_USAGE;
	}
	if (p->help) {
		cli_print_command_help(stdout, name);
		return CLI_EXIT_OK;
	}
	status = check_options(cmd, p->given);
	if (status != CLI_EXIT_OK)
		return status;
	return cmd->run(opt);
}

int main(int argc, char **argv)
{
	struct cli_options opt = {
		.format = EMBPERF_FORMAT_TEXT,
		.tolerance_pct = 10.0,
		.cpu = -1,
	};
	struct parsed p = { 0 };
	int status = parse_options(argc, argv, &opt, &p);

	if (status != CLI_EXIT_OK)
		return status;
	if (p.version) {
		cli_print_version(stdout);
		return CLI_EXIT_OK;
	}
	if (optind >= argc) {
		if (p.help) {
			cli_print_usage(stdout);
			return CLI_EXIT_OK;
		}
		cli_print_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	/* -o report.json without --format: the extension says what is wanted. */
	if (opt.output_path && !p.format)
		cli_format_from_path(opt.output_path, &opt.format);
	opt.format_given = p.format;
	opt.argc = argc - optind - 1;
	opt.argv = argv + optind + 1;
	status = dispatch(&opt, &p, argv[optind]);
	if (fflush(stdout) != 0 && status == CLI_EXIT_OK) {
		cli_error("cannot write to standard output");
		status = CLI_EXIT_FILE;
	}
	return status;
}
