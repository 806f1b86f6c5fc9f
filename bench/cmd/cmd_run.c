// SPDX-License-Identifier: MIT
/*
 * cmd_run.c - the commands that measure: `run KERNEL [key=value ...]` and
 * `suite NAME|FILE [key=value ...]`.
 *
 * Both go the same way: check everything first (kernel names, every
 * parameter, the baseline file), so that a typo fails in a second and not
 * after minutes of measuring; then run, collect the results into one
 * report, compare with the baseline when asked, and emit the report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "suite.h"

/* Longest parameter name the command handles; kernel parameters are short. */
#define KEY_MAX 64

/**
 * struct plan - what a command is about to run.
 * @ctx:      the session.
 * @baseline: --baseline report, or NULL.
 * @benches:  one configured bench per entry; NULL once run and freed.
 * @titles:   row name template of each entry, its prefix included (owned;
 *            NULL: derived).
 * @prefixes: prefix of each entry's rows ("" for none).
 * @lines:    line of each entry in its suite (0 for `run`).
 * @origins:  the suite each entry's line is in.
 * @count:    number of entries.
 * @origin:   suite name or path ("" for `run`), for messages.
 * @suite:    the suite whose aliases name entries again; NULL for `run`.
 * @progress: what the progress line shows.
 */
struct plan {
	embperf_ctx *ctx;
	embperf_report *baseline;
	embperf_bench **benches;
	char **titles;
	const char **prefixes;
	int *lines;
	const char **origins;
	int count;
	const char *origin;
	const struct suite *suite;
	struct cli_progress progress;
};

static int plan_alloc(struct plan *p, int count)
{
	p->benches = calloc((size_t)count, sizeof(*p->benches));
	p->titles = calloc((size_t)count, sizeof(*p->titles));
	p->prefixes = calloc((size_t)count, sizeof(*p->prefixes));
	p->lines = calloc((size_t)count, sizeof(*p->lines));
	p->origins = calloc((size_t)count, sizeof(*p->origins));
	p->count = count;
	p->progress.count = count;
	if (!p->benches || !p->titles || !p->prefixes || !p->lines || !p->origins) {
		cli_error("out of memory");
		return CLI_EXIT_RUN;
	}
	return CLI_EXIT_OK;
}

/* Free everything but the session, which cli_session_close() ends. */
static void plan_free(struct plan *p)
{
	for (int i = 0; p->benches && i < p->count; i++)
		embperf_bench_free(p->benches[i]);
	for (int i = 0; p->titles && i < p->count; i++)
		free(p->titles[i]);
	free(p->benches);
	free(p->titles);
	free(p->prefixes);
	free(p->lines);
	free(p->origins);
	embperf_report_free(p->baseline);
}

/* Open the session and load the baseline: the steps `run` and `suite` share. */
static int plan_open(const struct cli_options *opt, struct plan *p)
{
	int status = cli_session_open(opt, &p->progress, &p->ctx);

	if (status != CLI_EXIT_OK)
		return status;
	if (opt->baseline_path) {
		p->baseline = cli_load_report(p->ctx, opt->baseline_path);
		if (!p->baseline)
			return CLI_EXIT_FILE;
	}
	return CLI_EXIT_OK;
}

/* A new bench for entry @i's @kernel; on failure print the library's message. */
static embperf_bench *new_bench(const struct plan *p, int i, const char *kernel)
{
	embperf_bench *b = embperf_bench_new(p->ctx, kernel);
	int saved_errno = errno;
	const char *hello = getenv("EMBPERF_HELLO");

	if (b) {
		/*
		 * $EMBPERF_HELLO: the program os.proc execs, for a build that is
		 * not installed (as the lmbench front ends take it). The
		 * kernel's own default is the installed embperf-hello; a value
		 * the user or the suite gives still wins, being set after.
		 */
		if (hello && *hello && embperf_bench_set(b, "exec_path", hello) == -EINVAL)
			cli_error("EMBPERF_HELLO: %s", embperf_bench_errmsg(b));
		return b;
	}
	if (p->lines[i])
		cli_error("%s:%d: %s", p->origins[i], p->lines[i], embperf_ctx_errmsg(p->ctx));
	else
		cli_error("%s", embperf_ctx_errmsg(p->ctx));
	/* The caller tells ENOMEM from an unknown kernel. */
	errno = saved_errno;
	return NULL;
}

