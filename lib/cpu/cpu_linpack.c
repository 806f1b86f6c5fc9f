// SPDX-License-Identifier: MIT
/*
 * cpu_linpack.c - cpu.linpack: Dongarra's LINPACK benchmark, the solve of a
 * dense 100 x 100 system in double precision (J. J. Dongarra, "Performance
 * of various computers using standard linear equations software"; the C
 * translations netlib/benchmark/linpackc and linpackc.new).
 *
 * One solve is: the test matrix of netlib's matgen (entries from the
 * generator init = 3125 init mod 65536, started at 1325, scaled to [-2, 2);
 * the right-hand side the row sums, so x = 1 is the solution), its LU
 * factorization with partial pivoting (LINPACK's dgefa) and the solve with
 * the factors (dgesl), column-major with leading dimension 2n, as
 * linpackc.new allocates it. A solve counts 2/3 n^3 + 2 n^2 floating-point
 * operations; kflops is thousands of those per second. The generator is not
 * timed: the engine subtracts its time, measured on its own, as linpackc.new
 * leaves it out of its clock.
 *
 * The BLAS loops come rolled or unrolled (daxpy by 4, dscal by 5), as
 * netlib's -DROLL and -DUNROLL builds have them; blas=both (the default)
 * makes a unit one solve of each, so that the figure is linpackc.new's: the
 * operations of both over the time of both.
 *
 * After the run every variant's last solution is checked as the original
 * checks it: the normalized residual ||A x - b|| / (n ||A|| ||x|| eps) must
 * be small; a larger one, or a zero pivot, fails the run.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/cpu/classic.h"

#define LIN_VARIANTS 2           /* rolled, unrolled */
#define LIN_GEN_PERIOD 16384     /* period of matgen's generator */

enum { LIN_METRIC_KFLOPS, LIN_METRIC_RESIDUAL };

/**
 * struct lin_state - the run's state.
 * @a:        the matrix, n columns of lda.
 * @b:        LIN_VARIANTS + 1 vectors of n: each variant's right-hand side
 *            and solution, then the check's right-hand side.
 * @ipvt:     pivot rows.
 * @n:        order; @lda: leading dimension.
 * @variants: bit v set: variant v (0 rolled, 1 unrolled) runs in a unit.
 * @info:     dgefa's zero pivots, ORed over the run.
 */
struct lin_state {
	double *a, *b;
	int *ipvt;
	int n, lda, variants, info;
};

static const struct ep_param_desc lin_params[] = {
	{ "n", EP_PT_INT, "100", { { 10, 2000 } }, NULL, "",
	  "order of the system (LINPACK 100: 100); leading dimension 2n, as linpackc.new" },
	{ "blas", EP_PT_ENUM, "both", { { 0, 0 } }, "rolled|unrolled|both", "",
	  "BLAS loops: rolled, unrolled, or both (a unit solves once with each: linpackc.new's figure)" },
};

static const struct ep_metric_desc lin_metrics[] = {
	[LIN_METRIC_KFLOPS] = { "kflops", "kflops", EP_METRIC_RATE, 1.0, EP_PRIMARY_MEDIAN, 1,
				"thousand floating-point operations per second, 2/3 n^3 + 2 n^2 a solve" },
	[LIN_METRIC_RESIDUAL] = { "residual", "x", EP_METRIC_VALUE, 1.0, EP_PRIMARY_MEDIAN, 0,
				  "normalized residual of the last solve (multiples of n ||A|| ||x|| eps)" },
};

double ep_linpack_matgen(double *a, int lda, int n, double *b)
{
	int init = 1325;
	double norma = 0.0;

	for (int j = 0; j < n; j++) {
		for (int i = 0; i < n; i++) {
			init = 3125 * init % 65536;
			a[(size_t)lda * j + i] = (init - 32768.0) / 16384.0;
			if (a[(size_t)lda * j + i] > norma)
				norma = a[(size_t)lda * j + i];
		}
	}
	for (int i = 0; i < n; i++)
		b[i] = 0.0;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			b[i] += a[(size_t)lda * j + i];
	return norma;
}

/* dy += da dx (LINPACK's daxpy, unit strides). */
static void daxpy(int n, double da, const double *dx, double *dy, int unrolled)
{
	int i = 0;

	if (n <= 0 || da == 0.0)
		return;
	if (unrolled) {
		for (; i < n % 4; i++)
			dy[i] = dy[i] + da * dx[i];
		for (; i < n; i += 4) {
			dy[i] = dy[i] + da * dx[i];
			dy[i + 1] = dy[i + 1] + da * dx[i + 1];
			dy[i + 2] = dy[i + 2] + da * dx[i + 2];
			dy[i + 3] = dy[i + 3] + da * dx[i + 3];
		}
		return;
	}
	for (; i < n; i++)
		dy[i] = dy[i] + da * dx[i];
}

