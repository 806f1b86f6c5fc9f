// SPDX-License-Identifier: MIT
/*
 * test_cpu_classic.c - cpu.whetstone and cpu.linpack: a Whetstone pass
 * gives the published module values and passes its check, a wrong value
 * fails it; LINPACK's factorization and solve give the known solution of a
 * small system and of the benchmark's own, its residual check fails a
 * corrupted factorization, a zero pivot is reported; both kernels run and
 * report figures of the right order (checked against a pass or a solve
 * timed here); bad parameters fail with messages that name them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "embperf.h"
#include "lib/core/clock.h"
#include "lib/cpu/classic.h"

static embperf_ctx *ctx;

static void setup(void)
{
	ctx = embperf_ctx_new();
	cr_assert(ctx);
}

static void teardown(void)
{
	embperf_ctx_free(ctx);
}

TestSuite(classic, .init = setup, .fini = teardown);

/* Relative agreement to the 5 significant digits the reference prints. */
static void expect_digits(double got, double published, const char *what)
{
	cr_expect(fabs(got - published) <= 5e-5 * fabs(published), "%s: %.6e, published %.4e",
		  what, got, published);
}

/*
 * The values netlib's whetstoned.f and whetstone.c (-DPRINTOUT) print for
 * LOOP = 10, the Fortran original's one million instructions (%12.4e).
 */
Test(classic, whetstone_pass_gives_the_published_values_for_loop_10)
{
	static const double m2[4] = { -6.8342e-02, -4.6264e-01, -7.2972e-01, -1.1240e+00 };
	static const double m3[4] = { -5.5336e-02, -4.4744e-01, -7.1097e-01, -1.1031e+00 };
	struct ep_whet_values v;

	memset(&v, 0xff, sizeof(v));
	ep_whetstone_pass(10, &v);
	for (int i = 0; i < 4; i++) {
		expect_digits(v.m2[i], m2[i], "module 2 E1");
		expect_digits(v.m3[i], m3[i], "module 3 E1");
	}
	cr_expect_eq(v.m4_j, 1);
	cr_expect_eq(v.m6_j, 1);
	cr_expect_eq(v.m6_k, 2);
	cr_expect(v.m6_e[0] == 6.0 && v.m6_e[1] == 6.0);
	expect_digits(v.m7_x, 4.9041e-01, "module 7 X");
	expect_digits(v.m7_y, 4.9039e-01, "module 7 Y");
	expect_digits(v.m8_z, 9.9994e-01, "module 8 Z");
	cr_expect(v.m9_e[0] == 3.0 && v.m9_e[1] == 2.0 && v.m9_e[2] == 3.0);
	expect_digits(v.m11_x, 8.3467e-01, "module 11 X");
}

/* LOOP = 1 as whetstone.c prints it: N4 = 345 is odd, so J ends at 0. */
Test(classic, whetstone_pass_of_loop_1)
{
	struct ep_whet_values v;
	char msg[256];

	ep_whetstone_pass(1, &v);
	cr_expect_eq(v.m4_j, 0);
	expect_digits(v.m2[3], -1.1324e+00, "module 2 E1(4)");
	expect_digits(v.m3[0], -6.5513e-02, "module 3 E1(1)");
	expect_digits(v.m7_x, 4.9904e-01, "module 7 X");
	expect_digits(v.m11_x, 7.5987e-01, "module 11 X");
	cr_assert_eq(ep_whetstone_check(&v, 1, msg, sizeof(msg)), 0, "%s", msg);
}