/* Set one "key=value"; on failure print the library's message. Return: 0 or -errno. */
static int set_assignment(embperf_bench *b, const char *arg, const char *where)
{
	char key[KEY_MAX];
	const char *value;
	int err;

	if (cli_split_assignment(arg, key, sizeof(key), &value) < 0) {
		cli_error("%sexpected key=value, got '%s'", where, arg);
		return -EINVAL;
	}
	err = embperf_bench_set(b, key, value);
	if (err < 0)
		cli_error("%s%s", where, embperf_bench_errmsg(b));
	return err;
}


/* Where entry @i comes from, for messages: "memory:12: bw_mem-rd-1mb: ". */
static void entry_where(const struct plan *p, int i, char *buf, size_t size)
{
	const char *title = p->titles[i] ? p->titles[i] : embperf_bench_kernel(p->benches[i]);

	if (p->lines[i])
		snprintf(buf, size, "%s:%d: %s: ", p->origins[i], p->lines[i], title);
	else
		buf[0] = '\0';
}

/* Add the results of entry @i under the title template @title. */
static int add_rows(const struct plan *p, int i, embperf_report *report, const char *title)
{
	return entry_add_rows(report, p->benches[i], p->prefixes[i] ? p->prefixes[i] : "", title);
}

/* Add the results of entry @i to @report. Return: an exit code. */
static int collect(const struct plan *p, int i, embperf_report *report)
{
	char where[256];

	if (embperf_bench_result_count(p->benches[i]) == 0)
		return CLI_EXIT_OK;
	if (add_rows(p, i, report, p->titles[i]) >= 0)
		return CLI_EXIT_OK;
	entry_where(p, i, where, sizeof(where));
	cli_error("%scannot add the results: %s", where, embperf_report_errmsg(report));
	/* A title naming a label the results lack is a defect of the suite. */
	return CLI_EXIT_FILE;
}

/*
 * Add the results of entry @i once more under each alias line naming it: a
 * row a data sheet lists twice is measured once. Return: an exit code.
 */
static int collect_aliases(const struct plan *p, int i, embperf_report *report)
{
	int status = CLI_EXIT_OK;

	if (!p->suite || embperf_bench_result_count(p->benches[i]) == 0)
		return CLI_EXIT_OK;
	for (int a = 0; a < p->suite->n_aliases; a++) {
		const struct suite_alias *alias = &p->suite->aliases[a];
		char *title;
		int ret;

		if (alias->entry != i)
			continue;
		title = entry_title(alias->prefix, alias->title);
		ret = title ? add_rows(p, i, report, title) : -ENOMEM;
		free(title);
		if (ret >= 0)
			continue;
		cli_error("%s:%d: %s: cannot add the results: %s", alias->origin, alias->line,
			  alias->title, embperf_report_errmsg(report));
		status = CLI_EXIT_FILE;
	}
	return status;
}

/* Run entry @i and collect its results. Return: an exit code. */
static int run_entry(struct plan *p, int i, embperf_report *report)
{
	char where[256];
	int err, status;

	p->progress.index = i;
	p->progress.title = p->titles[i] && !strchr(p->titles[i], '{') ? p->titles[i] : NULL;
	err = embperf_bench_run(p->benches[i]);
	status = cli_exit_of_run(err);
	if (status == CLI_EXIT_RUN) {
		entry_where(p, i, where, sizeof(where));
		cli_error("%s%s", where, embperf_bench_errmsg(p->benches[i]));
	}
	/* A run the budget cut short keeps its samples: they are reported. */
	if (status == CLI_EXIT_OK || status == CLI_EXIT_BUDGET) {
		status = cli_exit_worse(status, collect(p, i, report));
		status = cli_exit_worse(status, collect_aliases(p, i, report));
	}
	embperf_bench_free(p->benches[i]);
	p->benches[i] = NULL;
	return status;
}

/*
 * Run every entry. A failed entry does not stop the others; a spent budget
 * or a cancel does. Return: an exit code.
 */
static int run_all(const struct cli_options *opt, struct plan *p, embperf_report *report)
{
	int status = CLI_EXIT_OK;

	for (int i = 0; i < p->count; i++) {
		int s = run_entry(p, i, report);

		status = cli_exit_worse(status, s);
		if (s == CLI_EXIT_CANCELLED)
			break;
		if (s == CLI_EXIT_BUDGET) {
			if (p->count == 1)
				cli_note(opt, "time budget exhausted; results are partial");
			else
				cli_note(opt, "time budget exhausted in entry %d of %d; results are partial",
					 i + 1, p->count);
			break;
		}
	}
	return status;
}

