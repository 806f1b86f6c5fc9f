/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - what a benchmark kernel sees of the engine.
 *
 * A kernel never reads a clock. It describes its parameters and metrics,
 * and in setup() it allocates its state and adds one or more cases. A case
 * is a body that does N units of work (one load, one pass over a buffer,
 * one context switch); the engine calibrates N, warms up, repeats, computes
 * the statistics and turns time per unit into the metric's unit.
 *
 * Lifetime of a run:
 *   setup(run, &state)        read parameters, allocate, ep_run_add_case()
 *   for each case:
 *     prepare(arg)            optional: build what this case needs
 *     body(arg, n) ...        timed by the engine
 *   finish(run, state)        optional: validate, add derived values
 *   teardown(state)           called when setup succeeded, also on cancel,
 *                             budget exhaustion and errors; and whenever
 *                             setup left *state non-NULL, also when setup
 *                             failed
 *
 * So setup stores *state as soon as it has allocated it, and on an error
 * just returns: teardown unwinds. Teardown must therefore accept a partly
 * built state: pointers still NULL, descriptors still -1 (setup sets them
 * to -1 before anything can fail), helpers never started.
 */
#ifndef EMBPERF_CORE_KERNEL_H
#define EMBPERF_CORE_KERNEL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "embperf.h"

struct ep_run;
struct ep_trial_row;

/** Parameter types; the text after each is the type's name in descriptions. */
enum ep_ptype {
	EP_PT_INT,        /* "int": a count; suffixes k, M, G multiply by 10^3.. */
	EP_PT_SIZE,       /* "size": bytes; k, M, G multiply by 2^10.. (as lmbench) */
	EP_PT_SIZE_RANGE, /* "size-range": "SIZE" or "SIZE..SIZE" */
	EP_PT_DURATION,   /* "duration": ns, us, ms, s; a bare number is seconds */
	EP_PT_DOUBLE,     /* "double": a real number; a trailing % divides by 100 */
	EP_PT_ENUM,       /* "enum": one of the '|'-separated choices */
	EP_PT_BOOL,       /* "bool": 0/1, no/yes, off/on, false/true */
	EP_PT_RATE,       /* "rate": bits/s; bit, kbit, Mbit, Gbit (10^3 steps) */
	EP_PT_FREQ,       /* "freq": Hz; k, M (10^3 steps), "48k" */
	EP_PT_STRING,     /* "string": free text (paths, device names) */
};

/**
 * struct ep_param_desc - one parameter of a kernel.
 * @name:    lower case, [a-z0-9_].
 * @type:    how the text is parsed.
 * @def:     default, as text ("" only for strings).
 * @min:     smallest accepted value in base units (integer types).
 * @max:     largest accepted value in base units (integer types).
 * @dmin:    smallest accepted value (EP_PT_DOUBLE).
 * @dmax:    largest accepted value (EP_PT_DOUBLE).
 * @choices: EP_PT_ENUM: "rd|wr|rdwr"; the value is the index.
 * @unit:    base unit shown in descriptions ("bytes", "ns", "bit/s", "Hz", "").
 * @help:    one line.
 *
 * In a table: { "name", EP_PT_SIZE, "1M", { { MIN, MAX } }, ... } for integer
 * types, { "name", EP_PT_DOUBLE, "0.5", { .dmin = MIN, .dmax = MAX }, ... }.
 */
struct ep_param_desc {
	const char *name;
	enum ep_ptype type;
	const char *def;
	/* One pair or the other (16 bytes a parameter less in every table). */
	union {
		struct {
			int64_t min, max;
		};
		struct {
			double dmin, dmax;
		};
	};
	const char *choices;
	const char *unit;
	const char *help;
};

/** Which statistic is a metric's value. */
enum ep_primary {
	EP_PRIMARY_MEDIAN,
	EP_PRIMARY_MIN,
	EP_PRIMARY_MAX,
};

