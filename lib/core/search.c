// SPDX-License-Identifier: MIT
/*
 * search.c - the engine's searches (search.h): a binary search over one
 * configuration, and the search for the highest rate whose loss stays
 * within a tolerance (RFC 2544 throughput). Pure functions of the trial
 * log: no clock, no run, no I/O.
 */
#include <errno.h>
#include <math.h>

#include "result.h"
#include "search.h"

/* The engine's binary search. */

/* Highest passing and lowest failing configuration in the log. */
static void bounds(const struct ep_trial_row *log, size_t n, double *pass, double *fail)
{
	*pass = -INFINITY;
	*fail = INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (log[i].pass && log[i].config > *pass)
			*pass = log[i].config;
		if (!log[i].pass && log[i].config < *fail)
			*fail = log[i].config;
	}
}

int ep_bsearch_next(void *arg, const struct ep_trial_row *log, size_t n, double *config)
{
	const struct ep_bsearch *b = arg;
	double pass, fail, lo, hi;

	if (!n) {
		*config = b->hi;
		return 1;
	}
	bounds(log, n, &pass, &fail);
	if (n >= (size_t)b->max_trials || pass >= b->hi || fail <= b->lo)
		return 0; /* out of trials; the top passes; the bottom fails */
	lo = pass > b->lo ? pass : b->lo;
	hi = fail < b->hi ? fail : b->hi;
	if (hi - lo > b->resolution) {
		*config = lo + (hi - lo) / 2.0;
		return 1;
	}
	if (pass >= b->lo)
		return 0;
	*config = b->lo; /* nothing passed yet: try the bottom of the range */
	return 1;
}

int ep_bsearch_found(void *arg, const struct ep_trial_row *log, size_t n, double *value)
{
	double pass, fail;

	(void)arg;
	bounds(log, n, &pass, &fail);
	if (pass == -INFINITY)
		return -ENOENT;
	*value = pass;
	return 0;
}

/* The engine's search over an offered rate (struct ep_rate_search). */

/*
 * A failure that lost at most this many points above the tolerance is
 * "near": its trial started with the bottleneck's buffers nearly empty, so
 * what it delivered is the rate that passes in a trial of that length. A
 * trial far above the bottleneck fills its queue during the ramp and then
 * delivers only the bottleneck's rate, without its buffers: a bound that
 * sits below what passes by about buffer / trial time.
 */
#define RATE_NEAR_PCT 5.0
/* The first step above a far failure's bound, and the first step up from
 * a pass above every bound, in resolutions; each pass above multiplies the
 * step by RATE_WIDEN. */
#define RATE_STEP 4.0
#define RATE_WIDEN 4.0
/*
 * confirm=1: the checking trial runs this share of the resolution above
 * the pass, so that a sender that offers a little more than it was asked
 * (the log holds the rate offered) still ends within the resolution.
 */
#define RATE_CHECK_SHARE 0.9

/**
 * struct rate_bounds - what a rate search's log says.
 * @pass:  the highest rate that passed (-INFINITY: none).
 * @fail:  the lowest counted rate that failed (INFINITY: none).
 * @near:  the lowest rate a near failure delivered, divided by the share a
 *         passing trial must deliver (INFINITY: none).
 * @far:   the same over every counted failure (INFINITY: none).
 * @above: passes at or above @far.
 */
struct rate_bounds {
	double pass, fail, near, far;
	int above;
};

static int rate_uncounted(const struct ep_rate_search *s, size_t i)
{
	return s->uncounted && i < (size_t)s->max_trials && s->uncounted[i];
}

static void rate_bounds(const struct ep_rate_search *s, const struct ep_trial_row *log, size_t n,
			struct rate_bounds *b)
{
	double keep = 1.0 - s->tolerance_pct / 100.0;

	*b = (struct rate_bounds){ -INFINITY, INFINITY, INFINITY, INFINITY, 0 };
	for (size_t i = 0; i < n; i++) {
		double loss_pct = fmin(fmax(log[i].outcome, 0.0), 100.0);
		double bound;

		if (log[i].pass) {
			b->pass = fmax(b->pass, log[i].config);
			continue;
		}
		if (rate_uncounted(s, i))
			continue;
		b->fail = fmin(b->fail, log[i].config);
		if (keep <= 0.0)
			continue;
		bound = log[i].config * (1.0 - loss_pct / 100.0) / keep;
		b->far = fmin(b->far, bound);
		if (loss_pct - s->tolerance_pct <= RATE_NEAR_PCT)
			b->near = fmin(b->near, bound);
	}
	for (size_t i = 0; i < n; i++)
		b->above += log[i].pass && log[i].config >= b->far;
}

/* Nothing passed yet: the next rate, or 0 when the log bounds nothing. */
static double rate_first_probe(const struct ep_rate_search *s, const struct rate_bounds *b,
			       double hi)
{
	double res = s->resolution_pct / 100.0;

	if (isfinite(b->near))
		return fmax(s->floor, fmin(hi, b->near) / (1.0 + res / 2.0));
	if (isfinite(b->far))
		return fmax(s->floor, fmin(hi, b->far * (1.0 + RATE_STEP * res)));
	return 0.0;
}

int ep_rate_search_next(void *arg, const struct ep_trial_row *log, size_t n, double *config)
{
	const struct ep_rate_search *s = arg;
	double res = s->resolution_pct / 100.0;
	struct rate_bounds b;
	double hi, step;

	if (!n) {
		*config = s->top;
		return 1;
	}
	rate_bounds(s, log, n, &b);
	if (n >= (size_t)s->max_trials || b.fail <= s->floor)
		return 0;
	hi = fmin(b.fail, s->top);
	if (b.pass == -INFINITY) {
		*config = rate_first_probe(s, &b, hi);
		if (*config == 0.0)
			*config = log[n - 1].config; /* every failure uncounted: again */
		return 1;
	}
	if (hi - b.pass <= b.pass * res)
		return 0; /* a pass and a failure within the resolution */
	if (isfinite(b.near) && b.pass < b.near) {
		/* Below what a near failure delivered: trust it, or check it
		 * with one trial just above the pass (confirm). */
		if (b.near - b.pass > b.pass * res)
			*config = fmin(b.near / (1.0 + res / 2.0), b.pass + (hi - b.pass) / 2.0);
		else if (s->confirm)
			*config = b.pass * (1.0 + RATE_CHECK_SHARE * res);
		else
			return 0;
		return 1;
	}
	/* No near bound above the pass: halve, stepping up from the pass by
	 * steps that grow with each pass above what the failures delivered. */
	step = b.above ? res * RATE_STEP * pow(RATE_WIDEN, b.above - 1) : INFINITY;
	*config = fmin(b.pass + (hi - b.pass) / 2.0, b.pass * (1.0 + step));
	return 1;
}
