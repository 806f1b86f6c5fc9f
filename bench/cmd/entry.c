// SPDX-License-Identifier: MIT
/*
 * entry.c - from a suite entry to a configured bench, and from a run bench
 * to rows of a report: what `suite` (cmd_run.c) and `guide` (guide.c) share.
 *
 * An entry's parameters apply in this order, each later one winning: its
 * own key=value, its @metric=, the key=value of the @include lines it came
 * through (innermost first, each where the kernel has the key), then the
 * caller's (the command line's, or the profile's), which the caller sets. A value may name a
 * variable, ${name} or ${name:-default}; a key=value whose key starts with
 * "full:" or "short:" applies at those durations only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "suite.h"

/* Longest parameter name handled; kernel parameters are short. */
#define KEY_MAX 64

/**
 * kernel_accepts() - whether @kernel has a parameter named @key.
 * @kernel: kernel name.
 * @key:    parameter name.
 *
 * Return: 1 or 0.
 */
int kernel_accepts(const char *kernel, const char *key)
{
	int n = embperf_kernel_param_count(kernel);
	char name[KEY_MAX];

	for (int i = 0; i < n; i++) {
		int len = embperf_kernel_param_info(kernel, i, EMBPERF_INFO_NAME, name,
						    sizeof(name));

		if (len >= 0 && strcmp(name, key) == 0)
			return 1;
	}
	return 0;
}

/* Strip "full:" or "short:"; 1 when the assignment applies at the env's durations. */
static int applies(const struct entry_env *env, const char **assignment)
{
	static const char full[] = "full:", shorter[] = "short:";

	if (!strncmp(*assignment, full, sizeof(full) - 1)) {
		*assignment += sizeof(full) - 1;
		return env->full;
	}
	if (!strncmp(*assignment, shorter, sizeof(shorter) - 1)) {
		*assignment += sizeof(shorter) - 1;
		return !env->full;
	}
	return 1;
}

/* Append @len bytes of @text to @out (of @size, @used so far). Return: 0 or -ENAMETOOLONG. */
static int append(char *out, size_t size, size_t *used, const char *text, size_t len)
{
	if (*used + len >= size)
		return -ENAMETOOLONG;
	memcpy(out + *used, text, len);
	*used += len;
	out[*used] = '\0';
	return 0;
}

/* The value of "${...}" whose inside is @name of @len bytes; NULL when it has none. */
static const char *variable_value(const struct entry_env *env, const char *name, size_t len,
				  char *missing, size_t missing_size)
{
	const char *dflt = memchr(name, ':', len);
	size_t name_len = dflt ? (size_t)(dflt - name) : len;
	char key[KEY_MAX];
	const char *value;

	snprintf(key, sizeof(key), "%.*s", (int)name_len, name);
	value = env->lookup ? env->lookup(env->user, key) : NULL;
	if (value && *value)
		return value;
	/* ${name:-default}: the default after ":-". */
	if (dflt && (size_t)(dflt - name) + 1 < len && dflt[1] == '-')
		return dflt + 2;
	snprintf(missing, missing_size, "%s", key);
	return NULL;
}

/**
 * entry_expand() - one key=value of an entry, as it applies.
 * @env:          durations and variables.
 * @assignment:   as written.
 * @out:          receives "key=value" with its variables replaced.
 * @size:         size of @out.
 * @missing:      receives the name of a variable without a value.
 * @missing_size: size of @missing.
 *
 * Return: 1 when it applies (in @out), 0 when it does not at these
 * durations, -ENOENT for a variable without a value, -EINVAL for a "${"
 * without "}", -ENAMETOOLONG.
 */
int entry_expand(const struct entry_env *env, const char *assignment, char *out, size_t size,
		 char *missing, size_t missing_size)
{
	const char *p;
	size_t used = 0;

	if (!applies(env, &assignment))
		return 0;
	out[0] = '\0';
	for (p = assignment; *p;) {
		const char *open = strstr(p, "${"), *close, *value;
		size_t vlen;

		if (!open)
			return append(out, size, &used, p, strlen(p)) ? -ENAMETOOLONG : 1;
		if (append(out, size, &used, p, (size_t)(open - p)))
			return -ENAMETOOLONG;
		close = strchr(open, '}');
		if (!close) {
			snprintf(missing, missing_size, "%s", open);
			return -EINVAL;
		}
		value = variable_value(env, open + 2, (size_t)(close - open - 2), missing,
				       missing_size);
		if (!value)
			return -ENOENT;
		/* A default ends at the '}', a looked-up value at its NUL. */
		vlen = value > open && value < close ? (size_t)(close - value) : strlen(value);
		if (append(out, size, &used, value, vlen))
			return -ENAMETOOLONG;
		p = close + 1;
	}
	return 1;
}

/* Set one "key=value" on @b. Return: 0, or -errno with the library's message in @err. */
static int set_one(embperf_bench *b, const char *assignment, char *err, size_t err_size)
{
	char key[KEY_MAX];
	const char *value;
	int ret;

	if (cli_split_assignment(assignment, key, sizeof(key), &value) < 0) {
		snprintf(err, err_size, "expected key=value, got '%s'", assignment);
		return -EINVAL;
	}
	ret = embperf_bench_set(b, key, value);
	if (ret < 0)
		snprintf(err, err_size, "%s", embperf_bench_errmsg(b));
	return ret;
}

