// SPDX-License-Identifier: MIT
/*
 * trial.c - one trial: its phases (ramp, measured part, done), the deadline
 * check bodies call, and the tally they count into.
 *
 * A trial starts in the ramp phase (or straight in the measured phase when
 * 'ramp' is 0). ep_trial_running() reads the clock once per call: past the
 * ramp's end it starts the measured span (time, CPU load, perf counters),
 * past the measured end, on cancel, or at the budget's or max_time's end it
 * closes the trial. The tally functions count only while the trial is in
 * its measured phase, so the ramp's work and work that completes after the
 * end never enter a figure. Phase changes are made under the trial's lock
 * and read with atomic loads, so worker threads may call ep_trial_running()
 * too; the thread that makes a change records it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "trial.h"

enum { PHASE_RAMP, PHASE_MEASURE, PHASE_DONE };

static int phase_of(const struct ep_trial *t)
{
	return __atomic_load_n(&t->phase, __ATOMIC_ACQUIRE);
}

static void tally_init(struct ep_tally *ta, struct ep_trial *t)
{
	memset(ta, 0, offsetof(struct ep_tally, hist));
	ta->trial = t;
	ep_hist_reset(&ta->hist);
}

/*
 * Take the measured part's CPU-load and counter snapshots; return @now, or
 * when @now is 0, the time after them (so that their cost is not measured).
 */
static uint64_t take_snapshots(struct ep_trial *t, uint64_t now)
{
	ep_clock_load_start(t->clock, &t->load);
	if (t->ctr)
		ep_counters_start(t->ctr);
	return now ? now : ep_clock_now_ns(t->clock);
}

/*
 * The measured span starts: time, CPU load, counters. Once per trial. At
 * @now when the body's threads are already working (the end of a ramp);
 * with @now 0 (no ramp, the body not called yet) after the snapshots, so
 * that their cost is not in the measured time. It lasts 'duration' from
 * there, not from the ramp's planned end: a body whose first look after
 * the ramp came late (descheduled, a wait that outlasted the trial) still
 * gets its whole measured part, never an empty one. Under the trial's lock,
 * so that a thread that sees the phase change sees the new end too.
 */
