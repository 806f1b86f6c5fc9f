// SPDX-License-Identifier: MIT
/*
 * test_rate_search.c - the engine's search over an offered rate
 * (ep_rate_search_next(), RFC 2544 §26.1), driven against model
 * bottlenecks whose loss at each offered rate is known exactly:
 *
 *   shaper     forwards at most its capacity whatever is offered (tbf, a
 *              queue, a link): loss = 1 - capacity / offered above it; with
 *              buffers, a trial up to 5 % above the capacity passes
 *              capacity x (1 + buffer share) (its buffers were empty when
 *              it began), one farther above only the capacity (its ramp
 *              filled them);
 *   livelock   passes up to its capacity but forwards only a fraction of
 *              it under overload (a receiver starved by its own interrupts),
 *              so what an overloaded trial delivered is not a bound;
 *   lossy      loses a share of every trial whatever the rate.
 *
 * The model is a pure function of the rate, so the figures are the
 * search's own: every run is the same on any machine.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "lib/core/trial.h"
#include "lib/core/search.h"
#include "lib/core/result.h"

#define CAP 4096

struct model {
	double capacity;
	double overload_share; /* of capacity delivered under overload (1: shaper) */
	double always_pct;     /* loss at any rate */
	double buffer_share;   /* what the buffers pass in a trial, of capacity */
};

static double model_loss_pct(const struct model *m, double offered)
{
	double passes = m->capacity * (1.0 + m->buffer_share);
	double loss = 0.0;

	if (offered > 1.05 * passes)
		passes = m->capacity; /* the ramp filled the buffers */
	if (offered > passes)
		loss = 1.0 - passes * m->overload_share / offered;
	return fmax(loss * 100.0, m->always_pct);
}

static struct ep_trial_row rows[CAP];

/* Run the search against @m; return the trials it took, *@found the result
 * (NAN when nothing passed). */
static size_t drive(struct ep_rate_search *s, const struct model *m, double *found)
{
	size_t n = 0;
	double config;

	while (n < CAP && ep_rate_search_next(s, rows, n, &config) == 1) {
		cr_assert(config > 0.0 && isfinite(config), "trial %zu at %g", n + 1, config);
		rows[n].config = config;
		rows[n].outcome = model_loss_pct(m, config);
		rows[n].pass = rows[n].outcome <= s->tolerance_pct;
		n++;
	}
	cr_assert(n < CAP, "the search ended");
	if (ep_bsearch_found(s, rows, n, found))
		*found = NAN;
	return n;
}

static struct ep_rate_search search(double top, double resolution_pct, int max_trials)
{
	return (struct ep_rate_search){
		.top = top, .floor = 1.0, .resolution_pct = resolution_pct, .max_trials = max_trials,
	};
}

/* A pass at @found, and a failing trial within the resolution above it. */
static void assert_bracketed(const struct ep_rate_search *s, size_t n, double found)
{
	double fail = INFINITY;

	for (size_t i = 0; i < n; i++)
		if (!rows[i].pass)
			fail = fmin(fail, rows[i].config);
	cr_assert(fail > found && fail <= found * (1.0 + s->resolution_pct / 100.0),
		  "found %.2f, lowest failure %.2f: a failing trial within %g %% above the result",
		  found, fail, s->resolution_pct);
}

/* The rate that passes: within the resolution below it. */
static void assert_within(const struct ep_rate_search *s, double found, double passes)
{
	cr_assert(found <= passes * (1.0 + 1e-12) &&
			  found >= passes / (1.0 + s->resolution_pct / 100.0),
		  "found %.2f, %.2f passes", found, passes);
}

static const double capacities[] = { 825.6, 4128.1, 24802.0, 50403.2, 104167.0 };

Test(rate_search, a_shaper_is_found_in_three_trials_below_the_top)
{
	for (size_t k = 0; k < sizeof(capacities) / sizeof(capacities[0]); k++) {
		struct model m = { capacities[k], 1.0, 0.0, 0.0 };
		struct ep_rate_search s = search(812744.0, 0.5, 20);
		double found;
		size_t n = drive(&s, &m, &found);

		assert_within(&s, found, m.capacity);
		/* the top, one a few resolutions above what it delivered, one
		 * just below what that one delivered */
		cr_assert_eq(n, 3, "capacity %.1f: %zu trials", m.capacity, n);
		cr_assert(!rows[1].pass && rows[1].outcome <= 5.0, "a near failure: %g %% lost",
			  rows[1].outcome);
	}
}

Test(rate_search, confirm_ends_with_a_failure_within_the_resolution_above)
{
	for (size_t k = 0; k < sizeof(capacities) / sizeof(capacities[0]); k++) {
		struct model m = { capacities[k], 1.0, 0.0, 0.0 };
		struct ep_rate_search s = search(812744.0, 0.5, 20);
		double found;
		size_t n;

		s.confirm = 1;
		n = drive(&s, &m, &found);
		assert_within(&s, found, m.capacity);
		cr_assert_eq(n, 4, "capacity %.1f: %zu trials", m.capacity, n);
		assert_bracketed(&s, n, found);
	}
}

