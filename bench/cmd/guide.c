// SPDX-License-Identifier: MIT
/*
 * guide.c - `embperf guide PROFILE [key=value ...] -o DIR`: run every table
 * of a performance guide that the board profile makes possible, into one
 * report, and write it as the guide: DIR/guide.json (the report),
 * DIR/guide.md and DIR/guide.html (the tables and plots), and, with
 * --baseline=FORMER, DIR/compare.md and DIR/compare.html (both values and
 * the change in every cell).
 *
 * Order of events: the profile is read and checked (profile.c), the guide
 * (a suite with layout directives) parsed, every entry configured; what
 * the profile lacks or this build cannot do becomes a "not measured: why"
 * row, anything wrong in the profile or the guide is refused before
 * anything runs. Then the plan and an estimate of its time, the runs with
 * progress, and the files. A run that fails is a row "not measured: why";
 * a medium that fills up ends the rows of its @include; Ctrl-C (or a spent
 * --budget) ends the run and the guide is written with what was measured.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "guide.h"

/**
 * struct gentry - one entry of the guide as planned and run.
 * @e:          its suite entry.
 * @bench:      configured bench; NULL when it cannot run (see @reason) or has run.
 * @title:      its row name template, prefix included (NULL: derived).
 * @reason:     why it was not measured; "" when it was (or will be).
 * @failed:     it failed when run (not a missing profile key).
 * @estimate_s: how long it should take.
 * @table:      the title of the table it stands under, or "".
 */
struct gentry {
	const struct suite_entry *e;
	embperf_bench *bench;
	char *title;
	char reason[512];
	int failed;
	double estimate_s;
	const char *table;
};

/**
 * struct guide - a guide run.
 * @opt:      the command line.
 * @profile:  the board profile.
 * @layout:   the guide.
 * @ctx:      the session.
 * @report:   the results.
 * @g:        one per entry of @layout.
 * @filled:   per top-level @include: why its later rows were skipped, or "".
 * @progress: what the progress line shows.
 * @title:    its text.
 */
struct guide {
	const struct cli_options *opt;
	struct profile *profile;
	struct suite *layout;
	embperf_ctx *ctx;
	embperf_report *report;
	struct gentry *g;
	char (*filled)[512];
	struct cli_progress progress;
	char title[300];
};

/* ${name} of the guide: the profile's value (marked as used). */
static const char *profile_lookup(void *user, const char *name)
{
	struct profile_item *it = profile_find(user, name);

	if (!it || !*it->value)
		return NULL;
	it->used = 1;
	return it->value;
}

/* The title of the table entry @i stands under, or "". */
static const char *table_of(const struct suite *s, int i)
{
	static const char none[] = "";
	const char *title = none;

	for (int d = 0; d < s->n_directives && s->directives[d].position <= i; d++) {
		const char *args = s->directives[d].args;

		if (strcmp(s->directives[d].name, "table"))
			continue;
		/* The title: the words after the key=value operands. */
		title = args;
		for (size_t len; (len = strcspn(title, " \t")) && memchr(title, '=', len);)
			title += len + strspn(title + len, " \t");
	}
	return title;
}

/* Does entry @e take a value from the profile? */
static int uses_variables(const struct suite_entry *e)
{
	for (int k = 0; k < e->n_params; k++)
		if (strstr(e->params[k], "${"))
			return 1;
	for (int k = 0; k < e->n_overrides; k++)
		if (strstr(e->overrides[k], "${"))
			return 1;
	return 0;
}

