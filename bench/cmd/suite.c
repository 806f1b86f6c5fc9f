// SPDX-License-Identifier: MIT
/*
 * suite.c - parse suite text (built-in or from a file) into entries.
 *
 * The parser checks only the syntax, reads the suites an @include names
 * and puts their entries in its place. Whether a kernel exists and accepts
 * a parameter is the library's to say, when the command prepares the
 * entries (cmd_run.c, guide.c): the rules then stay in one place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suite.h"

/* Suites are a few hundred lines; a bigger file is not a suite. */
#define SUITE_FILE_MAX_BYTES (1024 * 1024)
/* Suites including suites: deeper than this is a mistake (or a loop). */
#define SUITE_MAX_DEPTH 8

/* The layout directives a guide may hold (guide.c reads them). */
static const char *const layout_directives[] = { "table", "key", "column", "plot",
						 "unmeasured", "missing", "text" };

/**
 * struct parse_state - where a parse is in a chain of includes.
 * @depth:   0 for the suite named by the user.
 * @chain:   origins from the top down to this suite, to refuse a loop.
 * @is_file: this suite is a file (relative includes start in its folder).
 */
struct parse_state {
	int depth;
	const char *chain[SUITE_MAX_DEPTH + 1];
	int is_file;
};

static int parse_text(const char *origin, const char *text, struct parse_state *st,
		      struct suite **out, char *err, size_t err_size);
static int read_text_file(const char *path, char **text, char *err, size_t err_size);

static const char blanks[] = " \t\r";

/**
 * suite_builtin_text() - text of a built-in suite.
 * @name: suite name.
 *
 * Return: the text, or NULL when there is no such built-in suite.
 */
const char *suite_builtin_text(const char *name)
{
	for (int i = 0; i < suite_builtin_count; i++)
		if (strcmp(suite_builtins[i].name, name) == 0)
			return suite_builtins[i].text;
	return NULL;
}

int suite_fail(char *err, size_t err_size, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_size, fmt, ap);
	va_end(ap);
	return code;
}

/**
 * suite_free() - release a suite.
 * @suite: suite, or NULL.
 */
void suite_free(struct suite *suite)
{
	if (!suite)
		return;
	for (int i = 0; i < suite->n_entries; i++) {
		/* Spliced entries share the params of their suite; overrides are theirs. */
		if (suite->entries[i].include < 0)
			free(suite->entries[i].params);
		free(suite->entries[i].overrides);
	}
	for (int i = 0; i < suite->n_includes; i++) {
		free(suite->includes[i].params);
		suite_free(suite->includes[i].suite);
	}
	for (int i = 0; i < suite->n_owned; i++)
		free(suite->owned[i]);
	free(suite->owned);
	free(suite->includes);
	free(suite->directives);
	free(suite->entries);
	free(suite->aliases);
	free(suite->text);
	free(suite->origin);
	free(suite);
}

/*
 * Next whitespace-separated token of *cursor, NUL-terminated in place; NULL
 * at the end. A token in double quotes may hold blanks ("File read
 * bandwidth"): it ends at the next quote.
 */
static char *next_token(char **cursor)
{
	char *start = *cursor + strspn(*cursor, blanks);
	char *end;

	if (*start == '\0')
		return NULL;
	if (*start == '"' && strchr(start + 1, '"')) {
		start++;
		end = strchr(start, '"');
		*end = '\0';
		*cursor = end + 1;
		return start;
	}
	end = start + strcspn(start, blanks);
	*cursor = end;
	if (*end) {
		*end = '\0';
		*cursor = end + 1;
	}
	return start;
}