Test(rate_search, a_shapers_buffers_are_found_from_a_near_failure)
{
	static const double shares[] = { 0.01, 0.03 };

	for (size_t k = 0; k < 2; k++) {
		struct model m = { 4128.1, 1.0, 0.0, shares[k] };
		struct ep_rate_search s = search(812744.0, 0.5, 20);
		double found;
		size_t n = drive(&s, &m, &found);

		/* the top delivered the bare capacity, below what passes */
		cr_assert_float_eq(rows[0].config * (1.0 - rows[0].outcome / 100.0), m.capacity, 1e-6);
		assert_within(&s, found, m.capacity * (1.0 + shares[k]));
		/* 1 %: as without buffers; 3 %: the step above the top's bound
		 * passes, the next (2 % higher) fails near */
		cr_assert_leq(n, k ? 4u : 3u, "buffers %g: %zu trials", shares[k], n);
	}
}

Test(rate_search, the_top_passing_ends_the_search_at_the_top)
{
	struct model m = { 5000.0, 1.0, 0.0, 0.0 };
	struct ep_rate_search s = search(4000.0, 0.5, 20);
	double found;

	cr_assert_eq(drive(&s, &m, &found), 1);
	cr_assert_float_eq(found, 4000.0, 1e-9);
}

Test(rate_search, a_livelocked_receiver_disproves_the_bound_and_is_still_found)
{
	/* Under overload it forwards a fifth of what it takes without loss. */
	struct model m = { 20000.0, 0.2, 0.0, 0.0 };
	struct ep_rate_search s = search(1e6, 0.5, 60);
	double found;
	size_t n = drive(&s, &m, &found);

	assert_within(&s, found, m.capacity);
	assert_bracketed(&s, n, found);
	/* from 4 000 (what the top delivered) up to 20 000 in widening steps */
	cr_assert(n <= 20, "%zu trials", n);
}

Test(rate_search, a_partial_drop_rate_is_found_above_the_capacity)
{
	/* With 2 % loss allowed, a shaper passes up to capacity / 0.98. */
	struct model m = { 10000.0, 1.0, 0.0, 0.0 };
	struct ep_rate_search s = search(1e6, 0.5, 20);
	double found, pdr = m.capacity / 0.98;
	size_t n;

	s.tolerance_pct = 2.0;
	n = drive(&s, &m, &found);
	assert_within(&s, found, pdr);
	cr_assert_eq(n, 3, "%zu trials", n);
}

Test(rate_search, a_link_that_always_loses_ends_without_a_rate_and_within_max_trials)
{
	struct model m = { 1e9, 1.0, 1.0, 0.0 };
	struct ep_rate_search s = search(50000.0, 0.5, 12);
	double found;

	cr_assert_eq(drive(&s, &m, &found), 12);
	cr_assert(isnan(found), "nothing passes, found %g", found);
	for (size_t i = 1; i < 12; i++)
		cr_assert(rows[i].config < rows[i - 1].config, "trial %zu steps down", i + 1);
}

Test(rate_search, a_failure_at_the_floor_ends_the_search)
{
	struct model m = { 0.5, 1.0, 0.0, 0.0 };
	struct ep_rate_search s = search(100.0, 0.5, 200);
	double found;
	size_t n = drive(&s, &m, &found);

	cr_assert(isnan(found));
	cr_assert(n < 200, "%zu trials", n);
	cr_assert(rows[n - 1].config <= s.floor, "ended at the floor: %g", rows[n - 1].config);
}

Test(rate_search, an_uncounted_failure_neither_bounds_nor_lowers_the_search)
{
	struct model m = { 4128.1, 1.0, 0.0, 0.0 };
	unsigned char uncounted[20] = { 0 };
	struct ep_rate_search s = search(812744.0, 0.5, 20);
	double config, again;

	s.uncounted = uncounted;
	/* The top failed honestly; then the next probe failed after a stall
	 * of the sender (the kernel's judgement), delivering 10 %. */
	rows[0] = (struct ep_trial_row){ .config = 812744.0,
					 .outcome = model_loss_pct(&m, 812744.0) };
	cr_assert_eq(ep_rate_search_next(&s, rows, 1, &config), 1);
	rows[1] = (struct ep_trial_row){ .config = config, .outcome = 90.0 };
	uncounted[1] = 1;
	cr_assert_eq(ep_rate_search_next(&s, rows, 2, &again), 1);
	cr_assert_float_eq(again, config, 1e-9, "the same probe: %g then %g", config, again);
	uncounted[1] = 0; /* counted, the same trial lowers the bound */
	cr_assert_eq(ep_rate_search_next(&s, rows, 2, &again), 1);
	cr_assert(again < 0.2 * config, "counted: %g after %g", again, config);
}

Test(rate_search, max_trials_is_obeyed)
{
	struct model m = { 20000.0, 0.2, 0.0, 0.0 };
	struct ep_rate_search s = search(1e6, 0.001, 5);
	double found;

	cr_assert_eq(drive(&s, &m, &found), 5);
	cr_assert(found <= m.capacity, "a passing rate: %g", found);
}
