/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - how a benchmark kernel describes itself to the engine: its
 * parameters, metrics, cases and trial cases, and the struct the registry
 * lists. Types only; what a kernel calls is in run.h (parameters, cases,
 * messages), trial.h (a trial body's deadline check and tallies), search.h
 * (the engine's searches) and clock.h.
 *
 * A kernel of calibrated cases never reads a clock: a case is a body that
 * does N units of work (one load, one pass over a buffer, one context
 * switch); the engine calibrates N, warms up, repeats, computes the
 * statistics and turns time per unit into the metric's unit. A trial body
 * works until ep_trial_running() says stop and may stamp its own
 * operations (a latency) with ep_trial_now_ns(), the engine's clock.
 *
 * A kernel's state is usually one struct: the kernel names its size in
 * @state_bytes, and the engine callocs it before setup (which finds it in
 * *state, zeroed) and frees it after teardown. Setup fills it in and on an
 * error just returns: teardown unwinds, and frees what the struct holds,
 * never the struct (run.h has the lifetime of a run). Teardown must
 * therefore accept a partly built state, down to an untouched, zeroed one:
 * pointers still NULL, descriptors still -1 (setup sets them to -1 first,
 * before anything can fail), helpers never started. A kernel with no state,
 * or with one that is not a single fixed-size struct (a flexible array),
 * leaves @state_bytes 0; with a state, its setup then allocates *state
 * itself, storing it as soon as it has, and its teardown frees it.
 */
#ifndef EMBPERF_CORE_KERNEL_H
#define EMBPERF_CORE_KERNEL_H

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
	enum ep_better higher_better;
	const char *help;
};

/**
 * EP_METRIC_CPU_PROCESS() - the metric "cpu_process" of a trial kernel: the
 * process's CPU load over each trial, % of one CPU, lower is better.
 * @help: the kernel's help line for it.
 *
 * In a metric table: [M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_PROCESS_HELP).
 */
#define EP_METRIC_CPU_PROCESS(help)                                                          \
	{ "cpu_process", "%", EP_METRIC_TRIAL_CPU_PROCESS, 1.0, EP_PRIMARY_MEDIAN,           \
	  EP_BETTER_LOWER, help }

/**
 * EP_METRIC_CPU_SYSTEM() - the metric "cpu_system" of a trial kernel: the
 * whole system's CPU load over each trial (/proc/stat), %, lower is better.
 * @help: the kernel's help line for it.
 */
#define EP_METRIC_CPU_SYSTEM(help)                                                           \
	{ "cpu_system", "%", EP_METRIC_TRIAL_CPU_SYSTEM, 1.0, EP_PRIMARY_MEDIAN,             \
	  EP_BETTER_LOWER, help }

/* The help lines most kernels give the two CPU-load metrics. */
#define EP_CPU_PROCESS_HELP "the process's CPU load, % of one CPU"
#define EP_CPU_THIS_PROCESS_HELP "this process's CPU load, % of one CPU"
#define EP_CPU_SYSTEM_HELP "the whole system's CPU load, %"

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
 * @before:         optional: untimed, called with the same units before every
 *                  timed run of @body (calibration, warm-up, samples, the
 *                  counters' pass, whose counters count the body only), to
 *                  leave the caches as the reference
 *                  leaves them before its timed loop (mem.stream: the pass
 *                  STREAM runs just before this one).
 * @prepare:        optional: called once before the case is calibrated.
 * @arg:            passed to the callbacks.
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
	ep_body_fn before;
	int (*prepare)(void *arg);
	void *arg;
	double bytes_per_unit;
	uint64_t max_units;
	uint64_t min_units;
};

/*
 * Trials (doc/engine.md, "Trials: time-driven kernels..."). A trial case is a body that works until the engine
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

/** struct ep_default - a kernel's default for one engine parameter. */
struct ep_default {
	const char *name;
	const char *value;
};

/*
 * ep_lmbench_defaults - the engine defaults of the kernels that follow an
 * lmbench program and report a median: at least 11 samples (lmbench's
 * TRIES), and more, up to 101, while the median's 95 % interval is wider
 * than +-2 % ('precision'): samples that agree stop at lmbench's 11, samples
 * that disagree (a fork or exec timed a few at a time) spend more of the
 * budget, so that one run's median moves less from the next run's
 * (os.proc op=exec, 24 runs each: standard deviation 18.6 % of the mean
 * with 11 samples, 11.6 % with this rule). The engine's one warm-up
 * sample. doc/engine.md, "stop rule".
 */
extern const struct ep_default ep_lmbench_defaults[];

/*
 * ep_lmbench_count_defaults - lmbench's fixed count, 11 samples, every one
 * of them (spread 0), for the kernels whose primary figure is a minimum or
 * a maximum (lat_mem_rd's, the parallelism probe's): the expected extreme
 * of N samples depends on N, so the count is part of the method.
 */
extern const struct ep_default ep_lmbench_count_defaults[];

/*
 * ep_lmbench_ipc_defaults - lmbench's 11 samples (a fixed count: 101 of
 * 100 ms would be 10 s a case), each of 100 ms, for
 * the kernels that hand a token between processes the scheduler places
 * freely: os.ctx's ring of pipes, the pipe, AF_UNIX and TCP round trips.
 * Which CPUs the processes share and how deep the idle one sleeps change
 * over tens of milliseconds, so 5 ms samples each catch one placement and
 * runs disagree (os.ctx 2 procs 256k: 20.5 to 26.2 us over six runs of
 * 0.1 s each; lat_ctx takes 54 s). lmbench times each of its 11
 * repetitions for about a second. os.sem and os.fcntl met lat_sem and
 * lat_fcntl with 5 ms samples and not with 100 ms, so they keep 5 ms.
 * doc/methodology-os.md, "Sample length".
 */
extern const struct ep_default ep_lmbench_ipc_defaults[];

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
 * @setup:           reads parameters, builds the state, adds cases. With
 *                   @state_bytes, *@state already points to the engine's
 *                   zeroed state (setup must not replace it); without,
 *                   setup allocates *@state itself, storing it before
 *                   anything can fail.
 * @finish:          optional: after every case has run (validation,
 *                   derived values). Not called when the run was cut short.
 * @teardown:        optional: releases what the state holds, also of a
 *                   partly built one, and, without @state_bytes, frees the
 *                   state itself; called whenever setup succeeded or *state
 *                   is non-NULL (with @state_bytes: after every setup,
 *                   failed or not). A state that holds nothing needs none.
 * @state_bytes:     the size of the kernel's state struct, or 0. When
 *                   non-zero the engine callocs it before setup, hands it
 *                   to setup in *state and frees it after teardown; a run
 *                   whose state cannot be allocated fails with -ENOMEM and
 *                   calls neither. 0: setup allocates its state itself.
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
	size_t state_bytes;
	int cpu_bound;
	int trials;
};

/*
 * EP_PARAMS(table), EP_METRICS(table) - a kernel's @params and @n_params (or
 * @metrics and @n_metrics) from one static array, in a struct ep_kernel
 * initializer: the count cannot drift from the table.
 */
#define EP_PARAMS(table) .params = (table), .n_params = (int)(sizeof(table) / sizeof((table)[0]))
#define EP_METRICS(table) \
	.metrics = (table), .n_metrics = (int)(sizeof(table) / sizeof((table)[0]))

#endif /* EMBPERF_CORE_KERNEL_H */