/* Run the plan, compare, emit. Return: the command's exit code. */
static int execute(const struct cli_options *opt, struct plan *p)
{
	embperf_report *report = embperf_report_new(p->ctx);
	int status, verdict = CLI_EXIT_OK;

	if (!report) {
		cli_error("cannot create a report: %s", embperf_strerror(-errno));
		return CLI_EXIT_RUN;
	}
	status = run_all(opt, p, report);
	if (status == CLI_EXIT_CANCELLED || embperf_ctx_is_cancelled(p->ctx)) {
		/* Emit nothing: a half-written -o FILE must not replace a good one. */
		cli_error("cancelled");
		embperf_report_free(report);
		return CLI_EXIT_CANCELLED;
	}
	if (status != CLI_EXIT_OK && embperf_report_result_count(report) == 0) {
		/* Nothing measured: an empty table would only hide the error above. */
		embperf_report_free(report);
		return status;
	}
	if (p->baseline)
		verdict = cli_judge(opt, report, p->baseline);
	status = cli_exit_worse(status, cli_emit_report(opt, report));
	if (opt->plot_path)
		status = cli_exit_worse(status, cli_plot_report(opt, report, "--plot: the run", opt->plot_path));
	embperf_report_free(report);
	return cli_exit_worse(status, verdict);
}

/**
 * cmd_run() - `embperf run KERNEL [key=value ...]`.
 * @opt: options; operands: the kernel and its parameters.
 *
 * Return: the command's exit code (see enum cli_exit).
 */
int cmd_run(const struct cli_options *opt)
{
	struct plan p = { .origin = "" };
	int status;

	if (opt->argc < 1) {
		cli_error("run needs a kernel name (see `embperf list`)");
		return CLI_EXIT_USAGE;
	}
	status = plan_open(opt, &p);
	if (status == CLI_EXIT_OK)
		status = plan_alloc(&p, 1);
	if (status == CLI_EXIT_OK) {
		p.benches[0] = new_bench(&p, 0, opt->argv[0]);
		if (!p.benches[0])
			status = errno == ENOMEM ? CLI_EXIT_RUN : CLI_EXIT_USAGE;
	}
	for (int i = 1; status == CLI_EXIT_OK && i < opt->argc; i++)
		if (set_assignment(p.benches[0], opt->argv[i], "") < 0)
			status = CLI_EXIT_USAGE;
	if (status == CLI_EXIT_OK)
		status = execute(opt, &p);
	plan_free(&p);
	cli_session_close(p.ctx);
	return status;
}

/**
 * struct operands - the command line's key=value, as the suite's variables.
 * @opt:  the command line (operands from argv[1]).
 * @used: per operand, 1 once a ${name} of the suite named it.
 */
struct operands {
	const struct cli_options *opt;
	int *used;
};

/*
 * Apply the command line's key=value operands to every entry whose kernel
 * accepts the key; an operand no entry accepts and no ${name} of the suite
 * names is a usage error.
 */
static int apply_overrides(const struct cli_options *opt, struct plan *p,
			   const struct operands *vars)
{
	char key[KEY_MAX];
	const char *value;

	for (int o = 1; o < opt->argc; o++) {
		int used = vars->used[o];

		if (cli_split_assignment(opt->argv[o], key, sizeof(key), &value) < 0) {
			cli_error("expected key=value, got '%s'", opt->argv[o]);
			return CLI_EXIT_USAGE;
		}
		for (int i = 0; i < p->count; i++) {
			if (!kernel_accepts(embperf_bench_kernel(p->benches[i]), key))
				continue;
			used++;
			if (embperf_bench_set(p->benches[i], key, value) < 0) {
				cli_error("%s", embperf_bench_errmsg(p->benches[i]));
				return CLI_EXIT_USAGE;
			}
		}
		if (!used) {
			cli_error("parameter '%s' is accepted by no entry of suite %s, and the suite names no ${%s}",
				  key, p->origin, key);
			return CLI_EXIT_USAGE;
		}
	}
	return CLI_EXIT_OK;
}

/* ${name} of a suite: the value of the command line's name=value operand. */
static const char *operand_value(void *user, const char *name)
{
	const struct operands *vars = user;
	size_t len = strlen(name);

	for (int o = 1; o < vars->opt->argc; o++) {
		const char *arg = vars->opt->argv[o];

		if (!strncmp(arg, name, len) && arg[len] == '=') {
			vars->used[o] = 1;
			return arg + len + 1;
		}
	}
	return NULL;
}

