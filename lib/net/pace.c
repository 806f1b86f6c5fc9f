// SPDX-License-Identifier: MIT
/*
 * pace.c - the paced sender's schedule: hybrid sleep and spin towards
 * absolute due times (pace.h).
 */
#include <errno.h>
#include <math.h>

#include "lib/core/clock.h"
#include "lib/core/util.h"
#include "pace.h"

/* clock_nanosleep() wakes 50-100 us late on a VM even with a timer slack of
 * 1 ns (doc/methodology-net.md): sleep until this long before a due time
 * and spin the rest. */
#define PACE_SPIN_NS 100000
/* Sleep at most this long at once, so the caller sees its deadline and cancel. */
#define PACE_MAX_SLEEP_NS 10000000
/* Catching up: at most this many times the asked rate... */
#define CATCH_UP_FACTOR 1.3
/* ...from a bucket this many milliseconds' worth deep: 1 ms then holds at
 * most (1.3 + 0.1) x the rate, one datagram more for rounding. An observer
 * on the path (libpcap on lo) saw up to 2 datagrams more in its busiest
 * millisecond than the sender's bound (doc/benchmarks-net.md): 1.4x leaves
 * room for them under the paced target's 1.5x in any millisecond
 * (doc/benchmarks-net.md). */
#define CATCH_UP_DEPTH_MS 0.1
/* Debt kept owing, in milliseconds' worth; beyond it is forgiven. */
#define MAX_DEBT_MS 100.0

EP_UNTIMED void ep_pacer_init(struct ep_pacer *p, const struct ep_clock *clk, enum ep_pacing mode,
			      double pps, uint32_t burst, uint64_t wait_ns, uint32_t batch,
			      uint64_t start_ns)
{
	p->clock = clk;
	p->mode = mode;
	p->interval_ns = pps > 0.0 ? 1e9 / pps : 0.0;
	p->burst = burst ? burst : 1;
	p->wait_ns = wait_ns;
	p->batch = batch ? batch : 1;
	p->max_debt = pps > 0.0 ? (uint64_t)(pps * MAX_DEBT_MS / 1000.0) : 1;
	if (p->max_debt < 1)
		p->max_debt = 1;
	p->spin_ns = PACE_SPIN_NS;
	p->start_ns = start_ns;
	p->scheduled = 0;
	p->forgiven = 0;
	p->token_rate = pps * CATCH_UP_FACTOR / 1e9;
	p->token_depth = fmax(1.0, pps * CATCH_UP_DEPTH_MS / 1000.0);
	p->tokens = p->token_depth;
	p->tokens_ns = start_ns;
	p->max_stall_ns = 0;
	p->last_sent_ns = 0;
	p->last_sent = 0;
}

/* Datagrams due by @now since the start (the one due exactly now included). */
static uint64_t due_by(const struct ep_pacer *p, uint64_t now)
{
	uint64_t since = now > p->start_ns ? now - p->start_ns : 0;

	if (p->mode == EP_PACING_BURST) {
		uint64_t bursts = p->wait_ns ? since / p->wait_ns + 1 : UINT64_MAX / p->burst;

		return bursts * p->burst;
	}
	if (now < p->start_ns)
		return 0;
	return (uint64_t)floor((double)since / p->interval_ns) + 1;
}

/* When the next datagram after @scheduled is due. */
static uint64_t next_due_ns(const struct ep_pacer *p)
{
	if (p->mode == EP_PACING_BURST)
		return p->start_ns + p->scheduled / p->burst * p->wait_ns;
	return p->start_ns + (uint64_t)ceil((double)p->scheduled * p->interval_ns);
}

/* Overdue datagrams now, after forgiving debt beyond what pacing allows. */
static uint64_t overdue(struct ep_pacer *p, uint64_t now)
{
	uint64_t due = due_by(p, now);
	uint64_t debt = due > p->scheduled ? due - p->scheduled : 0;

	if (p->mode == EP_PACING_PRECISE && debt > p->max_debt) {
		/* Owing more than can sensibly be repaid: the rest is lost. */
		p->forgiven += debt - p->max_debt;
		p->scheduled += debt - p->max_debt;
		debt = p->max_debt;
	}
	if (p->mode == EP_PACING_BURST && debt > p->burst) {
		/* netperf sends one burst per timer tick, however late it is. */
		p->forgiven += debt - p->burst;
		p->scheduled += debt - p->burst;
		debt = p->burst;
	}
	return debt;
}

