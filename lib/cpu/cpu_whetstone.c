// SPDX-License-Identifier: MIT
/*
 * cpu_whetstone.c - cpu.whetstone: the Whetstone benchmark (H. J. Curnow and
 * B. A. Wichmann, "A synthetic benchmark", The Computer Journal 19(1), 1976)
 * in its double-precision form, as netlib's whetstoned.f and its C
 * translation whetstone.c (the program behind TI's "whetstone (mips)") run it.
 *
 * One unit is one pass of the benchmark's major loop with the loop count
 * 'loops' (the original's LOOP): modules 2, 3, 4, 6, 7, 8, 9 and 11 iterate
 * 12, 14, 345, 210, 32, 899, 616 and 93 times 'loops'; modules 1, 5 and 10
 * have weight 0 in the published mix and do not run. The original counts a
 * pass as 100 000 x loops Whetstone instructions; MIPS is millions of those
 * per second (its KIPS / 1000).
 *
 * Every pass starts from the module's start values, as the original's does,
 * and the values decay over a pass (module 7's X is 1e-70 after a pass of
 * 100 000), which changes the speed of the trigonometric functions: a figure
 * belongs to its 'loops'. The modules' results are stored after each module
 * (the original prints them), so no module can be left out by the compiler,
 * and checked after the run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/cpu/classic.h"

/* The original's constants T, T1 and T2. */
#define WHET_T 0.499975
#define WHET_T1 0.50025
#define WHET_T2 2.0

/* Iterations per LOOP of modules 2, 3, 4, 6, 7, 8, 9 and 11 (N2 .. N11). */
enum { N2 = 12, N3 = 14, N4 = 345, N6 = 210, N7 = 32, N8 = 899, N9 = 616, N11 = 93 };

/* Whetstone instructions in a pass of LOOP = 1 (KIPS = 100 LOOP / s). */
#define WHET_INSTR_PER_LOOP 100000.0

/**
 * struct whet_state - the run's state.
 * @run:    for ep_run_check() between passes.
 * @loops:  the loop count of a pass.
 * @values: the last pass's results.
 */
struct whet_state {
	struct ep_run *run;
	long loops;
	struct ep_whet_values values;
};

static const struct ep_param_desc whet_params[] = {
	{ "loops", EP_PT_INT, "100000", { { 1, 1000000 } }, NULL, "",
	  "the original's LOOP: a pass (one unit) is 100 000 x loops Whetstone instructions; "
	  "100000 is whetstone.c's default" },
};

static const struct ep_metric_desc whet_metrics[] = {
	{ "mips", "MIPS", EP_METRIC_RATE, 1.0, EP_PRIMARY_MEDIAN, 1,
	  "million Whetstone instructions per second (KIPS / 1000)" },
};

/* A pass lasts a second or more: no warm-up sample beyond calibration's. */
static const struct ep_default whet_defaults[] = {
	{ "repetitions", "5" },
	{ "warmup", "0" },
	{ NULL, NULL },
};

/* Module 2: array elements. */
static void module2(double *e, long n)
{
	e[0] = 1.0;
	e[1] = e[2] = e[3] = -1.0;
	for (long i = 0; i < n; i++) {
		e[0] = (e[0] + e[1] + e[2] - e[3]) * WHET_T;
		e[1] = (e[0] + e[1] - e[2] + e[3]) * WHET_T;
		e[2] = (e[0] - e[1] + e[2] + e[3]) * WHET_T;
		e[3] = (-e[0] + e[1] + e[2] + e[3]) * WHET_T;
	}
}

void ep_whet_pa(double *e)
{
	for (int round = 0; round < 6; round++) {
		e[0] = (e[0] + e[1] + e[2] - e[3]) * WHET_T;
		e[1] = (e[0] + e[1] - e[2] + e[3]) * WHET_T;
		e[2] = (e[0] - e[1] + e[2] + e[3]) * WHET_T;
		e[3] = (-e[0] + e[1] + e[2] + e[3]) / WHET_T2;
	}
}

/* Module 4: conditional jumps. J alternates between 0 and 1. */
static int module4(long n)
{
	int j = 1;

	for (long i = 0; i < n; i++) {
		j = j == 1 ? 2 : 3;
		j = j > 2 ? 0 : 1;
		j = j < 1 ? 1 : 0;
	}
	return j;
}

/* Module 6: integer arithmetic; J, K, L stay 1, 2, 3. E1 is 0-based here. */
static void module6(double *e, long n, struct ep_whet_values *v)
{
	int j = 1, k = 2, l = 3;

	for (long i = 0; i < n; i++) {
		j = j * (k - j) * (l - k);
		k = l * k - (l - j) * k;
		l = (l - k) * (k + j);
		e[l - 2] = j + k + l;
		e[k - 2] = j * k * l;
	}
	v->m6_j = j;
	v->m6_k = k;
}

/* Module 7: trigonometric functions. */
static void module7(long n, struct ep_whet_values *v)
{
	double x = 0.5, y = 0.5;

	for (long i = 0; i < n; i++) {
		x = WHET_T * atan(WHET_T2 * sin(x) * cos(x) / (cos(x + y) + cos(x - y) - 1.0));
		y = WHET_T * atan(WHET_T2 * sin(y) * cos(y) / (cos(x + y) + cos(x - y) - 1.0));
	}
	v->m7_x = x;
	v->m7_y = y;
}

/* Module 8's procedure (the original's P3). */
static void p3(double x, double y, double *z)
{
	x = WHET_T * (x + y);
	y = WHET_T * (x + y);
	*z = (x + y) / WHET_T2;
}

