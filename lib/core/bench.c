// SPDX-License-Identifier: MIT
/*
 * bench.c - the bench object: named parameters, and a run from setup to
 * teardown (pinning, counters, cases, results, cancel).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "core.h"

static int find_param(const embperf_bench *b, const char *name)
{
	for (int i = 0; name && i < b->n_params; i++)
		if (!strcmp(ep_kernel_param(b->kernel, i)->name, name))
			return i;
	return -1;
}

static int bench_fail(embperf_bench *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bench_fail(embperf_bench *b, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->errmsg, sizeof(b->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

static void free_results(embperf_bench *b)
{
	for (int i = 0; i < b->n_results; i++)
		ep_result_free(b->results[i]);
	free(b->results);
	b->results = NULL;
	b->n_results = 0;
}

void embperf_bench_free(embperf_bench *bench)
{
	if (!bench)
		return;
	free_results(bench);
	for (int i = 0; i < bench->n_params; i++)
		ep_value_free(&bench->values[i]);
	free(bench->values);
	free(bench);
}

embperf_bench *ep_bench_new_kernel(embperf_ctx *ctx, const struct ep_kernel *k)
{
	embperf_bench *b = calloc(1, sizeof(*b));
	char err[EP_ERRMSG_MAX];

	if (!b)
		goto nomem;
	b->ctx = ctx;
	b->kernel = k;
	b->n_params = ep_kernel_param_total(k);
	b->values = calloc((size_t)b->n_params, sizeof(*b->values));
	if (!b->values)
		goto nomem;
	for (int i = 0; i < b->n_params; i++) {
		int rc = ep_param_parse(ep_kernel_param(k, i), ep_kernel_param_default(k, i),
					&b->values[i], err, sizeof(err));

		if (rc == -ENOMEM)
			goto nomem;
		if (rc) {
			/* A default that does not parse is a bug in the kernel's table. */
			ep_ctx_fail(ctx, rc, "kernel %s: bad default: %s", k->name, err);
			embperf_bench_free(b);
			errno = -rc;
			return NULL;
		}
	}
	return b;
nomem:
	embperf_bench_free(b);
	errno = ENOMEM;
	return NULL;
}

embperf_bench *embperf_bench_new(embperf_ctx *ctx, const char *kernel)
{
	const struct ep_kernel *k;
	struct ep_buf names;

	if (!ctx || !kernel) {
		errno = EINVAL;
		return NULL;
	}
	k = ep_kernel_find(kernel);
	if (!k && ep_area_left_out(kernel)) {
		ep_ctx_fail(ctx, -ENOENT,
			    "kernel '%s' is not in this build: its area '%s' was left out "
			    "(built with -Dareas=%s)",
			    kernel, ep_area_left_out(kernel), ep_areas_built());
		errno = ENOENT;
		return NULL;
	}
	if (!k) {
		ep_buf_init(&names);
		for (int i = 0; i < embperf_kernel_count(); i++)
			ep_buf_printf(&names, "%s%s", i ? ", " : "", embperf_kernel_name(i));
		ep_ctx_fail(ctx, -ENOENT, "kernel '%s' does not exist; accepted: %s", kernel,
			    names.data ? names.data : "");
		ep_buf_free(&names);
		errno = ENOENT;
		return NULL;
	}
	return ep_bench_new_kernel(ctx, k);
}

const char *embperf_bench_kernel(const embperf_bench *bench)
{
	return bench->kernel->name;
}

static int unknown_param(embperf_bench *b, const char *name)
{
	struct ep_buf names;

	ep_buf_init(&names);
	for (int i = 0; i < b->n_params; i++)
		ep_buf_printf(&names, "%s%s", i ? ", " : "", ep_kernel_param(b->kernel, i)->name);
	bench_fail(b, -ENOENT, "kernel %s has no parameter '%s'; accepted: %s", b->kernel->name,
		   name ? name : "(null)", names.data ? names.data : "");
	ep_buf_free(&names);
	return -ENOENT;
}

