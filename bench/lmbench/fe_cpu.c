// SPDX-License-Identifier: MIT
/*
 * fe_cpu.c - CPU front ends: lat_ops (cpu.ops), par_ops (cpu.par) and mhz
 * (cpu.mhz).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lmb.h"

/**
 * struct op_row - one line of lat_ops / par_ops.
 * @type:  cpu.ops "type" label.
 * @op:    cpu.ops "op" label.
 * @text:  what the original calls it.
 * @in_par: par_ops prints it too (par_ops has no bogomflops line).
 */
struct op_row {
	const char *type;
	const char *op;
	const char *text;
	int in_par;
};

/* In the originals' order, under their labels (lmbench3's lat_ops and par_ops). */
static const struct op_row op_rows[] = {
	{ "int", "bit", "integer bit", 1 },
	{ "int", "add", "integer add", 1 },
	{ "int", "mul", "integer mul", 1 },
	{ "int", "div", "integer div", 1 },
	{ "int", "mod", "integer mod", 1 },
	{ "int64", "bit", "int64 bit", 1 },
	{ "int64", "add", "int64 add", 1 },
	{ "int64", "mul", "int64 mul", 1 },
	{ "int64", "div", "int64 div", 1 },
	{ "int64", "mod", "int64 mod", 1 },
	{ "float", "add", "float add", 1 },
	{ "float", "mul", "float mul", 1 },
	{ "float", "div", "float div", 1 },
	{ "double", "add", "double add", 1 },
	{ "double", "mul", "double mul", 1 },
	{ "double", "div", "double div", 1 },
	{ "float", "bogo", "float bogomflops", 0 },
	{ "double", "bogo", "double bogomflops", 0 },
};

#define N_OP_ROWS (sizeof(op_rows) / sizeof(op_rows[0]))

/* Does label @key of @r read @want? */
static int label_is(const embperf_result *r, const char *key, const char *want)
{
	char text[32];

	return embperf_result_label(r, key, text, sizeof(text)) >= 0 && strcmp(text, want) == 0;
}

/* The result of @b for @row: metric, type and op all match. */
static const embperf_result *op_result(const embperf_bench *b, const char *metric,
				       const struct op_row *row)
{
	int n = embperf_bench_result_count(b);

	for (int i = 0; i < n; i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (strcmp(embperf_result_metric(r), metric) == 0 &&
		    label_is(r, "type", row->type) && label_is(r, "op", row->op))
			return r;
	}
	return NULL;
}

/* Run cpu.ops or cpu.par over every type and op. Return: an exit status. */
static int run_ops(struct lmb *m, const char *kernel, embperf_bench **out)
{
	embperf_bench *b;
	int status = lmb_open(m);

	if (status)
		return status;
	b = lmb_bench(m, kernel);
	if (!b)
		return LMB_EXIT_FAIL;
	if ((lmb_has_param(kernel, "type") && lmb_set(m, b, "type", "all") < 0) ||
	    (lmb_has_param(kernel, "op") && lmb_set(m, b, "op", "all") < 0))
		status = LMB_EXIT_FAIL;
	if (!status)
		status = lmb_run(m, b);
	if (status) {
		embperf_bench_free(b);
		return status;
	}
	*out = b;
	return 0;
}

/**
 * lmb_lat_ops() - lat_ops [-W US] [-N N] [-P N]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * The original times every operation in one copy whatever -P says; so does
 * this one.
 *
 * Return: the exit status.
 */
