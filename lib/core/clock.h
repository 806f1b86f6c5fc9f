/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the engine's time, through one seam (clock.c).
 *
 * Every reading of time by the engine and the trial driver, every pause
 * between trials, and the CPU-load and perf-counter snapshots taken around
 * a measured span go through a struct ep_clock, the clock of the context.
 * The library's clock is the real one: CLOCK_MONOTONIC_RAW through the
 * vDSO, getrusage() and /proc/stat, perf_event_open(). Tests put a
 * simulated clock in its place (tests/simclock.c), whose time moves only
 * when a synthetic body says so: the engine's logic then runs the same way
 * on every run and every machine, and never sleeps for real.
 *
 * The real clock has no ops: ep_clock_now_ns() tests one pointer, a branch
 * the CPU predicts, before the vDSO call it always made
 * (bench/probes/clock-seam.c times it).
 */
#ifndef EMBPERF_CORE_CLOCK_H
#define EMBPERF_CORE_CLOCK_H

#include <stdint.h>

struct ep_clock;
struct ep_cpuload;
struct ep_counters;

/**
 * struct ep_clock_ops - a clock other than the real one.
 * @now_ns:         the time, in ns.
 * @sleep_until_ns: return at @when_ns (a simulated clock jumps there).
 * @load_start:     snapshot for the CPU load of a span starting now.
 * @load_stop:      the CPU load since @snap, into @values/@ok (EP_CTR_*).
 * @counters_open:  open the perf counters of a span (a simulated clock
 *                  leaves them all unavailable).
 * @resolution_ns:  the smallest step the clock shows.
 */
struct ep_clock_ops {
	uint64_t (*now_ns)(const struct ep_clock *clk);
	void (*sleep_until_ns)(const struct ep_clock *clk, uint64_t when_ns);
	void (*load_start)(const struct ep_clock *clk, struct ep_cpuload *snap);
	void (*load_stop)(const struct ep_clock *clk, const struct ep_cpuload *snap,
			  double *values, unsigned char *ok);
	void (*counters_open)(const struct ep_clock *clk, struct ep_counters *ctr);
	uint64_t resolution_ns;
};

/** struct ep_clock - a clock; @ops NULL is the real one. */
struct ep_clock {
	const struct ep_clock_ops *ops;
};

/** ep_real_clock - the real clocks (no ops). */
extern const struct ep_clock ep_real_clock;

/** ep_now_ns() - CLOCK_MONOTONIC_RAW in nanoseconds (the real clock). */
uint64_t ep_now_ns(void);

/** ep_clock_now_ns() - the time on @clk. */
static inline uint64_t ep_clock_now_ns(const struct ep_clock *clk)
{
	if (__builtin_expect(clk->ops == 0, 1))
		return ep_now_ns();
	return clk->ops->now_ns(clk);
}

/**
 * ep_clock_sleep_until_ns() - return at @when_ns on @clk (at once when it
 * has passed). The real clock sleeps relative to now on CLOCK_MONOTONIC:
 * CLOCK_MONOTONIC_RAW cannot be slept on, and an absolute time on the
 * NTP-slewed clock drifts away from it (212 ms after 5.5 h on a VM).
 */
void ep_clock_sleep_until_ns(const struct ep_clock *clk, uint64_t when_ns);

/** ep_clock_load_start() - CPU-load snapshot at the start of a span. */
void ep_clock_load_start(const struct ep_clock *clk, struct ep_cpuload *snap);

/** ep_clock_load_stop() - CPU load since @snap into @values/@ok (EP_CTR_* indices). */
void ep_clock_load_stop(const struct ep_clock *clk, const struct ep_cpuload *snap,
			double *values, unsigned char *ok);

/** ep_clock_counters_open() - open a span's perf counters (see counters.h). */
void ep_clock_counters_open(const struct ep_clock *clk, struct ep_counters *ctr);

/**
 * ep_clock_resolution_ns() - the smallest step two successive reads of @clk
 * see (>= 1 ns); measured for the real clock, declared by a simulated one.
 */
uint64_t ep_clock_resolution_ns(const struct ep_clock *clk);

#endif /* EMBPERF_CORE_CLOCK_H */