static int add_param(struct suite_entry *e, const char *param)
{
	const char **grown = realloc(e->params, (size_t)(e->n_params + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	e->params = grown;
	e->params[e->n_params++] = param;
	return 0;
}

static int add_entry(struct suite *s, const struct suite_entry *e)
{
	struct suite_entry *grown =
		realloc(s->entries, (size_t)(s->n_entries + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	s->entries = grown;
	s->entries[s->n_entries++] = *e;
	return 0;
}

/* The rest of the line after the cursor, trimmed. */
static char *rest_of_line(char *cursor)
{
	size_t len;

	cursor += strspn(cursor, blanks);
	len = strlen(cursor);
	while (len && strchr(blanks, cursor[len - 1]))
		cursor[--len] = '\0';
	return cursor;
}

/* Grow @array of @count items of @size bytes by one; NULL on ENOMEM. */
static void *grow(void *array, int count, size_t size)
{
	return realloc(array, (size_t)(count + 1) * size);
}

/* Keep @text until the suite is freed. Return: @text, or NULL (freed) on ENOMEM. */
static char *own(struct suite *s, char *text)
{
	char **grown = text ? grow(s->owned, s->n_owned, sizeof(*grown)) : NULL;

	if (!grown) {
		free(text);
		return NULL;
	}
	s->owned = grown;
	s->owned[s->n_owned++] = text;
	return text;
}

/* @outer then @inner, as one prefix owned by @s; NULL on ENOMEM. */
static const char *join_prefix(struct suite *s, const char *outer, const char *inner)
{
	char *joined;

	if (!*inner)
		return outer;
	if (!*outer)
		return inner;
	joined = malloc(strlen(outer) + strlen(inner) + 1);
	if (joined)
		strcat(strcpy(joined, outer), inner);
	return own(s, joined);
}

/* "@table ...": kept in order for the guide, with the number of entries above. */
static int add_layout_directive(struct suite *s, const char *name, char *cursor, int lineno,
				const struct parse_state *st, char *err, size_t err_size)
{
	struct suite_directive *grown;

	if (st->depth > 0)
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: @%s in an included suite: layout directives belong to the guide that includes it",
			    s->origin, lineno, name);
	grown = grow(s->directives, s->n_directives, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	s->directives = grown;
	s->directives[s->n_directives++] = (struct suite_directive){
		.name = name, .args = rest_of_line(cursor), .line = lineno,
		.position = s->n_entries };
	return 0;
}

/* A key=value operand (of an entry or an @include): "k=v", not "=v" nor "k". */
static int is_assignment(const char *token)
{
	return token[0] != '=' && strchr(token, '=') != NULL;
}

/* Append @token to the array @list of @n strings. Return: 0 or -ENOMEM. */
static int push(const char ***list, int *n, const char *token)
{
	const char **grown = grow(*list, *n, sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	*list = grown;
	(*list)[(*n)++] = token;
	return 0;
}

/* The operands of "@include NAME ...": key=value, and @prefix=. */
static int parse_include_operands(const struct suite *s, struct suite_include *inc,
				  char *cursor, char *err, size_t err_size)
{
	static const char prefix_option[] = "@prefix=";
	char *token;

	while ((token = next_token(&cursor))) {
		if (!strncmp(token, prefix_option, sizeof(prefix_option) - 1)) {
			const char *p = token + sizeof(prefix_option) - 1;

			if (*inc->prefix || !*p || strpbrk(p, "{}"))
				return suite_fail(err, err_size, -EBADMSG,
					    "%s:%d: '%s': expected one @prefix=TEXT, TEXT without '{' or '}'",
					    s->origin, inc->line, token);
			inc->prefix = p;
		} else if (!is_assignment(token)) {
			return suite_fail(err, err_size, -EBADMSG,
				    "%s:%d: @include %s: expected key=value or @prefix=TEXT, got '%s'",
				    s->origin, inc->line, inc->name, token);
		} else if (push(&inc->params, &inc->n_params, token) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

/* The folder of a file origin, with its '/', or "" (the current folder). */
static size_t folder_length(const char *origin)
{
	const char *slash = strrchr(origin, '/');

	return slash ? (size_t)(slash - origin) + 1 : 0;
}

/*
 * Read the suite @inc names: built-in first, then a file, a relative path
 * taken from the folder of the including file. Sets *origin (malloc'd) to
 * what the included suite is called in messages.
 */
static int read_included(const struct suite *s, const struct suite_include *inc,
			 const struct parse_state *st, char **text, char **origin,
			 int *is_file, char *err, size_t err_size)
{
	const char *builtin = suite_builtin_text(inc->name);
	size_t dir = inc->name[0] == '/' || !st->is_file ? 0 : folder_length(s->origin);

	*is_file = !builtin;
	if (builtin) {
		*origin = strdup(inc->name);
		*text = *origin ? strdup(builtin) : NULL;
		return *text ? 0 : -ENOMEM;
	}
	*origin = malloc(dir + strlen(inc->name) + 1);
	if (!*origin)
		return -ENOMEM;
	memcpy(*origin, s->origin, dir);
	strcpy(*origin + dir, inc->name);
	return read_text_file(*origin, text, err, err_size);
}

/* The included suite's entries and aliases, spliced in at the end of @s. */
static int splice_included(struct suite *s, int index, const struct suite *child)
{
	struct suite_include *inc = &s->includes[index];
	int base = s->n_entries;

	inc->first_entry = base;
	for (int i = 0; i < child->n_entries; i++) {
		struct suite_entry e = child->entries[i];
		const char **over = NULL;
		int n_over = 0;

		for (int k = 0; k < e.n_overrides; k++)
			if (push(&over, &n_over, e.overrides[k]) < 0)
				goto nomem;
		for (int k = 0; k < inc->n_params; k++)
			if (push(&over, &n_over, inc->params[k]) < 0)
				goto nomem;
		e.overrides = over;
		e.n_overrides = n_over;
		e.include = index;
		e.prefix = join_prefix(s, inc->prefix, e.prefix);
		if (!e.prefix || add_entry(s, &e) < 0) {
			free(over);
			return -ENOMEM;
		}
		continue;
nomem:
		free(over);
		return -ENOMEM;
	}
	inc->n_entries = s->n_entries - base;
	for (int i = 0; i < child->n_aliases; i++) {
		struct suite_alias a = child->aliases[i];
		struct suite_alias *grown = grow(s->aliases, s->n_aliases, sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->aliases = grown;
		a.entry += base;
		a.include = index;
		a.prefix = join_prefix(s, inc->prefix, a.prefix);
		if (!a.prefix)
			return -ENOMEM;
		s->aliases[s->n_aliases++] = a;
	}
	return 0;
}

/* Is @origin already in the chain of includes above? */
static int in_chain(const struct parse_state *st, const char *origin)
{
	for (int i = 0; i <= st->depth; i++)
		if (!strcmp(st->chain[i], origin))
			return 1;
	return 0;
}

/* Parse the suite @inc names (one level deeper) and splice it in. */
static int include_suite(struct suite *s, int index, const struct parse_state *st, char *err,
			 size_t err_size)
{
	struct suite_include *inc = &s->includes[index];
	struct parse_state child_st = *st;
	char *text = NULL, *origin = NULL, inner[512];
	int ret;

	if (st->depth >= SUITE_MAX_DEPTH)
		return suite_fail(err, err_size, -EBADMSG, "%s:%d: @include %s: includes nest deeper than %d",
			    s->origin, inc->line, inc->name, SUITE_MAX_DEPTH);
	ret = read_included(s, inc, st, &text, &origin, &child_st.is_file, inner, sizeof(inner));
	if (ret == 0 && in_chain(st, origin))
		ret = suite_fail(inner, sizeof(inner), -EBADMSG, "it includes %s again (a loop)", origin);
	if (ret == 0) {
		child_st.depth++;
		child_st.chain[child_st.depth] = origin;
		ret = parse_text(origin, text, &child_st, &inc->suite, inner, sizeof(inner));
	}
	free(text);
	free(origin);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0)
		return suite_fail(err, err_size, -EBADMSG, "%s:%d: @include %s: %s", s->origin, inc->line,
			    inc->name, inner);
	return splice_included(s, index, inc->suite);
}

/* "@include NAME [key=value ...] [@prefix=TEXT]". */
static int parse_include(struct suite *s, char *cursor, int lineno, const struct parse_state *st,
			 char *err, size_t err_size)
{
	struct suite_include *grown = grow(s->includes, s->n_includes, sizeof(*grown));
	struct suite_include *inc;
	int ret;

	if (!grown)
		return -ENOMEM;
	s->includes = grown;
	inc = &s->includes[s->n_includes++];
	*inc = (struct suite_include){ .line = lineno, .prefix = "" };
	inc->name = next_token(&cursor);
	if (!inc->name)
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: expected '@include NAME [key=value ...] [@prefix=TEXT]'", s->origin,
			    lineno);
	ret = parse_include_operands(s, inc, cursor, err, err_size);
	return ret < 0 ? ret : include_suite(s, s->n_includes - 1, st, err, err_size);
}

/* "@description text...", "@include ...", or a layout directive. */
static int parse_directive(struct suite *s, char *line, int lineno, const struct parse_state *st,
			   char *err, size_t err_size)
{
	char *cursor = line;
	char *name = next_token(&cursor);

	if (!strcmp(name, "@include"))
		return parse_include(s, cursor, lineno, st, err, err_size);
	for (size_t i = 0; i < sizeof(layout_directives) / sizeof(layout_directives[0]); i++)
		if (!strcmp(name + 1, layout_directives[i]))
			return add_layout_directive(s, layout_directives[i], cursor, lineno, st,
						    err, err_size);
	if (strcmp(name, "@description") != 0)
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: unknown directive '%s' (accepted: @description, @include; in a guide @table, @key, @column, @plot, @unmeasured, @missing, @text)",
			    s->origin, lineno, name);
	if (*s->description)
		return suite_fail(err, err_size, -EBADMSG, "%s:%d: a second @description", s->origin,
			    lineno);
	s->description = rest_of_line(cursor);
	return 0;
}

/* Index of the alias named @title, or -1. */
static int find_alias(const struct suite *s, const char *title)
{
	for (int i = 0; i < s->n_aliases; i++)
		if (strcmp(s->aliases[i].title, title) == 0)
			return i;
	return -1;
}

/* Index of the nearest entry of this suite's own lines above titled @title, or -1. */
static int find_entry(const struct suite *s, const char *title)
{
	for (int i = s->n_entries - 1; i >= 0; i--)
		if (s->entries[i].include < 0 && s->entries[i].title &&
		    strcmp(s->entries[i].title, title) == 0)
			return i;
	return -1;
}

static int add_alias(struct suite *s, const struct suite_alias *a)
{
	struct suite_alias *grown =
		realloc(s->aliases, (size_t)(s->n_aliases + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	s->aliases = grown;
	s->aliases[s->n_aliases++] = *a;
	return 0;
}

/*
 * "= NEWTITLE TITLE": report the results of the entry titled TITLE (above)
 * once more as NEWTITLE. Nothing runs twice; a row name stays unique, as
 * compare needs.
 */
static int parse_alias(struct suite *s, char *line, int lineno, char *err, size_t err_size)
{
	struct suite_alias a = { .line = lineno, .entry = -1, .origin = s->origin, .prefix = "",
				 .include = -1 };
	char *cursor = line, *target;

	next_token(&cursor); /* the "=" */
	a.title = next_token(&cursor);
	target = next_token(&cursor);
	if (!a.title || !target || next_token(&cursor))
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: expected '= NEWTITLE TITLE' (an alias: the rows of the entry titled TITLE, reported again as NEWTITLE)",
			    s->origin, lineno);
	if (strcmp(a.title, "-") == 0)
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: an alias needs a title, not '-'", s->origin, lineno);
	a.entry = find_entry(s, target);
	if (a.entry < 0)
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: alias '%s': no entry titled '%s' above; accepted: the title of an entry on an earlier line",
			    s->origin, lineno, a.title, target);
	if (find_entry(s, a.title) >= 0 || find_alias(s, a.title) >= 0)
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: alias '%s': that title is already used above", s->origin,
			    lineno, a.title);
	return add_alias(s, &a);
}

/*
 * An option of the entry rather than of its kernel: "@metric=NAME[,NAME...]".
 * Kernel parameters never start with '@', so such a token was an error
 * before and the format stays compatible.
 */
static int parse_entry_option(const struct suite *s, struct suite_entry *e, const char *token,
			      char *err, size_t err_size)
{
	static const char metric_option[] = "@metric=";
	const char *value = token + sizeof(metric_option) - 1;

	if (strncmp(token, metric_option, sizeof(metric_option) - 1) != 0)
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: unknown entry option '%s' (accepted: @metric=NAME[,NAME...])",
			    s->origin, e->line, token);
	if (e->metrics)
		return suite_fail(err, err_size, -EBADMSG, "%s:%d: a second @metric=", s->origin,
			    e->line);
	if (*value == '\0' || *value == ',' || value[strlen(value) - 1] == ',' ||
	    strstr(value, ",,"))
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: '%s': expected @metric=NAME[,NAME...]", s->origin, e->line,
			    token);
	e->metrics = value;
	return 0;
}

/* "TITLE KERNEL key=value ... [@metric=NAME,...]". */
static int parse_entry(struct suite *s, char *line, int lineno, char *err, size_t err_size)
{
	struct suite_entry e = { .line = lineno, .origin = s->origin, .prefix = "", .include = -1 };
	char *cursor = line, *token;
	int ret;

	token = next_token(&cursor);
	e.title = strcmp(token, "-") == 0 ? NULL : token;
	/* "PREFIX/-": the derived row names, after PREFIX/. */
	if (strlen(token) > 2 && !strcmp(token + strlen(token) - 2, "/-")) {
		token[strlen(token) - 1] = '\0';
		e.prefix = token;
		e.title = NULL;
	}
	if (e.title && find_alias(s, e.title) >= 0)
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: title '%s' is already an alias above", s->origin, lineno,
			    e.title);
	e.kernel = next_token(&cursor);
	if (!e.kernel)
		return suite_fail(err, err_size, -EBADMSG,
			    "%s:%d: expected 'TITLE KERNEL [key=value ...]', got only '%s'",
			    s->origin, lineno, token);
	while ((token = next_token(&cursor))) {
		if (token[0] == '@') {
			ret = parse_entry_option(s, &e, token, err, err_size);
			if (ret < 0) {
				free(e.params);
				return ret;
			}
			continue;
		}
		if (token[0] == '=' || !strchr(token, '=')) {
			free(e.params);
			return suite_fail(err, err_size, -EBADMSG,
				    "%s:%d: expected key=value, got '%s'", s->origin, lineno,
				    token);
		}
		if (add_param(&e, token) < 0) {
			free(e.params);
			return -ENOMEM;
		}
	}
	ret = add_entry(s, &e);
	if (ret < 0)
		free(e.params);
	return ret;
}

static int parse_line(struct suite *s, char *line, int lineno, const struct parse_state *st,
		      char *err, size_t err_size)
{
	char *start = line + strspn(line, blanks);

	if (*start == '\0' || *start == '#')
		return 0;
	if (*start == '@')
		return parse_directive(s, start, lineno, st, err, err_size);
	/* Only a lone "=" makes an alias: "=x KERNEL" stays an entry titled "=x". */
	if (start[0] == '=' && (start[1] == '\0' || strchr(blanks, start[1])))
		return parse_alias(s, start, lineno, err, err_size);
	return parse_entry(s, start, lineno, err, err_size);
}

/* A row of the whole suite: an entry or an alias, the fields both have. */
struct row {
	const char *prefix, *title, *origin;
	int line, include;
};

static struct row row_at(const struct suite *s, int i)
{
	if (i < s->n_entries) {
		const struct suite_entry *e = &s->entries[i];

		return (struct row){ e->prefix, e->title, e->origin, e->line, e->include };
	}
	i -= s->n_entries;
	return (struct row){ s->aliases[i].prefix, s->aliases[i].title, s->aliases[i].origin,
			     s->aliases[i].line, s->aliases[i].include };
}

/* The row name of @r when it has a fixed one (no template): 1, else 0. */
static int fixed_name(const struct row *r, char *buf, size_t size)
{
	if (!r->title || strchr(r->title, '{'))
		return 0;
	snprintf(buf, size, "%s%s", r->prefix, r->title);
	return 1;
}

/* "lmbench:45 (@include at guide:12)": where a row comes from. */
static void row_where(const struct suite *s, const struct row *r, char *buf, size_t size)
{
	if (r->include < 0)
		snprintf(buf, size, "%s:%d", r->origin, r->line);
	else
		snprintf(buf, size, "%s:%d (@include at %s:%d)", r->origin, r->line, s->origin,
			 s->includes[r->include].line);
}

/*
 * Two entries (or aliases) of the whole suite with the same fixed row name
 * would be one row in a compare: refuse, naming both lines. Templates are
 * checked when their rows exist (embperf_report_add()).
 */
static int check_row_names(const struct suite *s, char *err, size_t err_size)
{
	int n = s->n_entries + s->n_aliases;
	char a[256], b[256], wa[512], wb[512];

	for (int i = 0; i < n; i++) {
		struct row ri = row_at(s, i);

		if (!fixed_name(&ri, a, sizeof(a)))
			continue;
		for (int j = i + 1; j < n; j++) {
			struct row rj = row_at(s, j);

			if (!fixed_name(&rj, b, sizeof(b)) || strcmp(a, b))
				continue;
			row_where(s, &ri, wa, sizeof(wa));
			row_where(s, &rj, wb, sizeof(wb));
			return suite_fail(err, err_size, -EBADMSG,
				    "%s: row name '%s' is also the row name of %s; accepted: names unique in the suite (an @include can add @prefix=TEXT)",
				    wb, b, wa);
		}
	}
	return 0;
}

static int parse_lines(struct suite *s, const struct parse_state *st, char *err, size_t err_size)
{
	char *line = s->text;
	int lineno = 0;

	while (line) {
		char *newline = strchr(line, '\n');
		int ret;

		if (newline)
			*newline = '\0';
		lineno++;
		ret = parse_line(s, line, lineno, st, err, err_size);
		if (ret < 0)
			return ret;
		line = newline ? newline + 1 : NULL;
	}
	if (s->n_entries == 0)
		return suite_fail(err, err_size, -EBADMSG, "%s: no entries (expected lines 'TITLE KERNEL [key=value ...]')",
			    s->origin);
	return st->depth ? 0 : check_row_names(s, err, err_size);
}

static int parse_text(const char *origin, const char *text, struct parse_state *st,
		      struct suite **out, char *err, size_t err_size)
{
	struct suite *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return suite_fail(err, err_size, -ENOMEM, "%s: out of memory", origin);
	s->origin = strdup(origin);
	s->text = strdup(text);
	s->description = "";
	if (!s->origin || !s->text) {
		suite_free(s);
		return suite_fail(err, err_size, -ENOMEM, "%s: out of memory", origin);
	}
	ret = parse_lines(s, st, err, err_size);
	if (ret == -ENOMEM)
		suite_fail(err, err_size, ret, "%s: out of memory", origin);
	if (ret < 0) {
		suite_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* Parse the suite named by the user: the top of a chain of includes. */
static int parse_top(const char *origin, const char *text, int is_file, struct suite **out,
		     char *err, size_t err_size)
{
	struct parse_state st = { .depth = 0, .is_file = is_file };

	st.chain[0] = origin;
	return parse_text(origin, text, &st, out, err, err_size);
}

/**
 * suite_parse() - parse suite text.
 * @origin:   name or path, used in messages.
 * @text:     the text.
 * @out:      receives the suite.
 * @err:      receives a message on failure.
 * @err_size: size of @err.
 *
 * Return: 0, -EBADMSG or -ENOMEM.
 */
int suite_parse(const char *origin, const char *text, struct suite **out, char *err,
		size_t err_size)
{
	return parse_top(origin, text, !suite_builtin_text(origin), out, err, err_size);
}

/* Read a whole file of at most SUITE_FILE_MAX_BYTES into a NUL-terminated buffer. */
static int read_text_file(const char *path, char **text, char *err, size_t err_size)
{
	struct stat st;
	char *buf;
	size_t used = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return suite_fail(err, err_size, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		int code = -errno;

		close(fd);
		return suite_fail(err, err_size, code, "%s: %s", path, strerror(-code));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return suite_fail(err, err_size, -EISDIR, "%s: is a directory, not a suite file", path);
	}
	buf = malloc(SUITE_FILE_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		return suite_fail(err, err_size, -ENOMEM, "%s: out of memory", path);
	}
	/* Read one byte more than allowed, to tell a file that is too big. */
	while (used <= SUITE_FILE_MAX_BYTES) {
		ssize_t n = read(fd, buf + used, SUITE_FILE_MAX_BYTES + 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int code = -errno;

			free(buf);
			close(fd);
			return suite_fail(err, err_size, code, "%s: %s", path, strerror(-code));
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	if (used > SUITE_FILE_MAX_BYTES || memchr(buf, '\0', used)) {
		free(buf);
		return suite_fail(err, err_size, -EBADMSG, "%s: %s", path,
			    used > SUITE_FILE_MAX_BYTES ? "larger than 1 MiB, not a suite file" :
							  "holds NUL bytes, not a suite file");
	}
	buf[used] = '\0';
	*text = buf;
	return 0;
}

/**
 * suite_load_file() - read and parse a suite file.
 * @path:     file.
 * @out:      receives the suite.
 * @err:      receives a message naming the file on failure.
 * @err_size: size of @err.
 *
 * Return: 0 or a negative errno (see suite.h).
 */
int suite_load_file(const char *path, struct suite **out, char *err, size_t err_size)
{
	char *text = NULL;
	int ret = read_text_file(path, &text, err, err_size);

	if (ret < 0)
		return ret;
	ret = parse_top(path, text, 1, out, err, err_size);
	free(text);
	return ret;
}

/* Does @name look like a path rather than a built-in suite's name? */
static int looks_like_path(const char *name)
{
	size_t len = strlen(name);

	return strchr(name, '/') || (len > 6 && strcmp(name + len - 6, ".suite") == 0) ||
	       access(name, F_OK) == 0;
}

/**
 * suite_open() - a built-in suite by name, else a suite file by path.
 * @name:     built-in name or path.
 * @out:      receives the suite.
 * @err:      receives a message on failure.
 * @err_size: size of @err.
 *
 * Return: 0, -ENOENT for neither (no message), or as suite_load_file().
 */
int suite_open(const char *name, struct suite **out, char *err, size_t err_size)
{
	const char *text = suite_builtin_text(name);

	if (text)
		return parse_top(name, text, 0, out, err, err_size);
	if (!looks_like_path(name))
		return -ENOENT;
	return suite_load_file(name, out, err, err_size);
}