/* Each module's value, made wrong, fails the check, which names the module. */
Test(classic, whetstone_check_names_a_wrong_module)
{
	struct ep_whet_values good, v;
	char msg[256];
	struct {
		double *field;
		const char *module;
	} cases[] = {
		{ &v.m2[1], "module" }, { &v.m7_x, "module 7" }, { &v.m8_z, "module 8" },
		{ &v.m9_e[2], "module 9" }, { &v.m11_x, "module 11" }, { &v.m6_e[0], "module 6" },
	};

	ep_whetstone_pass(10, &good);
	cr_assert_eq(ep_whetstone_check(&good, 10, msg, sizeof(msg)), 0, "%s", msg);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = good;
		*cases[i].field = 3.0 * *cases[i].field + 5.0;
		cr_expect_eq(ep_whetstone_check(&v, 10, msg, sizeof(msg)), -EIO, "case %zu", i);
		cr_expect(strstr(msg, cases[i].module), "case %zu: %s", i, msg);
	}
	v = good;
	v.m4_j = 0;
	cr_expect_eq(ep_whetstone_check(&v, 10, msg, sizeof(msg)), -EIO);
	cr_expect(strstr(msg, "module 4"), "%s", msg);
	v = good;
	v.m3[0] = NAN;
	cr_expect_eq(ep_whetstone_check(&v, 10, msg, sizeof(msg)), -EIO, "NaN must fail");
	/* The same values are wrong for another loop count (module 4's J). */
	cr_expect_eq(ep_whetstone_check(&good, 1, msg, sizeof(msg)), -EIO);
}

/*
 * A 3 x 3 system that needs pivoting (a zero in the first pivot place),
 * column-major with leading dimension 4; x = (1, -2, 3).
 */
static void small_system(double a[12], double b[3])
{
	static const double cols[3][3] = { { 0, 2, 4 }, { 1, 1, -1 }, { 2, 3, 1 } };
	static const double x[3] = { 1, -2, 3 };

	for (int j = 0; j < 3; j++)
		for (int i = 0; i < 4; i++)
			a[4 * j + i] = i < 3 ? cols[j][i] : 99.0;
	for (int i = 0; i < 3; i++)
		b[i] = cols[0][i] * x[0] + cols[1][i] * x[1] + cols[2][i] * x[2];
}

Test(classic, linpack_solves_a_small_system_both_ways)
{
	static const double x[3] = { 1, -2, 3 };

	for (int unrolled = 0; unrolled < 2; unrolled++) {
		double a[12], b[3];
		int ipvt[3];

		small_system(a, b);
		cr_assert_eq(ep_linpack_dgefa(a, 4, 3, ipvt, unrolled), 0);
		cr_expect_eq(ipvt[0], 2, "column 0 pivots on its largest entry, row 2");
		ep_linpack_dgesl(a, 4, 3, ipvt, b, unrolled);
		for (int i = 0; i < 3; i++)
			cr_expect(fabs(b[i] - x[i]) < 1e-14, "unrolled=%d x[%d] = %.17g", unrolled,
				  i, b[i]);
		for (int j = 0; j < 3; j++)
			cr_expect_eq(a[4 * j + 3], 99.0, "row 3 lies outside the matrix");
	}
}

/*
 * matgen's generator: init = 3125 init mod 65536 from 1325, entries
 * (init - 32768) / 16384, column by column; b holds the row sums.
 */
Test(classic, linpack_matgen_follows_the_published_recurrence)
{
	enum { N = 10, LDA = 12 };
	double a[LDA * N], b[N], row0 = 0.0;

	ep_linpack_matgen(a, LDA, N, b);
	cr_expect_eq(a[0], (11857 - 32768.0) / 16384); /* 3125 x 1325 mod 65536 */
	cr_expect_eq(a[1], (25285 - 32768.0) / 16384); /* 3125 x 11857 mod 65536 */
	for (int j = 0; j < N; j++)
		row0 += a[LDA * j];
	cr_expect(fabs(b[0] - row0) < 1e-14, "b[0] %g, row sum %g", b[0], row0);
}

/* The benchmark's own system, n = 100: x = 1, residual as linpackc prints it. */
Test(classic, linpack_benchmark_system_has_the_known_solution)
{
	enum { N = 100, LDA = 200 };
	static double a[LDA * N];
	double b[N], x[N], norma, resid;
	int ipvt[N];

	for (int unrolled = 0; unrolled < 2; unrolled++) {
		ep_linpack_matgen(a, LDA, N, x);
		cr_assert_eq(ep_linpack_dgefa(a, LDA, N, ipvt, unrolled), 0);
		ep_linpack_dgesl(a, LDA, N, ipvt, x, unrolled);
		for (int i = 0; i < N; i++)
			cr_expect(fabs(x[i] - 1.0) < 1e-12, "x[%d] - 1 = %g", i, x[i] - 1.0);
		norma = ep_linpack_matgen(a, LDA, N, b);
		cr_expect(norma > 1.99 && norma < 2.0, "largest entry %g", norma);
		resid = ep_linpack_residual(a, LDA, N, x, b, norma);
		cr_log_info("unrolled=%d normalized residual %.3f (linpackc: 1.7)", unrolled, resid);
		cr_expect(resid > 0.1 && resid < 5.0, "residual %g", resid);
	}
}

