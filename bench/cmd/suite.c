// SPDX-License-Identifier: MIT
/*
 * suite.c - parse suite text (built-in or from a file) into entries.
 *
 * The parser checks only the syntax. Whether a kernel exists and accepts a
 * parameter is the library's to say, when the command prepares the entries
 * (cmd_run.c): the rules then stay in one place.
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

static int fail(char *err, size_t err_size, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t err_size, int code, const char *fmt, ...)
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
	for (int i = 0; i < suite->n_entries; i++)
		free(suite->entries[i].params);
	free(suite->entries);
	free(suite->aliases);
	free(suite->text);
	free(suite->origin);
	free(suite);
}

/* Next whitespace-separated token of *cursor, NUL-terminated in place; NULL at the end. */
static char *next_token(char **cursor)
{
	char *start = *cursor + strspn(*cursor, blanks);
	char *end;

	if (*start == '\0')
		return NULL;
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

/* "@description text...": the rest of the line, trimmed. */
static int parse_directive(struct suite *s, char *line, int lineno, char *err, size_t err_size)
{
	char *cursor = line;
	char *name = next_token(&cursor);
	size_t len;

	if (strcmp(name, "@description") != 0)
		return fail(err, err_size, -EBADMSG,
			    "%s:%d: unknown directive '%s' (accepted: @description)", s->origin,
			    lineno, name);
	if (*s->description)
		return fail(err, err_size, -EBADMSG, "%s:%d: a second @description", s->origin,
			    lineno);
	cursor += strspn(cursor, blanks);
	len = strlen(cursor);
	while (len && strchr(blanks, cursor[len - 1]))
		cursor[--len] = '\0';
	s->description = cursor;
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

/* Index of the nearest entry above titled @title, or -1. */
static int find_entry(const struct suite *s, const char *title)
{
	for (int i = s->n_entries - 1; i >= 0; i--)
		if (s->entries[i].title && strcmp(s->entries[i].title, title) == 0)
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
	struct suite_alias a = { .line = lineno, .entry = -1 };
	char *cursor = line, *target;

	next_token(&cursor); /* the "=" */
	a.title = next_token(&cursor);
	target = next_token(&cursor);
	if (!a.title || !target || next_token(&cursor))
		return fail(err, err_size, -EBADMSG,
			    "%s:%d: expected '= NEWTITLE TITLE' (an alias: the rows of the entry titled TITLE, reported again as NEWTITLE)",
			    s->origin, lineno);
	if (strcmp(a.title, "-") == 0)
		return fail(err, err_size, -EBADMSG,
			    "%s:%d: an alias needs a title, not '-'", s->origin, lineno);
	a.entry = find_entry(s, target);
	if (a.entry < 0)
		return fail(err, err_size, -EBADMSG,
			    "%s:%d: alias '%s': no entry titled '%s' above; accepted: the title of an entry on an earlier line",
			    s->origin, lineno, a.title, target);
	if (find_entry(s, a.title) >= 0 || find_alias(s, a.title) >= 0)
		return fail(err, err_size, -EBADMSG,
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
		return fail(err, err_size, -EBADMSG,
			    "%s:%d: unknown entry option '%s' (accepted: @metric=NAME[,NAME...])",
			    s->origin, e->line, token);
	if (e->metrics)
		return fail(err, err_size, -EBADMSG, "%s:%d: a second @metric=", s->origin,
			    e->line);
	if (*value == '\0' || *value == ',' || value[strlen(value) - 1] == ',' ||
	    strstr(value, ",,"))
		return fail(err, err_size, -EBADMSG,
			    "%s:%d: '%s': expected @metric=NAME[,NAME...]", s->origin, e->line,
			    token);
	e->metrics = value;
	return 0;
}

/* "TITLE KERNEL key=value ... [@metric=NAME,...]". */
static int parse_entry(struct suite *s, char *line, int lineno, char *err, size_t err_size)
{
	struct suite_entry e = { .line = lineno };
	char *cursor = line, *token;
	int ret;

	token = next_token(&cursor);
	e.title = strcmp(token, "-") == 0 ? NULL : token;
	if (e.title && find_alias(s, e.title) >= 0)
		return fail(err, err_size, -EBADMSG,
			    "%s:%d: title '%s' is already an alias above", s->origin, lineno,
			    e.title);
	e.kernel = next_token(&cursor);
	if (!e.kernel)
		return fail(err, err_size, -EBADMSG,
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
			return fail(err, err_size, -EBADMSG,
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

static int parse_line(struct suite *s, char *line, int lineno, char *err, size_t err_size)
{
	char *start = line + strspn(line, blanks);

	if (*start == '\0' || *start == '#')
		return 0;
	if (*start == '@')
		return parse_directive(s, start, lineno, err, err_size);
	/* Only a lone "=" makes an alias: "=x KERNEL" stays an entry titled "=x". */
	if (start[0] == '=' && (start[1] == '\0' || strchr(blanks, start[1])))
		return parse_alias(s, start, lineno, err, err_size);
	return parse_entry(s, start, lineno, err, err_size);
}

static int parse_lines(struct suite *s, char *err, size_t err_size)
{
	char *line = s->text;
	int lineno = 0;

	while (line) {
		char *newline = strchr(line, '\n');
		int ret;

		if (newline)
			*newline = '\0';
		lineno++;
		ret = parse_line(s, line, lineno, err, err_size);
		if (ret < 0)
			return ret;
		line = newline ? newline + 1 : NULL;
	}
	if (s->n_entries == 0)
		return fail(err, err_size, -EBADMSG, "%s: no entries (expected lines 'TITLE KERNEL [key=value ...]')",
			    s->origin);
	return 0;
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
	struct suite *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return fail(err, err_size, -ENOMEM, "%s: out of memory", origin);
	s->origin = strdup(origin);
	s->text = strdup(text);
	s->description = "";
	if (!s->origin || !s->text) {
		suite_free(s);
		return fail(err, err_size, -ENOMEM, "%s: out of memory", origin);
	}
	ret = parse_lines(s, err, err_size);
	if (ret == -ENOMEM)
		fail(err, err_size, ret, "%s: out of memory", origin);
	if (ret < 0) {
		suite_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* Read a whole file of at most SUITE_FILE_MAX_BYTES into a NUL-terminated buffer. */
static int read_text_file(const char *path, char **text, char *err, size_t err_size)
{
	struct stat st;
	char *buf;
	size_t used = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail(err, err_size, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		int code = -errno;

		close(fd);
		return fail(err, err_size, code, "%s: %s", path, strerror(-code));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return fail(err, err_size, -EISDIR, "%s: is a directory, not a suite file", path);
	}
	buf = malloc(SUITE_FILE_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		return fail(err, err_size, -ENOMEM, "%s: out of memory", path);
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
			return fail(err, err_size, code, "%s: %s", path, strerror(-code));
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	if (used > SUITE_FILE_MAX_BYTES || memchr(buf, '\0', used)) {
		free(buf);
		return fail(err, err_size, -EBADMSG, "%s: %s", path,
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
	ret = suite_parse(path, text, out, err, err_size);
	free(text);
	return ret;
}
