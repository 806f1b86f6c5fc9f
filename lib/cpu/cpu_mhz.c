// SPDX-License-Identifier: MIT
/*
 * cpu_mhz.c - cpu.mhz: the processor's clock, the method of lmbench's mhz
 * (McVoy & Staelin).
 *
 * Several loops each run a dependent chain of one expression: an add, an
 * add and an xor, three and five mixed operations, a multiply, a multiply
 * and an add, a load of a pointer that points to itself. Whatever each
 * instruction costs, one expression takes a whole number of cycles, so the
 * loops' times per expression are whole multiples of one clock period, and
 * as long as two of those counts have no common factor, the largest period
 * that divides them all is the clock. Nothing is assumed about the cost of
 * any instruction.
 *
 * finish() finds that period from the best time of each loop: for a guess
 * of c cycles for the fastest loop (c = 1..6), every loop gets the nearest
 * whole count, a least-squares line through the origin gives the period,
 * and the guess with the smallest c^2 * (mean square distance of the loops
 * from their counts, in cycles) wins: a grid twice as fine puts the same
 * error twice as many cycles off, and the c^2 keeps loose fits on fine grids
 * from beating a good fit on a coarse one. A fit that still leaves a loop
 * more than 0.2 cycles off a whole count means the times are too noisy: the
 * run fails with -EAGAIN, where mhz prints "System too busy". A winning guess
 * of more than one cycle must fit twice as close (0.1 of its cycles): noisy
 * times of a one-cycle add land near thirds or halves of the clock by chance
 * often enough to report three times the clock (seen in CI: 9095 MHz on a
 * 3 GHz core), while no processor takes more than one cycle for that add.
 *
 * The samples are short (0.5 ms, 41 of them, where lmbench's engine default is
 * 11 of 5 ms): a 5 ms sample on a shared CPU is nearly always preempted
 * once, so its best time reads a few percent slow and the fit fails; the
 * best of many short samples is an undisturbed one (15 of 15 fits against
 * 1 of 15 with the default, beside a CI build on 2 vCPUs, 2026-12-01).
 *
 * loops=lmbench runs instead the nine expressions of lmbench's mhz (a load
 * of a self-pointing pointer, shifts, xors and adds on a long and the loop
 * counter, labelled loop=mhz1..mhz9 in its order), for its front end's -d
 * table; there a fit that fails keeps the loop times and adds no mhz or
 * clock value instead of failing the run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/run.h"
#include "lib/core/result.h"
#include "lib/core/util.h"
#include "lib/cpu/mhz.h"
#include "lib/cpu/ops_chains.h"

#define MHZ_EXPRS_PER_UNIT 100
#define MHZ_LABEL_MAX 32

enum { MHZ_METRIC_MHZ, MHZ_METRIC_CLOCK, MHZ_METRIC_EXPR_TIME };

/**
 * struct mhz_loop_state - the values one loop's chain works on.
 * @a:    the chain's value, kept between calls.
 * @b:    first operand (odd, so products never become 0).
 * @c:    second operand.
 * @self: the load loop's pointer, which points to itself.
 */
struct mhz_loop_state {
	unsigned long a, b, c;
	void *self;
};

struct mhz_loop;

/**
 * struct mhz_state - the run's state.
 * @loops:   one state per loop, in the order of @set.
 * @set:     the loops of the 'loops' parameter.
 * @n_loops: how many.
 */
struct mhz_state {
	struct mhz_loop_state loops[MHZ_MAX_LOOPS];
	const struct mhz_loop *set;
	int n_loops;
};

static const struct ep_param_desc mhz_params[] = {
	{ "loops", EP_PT_ENUM, "own", { { 0, 0 } }, "own|lmbench", "",
	  "own: seven chains of adds, xors, multiplies and a load; lmbench: the nine "
	  "expressions of lmbench's mhz (loop=mhz1..mhz9); a fit that fails then gives no mhz "
	  "value instead of failing" },
};

static const struct ep_metric_desc mhz_metrics[] = {
	[MHZ_METRIC_MHZ] = { "mhz", "MHz", EP_METRIC_VALUE, 1.0, EP_PRIMARY_MEDIAN, 1,
			     "processor clock: the largest period dividing every loop's time" },
	[MHZ_METRIC_CLOCK] = { "clock", "ns", EP_METRIC_VALUE, 1.0, EP_PRIMARY_MEDIAN, 0,
			       "one clock period, 1000 / mhz" },
	[MHZ_METRIC_EXPR_TIME] = { "expression_time", "ns", EP_METRIC_TIME, MHZ_EXPRS_PER_UNIT,
				   EP_PRIMARY_MIN, 0,
				   "time of one expression of a loop's chain, best of the samples" },
};

/* A loop: 100 expressions per unit, each fed by the one before. */
#define MHZ_LOOP(name, expr)                                          \
	static int name(void *arg, uint64_t units)                    \
	{                                                             \
		struct mhz_loop_state *ls = arg;                      \
		unsigned long a = ls->a;                              \
		const unsigned long b = ls->b, c = ls->c;             \
                                                                      \
		(void)c;                                              \
		while (units--) {                                     \
			CPU_X100(expr; CPU_KEEP_INT(a);)              \
		}                                                     \
		ls->a = a;                                            \
		return 0;                                             \
	}