int lmb_lat_ops(struct lmb *m, int argc, char **argv)
{
	embperf_bench *b = NULL;
	int c, status, printed = 0;

	m->synopsis = "[-W <warmup>] [-N <repetitions>] [-P <parallel>] \n";
	while ((c = lmb_getopt(m, argc, argv, "W:N:P:")) != -1)
		if (lmb_engine_option(m, c) != 1)
			return lmb_usage(m);
	status = run_ops(m, "cpu.ops", &b);
	if (status)
		return status;
	for (size_t i = 0; i < N_OP_ROWS; i++) {
		double ns = lmb_value(op_result(b, "latency", &op_rows[i]), "ns");

		/* As nano(): a row whose time is zero is not printed. */
		if (!(ns > 0))
			continue;
		fprintf(stderr, "%s: %.2f nanoseconds\n", op_rows[i].text, ns);
		printed++;
	}
	embperf_bench_free(b);
	return printed ? 0 : lmb_fail(m, "cpu.ops gave no latency");
}

/**
 * lmb_par_ops() - par_ops [-W US] [-N N]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_par_ops(struct lmb *m, int argc, char **argv)
{
	embperf_bench *b = NULL;
	int c, status, printed = 0;

	m->synopsis = "[-W <warmup>] [-N <repetitions>]\n";
	while ((c = lmb_getopt(m, argc, argv, "W:N:")) != -1)
		if (lmb_engine_option(m, c) != 1)
			return lmb_usage(m);
	status = run_ops(m, "cpu.par", &b);
	if (status)
		return status;
	for (size_t i = 0; i < N_OP_ROWS; i++) {
		double par;

		if (!op_rows[i].in_par)
			continue;
		par = lmb_value(op_result(b, "parallelism", &op_rows[i]), "");
		if (!(par > 0))
			continue;
		fprintf(stderr, "%s parallelism: %.2f\n", op_rows[i].text, par);
		printed++;
	}
	embperf_bench_free(b);
	return printed ? 0 : lmb_fail(m, "cpu.par gave no parallelism");
}

/* mhz's nine expressions as its -d table names them (cpu.mhz loops=lmbench,
 * loop=mhz1..mhz9, runs them). */
static const char *const mhz_expressions[] = {
	"p=(TYPE**)*p;", "a^=a+a;",    "a^=a+a+a;",    "a>>=b;",           "a>>=a+a;",
	"a^=a<<b;",      "a^=a+b;",    "a+=(a+b)&07;", "a^=n;b^=a;a|=b;",
};

/* mhz keeps TRIES (11) timings a loop and puts ", " after all but the 11th. */
#define MHZ_TRIES 11
#define MHZ_TRIES_TEXT "11"

static int cmp_desc(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a < b) - (a > b);
}

/*
 * One loop of the -d table: "{ N, {" and a row per sample, slowest first
 * (mhz sorts its timings so), each "{ /+ u/(100 n) +/ u, n}" with u the
 * sample's microseconds and n its expressions (units per sample x 100).
 */
static void mhz_print_loop(const embperf_result *r, const char *name, int last)
{
	double samples[64], units = 0, expressions;
	int n = embperf_result_sample_count(r);

	if (n > (int)(sizeof(samples) / sizeof(samples[0])))
		n = (int)(sizeof(samples) / sizeof(samples[0]));
	for (int i = 0; i < n; i++)
		samples[i] = embperf_result_sample(r, i);
	qsort(samples, (size_t)n, sizeof(samples[0]), cmp_desc);
	if (embperf_result_counter(r, "units", &units) != 0 || n == 0)
		units = 0;
	expressions = n ? 100.0 * floor(units / n + 0.5) : 0;
	printf("\t/* %s */ { %d, {", name, n);
	for (int j = 0; j < n; j++) {
		double u = floor(samples[j] * expressions / 1000.0 + 0.5);

		printf("\n\t\t{ /* %f */ %lu, %lu}", expressions > 0 ? u / (100.0 * expressions) : 0.0,
		       (unsigned long)u, (unsigned long)expressions);
		if (j < MHZ_TRIES - 1)
			printf(", ");
	}
	printf(last ? "}}\n" : "}},\n");
}

/*
 * mhz -d: the timings behind the clock, as mhz prints them: a comment of
 * CPU name, uname, email and speed placeholders ("CPU", "uname", "email",
 * -1), the clock in MHz (-1 when none), the timing interval in us (the
 * engine's sample_time), the loop overhead (0: mhz sets LOOP_O=0.0) and
 * the timer overhead (0: the engine's samples are far above it), then one
 * C initialiser per loop.
 */
