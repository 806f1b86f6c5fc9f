// SPDX-License-Identifier: MIT
/*
 * help.c - `embperf --help`, `embperf help COMMAND` and `embperf --version`.
 *
 * The exit codes listed here are a contract with scripts: keep them in step
 * with enum cli_exit (cli.h) and doc/cli.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
	"usage: embperf [OPTIONS] COMMAND [OPERANDS]\n"
	"\n"
	"Commands:\n"
	"  list                          kernels with their summaries\n"
	"  describe KERNEL               parameters and metrics of a kernel\n"
	"  run KERNEL [key=value ...]    run one kernel and print its results\n"
	"  suite NAME|FILE [key=value ...]\n"
	"                                run a suite; key=value applies to every entry\n"
	"                                whose kernel has that parameter\n"
	"  suites [NAME]                 list the built-in suites, or print one\n"
	"  compare BASELINE.json CURRENT.json\n"
	"                                judge CURRENT against BASELINE\n"
	"  render REPORT.json            print a saved report in another format\n"
	"  guide PROFILE [key=value ...] -o DIR\n"
	"                                the performance guide: every table the board\n"
	"                                profile makes possible, as markdown and HTML\n"
	"  merge A.json B.json ...       one report of several\n"
	"  serve [--listen ADDR[:PORT]] [--allow CIDR]...\n"
	"                                the peer the net.* kernels measure against\n"
	"  plot REPORT.json              SVG of the trial logs of its searches\n"
	"  help [COMMAND]                this text, or the help of a command\n"
	"\n"
	"Options (before or after the command):\n"
	"  --format=FMT       table (default), markdown, json, csv, junit (JUnit XML)\n"
	"                     or lava (lava-test-case lines)\n"
	"  -o, --output=FILE  save the report to FILE (written atomically) instead of stdout;\n"
	"                     without --format, .json/.csv/.md/.txt/.xml choose the format\n"
	"  --budget=DURATION  stop measuring after DURATION (30s, 2m, 500ms); partial\n"
	"                     results are still reported, exit code 5\n"
	"  --cpu=N            pin the runs to CPU N\n"
	"  --baseline=FILE    with run/suite: compare with a JSON report; the exit\n"
	"                     code becomes the verdict\n"
	"  --tolerance=PCT    allowed change before a metric counts as regressed (10)\n"
	"  --plot=FILE        with run/suite: also draw the searches' trial logs as SVG\n"
	"  --plan             with guide: print what would run and for how long; run nothing\n"
	"  -q, --quiet        no notes, progress or log messages on stderr\n"
	"  -v, --verbose      log messages on stderr (-vv: debug)\n"
	"  -h, --help         help; `embperf COMMAND --help` for a command\n"
	"  --version          versions and the optional features built in\n"
	"\n"
	"Exit codes:\n"
	"  0    success\n"
	"  1    compare: a metric regressed or is missing from the current report\n"
	"  2    usage error, unknown kernel/suite/parameter or bad value\n"
	"  3    a run failed (kernel error, out of memory, ...)\n"
	"  4    file error: cannot read, write or parse a report or a suite\n"
	"  5    time budget exhausted before completion (partial results reported)\n"
	"  130  cancelled (SIGINT, SIGTERM)\n"
	"\n"
	"Bandwidths are in MB/s with MB = 10^6 bytes, as lmbench and STREAM report them.\n"
	"See doc/cli.md for suites, suite files and examples.\n";

/**
 * struct command_help - help of one command.
 * @name: command.
 * @text: what it prints, usage line first.
 */
struct command_help {
	const char *name;
	const char *text;
};

