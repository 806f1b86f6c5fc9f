/* SPDX-License-Identifier: MIT */
/*
 * embperf.h - libembperf, a measurement library for embedded Linux.
 *
 * libembperf runs benchmark kernels (memory latency and bandwidth, STREAM,
 * CPU and OS latencies, block I/O, audio, network) under one measurement
 * engine and reports their results as tables or JSON.
 *
 * Objects (all opaque; each `_new` has a `_free`, and `_free(NULL)` is a no-op):
 *   - embperf_ctx     a session: time budget, cancel flag, callbacks, CPU, system info;
 *   - embperf_bench   one kernel, found by name, configured by named parameters, run;
 *   - embperf_result  one metric of a run: statistics, samples, counters;
 *   - embperf_report  results of many runs; rendered, saved, loaded, compared.
 *
 * Error rule: a function returning `int` returns 0 (or a count) on success
 * and a negative errno value on failure (-EINVAL, -ENOMEM, -ENOENT,
 * -EOPNOTSUPP, -ECANCELED, -ETIME, ...). A constructor returns NULL and sets
 * errno. embperf_strerror() names a code; every handle keeps a detail message
 * describing its last failure (embperf_ctx_errmsg(), embperf_bench_errmsg(),
 * embperf_report_errmsg()).
 *
 * The library never prints, never exits, installs no signal handlers and has
 * no mutable global state. A handle is used by one thread at a time; the one
 * exception is embperf_ctx_cancel(), which any thread or a signal handler may
 * call.
 *
 * Units: times are nanoseconds in the API (suffix `_ns`); bandwidths are
 * reported in MB/s with MB = 10^6 bytes, as lmbench and STREAM do.
 */
#ifndef EMBPERF_H
#define EMBPERF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(EMBPERF_BUILDING) && defined(__GNUC__)
#define EMBPERF_API __attribute__((visibility("default")))
#else
#define EMBPERF_API
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

#define EMBPERF_VERSION_MAJOR 0
#define EMBPERF_VERSION_MINOR 3
#define EMBPERF_VERSION_PATCH 0
/** Version as one number: major * 10000 + minor * 100 + patch. */
#define EMBPERF_VERSION_NUMBER \
	(EMBPERF_VERSION_MAJOR * 10000 + EMBPERF_VERSION_MINOR * 100 + EMBPERF_VERSION_PATCH)
#define EMBPERF_VERSION_STRING "0.3.0"

/**
 * embperf_version_number() - version of the library in use at run time.
 *
 * Return: major * 10000 + minor * 100 + patch of the loaded library, which
 * may be newer than the EMBPERF_VERSION_NUMBER the caller was built with.
 */
EMBPERF_API unsigned embperf_version_number(void);

/**
 * embperf_version_string() - version of the library in use, as text.
 *
 * Return: a static string such as "0.1.0"; never NULL, never to be freed.
 */
EMBPERF_API const char *embperf_version_string(void);

/* ------------------------------------------------------------------------ */
/* Errors and features                                                      */
/* ------------------------------------------------------------------------ */

/**
 * embperf_strerror() - describe an error code.
 * @err: a value returned by a libembperf function (negative errno), or its
 *       absolute value.
 *
 * Return: a static string naming the code, e.g. "ETIME: time budget exhausted";
 * never NULL, never to be freed. Unknown codes give "unknown error".
 */
EMBPERF_API const char *embperf_strerror(int err);

/**
 * embperf_has_feature() - tell whether an optional part was built in.
 * @name: "alsa", "pcap", "libnl", "perf" (perf_event counters), "io_uring"
 *        (the io_uring engine of the block kernels) or "json".
 *
 * A kernel that needs a feature left out of the build still exists and
 * fails with -EOPNOTSUPP when run.
 *
 * Return: 1 when built in, 0 when left out or when @name is not a feature.
 */
EMBPERF_API int embperf_has_feature(const char *name);

/**
 * embperf_free() - release memory the library handed to the caller.
 * @ptr: a string returned by embperf_report_render(), or NULL.
 *
 * Needed by callers that cannot call the C library's free() on memory of this
 * library's allocator (ctypes, other language runtimes).
 */
EMBPERF_API void embperf_free(void *ptr);

/* ------------------------------------------------------------------------ */
/* Session context                                                          */
/* ------------------------------------------------------------------------ */

typedef struct embperf_ctx embperf_ctx;
typedef struct embperf_bench embperf_bench;
typedef struct embperf_result embperf_result;
typedef struct embperf_report embperf_report;

/** Log levels, as syslog numbers them. */
enum embperf_log_level {
	EMBPERF_LOG_ERROR = 3,
	EMBPERF_LOG_WARNING = 4,
	EMBPERF_LOG_INFO = 6,
	EMBPERF_LOG_DEBUG = 7,
};

/**
 * typedef embperf_log_fn - receives the library's log messages.
 * @user_data: the pointer given to embperf_ctx_set_log_fn().
 * @level:     an enum embperf_log_level value.
 * @message:   one line, without a trailing newline; valid during the call.
 */
typedef void (*embperf_log_fn)(void *user_data, int level, const char *message);

/**
 * typedef embperf_progress_fn - receives progress of a running benchmark.
 * @user_data: the pointer given to embperf_ctx_set_progress_fn().
 * @kernel:    name of the running kernel.
 * @what:      the case being measured, e.g. "size=1M op=rd"; may be "".
 * @fraction:  estimated completion of the whole run, 0.0 to 1.0.
 *
 * Called from the thread running the benchmark, between samples.
 */
typedef void (*embperf_progress_fn)(void *user_data, const char *kernel, const char *what,
				    double fraction);

/**
 * embperf_ctx_new() - create a session.
 *
 * Measures the clock's resolution and reads system information lazily.
 *
 * Return: a new context owned by the caller (free with embperf_ctx_free()), or
 * NULL with errno set (ENOMEM).
 */
EMBPERF_API embperf_ctx *embperf_ctx_new(void);

/**
 * embperf_ctx_free() - release a session.
 * @ctx: context, or NULL. Benches and reports created from it must be freed first.
 */
EMBPERF_API void embperf_ctx_free(embperf_ctx *ctx);