/* dx *= da (dscal). */
static void dscal(int n, double da, double *dx, int unrolled)
{
	int i = 0;

	if (unrolled) {
		for (; i < n % 5; i++)
			dx[i] = da * dx[i];
		for (; i < n; i += 5) {
			dx[i] = da * dx[i];
			dx[i + 1] = da * dx[i + 1];
			dx[i + 2] = da * dx[i + 2];
			dx[i + 3] = da * dx[i + 3];
			dx[i + 4] = da * dx[i + 4];
		}
		return;
	}
	for (; i < n; i++)
		dx[i] = da * dx[i];
}

/* The first index of the largest |dx[i]| (idamax). */
static int idamax(int n, const double *dx)
{
	double dmax = fabs(dx[0]);
	int imax = 0;

	for (int i = 1; i < n; i++) {
		if (fabs(dx[i]) > dmax) {
			imax = i;
			dmax = fabs(dx[i]);
		}
	}
	return imax;
}

int ep_linpack_dgefa(double *a, int lda, int n, int *ipvt, int unrolled)
{
	int info = 0;

	for (int k = 0; k < n - 1; k++) {
		double *col_k = a + (size_t)lda * k, t;
		int l = idamax(n - k, col_k + k) + k;

		ipvt[k] = l;
		if (col_k[l] == 0.0) {
			info = k + 1;
			continue;
		}
		if (l != k) {
			t = col_k[l];
			col_k[l] = col_k[k];
			col_k[k] = t;
		}
		dscal(n - k - 1, -1.0 / col_k[k], col_k + k + 1, unrolled);
		/* Row elimination, column by column. */
		for (int j = k + 1; j < n; j++) {
			double *col_j = a + (size_t)lda * j;

			t = col_j[l];
			if (l != k) {
				col_j[l] = col_j[k];
				col_j[k] = t;
			}
			daxpy(n - k - 1, t, col_k + k + 1, col_j + k + 1, unrolled);
		}
	}
	ipvt[n - 1] = n - 1;
	if (a[(size_t)lda * (n - 1) + n - 1] == 0.0)
		info = n;
	return info;
}

void ep_linpack_dgesl(const double *a, int lda, int n, const int *ipvt, double *b, int unrolled)
{
	/* L y = b, then U x = y. */
	for (int k = 0; k < n - 1; k++) {
		int l = ipvt[k];
		double t = b[l];

		if (l != k) {
			b[l] = b[k];
			b[k] = t;
		}
		daxpy(n - k - 1, t, a + (size_t)lda * k + k + 1, b + k + 1, unrolled);
	}
	for (int k = n - 1; k >= 0; k--) {
		b[k] = b[k] / a[(size_t)lda * k + k];
		daxpy(k, -b[k], a + (size_t)lda * k, b, unrolled);
	}
}

EP_UNTIMED double ep_linpack_residual(const double *a, int lda, int n, const double *x,
				      const double *b, double norma)
{
	double resid = 0.0, normx = 0.0;

	for (int i = 0; i < n; i++) {
		double r = -b[i];

		for (int j = 0; j < n; j++)
			r += a[(size_t)lda * j + i] * x[j];
		if (!isfinite(r) || !isfinite(x[i]))
			return INFINITY;
		resid = fmax(resid, fabs(r));
		normx = fmax(normx, fabs(x[i]));
	}
	return resid / (n * norma * normx * DBL_EPSILON);
}

/* One unit: a solve with each variant, each into its own vector. */
static int lin_body(void *arg, uint64_t units)
{
	struct lin_state *st = arg;

	while (units--) {
		for (int v = 0; v < LIN_VARIANTS; v++) {
			double *b = st->b + (size_t)st->n * v;

			if (!(st->variants & (1 << v)))
				continue;
			ep_linpack_matgen(st->a, st->lda, st->n, b);
			st->info |= ep_linpack_dgefa(st->a, st->lda, st->n, st->ipvt, v);
			ep_linpack_dgesl(st->a, st->lda, st->n, st->ipvt, b, v);
		}
	}
	return 0;
}

/* The body without the solves: the generator's time, subtracted. */
static int lin_overhead(void *arg, uint64_t units)
{
	struct lin_state *st = arg;

	while (units--)
		for (int v = 0; v < LIN_VARIANTS; v++)
			if (st->variants & (1 << v))
				ep_linpack_matgen(st->a, st->lda, st->n, st->b + (size_t)st->n * v);
	return 0;
}