static void begin_measure(struct ep_trial *t, uint64_t now)
{
	uint64_t start_ns;

	pthread_mutex_lock(&t->lock);
	if (phase_of(t) == PHASE_RAMP) {
		start_ns = take_snapshots(t, now);
		__atomic_store_n(&t->start_ns, start_ns, __ATOMIC_RELEASE);
		__atomic_store_n(&t->end_ns, start_ns + t->duration_ns, __ATOMIC_RELEASE);
		t->measured = 1;
		__atomic_store_n(&t->phase, PHASE_MEASURE, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&t->lock);
}

/* Close the trial at @now; @truncated when it ended before its time. */
static void end_trial(struct ep_trial *t, uint64_t now, int truncated)
{
	pthread_mutex_lock(&t->lock);
	if (phase_of(t) != PHASE_DONE) {
		t->stop_ns = now;
		t->truncated = truncated;
		if (t->measured)
			ep_clock_load_stop(t->clock, &t->load, t->load_values, t->load_ok);
		__atomic_store_n(&t->phase, PHASE_DONE, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&t->lock);
}

int ep_trial_running(struct ep_trial *t)
{
	int phase = phase_of(t);
	uint64_t now, end_ns;

	if (phase == PHASE_DONE)
		return 0;
	now = ep_clock_now_ns(t->clock);
	if (phase == PHASE_RAMP && now >= t->ramp_end_ns && now < t->hard_end_ns)
		begin_measure(t, now);
	end_ns = __atomic_load_n(&t->end_ns, __ATOMIC_ACQUIRE);
	if (now >= end_ns && end_ns <= t->hard_end_ns) {
		end_trial(t, now, 0);
		return 0;
	}
	if (now >= t->hard_end_ns || embperf_ctx_is_cancelled(t->ctx)) {
		end_trial(t, now, 1);
		return 0;
	}
	return 1;
}

void ep_trial_init(struct ep_trial *t, embperf_ctx *ctx, const struct ep_trial_limits *lim)
{
	uint64_t now;

	memset(t, 0, offsetof(struct ep_trial, tally));
	t->ctx = ctx;
	t->clock = ep_ctx_clock(ctx);
	now = ep_clock_now_ns(t->clock);
	t->config = lim->config;
	t->index = lim->index;
	t->ctr = lim->ctr;
	t->ramp_end_ns = now + lim->ramp_ns;
	t->end_ns = t->ramp_end_ns + lim->duration_ns;
	t->hard_end_ns = lim->hard_end_ns ? lim->hard_end_ns : UINT64_MAX;
	t->duration_ns = lim->duration_ns;
	t->restartable = !lim->ramp_ns;
	t->phase = PHASE_RAMP;
	tally_init(&t->tally, t);
	pthread_mutex_init(&t->lock, NULL);
	if (!lim->ramp_ns)
		begin_measure(t, 0);
}

void ep_trial_started(struct ep_trial *t)
{
	uint64_t start_ns;

	if (!t->restartable || phase_of(t) != PHASE_MEASURE)
		return;
	t->restartable = 0;
	start_ns = take_snapshots(t, 0);
	__atomic_store_n(&t->end_ns, start_ns + t->duration_ns, __ATOMIC_RELEASE);
	__atomic_store_n(&t->start_ns, start_ns, __ATOMIC_RELEASE);
}

void ep_trial_close(struct ep_trial *t, double *counters, unsigned char *ok)
{
	uint64_t now = ep_clock_now_ns(t->clock);

	/* A body that stopped on its own (a size-bound job) ends the trial now. */
	if (phase_of(t) == PHASE_MEASURE)
		end_trial(t, now, 0);
	else if (phase_of(t) == PHASE_RAMP)
		end_trial(t, now, now >= t->hard_end_ns || embperf_ctx_is_cancelled(t->ctx));
	pthread_mutex_destroy(&t->lock);
	if (!t->measured)
		return;
	for (int i = 0; i < EP_CTR_COUNT; i++) {
		if (t->load_ok[i]) {
			counters[i] = t->load_values[i];
			ok[i] = 1;
		}
	}
	if (t->ctr)
		ep_counters_stop(t->ctr, counters, ok);
}

uint64_t ep_trial_elapsed_ns(const struct ep_trial *t)
{
	return t->measured && t->stop_ns > t->start_ns ? t->stop_ns - t->start_ns : 0;
}

struct ep_tally *ep_trial_tally(struct ep_trial *t)
{
	return &t->tally;
}

struct ep_tally *ep_trial_tally_new(struct ep_trial *t)
{
	struct ep_tally *ta = malloc(sizeof(*ta));

	if (ta)
		tally_init(ta, t);
	return ta;
}

/* Add @src's counts and latencies to @dst. */
static void tally_merge(struct ep_tally *dst, const struct ep_tally *src)
{
	dst->ops += src->ops;
	dst->bytes += src->bytes;
	for (int i = 0; i < EP_TALLY_MAX_COUNTERS; i++)
		dst->counters[i] += src->counters[i];
	if (src->has_latency) {
		ep_hist_merge(&dst->hist, &src->hist);
		dst->has_latency = 1;
	}
}

void ep_trial_tally_merge(struct ep_trial *t, struct ep_tally *ta)
{
	if (!ta)
		return;
	pthread_mutex_lock(&t->lock);
	tally_merge(&t->tally, ta);
	pthread_mutex_unlock(&t->lock);
	free(ta);
}

void ep_trial_set_config(struct ep_trial *t, double config)
{
	t->config = config;
}

uint64_t ep_trial_end_ns(const struct ep_trial *t)
{
	uint64_t end_ns = __atomic_load_n(&t->end_ns, __ATOMIC_ACQUIRE);

	return end_ns < t->hard_end_ns ? end_ns : t->hard_end_ns;
}

uint64_t ep_trial_now_ns(const struct ep_trial *t)
{
	return ep_clock_now_ns(t->clock);
}

const struct ep_clock *ep_trial_clock(const struct ep_trial *t)
{
	return t->clock;
}

uint64_t ep_trial_start_ns(const struct ep_trial *t)
{
	return __atomic_load_n(&t->start_ns, __ATOMIC_ACQUIRE);
}

int ep_trial_index(const struct ep_trial *t)
{
	return t->index;
}

static int counting(const struct ep_tally *ta)
{
	return phase_of(ta->trial) == PHASE_MEASURE;
}

/* The tally's parts, written whatever the phase; callers look at it first. */
static void add_ops(struct ep_tally *ta, uint64_t ops, uint64_t bytes)
{
	ta->ops += ops;
	ta->bytes += bytes;
}

static void add_latency(struct ep_tally *ta, uint64_t latency_ns)
{
	ep_hist_record(&ta->hist, latency_ns);
	ta->has_latency = 1;
}

void ep_tally_add(struct ep_tally *ta, uint64_t ops, uint64_t bytes)
{
	if (counting(ta))
		add_ops(ta, ops, bytes);
}

void ep_tally_latency(struct ep_tally *ta, uint64_t latency_ns)
{
	if (counting(ta))
		add_latency(ta, latency_ns);
}

void ep_tally_op(struct ep_tally *ta, uint64_t ops, uint64_t bytes, uint64_t latency_ns)
{
	if (!counting(ta))
		return;
	add_ops(ta, ops, bytes);
	add_latency(ta, latency_ns);
}

void ep_tally_count(struct ep_tally *ta, int counter, double n)
{
	if (counter < 0 || counter >= EP_TALLY_MAX_COUNTERS || !counting(ta))
		return;
	ta->counters[counter] += n;
}

void ep_tally_add_after(struct ep_tally *ta, uint64_t ops, uint64_t bytes)
{
	if (ta->trial->measured)
		add_ops(ta, ops, bytes);
}

void ep_tally_count_after(struct ep_tally *ta, int counter, double n)
{
	if (counter < 0 || counter >= EP_TALLY_MAX_COUNTERS || !ta->trial->measured)
		return;
	ta->counters[counter] += n;
}

uint64_t ep_tally_ops(const struct ep_tally *ta)
{
	return ta->ops;
}

uint64_t ep_tally_bytes(const struct ep_tally *ta)
{
	return ta->bytes;
}

double ep_tally_counter(const struct ep_tally *ta, int counter)
{
	return counter >= 0 && counter < EP_TALLY_MAX_COUNTERS ? ta->counters[counter] : 0.0;
}

uint64_t ep_tally_elapsed_ns(const struct ep_tally *ta)
{
	return ep_trial_elapsed_ns(ta->trial);
}