/** How a sample's time per unit becomes the metric's value. */
enum ep_metric_kind {
	EP_METRIC_TIME,  /* value = ns per unit / time_scale (time_scale 1: ns, 1000: us) */
	EP_METRIC_RATE,  /* value = bytes per unit / ns per unit * 1000 = MB/s (10^6) */
	EP_METRIC_VALUE, /* derived values added with ep_run_add_value(): no conversion */
	EP_METRIC_PER_SECOND, /* value = units per second (10^9 / ns per unit), e.g. files/s */
	/* Metrics of trial cases: each trial gives one sample. */
	EP_METRIC_TRIAL_MBPS,    /* tally bytes / measured time, MB/s (10^6) */
	EP_METRIC_TRIAL_BITS,    /* tally bytes x 8 / measured time, bit/s */
	EP_METRIC_TRIAL_OPS,     /* tally operations / measured time, per second */
	EP_METRIC_TRIAL_LATENCY, /* median of the trial's latencies / time_scale; the
				  * result also carries the distribution of all trials */
	EP_METRIC_TRIAL_COUNTER, /* the kernel's counter of the metric's name, per trial */
	EP_METRIC_TRIAL_CPU_PROCESS,  /* the process's CPU load over the trial, % of one CPU */
	EP_METRIC_TRIAL_CPU_SYSTEM,   /* the whole system's CPU load over the trial, % */
	EP_METRIC_SEARCH,        /* the value a search found (one per search) */
	EP_METRIC_TRIAL_DERIVED, /* the trial case's derive() of the trial's tally */
};

/**
 * Which way a metric is better (struct ep_metric_desc's @higher_better):
 * EP_BETTER_LOWER for latencies, EP_BETTER_HIGHER for bandwidths,
 * EP_BETTER_ZERO for a signed error (a rate error in ppm): the smaller its
 * magnitude, the better, whatever its sign.
 */
enum ep_better {
	EP_BETTER_LOWER = 0,
	EP_BETTER_HIGHER = 1,
	EP_BETTER_ZERO = 2,
};

/**
 * struct ep_metric_desc - one metric of a kernel.
 * @name:          "latency", "bandwidth", "copy", ...
 * @unit:          "ns", "us", "MB/s", "bytes", ...
 * @kind:          conversion from time per unit.
 * @time_scale:    EP_METRIC_TIME: nanoseconds per reported unit;
 *                 EP_METRIC_TRIAL_LATENCY the same; EP_METRIC_TRIAL_BITS and
 *                 EP_METRIC_TRIAL_OPS: the rate is divided by it (10^6:
 *                 Mbit/s; 10^3: kPPS).
 * @primary:       statistic reported as the value.
 * @higher_better: an enum ep_better: 1 (EP_BETTER_HIGHER) for bandwidths,
 *                 0 (EP_BETTER_LOWER) for latencies, EP_BETTER_ZERO for a
 *                 signed error.
 * @help:          one line.
 *
 * A metric of kind EP_METRIC_TRIAL_COUNTER reads the kernel counter of the
 * same name ("xruns"); one of kind EP_METRIC_TRIAL_LATENCY takes each
 * trial's median latency as its sample and carries the percentiles of all
 * trials' latencies; one of kind EP_METRIC_TRIAL_DERIVED takes what the
 * trial case's derive() computes from each trial's tally (a rate error
 * from frames/s and the nominal rate).
 */
struct ep_metric_desc {
	const char *name;
	const char *unit;
	enum ep_metric_kind kind;
	double time_scale;
	enum ep_primary primary;
	int higher_better;
	const char *help;
};

/** Body of a case: do @units units of work. Returns 0 or a negative errno. */
typedef int (*ep_body_fn)(void *arg, uint64_t units);