/* Configure entry @i, or say why it cannot run. Return: an exit code. */
static int plan_entry(struct guide *g, int i, const struct entry_env *env)
{
	struct gentry *ge = &g->g[i];
	const struct suite_entry *e = &g->layout->entries[i];
	const char *hello = getenv("EMBPERF_HELLO");
	char err[512];
	int ret;

	ge->e = e;
	ge->table = table_of(g->layout, i);
	ge->title = entry_title(e->prefix, e->title);
	if (e->title && !ge->title)
		return CLI_EXIT_RUN;
	ge->bench = embperf_bench_new(g->ctx, e->kernel);
	if (!ge->bench) {
		if (errno == ENOMEM)
			return CLI_EXIT_RUN;
		/* A kernel this build lacks (an area or feature left out). */
		snprintf(ge->reason, sizeof(ge->reason), "%s", embperf_ctx_errmsg(g->ctx));
		return CLI_EXIT_OK;
	}
	/* As `suite` does: the program os.proc execs, for a build not installed. */
	if (hello && *hello && kernel_accepts(e->kernel, "exec_path"))
		embperf_bench_set(ge->bench, "exec_path", hello);
	ret = entry_setup(ge->bench, e, env, err, sizeof(err));
	if (ret == -ENOENT) {
		profile_lacks(err, ge->reason, sizeof(ge->reason));
		embperf_bench_free(ge->bench);
		ge->bench = NULL;
		return CLI_EXIT_OK;
	}
	if (ret < 0) {
		cli_error("%s:%d: %s%s", e->origin, e->line, err,
			  uses_variables(e) ? " (a value from the profile, see above)" : "");
		return uses_variables(e) ? CLI_EXIT_USAGE : CLI_EXIT_FILE;
	}
	return CLI_EXIT_OK;
}

/*
 * A [parameters] key: "param" for every kernel that has it, or
 * "KERNEL.param" for that kernel's entries only (cpu.whetstone.loops).
 * Return: the parameter's name; *kernel the kernel's, or "" for any.
 */
static const char *split_parameter(const char *key, char *kernel, size_t size)
{
	const char *dot = strrchr(key, '.');

	kernel[0] = '\0';
	if (dot && (size_t)(dot - key) < size) {
		snprintf(kernel, size, "%.*s", (int)(dot - key), key);
		if (embperf_kernel_param_count(kernel) > 0)
			return dot + 1;
		kernel[0] = '\0';
	}
	return key;
}

/* The profile's [parameters]: each on every entry whose kernel has it. */
static int apply_parameters(struct guide *g)
{
	char kernel[64];

	for (int k = 0; k < g->profile->n_items; k++) {
		struct profile_item *it = &g->profile->items[k];
		const char *param = split_parameter(it->key, kernel, sizeof(kernel));
		int used = 0;

		if (strcmp(it->section, "parameters") || !*it->key)
			continue;
		for (int i = 0; i < g->layout->n_entries; i++) {
			struct gentry *ge = &g->g[i];

			if ((*kernel && strcmp(kernel, ge->e->kernel)) ||
			    !kernel_accepts(ge->e->kernel, param))
				continue;
			used = 1;
			if (ge->bench && embperf_bench_set(ge->bench, param, it->value) < 0) {
				cli_error("%s: %s", it->where, embperf_bench_errmsg(ge->bench));
				return CLI_EXIT_USAGE;
			}
		}
		if (!used) {
			cli_error("%s: parameter '%s' is accepted by no entry of guide %s", it->where,
				  it->key, g->layout->origin);
			return CLI_EXIT_USAGE;
		}
		it->used = 1;
	}
	return CLI_EXIT_OK;
}

/* A parameter of @b as a number of seconds (durations) or a count; @dflt when absent. */
static double param_number(const embperf_bench *b, const char *key, double dflt)
{
	char text[64];
	uint64_t ns;

	if (embperf_bench_get(b, key, text, sizeof(text)) < 0)
		return dflt;
	if (strpbrk(text, "smun") && cli_parse_duration_ns(text, &ns) == 0)
		return (double)ns / 1e9;
	return strtod(text, NULL);
}

/* How many cases a bench's size sweeps make (lists: lists_of()). */
static double cases_of(const embperf_bench *b)
{
	const char *kernel = embperf_bench_kernel(b);
	double cases = 1;
	char name[64], value[1024];

	for (int i = 0; i < embperf_kernel_param_count(kernel); i++) {
		const char *dots;

		if (embperf_kernel_param_info(kernel, i, EMBPERF_INFO_NAME, name, sizeof(name)) < 0 ||
		    !strcmp(name, "metrics") || !strcmp(name, "percentiles") || !strcmp(name, "cpus") ||
		    embperf_bench_get(b, name, value, sizeof(value)) < 0)
			continue;
		dots = strstr(value, "..");
		if (dots) {
			double lo = guide_number(value), hi = guide_number(dots + 2);

			/* lat_mem_rd's steps: about two per octave. */
			if (lo > 0 && hi > lo)
				cases *= 2 * log2(hi / lo);
		}
	}
	return cases;
}