/*
 * Expand and set one key=value; @only_accepted skips a key the kernel does
 * not have (an @include's, the caller's). Return: 0 or as entry_setup().
 */
static int apply(embperf_bench *b, const struct entry_env *env, const char *assignment,
		 int only_accepted, char *err, size_t err_size)
{
	char text[1024], key[KEY_MAX];
	const char *value;
	int ret = entry_expand(env, assignment, text, sizeof(text), err, err_size);

	if (ret == 0)
		return 0;
	if (ret == -ENOENT)
		return ret; /* @err holds the variable's name */
	if (ret < 0) {
		snprintf(err, err_size, "'%s': %s", assignment,
			 ret == -EINVAL ? "a '${' has no closing '}'" : "too long");
		return -EINVAL;
	}
	if (only_accepted && (cli_split_assignment(text, key, sizeof(key), &value) < 0 ||
			      !kernel_accepts(embperf_bench_kernel(b), key)))
		return 0;
	return set_one(b, text, err, err_size);
}

/**
 * entry_setup() - configure a bench from a suite entry.
 * @b:        a new bench of the entry's kernel.
 * @e:        the entry.
 * @env:      durations and variables.
 * @err:      receives the library's message, or the name of a variable
 *            that has no value.
 * @err_size: size of @err.
 *
 * Return: 0; -ENOENT when a variable has no value (its name in @err); another
 * negative errno when a value is refused (the message in @err).
 */
int entry_setup(embperf_bench *b, const struct suite_entry *e, const struct entry_env *env,
		char *err, size_t err_size)
{
	int ret = 0;

	for (int k = 0; k < e->n_params && !ret; k++)
		ret = apply(b, env, e->params[k], 0, err, err_size);
	/* "@metric=" is the engine's 'metrics' parameter. */
	if (!ret && e->metrics && embperf_bench_set(b, "metrics", e->metrics) < 0) {
		snprintf(err, err_size, "@metric: %s", embperf_bench_errmsg(b));
		ret = -EINVAL;
	}
	for (int k = 0; k < e->n_overrides && !ret; k++)
		ret = apply(b, env, e->overrides[k], 1, err, err_size);
	return ret;
}

/**
 * entry_check_includes() - every key=value of a top-level @include must be
 * a parameter of one of the entries it brought in.
 * @s:        the suite.
 * @err:      receives a message naming the line.
 * @err_size: its size.
 *
 * Return: 0, or -EINVAL.
 */
int entry_check_includes(const struct suite *s, char *err, size_t err_size)
{
	for (int i = 0; i < s->n_includes; i++) {
		const struct suite_include *inc = &s->includes[i];

		for (int k = 0; k < inc->n_params; k++) {
			const char *assignment = inc->params[k];
			char key[KEY_MAX];
			const char *value;
			int used = 0;

			if (!strncmp(assignment, "full:", 5) || !strncmp(assignment, "short:", 6))
				assignment = strchr(assignment, ':') + 1;
			if (cli_split_assignment(assignment, key, sizeof(key), &value) < 0) {
				snprintf(err, err_size, "%s:%d: expected key=value, got '%s'",
					 s->origin, inc->line, inc->params[k]);
				return -EINVAL;
			}
			for (int j = 0; j < inc->n_entries && !used; j++)
				used = kernel_accepts(s->entries[inc->first_entry + j].kernel, key);
			if (!used) {
				snprintf(err, err_size,
					 "%s:%d: @include %s: parameter '%s' is accepted by none of its entries",
					 s->origin, inc->line, inc->name, key);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/**
 * entry_title() - the row name template of an entry: its prefix and title.
 * @prefix: &struct suite_entry.prefix (or an alias's).
 * @title:  the title as written, or NULL for "-".
 *
 * Return: a malloc'd template; NULL for "-" (or on ENOMEM, errno set).
 */
char *entry_title(const char *prefix, const char *title)
{
	char *t;

	errno = 0;
	if (!title)
		return NULL;
	t = malloc(strlen(prefix) + strlen(title) + 1);
	if (t)
		strcat(strcpy(t, prefix), title);
	return t;
}

/**
 * entry_add_rows() - the results of a run bench as rows of a report.
 * @report: report.
 * @b:      bench that has run.
 * @prefix: the entry's prefix.
 * @title:  entry_title(), or NULL: each row is then named @prefix and the
 *          key the library derives ("kernel/metric[labels]").
 *
 * Return: rows added, or a negative errno (embperf_report_errmsg() says why).
 */
int entry_add_rows(embperf_report *report, const embperf_bench *b, const char *prefix,
		   const char *title)
{
	char key[512], name[640];
	int n = embperf_bench_result_count(b), ret;

	if (title || !*prefix)
		return embperf_report_add(report, b, title);
	for (int i = 0; i < n; i++) {
		embperf_result_key(embperf_bench_result(b, i), key, sizeof(key));
		snprintf(name, sizeof(name), "%s%s", prefix, key);
		ret = embperf_report_add_result(report, embperf_bench_result(b, i), name);
		if (ret < 0)
			return ret;
	}
	return n;
}