/**
 * struct ep_case - one measured point of a run.
 * @metric:         index into the kernel's metrics.
 * @labels:         "op=rd size=1M": what tells this case from the others.
 * @body:           timed work.
 * @overhead:       optional: the same loop without the work; its time per
 *                  unit (best of several) is subtracted from every sample.
 * @overhead_credit: optional, with @overhead: a part of @overhead the body
 *                  does not contain; its time per unit (best of several) is
 *                  taken off the overhead, so the body is charged
 *                  @overhead - @overhead_credit (lat_sig's prot subtracts
 *                  catch - send, each timed on its own).
 * @prepare:        optional: called once before the case is calibrated.
 * @arg:            passed to the three callbacks.
 * @bytes_per_unit: EP_METRIC_RATE: bytes one unit counts for.
 * @max_units:      optional cap on units per sample (0: none), for bodies
 *                  whose units cannot repeat without limit.
 * @min_units:      optional floor on units per sample (0: none; at most
 *                  @max_units), for bodies whose units differ from one
 *                  another: mem.lat's walk of a whole random chain.
 */
struct ep_case {
	int metric;
	const char *labels;
	ep_body_fn body;
	ep_body_fn overhead;
	ep_body_fn overhead_credit;
	int (*prepare)(void *arg);
	void *arg;
	double bytes_per_unit;
	uint64_t max_units;
	uint64_t min_units;
};

/*
 * Trials (DESIGN.md §4b). A trial case is a body that works until the engine
 * says stop and counts what it did into a tally; the engine fixes how long
 * (ramp, then duration), pauses between trials (settle), repeats them
 * (repetitions) and turns every tally into one sample of each of the
 * kernel's trial metrics. With a search, the engine asks the search for each
 * trial's configuration and logs every trial.
 */
struct ep_trial;
struct ep_tally;

/**
 * typedef ep_trial_fn - body of a trial case: loop while
 * ep_trial_running() says so, counting into ep_trial_tally(). Worker
 * threads may be started inside; they are joined before it returns.
 * Return: 0 or a negative errno (-ECANCELED/-ETIME are not errors: the
 * engine decides from its own flags).
 */
typedef int (*ep_trial_fn)(void *arg, struct ep_trial *t);

/** The most counters a trial case may declare. */
#define EP_TALLY_MAX_COUNTERS 24

/**
 * struct ep_search - a strategy that picks each trial's configuration.
 * @next:    the next trial's value into *@config from the trials so far
 *           (@log, @n in the order run). Return: 1 to run it, 0 when the
 *           search is done, a negative errno on failure.
 * @judge:   the outcome of a finished trial (a loss ratio) and whether it
 *           passed, from its tally. Return: 0 or a negative errno.
 * @found:   the searched value from the log (e.g. the highest passing
 *           config). Return: 0, or -ENOENT when no trial passed.
 * @arg:     passed to the three callbacks.
 * @metric:  EP_METRIC_SEARCH metric that receives the value.
 * @config_name, @outcome_name: names of the trial log's columns.
 */
struct ep_search {
	int (*next)(void *arg, const struct ep_trial_row *log, size_t n, double *config);
	int (*judge)(void *arg, const struct ep_tally *tally, double config, double *outcome,
		     int *pass);
	int (*found)(void *arg, const struct ep_trial_row *log, size_t n, double *value);
	void *arg;
	int metric;
	const char *config_name;
	const char *outcome_name;
};

/**
 * struct ep_trial_case - one trial case of a run.
 * @labels:     as for struct ep_case.
 * @body:       the trial body.
 * @prepare:    optional: called once before the first trial.
 * @before_trial: optional: called before every trial (its index, 0 first),
 *              after 'settle' and outside the trial's time: what each trial
 *              must start from (a block job's cold cache).
 * @arg:        passed to @body, @prepare and @before_trial.
 * @counters:   names of the kernel's own counters ("xruns"), indexed as
 *              ep_tally_count() counts them; at most EP_TALLY_MAX_COUNTERS.
 * @n_counters: number of @counters.
 * @search:     optional: run a search (each trial's configuration from
 *              @search) instead of 'repetitions' equal trials; copied.
 * @derive:     optional: after each trial, one sample of each of the
 *              kernel's EP_METRIC_TRIAL_DERIVED metrics (@metric: its index)
 *              from the trial's tally (ep_tally_ops(), ep_tally_counter(),
 *              ep_tally_elapsed_ns(), ...); NaN (or an infinity): this trial
 *              gives none.
 *              Called outside the trial's time, on the thread that ran the
 *              body, with @arg. Without it those metrics give no result.
 */