/* The number of comma-separated items of every list parameter, multiplied. */
static double lists_of(const embperf_bench *b)
{
	const char *kernel = embperf_bench_kernel(b);
	double product = 1;
	char name[64], value[1024];

	for (int i = 0; i < embperf_kernel_param_count(kernel); i++) {
		int items = 1;

		if (embperf_kernel_param_info(kernel, i, EMBPERF_INFO_NAME, name, sizeof(name)) < 0 ||
		    !strcmp(name, "metrics") || !strcmp(name, "percentiles") || !strcmp(name, "cpus") ||
		    embperf_bench_get(b, name, value, sizeof(value)) < 0)
			continue;
		for (const char *p = strchr(value, ','); p; p = strchr(p + 1, ','))
			items++;
		product *= items;
	}
	return product;
}

/* The pace storage rows are estimated at: a slow eMMC's. */
#define STORAGE_BYTES_PER_S 50e6

/* The 'size' parameter of a storage bench in bytes; 0 when it has none. */
static double guide_size(const embperf_bench *b)
{
	char text[64];
	double v;

	if (embperf_bench_get(b, "size", text, sizeof(text)) < 0)
		return 0;
	v = guide_number(text);
	return isnan(v) ? 0 : v;
}

/*
 * About how long @b takes: trials (duration, ramp and settle, times the
 * repetitions, or a search's trials), or calibrated samples; an estimate,
 * shown up front, never a limit.
 */
static double estimate_s(const embperf_bench *b)
{
	double reps = param_number(b, "repetitions", 3);
	double cases = cases_of(b) * lists_of(b);

	/* With the interval rule on, samples that agree stop at min_repetitions
	 * (lmbench's kernels: 11 of at most 101); count those. */
	if (param_number(b, "precision", 0) > 0)
		reps = fmin(reps, param_number(b, "min_repetitions", reps));

	if (param_number(b, "duration", -1) >= 0) {
		double trial = param_number(b, "duration", 1) + param_number(b, "ramp", 0) +
			       param_number(b, "settle", 0);
		char op[16] = "";

		/* Storage trials end with their file: its size at 50 MB/s, each way. */
		if (!strncmp(embperf_bench_kernel(b), "blk.", 4) && guide_size(b) > 0) {
			embperf_bench_get(b, "op", op, sizeof(op));
			trial = fmin(trial, guide_size(b) / STORAGE_BYTES_PER_S) *
				(strcmp(op, "both") ? 1 : 2);
		}

		if (param_number(b, "max_trials", -1) > 0)
			return cases * fmin(param_number(b, "max_trials", 10), 10) * trial;
		return cases * reps * trial;
	}
	return cases * (reps + param_number(b, "warmup", 1) + 3) *
		       param_number(b, "sample_time", 0.005) + 0.05 * cases;
}

static void format_time(double s, char *buf, size_t size)
{
	if (s < 10)
		snprintf(buf, size, "%.1f s", s);
	else if (s < 90)
		snprintf(buf, size, "%.0f s", ceil(s));
	else if (s < 5400)
		snprintf(buf, size, "%.0f min", ceil(s / 60));
	else
		snprintf(buf, size, "%.1f h", s / 3600);
}