/**
 * embperf_ctx_set_budget_ns() - bound the time of every following run.
 * @ctx:       context.
 * @budget_ns: nanoseconds from now that runs of this context may take in all;
 *             0 removes the bound.
 *
 * The engine checks the budget between samples and inside long bodies. A run
 * that the budget cuts short keeps the samples it has and returns -ETIME.
 *
 * Return: 0.
 */
EMBPERF_API int embperf_ctx_set_budget_ns(embperf_ctx *ctx, uint64_t budget_ns);

/**
 * embperf_ctx_remaining_ns() - time left in the budget.
 * @ctx: context.
 *
 * Return: nanoseconds left, 0 when exhausted, UINT64_MAX when there is no budget.
 */
EMBPERF_API uint64_t embperf_ctx_remaining_ns(const embperf_ctx *ctx);

/**
 * embperf_ctx_cancel() - ask the running benchmark to stop.
 * @ctx: context.
 *
 * Async-signal-safe and thread-safe. The run in progress stops at its next
 * check, frees what it holds and returns -ECANCELED; later runs fail the
 * same way until embperf_ctx_reset_cancel() is called.
 */
EMBPERF_API void embperf_ctx_cancel(embperf_ctx *ctx);

/**
 * embperf_ctx_reset_cancel() - clear a cancel request.
 * @ctx: context.
 */
EMBPERF_API void embperf_ctx_reset_cancel(embperf_ctx *ctx);

/**
 * embperf_ctx_is_cancelled() - tell whether a cancel request is pending.
 * @ctx: context.
 *
 * Return: 1 when cancelled, 0 otherwise.
 */
EMBPERF_API int embperf_ctx_is_cancelled(const embperf_ctx *ctx);

/**
 * embperf_ctx_set_log_fn() - receive log messages.
 * @ctx:       context.
 * @fn:        callback, or NULL to drop messages (the default).
 * @user_data: passed to @fn unchanged.
 * @max_level: messages with a level above this are not delivered.
 */
EMBPERF_API void embperf_ctx_set_log_fn(embperf_ctx *ctx, embperf_log_fn fn, void *user_data,
					int max_level);

/**
 * embperf_ctx_set_progress_fn() - receive progress reports.
 * @ctx:       context.
 * @fn:        callback, or NULL for none (the default).
 * @user_data: passed to @fn unchanged.
 */
EMBPERF_API void embperf_ctx_set_progress_fn(embperf_ctx *ctx, embperf_progress_fn fn,
					     void *user_data);

/**
 * embperf_ctx_set_cpu() - CPU that runs of this context are pinned to.
 * @ctx: context.
 * @cpu: CPU number, or -1 for no pinning (the default). A bench's "cpu"
 *       parameter overrides it.
 *
 * Return: 0, or -EINVAL when @cpu is not an online CPU this process may use
 * (the detail message says which CPUs are allowed).
 */
EMBPERF_API int embperf_ctx_set_cpu(embperf_ctx *ctx, int cpu);

/**
 * embperf_ctx_get_cpu() - the default CPU set by embperf_ctx_set_cpu().
 * @ctx: context.
 *
 * Return: the CPU number, or -1 when runs are not pinned.
 */
EMBPERF_API int embperf_ctx_get_cpu(const embperf_ctx *ctx);

/**
 * embperf_ctx_sysinfo_count() - number of system information entries.
 * @ctx: context.
 *
 * Entries include cpu_model, cpus_online, cache_l1d_bytes, cache_l2_bytes,
 * cache_l3_bytes, cache_line_bytes, mem_total_bytes, kernel, machine,
 * hostname, page_size_bytes, clock_resolution_ns, library_version.
 *
 * Return: the count (> 0).
 */
EMBPERF_API int embperf_ctx_sysinfo_count(embperf_ctx *ctx);

/**
 * embperf_ctx_sysinfo_key() - name of a system information entry.
 * @ctx:   context.
 * @index: 0 to embperf_ctx_sysinfo_count() - 1.
 *
 * Return: the key, owned by @ctx; NULL when @index is out of range.
 */
EMBPERF_API const char *embperf_ctx_sysinfo_key(embperf_ctx *ctx, int index);

/**
 * embperf_ctx_sysinfo() - value of a system information entry.
 * @ctx: context.
 * @key: e.g. "cpu_model", "cache_l2_bytes".
 *
 * Return: the value as text, owned by @ctx; NULL when the key is unknown or
 * the system does not tell (e.g. no L3 cache).
 */
EMBPERF_API const char *embperf_ctx_sysinfo(embperf_ctx *ctx, const char *key);

/**
 * embperf_ctx_errmsg() - detail of the last failure of a context-level call.
 * @ctx: context.
 *
 * Return: a message owned by @ctx (valid until its next failing call), ""
 * when there was none.
 */
EMBPERF_API const char *embperf_ctx_errmsg(const embperf_ctx *ctx);

/* ------------------------------------------------------------------------ */
/* Kernels and their description                                            */
/* ------------------------------------------------------------------------ */

/**
 * enum embperf_info - fields of a parameter or metric description.
 * @EMBPERF_INFO_NAME:    name ("size", "latency").
 * @EMBPERF_INFO_TYPE:    parameter type: "int", "size", "size-range", "duration",
 *                        "double", "enum", "bool", "rate", "freq", "string".
 * @EMBPERF_INFO_DEFAULT: parameter default, as text ("" when none).
 * @EMBPERF_INFO_RANGE:   accepted values: "512..1G", "rd|wr|cp", ...
 * @EMBPERF_INFO_UNIT:    unit of a parameter or metric ("bytes", "ns", "MB/s").
 * @EMBPERF_INFO_HELP:    one line of help.
 * @EMBPERF_INFO_PRIMARY: metric: the statistic reported as its value
 *                        ("median", "min", "max").
 * @EMBPERF_INFO_BETTER:  metric: "higher", "lower" or "zero" (nearer zero:
 *                        a signed error).
 * @EMBPERF_INFO_GROUP:   parameter: "kernel" for a kernel's own, "engine" for
 *                        the repetition parameters every kernel accepts.
 */
enum embperf_info {
	EMBPERF_INFO_NAME = 0,
	EMBPERF_INFO_TYPE = 1,
	EMBPERF_INFO_DEFAULT = 2,
	EMBPERF_INFO_RANGE = 3,
	EMBPERF_INFO_UNIT = 4,
	EMBPERF_INFO_HELP = 5,
	EMBPERF_INFO_PRIMARY = 6,
	EMBPERF_INFO_BETTER = 7,
	EMBPERF_INFO_GROUP = 8,
};

