/* SPDX-License-Identifier: MIT */
/*
 * trial.h - the trial and tally objects behind kernel.h's trial functions,
 * shared by trial.c (one trial) and trials.c (a case's trials and search).
 */
#ifndef EMBPERF_CORE_TRIAL_H
#define EMBPERF_CORE_TRIAL_H

#include <pthread.h>
#include <stdint.h>

#include "hist.h"
#include "kernel.h"
#include "measure.h"
#include "result.h"

/**
 * struct ep_tally - what a trial body counted in the measured part.
 * @trial:       the trial it belongs to (its phase gates counting).
 * @ops:         operations.
 * @bytes:       bytes moved.
 * @counters:    the kernel's counters, by the case's index.
 * @has_latency: at least one latency was recorded.
 * @hist:        the latencies (last member: tally_init() clears the rest).
 */
struct ep_tally {
	struct ep_trial *trial;
	uint64_t ops;
	uint64_t bytes;
	double counters[EP_TALLY_MAX_COUNTERS];
	int has_latency;
	struct ep_hist hist;
};

/**
 * struct ep_trial - one trial in progress.
 * @ctx:          the session (cancel flag).
 * @config:       the search's value for this trial.
 * @index:        0 for the case's first trial.
 * @ctr:          perf counters to run over the measured part, or NULL.
 * @ramp_end_ns:  when counting starts.
 * @end_ns:       when the measured part ends.
 * @hard_end_ns:  the budget's or max_time's end (UINT64_MAX: none).
 * @duration_ns:  the measured part's length.
 * @restartable:  no ramp, and ep_trial_started() not yet called.
 * @phase:        ramp, measure or done; changed atomically.
 * @start_ns:     when the measured part started.
 * @stop_ns:      when it stopped.
 * @measured:     the measured part started.
 * @truncated:    the trial stopped before its time (cancel, budget, max_time).
 * @load:         CPU load snapshot at the start of the measured part.
 * @load_values:  CPU load over the measured part (EP_CTR_* indices), taken
 *                by the thread that ended it, so that what a body does after
 *                the end (waiting for the far side's report) is not in it.
 * @load_ok:      which of @load_values were measured.
 * @load_taken:   @load_values are set.
 * @lock:         serialises merges of worker tallies.
 * @tally:        the trial's tally (last member: ep_trial_init() clears the rest).
 */
struct ep_trial {
	embperf_ctx *ctx;
	double config;
	int index;
	struct ep_counters *ctr;
	uint64_t ramp_end_ns;
	uint64_t end_ns;
	uint64_t hard_end_ns;
	uint64_t duration_ns;
	int restartable;
	int phase;
	uint64_t start_ns;
	uint64_t stop_ns;
	int measured;
	int truncated;
	struct ep_cpuload load;
	double load_values[EP_CTR_COUNT];
	unsigned char load_ok[EP_CTR_COUNT];
	int load_taken;
	pthread_mutex_t lock;
	struct ep_tally tally;
};

/** struct ep_trial_limits - how one trial is to run. */
struct ep_trial_limits {
	double config;
	int index;
	struct ep_counters *ctr;
	uint64_t ramp_ns;
	uint64_t duration_ns;
	uint64_t hard_end_ns; /* 0: none */
};

/** ep_trial_init() - start a trial now (ramp, or the measured part when ramp is 0). */
void ep_trial_init(struct ep_trial *t, embperf_ctx *ctx, const struct ep_trial_limits *lim);

/**
 * ep_trial_close() - after the body returned: end the trial if the body
 * stopped on its own, and add the measured part's CPU load and counters to
 * @counters/@ok (EP_CTR_* indices; left alone when nothing was measured).
 */
void ep_trial_close(struct ep_trial *t, double *counters, unsigned char *ok);

/** ep_trial_elapsed_ns() - length of the measured part (0 when none). */
uint64_t ep_trial_elapsed_ns(const struct ep_trial *t);

/** ep_tally_merge() - add @src's counts and latencies to @dst. */
void ep_tally_merge(struct ep_tally *dst, const struct ep_tally *src);

#endif /* EMBPERF_CORE_TRIAL_H */