/* Read the profile and the guide, configure every entry. Return: an exit code. */
static int plan(struct guide *g)
{
	struct entry_env env = { .lookup = profile_lookup, .user = g->profile };
	const char *name = profile_value(g->profile, "guide", NULL);
	char err[512];
	int status = CLI_EXIT_OK;

	if (!name) {
		cli_error("%s: the profile names no guide (guide = ti-am62px, xilinx-lmbench, microblaze-netperf, or a guide file)",
			  g->profile->origin);
		return CLI_EXIT_USAGE;
	}
	/* The keys the command itself reads. */
	for (int k = 0; k < g->profile->n_items; k++)
		if (!strcmp(g->profile->items[k].section, "") ||
		    !strcmp(g->profile->items[k].key, "interface"))
			g->profile->items[k].used = 1;
	status = cli_open_suite(name, &g->layout);
	if (status != CLI_EXIT_OK)
		return status;
	if (entry_check_includes(g->layout, err, sizeof(err)) < 0) {
		cli_error("%s", err);
		return CLI_EXIT_FILE;
	}
	env.full = !strcmp(profile_value(g->profile, "durations", "short"), "full");
	g->g = calloc((size_t)g->layout->n_entries, sizeof(*g->g));
	g->filled = calloc((size_t)g->layout->n_includes + 1, sizeof(*g->filled));
	if (!g->g || !g->filled)
		return CLI_EXIT_RUN;
	for (int i = 0; i < g->layout->n_entries && status == CLI_EXIT_OK; i++)
		status = plan_entry(g, i, &env);
	if (status == CLI_EXIT_OK)
		status = apply_parameters(g);
	for (int i = 0; i < g->layout->n_entries && status == CLI_EXIT_OK; i++)
		if (g->g[i].bench)
			g->g[i].estimate_s = estimate_s(g->g[i].bench);
	return status;
}

/* Up front: what runs, what does not and why, how long it should take. */
static void announce(const struct guide *g)
{
	int runnable = 0, missing = 0;
	double total = 0;
	char when[32];

	for (int i = 0; i < g->layout->n_entries; i++) {
		runnable += g->g[i].bench != NULL;
		missing += g->g[i].bench == NULL;
		total += g->g[i].estimate_s;
	}
	format_time(total, when, sizeof(when));
	cli_note(g->opt, "guide %s for %s: %d entries to run, about %s at %s durations; %d not measured",
		 g->layout->origin, profile_value(g->profile, "board", "this board"), runnable, when,
		 profile_value(g->profile, "durations", "short"), missing);
	for (int i = 0; i < g->layout->n_entries; i++) {
		int first = 1;

		/* Each reason once: the first entry that has it. */
		for (int j = 0; j < i && first; j++)
			first = strcmp(g->g[j].reason, g->g[i].reason) != 0;
		if (g->g[i].reason[0] && first)
			cli_note(g->opt, "not measured (%s): %s", g->g[i].table, g->g[i].reason);
	}
	for (int k = 0; k < g->profile->n_items; k++)
		if (*g->profile->items[k].key && !g->profile->items[k].used)
			cli_note(g->opt, "%s: %s is not used by guide %s", g->profile->items[k].where,
				 g->profile->items[k].key, g->layout->origin);
}

/* --plan: each entry, its table, its estimate or why it will not run. */
static void print_plan(const struct guide *g)
{
	char when[32];

	for (int i = 0; i < g->layout->n_entries; i++) {
		const struct gentry *ge = &g->g[i];

		format_time(ge->estimate_s, when, sizeof(when));
		printf("%-36.36s  %-40.40s  %s\n", ge->table,
		       ge->title ? ge->title : ge->e->kernel,
		       ge->bench ? when : ge->reason[0] ? "not measured" : "");
	}
}

/* The rows of entry @i (and of the aliases naming it) into the report. */
static int collect(struct guide *g, int i)
{
	struct gentry *ge = &g->g[i];
	int ret = entry_add_rows(g->report, ge->bench, ge->e->prefix, ge->title);

	for (int a = 0; a < g->layout->n_aliases && ret >= 0; a++) {
		const struct suite_alias *alias = &g->layout->aliases[a];
		char *title;

		if (alias->entry != i)
			continue;
		title = entry_title(alias->prefix, alias->title);
		ret = title ? entry_add_rows(g->report, ge->bench, alias->prefix, title) : -ENOMEM;
		free(title);
	}
	if (ret >= 0)
		return CLI_EXIT_OK;
	cli_error("%s:%d: cannot add the results: %s", ge->e->origin, ge->e->line,
		  embperf_report_errmsg(g->report));
	return CLI_EXIT_FILE;
}

/*
 * Failures that the later rows of the same @include would meet again: the
 * medium filled up, or the target, device or peer they share is missing,
 * refused or unreachable.
 */
