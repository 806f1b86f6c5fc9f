/* SPDX-License-Identifier: MIT */
/*
 * run.h - one run of a kernel (run.c): its state, the API a kernel's setup
 * and finish use (parameters, cases, values, messages), and what the
 * drivers (cases.c, trials.c) share: the case's deadline, new results,
 * progress and the "nothing measured" errors.
 *
 * Lifetime of a run (runner.c):
 *   calloc(state_bytes)       when the kernel declares @state_bytes: *state
 *                             points to it, zeroed, when setup is called
 *   setup(run, &state)        read parameters, allocate, ep_run_add_case()
 *   for each case:
 *     prepare(arg)            optional: build what this case needs
 *     body(arg, n) ...        timed by the engine
 *   finish(run, state)        optional: validate, add derived values
 *   teardown(state)           called when setup succeeded, also on cancel,
 *                             budget exhaustion and errors; and whenever
 *                             *state is non-NULL, also when setup failed
 *                             (with state_bytes: always)
 *   free(state)               the engine's state (state_bytes), after
 *                             teardown
 */
#ifndef EMBPERF_CORE_RUN_H
#define EMBPERF_CORE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "clock.h"
#include "kernel.h"

struct ep_value;

struct ep_run;
struct ep_run_case;

/**
 * typedef ep_trials_fn - how the runner measures a trial case
 * (trials.c).
 */
typedef int (*ep_trials_fn)(struct ep_run *run, struct ep_run_case *rc, int index);

/**
 * struct ep_run_case - a case as the run keeps it: calibrated (@c) or a
 * trial case (@tc, with its own copy of the search in @search).
 * @measure_trials: NULL for a calibrated case; for a trial case the trial
 *                  driver, set by ep_run_add_trial(). The runner calls it
 *                  through this pointer, so that a static program whose
 *                  kernels add no trial case (a memory and CPU self-test)
 *                  links without the trial driver (--gc-sections).
 */
struct ep_run_case {
	struct ep_case c;
	struct ep_trial_case tc;
	struct ep_search search;
	ep_trials_fn measure_trials;
	char *labels;
};

/**
 * struct ep_run - one run of a kernel.
 * @ctx:           the session.
 * @clock:         the session's clock, read by the drivers.
 * @kernel:        the kernel.
 * @values:        its parameter values (the bench's, combined list).
 * @errmsg:        where failures are described (the bench's buffer).
 * @errmsg_size:   its size.
 * @cfg:           the engine's settings.
 * @cpu:           the CPU the run is pinned to, or -1.
 * @params_text:   every parameter, "k=v k=v", recorded with each result.
 * @cases:         the cases setup() added.
 * @results:       the results so far.
 * @budget_hit:    the context's budget stopped a case early.
 * @unknown_param: the first parameter name the kernel read but does not declare.
 */
struct ep_run {
	embperf_ctx *ctx;
	const struct ep_clock *clock;
	const struct ep_kernel *kernel;
	const struct ep_value *values;
	char *errmsg;
	size_t errmsg_size;
	struct ep_engine_cfg cfg;
	int cpu;
	char *params_text;
	struct ep_run_case *cases;
	int n_cases;
	int cap_cases;
	struct embperf_result **results;
	int n_results;
	int cap_results;
	int budget_hit;
	const char *unknown_param;
};

/*
 * Parameters, read in setup(). A name the kernel does not declare is a bug
 * in the kernel: it reads 0 (or "") and the run fails with -EINVAL naming
 * it, so that a renamed parameter cannot fall back to a default unseen.
 */

/** ep_param_int() - value of an integer-like parameter, in base units (enum: index). */
int64_t ep_param_int(const struct ep_run *run, const char *name);
/** ep_param_double() - value of a double parameter (integer-like ones convert). */
double ep_param_double(const struct ep_run *run, const char *name);
/** ep_param_text() - canonical text of any parameter (enum: the choice). */
const char *ep_param_text(const struct ep_run *run, const char *name);
/** ep_param_range() - bounds of a size-range parameter; a single size gives lo == hi. */
void ep_param_range(const struct ep_run *run, const char *name, int64_t *lo, int64_t *hi);