struct ep_trial_case {
	const char *labels;
	ep_trial_fn body;
	int (*prepare)(void *arg);
	int (*before_trial)(void *arg, int index);
	void *arg;
	const char *const *counters;
	int n_counters;
	const struct ep_search *search;
	double (*derive)(void *arg, int metric, const struct ep_tally *tally);
};

/**
 * ep_run_add_trial() - add a trial case; the engine copies @tc and its labels.
 * Return: 0, -EINVAL (too many counters, no body) or -ENOMEM.
 */
int ep_run_add_trial(struct ep_run *run, const struct ep_trial_case *tc);

/**
 * ep_trial_running() - the cheap deadline check of a trial body: one clock
 * read and a few atomic loads. Ends the ramp (counting starts) and the
 * trial (counting stops) on time, and stops on cancel and budget. Safe to
 * call from worker threads.
 * Return: 1 while the body should go on, 0 when it should stop.
 */
int ep_trial_running(struct ep_trial *t);

/** ep_trial_tally() - the trial's own tally (for the thread running the body). */
struct ep_tally *ep_trial_tally(struct ep_trial *t);

/**
 * ep_trial_tally_new() - a tally for a worker thread, merged into the
 * trial's by ep_trial_tally_merge(). Return: NULL on ENOMEM.
 */
struct ep_tally *ep_trial_tally_new(struct ep_trial *t);

/** ep_trial_tally_merge() - add @ta to the trial's tally and free it. NULL is a no-op. */
void ep_trial_tally_merge(struct ep_trial *t, struct ep_tally *ta);

/** ep_trial_config() - the configuration a search set for this trial (0 without). */
double ep_trial_config(const struct ep_trial *t);

/**
 * ep_trial_set_config() - the configuration this trial actually ran at,
 * when it is only known once it ran (an unpaced first trial of a rate
 * search records the rate it achieved). The search judges and logs it.
 */
void ep_trial_set_config(struct ep_trial *t, double config);

/**
 * ep_trial_end_ns() - when the trial's measured part ends (ep_now_ns()
 * time), for bodies that sleep: never sleep past it.
 */
uint64_t ep_trial_end_ns(const struct ep_trial *t);

/**
 * ep_trial_start_ns() - when the measured part started (ep_now_ns() time),
 * 0 while the trial ramps up. For bodies whose work carries its own
 * timestamps (a device's completions, a packet's send time): work stamped
 * before it belongs to the ramp.
 */
uint64_t ep_trial_start_ns(const struct ep_trial *t);

/**
 * ep_trial_started() - the body's start-up is over (a stream prepared and
 * started, a connection made). When the trial has no ramp, its measured part
 * started before the body was called; it starts again now: the time, the
 * CPU-load snapshot and the perf counters, and the end moves to now plus
 * 'duration'. What was tallied stays. With a ramp, or once the measured part
 * was restarted, nothing changes. Call it from the body's thread before any
 * worker thread calls ep_trial_running().
 */
void ep_trial_started(struct ep_trial *t);

/** ep_trial_index() - 0 for the first trial of the case, 1 for the next, ... */
int ep_trial_index(const struct ep_trial *t);

/* Counting. Work done while the trial ramps up, or after it ended, is not
 * counted: the tally functions look at the trial's phase. A tally has one
 * writer. */

/** ep_tally_add() - count @ops operations that moved @bytes bytes. */
void ep_tally_add(struct ep_tally *ta, uint64_t ops, uint64_t bytes);

/** ep_tally_latency() - record one operation's latency (O(1), no allocation). */
void ep_tally_latency(struct ep_tally *ta, uint64_t latency_ns);

/**
 * ep_tally_op() - count @ops operations that moved @bytes bytes and record
 * one latency, all or nothing: the phase is looked at once, so a trial that
 * ends (or starts measuring) between the two never keeps one without the
 * other (seen under qemu-user: an I/O counted without its latency).
 */
void ep_tally_op(struct ep_tally *ta, uint64_t ops, uint64_t bytes, uint64_t latency_ns);