/**
 * embperf_kernel_count() - number of kernels in this build.
 *
 * Return: the count.
 */
EMBPERF_API int embperf_kernel_count(void);

/**
 * embperf_kernel_name() - name of a kernel.
 * @index: 0 to embperf_kernel_count() - 1.
 *
 * Return: a static string such as "mem.lat"; NULL when out of range.
 */
EMBPERF_API const char *embperf_kernel_name(int index);

/**
 * embperf_kernel_summary() - one-line description of a kernel.
 * @kernel: kernel name.
 *
 * Return: a static string; NULL (errno ENOENT) when there is no such kernel.
 */
EMBPERF_API const char *embperf_kernel_summary(const char *kernel);

/**
 * embperf_kernel_param_count() - number of parameters a kernel accepts.
 * @kernel: kernel name.
 *
 * Counts the kernel's own parameters followed by the engine's.
 *
 * Return: the count, or -ENOENT when there is no such kernel.
 */
EMBPERF_API int embperf_kernel_param_count(const char *kernel);

/**
 * embperf_kernel_param_info() - describe one parameter.
 * @kernel: kernel name.
 * @index:  0 to embperf_kernel_param_count() - 1.
 * @field:  which field (enum embperf_info).
 * @buf:    destination, always NUL-terminated when @size > 0.
 * @size:   size of @buf in bytes.
 *
 * Return: length of the field's text (which may exceed @size); -ENOENT when
 * the kernel or index does not exist; -EINVAL when the field does not apply
 * to parameters.
 */
EMBPERF_API int embperf_kernel_param_info(const char *kernel, int index, enum embperf_info field,
					  char *buf, size_t size);

/**
 * embperf_kernel_metric_count() - number of metrics a kernel reports.
 * @kernel: kernel name.
 *
 * Return: the count, or -ENOENT when there is no such kernel.
 */
EMBPERF_API int embperf_kernel_metric_count(const char *kernel);

/**
 * embperf_kernel_metric_info() - describe one metric.
 * @kernel: kernel name.
 * @index:  0 to embperf_kernel_metric_count() - 1.
 * @field:  EMBPERF_INFO_NAME, _UNIT, _HELP, _PRIMARY or _BETTER.
 * @buf:    destination, always NUL-terminated when @size > 0.
 * @size:   size of @buf in bytes.
 *
 * Return: length of the field's text (which may exceed @size); -ENOENT when
 * the kernel or index does not exist; -EINVAL when the field does not apply
 * to metrics.
 */