static int ends_include(int err)
{
	static const int codes[] = { ENOSPC, EDQUOT, EFBIG, ENOENT, ENODEV, ENXIO, EACCES, EPERM,
				     EBUSY, ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT };

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (err == -codes[i])
			return 1;
	return 0;
}

/* Entry @i failed with @err: its reason; a failure the others would meet ends its @include. */
static void failed(struct guide *g, int i, int err)
{
	struct gentry *ge = &g->g[i];
	const char *msg = embperf_bench_errmsg(ge->bench);
	int inc = ge->e->include;

	ge->failed = 1;
	/* The library's message names the kernel already, or is given it here. */
	if (!strncmp(msg, ge->e->kernel, strlen(ge->e->kernel)))
		snprintf(ge->reason, sizeof(ge->reason), "%s", msg);
	else
		snprintf(ge->reason, sizeof(ge->reason), "%s: %s", ge->e->kernel, msg);
	cli_progress_clear();
	cli_error("%s:%d: %s", ge->e->origin, ge->e->line, ge->reason);
	if (!ends_include(err) || inc < 0)
		return;
	if (err == -ENOSPC || err == -EDQUOT || err == -EFBIG)
		snprintf(g->filled[inc], sizeof(g->filled[inc]),
			 "the medium filled up at an earlier row (%s); the later rows of @include %s were not run",
			 strerror(-err), g->layout->includes[inc].name);
	else
		snprintf(g->filled[inc], sizeof(g->filled[inc]),
			 "an earlier row failed (%s), as the later rows of @include %s would: they were not run",
			 strerror(-err), g->layout->includes[inc].name);
	cli_error("%s:%d: the later rows of @include %s are not run: %s", g->layout->origin,
		  g->layout->includes[inc].line, g->layout->includes[inc].name, strerror(-err));
}

/* Left time: the estimates of the entries from @i on. */
static double left_s(const struct guide *g, int i)
{
	double s = 0;

	for (; i < g->layout->n_entries; i++)
		s += g->g[i].bench ? g->g[i].estimate_s : 0;
	return s;
}

static void show_where(struct guide *g, int i, int ordinal)
{
	const struct gentry *ge = &g->g[i];
	char left[32];

	format_time(left_s(g, i), left, sizeof(left));
	g->progress.index = ordinal;
	snprintf(g->title, sizeof(g->title), "%s: %s (about %s left)", ge->table,
		 ge->title && !strchr(ge->title, '{') ? ge->title : ge->e->kernel, left);
	g->progress.title = g->title;
	/* Without a progress line (no terminal), a note per table. */
	if (!isatty(STDERR_FILENO) && (i == 0 || ge->table != g->g[i - 1].table))
		cli_note(g->opt, "[%d/%d] %s (about %s left)", ordinal + 1, g->progress.count,
			 ge->table, left);
}

/* Run the entries in order. Return: an exit code. */
static int run_all(struct guide *g)
{
	int status = CLI_EXIT_OK, ordinal = 0, stop = 0;

	for (int i = 0; i < g->layout->n_entries; i++) {
		struct gentry *ge = &g->g[i];
		int err, s;

		if (!ge->bench)
			continue;
		if (stop || (ge->e->include >= 0 && g->filled[ge->e->include][0])) {
			snprintf(ge->reason, sizeof(ge->reason), "%s",
				 stop == CLI_EXIT_CANCELLED ? "cancelled (SIGINT) before this row ran" :
				 stop ? "the time budget (--budget) was spent before this row ran" :
					g->filled[ge->e->include]);
			embperf_bench_free(ge->bench);
			ge->bench = NULL;
			continue;
		}
		show_where(g, i, ordinal++);
		err = embperf_bench_run(ge->bench);
		s = cli_exit_of_run(err);
		if (s == CLI_EXIT_RUN)
			failed(g, i, err);
		else if (s == CLI_EXIT_OK || s == CLI_EXIT_BUDGET)
			s = cli_exit_worse(s, collect(g, i));
		if (s == CLI_EXIT_CANCELLED || s == CLI_EXIT_BUDGET) {
			stop = s;
			if (s == CLI_EXIT_CANCELLED)
				snprintf(ge->reason, sizeof(ge->reason), "cancelled (SIGINT) while this row ran");
		}
		status = cli_exit_worse(status, s);
		embperf_bench_free(ge->bench);
		ge->bench = NULL;
	}
	return status;
}

