// SPDX-License-Identifier: MIT
/*
 * run.c - one run of a kernel (run.h): its state, the kernel-facing API,
 * and what the engine's drivers share.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "ctx.h"
#include "params.h"
#include "registry.h"
#include "result.h"
#include "run.h"
#include "sysinfo.h"
#include "util.h"

/* Bytes of a label of ep_run_add_params_case(): "mode=mo size=1M". */
#define RUN_PARAM_LABEL_MAX 128

/**
 * params_text() - every parameter as "k=v k=v", recorded with each result.
 *
 * A value holding a space, a quote or a backslash (a path) is quoted by
 * ep_pairs_append_value(), so ep_pairs_parse() gives it back intact.
 *
 * Return: malloc'd text, or NULL on ENOMEM.
 */
static char *params_text(const struct ep_kernel *k, const struct ep_value *values)
{
	struct ep_buf buf;

	ep_buf_init(&buf);
	for (int i = 0; i < ep_kernel_param_total(k); i++) {
		ep_buf_printf(&buf, "%s%s=", i ? " " : "", ep_kernel_param(k, i)->name);
		ep_pairs_append_value(&buf, values[i].text);
	}
	return ep_buf_take(&buf);
}

int ep_run_init(struct ep_run *run, embperf_ctx *ctx, const struct ep_kernel *kernel,
		const struct ep_value *values, char *errmsg, size_t errmsg_size)
{
	memset(run, 0, sizeof(*run));
	run->ctx = ctx;
	run->clock = ep_ctx_clock(ctx);
	run->kernel = kernel;
	run->values = values;
	run->errmsg = errmsg;
	run->errmsg_size = errmsg_size;
	run->cpu = -1;
	ep_cfg_read(&run->cfg, kernel, values);
	run->params_text = params_text(kernel, values);
	return run->params_text ? 0 : -ENOMEM;
}

void ep_run_free(struct ep_run *run)
{
	for (int i = 0; i < run->n_cases; i++)
		free(run->cases[i].labels);
	free(run->cases);
	for (int i = 0; i < run->n_results; i++)
		ep_result_free(run->results[i]);
	free(run->results);
	free(run->params_text);
	run->cases = NULL;
	run->results = NULL;
	run->params_text = NULL;
	run->n_cases = run->n_results = 0;
}

/* Parameter access for kernels. */

/* The value of parameter @name; an undeclared name is remembered (the run fails). */
static const struct ep_value *run_value(const struct ep_run *run, const char *name)
{
	int i = ep_kernel_param_index(run->kernel, name);

	if (i < 0) {
		/* Cast: noting the kernel's bug is not a change of the run's meaning. */
		struct ep_run *r = (struct ep_run *)run;

		if (!r->unknown_param)
			r->unknown_param = name ? name : "(null)";
		return NULL;
	}
	return &run->values[i];
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

	return v ? v->text : "";
}

void ep_param_range(const struct ep_run *run, const char *name, int64_t *lo, int64_t *hi)
{
	const struct ep_value *v = run_value(run, name);

	*lo = v ? v->i : 0;
	*hi = v ? v->hi : 0;
}

/* Cases and results. */

static struct ep_run_case *new_case(struct ep_run *run, const char *labels)
{
	struct ep_run_case *rc;

	if (run->n_cases == run->cap_cases) {
		int cap = run->cap_cases ? run->cap_cases * 2 : 8;
		struct ep_run_case *p = realloc(run->cases, (size_t)cap * sizeof(*p));

		if (!p)
			return NULL;
		run->cases = p;
		run->cap_cases = cap;
	}
	rc = &run->cases[run->n_cases];
	memset(rc, 0, sizeof(*rc));
	rc->labels = ep_strdup(labels);
	if (!rc->labels)
		return NULL;
	run->n_cases++;
	return rc;
}

int ep_run_add_case(struct ep_run *run, const struct ep_case *c)
{
	struct ep_run_case *rc = new_case(run, c->labels);

	if (!rc)
		return -ENOMEM;
	rc->c = *c;
	rc->c.labels = rc->labels;
	return 0;
}

int ep_run_add_params_case(struct ep_run *run, const struct ep_case *c, ...)
{
	struct ep_case labelled = *c;
	char label[RUN_PARAM_LABEL_MAX] = "";
	const char *param;
	size_t len = 0;
	va_list ap;

	va_start(ap, c);
	while ((param = va_arg(ap, const char *)) && len < sizeof(label))
		len += (size_t)snprintf(label + len, sizeof(label) - len, "%s%s=%s", len ? " " : "",
					param, ep_param_text(run, param));
	va_end(ap);
	labelled.labels = label;
	return ep_run_add_case(run, &labelled);
}