/* "durations=full" (or short) among the operands: the "full:" key=value apply. */
static int full_durations(const struct cli_options *opt, int *used)
{
	int full = 0;

	for (int o = 1; o < opt->argc; o++) {
		if (!strcmp(opt->argv[o], "durations=full"))
			full = used[o] = 1;
		else if (!strcmp(opt->argv[o], "durations=short"))
			used[o] = 1;
	}
	return full;
}

/* Configure one bench per suite entry; errors in the suite text exit 4. */
static int prepare_entries(struct plan *p, const struct suite *s, struct operands *vars)
{
	struct entry_env env = { .lookup = operand_value, .user = vars };
	char err[512];

	env.full = full_durations(vars->opt, vars->used);
	if (entry_check_includes(s, err, sizeof(err)) < 0) {
		cli_error("%s", err);
		return CLI_EXIT_FILE;
	}
	for (int i = 0; i < s->n_entries; i++) {
		const struct suite_entry *e = &s->entries[i];
		int ret;

		p->titles[i] = entry_title(e->prefix, e->title);
		if (e->title && !p->titles[i]) {
			cli_error("out of memory");
			return CLI_EXIT_RUN;
		}
		p->prefixes[i] = e->prefix;
		p->lines[i] = e->line;
		p->origins[i] = e->origin;
		p->benches[i] = new_bench(p, i, e->kernel);
		if (!p->benches[i])
			return errno == ENOMEM ? CLI_EXIT_RUN : CLI_EXIT_FILE;
		ret = entry_setup(p->benches[i], e, &env, err, sizeof(err));
		if (ret == -ENOENT) {
			cli_error("%s:%d: ${%s} has no value: give %s=VALUE after the suite's name",
				  e->origin, e->line, err, err);
			return CLI_EXIT_USAGE;
		}
		if (ret < 0) {
			cli_error("%s:%d: %s", e->origin, e->line, err);
			return CLI_EXIT_FILE;
		}
	}
	return CLI_EXIT_OK;
}

static void unknown_suite(const char *name)
{
	char list[512] = "";
	size_t used = 0;

	for (int i = 0; i < suite_builtin_count && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
					 suite_builtins[i].name);
	cli_error("unknown suite '%s' (built-in: %s; or give the path of a suite file)", name,
		  list);
}

/**
 * cli_open_suite() - find and parse suite @name: built-in first, then a file.
 * @name: built-in name or path.
 * @out:  receives the suite.
 *
 * Return: CLI_EXIT_OK; CLI_EXIT_USAGE for an unknown name; CLI_EXIT_FILE.
 */
int cli_open_suite(const char *name, struct suite **out)
{
	char err[512];
	int ret = suite_open(name, out, err, sizeof(err));

	if (ret == 0)
		return CLI_EXIT_OK;
	if (ret == -ENOENT && !strchr(name, '/')) {
		unknown_suite(name);
		return CLI_EXIT_USAGE;
	}
	cli_error("%s", err);
	return CLI_EXIT_FILE;
}

/**
 * cmd_suite() - `embperf suite NAME|FILE [key=value ...]`.
 * @opt: options; operands: the suite and parameter overrides.
 *
 * Return: the command's exit code (see enum cli_exit).
 */
int cmd_suite(const struct cli_options *opt)
{
	struct plan p = { 0 };
	struct suite *s = NULL;
	struct operands vars = { .opt = opt };
	int status;

	if (opt->argc < 1) {
		cli_error("suite needs a suite name or file (see `embperf suites`)");
		return CLI_EXIT_USAGE;
	}
	status = cli_open_suite(opt->argv[0], &s);
	if (status != CLI_EXIT_OK)
		return status;
	vars.used = calloc((size_t)opt->argc, sizeof(*vars.used));
	if (!vars.used) {
		suite_free(s);
		cli_error("out of memory");
		return CLI_EXIT_RUN;
	}
	p.origin = s->origin;
	p.suite = s;
	status = plan_open(opt, &p);
	if (status == CLI_EXIT_OK)
		status = plan_alloc(&p, s->n_entries);
	if (status == CLI_EXIT_OK)
		status = prepare_entries(&p, s, &vars);
	if (status == CLI_EXIT_OK)
		status = apply_overrides(opt, &p, &vars);
	if (status == CLI_EXIT_OK)
		status = execute(opt, &p);
	plan_free(&p);
	cli_session_close(p.ctx);
	suite_free(s);
	free(vars.used);
	return status;
}
