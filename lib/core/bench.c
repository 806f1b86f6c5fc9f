// SPDX-License-Identifier: MIT
/*
 * bench.c - the bench object, the public face of a kernel: found by name,
 * its named parameters set and read, a run handed to the runner, its
 * results and its message kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cfg.h"
#include "ctx.h"
#include "params.h"
#include "registry.h"
#include "result.h"
#include "run.h"
#include "runner.h"
#include "util.h"

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
	if (k)
		return ep_bench_new_kernel(ctx, k);
	if (ep_area_left_out(kernel)) {
		ep_ctx_fail(ctx, -ENOENT,
			    "kernel '%s' is not in this build: its area '%s' was left out "
			    "(built with -Dareas=%s)",
			    kernel, ep_area_left_out(kernel), ep_areas_built());
	} else if (ep_kernels_chosen()) {
		ep_ctx_fail(ctx, -ENOENT,
			    "kernel '%s' is not in this build, which registers only -Dkernels=%s",
			    kernel, ep_kernels_chosen());
	} else {
		ep_buf_init(&names);
		for (int i = 0; i < embperf_kernel_count(); i++)
			ep_buf_printf(&names, "%s%s", i ? ", " : "", embperf_kernel_name(i));
		ep_ctx_fail(ctx, -ENOENT, "kernel '%s' does not exist; accepted: %s", kernel,
			    names.data ? names.data : "");
		ep_buf_free(&names);
	}
	errno = ENOENT;
	return NULL;
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

/* The descriptor of parameter @name; NULL, with the message of
 * unknown_param(), when the kernel has none of that name. */
static const struct ep_param_desc *known_param(embperf_bench *b, const char *name)
{
	int i = ep_kernel_param_index(b->kernel, name);

	if (i < 0) {
		unknown_param(b, name);
		return NULL;
	}
	return ep_kernel_param(b->kernel, i);
}

int embperf_bench_set(embperf_bench *bench, const char *name, const char *value)
{
	int i = ep_kernel_param_index(bench->kernel, name);
	struct ep_value v;
	int rc;

	if (i < 0)
		return unknown_param(bench, name);
	rc = ep_param_parse(ep_kernel_param(bench->kernel, i), value, &v, bench->errmsg,
			    sizeof(bench->errmsg));
	if (rc)
		return rc;
	rc = ep_cfg_check(bench->kernel, name, v.text, bench->errmsg, sizeof(bench->errmsg));
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
	const struct ep_param_desc *d = known_param(bench, name);
	char text[64];

	if (!d)
		return -ENOENT;
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
	const struct ep_param_desc *d = known_param(bench, name);
	char text[64];

	if (!d)
		return -ENOENT;
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
	int i = ep_kernel_param_index(bench->kernel, name);

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

/* Word the run's end: cancelled, the budget's end, or an error without a message. */
static int run_status(embperf_bench *bench, int rc)
{
	if (rc == -ECANCELED || embperf_ctx_is_cancelled(bench->ctx))
		return bench_fail(bench, -ECANCELED, "kernel %s: cancelled", bench->kernel->name);
	if (rc == -ETIME && !bench->errmsg[0])
		bench_fail(bench, -ETIME, "kernel %s: the time budget ended before the run completed",
			   bench->kernel->name);
	if (rc && rc != -ETIME && !bench->errmsg[0])
		bench_fail(bench, rc, "kernel %s: %s", bench->kernel->name, embperf_strerror(rc));
	return rc;
}

int embperf_bench_run(embperf_bench *bench)
{
	struct ep_run run;
	int rc;

	free_results(bench);
	bench->errmsg[0] = '\0';
	if (bench->kernel->feature && !embperf_has_feature(bench->kernel->feature))
		return bench_fail(bench, -EOPNOTSUPP,
				  "kernel %s needs '%s', which this build of libembperf left out",
				  bench->kernel->name, bench->kernel->feature);
	if (embperf_ctx_is_cancelled(bench->ctx))
		return bench_fail(bench, -ECANCELED, "the context was cancelled");
	if (ep_run_init(&run, bench->ctx, bench->kernel, bench->values, bench->errmsg,
			sizeof(bench->errmsg))) {
		ep_run_free(&run);
		return bench_fail(bench, -ENOMEM, "out of memory");
	}
	rc = run_status(bench, ep_runner_run(&run));
	if (!rc || rc == -ETIME) {
		/* Hand the results over to the bench (the budget's cut keeps them). */
		bench->results = run.results;
		bench->n_results = run.n_results;
		run.results = NULL;
		run.n_results = 0;
	}
	ep_run_free(&run);
	return rc;
}