/* One multiplier off by 1e-6 makes the solution wrong: the check must see it. */
Test(classic, linpack_residual_check_fails_a_corrupted_factorization)
{
	enum { N = 50, LDA = 60 };
	static double a[LDA * N];
	double b[N], x[N], norma;
	int ipvt[N];

	ep_linpack_matgen(a, LDA, N, x);
	cr_assert_eq(ep_linpack_dgefa(a, LDA, N, ipvt, 1), 0);
	a[LDA * 7 + 30] += 1e-6;
	ep_linpack_dgesl(a, LDA, N, ipvt, x, 1);
	norma = ep_linpack_matgen(a, LDA, N, b);
	cr_log_info("residual after a corrupted multiplier: %g",
		    ep_linpack_residual(a, LDA, N, x, b, norma));
	cr_expect(ep_linpack_residual(a, LDA, N, x, b, norma) > EP_LINPACK_RESID_MAX);
	x[3] = NAN;
	cr_expect(ep_linpack_residual(a, LDA, N, x, b, norma) > EP_LINPACK_RESID_MAX,
		  "a NaN must fail the check");
}

Test(classic, linpack_reports_a_zero_pivot)
{
	double a[12], b[3];
	int ipvt[3];

	small_system(a, b);
	for (int i = 0; i < 3; i++)
		a[4 * 2 + i] = 2.0 * a[i]; /* column 2 = 2 x column 0: eliminated exactly */
	cr_expect_eq(ep_linpack_dgefa(a, 4, 3, ipvt, 0), 3, "U(3,3) is zero");
}

/* The first result of @metric. */
static double value_of(const embperf_bench *b, const char *metric, const char **labels)
{
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (!strcmp(embperf_result_metric(r), metric)) {
			*labels = embperf_result_labels(r);
			return embperf_result_value(r);
		}
	}
	cr_assert_fail("no result %s", metric);
	return NAN;
}

/* The fastest sample of @metric: the one load disturbed least (a rate only falls under load). */
static double fastest_of(const embperf_bench *b, const char *metric)
{
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (!strcmp(embperf_result_metric(r), metric))
			return embperf_result_stat(r, EMBPERF_STAT_MAX);
	}
	cr_assert_fail("no result %s", metric);
	return NAN;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The shortest of 9 timings of @fn(@arg), in seconds: the undisturbed one. */
static double best_time_s(void (*fn)(void *), void *arg)
{
	double best = INFINITY;

	for (int i = 0; i < 9; i++) {
		double t0 = now_s();

		fn(arg);
		best = fmin(best, now_s() - t0);
	}
	return best;
}

static void whet_pass_100(void *arg)
{
	ep_whetstone_pass(100, arg);
}

/* One solve of LINPACK 100 with the unrolled loops, as the kernel's unit. */
static void linpack_solve_100(void *arg)
{
	static double a[200 * 100];
	int ipvt[100];

	ep_linpack_matgen(a, 200, 100, arg);
	ep_linpack_dgefa(a, 200, 100, ipvt, 1);
	ep_linpack_dgesl(a, 200, 100, ipvt, arg, 1);
}

static embperf_bench *quick(const char *kernel, const char *param, const char *value)
{
	embperf_bench *b = embperf_bench_new(ctx, kernel);

	cr_assert(b, "%s: %s", kernel, embperf_ctx_errmsg(ctx));
	cr_assert_eq(embperf_bench_set(b, param, value), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_set(b, "repetitions", "3"), 0);
	cr_assert_eq(embperf_bench_set(b, "sample_time", "2ms"), 0);
	return b;
}

/*
 * The figure is of the order of a pass timed here (MIPS = 0.1 loops /
 * seconds; the best of 9), judged on the kernel's fastest sample: at most
 * 10x above (load cannot make a rate higher), and not 300x below (load made
 * all three 2 ms samples 12x slower once; a unit mistake is 1000x).
 */