EP_UNTIMED static void lin_teardown(void *state)
{
	struct lin_state *st = state;

	free(st->a);
	free(st->b);
	free(st->ipvt);
}

/*
 * matgen's generator repeats every 16384 entries. Its n x n matrix is
 * singular, or so near it that the solution is wrong, exactly when n times
 * the largest power of 2 dividing n is 16384 or more (128, 256, 320, ...,
 * 2000: checked for every n of 10..640 and every multiple of 8 above).
 */
EP_UNTIMED static int check_order(struct ep_run *run, int n)
{
	if ((n & -n) * n < LIN_GEN_PERIOD)
		return 0;
	return ep_run_fail(run, -EINVAL,
			   "parameter 'n': value '%d': matgen's matrix is singular for it; accepted: "
			   "10..2000 where n x (largest power of 2 dividing n) < %d, e.g. %d or %d",
			   n, LIN_GEN_PERIOD, n - 1, n + 1);
}

EP_UNTIMED static int lin_setup(struct ep_run *run, void **state)
{
	struct lin_state *st = *state;
	struct ep_case ec = { .metric = LIN_METRIC_KFLOPS, .body = lin_body,
			      .overhead = lin_overhead };
	int blas = (int)ep_param_int(run, "blas"), rc;
	double n;
	char label[48];

	st->n = (int)ep_param_int(run, "n");
	st->lda = 2 * st->n;
	st->variants = blas == 2 ? 3 : 1 << blas;
	rc = check_order(run, st->n);
	if (!rc)
		rc = ep_mem_check_fits(run, "n", ep_param_text(run, "n"),
				       ((uint64_t)st->lda + LIN_VARIANTS + 1) * st->n * sizeof(double));
	if (rc)
		return rc;
	st->a = malloc((size_t)st->lda * st->n * sizeof(double));
	st->b = malloc((size_t)(LIN_VARIANTS + 1) * st->n * sizeof(double));
	st->ipvt = malloc((size_t)st->n * sizeof(int));
	if (!st->a || !st->b || !st->ipvt)
		return -ENOMEM;
	snprintf(label, sizeof(label), "n=%d lda=%d blas=%s", st->n, st->lda,
		 ep_param_text(run, "blas"));
	ec.labels = label;
	ec.arg = st;
	/* The engine's rate is bytes_per_unit x 10^6 per second: 1000 x the
	 * operations of a unit as the "bytes" gives thousands per second. */
	n = st->n;
	ec.bytes_per_unit = 1000.0 * (2.0 * n * n * n / 3.0 + 2.0 * n * n) *
			    (st->variants == 3 ? 2 : 1);
	return ep_run_add_case(run, &ec);
}

/* The original's check of each variant's last solution. */
EP_UNTIMED static int lin_finish(struct ep_run *run, void *state)
{
	struct lin_state *st = state;
	double *b_ref = st->b + (size_t)st->n * LIN_VARIANTS, worst = 0.0;
	double norma = ep_linpack_matgen(st->a, st->lda, st->n, b_ref);

	if (st->info)
		return ep_run_fail(run, -EIO, "cpu.linpack: dgefa met a zero pivot: the "
				   "factorization is wrong");
	for (int v = 0; v < LIN_VARIANTS; v++) {
		double resid;

		if (!(st->variants & (1 << v)))
			continue;
		resid = ep_linpack_residual(st->a, st->lda, st->n, st->b + (size_t)st->n * v,
					    b_ref, norma);
		if (!(resid <= EP_LINPACK_RESID_MAX))
			return ep_run_fail(run, -EIO,
					   "cpu.linpack: residual check failed (%s BLAS): normalized "
					   "residual %.3g, over %.0f: the solution is wrong",
					   v ? "unrolled" : "rolled", resid, EP_LINPACK_RESID_MAX);
		worst = fmax(worst, resid);
	}
	return ep_run_add_value(run, LIN_METRIC_RESIDUAL, "", worst);
}

const struct ep_kernel ep_kernel_cpu_linpack = {
	.name = "cpu.linpack",
	.summary = "LINPACK 100 kflops, double precision (Dongarra; netlib linpackc)",
	EP_PARAMS(lin_params),
	EP_METRICS(lin_metrics),
	.setup = lin_setup,
	.finish = lin_finish,
	.teardown = lin_teardown,
	.state_bytes = sizeof(struct lin_state),
	.cpu_bound = 1,
};
