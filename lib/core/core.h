/* SPDX-License-Identifier: MIT */
/*
 * core.h - internals of the context shared by lib/core and lib/report.
 */
#ifndef EMBPERF_CORE_CORE_H
#define EMBPERF_CORE_CORE_H

#include <stdarg.h>

#include "embperf.h"
#include "kernel.h"

/**
 * ep_ctx_fail() - set the context's detail message and return @err.
 * @ctx may be NULL (then only @err is returned).
 */
int ep_ctx_fail(embperf_ctx *ctx, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** ep_ctx_log() - deliver a message to the context's log callback, if any. */
void ep_ctx_log(embperf_ctx *ctx, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ep_ctx_vlog(embperf_ctx *ctx, int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/** ep_ctx_deadline_ns() - absolute CLOCK_MONOTONIC_RAW deadline of the budget, 0 for none. */
uint64_t ep_ctx_deadline_ns(const embperf_ctx *ctx);

/** ep_ctx_progress() - call the progress callback, if any. */
void ep_ctx_progress(embperf_ctx *ctx, const char *kernel, const char *what, double fraction);

/** ep_clock_resolution_ns() - measure the resolution of ep_now_ns() (>= 1 ns). */
uint64_t ep_clock_resolution_ns(void);

/** ep_ctx_clock_res_ns() - the resolution measured when the context was made. */
uint64_t ep_ctx_clock_res_ns(const embperf_ctx *ctx);

/**
 * struct ep_kv - one system information entry.
 */
struct ep_kv {
	char *key;
	char *value;
};

/**
 * ep_sysinfo_collect() - read the system description (CPU, caches, memory, kernel).
 * @clock_res_ns: the clock resolution to record.
 * @out:          receives a malloc'd array of entries (free with ep_kv_free()).
 * Return: number of entries, or -ENOMEM.
 */
int ep_sysinfo_collect(uint64_t clock_res_ns, struct ep_kv **out);

/** ep_kv_free() - free @n entries and the array. */
void ep_kv_free(struct ep_kv *kv, int n);

/**
 * ep_mem_available() - memory the system can give a run now.
 * @source: receives what the figure is ("MemAvailable in /proc/meminfo", or
 *          the estimate used where that is missing); may be NULL.
 *
 * MemAvailable of /proc/meminfo; on kernels without it MemFree + Buffers +
 * Cached; without /proc, sysinfo()'s free and buffer RAM.
 *
 * Return: bytes; 0 when the system does not tell.
 */
uint64_t ep_mem_available(const char **source);

/** ep_mem_available_bytes() - ep_mem_available(NULL). */
uint64_t ep_mem_available_bytes(void);

/**
 * ep_mem_format_bytes() - a byte count for messages: "1.5 GiB", "512 KiB".
 * @bytes: the count.
 * @out:   destination.
 * @size:  size of @out.
 */
void ep_mem_format_bytes(uint64_t bytes, char *out, size_t size);

/** ep_kernel_find() - registry lookup; NULL when there is no such kernel. */
const struct ep_kernel *ep_kernel_find(const char *name);

#endif /* EMBPERF_CORE_CORE_H */