Test(classic, whetstone_runs_and_reports_mips)
{
	embperf_bench *b = quick("cpu.whetstone", "loops", "100");
	struct ep_whet_values v;
	const char *labels;
	double here, mips, fastest;

	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	mips = value_of(b, "mips", &labels);
	cr_expect_str_eq(labels, "loops=100");
	cr_expect_str_eq(embperf_result_unit(embperf_bench_result(b, 0)), "MIPS");
	here = 100 * 0.1 / best_time_s(whet_pass_100, &v);
	cr_log_info("cpu.whetstone loops=100: %.1f MIPS; a pass timed here: %.1f MIPS", mips, here);
	cr_expect(mips > 0.0 && mips < 1e7, "%g MIPS", mips);
	fastest = fastest_of(b, "mips");
	cr_expect(fastest > here / 300 && fastest < here * 10, "fastest sample %g MIPS, timed here %g",
		  fastest, here);
	embperf_bench_free(b);
}

Test(classic, linpack_runs_and_reports_kflops_and_residual)
{
	embperf_bench *b = quick("cpu.linpack", "blas", "unrolled");
	double bv[100], here, kflops, resid, fastest;
	const char *labels;

	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	kflops = value_of(b, "kflops", &labels);
	cr_expect_str_eq(labels, "n=100 lda=200 blas=unrolled");
	resid = value_of(b, "residual", &labels);
	cr_expect(resid > 0.1 && resid < 5.0, "residual %g", resid);
	here = (2e6 / 3 + 2e4) / 1000 / best_time_s(linpack_solve_100, bv);
	cr_log_info("cpu.linpack: %.0f kflops, residual %.2f; solves timed here: %.0f kflops",
		    kflops, resid, here);
	cr_expect(kflops > 0.0 && kflops < 1e8, "%g kflops", kflops);
	/* As for whetstone: the fastest sample, at most 10x above, not 300x below. */
	fastest = fastest_of(b, "kflops");
	cr_expect(fastest > here / 300 && fastest < here * 10, "fastest sample %g kflops, timed here %g",
		  fastest, here);
	embperf_bench_free(b);
}

/* blas=both is one case whose unit solves with each; n shows in the label. */
Test(classic, linpack_both_and_n)
{
	embperf_bench *b = quick("cpu.linpack", "n", "37");
	const char *labels;

	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_expect(value_of(b, "kflops", &labels) > 0.0);
	cr_expect_str_eq(labels, "n=37 lda=74 blas=both");
	embperf_bench_free(b);
}

/* @kernel with @param=@value fails with @err (when set or at run), naming @param and @value. */
static void expect_refused(const char *kernel, const char *param, const char *value, int err,
			   const char *also)
{
	embperf_bench *b = embperf_bench_new(ctx, kernel);
	int rc;

	cr_assert(b);
	rc = embperf_bench_set(b, param, value);
	if (!rc)
		rc = embperf_bench_run(b);
	cr_expect_eq(rc, err, "%s %s=%s: %d", kernel, param, value, rc);
	cr_expect(strstr(embperf_bench_errmsg(b), param), "%s", embperf_bench_errmsg(b));
	cr_expect(strstr(embperf_bench_errmsg(b), value), "%s", embperf_bench_errmsg(b));
	cr_expect(strstr(embperf_bench_errmsg(b), also), "'%s' not in: %s", also,
		  embperf_bench_errmsg(b));
	embperf_bench_free(b);
}

Test(classic, bad_parameters_are_named)
{
	expect_refused("cpu.whetstone", "loops", "0", -ERANGE, "1..1000000");
	expect_refused("cpu.whetstone", "loops", "2000000", -ERANGE, "1..1000000");
	expect_refused("cpu.linpack", "n", "9", -ERANGE, "10..2000");
	expect_refused("cpu.linpack", "n", "256", -EINVAL, "singular");
	expect_refused("cpu.linpack", "n", "128", -EINVAL, "e.g. 127 or 129");
	expect_refused("cpu.linpack", "n", "2000", -EINVAL, "singular");
	expect_refused("cpu.linpack", "blas", "fast", -EINVAL, "rolled|unrolled|both");
}