/** ep_tally_count() - add @n to the kernel counter @counter (index into the case's list). */
void ep_tally_count(struct ep_tally *ta, int counter, double n);

/*
 * The far side's figures. A network peer counts what it received during the
 * measured part and says so only after the trial ended, when the functions
 * above no longer count. These count whatever the phase, into a trial whose
 * measured part ran; call them from the body's thread after
 * ep_trial_running() returned 0, before the body returns.
 */

/** ep_tally_add_after() - count operations and bytes reported after the trial ended. */
void ep_tally_add_after(struct ep_tally *ta, uint64_t ops, uint64_t bytes);

/** ep_tally_count_after() - add @n to the kernel counter @counter after the trial ended. */
void ep_tally_count_after(struct ep_tally *ta, int counter, double n);

/** ep_tally_ops(), ep_tally_bytes(), ep_tally_counter() - what was counted (for judge()). */
uint64_t ep_tally_ops(const struct ep_tally *ta);
uint64_t ep_tally_bytes(const struct ep_tally *ta);
double ep_tally_counter(const struct ep_tally *ta, int counter);

/** ep_tally_elapsed_ns() - the measured time of the trial the tally belongs to. */
uint64_t ep_tally_elapsed_ns(const struct ep_tally *ta);

/**
 * struct ep_bsearch - the engine's binary search over one numeric
 * configuration: the highest value that passes, between @lo and @hi,
 * to within @resolution, in at most @max_trials trials. The first trial
 * runs at @hi (the full rate passes more often than not on a fast link);
 * then the interval between the highest pass and the lowest failure is
 * halved. Use ep_bsearch_init() and the ep_bsearch_* callbacks as the
 * struct ep_search's next and found; the kernel supplies judge.
 */
struct ep_bsearch {
	double lo, hi;
	double resolution;
	int max_trials;
};

/**
 * ep_bsearch_next() - struct ep_search next() for @arg = struct ep_bsearch *.
 * Return: 1 with *@config set, 0 when done (interval below the
 * resolution, max_trials reached, or the first trial at @hi passed).
 */
int ep_bsearch_next(void *arg, const struct ep_trial_row *log, size_t n, double *config);

/** ep_bsearch_found() - struct ep_search found(): the highest passing config. */
int ep_bsearch_found(void *arg, const struct ep_trial_row *log, size_t n, double *value);

/**
 * struct ep_rate_search - the engine's search for the highest offered rate
 * whose loss stays within a tolerance (RFC 2544 §26.1 throughput; a partial
 * drop rate when @tolerance_pct > 0). Each trial's log row holds the rate
 * it offered as its config and the loss in % of what it offered as its
 * outcome.
 *
 * A bottleneck that keeps forwarding under overload (a shaper, a queue, a
 * link) delivers its capacity whatever is offered above it, so what a
 * failed trial delivered, config x (1 - loss), bounds the throughput (FD.io
 * CSIT's MLRsearch starts from the receive rate at the maximal load the
 * same way). A trial far above the bottleneck fills its buffers before
 * its measured part and delivers the bare capacity; one just above it
 * ("near": loss at most 5 points above the tolerance) delivers what passes
 * in a trial of that length, buffers included. So after the first trial
 * at @top: nothing passed and only far failures, a trial a few
 * resolutions above what they delivered (to get a near one); then just
 * below what the near failure delivered; a pass within @resolution_pct
 * below it ends the search (@confirm: one more trial just above the pass
 * must fail, so that a pass and a failure bracket the result). A pass at or
 * above every bound disproves them (a receiver that livelocks under
 * overload delivers less than it takes without loss): the search then
 * steps up from the pass, 4 x farther at each pass, and halves once a
 * failure lies above the highest pass.
 *
 * @top:            the first trial's rate.
 * @floor:          the lowest rate worth a trial; a failure at or below it
 *                  ends the search.
 * @resolution_pct: the search ends when the interval is at most this share
 *                  of the highest rate that passed.
 * @tolerance_pct:  the loss a trial may have and pass.
 * @max_trials:     the most trials.
 * @confirm:        end only with a failing trial within the resolution
 *                  above the pass (at most one trial more).
 * @uncounted:      NULL, or per trial (at least @max_trials entries): 1 when
 *                  the kernel judged that trial's failure not to be the
 *                  path's (it is rerun, and it bounds nothing).
 */
