/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the parts of the `embperf` command share: options, exit
 * codes, and the helpers each command uses.
 *
 * The command uses only the public API (embperf.h) of the shared library.
 */
#ifndef EMBPERF_BENCH_CLI_H
#define EMBPERF_BENCH_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "embperf.h"

/*
 * Exit codes. Scripts rely on them: keep them stable and in step with
 * doc/cli.md and the --help text.
 */
/* The most --allow options of `embperf serve`. */
#define CLI_MAX_ALLOW 32

enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_REGRESSION = 1, /* compare found regressions or missing metrics */
	CLI_EXIT_USAGE = 2,      /* usage error, unknown kernel/parameter/value */
	CLI_EXIT_RUN = 3,        /* a run failed (kernel error, -ENOMEM, ...) */
	CLI_EXIT_FILE = 4,       /* cannot read/write/parse a report or suite */
	CLI_EXIT_BUDGET = 5,     /* time budget exhausted before completion */
	CLI_EXIT_CANCELLED = 130,
};

/** cli_exit_of_run() - the exit code of a run's return value (0, -ECANCELED, -ETIME, other). */
int cli_exit_of_run(int err);
/**
 * cli_exit_worse() - the more serious of two exit codes, in the order
 * scripts should see them: cancelled, usage, file, budget, run, regression.
 */
int cli_exit_worse(int a, int b);

/**
 * struct cli_options - the command line, once parsed.
 * @format:        rendering of reports (enum embperf_format).
 * @output_path:   -o FILE, or NULL for stdout.
 * @format_given:  --format was given (plot refuses it).
 * @plot_path:     --plot FILE (run, suite): an SVG of the trial logs, or NULL.
 * @plan:          --plan (guide): print the plan, run nothing.
 * @baseline_path: --baseline=FILE, or NULL.
 * @tolerance_pct: --tolerance, in percent.
 * @budget_ns:     --budget, 0 for none.
 * @cpu:           --cpu, -1 for none.
 * @quiet:         -q: no notes, no progress, no log.
 * @verbose:       -v count: 1 info, 2 debug log messages.
 * @listen:        serve --listen ADDR[:PORT], or NULL.
 * @allow:         serve --allow CIDR, each.
 * @n_allow:       their number.
 * @max_rate:      serve --max-rate, or NULL.
 * @max_duration:  serve --max-duration, or NULL.
 * @serve_for_ns:  serve --for, 0: until interrupted.
 * @argc:          operands after the command name.
 * @argv:          the operands (KERNEL, key=value, NAME, FILE...).
 */
struct cli_options {
	enum embperf_format format;
	const char *output_path;
	int format_given;
	const char *plot_path;
	int plan;
	const char *baseline_path;
	double tolerance_pct;
	uint64_t budget_ns;
	int cpu;
	int quiet;
	int verbose;
	const char *listen;
	const char *allow[32];
	int n_allow;
	const char *max_rate;
	const char *max_duration;
	uint64_t serve_for_ns;
	int argc;
	char **argv;
};

/* args.c: parsing of option values and operands. */

/** cli_parse_format() - "table", "markdown", "json", "csv", "junit" or "lava". Return: 0 or -EINVAL. */
int cli_parse_format(const char *text, enum embperf_format *format);
/** cli_format_from_path() - format implied by .json, .csv, .md, .txt, .xml. Return: 0 or -ENOENT. */
int cli_format_from_path(const char *path, enum embperf_format *format);
/** cli_parse_duration_ns() - "10s", "1.5ms", "2m", a bare number of seconds. Return: 0 or -EINVAL. */
int cli_parse_duration_ns(const char *text, uint64_t *ns);
/** cli_parse_tolerance() - "10", "2.5", "10%": 0 to 1000 percent. Return: 0 or -EINVAL. */
int cli_parse_tolerance(const char *text, double *pct);
/** cli_parse_cpu() - a CPU number, 0 or more. Return: 0 or -EINVAL. */
int cli_parse_cpu(const char *text, int *cpu);
/** cli_split_assignment() - split "key=value"; @key receives a copy of the key. Return: 0 or -EINVAL. */
int cli_split_assignment(const char *arg, char *key, size_t key_size, const char **value);

