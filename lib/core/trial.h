/* SPDX-License-Identifier: MIT */
/*
 * trial.h - one trial (trial.c): what a trial body calls (the deadline
 * check, the tallies, the trial's times) and what the trial driver
 * (trials.c) starts and closes it with.
 */
#ifndef EMBPERF_CORE_TRIAL_H
#define EMBPERF_CORE_TRIAL_H

#include <pthread.h>
#include <stdint.h>

#include "clock.h"
#include "counters.h"
#include "cpuload.h"
#include "hist.h"
#include "kernel.h"
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
 * @clock:        the session's clock.
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
 * @lock:         serialises merges of worker tallies.
 * @tally:        the trial's tally (last member: ep_trial_init() clears the rest).
 */
struct ep_trial {
	embperf_ctx *ctx;
	const struct ep_clock *clock;
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
	pthread_mutex_t lock;
	struct ep_tally tally;
};

/* What a trial body calls. */

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

/**
 * ep_trial_set_config() - the configuration this trial actually ran at,
 * when it is only known once it ran (an unpaced first trial of a rate
 * search records the rate it achieved). The search judges and logs it.
 */
void ep_trial_set_config(struct ep_trial *t, double config);

/**
 * ep_trial_end_ns() - when the trial's measured part ends (ep_trial_now_ns()
 * time), for bodies that sleep: never sleep past it.
 */
uint64_t ep_trial_end_ns(const struct ep_trial *t);

/** ep_trial_now_ns() - the time on the trial's clock, for the body's own timestamps. */
uint64_t ep_trial_now_ns(const struct ep_trial *t);

/** ep_trial_clock() - the trial's clock, for a body's own waits (a pacer). */
const struct ep_clock *ep_trial_clock(const struct ep_trial *t);

/**
 * ep_trial_start_ns() - when the measured part started (ep_trial_now_ns() time),
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

/* What the trial driver calls. */

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

#endif /* EMBPERF_CORE_TRIAL_H */