/* Tabs and line breaks would break the not-measured lines: spaces instead. */
static void flatten(struct textbuf *b, const char *text)
{
	for (const char *p = text; *p; p++)
		tb_printf(b, "%c", *p == '\t' || *p == '\n' ? ' ' : *p);
}

/* The guide's system entries: its name, the board, and what was not measured. */
static int record(struct guide *g)
{
	struct textbuf nm = { 0 };
	char date[32], *lines;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	for (int i = 0; i < g->layout->n_entries; i++) {
		const struct gentry *ge = &g->g[i];

		if (!ge->reason[0])
			continue;
		flatten(&nm, ge->e->prefix);
		flatten(&nm, ge->e->title ? ge->e->title : "-");
		tb_printf(&nm, "\t%s\t", ge->e->kernel);
		for (int k = 0; k < ge->e->n_params; k++) {
			tb_printf(&nm, k ? " " : "");
			flatten(&nm, ge->e->params[k]);
		}
		tb_printf(&nm, "\t");
		flatten(&nm, ge->reason);
		tb_printf(&nm, "\n");
	}
	lines = tb_take(&nm);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	ret = embperf_report_set_sysinfo(g->report, GUIDE_KEY_NAME, g->layout->origin);
	ret = ret ?: embperf_report_set_sysinfo(g->report, GUIDE_KEY_BOARD,
						profile_value(g->profile, "board", "this board"));
	ret = ret ?: embperf_report_set_sysinfo(g->report, GUIDE_KEY_PROFILE, g->profile->origin);
	ret = ret ?: embperf_report_set_sysinfo(g->report, GUIDE_KEY_DURATIONS,
						profile_value(g->profile, "durations", "short"));
	ret = ret ?: embperf_report_set_sysinfo(g->report, GUIDE_KEY_DATE, date);
	if (!ret && profile_value(g->profile, "interface", NULL))
		ret = embperf_report_set_sysinfo(g->report, GUIDE_KEY_INTERFACE,
						 profile_value(g->profile, "interface", ""));
	ret = ret ?: embperf_report_set_sysinfo(g->report, GUIDE_KEY_NOT_MEASURED,
						lines ? lines : "");
	free(lines);
	return ret;
}

/**
 * guide_report_path() - a guide's report: FILE itself, or DIR/guide.json.
 * @arg:  what the user gave.
 * @buf:  receives the path.
 * @size: size of @buf.
 *
 * Return: @buf.
 */
const char *guide_report_path(const char *arg, char *buf, size_t size)
{
	struct stat st;

	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(buf, size, "%s/guide.json", arg);
	else
		snprintf(buf, size, "%s", arg);
	return buf;
}

/**
 * guide_render_dir() - write a guide report's markdown, HTML and plots
 * into @dir (guide.*; compare.* beside a baseline).
 * @opt:      options (-q).
 * @layout:   the guide.
 * @report:   the guide's results.
 * @baseline: a former guide's, or NULL.
 * @dir:      folder, made when missing.
 *
 * Return: CLI_EXIT_OK or CLI_EXIT_FILE.
 */
int guide_render_dir(const struct cli_options *opt, const struct suite *layout,
		     embperf_report *report, const embperf_report *baseline, const char *dir)
{
	struct guide_doc doc = { .layout = layout, .report = report, .baseline = baseline,
				 .tolerance = opt->tolerance_pct,
				 .plots_dir = baseline ? "compare-plots" : "plots" };
	char err[600];

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		cli_error("%s: %s", dir, strerror(errno));
		return CLI_EXIT_FILE;
	}
	if (guide_write(&doc, dir, err, sizeof(err)) < 0) {
		cli_error("%s", err);
		return CLI_EXIT_FILE;
	}
	cli_note(opt, "wrote %s/%s.md, %s/%s.html and their plots", dir,
		 baseline ? "compare" : "guide", dir, baseline ? "compare" : "guide");
	return CLI_EXIT_OK;
}

