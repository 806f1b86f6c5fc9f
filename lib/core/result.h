/* SPDX-License-Identifier: MIT */
/*
 * result.h - the result object, shared by the engine (which fills it) and
 * the report (which copies, renders, loads and compares it).
 */
#ifndef EMBPERF_CORE_RESULT_H
#define EMBPERF_CORE_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "embperf.h"
#include "kernel.h"
#include "stats.h"
#include "util.h"

/*
 * EP_COUNTERS(X) - the counters recorded with every measured result, in
 * this order, as X(enumerator, name in reports): the one list that both
 * enum ep_counter and the names of ep_counter_name() are made from (perf
 * counters: task_clock_ns .. cache_misses, counters.c).
 */
#define EP_COUNTERS(X)                                                                             \
	/* units of work in all kept samples */                                                    \
	X(EP_CTR_UNITS, "units")                                                                   \
	/* getrusage user+system / wall, % of one CPU */                                           \
	X(EP_CTR_CPU_PROCESS_PCT, "cpu_process_pct")                                               \
	/* /proc/stat (total - idle - iowait) / total, % */                                        \
	X(EP_CTR_CPU_SYSTEM_PCT, "cpu_system_pct")                                                 \
	X(EP_CTR_TASK_CLOCK_NS, "task_clock_ns")                                                   \
	X(EP_CTR_CONTEXT_SWITCHES, "context_switches")                                             \
	X(EP_CTR_CPU_MIGRATIONS, "cpu_migrations")                                                 \
	X(EP_CTR_PAGE_FAULTS, "page_faults")                                                       \
	X(EP_CTR_CYCLES, "cycles")                                                                 \
	X(EP_CTR_INSTRUCTIONS, "instructions")                                                     \
	X(EP_CTR_CACHE_REFERENCES, "cache_references")                                             \
	X(EP_CTR_CACHE_MISSES, "cache_misses")                                                     \
	/* per unit, the declared overhead subtracted */                                           \
	X(EP_CTR_OVERHEAD_NS, "overhead_ns")                                                       \
	/* run-queue wait of the process's threads / wall, % */                                    \
	X(EP_CTR_CPU_WAIT_PCT, "cpu_wait_pct")                                                     \
	/* getrusage ru_nivcsw over the samples */                                                 \
	X(EP_CTR_INVOLUNTARY_SWITCHES, "involuntary_switches")

/** enum ep_counter - the index of each of EP_COUNTERS in a result's counters. */
enum ep_counter {
#define EP_CTR_ENUMERATOR(id, name) id,
	EP_COUNTERS(EP_CTR_ENUMERATOR)
#undef EP_CTR_ENUMERATOR
	EP_CTR_COUNT
};

/** ep_counter_name() - "units", "cpu_process_pct", ...; NULL when out of range. */
const char *ep_counter_name(int counter);

/** ep_counter_index() - index of a counter name, or -1. */
int ep_counter_index(const char *name);

/** struct ep_pct - one percentile of a distribution, in the result's unit. */
struct ep_pct {
	double pct;
	double value;
};

/** struct ep_named - a kernel-declared counter ("xruns"), summed over the trials. */
struct ep_named {
	char *name;
	double value;
};

/**
 * struct ep_trial_row - one trial of a search, as the trial log keeps it.
 * @config:      the value the search set for the trial (an offered rate).
 * @outcome:     what the kernel judged the trial by (a loss ratio).
 * @pass:        1 when the trial passed.
 * @duration_ns: how long the trial ran (its measured part).
 */
struct ep_trial_row {
	double config;
	double outcome;
	int pass;
	uint64_t duration_ns;
};

/* When a result marks itself (embperf_result_flags()): the thresholds. */
#define EP_DISTURBED_WAIT_PCT 5.0 /* its threads waited for a CPU this much of the time */
#define EP_UNSTABLE_SPREAD 0.10   /* its samples' robust spread is above this */

/**
 * struct embperf_result - one metric of a run.
 * All strings are owned by the result (malloc'd), never NULL.
 */
