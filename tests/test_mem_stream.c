// SPDX-License-Identifier: MIT
/*
 * test_mem_stream.c - mem.stream: the STREAM validation catches a corrupted
 * array and passes a correct one (called directly), a threaded run gives the
 * four metrics and validates (STREAM's loops and STREAM2's), the defaults
 * follow STREAM (best rate, first run excluded), and bad parameters fail
 * with messages that name them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/ctx.h"
#include "lib/core/sysinfo.h"
#include "lib/mem/stream.h"

#define N_ELEMENTS 1000

static double a[N_ELEMENTS], b_arr[N_ELEMENTS], c[N_ELEMENTS];

/* Arrays as STREAM leaves them after @rounds rounds of its four kernels. */
static void fill_after_rounds(struct ep_stream_expect *e, int rounds)
{
	ep_stream_expect_init(e);
	for (int k = 0; k < rounds; k++) {
		e->c = e->a;
		e->b = 3.0 * e->c;
		e->c = e->a + e->b;
		e->a = e->b + 3.0 * e->c;
	}
	for (int j = 0; j < N_ELEMENTS; j++) {
		a[j] = e->a;
		b_arr[j] = e->b;
		c[j] = e->c;
	}
}

Test(stream_validate, passes_correct_arrays)
{
	struct ep_stream_expect e;
	char msg[256] = "";

	fill_after_rounds(&e, 10);
	cr_assert_eq(ep_stream_validate(a, b_arr, c, N_ELEMENTS, &e, msg, sizeof(msg)), 0, "%s",
		     msg);
}

Test(stream_validate, catches_one_corrupted_element)
{
	struct ep_stream_expect e;
	char msg[256] = "";

	fill_after_rounds(&e, 10);
	c[N_ELEMENTS / 2] *= 1.5; /* one element off by half its value */
	cr_assert_eq(ep_stream_validate(a, b_arr, c, N_ELEMENTS, &e, msg, sizeof(msg)), -EIO);
	cr_assert(strstr(msg, "array c"), "%s", msg);
	cr_assert(strstr(msg, "1 of 1000"), "%s", msg);
}

Test(stream_validate, catches_a_stale_array)
{
	struct ep_stream_expect e, stale;
	char msg[256] = "";

	/* Arrays of one round fewer than the expected values: a lost pass. */
	fill_after_rounds(&stale, 2);
	ep_stream_expect_init(&e);
	for (int k = 0; k < 3; k++) {
		e.c = e.a;
		e.b = 3.0 * e.c;
		e.c = e.a + e.b;
		e.a = e.b + 3.0 * e.c;
	}
	cr_assert_eq(ep_stream_validate(a, b_arr, c, N_ELEMENTS, &e, msg, sizeof(msg)), -EIO);
	cr_assert(strstr(msg, "array a"), "%s", msg);
}

static embperf_ctx *ctx;
static embperf_bench *bench;

static void setup(void)
{
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	bench = embperf_bench_new(ctx, "mem.stream");
	cr_assert(bench, "mem.stream missing: %s", embperf_ctx_errmsg(ctx));
	cr_assert_eq(embperf_bench_set(bench, "repetitions", "3"), 0);
	cr_assert_eq(embperf_bench_set(bench, "sample_time", "1ms"), 0);
}

static void teardown(void)
{
	embperf_bench_free(bench);
	embperf_ctx_free(ctx);
}

TestSuite(mem_stream, .init = setup, .fini = teardown);