/* Save the report and lay it out, with the baseline's comparison when given. */
static int write_guide(struct guide *g)
{
	const char *dir = g->opt->output_path;
	embperf_report *baseline = NULL;
	char path[4096];
	int status = CLI_EXIT_OK, verdict = CLI_EXIT_OK;

	if (record(g) < 0) {
		cli_error("cannot record the guide: %s", embperf_report_errmsg(g->report));
		return CLI_EXIT_RUN;
	}
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		cli_error("%s: %s", dir, strerror(errno));
		return CLI_EXIT_FILE;
	}
	if (g->opt->baseline_path) {
		baseline = cli_load_report(g->ctx, guide_report_path(g->opt->baseline_path, path,
								     sizeof(path)));
		if (!baseline)
			return CLI_EXIT_FILE;
		verdict = cli_judge(g->opt, g->report, baseline);
	}
	snprintf(path, sizeof(path), "%s/guide.json", dir);
	if (embperf_report_save(g->report, EMBPERF_FORMAT_JSON, path) < 0) {
		cli_error("%s", embperf_report_errmsg(g->report));
		status = CLI_EXIT_FILE;
	}
	status = cli_exit_worse(status, guide_render_dir(g->opt, g->layout, g->report, NULL, dir));
	if (baseline)
		status = cli_exit_worse(status, guide_render_dir(g->opt, g->layout, g->report, baseline, dir));
	embperf_report_free(baseline);
	return cli_exit_worse(status, verdict);
}

static void guide_free(struct guide *g)
{
	for (int i = 0; g->g && g->layout && i < g->layout->n_entries; i++) {
		embperf_bench_free(g->g[i].bench);
		free(g->g[i].title);
	}
	free(g->g);
	free(g->filled);
	embperf_report_free(g->report);
	suite_free(g->layout);
	profile_free(g->profile);
}

/**
 * cmd_guide() - `embperf guide PROFILE|GUIDE [key=value ...] -o DIR`.
 * @opt: options; operands: the profile (or a built-in guide's name) and
 *       profile keys.
 *
 * Return: the command's exit code (see doc/cli.md).
 */
int cmd_guide(const struct cli_options *opt)
{
	struct guide g = { .opt = opt };
	char err[1024];
	int status, ret;

	if (opt->argc < 1 || (!opt->output_path && !opt->plan) || opt->format_given) {
		cli_error(opt->format_given ? "--format does not apply to `guide`: it writes DIR/guide.json, .md and .html"
					    : "guide needs a profile and a folder: embperf guide PROFILE -o DIR (see `embperf help guide`)");
		return CLI_EXIT_USAGE;
	}
	ret = profile_load(opt->argv[0], opt->argv + 1, opt->argc - 1, &g.profile, err, sizeof(err));
	if (ret < 0) {
		cli_error("%s", ret == -ENOMEM ? "out of memory" : err);
		return ret == -EINVAL ? CLI_EXIT_USAGE : ret == -ENOMEM ? CLI_EXIT_RUN : CLI_EXIT_FILE;
	}
	status = cli_session_open(opt, &g.progress, &g.ctx);
	if (status == CLI_EXIT_OK)
		status = plan(&g);
	if (status == CLI_EXIT_OK) {
		g.report = embperf_report_new(g.ctx);
		status = g.report ? CLI_EXIT_OK : CLI_EXIT_RUN;
	}
	if (status == CLI_EXIT_OK) {
		for (int i = 0; i < g.layout->n_entries; i++)
			g.progress.count += g.g[i].bench != NULL;
		announce(&g);
		if (opt->plan) {
			print_plan(&g);
			guide_free(&g);
			cli_session_close(g.ctx);
			return CLI_EXIT_OK;
		}
		status = run_all(&g);
		if (status == CLI_EXIT_CANCELLED)
			cli_error("cancelled: the guide keeps what was measured");
		status = cli_exit_worse(status, write_guide(&g));
	}
	guide_free(&g);
	cli_session_close(g.ctx);
	return status;
}