/* Bring the catch-up bucket to @now. */
static void refill(struct ep_pacer *p, uint64_t now)
{
	if (now > p->tokens_ns) {
		p->tokens = fmin(p->token_depth,
				 p->tokens + (double)(now - p->tokens_ns) * p->token_rate);
		p->tokens_ns = now;
	}
}

/* Datagrams the bucket lets go now, of @debt owed (0: wait for a token). */
static uint64_t allowed(struct ep_pacer *p, uint64_t debt, uint64_t now)
{
	uint64_t n;

	if (p->mode != EP_PACING_PRECISE)
		return debt;
	refill(p, now);
	n = (uint64_t)p->tokens;
	return n < debt ? n : debt;
}

/* When the bucket holds its next whole token. */
static uint64_t next_token_ns(const struct ep_pacer *p)
{
	return p->tokens_ns + (uint64_t)ceil((1.0 - (p->tokens - floor(p->tokens))) / p->token_rate);
}

uint32_t ep_pacer_next(struct ep_pacer *p, uint64_t deadline_ns)
{
	uint64_t limit = ep_clock_now_ns(p->clock) + PACE_MAX_SLEEP_NS;

	if (p->mode == EP_PACING_NONE)
		return p->batch;
	if (deadline_ns < limit)
		limit = deadline_ns;
	for (;;) {
		uint64_t now = ep_clock_now_ns(p->clock);
		uint64_t debt = overdue(p, now);
		uint64_t n = debt ? allowed(p, debt, now) : 0;
		uint64_t due;

		if (n)
			return n < p->batch ? (uint32_t)n : p->batch;
		due = debt ? next_token_ns(p) : next_due_ns(p);
		if (now >= limit)
			return 0;
		if (due >= limit + p->spin_ns) {
			/* Nothing due before the limit: wait there, not in the caller's loop. */
			ep_clock_sleep_until_ns(p->clock, limit);
			return 0;
		}
		if (due > now + p->spin_ns)
			ep_clock_sleep_until_ns(p->clock,
						due - p->spin_ns < limit ? due - p->spin_ns : limit);
		/* else spin: read the clock again */
	}
}

void ep_pacer_set_catch_up(struct ep_pacer *p, double depth_ms)
{
	if (p->mode != EP_PACING_PRECISE || p->interval_ns <= 0.0 || depth_ms <= 0.0)
		return;
	p->token_depth = fmax(1.0, depth_ms * 1e6 / p->interval_ns);
	p->tokens = p->token_depth;
}

void ep_pacer_restart(struct ep_pacer *p, uint64_t start_ns)
{
	p->start_ns = start_ns;
	p->scheduled = 0;
	p->forgiven = 0;
	p->tokens = p->token_depth;
	p->tokens_ns = start_ns;
	p->max_stall_ns = 0;
	p->last_sent_ns = 0;
	p->last_sent = 0;
}

void ep_pacer_sent(struct ep_pacer *p, uint32_t n)
{
	if (p->mode == EP_PACING_PRECISE && n) {
		/* The gap since the last send, beyond the schedule's spacing of it. */
		uint64_t now = ep_clock_now_ns(p->clock);
		double gap_ns = (double)(now - p->last_sent_ns) - p->last_sent * p->interval_ns;

		if (p->last_sent_ns && gap_ns > (double)p->max_stall_ns)
			p->max_stall_ns = (uint64_t)gap_ns;
		p->last_sent_ns = now;
		p->last_sent = n;
	}
	p->scheduled += n;
	if (p->mode == EP_PACING_PRECISE)
		p->tokens = p->tokens > n ? p->tokens - n : 0.0;
}