/* Length of the comma-separated item at @p (up to the next comma or the end). */
static size_t item_len(const char *p)
{
	const char *comma = strchr(p, ',');

	return comma ? (size_t)(comma - p) : strlen(p);
}

/* Whether the comma-separated @list names @metric. */
static int list_has(const char *list, const char *metric)
{
	size_t metric_len = strlen(metric);

	for (const char *p = list; *p;) {
		size_t len = item_len(p);

		if (len == metric_len && !strncmp(p, metric, len))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* The kernel's metric names, '|'-separated, for an error message. */
static void metric_names(const struct ep_kernel *k, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < k->n_metrics && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? "|" : "", k->metrics[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/*
 * The 'metrics' parameter, checked when set: every name it lists must be a
 * metric of the kernel. Return: 0, or -EINVAL with the bench's message set.
 */
static int check_metrics(embperf_bench *bench, const char *list)
{
	const struct ep_kernel *k = bench->kernel;
	char names[512];

	for (const char *p = list; *p;) {
		size_t len = item_len(p);
		int found = 0;

		for (int i = 0; i < k->n_metrics && !found; i++)
			found = strlen(k->metrics[i].name) == len &&
				!strncmp(k->metrics[i].name, p, len);
		if (!found) {
			metric_names(k, names, sizeof(names));
			return bench_fail(bench, -EINVAL,
					  "parameter 'metrics': value '%s' names '%.*s', not a metric "
					  "of %s; accepted: a comma-separated list of %s",
					  list, (int)len, p, k->name, names);
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

int embperf_bench_set(embperf_bench *bench, const char *name, const char *value)
{
	int i = find_param(bench, name);
	struct ep_value v;
	int rc;

	if (i < 0)
		return unknown_param(bench, name);
	rc = ep_param_parse(ep_kernel_param(bench->kernel, i), value, &v, bench->errmsg,
			    sizeof(bench->errmsg));
	if (rc)
		return rc;
	if (!strcmp(name, "percentiles")) {
		double pcts[EP_MAX_PERCENTILES];

		rc = ep_percentiles_parse(v.text, pcts, bench->errmsg, sizeof(bench->errmsg));
		rc = rc < 0 ? rc : 0;
	} else if (!strcmp(name, "metrics")) {
		rc = check_metrics(bench, v.text);
	}
	if (rc) {
		ep_value_free(&v);
		return rc;
	}
	ep_value_free(&bench->values[i]);
	bench->values[i] = v;
	return 0;
}

int embperf_bench_set_int(embperf_bench *bench, const char *name, int64_t value)
{
	int i = find_param(bench, name);
	const struct ep_param_desc *d;
	char text[64];

	if (i < 0)
		return unknown_param(bench, name);
	d = ep_kernel_param(bench->kernel, i);
	switch (d->type) {
	case EP_PT_ENUM:
	case EP_PT_STRING:
		return bench_fail(bench, -EINVAL,
				  "parameter '%s': an integer was given but it takes %s", d->name,
				  d->type == EP_PT_ENUM ? "one of its choices as text" : "text");
	case EP_PT_DURATION:
		snprintf(text, sizeof(text), "%" PRId64 "ns", value);
		break;
	default:
		snprintf(text, sizeof(text), "%" PRId64, value);
		break;
	}
	return embperf_bench_set(bench, name, text);
}

int embperf_bench_set_double(embperf_bench *bench, const char *name, double value)
{
	int i = find_param(bench, name);
	const struct ep_param_desc *d;
	char text[64];

	if (i < 0)
		return unknown_param(bench, name);
	d = ep_kernel_param(bench->kernel, i);
	if (d->type == EP_PT_DOUBLE) {
		ep_format_double(value, text, sizeof(text));
		return embperf_bench_set(bench, name, text);
	}
	if (!isfinite(value) || value != floor(value) || fabs(value) >= 9.2e18) {
		ep_format_double(value, text, sizeof(text));
		return bench_fail(bench, -EINVAL,
				  "parameter '%s': value '%s' is not a whole number; accepted: whole numbers in the parameter's base unit (%s)",
				  d->name, text, d->unit ? d->unit : "");
	}
	return embperf_bench_set_int(bench, name, (int64_t)value);
}

int embperf_bench_get(const embperf_bench *bench, const char *name, char *buf, size_t size)
{
	int i = find_param(bench, name);

	if (i < 0)
		return -ENOENT;
	if (size)
		snprintf(buf, size, "%s", bench->values[i].text);
	return (int)strlen(bench->values[i].text);
}

int embperf_bench_result_count(const embperf_bench *bench)
{
	return bench->n_results;
}

const embperf_result *embperf_bench_result(const embperf_bench *bench, int index)
{
	if (index < 0 || index >= bench->n_results)
		return NULL;
	return bench->results[index];
}

const char *embperf_bench_errmsg(const embperf_bench *bench)
{
	return bench->errmsg;
}

/* Parameter access for kernels. */

static const struct ep_value *run_value(const struct ep_run *run, const char *name)
{
	int i = find_param(run->bench, name);

	return i < 0 ? NULL : &run->bench->values[i];
}

int64_t ep_param_int(const struct ep_run *run, const char *name)
{
	const struct ep_value *v = run_value(run, name);

	return v ? v->i : 0;
}

double ep_param_double(const struct ep_run *run, const char *name)
{
	const struct ep_value *v = run_value(run, name);

	return v ? v->d : 0.0;
}

const char *ep_param_text(const struct ep_run *run, const char *name)
{
	const struct ep_value *v = run_value(run, name);

	return v ? v->text : NULL;
}

void ep_param_range(const struct ep_run *run, const char *name, int64_t *lo, int64_t *hi)
{
	const struct ep_value *v = run_value(run, name);

	*lo = v ? v->i : 0;
	*hi = v ? v->hi : 0;
}

/* The run. */

int ep_run_add_case(struct ep_run *run, const struct ep_case *c)
{
	struct ep_run_case *rc;

	if (run->n_cases == run->cap_cases) {
		int cap = run->cap_cases ? run->cap_cases * 2 : 8;
		struct ep_run_case *p = realloc(run->cases, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		run->cases = p;
		run->cap_cases = cap;
	}
	rc = &run->cases[run->n_cases];
	memset(rc, 0, sizeof(*rc));
	rc->c = *c;
	rc->labels = ep_strdup(c->labels);
	if (!rc->labels)
		return -ENOMEM;
	rc->c.labels = rc->labels;
	run->n_cases++;
	return 0;
}

int ep_run_add_trial(struct ep_run *run, const struct ep_trial_case *tc)
{
	struct ep_case none = { .labels = tc->labels };
	struct ep_run_case *rc;
	int err;

	if (!tc->body || tc->n_counters < 0 || tc->n_counters > EP_TALLY_MAX_COUNTERS)
		return ep_run_fail(run, -EINVAL, "kernel %s: trial case '%s' is malformed",
				   run->kernel->name, tc->labels ? tc->labels : "");
	err = ep_run_add_case(run, &none);
	if (err)
		return err;
	rc = &run->cases[run->n_cases - 1];
	rc->is_trial = 1;
	rc->tc = *tc;
	rc->tc.labels = rc->labels;
	if (tc->search) {
		rc->search = *tc->search;
		rc->tc.search = &rc->search;
	}
	return 0;
}

int ep_run_add_result(struct ep_run *run, struct embperf_result *r)
{
	if (run->n_results == run->cap_results) {
		int cap = run->cap_results ? run->cap_results * 2 : 8;
		struct embperf_result **p = realloc(run->results, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		run->results = p;
		run->cap_results = cap;
	}
	run->results[run->n_results++] = r;
	return 0;
}

int ep_run_add_value(struct ep_run *run, int metric, const char *labels, double value)
{
	const struct ep_metric_desc *m;
	struct embperf_result *r;

	if (metric < 0 || metric >= run->kernel->n_metrics)
		return -EINVAL;
	m = &run->kernel->metrics[metric];
	r = ep_result_new(run->kernel->name, m->name, m->unit, labels, run->params_text);
	if (!r)
		return -ENOMEM;
	r->primary = m->primary;
	r->higher_better = m->higher_better;
	r->cpu = run->cpu;
	if (ep_result_set_samples(r, &value, 1) || ep_run_add_result(run, r)) {
		ep_result_free(r);
		return -ENOMEM;
	}
	return 0;
}

const struct embperf_result *ep_run_find_result(const struct ep_run *run, int metric,
						const char *labels)
{
	const char *name;

	if (metric < 0 || metric >= run->kernel->n_metrics)
		return NULL;
	name = run->kernel->metrics[metric].name;
	for (int i = 0; i < run->n_results; i++) {
		const struct embperf_result *r = run->results[i];

		if (!strcmp(r->metric, name) && (!labels || !strcmp(r->labels, labels)))
			return r;
	}
	return NULL;
}

int ep_run_fail(struct ep_run *run, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->bench->errmsg, sizeof(run->bench->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

void ep_run_log(struct ep_run *run, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ep_ctx_vlog(run->ctx, level, fmt, ap);
	va_end(ap);
}

int ep_run_check(struct ep_run *run)
{
	uint64_t deadline = ep_ctx_deadline_ns(run->ctx);

	if (embperf_ctx_is_cancelled(run->ctx))
		return -ECANCELED;
	if (deadline && ep_now_ns() >= deadline) {
		run->budget_hit = 1;
		return -ETIME;
	}
	return 0;
}

embperf_ctx *ep_run_ctx(struct ep_run *run)
{
	return run->ctx;
}

int ep_run_cpu(const struct ep_run *run)
{
	return run->cpu;
}

/**
 * params_text() - every parameter as "k=v k=v", recorded with each result.
 * @b: the bench.
 *
 * A value holding a space, a quote or a backslash (a path) is quoted by
 * ep_pairs_append_value(), so ep_pairs_parse() gives it back intact.
 *
 * Return: malloc'd text, or NULL on ENOMEM.
 */
static char *params_text(const embperf_bench *b)
{
	struct ep_buf buf;

	ep_buf_init(&buf);
	for (int i = 0; i < b->n_params; i++) {
		ep_buf_printf(&buf, "%s%s=", i ? " " : "", ep_kernel_param(b->kernel, i)->name);
		ep_pairs_append_value(&buf, b->values[i].text);
	}
	return ep_buf_take(&buf);
}

/* Pin the calling thread to the run's CPU; *saved receives the old mask. */
static int pin(struct ep_run *run, cpu_set_t *saved, int *pinned)
{
	int cpu = (int)ep_param_int(run, "cpu");
	cpu_set_t one;

	*pinned = 0;
	if (cpu < 0)
		cpu = embperf_ctx_get_cpu(run->ctx);
	run->cpu = cpu;
	if (cpu < 0)
		return 0;
	if (sched_getaffinity(0, sizeof(*saved), saved))
		return ep_run_fail(run, -errno, "cpu: cannot read the CPU mask");
	if (!CPU_ISSET(cpu, saved))
		return ep_run_fail(run, -EINVAL,
				   "parameter 'cpu': value '%d' is not a CPU this process may use", cpu);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return ep_run_fail(run, -errno, "parameter 'cpu': cannot pin to CPU %d", cpu);
	*pinned = 1;
	return 0;
}

static void free_run(struct ep_run *run)
{
	for (int i = 0; i < run->n_cases; i++)
		free(run->cases[i].labels);
	free(run->cases);
	for (int i = 0; i < run->n_results; i++)
		ep_result_free(run->results[i]);
	free(run->results);
	free(run->params_text);
}

static int run_cases(struct ep_run *run)
{
	int rc = 0;

	for (int i = 0; i < run->n_cases && !rc; i++) {
		rc = ep_run_check(run);
		if (!rc && run->cases[i].is_trial)
			rc = ep_trial_measure(run, &run->cases[i], i);
		else if (!rc)
			rc = ep_engine_measure(run, &run->cases[i], i);
	}
	return rc;
}

/*
 * Drop the results of metrics the 'metrics' parameter leaves out. After the
 * kernel's finish(), which may derive its metrics from the dropped ones (a
 * parallelism from step times).
 */
static void keep_listed_metrics(struct ep_run *run)
{
	const char *list = ep_param_text(run, "metrics");
	int kept = 0;

	if (!*list)
		return;
	for (int i = 0; i < run->n_results; i++) {
		if (list_has(list, run->results[i]->metric))
			run->results[kept++] = run->results[i];
		else
			ep_result_free(run->results[i]);
	}
	run->n_results = kept;
}

/*
 * Setup, the cases, finish; then teardown whenever setup succeeded or left
 * a state behind, so that a kernel's setup unwinds its failures through
 * its teardown alone.
 */
static int run_kernel(struct ep_run *run)
{
	void *state = NULL;
	int rc, set_up;

	rc = run->kernel->setup(run, &state);
	set_up = !rc;
	if (!rc)
		rc = run_cases(run);
	if (!rc && run->kernel->finish)
		rc = run->kernel->finish(run, state);
	if ((set_up || state) && run->kernel->teardown)
		run->kernel->teardown(state);
	return rc;
}

int embperf_bench_run(embperf_bench *bench)
{
	struct ep_run run = { .bench = bench, .ctx = bench->ctx, .kernel = bench->kernel };
	cpu_set_t saved;
	int pinned = 0, rc;

	free_results(bench);
	bench->errmsg[0] = '\0';
	if (bench->kernel->feature && !embperf_has_feature(bench->kernel->feature))
		return bench_fail(bench, -EOPNOTSUPP,
				  "kernel %s needs '%s', which this build of libembperf left out",
				  bench->kernel->name, bench->kernel->feature);
	if (embperf_ctx_is_cancelled(bench->ctx))
		return bench_fail(bench, -ECANCELED, "the context was cancelled");
	ep_engine_read_cfg(&run);
	run.params_text = params_text(bench);
	if (!run.params_text)
		return bench_fail(bench, -ENOMEM, "out of memory");
	rc = pin(&run, &saved, &pinned);
	if (!rc)
		rc = run_kernel(&run);
	keep_listed_metrics(&run);
	if (pinned)
		sched_setaffinity(0, sizeof(saved), &saved);

	if (rc == -ECANCELED || embperf_ctx_is_cancelled(bench->ctx)) {
		free_run(&run);
		return bench_fail(bench, -ECANCELED, "kernel %s: cancelled", bench->kernel->name);
	}
	if (!rc && run.budget_hit)
		rc = -ETIME;
	if (rc == -ETIME && !bench->errmsg[0])
		bench_fail(bench, -ETIME, "kernel %s: the time budget ended before the run completed",
			   bench->kernel->name);
	if (rc && rc != -ETIME) {
		if (!bench->errmsg[0])
			bench_fail(bench, rc, "kernel %s: %s", bench->kernel->name,
				   embperf_strerror(rc));
		free_run(&run);
		return rc;
	}
	/* Hand the results over to the bench. */
	bench->results = run.results;
	bench->n_results = run.n_results;
	run.results = NULL;
	run.n_results = 0;
	free_run(&run);
	return rc;
}