Test(mem_stream, threaded_run_reports_four_validated_rates)
{
	static const char *const names[] = { "copy", "scale", "add", "triad" };

	cr_assert_eq(embperf_bench_set(bench, "size", "1M"), 0, "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(embperf_bench_set(bench, "threads", "2"), 0);
	/* 0 when the run validated: finish() fails it otherwise. */
	cr_assert_eq(embperf_bench_run(bench), 0, "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(embperf_bench_result_count(bench), 4);
	for (int i = 0; i < 4; i++) {
		const embperf_result *r = embperf_bench_result(bench, i);

		cr_assert_str_eq(embperf_result_metric(r), names[i]);
		cr_assert_str_eq(embperf_result_labels(r), "size=1000000 threads=2");
		cr_assert_str_eq(embperf_result_primary(r), "max");
		cr_assert_eq(embperf_result_sample_count(r), 3);
		cr_assert(embperf_result_value(r) > 0.0 && embperf_result_value(r) < 1e6, "%s: %g",
			  names[i], embperf_result_value(r));
	}
}

Test(mem_stream, stream2_reports_fill_copy_daxpy_sum_validated)
{
	static const char *const names[] = { "fill", "copy", "daxpy", "sum" };

	cr_assert_eq(embperf_bench_set(bench, "size", "100000"), 0);
	cr_assert_eq(embperf_bench_set(bench, "threads", "2"), 0);
	cr_assert_eq(embperf_bench_set(bench, "loops", "stream2"), 0, "%s",
		     embperf_bench_errmsg(bench));
	/* 0 when the arrays and the threads' sums validated. */
	cr_assert_eq(embperf_bench_run(bench), 0, "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(embperf_bench_result_count(bench), 4);
	for (int i = 0; i < 4; i++) {
		const embperf_result *r = embperf_bench_result(bench, i);

		cr_assert_str_eq(embperf_result_metric(r), names[i]);
		cr_assert_str_eq(embperf_result_labels(r), "size=100000 threads=2");
		cr_assert(embperf_result_value(r) > 0.0 && embperf_result_value(r) < 1e7, "%s: %g",
			  names[i], embperf_result_value(r));
	}
}

/* The engine's debug lines that count a case's untimed before() calls. */
struct untimed {
	int cases;
	unsigned long long calls;
};

static void count_untimed(void *user_data, int level, const char *message)
{
	struct untimed *u = user_data;
	unsigned long long calls;
	const char *at = strstr(message, "]: ");

	(void)level;
	/* sscanf() counts the number even where the words after it differ */
	if (at && strstr(message, "untimed before() calls") &&
	    sscanf(at + 3, "%llu untimed before() calls", &calls) == 1) {
		u->cases++;
		u->calls += calls;
	}
}

/*
 * order=stream (the default) runs, untimed, the pass STREAM's loop runs
 * before each timed one: every case's samples (3), warm-up (1) and
 * calibration (at least one timing) each follow one, and the arrays still
 * validate with those passes counted in. order=kernel runs none and says
 * so in the labels.
 */
Test(mem_stream, order_stream_runs_the_previous_pass_before_each_timed_one)
{
	struct untimed u = { 0 };

	embperf_ctx_set_log_fn(ctx, count_untimed, &u, EMBPERF_LOG_DEBUG);
	cr_assert_eq(embperf_bench_set(bench, "size", "100000"), 0);
	cr_assert_eq(embperf_bench_set(bench, "counters", "0"), 0);
	cr_assert_eq(embperf_bench_run(bench), 0, "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(u.cases, 4, "%d cases logged untimed passes", u.cases);
	cr_assert_geq(u.calls, 4 * (3 + 1 + 1), "%llu untimed passes", u.calls);
	for (int i = 0; i < 4; i++) {
		const embperf_result *r = embperf_bench_result(bench, i);
		double units = 0.0;

		/* one pass a sample, as STREAM times them, though a pass of
		 * 2 x 800 KB lasts far less than the 1 ms sample time */
		cr_assert_eq(embperf_result_counter(r, "units", &units), 0);
		cr_assert_eq(units, (double)embperf_result_sample_count(r), "%s: %g units, %d samples",
			     embperf_result_metric(r), units, embperf_result_sample_count(r));
	}
	cr_assert_str_eq(embperf_result_labels(embperf_bench_result(bench, 0)),
			 "size=100000 threads=1");

	u = (struct untimed){ 0 };
	cr_assert_eq(embperf_bench_set(bench, "loops", "stream2"), 0);
	cr_assert_eq(embperf_bench_run(bench), 0, "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(u.cases, 4, "stream2: %d cases logged untimed passes", u.cases);

	u = (struct untimed){ 0 };
	cr_assert_eq(embperf_bench_set(bench, "order", "kernel"), 0);
	cr_assert_eq(embperf_bench_run(bench), 0, "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(u.cases, 0, "order=kernel: %d cases logged untimed passes", u.cases);
	cr_assert_str_eq(embperf_result_labels(embperf_bench_result(bench, 0)),
			 "size=100000 threads=1 order=kernel");
}

Test(mem_stream, order_other_than_stream_or_kernel_is_refused)
{
	cr_assert_eq(embperf_bench_set(bench, "order", "grouped"), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(bench), "order"), "%s", embperf_bench_errmsg(bench));
	cr_assert(strstr(embperf_bench_errmsg(bench), "grouped"), "%s",
		  embperf_bench_errmsg(bench));
	cr_assert(strstr(embperf_bench_errmsg(bench), "stream|kernel"), "%s",
		  embperf_bench_errmsg(bench));
}

Test(mem_stream, loops_other_than_stream_or_stream2_are_refused)
{
	cr_assert_eq(embperf_bench_set(bench, "loops", "stream3"), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(bench), "loops"), "%s", embperf_bench_errmsg(bench));
	cr_assert(strstr(embperf_bench_errmsg(bench), "stream2"), "%s",
		  embperf_bench_errmsg(bench));
}

/* Default of an engine parameter as mem.stream describes it. */
static void assert_default(const char *name, const char *want)
{
	char field[64];
	int n = embperf_kernel_param_count("mem.stream");

	for (int i = 0; i < n; i++) {
		embperf_kernel_param_info("mem.stream", i, EMBPERF_INFO_NAME, field, sizeof(field));
		if (strcmp(field, name))
			continue;
		embperf_kernel_param_info("mem.stream", i, EMBPERF_INFO_DEFAULT, field, sizeof(field));
		cr_assert_str_eq(field, want, "default of %s", name);
		return;
	}
	cr_assert_fail("mem.stream has no parameter %s", name);
}

Test(mem_stream, defaults_follow_stream)
{
	/* NTIMES = 10: one discarded warm-up run, then nine; the best is reported. */
	assert_default("warmup", "1");
	assert_default("repetitions", "9");
	assert_default("threads", "1");
}

Test(mem_stream, default_size_is_four_times_the_last_level_cache)
{
	uint64_t llc = ep_sysinfo_u64(ctx, "cache_l3_bytes");
	char want[64];

	if (!llc)
		cr_skip_test("this machine lacks an L3 size in sysfs");
	if (ep_mem_available_bytes() && ep_mem_available_bytes() < 4 * 3 * 4 * llc)
		cr_skip_test("this machine lacks the memory for 3 arrays of 4 x L3");
	cr_assert_eq(embperf_bench_set(bench, "repetitions", "1"), 0);
	cr_assert_eq(embperf_bench_set(bench, "warmup", "0"), 0);
	cr_assert_eq(embperf_bench_run(bench), 0, "%s", embperf_bench_errmsg(bench));
	snprintf(want, sizeof(want), "size=%llu threads=1",
		 (unsigned long long)(4 * llc / sizeof(double)));
	cr_assert_str_eq(embperf_result_labels(embperf_bench_result(bench, 0)), want);
}

Test(mem_stream, zero_threads_names_threads)
{
	cr_assert_eq(embperf_bench_set(bench, "threads", "0"), -ERANGE);
	cr_assert(strstr(embperf_bench_errmsg(bench), "threads"), "%s", embperf_bench_errmsg(bench));
}

Test(mem_stream, size_larger_than_memory_is_enomem)
{
	if (!ep_mem_available_bytes() || ep_mem_available_bytes() > ((uint64_t)1 << 40))
		cr_skip_test("this machine lacks a MemAvailable below 1 TiB");
	/* 100G elements: 2.4 TB in three arrays. */
	cr_assert_eq(embperf_bench_set(bench, "size", "100G"), 0, "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(embperf_bench_run(bench), -ENOMEM);
	cr_assert(strstr(embperf_bench_errmsg(bench), "'size'"), "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(embperf_bench_result_count(bench), 0);
}