/**
 * ep_run_add_case() - add a case to the run; the engine copies @c and its labels.
 * Return: 0 or -ENOMEM.
 */
int ep_run_add_case(struct ep_run *run, const struct ep_case *c);

/**
 * ep_run_add_params_case() - add a case labelled with parameters,
 * "<param>=<its text>" for each, a space apart ("mode=mo size=1M"),
 * whatever @c's labels.
 * @run: the run.
 * @c:   the case; copied.
 * @...: the parameters' names, then NULL.
 *
 * Return: 0 or -ENOMEM.
 */
int ep_run_add_params_case(struct ep_run *run, const struct ep_case *c, ...)
	__attribute__((sentinel));

/**
 * ep_run_add_value() - add a derived one-sample result (EP_METRIC_VALUE metric).
 * Return: 0 or -ENOMEM.
 */
int ep_run_add_value(struct ep_run *run, int metric, const char *labels, double value);

/**
 * ep_run_find_result() - a result the run has so far, for finish().
 * @run:    the run.
 * @metric: index into the kernel's metrics.
 * @labels: the case's labels, exactly as given to ep_run_add_case() or
 *          ep_run_add_value(); NULL: the first result of @metric.
 *
 * Return: the first matching result, owned by the run (lib/core/result.h
 * has its fields); NULL when there is none.
 */
const struct embperf_result *ep_run_find_result(const struct ep_run *run, int metric,
						const char *labels);

/**
 * ep_mem_check_fits() - refuse a request larger than the memory available.
 * @run:        run receiving the detail message.
 * @param:      parameter the request comes from ("size").
 * @value:      that parameter's text, for the message.
 * @need_bytes: memory (anonymous or page cache) the kernel will hold in all.
 *
 * Every kernel that allocates or caches by a size parameter calls it in
 * setup, before it allocates or writes anything: on a small board a size
 * beyond the memory left would swap, measure the disk instead of the cache,
 * or wake the OOM killer. Compares with ep_mem_available(); when the system
 * does not tell, the allocation itself is the only check.
 *
 * Return: 0, or -ENOMEM with a message naming the parameter, the value, the
 * bytes needed and the bytes available (and where that figure comes from).
 */
int ep_mem_check_fits(struct ep_run *run, const char *param, const char *value,
		      uint64_t need_bytes);

/**
 * ep_disk_check_fits() - refuse a file larger than the room left on a file system.
 * @run:        run receiving the detail message.
 * @param:      parameter the amount comes from ("size").
 * @where:      parameter that names the place ("target", "folder", "tmpdir").
 * @path:       a folder or file on that file system.
 * @need_bytes: bytes the kernel will still write there.
 *
 * The disk's counterpart of ep_mem_check_fits(), for kernels that write a
 * file of a size parameter: called before writing, so that a full disk is
 * a refusal naming the figures, not a failed write in the middle of a run.
 *
 * Return: 0 (also when statvfs() cannot tell, or reports no size as ramfs
 * does), or -ENOSPC with a message naming @param, its value, the bytes
 * needed, the bytes free and what is accepted (a smaller @param, or a
 * @where with more room).
 */
int ep_disk_check_fits(struct ep_run *run, const char *param, const char *where,
		       const char *path, uint64_t need_bytes);

/**
 * ep_run_fail() - record the detail message of a failure and return @err.
 * The message names the parameter, the value and what is accepted. Not for
 * worker threads: it writes the bench's one message buffer without a lock;
 * workers hand their error to the thread that runs the body.
 */