/* Module 9: array references, E1(J) = E1(K), E1(K) = E1(L), E1(L) = E1(J). */
static void module9(double *e, long n)
{
	int j = 0, k = 1, l = 2;

	e[0] = 1.0;
	e[1] = 2.0;
	e[2] = 3.0;
	for (long i = 0; i < n; i++) {
		e[j] = e[k];
		e[k] = e[l];
		e[l] = e[j];
	}
}

/* Module 11: standard functions. */
static double module11(long n)
{
	double x = 0.75;

	for (long i = 0; i < n; i++)
		x = sqrt(exp(log(x) / WHET_T1));
	return x;
}

void ep_whetstone_pass(long loops, struct ep_whet_values *v)
{
	double e[4], z = 1.0;

	module2(e, N2 * loops);
	memcpy(v->m2, e, sizeof(v->m2));
	for (long i = 0; i < N3 * loops; i++)
		ep_whet_pa(e);
	memcpy(v->m3, e, sizeof(v->m3));
	v->m4_j = module4(N4 * loops);
	module6(e, N6 * loops, v);
	memcpy(v->m6_e, e, sizeof(v->m6_e));
	module7(N7 * loops, v);
	for (long i = 0; i < N8 * loops; i++)
		p3(1.0, 1.0, &z);
	v->m8_z = z;
	module9(e, N9 * loops);
	memcpy(v->m9_e, e, sizeof(v->m9_e));
	v->m11_x = module11(N11 * loops);
}

/* Is @got within @rel_tol of @want (relative)? NaN never is. */
static int near(double got, double want, double rel_tol)
{
	return fabs(got - want) <= rel_tol * fabs(want);
}

/* Are the @n values of @e finite and at most @bound in magnitude? */
static int bounded(const double *e, int n, double bound)
{
	for (int i = 0; i < n; i++)
		if (!(fabs(e[i]) <= bound))
			return 0;
	return 1;
}

EP_UNTIMED int ep_whetstone_check(const struct ep_whet_values *v, long loops, char *msg,
				  size_t size)
{
	/* X of module 11 is 0.75^(q^N11), q = 1 / (2 T1); Z of module 8 is
	 * (3 T + 2 T^2) / T2 from X = Y = 1. Module 7's values are T atan(...). */
	double x11 = pow(0.75, pow(1.0 / (2.0 * WHET_T1), (double)(N11 * loops)));
	double z8 = (3.0 * WHET_T + 2.0 * WHET_T * WHET_T) / WHET_T2;
	const char *bad = NULL;

	if (!bounded(v->m2, 4, 1.5) || !bounded(v->m3, 4, 1.5))
		bad = "modules 2-3: E1 beyond +-1.5";
	else if (v->m4_j != ((N4 * loops) % 2 ? 0 : 1))
		bad = "module 4: J";
	else if (v->m6_j != 1 || v->m6_k != 2 || v->m6_e[0] != 6.0 || v->m6_e[1] != 6.0)
		bad = "module 6: J, K or E1";
	else if (!(fabs(v->m7_x) <= WHET_T * M_PI / 2) || !(fabs(v->m7_y) <= WHET_T * M_PI / 2))
		bad = "module 7: X or Y beyond T pi / 2";
	else if (!near(v->m8_z, z8, 1e-12))
		bad = "module 8: Z";
	else if (v->m9_e[0] != 3.0 || v->m9_e[1] != 2.0 || v->m9_e[2] != 3.0)
		bad = "module 9: E1";
	else if (!near(v->m11_x, x11, 1e-9))
		bad = "module 11: X";
	if (!bad)
		return 0;
	snprintf(msg, size, "cpu.whetstone: wrong result of %s (loops=%ld)",
		 bad, loops);
	return -EIO;
}

static int whet_body(void *arg, uint64_t units)
{
	struct whet_state *st = arg;
	int rc;

	while (units--) {
		rc = ep_run_check(st->run);
		if (rc)
			return rc;
		ep_whetstone_pass(st->loops, &st->values);
	}
	return 0;
}

EP_UNTIMED static int whet_setup(struct ep_run *run, void **state)
{
	struct whet_state *st = *state;
	struct ep_case ec = { .metric = 0, .body = whet_body };
	char label[32];

	st->run = run;
	st->loops = (long)ep_param_int(run, "loops");
	snprintf(label, sizeof(label), "loops=%ld", st->loops);
	ec.labels = label;
	ec.arg = st;
	/* The engine's rate is bytes_per_unit x 10^6 per second: counting
	 * Whetstone instructions as the "bytes" gives MIPS. */
	ec.bytes_per_unit = WHET_INSTR_PER_LOOP * (double)st->loops;
	return ep_run_add_case(run, &ec);
}

EP_UNTIMED static int whet_finish(struct ep_run *run, void *state)
{
	const struct whet_state *st = state;
	char msg[EP_ERRMSG_MAX];
	int rc = ep_whetstone_check(&st->values, st->loops, msg, sizeof(msg));

	return rc ? ep_run_fail(run, rc, "%s", msg) : 0;
}

const struct ep_kernel ep_kernel_cpu_whetstone = {
	.name = "cpu.whetstone",
	.summary = "Whetstone MIPS, double precision (Curnow and Wichmann; netlib whetstone.c)",
	EP_PARAMS(whet_params),
	EP_METRICS(whet_metrics),
	.engine_defaults = whet_defaults,
	.setup = whet_setup,
	.finish = whet_finish,
	.state_bytes = sizeof(struct whet_state),
	.cpu_bound = 1,
};
