/* SPDX-License-Identifier: MIT */
/*
 * suite.h - suites: named lists of kernel runs that make one report.
 *
 * A suite is text, one entry per line (see doc/cli.md, "Suite files"):
 *
 *   # a comment
 *   @description One line that `embperf suites` shows
 *   TITLE KERNEL [key=value ...] [@metric=NAME[,NAME...]]
 *   = NEWTITLE TITLE
 *
 * TITLE is the row name of the entry's results; it may hold "{metric}" and
 * "{LABEL}" templates, which embperf_report_add() expands, or be "-" to let
 * the library derive "kernel/metric[labels]". "@metric=" keeps only the
 * results of the metrics it names (a kernel that reports several metrics
 * gives a data sheet's row with one of them); it sets the engine's
 * 'metrics' parameter, as "metrics=NAME,..." would. An alias line ("=") reports
 * the results of the entry titled TITLE (above it) a second time under
 * NEWTITLE, without running anything again: data sheets list some figures
 * under two names. The built-in suites are the files of bench/suites/,
 * compiled in by embed_suites.c.
 */
#ifndef EMBPERF_BENCH_SUITE_H
#define EMBPERF_BENCH_SUITE_H

#include <stddef.h>

/**
 * struct suite_entry - one line of a suite.
 * @title:    row name template; NULL when the line said "-".
 * @kernel:   kernel name, as written (not checked by the parser).
 * @params:   "key=value" operands, as written.
 * @n_params: number of @params.
 * @metrics:  "@metric=NAME[,NAME...]": the metrics that become rows, as
 *            written (comma-separated); NULL for all of them.
 * @line:     line number in the suite text, for messages.
 */
struct suite_entry {
	const char *title;
	const char *kernel;
	const char **params;
	int n_params;
	const char *metrics;
	int line;
};

/**
 * struct suite_alias - one "= NEWTITLE TITLE" line.
 * @title: the new row name (template rules as an entry's title).
 * @entry: index in &struct suite.entries of the entry titled TITLE.
 * @line:  line number in the suite text, for messages.
 */
struct suite_alias {
	const char *title;
	int entry;
	int line;
};

/**
 * struct suite - a parsed suite. The strings point into @text.
 * @origin:      built-in name or file path, for messages.
 * @description: the @description line, "" when there is none.
 * @entries:     the entries, in order.
 * @n_entries:   number of @entries.
 * @aliases:     the alias lines, in order.
 * @n_aliases:   number of @aliases.
 * @text:        private copy of the text the entries point into.
 */
struct suite {
	char *origin;
	const char *description;
	struct suite_entry *entries;
	int n_entries;
	struct suite_alias *aliases;
	int n_aliases;
	char *text;
};

/**
 * struct suite_builtin - a suite compiled into the command.
 * @name: what `embperf suite NAME` accepts.
 * @text: the suite file's content.
 */
struct suite_builtin {
	const char *name;
	const char *text;
};

/* Generated at build time from bench/suites/NAME.suite (embed_suites.c). */
extern const struct suite_builtin suite_builtins[];
extern const int suite_builtin_count;

/**
 * suite_builtin_text() - text of a built-in suite.
 * @name: suite name.
 *
 * Return: the text, or NULL when there is no built-in suite of that name.
 */
const char *suite_builtin_text(const char *name);

/**
 * suite_parse() - parse suite text.
 * @origin:   name or path, used in messages ("ORIGIN:LINE: ...").
 * @text:     the text.
 * @out:      receives the suite (free with suite_free()).
 * @err:      receives a message on failure.
 * @err_size: size of @err.
 *
 * Return: 0; -EBADMSG for a syntax error (the message gives origin, line
 * and what is expected); -ENOMEM.
 */
int suite_parse(const char *origin, const char *text, struct suite **out, char *err,
		size_t err_size);

/**
 * suite_load_file() - read and parse a suite file.
 * @path:     file.
 * @out:      receives the suite.
 * @err:      receives a message naming the file on failure.
 * @err_size: size of @err.
 *
 * Return: 0; a negative errno from reading (-ENOENT, -EACCES, -EISDIR, ...);
 * -EBADMSG for a file over 1 MiB or holding NUL bytes; or as suite_parse().
 */
int suite_load_file(const char *path, struct suite **out, char *err, size_t err_size);

/** suite_free() - release a suite; NULL is a no-op. */
void suite_free(struct suite *suite);

#endif /* EMBPERF_BENCH_SUITE_H */
