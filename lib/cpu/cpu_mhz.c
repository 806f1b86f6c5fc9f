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
 * run fails with -EAGAIN, where mhz prints "System too busy".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/core/kernel.h"
#include "lib/core/result.h"
#include "lib/core/util.h"
#include "lib/cpu/mhz.h"
#include "lib/cpu/ops_chains.h"

#define MHZ_EXPRS_PER_UNIT 100
#define MHZ_MAX_CYCLES 6          /* the fastest loop takes at most this many cycles */
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

/** struct mhz_state - one state per loop, in the order of mhz_loops[]. */
struct mhz_state {
	struct mhz_loop_state loops[MHZ_MAX_LOOPS];
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

static void mhz_teardown(void *state)
{
	free(state);
}

static int mhz_setup(struct ep_run *run, void **state)
{
	struct ep_case ec = { .metric = MHZ_METRIC_EXPR_TIME };
	struct mhz_state *st = calloc(1, sizeof(*st));
	char label[MHZ_LABEL_MAX];
	int rc = 0;

	_Static_assert(EP_ARRAY_SIZE(mhz_loops) <= MHZ_MAX_LOOPS, "mhz: too many loops");
	if (!st)
		return -ENOMEM;
	*state = st;
	for (int i = 0; i < MHZ_N_LOOPS && !rc; i++) {
		struct mhz_loop_state *ls = &st->loops[i];

		ls->a = 0x12345u + (unsigned long)i;
		ls->b = 0x9e3779b1u;
		ls->c = 0x5bd1e995u;
		ls->self = &ls->self;
		snprintf(label, sizeof(label), "loop=%s", mhz_loops[i].name);
		ec.labels = label;
		ec.body = mhz_loops[i].body;
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

int ep_cpu_mhz_period(const double *t_ns, int n, double *period_ns)
{
	double best_score = INFINITY, best_worst = INFINITY;

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
			*period_ns = period;
		}
	}
	return best_worst <= MHZ_FIT_TOLERANCE ? 0 : -EAGAIN;
}

static int mhz_finish(struct ep_run *run, void *state)
{
	const struct embperf_result *r;
	double t_ns[EP_ARRAY_SIZE(mhz_loops)], period_ns;
	char label[MHZ_LABEL_MAX];
	int rc;

	for (int i = 0; i < MHZ_N_LOOPS; i++) {
		snprintf(label, sizeof(label), "loop=%s", mhz_loops[i].name);
		r = ep_run_find_result(run, MHZ_METRIC_EXPR_TIME, label);
		t_ns[i] = r ? r->value : NAN;
		if (!(t_ns[i] > 0.0))
			return ep_run_fail(run, -ENODATA, "cpu.mhz: no time for %s", label);
	}
	if (ep_cpu_mhz_period(t_ns, MHZ_N_LOOPS, &period_ns))
		return ep_run_fail(run, -EAGAIN,
				   "cpu.mhz: the loop times (add %.3f ns, mul %.3f ns, load %.3f ns, "
				   "...) are no whole multiples of one clock within %.1f cycles: the "
				   "system is too busy (mhz: 'System too busy'); run again, or pin "
				   "with cpu=N",
				   t_ns[0], t_ns[4], t_ns[6], MHZ_FIT_TOLERANCE);
	rc = ep_run_add_value(run, MHZ_METRIC_MHZ, "", 1000.0 / period_ns);
	if (!rc)
		rc = ep_run_add_value(run, MHZ_METRIC_CLOCK, "", period_ns);
	return rc;
}

const struct ep_kernel ep_kernel_cpu_mhz = {
	.name = "cpu.mhz",
	.summary = "processor clock from loops of whole cycle counts (lmbench mhz)",
	.metrics = mhz_metrics,
	.n_metrics = (int)EP_ARRAY_SIZE(mhz_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = mhz_setup,
	.finish = mhz_finish,
	.teardown = mhz_teardown,
	.cpu_bound = 1,
};
