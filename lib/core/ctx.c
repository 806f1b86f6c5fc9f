// SPDX-License-Identifier: MIT
/*
 * ctx.c - the session: budget, cancel flag, callbacks, default CPU, system
 * information and the detail message of context-level failures.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "ctx.h"
#include "sysinfo.h"
#include "util.h"

struct embperf_ctx {
	/* Set from signal handlers and other threads: lock-free atomic only. */
	atomic_int cancelled;
	uint64_t deadline_ns;
	embperf_log_fn log_fn;
	void *log_user;
	int log_max_level;
	embperf_progress_fn progress_fn;
	void *progress_user;
	int cpu;
	const struct ep_clock *clock;
	uint64_t clock_res_ns;
	struct ep_kv *sysinfo;
	int n_sysinfo;
	char errmsg[EP_ERRMSG_MAX];
};

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "cancel flag must be lock-free to be signal-safe");

embperf_ctx *embperf_ctx_new(void)
{
	embperf_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	atomic_init(&ctx->cancelled, 0);
	ctx->cpu = -1;
	ctx->log_max_level = EMBPERF_LOG_INFO;
	ctx->clock = &ep_real_clock;
	ctx->clock_res_ns = ep_clock_resolution_ns(ctx->clock);
	return ctx;
}

void embperf_ctx_free(embperf_ctx *ctx)
{
	if (!ctx)
		return;
	ep_kv_free(ctx->sysinfo, ctx->n_sysinfo);
	free(ctx);
}

int embperf_ctx_set_budget_ns(embperf_ctx *ctx, uint64_t budget_ns)
{
	uint64_t now = ep_clock_now_ns(ctx->clock);

	if (!budget_ns)
		ctx->deadline_ns = 0;
	else if (budget_ns > UINT64_MAX - now)
		ctx->deadline_ns = UINT64_MAX;
	else
		ctx->deadline_ns = now + budget_ns;
	return 0;
}

uint64_t embperf_ctx_remaining_ns(const embperf_ctx *ctx)
{
	uint64_t now;

	if (!ctx->deadline_ns)
		return UINT64_MAX;
	now = ep_clock_now_ns(ctx->clock);
	return now >= ctx->deadline_ns ? 0 : ctx->deadline_ns - now;
}

uint64_t ep_ctx_deadline_ns(const embperf_ctx *ctx)
{
	return ctx->deadline_ns;
}

const struct ep_clock *ep_ctx_clock(const embperf_ctx *ctx)
{
	return ctx->clock;
}

void ep_ctx_set_clock(embperf_ctx *ctx, const struct ep_clock *clk)
{
	ctx->clock = clk ? clk : &ep_real_clock;
	ctx->clock_res_ns = ep_clock_resolution_ns(ctx->clock);
	ctx->deadline_ns = 0;
}

uint64_t ep_ctx_clock_res_ns(const embperf_ctx *ctx)
{
	return ctx->clock_res_ns;
}

void embperf_ctx_cancel(embperf_ctx *ctx)
{
	if (ctx)
		atomic_store_explicit(&ctx->cancelled, 1, memory_order_relaxed);
}

void embperf_ctx_reset_cancel(embperf_ctx *ctx)
{
	atomic_store_explicit(&ctx->cancelled, 0, memory_order_relaxed);
}

int embperf_ctx_is_cancelled(const embperf_ctx *ctx)
{
	/* The atomic is only read; the cast drops const for older C libraries. */
	return atomic_load_explicit((atomic_int *)&ctx->cancelled, memory_order_relaxed);
}

void embperf_ctx_set_log_fn(embperf_ctx *ctx, embperf_log_fn fn, void *user_data, int max_level)
{
	ctx->log_fn = fn;
	ctx->log_user = user_data;
	ctx->log_max_level = max_level;
}

void embperf_ctx_set_progress_fn(embperf_ctx *ctx, embperf_progress_fn fn, void *user_data)
{
	ctx->progress_fn = fn;
	ctx->progress_user = user_data;
}

int embperf_ctx_set_cpu(embperf_ctx *ctx, int cpu)
{
	cpu_set_t allowed;

	if (cpu == -1) {
		ctx->cpu = -1;
		return 0;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return ep_ctx_fail(ctx, -errno, "cpu: cannot read this process's CPU mask");
	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
		char list[256] = "";
		size_t len = 0;

		for (int i = 0; i < CPU_SETSIZE && len + 8 < sizeof(list); i++)
			if (CPU_ISSET(i, &allowed))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
							len ? "," : "", i);
		return ep_ctx_fail(ctx, -EINVAL,
				   "cpu: value '%d' is not a CPU this process may use; accepted: -1 (no pinning) or one of %s",
				   cpu, list);
	}
	ctx->cpu = cpu;
	return 0;
}

int embperf_ctx_get_cpu(const embperf_ctx *ctx)
{
	return ctx->cpu;
}

static int load_sysinfo(embperf_ctx *ctx)
{
	int n;

	if (ctx->sysinfo)
		return 0;
	n = ep_sysinfo_collect(ctx->clock_res_ns, &ctx->sysinfo);
	if (n < 0)
		return n;
	ctx->n_sysinfo = n;
	return 0;
}

int embperf_ctx_sysinfo_count(embperf_ctx *ctx)
{
	return load_sysinfo(ctx) ? 0 : ctx->n_sysinfo;
}

const char *embperf_ctx_sysinfo_key(embperf_ctx *ctx, int index)
{
	if (load_sysinfo(ctx) || index < 0 || index >= ctx->n_sysinfo)
		return NULL;
	return ctx->sysinfo[index].key;
}

const char *embperf_ctx_sysinfo(embperf_ctx *ctx, const char *key)
{
	if (!key || load_sysinfo(ctx))
		return NULL;
	for (int i = 0; i < ctx->n_sysinfo; i++)
		if (!strcmp(ctx->sysinfo[i].key, key))
			return ctx->sysinfo[i].value;
	return NULL;
}

uint64_t ep_sysinfo_u64(embperf_ctx *ctx, const char *key)
{
	const char *v = embperf_ctx_sysinfo(ctx, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

const char *embperf_ctx_errmsg(const embperf_ctx *ctx)
{
	return ctx->errmsg;
}

int ep_ctx_fail(embperf_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	if (!ctx)
		return err;
	va_start(ap, fmt);
	vsnprintf(ctx->errmsg, sizeof(ctx->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

void ep_ctx_vlog(embperf_ctx *ctx, int level, const char *fmt, va_list ap)
{
	char line[EP_ERRMSG_MAX];

	if (!ctx || !ctx->log_fn || level > ctx->log_max_level)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	ctx->log_fn(ctx->log_user, level, line);
}

void ep_ctx_log(embperf_ctx *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ep_ctx_vlog(ctx, level, fmt, ap);
	va_end(ap);
}

void ep_ctx_progress(embperf_ctx *ctx, const char *kernel, const char *what, double fraction)
{
	if (ctx->progress_fn)
		ctx->progress_fn(ctx->progress_user, kernel, what ? what : "", fraction);
}