struct ep_rate_search {
	double top;
	double floor;
	double resolution_pct;
	double tolerance_pct;
	int max_trials;
	int confirm;
	const unsigned char *uncounted;
};

/**
 * ep_rate_search_next() - struct ep_search next() for @arg = struct
 * ep_rate_search *.
 * Return: 1 with *@config set, 0 when done (the interval is within the
 * resolution, @max_trials ran, the first trial passed, or a trial at the
 * floor failed). The found value is ep_bsearch_found()'s: the highest pass.
 */
int ep_rate_search_next(void *arg, const struct ep_trial_row *log, size_t n, double *config);

/** struct ep_default - a kernel's default for one engine parameter. */
struct ep_default {
	const char *name;
	const char *value;
};

/*
 * ep_lmbench_defaults - the engine defaults of the kernels that follow an
 * lmbench program: 11 repetitions (lmbench's TRIES), every one of them
 * (spread 0: a minimum or a median of lmbench's count wants them all), and
 * the engine's one warm-up sample.
 */
extern const struct ep_default ep_lmbench_defaults[];

/**
 * struct ep_kernel - a kernel, as the registry lists it.
 * @name:            "mem.lat".
 * @summary:         one line.
 * @feature:         build feature it needs ("alsa"), or NULL.
 * @params:          its own parameters (the engine's are added to these).
 * @n_params:        number of @params.
 * @metrics:         its metrics.
 * @n_metrics:       number of @metrics.
 * @engine_defaults: the kernel's own defaults for engine parameters, an
 *                   array ended by { NULL, NULL }, or NULL. Example:
 *                   static const struct ep_default d[] = {
 *                           { "repetitions", "10" }, { "warmup", "1" }, { NULL, NULL } };
 * @setup:           reads parameters, allocates *@state (storing it before
 *                   anything can fail), adds cases.
 * @finish:          optional: after every case has run (validation,
 *                   derived values). Not called when the run was cut short.
 * @teardown:        frees the state, also a partly built one; called
 *                   whenever setup succeeded or left *state non-NULL.
 * @cpu_bound:       1 when the kernel's threads should never wait for a CPU
 *                   (one process, at most one thread per CPU): a run-queue
 *                   wait is then another task's doing and marks the result
 *                   disturbed. 0 for kernels whose own processes or threads
 *                   take turns on a CPU by design (a ping-pong pinned to one
 *                   CPU waits for its partner 30 % of the time).
 * @trials:          1 for a kernel of trial cases (block, audio, network,
 *                   timers): the engine offers duration, ramp, settle and
 *                   percentiles instead of the calibration parameters.
 */
struct ep_kernel {
	const char *name;
	const char *summary;
	const char *feature;
	const struct ep_param_desc *params;
	int n_params;
	const struct ep_metric_desc *metrics;
	int n_metrics;
	const struct ep_default *engine_defaults;
	int (*setup)(struct ep_run *run, void **state);
	int (*finish)(struct ep_run *run, void *state);
	void (*teardown)(void *state);
	int cpu_bound;
	int trials;
};

/* Parameters, read in setup(). Unknown names are a programming error and
 * return 0 / NULL. */

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
 * ep_run_fail() - record the detail message of a failure and return @err.
 * The message names the parameter, the value and what is accepted. Not for
 * worker threads: it writes the bench's one message buffer without a lock;
 * workers hand their error to the thread that runs the body.
 */
int ep_run_fail(struct ep_run *run, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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

/** ep_now_ns() - CLOCK_MONOTONIC_RAW in nanoseconds. */
uint64_t ep_now_ns(void);

/** ep_sysinfo_u64() - a numeric system information entry (0 when unknown). */
uint64_t ep_sysinfo_u64(embperf_ctx *ctx, const char *key);

#endif /* EMBPERF_CORE_KERNEL_H */
