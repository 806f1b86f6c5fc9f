/* SPDX-License-Identifier: MIT */
/*
 * ctx.h - the session's internals (ctx.c): its clock, budget, messages,
 * progress and system information. A context knows nothing of runs.
 */
#ifndef EMBPERF_CORE_CTX_H
#define EMBPERF_CORE_CTX_H

#include <stdarg.h>
#include <stdint.h>

#include "embperf.h"

struct ep_clock;

/**
 * ep_ctx_fail() - set the context's detail message and return @err.
 * @ctx may be NULL (then only @err is returned).
 */
int ep_ctx_fail(embperf_ctx *ctx, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** ep_ctx_log() - deliver a message to the context's log callback, if any. */
void ep_ctx_log(embperf_ctx *ctx, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/** ep_ctx_vlog() - ep_ctx_log() with a va_list. */
void ep_ctx_vlog(embperf_ctx *ctx, int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/** ep_ctx_deadline_ns() - the budget's end on the context's clock, 0 for none. */
uint64_t ep_ctx_deadline_ns(const embperf_ctx *ctx);

/** ep_ctx_progress() - call the progress callback, if any. */
void ep_ctx_progress(embperf_ctx *ctx, const char *kernel, const char *what, double fraction);

/** ep_ctx_clock() - the context's clock (the real one unless a test set another). */
const struct ep_clock *ep_ctx_clock(const embperf_ctx *ctx);

/**
 * ep_ctx_set_clock() - measure on @clk from now on (a test's simulated
 * clock; NULL: the real one again). The clock's resolution becomes the
 * context's; a budget set before is dropped (it was on the other clock).
 * @clk must outlive its use by the context.
 */
void ep_ctx_set_clock(embperf_ctx *ctx, const struct ep_clock *clk);

/** ep_ctx_clock_res_ns() - the resolution of the context's clock. */
uint64_t ep_ctx_clock_res_ns(const embperf_ctx *ctx);

/** ep_sysinfo_u64() - a numeric system information entry (0 when unknown). */
uint64_t ep_sysinfo_u64(embperf_ctx *ctx, const char *key);

#endif /* EMBPERF_CORE_CTX_H */