MHZ_LOOP(mhz_add, a += b)
MHZ_LOOP(mhz_add_xor, a = (a + b) ^ a)
MHZ_LOOP(mhz_add_xor_add, a = ((a + b) ^ c) + a)
MHZ_LOOP(mhz_alu5, a = ((((a + b) ^ c) + b) ^ c) + b)
MHZ_LOOP(mhz_mul, a *= b)
MHZ_LOOP(mhz_mul_add, a = a * b + c)

static int mhz_load(void *arg, uint64_t units)
{
	struct mhz_loop_state *ls = arg;
	void *p = ls->self;

	while (units--) {
		CPU_X100(p = *(void **)p; CPU_KEEP_INT(p);)
	}
	ls->self = p;
	return 0;
}

/*
 * lmbench mhz's expressions, on an unsigned long (lmbench: a long; the same
 * instructions, without signed overflow) and b = 1, as its loops start.
 * The loop counter is n. A shift by a + a is masked to the register's
 * width, as x86's shr does with its count (C leaves larger counts undefined).
 */
#define MHZ_LMB_LOOP(name, expr)                                      \
	static int name(void *arg, uint64_t units)                    \
	{                                                             \
		struct mhz_loop_state *ls = arg;                      \
		unsigned long a = ls->a, b = ls->b;                   \
                                                                      \
		for (unsigned long n = units; n; n--) {               \
			CPU_X100(expr; CPU_KEEP_INT(a); CPU_KEEP_INT(b);) \
		}                                                     \
		ls->a = a;                                            \
		ls->b = b;                                            \
		return 0;                                             \
	}

#define MHZ_LONG_BITS (8 * sizeof(unsigned long))

MHZ_LMB_LOOP(mhz_lmb2, a ^= a + a)
MHZ_LMB_LOOP(mhz_lmb3, a ^= a + a + a)
MHZ_LMB_LOOP(mhz_lmb4, a >>= b)
MHZ_LMB_LOOP(mhz_lmb5, a >>= (a + a) & (MHZ_LONG_BITS - 1))
MHZ_LMB_LOOP(mhz_lmb6, a ^= a << b)
MHZ_LMB_LOOP(mhz_lmb7, a ^= a + b)
MHZ_LMB_LOOP(mhz_lmb8, a += (a + b) & 07)
MHZ_LMB_LOOP(mhz_lmb9, a ^= n; b ^= a; a |= b)

/**
 * struct mhz_loop - a loop of the run.
 * @name: label value.
 * @body: its body.
 */
struct mhz_loop {
	const char *name;
	ep_body_fn body;
};

static const struct mhz_loop mhz_loops[] = {
	{ "add", mhz_add },         { "add-xor", mhz_add_xor }, { "add-xor-add", mhz_add_xor_add },
	{ "alu5", mhz_alu5 },       { "mul", mhz_mul },         { "mul-add", mhz_mul_add },
	{ "load", mhz_load },
};

#define MHZ_N_LOOPS ((int)EP_ARRAY_SIZE(mhz_loops))

/* lmbench mhz's nine, in its order; the first is the load. */
static const struct mhz_loop mhz_lmb_loops[] = {
	{ "mhz1", mhz_load }, { "mhz2", mhz_lmb2 }, { "mhz3", mhz_lmb3 },
	{ "mhz4", mhz_lmb4 }, { "mhz5", mhz_lmb5 }, { "mhz6", mhz_lmb6 },
	{ "mhz7", mhz_lmb7 }, { "mhz8", mhz_lmb8 }, { "mhz9", mhz_lmb9 },
};

/* Many short samples: see the head of this file. */
static const struct ep_default mhz_defaults[] = {
	{ "repetitions", "41" },
	{ "sample_time", "500us" },
	{ "spread", "0" },
	{ NULL, NULL },
};

EP_UNTIMED static int mhz_setup(struct ep_run *run, void **state)
{
	struct ep_case ec = { .metric = MHZ_METRIC_EXPR_TIME };
	struct mhz_state *st = *state;
	char label[MHZ_LABEL_MAX];
	int rc = 0, lmbench;

	_Static_assert(EP_ARRAY_SIZE(mhz_loops) <= MHZ_MAX_LOOPS, "mhz: too many loops");
	_Static_assert(EP_ARRAY_SIZE(mhz_lmb_loops) <= MHZ_MAX_LOOPS, "mhz: too many loops");
	lmbench = !strcmp(ep_param_text(run, "loops"), "lmbench");
	st->set = lmbench ? mhz_lmb_loops : mhz_loops;
	st->n_loops = lmbench ? (int)EP_ARRAY_SIZE(mhz_lmb_loops) : MHZ_N_LOOPS;
	for (int i = 0; i < st->n_loops && !rc; i++) {
		struct mhz_loop_state *ls = &st->loops[i];

		/* lmbench's loops start from a = b = 1. */
		ls->a = lmbench ? 1 : 0x12345u + (unsigned long)i;
		ls->b = lmbench ? 1 : 0x9e3779b1u;
		ls->c = 0x5bd1e995u;
		ls->self = &ls->self;
		snprintf(label, sizeof(label), "loop=%s", st->set[i].name);
		ec.labels = label;
		ec.body = st->set[i].body;
		ec.arg = ls;
		rc = ep_run_add_case(run, &ec);
	}
	return rc;
}