int ep_run_fail(struct ep_run *run, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * ep_run_refuse() - fail the run for the value of parameter @name: the
 * message is "parameter 'NAME': value 'TEXT'" (TEXT its canonical text, as
 * ep_param_text() gives it) followed by @fmt, which goes on with the reason
 * and ends with what is accepted (" is above 'size' (%s); accepted: ..." or
 * ": why; accepted: ..."). Return: @err.
 */
int ep_run_refuse(struct ep_run *run, int err, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** ep_run_log() - send a message to the context's log callback. */
void ep_run_log(struct ep_run *run, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * ep_run_check() - for long bodies: has the run been cancelled or its budget spent?
 * Return: 0 to go on, -ECANCELED or -ETIME to stop (return it from the body).
 */
int ep_run_check(struct ep_run *run);

/** ep_run_ctx() - the session the run belongs to. */
embperf_ctx *ep_run_ctx(struct ep_run *run);

/** ep_run_cpu() - CPU the run is pinned to, or -1. */
int ep_run_cpu(const struct ep_run *run);

/**
 * ep_run_add_trial() - add a trial case; the engine copies @tc and its labels.
 * Defined by the trial driver (trials.c), which passes itself to
 * ep_run_add_trial_measured(): run.c never names the driver above it, and a
 * static program whose kernels add no trial case links no trial driver.
 * Return: 0, -EINVAL (too many counters, no body) or -ENOMEM.
 */
int ep_run_add_trial(struct ep_run *run, const struct ep_trial_case *tc);

/**
 * ep_run_add_trial_measured() - ep_run_add_trial() with the driver that
 * will measure the case (@measure, kept in the case's measure_trials).
 * Return: as ep_run_add_trial().
 */
int ep_run_add_trial_measured(struct ep_run *run, const struct ep_trial_case *tc,
			      ep_trials_fn measure);

/* For the engine's drivers and the runner. */

/**
 * ep_run_init() - a run of @kernel with @values, failures described in @errmsg.
 * Return: 0 or -ENOMEM.
 */
int ep_run_init(struct ep_run *run, embperf_ctx *ctx, const struct ep_kernel *kernel,
		const struct ep_value *values, char *errmsg, size_t errmsg_size);

/** ep_run_free() - free the run's cases, results and text. */
void ep_run_free(struct ep_run *run);

/** ep_run_add_result() - append a finished result to the run. Return: 0 or -ENOMEM. */
int ep_run_add_result(struct ep_run *run, struct embperf_result *r);

/**
 * ep_run_new_result() - a result of metric @metric for the case labelled
 * @labels: identity, parameters, primary statistic, direction and CPU set.
 * Return: NULL on ENOMEM.
 */
struct embperf_result *ep_run_new_result(const struct ep_run *run, int metric,
					 const char *labels);

/**
 * ep_run_case_deadline() - when a case starting now must end: the
 * context's budget or the case's 'max_time', whichever comes first.
 * @from_budget: set to 1 when it is the budget's.
 * Return: the time on the run's clock, UINT64_MAX for none.
 */
uint64_t ep_run_case_deadline(const struct ep_run *run, int *from_budget);

/**
 * ep_run_deadline_reached() - is the case's deadline so close that
 * @next_ns more would pass it? Marks the budget as hit when it is the
 * budget's. Return: 0 to go on, 1 to stop, -ECANCELED on cancel.
 */
int ep_run_deadline_reached(struct ep_run *run, uint64_t deadline_ns, int from_budget,
			    uint64_t next_ns);

/**
 * ep_run_nothing_measured() - a case's deadline came before its first
 * sample or trial: the budget's end is the run's -ETIME; a case's own
 * 'max_time' is -ETIMEDOUT with a message naming it, never a case that
 * silently gives no result. @what: "sample" or "trial".
 */
int ep_run_nothing_measured(struct ep_run *run, const char *labels, int from_budget,
			    const char *what);

/** ep_run_progress() - report @part (0..1) of case @index done. */
void ep_run_progress(struct ep_run *run, int index, const char *labels, double part);

#endif /* EMBPERF_CORE_RUN_H */