int ep_run_add_trial_measured(struct ep_run *run, const struct ep_trial_case *tc,
			      ep_trials_fn measure)
{
	struct ep_run_case *rc;

	if (!tc->body || tc->n_counters < 0 || tc->n_counters > EP_TALLY_MAX_COUNTERS)
		return ep_run_fail(run, -EINVAL, "kernel %s: trial case '%s' is malformed",
				   run->kernel->name, tc->labels ? tc->labels : "");
	rc = new_case(run, tc->labels);
	if (!rc)
		return -ENOMEM;
	rc->measure_trials = measure;
	rc->c.labels = rc->labels;
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

struct embperf_result *ep_run_new_result(const struct ep_run *run, int metric, const char *labels)
{
	const struct ep_metric_desc *m = &run->kernel->metrics[metric];
	struct embperf_result *r = ep_result_new(run->kernel->name, m->name, m->unit, labels,
						 run->params_text);

	if (!r)
		return NULL;
	r->primary = m->primary;
	r->higher_better = m->higher_better;
	r->cpu = run->cpu;
	return r;
}

int ep_run_add_value(struct ep_run *run, int metric, const char *labels, double value)
{
	struct embperf_result *r;

	if (metric < 0 || metric >= run->kernel->n_metrics)
		return -EINVAL;
	r = ep_run_new_result(run, metric, labels);
	if (!r)
		return -ENOMEM;
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

/* Messages, limits and the session. */

int ep_run_fail(struct ep_run *run, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->errmsg, run->errmsg_size, fmt, ap);
	va_end(ap);
	return err;
}

int ep_run_refuse(struct ep_run *run, int err, const char *name, const char *fmt, ...)
{
	int used = snprintf(run->errmsg, run->errmsg_size, "parameter '%s': value '%s'", name,
			    ep_param_text(run, name));
	va_list ap;

	if (used < 0 || (size_t)used >= run->errmsg_size)
		return err;
	va_start(ap, fmt);
	vsnprintf(run->errmsg + used, run->errmsg_size - (size_t)used, fmt, ap);
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
	if (deadline && ep_clock_now_ns(run->clock) >= deadline) {
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

int ep_mem_check_fits(struct ep_run *run, const char *param, const char *value,
		      uint64_t need_bytes)
{
	const char *source;
	uint64_t avail_bytes = ep_mem_available(&source);
	char need[32], avail[32];

	/* A 32-bit process cannot map it whatever the machine has (LPAE boards, qemu-user). */
	if (need_bytes > SIZE_MAX) {
		avail_bytes = SIZE_MAX;
		source = "this process's address space";
	}
	if (!avail_bytes || need_bytes <= avail_bytes)
		return 0;
	ep_mem_format_bytes(need_bytes, need, sizeof(need));
	ep_mem_format_bytes(avail_bytes, avail, sizeof(avail));
	return ep_run_fail(run, -ENOMEM,
			   "parameter '%s': value '%s' needs %s of memory, more than the %s "
			   "available (%s); accepted: a smaller %s",
			   param, value, need, avail, source, param);
}

int ep_disk_check_fits(struct ep_run *run, const char *param, const char *where,
		       const char *path, uint64_t need_bytes)
{
	struct statvfs vfs;
	uint64_t free_bytes;

	if (!need_bytes || statvfs(path, &vfs) || !vfs.f_blocks)
		return 0; /* ramfs reports no size */
	free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (need_bytes <= free_bytes)
		return 0;
	return ep_run_refuse(run, -ENOSPC, param, " needs %" PRIu64 " bytes of room in '%s', "
			     "which has %" PRIu64 " free (short by %" PRIu64 "); accepted: a "
			     "smaller %s, or a '%s' with more room", need_bytes, path, free_bytes,
			     need_bytes - free_bytes, param, where);
}

/* What the drivers share. */

uint64_t ep_run_case_deadline(const struct ep_run *run, int *from_budget)
{
	uint64_t budget = ep_ctx_deadline_ns(run->ctx);
	uint64_t end = UINT64_MAX;

	*from_budget = 0;
	if (run->cfg.max_time_ns)
		end = ep_clock_now_ns(run->clock) + (uint64_t)run->cfg.max_time_ns;
	if (budget && budget <= end) {
		*from_budget = 1;
		end = budget;
	}
	return end;
}

int ep_run_deadline_reached(struct ep_run *run, uint64_t deadline_ns, int from_budget,
			    uint64_t next_ns)
{
	uint64_t now;

	if (embperf_ctx_is_cancelled(run->ctx))
		return -ECANCELED;
	if (deadline_ns == UINT64_MAX)
		return 0;
	now = ep_clock_now_ns(run->clock);
	if (now < deadline_ns && next_ns <= deadline_ns - now)
		return 0;
	if (from_budget)
		run->budget_hit = 1;
	return 1;
}

int ep_run_nothing_measured(struct ep_run *run, const char *labels, int from_budget,
			    const char *what)
{
	char text[32];

	if (from_budget)
		return -ETIME;
	ep_format_duration(run->cfg.max_time_ns, text, sizeof(text));
	return ep_run_fail(run, -ETIMEDOUT,
			   "kernel %s: case '%s': parameter 'max_time' (%s) ended before the first "
			   "%s; accepted: a larger max_time, or 0 for no limit",
			   run->kernel->name, labels, text, what);
}

void ep_run_progress(struct ep_run *run, int index, const char *labels, double part)
{
	ep_ctx_progress(run->ctx, run->kernel->name, labels,
			((double)index + part) / (double)run->n_cases);
}