/* messages.c: everything the command says on stderr. */

/** cli_error() - print "embperf: MESSAGE" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** cli_note() - like cli_error(), unless -q was given. */
void cli_note(const struct cli_options *opt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* session.c: the context of a run: budget, CPU, log, progress, signals. */

/**
 * struct cli_progress - where a suite is, for the progress line.
 * @index: 0-based entry being run.
 * @count: entries in all.
 * @title: row name of the entry being run.
 */
struct cli_progress {
	int index;
	int count;
	const char *title;
};

/**
 * cli_session_open() - create the context with the options applied.
 * @opt:      options.
 * @progress: progress state the callback reads, or NULL for no progress line.
 * @ctx:      receives the context.
 *
 * Return: CLI_EXIT_OK, or an exit code after printing why.
 */
int cli_session_open(const struct cli_options *opt, struct cli_progress *progress,
		     embperf_ctx **ctx);
/** cli_session_close() - restore the signal handlers, clear the progress line, free @ctx. */
void cli_session_close(embperf_ctx *ctx);
/** cli_progress_clear() - erase the progress line, if one is shown. */
void cli_progress_clear(void);

/* output.c: reports out, baselines in, verdicts. */

/**
 * cli_emit_report() - render @report to stdout, or save it to -o FILE.
 * Return: CLI_EXIT_OK or CLI_EXIT_FILE.
 */
int cli_emit_report(const struct cli_options *opt, embperf_report *report);
/**
 * cli_load_report() - load a JSON report; on failure print why.
 * Return: the report, or NULL (the caller exits with CLI_EXIT_FILE).
 */
embperf_report *cli_load_report(embperf_ctx *ctx, const char *path);
/**
 * cli_judge() - compare @report with @baseline and list what failed on stderr.
 * Return: CLI_EXIT_OK (pass), CLI_EXIT_REGRESSION, or CLI_EXIT_USAGE (bad tolerance).
 */
int cli_judge(const struct cli_options *opt, embperf_report *report,
	      const embperf_report *baseline);

/* plot.c: SVG pictures of the trial logs of searches. */

/**
 * cli_plot_report() - draw every trial log of @report as SVG into @path
 * (written atomically), or on stdout when @path is NULL. A report without a
 * trial log is refused with a message naming @source (the report's file,
 * or "the run"), and nothing is written.
 * Return: CLI_EXIT_OK, CLI_EXIT_FILE or CLI_EXIT_RUN.
 */
int cli_plot_report(const struct cli_options *opt, const embperf_report *report,
		    const char *source, const char *path);

struct suite;
/**
 * cli_open_suite() - find and parse a suite: built-in first, then a file.
 * Return: CLI_EXIT_OK; CLI_EXIT_USAGE (unknown name, the built-in ones
 * listed); CLI_EXIT_FILE (the message printed).
 */
int cli_open_suite(const char *name, struct suite **out);

/* Commands: each returns an exit code. */
int cmd_list(const struct cli_options *opt);
int cmd_describe(const struct cli_options *opt);
int cmd_suites(const struct cli_options *opt);
int cmd_run(const struct cli_options *opt);
int cmd_suite(const struct cli_options *opt);
int cmd_compare(const struct cli_options *opt);
int cmd_render(const struct cli_options *opt);
int cmd_serve(const struct cli_options *opt);
int cmd_plot(const struct cli_options *opt);
int cmd_guide(const struct cli_options *opt);
int cmd_merge(const struct cli_options *opt);

/* help.c */

/** cli_print_usage() - the general help (commands, options, exit codes) on @out. */
void cli_print_usage(FILE *out);
/** cli_print_command_help() - help of one command. Return: 0, or -ENOENT for an unknown command. */
int cli_print_command_help(FILE *out, const char *command);
/** cli_print_version() - versions of the command and the library, and the features built in. */
void cli_print_version(FILE *out);

#endif /* EMBPERF_BENCH_CLI_H */