static void mhz_print_data(const embperf_bench *b, double mhz)
{
	char text[64];
	double enough_us = 0;

	if (embperf_bench_get(b, "sample_time", text, sizeof(text)) > 0)
		enough_us = lmb_duration_us(text);
	printf("/* \"%s\", \"%s\", \"%s\", %d, %.0f, %d, %f, %f */\n", "CPU", "uname", "email", -1,
	       mhz, (int)enough_us, 0.0, 0.0);
	printf("result_t* data[] = { \n");
	for (int i = 0; i < (int)(sizeof(mhz_expressions) / sizeof(mhz_expressions[0])); i++) {
		char loop[8];
		const embperf_result *r;

		snprintf(loop, sizeof(loop), "mhz%d", i + 1);
		r = lmb_result(b, "expression_time", "loop", loop);
		if (r)
			mhz_print_loop(r, mhz_expressions[i], i == 8);
		else
			printf("\t/* %s */ { 0, {%s", mhz_expressions[i], i == 8 ? "}}\n" : "}},\n");
	}
	printf("};\n");
}

/**
 * lmb_mhz() - mhz [-d] [-c]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Prints on stdout "N MHz, X nanosec clock", or with -c the clock period
 * alone. -d first prints the original's table of timings (mhz_print_data());
 * its loops are the original's nine (cpu.mhz loops=lmbench), so the clock
 * printed then is the one those loops give.
 *
 * Return: the exit status.
 */
int lmb_mhz(struct lmb *m, int argc, char **argv)
{
	embperf_bench *b;
	int c, err, status, period_only = 0, data = 0;
	double mhz;
	long whole_mhz;

	m->synopsis = "[-d] [-c]\n";
	while ((c = lmb_getopt(m, argc, argv, "cd")) != -1) {
		if (c == 'c')
			period_only = 1;
		else if (c == 'd')
			data = 1;
		else
			return lmb_usage(m);
	}
	status = lmb_open(m);
	if (status)
		return status;
	b = lmb_bench(m, "cpu.mhz");
	if (!b)
		return LMB_EXIT_FAIL;
	/* -d's table has mhz's TRIES rows a loop (cpu.mhz takes more by default). */
	if (data && (lmb_set(m, b, "loops", "lmbench") < 0 ||
		     lmb_set(m, b, "repetitions", MHZ_TRIES_TEXT) < 0)) {
		embperf_bench_free(b);
		return LMB_EXIT_FAIL;
	}
	/* cpu.mhz fails with -EAGAIN where mhz cannot settle on a clock; mhz
	 * then prints only "-1 System too busy" (stdout) and exits 1, so the
	 * library's explanation is not printed for that case. */
	err = embperf_bench_run(b);
	if (err == -EAGAIN && !embperf_ctx_is_cancelled(m->ctx))
		status = LMB_EXIT_FAIL;
	else
		status = lmb_run_status(m, b, err);
	mhz = status ? NAN : lmb_value(lmb_result(b, "mhz", NULL, NULL), "");
	if (data && status != LMB_EXIT_CANCELLED)
		mhz_print_data(b, status || !(mhz >= 0.5) ? -1.0 : (double)lround(mhz));
	embperf_bench_free(b);
	if (status == LMB_EXIT_CANCELLED)
		return status;
	if (status || !(mhz >= 0.5)) {
		/* The original's answer when it cannot settle on a clock. */
		printf("-1 System too busy\n");
		return LMB_EXIT_FAIL;
	}
	/* The original works in whole MHz. */
	whole_mhz = lround(mhz);
	if (period_only)
		printf("%.4f\n", 1000.0 / (double)whole_mhz);
	else
		printf("%ld MHz, %.4f nanosec clock\n", whole_mhz, 1000.0 / (double)whole_mhz);
	return 0;
}