struct embperf_result {
	char *kernel;
	char *metric;
	char *unit;
	char *title;
	char *labels;          /* "op=rd size=1M" */
	char *params;          /* every parameter, "k=v k=v" */
	struct ep_pairs label_kv; /* @labels as pairs */
	struct ep_pairs param_kv; /* @params as pairs */
	enum ep_primary primary;
	int higher_better;     /* an enum ep_better (int: its type in the ABI baseline) */
	struct ep_stats stats;
	double value;          /* the primary statistic */
	double *samples;
	size_t n_samples;
	double counters[EP_CTR_COUNT];
	unsigned char counter_ok[EP_CTR_COUNT]; /* 1: measured; 0: unavailable */
	int cpu;
	int truncated;
	unsigned flags;        /* enum embperf_result_flag bits */
	char *note;            /* why the flags are set; "" when none */
	/* A latency distribution (trial metrics; has_dist 0 otherwise). */
	int has_dist;
	double dist_n, dist_min, dist_max, dist_mean;
	struct ep_pct *pcts;
	size_t n_pcts;
	/* Counters the kernel declared, listed after the engine's. */
	struct ep_named *named;
	size_t n_named;
	/* The trial log of a search (n_trials 0 otherwise). */
	char *trial_config_name;  /* "rate" */
	char *trial_outcome_name; /* "loss" */
	struct ep_trial_row *trials;
	size_t n_trials;
	/* Set by embperf_report_compare(). */
	int verdict;
	int has_baseline;
	double baseline;
	double ratio;
};

/**
 * ep_result_new() - allocate a result with its identity strings copied.
 * Statistics are NaN, counters unavailable, cpu -1. Return: NULL on ENOMEM.
 */
struct embperf_result *ep_result_new(const char *kernel, const char *metric, const char *unit,
				     const char *labels, const char *params);

/**
 * ep_result_set_samples() - copy @n samples in and compute statistics and value.
 * Return: 0 or -ENOMEM.
 */
int ep_result_set_samples(struct embperf_result *r, const double *samples, size_t n);

/** ep_result_set_title() - replace the title. Return: 0 or -ENOMEM. */
int ep_result_set_title(struct embperf_result *r, const char *title);

/**
 * ep_result_set_pcts() - copy @n percentiles in (sorted by pct). Return: 0 or -ENOMEM.
 */
int ep_result_set_pcts(struct embperf_result *r, const struct ep_pct *pcts, size_t n);

/**
 * ep_result_add_named() - add (or add to) the kernel-declared counter @name.
 * Return: 0 or -ENOMEM.
 */
int ep_result_add_named(struct embperf_result *r, const char *name, double value);

/**
 * ep_result_set_trials() - copy a trial log in, with the names of its
 * configuration and outcome columns. Return: 0 or -ENOMEM.
 */
int ep_result_set_trials(struct embperf_result *r, const char *config_name,
			 const char *outcome_name, const struct ep_trial_row *rows, size_t n);

/**
 * ep_result_assess() - mark a measured result whose own evidence says it
 * is not to be trusted as it stands: its threads waited for a CPU (another
 * task had it; judged only when @judge_wait, for kernels whose threads never
 * take turns by design), its samples disagree, or it moved between CPUs
 * (@moved). Sets @r->flags and @r->note from the counters and samples.
 * Return: 0 or -ENOMEM.
 */
int ep_result_assess(struct embperf_result *r, int moved, int judge_wait);

/** ep_result_flag_name() - "disturbed", "unstable", "migrated" for one bit; NULL otherwise. */
const char *ep_result_flag_name(unsigned bit);

/** ep_result_flag_parse() - inverse of ep_result_flag_name(); 0 for an unknown name. */
unsigned ep_result_flag_parse(const char *name);

/** ep_result_set_note() - set flags and note as given (reports loaded from JSON). */
int ep_result_set_note(struct embperf_result *r, unsigned flags, const char *note);

/** ep_result_dup() - deep copy. Return: NULL on ENOMEM. */
struct embperf_result *ep_result_dup(const struct embperf_result *r);

/** ep_result_free() - free a result; NULL is a no-op. */
void ep_result_free(struct embperf_result *r);

/** ep_primary_name() - "median", "min", "max". */
const char *ep_primary_name(enum ep_primary p);

/** ep_better_name() - an enum ep_better as JSON and describe write it: "higher", "lower", "zero". */
const char *ep_better_name(int better);

/**
 * ep_labels_get() - value of @key in a "k=v k=\"a b\"" string (ep_pairs_parse()).
 * Return: length of the value copied to @buf (truncated to @size), -ENOENT
 * or -ENOMEM.
 */
int ep_labels_get(const char *labels, const char *key, char *buf, size_t size);

#endif /* EMBPERF_CORE_RESULT_H */