EMBPERF_API int embperf_kernel_metric_info(const char *kernel, int index, enum embperf_info field,
					   char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Benchmarks                                                               */
/* ------------------------------------------------------------------------ */

/**
 * embperf_bench_new() - prepare one kernel for running.
 * @ctx:    session the bench runs in; must outlive the bench.
 * @kernel: kernel name, e.g. "mem.lat".
 *
 * Every parameter starts at its default.
 *
 * Return: a new bench owned by the caller (free with embperf_bench_free()), or
 * NULL with errno ENOENT (no such kernel; embperf_ctx_errmsg() lists the
 * kernels), EINVAL (NULL argument) or ENOMEM.
 */
EMBPERF_API embperf_bench *embperf_bench_new(embperf_ctx *ctx, const char *kernel);

/**
 * embperf_bench_free() - release a bench and the results it owns.
 * @bench: bench, or NULL.
 */
EMBPERF_API void embperf_bench_free(embperf_bench *bench);

/**
 * embperf_bench_kernel() - name of the bench's kernel.
 * @bench: bench.
 *
 * Return: a static string.
 */
EMBPERF_API const char *embperf_bench_kernel(const embperf_bench *bench);

/**
 * embperf_bench_set() - set a parameter from text.
 * @bench: bench.
 * @name:  parameter name ("size", "op", "repetitions", ...).
 * @value: text; units are parsed: sizes "64M" (binary: 1k = 1024 bytes),
 *         durations "1.5ms", rates "100Mbit", frequencies "48k", sweeps "1k..64M".
 *
 * On failure the parameter keeps its previous value and
 * embperf_bench_errmsg() names the parameter, the value given and what is
 * accepted.
 *
 * Return: 0; -ENOENT for an unknown parameter; -EINVAL for a malformed value;
 * -ERANGE for a value out of range or one that overflows.
 */
EMBPERF_API int embperf_bench_set(embperf_bench *bench, const char *name, const char *value);

/**
 * embperf_bench_set_int() - set an integer-valued parameter.
 * @bench: bench.
 * @name:  parameter name.
 * @value: value in the parameter's base unit (bytes, nanoseconds, bits/s, Hz,
 *         a count, 0/1 for booleans).
 *
 * Return: as embperf_bench_set(); -EINVAL for parameters that are not numbers.
 */
EMBPERF_API int embperf_bench_set_int(embperf_bench *bench, const char *name, int64_t value);

/**
 * embperf_bench_set_double() - set a floating-point parameter.
 * @bench: bench.
 * @name:  parameter name.
 * @value: value in the parameter's base unit; integer parameters accept only
 *         whole numbers.
 *
 * Return: as embperf_bench_set().
 */
EMBPERF_API int embperf_bench_set_double(embperf_bench *bench, const char *name, double value);

/**
 * embperf_bench_get() - read a parameter back in canonical text form.
 * @bench: bench.
 * @name:  parameter name.
 * @buf:   destination, always NUL-terminated when @size > 0.
 * @size:  size of @buf in bytes.
 *
 * Return: length of the full text (excluding the NUL, which may exceed @size),
 * or -ENOENT for an unknown parameter.
 */
EMBPERF_API int embperf_bench_get(const embperf_bench *bench, const char *name, char *buf,
				  size_t size);

/**
 * embperf_bench_run() - run the kernel with the current parameters.
 * @bench: bench.
 *
 * Results of a previous run are freed first. The engine calibrates, warms up
 * and repeats the kernel as its engine parameters say, within the context's
 * budget.
 *
 * Return: 0 on success; -ECANCELED when cancelled (no results are kept);
 * -ETIME when the budget cut the run short (results with at least one sample
 * are kept); -EOPNOTSUPP when the kernel needs a feature left out of the
 * build; -ENOMEM when the requested sizes do not fit in memory; other negative
 * errno values from the kernel. embperf_bench_errmsg() gives the detail.
 */
EMBPERF_API int embperf_bench_run(embperf_bench *bench);

/**
 * embperf_bench_result_count() - number of results of the last run.
 * @bench: bench.
 *
 * Return: the count (0 before the first run).
 */
EMBPERF_API int embperf_bench_result_count(const embperf_bench *bench);

/**
 * embperf_bench_result() - one result of the last run.
 * @bench: bench.
 * @index: 0 to embperf_bench_result_count() - 1.
 *
 * Return: the result, owned by @bench and valid until its next run or free;
 * NULL when out of range.
 */
EMBPERF_API const embperf_result *embperf_bench_result(const embperf_bench *bench, int index);

/**
 * embperf_bench_errmsg() - detail of the bench's last failure.
 * @bench: bench.
 *
 * Return: a message owned by @bench, "" when there was none.
 */
EMBPERF_API const char *embperf_bench_errmsg(const embperf_bench *bench);

/* ------------------------------------------------------------------------ */
/* Results                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * enum embperf_stat - statistics of a result's samples.
 * @EMBPERF_STAT_PRIMARY: the statistic the kernel reports as its value.
 * @EMBPERF_STAT_N:       number of samples.
 * @EMBPERF_STAT_MIN:     smallest sample.
 * @EMBPERF_STAT_MAX:     largest sample.
 * @EMBPERF_STAT_MEAN:    arithmetic mean.
 * @EMBPERF_STAT_MEDIAN:  median.
 * @EMBPERF_STAT_STDDEV:  sample standard deviation (n - 1).
 */
enum embperf_stat {
	EMBPERF_STAT_PRIMARY = 0,
	EMBPERF_STAT_N = 1,
	EMBPERF_STAT_MIN = 2,
	EMBPERF_STAT_MAX = 3,
	EMBPERF_STAT_MEAN = 4,
	EMBPERF_STAT_MEDIAN = 5,
	EMBPERF_STAT_STDDEV = 6,
};

/**
 * enum embperf_verdict - outcome of comparing a result with a baseline.
 * @EMBPERF_VERDICT_NONE:      not compared, or no matching baseline metric.
 * @EMBPERF_VERDICT_PASS:      within the tolerance.
 * @EMBPERF_VERDICT_IMPROVED:  better than the baseline by more than the tolerance.
 * @EMBPERF_VERDICT_REGRESSED: worse than the baseline by more than the tolerance.
 */
enum embperf_verdict {
	EMBPERF_VERDICT_NONE = 0,
	EMBPERF_VERDICT_PASS = 1,
	EMBPERF_VERDICT_IMPROVED = 2,
	EMBPERF_VERDICT_REGRESSED = 3,
};

/**
 * embperf_result_kernel() - kernel that produced the result.
 * @result: result.
 *
 * Return: e.g. "mem.bw", owned by the result.
 */
EMBPERF_API const char *embperf_result_kernel(const embperf_result *result);

/**
 * embperf_result_metric() - metric name.
 * @result: result.
 *
 * Return: e.g. "bandwidth", owned by the result.
 */
EMBPERF_API const char *embperf_result_metric(const embperf_result *result);

/**
 * embperf_result_unit() - unit of the values.
 * @result: result.
 *
 * Return: e.g. "MB/s" (MB = 10^6 bytes) or "ns", owned by the result.
 */
EMBPERF_API const char *embperf_result_unit(const embperf_result *result);

/**
 * embperf_result_title() - row name given when the result entered a report.
 * @result: result.
 *
 * Return: e.g. "bw_mem-bcopy-1mb", owned by the result; "" when none was given.
 */
EMBPERF_API const char *embperf_result_title(const embperf_result *result);

/**
 * embperf_result_labels() - what distinguishes this result from the other
 * results of the same kernel.
 * @result: result.
 *
 * A value holding a space, a double quote or a backslash is written in
 * double quotes with \" and \\ escaped (path="/mnt/my disk");
 * embperf_result_label_key() and embperf_result_label_value() give the
 * pairs already split.
 *
 * Return: space-separated key=value pairs, e.g. "op=rd size=1M"; "" when none;
 * owned by the result.
 */
EMBPERF_API const char *embperf_result_labels(const embperf_result *result);

/**
 * embperf_result_label() - one label's value.
 * @result: result.
 * @key:    label name.
 * @buf:    destination, always NUL-terminated when @size > 0.
 * @size:   size of @buf.
 *
 * Return: length of the value (unquoted; may exceed @size), or -ENOENT when
 * the result has no such label.
 */
EMBPERF_API int embperf_result_label(const embperf_result *result, const char *key, char *buf,
				     size_t size);

/**
 * embperf_result_params() - every parameter of the run, canonical.
 * @result: result.
 *
 * Values are quoted as in embperf_result_labels(); embperf_result_param_key()
 * and embperf_result_param_value() give the pairs already split.
 *
 * Return: space-separated key=value pairs, owned by the result.
 */
EMBPERF_API const char *embperf_result_params(const embperf_result *result);

/**
 * embperf_result_value() - the result's value: its primary statistic.
 * @result: result.
 *
 * Return: the value in embperf_result_unit(); NaN when there is no sample.
 */
EMBPERF_API double embperf_result_value(const embperf_result *result);

/**
 * embperf_result_stat() - one statistic of the samples.
 * @result: result.
 * @stat:   which statistic.
 *
 * Return: its value; NaN for an unknown @stat or when undefined (stddev of one sample).
 */
EMBPERF_API double embperf_result_stat(const embperf_result *result, enum embperf_stat stat);

/**
 * embperf_result_primary() - name of the primary statistic.
 * @result: result.
 *
 * Return: "median", "min" or "max" (static).
 */
EMBPERF_API const char *embperf_result_primary(const embperf_result *result);

/**
 * embperf_result_higher_is_better() - direction of the metric.
 * @result: result.
 *
 * Return: 1 when larger values are better (bandwidth), 0 when smaller are
 * (latency) or when values nearer zero are (a signed error such as a rate
 * error in ppm: its "better" is "zero" in JSON and in the kernel's metric
 * description, EMBPERF_INFO_BETTER).
 */
EMBPERF_API int embperf_result_higher_is_better(const embperf_result *result);

/**
 * embperf_result_sample_count() - number of kept samples.
 * @result: result.
 *
 * Return: the count.
 */
EMBPERF_API int embperf_result_sample_count(const embperf_result *result);

/**
 * embperf_result_sample() - one sample, in the result's unit.
 * @result: result.
 * @index:  0 to embperf_result_sample_count() - 1, in the order measured.
 *
 * Return: the sample; NaN when out of range.
 */
EMBPERF_API double embperf_result_sample(const embperf_result *result, int index);

/**
 * embperf_result_counter_count() - number of counters recorded with the result.
 * @result: result.
 *
 * Counters: CPU load over the timed samples ("cpu_process_pct",
 * "cpu_system_pct"); perf events, software ("task_clock_ns",
 * "context_switches", "cpu_migrations", "page_faults") and hardware
 * ("cycles", "instructions", "cache_references", "cache_misses"), counted
 * over one extra sample of the same units after the timed ones and scaled
 * to the number of samples, because attached events slow context switches
 * and faults; "units" (units of work timed in all samples) and
 * "overhead_ns" (the overhead per unit the engine measured and subtracted,
 * in ns before any unit conversion; unavailable when the kernel declares
 * none).
 *
 * Return: the count.
 */
EMBPERF_API int embperf_result_counter_count(const embperf_result *result);

/**
 * embperf_result_counter_name() - name of a counter.
 * @result: result.
 * @index:  0 to embperf_result_counter_count() - 1.
 *
 * Return: static name; NULL when out of range.
 */
EMBPERF_API const char *embperf_result_counter_name(const embperf_result *result, int index);

/**
 * embperf_result_counter() - value of a counter.
 * @result: result.
 * @name:   counter name.
 * @value:  receives the value.
 *
 * Return: 0; -EOPNOTSUPP when the system could not count it (e.g. hardware
 * events in a VM); -ENOENT for an unknown name.
 */
EMBPERF_API int embperf_result_counter(const embperf_result *result, const char *name,
				       double *value);

/**
 * embperf_result_cpu() - CPU the result was measured on.
 * @result: result.
 *
 * Return: the CPU number when the run was pinned or stayed on one CPU; -1 otherwise.
 */
EMBPERF_API int embperf_result_cpu(const embperf_result *result);

/**
 * embperf_result_truncated() - tell whether the budget cut the samples short.
 * @result: result.
 *
 * Return: 1 when fewer samples than asked were taken, 0 otherwise.
 */
EMBPERF_API int embperf_result_truncated(const embperf_result *result);

/**
 * embperf_result_verdict() - outcome of the last embperf_report_compare().
 * @result: result held by a report.
 *
 * Return: an enum embperf_verdict value.
 */
EMBPERF_API int embperf_result_verdict(const embperf_result *result);

/**
 * embperf_result_baseline() - baseline value the result was compared with.
 * @result: result held by a report.
 * @value:  receives the baseline's value.
 * @ratio:  receives current / baseline; may be NULL.
 *
 * Return: 0; -ENODATA when the result was not compared or had no match.
 */
EMBPERF_API int embperf_result_baseline(const embperf_result *result, double *value,
					double *ratio);

/* ------------------------------------------------------------------------ */
/* Distributions, trial logs, labels and parameters (since 0.2)             */
/* ------------------------------------------------------------------------ */

/*
 * Results of trial kernels (block I/O, audio, network, timers) may carry a
 * latency distribution (percentiles), counters the kernel declares
 * ("xruns", "overruns", "dropped": listed by embperf_result_counter_name()
 * after the engine's counters and read with embperf_result_counter()), and,
 * for a searched value (RFC 2544's zero-loss rate), the log of the trials
 * the search ran. The trial log accessors are experimental: the fields of
 * enum embperf_trial_field may grow before 1.0, existing ones keep their
 * meaning.
 */

/**
 * embperf_result_percentile_count() - number of percentiles the result carries.
 * @result: result.
 *
 * Return: the count; 0 when the result has no distribution.
 */
EMBPERF_API int embperf_result_percentile_count(const embperf_result *result);

/**
 * embperf_result_percentile_at() - one percentile, in ascending order.
 * @result: result.
 * @index:  0 to embperf_result_percentile_count() - 1.
 * @pct:    receives the percentile (e.g. 99.9); may be NULL.
 * @value:  receives its value in embperf_result_unit(); may be NULL.
 *
 * Return: 0, or -ENOENT when @index is out of range.
 */
EMBPERF_API int embperf_result_percentile_at(const embperf_result *result, int index, double *pct,
					     double *value);

/**
 * embperf_result_percentile() - the value at a percentile of the distribution.
 * @result: result.
 * @pct:    percentile, 0 < @pct <= 100 (50, 90, 99, 99.9, 99.99 by default;
 *          others when the kernel's 'percentiles' parameter asked for them).
 * @value:  receives the value in embperf_result_unit().
 *
 * The distribution is every recorded operation of every trial of the result
 * (a log-linear histogram: exact below 128 ns, within 0.8 % above).
 *
 * Return: 0; -EINVAL for a @pct outside (0, 100] or NaN; -ENODATA when the
 * result has no distribution; -ENOENT when this percentile was not computed.
 */
EMBPERF_API int embperf_result_percentile(const embperf_result *result, double pct,
					  double *value);

/**
 * embperf_result_dist_stat() - a statistic of the distribution itself.
 * @result: result.
 * @stat:   EMBPERF_STAT_N (operations recorded), EMBPERF_STAT_MIN,
 *          EMBPERF_STAT_MAX or EMBPERF_STAT_MEAN.
 *
 * Unlike embperf_result_stat(), which describes the per-trial samples, this
 * describes all recorded operations.
 *
 * Return: the value in embperf_result_unit() (a count for N); NaN when the
 * result has no distribution or for another @stat.
 */
EMBPERF_API double embperf_result_dist_stat(const embperf_result *result, enum embperf_stat stat);

/**
 * enum embperf_trial_field - columns of a search's trial log.
 * @EMBPERF_TRIAL_CONFIG:      the value the search set (e.g. the offered rate);
 *                             its name from embperf_result_trial_name().
 * @EMBPERF_TRIAL_OUTCOME:     what the trial was judged by (e.g. the loss ratio).
 * @EMBPERF_TRIAL_PASS:        1 when the trial passed, 0 when it failed.
 * @EMBPERF_TRIAL_DURATION_NS: how long the trial's measured part lasted.
 */
enum embperf_trial_field {
	EMBPERF_TRIAL_CONFIG = 0,
	EMBPERF_TRIAL_OUTCOME = 1,
	EMBPERF_TRIAL_PASS = 2,
	EMBPERF_TRIAL_DURATION_NS = 3,
};

/**
 * embperf_result_trial_count() - number of trials in the result's trial log.
 * @result: result.
 *
 * Return: the count; 0 for a result that is not a searched value.
 */
EMBPERF_API int embperf_result_trial_count(const embperf_result *result);

/**
 * embperf_result_trial() - one field of one trial, in the order run.
 * @result: result.
 * @index:  0 to embperf_result_trial_count() - 1.
 * @field:  an enum embperf_trial_field value.
 * @value:  receives the value.
 *
 * Return: 0; -ENOENT when @index is out of range; -EINVAL for an unknown @field.
 */
EMBPERF_API int embperf_result_trial(const embperf_result *result, int index,
				     enum embperf_trial_field field, double *value);

/**
 * embperf_result_trial_name() - name of a trial log column.
 * @result: result.
 * @field:  an enum embperf_trial_field value.
 *
 * Return: e.g. "rate" or "loss", owned by the result; NULL for an unknown
 * @field or a result without a trial log.
 */
EMBPERF_API const char *embperf_result_trial_name(const embperf_result *result,
						  enum embperf_trial_field field);

/**
 * enum embperf_result_flag - what a result says about its own trustworthiness.
 * @EMBPERF_RESULT_DISTURBED: its threads waited for a CPU more than 5 % of
 *                            the time (another task had its CPU): the figure
 *                            is the machine's, not the code's.
 * @EMBPERF_RESULT_UNSTABLE:  its samples disagree (robust spread above 10 %):
 *                            the value is one point of a moving target.
 * @EMBPERF_RESULT_MIGRATED:  it ran on more than one CPU (not pinned).
 */
enum embperf_result_flag {
	EMBPERF_RESULT_DISTURBED = 1 << 0,
	EMBPERF_RESULT_UNSTABLE = 1 << 1,
	EMBPERF_RESULT_MIGRATED = 1 << 2,
};

/**
 * embperf_result_flags() - the marks a result set on itself.
 * @result: result.
 *
 * Judged by the engine from the result's own evidence: the counters
 * "cpu_wait_pct" (run-queue wait of its threads) and "involuntary_switches",
 * the samples' spread, the CPUs it ran on. Tables print a mark and the note;
 * embperf_report_compare() still judges a marked result, and renderings say
 * that a regression of a marked result may be the machine's.
 *
 * Return: a mask of enum embperf_result_flag bits; 0 for a result that shows
 * nothing wrong.
 */
EMBPERF_API unsigned embperf_result_flags(const embperf_result *result);

/**
 * embperf_result_note() - why the result is marked, with the evidence.
 * @result: result.
 *
 * Return: e.g. "disturbed: its threads waited for a CPU 48 % of the time
 * (...)", owned by the result; "" when embperf_result_flags() is 0.
 */
EMBPERF_API const char *embperf_result_note(const embperf_result *result);

/**
 * embperf_result_label_count() - number of labels.
 * @result: result.
 *
 * Labels as pairs, so that a value may hold any character (a path with a
 * space); embperf_result_labels() gives the same as one line.
 *
 * Return: the count.
 */
EMBPERF_API int embperf_result_label_count(const embperf_result *result);

/**
 * embperf_result_label_key() - name of a label.
 * @result: result.
 * @index:  0 to embperf_result_label_count() - 1.
 *
 * Return: the name, owned by the result; NULL when out of range.
 */
EMBPERF_API const char *embperf_result_label_key(const embperf_result *result, int index);

/**
 * embperf_result_label_value() - value of a label.
 * @result: result.
 * @index:  0 to embperf_result_label_count() - 1.
 *
 * Return: the value, owned by the result; NULL when out of range.
 */
EMBPERF_API const char *embperf_result_label_value(const embperf_result *result, int index);

/**
 * embperf_result_param_count() - number of parameters the run had.
 * @result: result.
 *
 * Return: the count.
 */
EMBPERF_API int embperf_result_param_count(const embperf_result *result);

/**
 * embperf_result_param_key() - name of a parameter.
 * @result: result.
 * @index:  0 to embperf_result_param_count() - 1.
 *
 * Return: the name, owned by the result; NULL when out of range.
 */
EMBPERF_API const char *embperf_result_param_key(const embperf_result *result, int index);

/**
 * embperf_result_param_value() - canonical value of a parameter.
 * @result: result.
 * @index:  0 to embperf_result_param_count() - 1.
 *
 * Return: the value, owned by the result; NULL when out of range.
 */
EMBPERF_API const char *embperf_result_param_value(const embperf_result *result, int index);

/* ------------------------------------------------------------------------ */
/* Reports                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * enum embperf_format - report renderings.
 * @EMBPERF_FORMAT_TEXT:     aligned table, rows "mean (min X, max Y)".
 * @EMBPERF_FORMAT_MARKDOWN: the same table in markdown.
 * @EMBPERF_FORMAT_JSON:     everything, samples included; see doc/report-format.md.
 * @EMBPERF_FORMAT_CSV:      one row per result, RFC 4180 quoting.
 * @EMBPERF_FORMAT_JUNIT:    JUnit XML for CI servers: one test case per result,
 *                           failed when the last compare judged it regressed
 *                           (since 0.3; see doc/board-farms.md).
 * @EMBPERF_FORMAT_LAVA:     `lava-test-case NAME --result pass|fail --measurement X
 *                           --units U` lines for a LAVA test shell (since 0.3).
 *
 * JUnit and LAVA renderings of a report without results fail with ENODATA
 * rather than give a file a farm cannot tell from a lost one.
 */
enum embperf_format {
	EMBPERF_FORMAT_TEXT = 0,
	EMBPERF_FORMAT_MARKDOWN = 1,
	EMBPERF_FORMAT_JSON = 2,
	EMBPERF_FORMAT_CSV = 3,
	EMBPERF_FORMAT_JUNIT = 4,
	EMBPERF_FORMAT_LAVA = 5,
};

/**
 * embperf_report_new() - create an empty report.
 * @ctx: session whose system information the report records; may be NULL.
 *
 * Return: a new report owned by the caller (free with embperf_report_free()),
 * or NULL with errno ENOMEM.
 */
EMBPERF_API embperf_report *embperf_report_new(embperf_ctx *ctx);

/**
 * embperf_report_free() - release a report and its results.
 * @report: report, or NULL.
 */
EMBPERF_API void embperf_report_free(embperf_report *report);

/**
 * embperf_report_add() - copy the results of a bench's last run into a report.
 * @report: report.
 * @bench:  bench that has run.
 * @title:  row name, or NULL to derive one from kernel, metric and labels. With
 *          several results, "{metric}" and "{LABEL}" in @title are replaced by
 *          each result's metric name and label values; "{metric:FROM=TO,...}"
 *          by the metric name, or TO for a metric named FROM.
 *
 * Return: number of results added; -EINVAL when the title references a label
 * a result lacks; -ENOMEM.
 */
EMBPERF_API int embperf_report_add(embperf_report *report, const embperf_bench *bench,
				   const char *title);

/**
 * embperf_report_result_count() - number of results in a report.
 * @report: report.
 *
 * Return: the count.
 */
EMBPERF_API int embperf_report_result_count(const embperf_report *report);

/**
 * embperf_report_result() - one result of a report.
 * @report: report.
 * @index:  0 to embperf_report_result_count() - 1.
 *
 * Return: the result, owned by @report; NULL when out of range.
 */
EMBPERF_API const embperf_result *embperf_report_result(const embperf_report *report, int index);

/**
 * embperf_report_find() - look a result up by its key.
 * @report: report.
 * @key:    a title, or "kernel/metric[labels]" as embperf_result_key() gives.
 *
 * Return: the first matching result, owned by @report; NULL when none.
 */
EMBPERF_API const embperf_result *embperf_report_find(const embperf_report *report,
						      const char *key);

/**
 * embperf_result_key() - the key reports match results by.
 * @result: result.
 * @buf:    destination, always NUL-terminated when @size > 0.
 * @size:   size of @buf.
 *
 * The key is the title when there is one, otherwise "kernel/metric[labels]".
 *
 * Return: length of the key (may exceed @size).
 */
EMBPERF_API int embperf_result_key(const embperf_result *result, char *buf, size_t size);

/**
 * embperf_report_sysinfo() - a system information entry recorded in the report.
 * @report: report.
 * @key:    as for embperf_ctx_sysinfo().
 *
 * Return: value owned by @report; NULL when absent.
 */
EMBPERF_API const char *embperf_report_sysinfo(const embperf_report *report, const char *key);

/**
 * embperf_report_render() - render a report as text.
 * @report: report.
 * @format: an enum embperf_format value.
 *
 * Return: a NUL-terminated string the caller frees with embperf_free(); NULL
 * with errno EINVAL (unknown format), ENODATA (JUnit or LAVA of a report
 * without results) or ENOMEM.
 */
EMBPERF_API char *embperf_report_render(const embperf_report *report, enum embperf_format format);

/**
 * embperf_report_save() - write a rendering to a file.
 * @report: report.
 * @format: an enum embperf_format value.
 * @path:   file to create or replace; written to a temporary name in the same
 *          folder and renamed, so a failure leaves no partial file.
 *
 * Return: 0, or a negative errno (detail in embperf_report_errmsg()).
 */
EMBPERF_API int embperf_report_save(embperf_report *report, enum embperf_format format,
				    const char *path);

/**
 * embperf_report_load() - read a JSON report from a file.
 * @ctx:  context that receives the detail message on failure; may be NULL.
 * @path: file written by embperf_report_save() with EMBPERF_FORMAT_JSON.
 *
 * A metric renamed since the file was written is read under its new name,
 * in its title too, so that an older baseline still compares
 * (doc/report-format.md, "Renamed metrics").
 *
 * Return: a new report owned by the caller, or NULL with errno ENOENT, EACCES,
 * EISDIR (cannot read), EBADMSG (not a valid report: the message names the
 * file, the place and what was expected) or ENOMEM.
 */
EMBPERF_API embperf_report *embperf_report_load(embperf_ctx *ctx, const char *path);

/**
 * embperf_report_parse() - read a JSON report from memory.
 * @ctx:  as for embperf_report_load().
 * @json: NUL-terminated JSON text.
 *
 * Return: as embperf_report_load().
 */
EMBPERF_API embperf_report *embperf_report_parse(embperf_ctx *ctx, const char *json);

/**
 * embperf_report_compare() - judge a report against a baseline, metric by metric.
 * @report:        current results; each result receives a verdict.
 * @baseline:      reference results, matched by key (embperf_result_key()).
 * @tolerance_pct: allowed relative change in percent before a result counts
 *                 as regressed or improved (0 to 1000).
 *
 * Direction-aware: a bandwidth regresses when it falls, a latency when it
 * rises. A baseline metric missing from @report counts as a failure and is
 * listed in renderings.
 *
 * Return: number of failures (regressed plus missing; 0 means pass), or
 * -EINVAL for a bad tolerance.
 */
EMBPERF_API int embperf_report_compare(embperf_report *report, const embperf_report *baseline,
				       double tolerance_pct);

/**
 * embperf_report_errmsg() - detail of the report's last failure.
 * @report: report.
 *
 * Return: a message owned by @report, "" when there was none.
 */
EMBPERF_API const char *embperf_report_errmsg(const embperf_report *report);

/* ------------------------------------------------------------------------ */
/* Merging reports (since 0.4)                                              */
/* ------------------------------------------------------------------------ */

/**
 * embperf_report_add_result() - copy one result into a report.
 * @report: report.
 * @result: a result of a bench or of another report (embperf_report_result()).
 * @title:  title template for the copy, as for embperf_report_add() ("{metric}"
 *          and "{LABEL}" expand); NULL keeps the result's own title as it is.
 *
 * The copy is deep (samples, distribution, trial log, counters, marks); a
 * verdict of an earlier comparison is not copied. Titles are not checked
 * against the report's results: merging two reports that share a key gives a
 * report where embperf_report_find() returns the first.
 *
 * Return: 1 (one result added); -EINVAL for a NULL @result or a template
 * naming a label the result lacks; -ENOMEM. The report is unchanged on failure.
 */
EMBPERF_API int embperf_report_add_result(embperf_report *report, const embperf_result *result,
					  const char *title);

/**
 * embperf_report_set_sysinfo() - record an entry of the report's system
 * information, replacing one of the same key.
 * @report: report.
 * @key:    name: a non-empty string of at most 64 letters, digits, '_', '-' or '.'.
 * @value:  text (any, a line break included); saved in JSON and read back by
 *          embperf_report_load(), read with embperf_report_sysinfo().
 *
 * For what describes the measured system beyond what the context found: a
 * board's name, the profile a run followed.
 *
 * Return: 0; -EINVAL for a NULL or malformed @key or a NULL @value; -ENOMEM.
 */
EMBPERF_API int embperf_report_set_sysinfo(embperf_report *report, const char *key,
					   const char *value);

/* ------------------------------------------------------------------------ */
/* Network peer (since 0.3)                                                 */
/* ------------------------------------------------------------------------ */

/*
 * The network kernels (net.*) measure between this host and a peer: a
 * server on the far side that receives, sends and counts test traffic under
 * the client's direction (doc/methodology-net.md). `embperf serve` runs
 * one; a product can embed one with these functions. The server sends test
 * traffic only to the address of the client that asked for it, caps what a
 * client may ask (rate, duration, size), serves one client at a time
 * (another gets "busy") and refuses addresses outside its allow list.
 */

/** embperf_server - the peer; opaque. */
typedef struct embperf_server embperf_server;

/**
 * enum embperf_server_stat - what a server counted since it was created.
 * @EMBPERF_SERVER_STAT_CONNECTIONS: control connections accepted.
 * @EMBPERF_SERVER_STAT_SESSIONS:    clients served (a hello answered).
 * @EMBPERF_SERVER_STAT_TRIALS:      trials started.
 * @EMBPERF_SERVER_STAT_REFUSED:     connections refused by the allow list.
 * @EMBPERF_SERVER_STAT_BUSY:        clients told "busy".
 * @EMBPERF_SERVER_STAT_INVALID:     invalid, oversized or unexpected messages.
 */
enum embperf_server_stat {
	EMBPERF_SERVER_STAT_CONNECTIONS,
	EMBPERF_SERVER_STAT_SESSIONS,
	EMBPERF_SERVER_STAT_TRIALS,
	EMBPERF_SERVER_STAT_REFUSED,
	EMBPERF_SERVER_STAT_BUSY,
	EMBPERF_SERVER_STAT_INVALID,
	EMBPERF_SERVER_STAT_COUNT
};

/**
 * embperf_server_new() - a peer, configured but not listening yet.
 * @ctx: session: cancel (embperf_server_run() returns), log messages
 *       (connections, refusals). Must outlive the server.
 *
 * Return: the server (free with embperf_server_free()), or NULL with errno set.
 */
EMBPERF_API embperf_server *embperf_server_new(embperf_ctx *ctx);

/**
 * embperf_server_free() - close every connection, stop a running trial, free.
 * @srv: server, or NULL.
 */
EMBPERF_API void embperf_server_free(embperf_server *srv);

/**
 * embperf_server_set() - one setting, before the server listens.
 * @srv:   server.
 * @name:  "listen" (ADDR[:PORT], [IPV6]:PORT; default 0.0.0.0:5301),
 *         "allow" (an address block, 198.18.0.0/15; each call adds one; none:
 *         any client), "max_rate" (bit/s, default 10Gbit), "max_duration"
 *         (default 300s), "max_size" (bytes of a datagram, request or
 *         response, default 65507; a TCP stream's writes and reads are
 *         capped at 1 MiB instead), "idle_timeout" (default 60s).
 * @value: text, parsed as kernel parameters are ("100Mbit", "30s").
 *
 * Return: 0; -EINVAL for an unknown setting or a bad value, -EBUSY once
 * listening (embperf_server_errmsg() says which and what is accepted).
 */
EMBPERF_API int embperf_server_set(embperf_server *srv, const char *name, const char *value);

/**
 * embperf_server_start() - bind and listen (also done by the first run).
 * @srv: server.
 *
 * Return: 0, or a negative errno (-EADDRINUSE: the port is taken; the
 * detail message names the address).
 */
EMBPERF_API int embperf_server_start(embperf_server *srv);

/**
 * embperf_server_port() - the TCP port the server listens on (useful with
 * "listen" port 0).
 * @srv: server.
 *
 * Return: the port, or -EINVAL when it does not listen.
 */
EMBPERF_API int embperf_server_port(const embperf_server *srv);

/**
 * embperf_server_run() - serve for up to @timeout_ns.
 * @srv:        server.
 * @timeout_ns: how long to serve; 0: handle what is pending and return;
 *              UINT64_MAX: until cancelled.
 *
 * Handles connections and messages; trials run in a worker thread of the
 * server and continue between calls, but the control messages are handled
 * only inside this call: call it again soon (a product's event loop calls it
 * with a short timeout). Checks the context's cancel flag at least every
 * 100 ms.
 *
 * Return: 0 when the time is up, -ECANCELED when the context was cancelled,
 * or a negative errno from listening.
 */
EMBPERF_API int embperf_server_run(embperf_server *srv, uint64_t timeout_ns);

/**
 * embperf_server_stat() - one of the server's counters.
 * @srv:   server.
 * @stat:  which.
 * @value: receives it.
 *
 * Return: 0, or -EINVAL.
 */
EMBPERF_API int embperf_server_stat(const embperf_server *srv, enum embperf_server_stat stat,
				    uint64_t *value);

/**
 * embperf_server_errmsg() - detail of the server's last failure.
 * @srv: server.
 *
 * Return: a message owned by @srv, "" when there was none.
 */
EMBPERF_API const char *embperf_server_errmsg(const embperf_server *srv);

#ifdef __cplusplus
}
#endif

#endif /* EMBPERF_H */
