/* SPDX-License-Identifier: MIT */
/*
 * pace.h - when a paced sender may send its next datagrams
 * (doc/methodology-net.md, "Pacing").
 *
 * precise: datagram k is due at start + k x interval, from the intended
 *          start time, so that errors never accumulate. The sender sleeps
 *          (clock_nanosleep) until shortly before a datagram is due and
 *          spins the rest. Behind schedule (preempted), it catches up, but
 *          never faster than 1.3x the asked rate (a token bucket of 1.3x
 *          the rate, a tenth of a millisecond's worth deep): whatever 1 ms
 *          one looks at holds at most 1.4x the asked rate, and a short
 *          stall costs nothing in the long run. Debt beyond 100 ms' worth
 *          is forgiven and counted (the offered rate then falls short, and
 *          the result says so).
 * burst:   netperf's -b/-w: `burst` datagrams back to back every `wait`.
 * none:    as fast as the socket takes them.
 */
#ifndef EMBPERF_NET_PACE_H
#define EMBPERF_NET_PACE_H

#include <stdint.h>

#include "lib/core/clock.h"
#include "proto.h"

/**
 * struct ep_pacer - a sender's schedule.
 * @clock:         the clock it reads and sleeps on (a simulated one in tests).
 * @mode:          precise, burst or none.
 * @interval_ns:   precise: time between datagrams.
 * @burst:         burst: datagrams per burst.
 * @wait_ns:       burst: time between bursts.
 * @batch:         most datagrams handed out at once.
 * @max_debt:      precise: most overdue datagrams kept owing; beyond, forgiven.
 * @spin_ns:       how long before a due time sleeping stops and spinning starts.
 * @start_ns:      the schedule's origin.
 * @scheduled:     datagrams accounted for: sent + forgiven.
 * @forgiven:      datagrams the schedule gave up on (sender too slow).
 * @tokens:        precise: the catch-up bucket's tokens (datagrams).
 * @token_rate:    precise: its rate, datagrams per ns (1.3x the schedule's).
 * @token_depth:   precise: its depth (at least one datagram).
 * @tokens_ns:     when @tokens was last brought up to date.
 * @max_stall_ns:  precise: the longest the sender sent nothing since the
 *                 start (or restart), beyond the schedule's spacing of its
 *                 last batch: a stall, whose debt then goes out as a burst
 *                 (a sender at its limit sends back to back: no stall).
 * @last_sent_ns:  precise: when the last batch was sent (0: none yet).
 * @last_sent:     precise: how many datagrams it held.
 */
struct ep_pacer {
	const struct ep_clock *clock;
	enum ep_pacing mode;
	double interval_ns;
	uint32_t burst;
	uint64_t wait_ns;
	uint32_t batch;
	uint64_t max_debt;
	uint64_t spin_ns;
	uint64_t start_ns;
	uint64_t scheduled;
	uint64_t forgiven;
	double tokens;
	double token_rate;
	double token_depth;
	uint64_t tokens_ns;
	uint64_t max_stall_ns;
	uint64_t last_sent_ns;
	uint32_t last_sent;
};

/**
 * ep_pacer_init() - a schedule starting at @start_ns on @clk.
 * @pps: precise: datagrams per second (> 0).
 *
 * The schedule is in @clk's time. The real clock (CLOCK_MONOTONIC_RAW)
 * cannot be slept on, so its sleeps are relative (clock.h). A clock whose
 * time moves only on sleeps (a test's simulated one) needs @spin_ns 0.
 */
void ep_pacer_init(struct ep_pacer *p, const struct ep_clock *clk, enum ep_pacing mode,
		   double pps, uint32_t burst, uint64_t wait_ns, uint32_t batch, uint64_t start_ns);

/**
 * ep_pacer_next() - wait until datagrams are due.
 * Return: how many to send now (1..batch), or 0 when @deadline_ns came
 * first or 10 ms passed (the caller checks its deadline and calls again).
 */
uint32_t ep_pacer_next(struct ep_pacer *p, uint64_t deadline_ns);

/**
 * ep_pacer_set_catch_up() - precise: let a sender behind its schedule send
 * up to @depth_ms worth of datagrams at once (instead of a tenth of a
 * millisecond's worth), still at most 1.3x the rate on average. For a
 * sender whose average rate matters more than any 1 ms: on a loaded machine
 * a sleep ends only at the next scheduler tick (4 ms at HZ=250), and with
 * one datagram per wake-up the sender never catches up (doc/methodology-net.md,
 * "RFC 2544"). @depth_ms <= 0 leaves the default.
 */
void ep_pacer_set_catch_up(struct ep_pacer *p, double depth_ms);

/**
 * ep_pacer_restart() - a new origin at @start_ns, nothing owed (a trial's
 * measured part starts on schedule, whatever its ramp still owed).
 */
void ep_pacer_restart(struct ep_pacer *p, uint64_t start_ns);

/** ep_pacer_sent() - @n of the datagrams handed out were sent. */
void ep_pacer_sent(struct ep_pacer *p, uint32_t n);

#endif /* EMBPERF_NET_PACE_H */