/*
 * Fit the times @t_ns to whole counts of one period, given @cycles for the
 * fastest loop. Writes the period; returns the mean square distance of the
 * loops from their whole counts, in cycles; @worst receives the largest.
 */
static double fit_period(const double *t_ns, int n, int cycles, double *period_ns, double *worst)
{
	double counts[MHZ_MAX_LOOPS];
	double t_min = t_ns[0], sum_ct = 0.0, sum_cc = 0.0, sum_sq = 0.0;

	for (int i = 1; i < n; i++)
		if (t_ns[i] < t_min)
			t_min = t_ns[i];
	for (int i = 0; i < n; i++) {
		counts[i] = round(t_ns[i] * cycles / t_min);
		sum_ct += counts[i] * t_ns[i];
		sum_cc += counts[i] * counts[i];
	}
	*period_ns = sum_ct / sum_cc; /* least squares through the origin */
	*worst = 0.0;
	for (int i = 0; i < n; i++) {
		double off = fabs(t_ns[i] / *period_ns - counts[i]);

		sum_sq += off * off;
		if (off > *worst)
			*worst = off;
	}
	return sum_sq / n;
}

EP_UNTIMED int ep_cpu_mhz_period(const double *t_ns, int n, double *period_ns)
{
	double best_score = INFINITY, best_worst = INFINITY;
	int best_cycles = 0;

	if (n < 2 || n > MHZ_MAX_LOOPS)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if (!(t_ns[i] > 0.0) || !isfinite(t_ns[i]))
			return -EINVAL;
	for (int c = 1; c <= MHZ_MAX_CYCLES; c++) {
		double period, worst, score = c * c * fit_period(t_ns, n, c, &period, &worst);

		if (score < best_score) {
			best_score = score;
			best_worst = worst;
			best_cycles = c;
			*period_ns = period;
		}
	}
	if (best_cycles > 1)
		return best_worst <= MHZ_FINE_FIT_TOLERANCE ? 0 : -EAGAIN;
	return best_worst <= MHZ_FIT_TOLERANCE ? 0 : -EAGAIN;
}

EP_UNTIMED static int mhz_finish(struct ep_run *run, void *state)
{
	const struct mhz_state *st = state;
	const struct embperf_result *r;
	double t_ns[MHZ_MAX_LOOPS], period_ns;
	char label[MHZ_LABEL_MAX];
	int rc;

	for (int i = 0; i < st->n_loops; i++) {
		snprintf(label, sizeof(label), "loop=%s", st->set[i].name);
		r = ep_run_find_result(run, MHZ_METRIC_EXPR_TIME, label);
		t_ns[i] = r ? r->value : NAN;
		if (!(t_ns[i] > 0.0))
			return ep_run_fail(run, -ENODATA, "cpu.mhz: no time for %s", label);
	}
	/* With lmbench's loops, a failed fit keeps the loop times and gives
	 * no clock, as mhz -d prints its timings and then -1. */
	if (ep_cpu_mhz_period(t_ns, st->n_loops, &period_ns) && st->set == mhz_lmb_loops)
		return 0;
	if (ep_cpu_mhz_period(t_ns, st->n_loops, &period_ns))
		return ep_run_fail(run, -EAGAIN,
				   "cpu.mhz: the loop times (%s %.3f ns, %s %.3f ns, %s %.3f ns, "
				   "...) are no whole multiples of one clock within %.1f cycles: the "
				   "system is too busy (mhz: 'System too busy'); run again, or pin "
				   "with cpu=N",
				   st->set[0].name, t_ns[0], st->set[1].name, t_ns[1], st->set[2].name,
				   t_ns[2], MHZ_FIT_TOLERANCE);
	rc = ep_run_add_value(run, MHZ_METRIC_MHZ, "", 1000.0 / period_ns);
	if (!rc)
		rc = ep_run_add_value(run, MHZ_METRIC_CLOCK, "", period_ns);
	return rc;
}

const struct ep_kernel ep_kernel_cpu_mhz = {
	.name = "cpu.mhz",
	.summary = "processor clock from loops of whole cycle counts (lmbench mhz)",
	EP_PARAMS(mhz_params),
	EP_METRICS(mhz_metrics),
	.engine_defaults = mhz_defaults,
	.setup = mhz_setup,
	.finish = mhz_finish,
	.state_bytes = sizeof(struct mhz_state),
	.cpu_bound = 1,
};
