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
 *   @include NAME [key=value ...] [@prefix=PREFIX]
 *
 * TITLE is the row name of the entry's results; it may hold "{metric}" and
 * "{LABEL}" templates, which embperf_report_add() expands, or be "-" to let
 * the library derive "kernel/metric[labels]" ("PREFIX/-": the same after
 * PREFIX/). "@metric=" keeps only the
 * results of the metrics it names (a kernel that reports several metrics
 * gives a data sheet's row with one of them); it sets the engine's
 * 'metrics' parameter, as "metrics=NAME,..." would. An alias line ("=") reports
 * the results of the entry titled TITLE (above it) a second time under
 * NEWTITLE, without running anything again: data sheets list some figures
 * under two names. "@include" puts the entries of another suite (built-in,
 * or a file named relative to the including file) in its place: its
 * key=value apply to each of them whose kernel has the key, as the command
 * line's do, and PREFIX goes before each of their row names, so that the
 * same suite run on two media gives rows of different names. The built-in
 * suites are the files of bench/suites/, compiled in by embed_suites.c.
 *
 * A guide (guide.c) is a suite whose file also lays out its tables and
 * plots with the layout directives (@table, @key, @column, @plot,
 * @unmeasured, @text): the parser keeps them, in order, for the guide;
 * `embperf suite` runs the entries and ignores them. Values may name a
 * variable, "${name}" or "${name:-default}", which the command resolves
 * (the guide from the board profile, `suite` from its key=value operands);
 * a key=value whose key starts with "full:" or "short:" applies only at
 * those durations.
 */
#ifndef EMBPERF_BENCH_SUITE_H
#define EMBPERF_BENCH_SUITE_H

#include <stddef.h>

/**
 * struct suite_entry - one line of a suite (or of a suite it includes).
 * @title:       row name template; NULL when the line said "-".
 * @kernel:      kernel name, as written (not checked by the parser).
 * @params:      "key=value" operands, as written.
 * @n_params:    number of @params.
 * @metrics:     "@metric=NAME[,NAME...]": the metrics that become rows, as
 *               written (comma-separated); NULL for all of them.
 * @line:        line number in @origin, for messages.
 * @origin:      the suite (built-in name or path) the line is in.
 * @prefix:      the @prefix= of the @include lines it came through,
 *               outermost first; "" for a line of the suite itself.
 * @overrides:   "key=value" of those @include lines, innermost first (so
 *               that the outer ones, applied last, win); each applies when
 *               the entry's kernel has the key.
 * @n_overrides: number of @overrides.
 * @include:     index in &struct suite.includes of the top-level @include
 *               it came through; -1 for a line of the suite itself.
 */
struct suite_entry {
	const char *title;
	const char *kernel;
	const char **params;
	int n_params;
	const char *metrics;
	int line;
	const char *origin;
	const char *prefix;
	const char **overrides;
	int n_overrides;
	int include;
};

/**
 * struct suite_alias - one "= NEWTITLE TITLE" line.
 * @title:  the new row name (template rules as an entry's title).
 * @entry:  index in &struct suite.entries of the entry titled TITLE.
 * @line:   line number in @origin, for messages.
 * @origin:  the suite the line is in.
 * @prefix:  as &struct suite_entry.prefix.
 * @include: as &struct suite_entry.include.
 */
struct suite_alias {
	const char *title;
	int entry;
	int line;
	const char *origin;
	const char *prefix;
	int include;
};

/**
 * struct suite_include - one top-level "@include" line.
 * @name:        the suite named, as written.
 * @prefix:      its @prefix= ("" without one).
 * @params:      its key=value operands.
 * @n_params:    number of @params.
 * @line:        its line.
 * @first_entry: index of its first entry in &struct suite.entries.
 * @n_entries:   how many entries it put there.
 * @suite:       the included suite, parsed (owned; its strings are what
 *               the entries point to).
 */
struct suite_include {
	const char *name;
	const char *prefix;
	const char **params;
	int n_params;
	int line;
	int first_entry;
	int n_entries;
	struct suite *suite;
};

/**
 * struct suite_directive - a layout directive of a guide, in file order.
 * @name:     "table", "key", "column", "plot", "unmeasured" or "text".
 * @args:     the rest of the line, trimmed.
 * @line:     its line.
 * @position: number of entries above it (where it stands among them).
 */
struct suite_directive {
	const char *name;
	const char *args;
	int line;
	int position;
};

/**
 * struct suite - a parsed suite. The strings point into @text, or into the
 * included suites' texts, or into @owned.
 * @origin:       built-in name or file path, for messages.
 * @description:  the @description line, "" when there is none.
 * @entries:      the entries, in order, those of includes in their place.
 * @n_entries:    number of @entries.
 * @aliases:      the alias lines, in order.
 * @n_aliases:    number of @aliases.
 * @includes:     the top-level @include lines.
 * @n_includes:   number of @includes.
 * @directives:   the layout directives.
 * @n_directives: number of @directives.
 * @owned:        strings made while parsing (joined prefixes), freed with it.
 * @n_owned:      number of @owned.
 * @text:         private copy of the text the entries point into.
 */
struct suite {
	char *origin;
	const char *description;
	struct suite_entry *entries;
	int n_entries;
	struct suite_alias *aliases;
	int n_aliases;
	struct suite_include *includes;
	int n_includes;
	struct suite_directive *directives;
	int n_directives;
	char **owned;
	int n_owned;
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
 * An @include names a built-in suite or a file; a relative path is taken
 * from the folder of @origin when @origin is a file path, else from the
 * current folder. Includes nest up to 8 deep; a suite that includes itself
 * is refused.
 *
 * Return: 0; -EBADMSG for a syntax error (the message gives origin, line
 * and what is expected), an include that cannot be read or is circular,
 * or two entries whose row names (prefix and title) are the same; -ENOMEM.
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

/**
 * suite_open() - a built-in suite by name, else a suite file by path.
 * @name:     built-in name or path.
 * @out:      receives the suite.
 * @err:      receives a message on failure.
 * @err_size: size of @err.
 *
 * Return: 0; -ENOENT (and no message) when @name is no built-in suite and
 * does not look like a path (no '/', no ".suite", no such file): the caller
 * says so with the list; otherwise as suite_parse() and suite_load_file().
 */
int suite_open(const char *name, struct suite **out, char *err, size_t err_size);

/** suite_free() - release a suite; NULL is a no-op. */
void suite_free(struct suite *suite);

/* entry.c: from a suite entry to a configured bench, and to rows. */

#include "embperf.h"

/**
 * struct entry_env - what an entry's values depend on.
 * @full:   1 at full durations (the "full:" key=value apply, not "short:").
 * @lookup: the value of variable @name, or NULL when it has none.
 * @user:   passed to @lookup.
 */
struct entry_env {
	int full;
	const char *(*lookup)(void *user, const char *name);
	void *user;
};

/** kernel_accepts() - whether @kernel has a parameter named @key. Return: 1 or 0. */
int kernel_accepts(const char *kernel, const char *key);
/**
 * entry_expand() - one key=value as it applies: 1 (in @out), 0 (not at
 * these durations), -ENOENT (@missing names a variable without a value),
 * -EINVAL (a "${" without "}"), -ENAMETOOLONG.
 */
int entry_expand(const struct entry_env *env, const char *assignment, char *out, size_t size,
		 char *missing, size_t missing_size);
/**
 * entry_setup() - set a bench's parameters from an entry: its key=value,
 * @metric=, then its @include lines' (where the kernel has the key).
 * Return: 0; -ENOENT (the variable's name in @err); another -errno (the
 * library's message in @err).
 */
int entry_setup(embperf_bench *b, const struct suite_entry *e, const struct entry_env *env,
		char *err, size_t err_size);
/** entry_check_includes() - every top-level @include's key is some entry's parameter. Return: 0 or -EINVAL. */
int entry_check_includes(const struct suite *s, char *err, size_t err_size);
/** entry_title() - @prefix and @title as a malloc'd template; NULL for a NULL @title or ENOMEM. */
char *entry_title(const char *prefix, const char *title);
/**
 * entry_add_rows() - a bench's results as rows named by @title, or, when it
 * is NULL, by @prefix and the derived key. Return: rows added or -errno.
 */
int entry_add_rows(embperf_report *report, const embperf_bench *b, const char *prefix,
		   const char *title);

/**
 * suite_fail() - write the message of an error of a suite or profile file
 * into @err (at most @err_size bytes, terminated).
 * Return: @code, so that a parser can return suite_fail(...).
 */
int suite_fail(char *err, size_t err_size, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* EMBPERF_BENCH_SUITE_H */