static const struct command_help command_helps[] = {
	{ "serve",
	  "usage: embperf serve [--listen ADDR[:PORT]] [--allow CIDR]... [--max-rate RATE]\n"
	  "                     [--max-duration TIME] [--for TIME]\n"
	  "\n"
	  "Run the peer of the network kernels (net.udp.stream, ...) on this host, the\n"
	  "far side of the measurement (doc/methodology-net.md). It serves one client at a\n"
	  "time (another is told \"busy\"), sends test traffic only to the client that\n"
	  "asked for it, and logs connections on stderr (not with -q).\n"
	  "\n"
	  "  --listen ADDR[:PORT]  address and TCP port to listen on (0.0.0.0:5301)\n"
	  "  --allow CIDR          accept clients from this block only (repeatable:\n"
	  "                        198.18.0.0/15, 192.168.1.7); default: any client\n"
	  "  --max-rate RATE       the highest rate a client may ask for (10Gbit)\n"
	  "  --max-duration TIME   the longest trial a client may ask for (300s)\n"
	  "  --for TIME            serve this long, then exit 0 (default: until\n"
	  "                        interrupted; Ctrl-C exits 0)\n" },
	{ "list", "usage: embperf list\n"
		  "\n"
		  "Print every kernel of this build with a one-line summary.\n" },
	{ "describe",
	  "usage: embperf describe KERNEL\n"
	  "\n"
	  "Print the kernel's parameters (name, type, default, accepted range, unit,\n"
	  "help), first its own, then the engine's that every kernel accepts\n"
	  "(repetitions, ...), and its metrics (name, unit, the statistic reported as\n"
	  "the value, whether higher or lower is better, help).\n" },
	{ "run",
	  "usage: embperf run KERNEL [key=value ...] [--format=FMT] [-o FILE]\n"
	  "                  [--budget=DURATION] [--cpu=N] [--baseline=FILE [--tolerance=PCT]]\n"
	  "                  [--plot=FILE.svg]\n"
	  "\n"
	  "Run one kernel with the given parameters (see `embperf describe KERNEL`)\n"
	  "and print its results, one row per metric: value (min X, max Y).\n"
	  "Sizes take binary suffixes (16k = 16384 bytes), durations ns/us/ms/s.\n"
	  "\n"
	  "Example: embperf run mem.bw op=rd size=8M repetitions=5\n"
	  "Exit codes: 0, 1 (with --baseline), 2, 3, 4, 5, 130 (see `embperf --help`).\n" },
	{ "suite",
	  "usage: embperf suite NAME|FILE [key=value ...] [--format=FMT] [-o FILE]\n"
	  "                    [--budget=DURATION] [--cpu=N] [--baseline=FILE [--tolerance=PCT]]\n"
	  "                    [--plot=FILE.svg]\n"
	  "\n"
	  "Run every entry of a built-in suite (see `embperf suites`) or of a suite\n"
	  "file, and print one report. Each key=value applies to every entry whose\n"
	  "kernel has that parameter (e.g. repetitions=5); it is an error when no entry\n"
	  "has it. A failed entry does not stop the others (exit code 3); a spent\n"
	  "budget does (exit code 5, the results so far are reported).\n"
	  "\n"
	  "Suite file format, one entry per line ('#' starts a comment line):\n"
	  "  @description One line shown by `embperf suites`\n"
	  "  TITLE KERNEL [key=value ...]\n"
	  "  @include NAME|FILE [key=value ...] [@prefix=TEXT]\n"
	  "TITLE is the row name; \"{metric}\" and \"{LABEL}\" in it are replaced by each\n"
	  "result's metric and label values; \"-\" lets the library name the row.\n"
	  "@include runs another suite's entries in place, TEXT before their row names,\n"
	  "its key=value applied where a kernel has the key. A value may say ${NAME} or\n"
	  "${NAME:-DEFAULT}: NAME=VALUE on the command line gives it; durations=full\n"
	  "applies the key=value written full:KEY=VALUE.\n" },
	{ "suites",
	  "usage: embperf suites [NAME]\n"
	  "\n"
	  "Without NAME, list the built-in suites: name, number of entries, description.\n"
	  "With NAME, print that suite's text, a starting point for a suite file.\n" },
	{ "compare",
	  "usage: embperf compare BASELINE.json CURRENT.json [--tolerance=PCT]\n"
	  "                      [--format=FMT] [-o FILE]\n"
	  "\n"
	  "Match the results of two JSON reports by row name and judge each current\n"
	  "value against its baseline: a bandwidth regresses when it falls by more\n"
	  "than PCT percent (default 10), a latency when it rises by more. Prints the\n"
	  "current report with its verdicts; lists regressed and missing metrics on\n"
	  "stderr.\n"
	  "Two guides (reports of `embperf guide`, or their folders) with -o DIR/ (a\n"
	  "folder): DIR/compare.md, compare.html and compare.json, the guide with both\n"
	  "values and the change in every cell.\n"
	  "Exit codes: 0 pass; 1 a metric regressed or is missing from CURRENT;\n"
	  "2 usage error; 4 a file cannot be read or is not a report.\n" },
	{ "guide",
	  "usage: embperf guide PROFILE|GUIDE [key=value ...] -o DIR [--baseline=FORMER]\n"
	  "                    [--tolerance=PCT] [--budget=DURATION] [--cpu=N] [--plan]\n"
	  "\n"
	  "Run every table of a performance guide that the board profile makes possible\n"
	  "and write DIR/guide.json (one report), DIR/guide.md and DIR/guide.html (the\n"
	  "guide's tables in its order, with plots). What the profile lacks is a row\n"
	  "\"not measured: why\"; a bad profile is refused before anything runs, naming\n"
	  "the line. PROFILE: key = value lines in [network], [audio], [storage] and\n"
	  "[parameters] sections (doc/cli.md, \"Board profiles\"), or a built-in guide's\n"
	  "name (ti-am62px, xilinx-lmbench, microblaze-netperf); key=value operands add\n"
	  "to it. --baseline=FORMER (a guide.json or its folder) adds DIR/compare.md and\n"
	  "compare.html: both values and the change in every cell. --plan prints what\n"
	  "would run and its estimated time, and runs nothing. Ctrl-C keeps what was\n"
	  "measured.\n"
	  "Exit codes: 0; 1 (with --baseline) a regression; 2 a refused profile value;\n"
	  "3 a row failed (the guide is written); 4 a profile or guide file error;\n"
	  "5 budget; 130 cancelled (the guide is written).\n" },
	{ "merge",
	  "usage: embperf merge A.json B.json ... [-o FILE] [--format=FMT]\n"
	  "\n"
	  "One report of the results of several, in order, with the system information\n"
	  "of the first; a row name found in two of them is refused. Operands may be\n"
	  "guide folders.\n"
	  "Exit codes: 0; 2 usage error; 4 a file cannot be read, or a row name twice.\n" },
	{ "plot",
	  "usage: embperf plot REPORT.json [-o FILE.svg]\n"
	  "\n"
	  "Draw, for every result of a JSON report that carries a trial log (a searched\n"
	  "value such as a zero-loss rate), the configuration each trial offered in the\n"
	  "order run with pass (green) and fail (red) markers and the value found as a\n"
	  "dashed line, and beside it the outcome against the configuration (e.g. the\n"
	  "loss curve). Writes SVG to FILE (atomically) or to stdout. `run` and `suite`\n"
	  "draw the same with --plot=FILE.\n"
	  "Exit codes: 0; 2 usage error; 4 the report cannot be read, has no trial log\n"
	  "(nothing is written), or FILE cannot be written.\n" },
	{ "render",
	  "usage: embperf render REPORT.json [--format=FMT] [-o FILE]\n"
	  "\n"
	  "Print a report saved with --format=json in another format, with the\n"
	  "verdicts of the comparison it carries (a run with --baseline saves them):\n"
	  "e.g. JUnit XML for a CI server from a report a board wrote. A guide's\n"
	  "report with -o DIR/ (a folder): its guide.md, guide.html and plots again.\n"
	  "Exit codes: 0 done; 3 nothing to render (JUnit or LAVA of a report\n"
	  "without results); 4 the file cannot be read or is not a report.\n" },
	{ "help", "usage: embperf help [COMMAND]\n" },
};

/**
 * cli_print_usage() - print the general help.
 * @out: stream.
 */
void cli_print_usage(FILE *out)
{
	fputs(usage_text, out);
}

/**
 * cli_print_command_help() - print the help of one command.
 * @out:     stream.
 * @command: command name.
 *
 * Return: 0, or -ENOENT for an unknown command.
 */
int cli_print_command_help(FILE *out, const char *command)
{
	for (size_t i = 0; i < sizeof(command_helps) / sizeof(command_helps[0]); i++) {
		if (strcmp(command_helps[i].name, command) == 0) {
			fputs(command_helps[i].text, out);
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * cli_print_version() - print the versions and the features built in.
 * @out: stream.
 *
 * The command and the library it loads may differ in version: both are shown.
 */
void cli_print_version(FILE *out)
{
	static const char *const features[] = { "alsa", "pcap", "libnl", "perf", "io_uring", "json" };

	fprintf(out, "embperf %s (libembperf %s)\nfeatures:", EMBPERF_VERSION_STRING,
		embperf_version_string());
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		fprintf(out, " %s=%s", features[i], embperf_has_feature(features[i]) ? "yes" : "no");
	fputc('\n', out);
}
