// SPDX-License-Identifier: MIT
/*
 * test_engine.c - the engine's calibrated cases: calibration, overhead
 * subtraction, warm-up and its trend rule, the stop rule, budget, max_time,
 * cancel, errors and teardown.
 *
 * The logic runs on a simulated clock (tests/simclock.h): a synthetic body
 * (tests/synth.c) "works" exactly its units' time and the engine's reads
 * cost nothing, so every figure below is exact and the same on every run
 * and machine, and nothing sleeps. Two tests stay on the real clock, for
 * what only a real run records (CPU load and perf counters; a cancel from
 * another thread): they assert what no load can break and report their
 * figures in the TAP output.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proc_state.h"
#include "synth.h"

static embperf_ctx *ctx;
static embperf_bench *b;
static struct tp_sim sim;

static void setup(void)
{
	memset(&synth_cfg, 0, sizeof(synth_cfg));
	synth_cfg.unit_ns = 1000;
	synth_cfg.sim = &sim;
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	tp_sim_install(&sim, ctx);
	b = ep_bench_new_kernel(ctx, &synth_kernel);
	cr_assert(b);
	tp_set(b, "sample_time", "2ms");
}

static void teardown(void)
{
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

TestSuite(engine, .init = setup, .fini = teardown);

static double counter(const embperf_result *r, const char *name)
{
	double v = NAN;

	embperf_result_counter(r, name, &v);
	return v;
}

static double units_per_sample(const embperf_result *r)
{
	return counter(r, "units") / embperf_result_sample_count(r);
}

static const embperf_result *run_ok(void)
{
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	return embperf_bench_result(b, 0);
}

/*
 * Calibration grows the units from one, at most 10x a step from tiny
 * timings, to 2800 units (2.8 ms, 40 % past the target), then scales back
 * to the 2 ms target: 2000 units of 1000 ns, every sample exactly 1000 ns.
 */
Test(engine, calibration_fills_the_sample_time)
{
	const embperf_result *r;

	tp_set(b, "spread", "0");
	tp_set(b, "repetitions", "5");
	tp_set(b, "warmup", "0");
	r = run_ok();
	cr_assert_eq(embperf_bench_result_count(b), 1);
	cr_assert_eq(embperf_result_sample_count(r), 5);
	cr_assert_eq(units_per_sample(r), 2000.0);
	cr_assert_eq(embperf_result_stat(r, EMBPERF_STAT_MIN), 1000.0);
	cr_assert_eq(embperf_result_stat(r, EMBPERF_STAT_MAX), 1000.0);
	/* 1, 10, 100, 1000 and 2800 units, then 5 samples of 2000. */
	cr_assert_eq(synth_cfg.calls, 5 + 5 + 1, "calls %d (counters: one more sample)",
		     synth_cfg.calls);
	cr_assert_str_eq(embperf_result_labels(r), "case=0");
	cr_assert_str_eq(embperf_result_kernel(r), "test.synth");
	cr_assert(strstr(embperf_result_params(r), "repetitions=5"), "%s", embperf_result_params(r));
}

/* The target is at least 1000 clock ticks: a coarse clock lengthens samples. */
Test(engine, a_coarse_clock_lengthens_the_sample_to_1000_ticks)
{
	struct ep_clock_ops coarse = *sim.clock.ops;

	coarse.resolution_ns = 10000; /* 1000 ticks: 10 ms, over the 2 ms asked */
	sim.clock.ops = &coarse;
	ep_ctx_set_clock(ctx, &sim.clock);
	tp_set(b, "repetitions", "3");
	cr_assert_eq(units_per_sample(run_ok()), 10000.0);
}

/* A first calibration timing stretched past the sample time (a preemption,
 * a partner not yet scheduled) is timed again: samples stay many units long
 * instead of one unit each. */
Test(engine, a_slow_first_calibration_timing_is_retimed)
{
	synth_cfg.unit_ns = 50000;
	synth_cfg.slow_call = 1; /* 5 ms, over the 2 ms target */
	tp_set(b, "spread", "0");
	tp_set(b, "repetitions", "5");
	/* Retimed at 50 us: 1, 10, 56 units (2.8 ms), scaled back to 40. */
	cr_assert_eq(units_per_sample(run_ok()), 40.0);
}

/* When the retimed first timing is slow too, calibration settles on one
 * unit; the warm-up sample, 40x shorter than the target, scales it up. */
Test(engine, a_warmup_far_below_the_sample_time_rescales_the_units)
{
	synth_cfg.unit_ns = 50000;
	synth_cfg.slow_call = 1;
	synth_cfg.slow_calls = 2; /* the first timing and its retime: 5 ms each */
	tp_set(b, "spread", "0");
	tp_set(b, "repetitions", "5");
	cr_assert_eq(units_per_sample(run_ok()), 40.0);

	/* Without a warm-up there is nothing to rescale from: one unit. */
	synth_cfg.calls = 0;
	tp_set(b, "warmup", "0");
	cr_assert_eq(units_per_sample(run_ok()), 1.0);
}

/* A case's min_units lengthens samples past the sample time, up to 20 of them. */
Test(engine, min_units_lengthens_samples_up_to_20_sample_times)
{
	tp_set(b, "sample_time", "1ms");
	tp_set(b, "spread", "0");
	tp_set(b, "repetitions", "3");
	synth_cfg.min_units = 2000; /* 2 ms of 1 us units: within 20 ms */
	cr_assert_eq(units_per_sample(run_ok()), 2000.0);

	/* 1 s of units: cut to 20 sample times, 20 ms. */
	synth_cfg.min_units = 1000000;
	cr_assert_eq(units_per_sample(run_ok()), 20000.0);
}

/* A case's max_units caps the units per sample, calibration included. */
Test(engine, max_units_caps_the_samples)
{
	synth_cfg.max_units = 7;
	tp_set(b, "repetitions", "3");
	cr_assert_eq(units_per_sample(run_ok()), 7.0);
}

Test(engine, overhead_is_subtracted)
{
	const embperf_result *r;

	synth_cfg.overhead_ns = 400;
	tp_set(b, "repetitions", "5");
	r = run_ok();
	cr_assert_eq(embperf_result_stat(r, EMBPERF_STAT_MIN), 600.0);
	cr_assert_eq(embperf_result_value(r), 600.0);
	cr_assert_eq(counter(r, "overhead_ns"), 400.0, "the result says what it subtracted");

	/* A case without an overhead body subtracts nothing and says so. */
	synth_cfg.overhead_ns = 0;
	r = run_ok();
	cr_assert_eq(embperf_result_value(r), 1000.0);
	cr_assert_eq(embperf_result_counter(r, "overhead_ns", &(double){ 0 }), -EOPNOTSUPP);
}

/*
 * A case's before() runs untimed ahead of every timed run of the body:
 * 5000 ns a unit of it leave the 1000 ns samples as they are, and no body
 * call goes without one, counters' pass included.
 */
Test(engine, before_runs_untimed_ahead_of_every_body_call)
{
	const embperf_result *r;

	synth_cfg.before_ns = 5000;
	tp_set(b, "repetitions", "5");
	tp_set(b, "counters", "1");
	r = run_ok();
	cr_assert_eq(embperf_result_value(r), 1000.0, "before()'s time is not in the samples");
	cr_assert_eq(embperf_result_stat(r, EMBPERF_STAT_MAX), 1000.0);
	cr_assert_gt(synth_cfg.calls, 5);
	cr_assert_eq(synth_cfg.before_calls, synth_cfg.calls, "%d before() calls for %d body calls",
		     synth_cfg.before_calls, synth_cfg.calls);
	cr_assert_eq(synth_cfg.unpaired, 0, "%d body calls without a before() first",
		     synth_cfg.unpaired);
}

/* An overhead with a credited part charges the body the difference: lat_sig
 * prot's catch - send. */
Test(engine, overhead_credit_is_taken_off_the_overhead)
{
	const embperf_result *r;

	synth_cfg.overhead_ns = 700;
	synth_cfg.credit_ns = 400;
	tp_set(b, "repetitions", "5");
	r = run_ok();
	cr_assert_eq(embperf_result_value(r), 1000.0 - (700.0 - 400.0));
	cr_assert_eq(counter(r, "overhead_ns"), 300.0);
}

/* An overhead above the body's time leaves a tiny positive time, never 0 or less. */
Test(engine, an_overhead_above_the_body_gives_a_floor_not_a_negative_time)
{
	synth_cfg.overhead_ns = 1500;
	tp_set(b, "repetitions", "3");
	cr_assert(embperf_result_value(run_ok()) > 0.0);
}

Test(engine, warmup_and_repetitions_count_calls)
{
	/* With one unit per sample, calibration is one call. */
	synth_cfg.max_units = 1;
	tp_set(b, "warmup", "3");
	tp_set(b, "repetitions", "4");
	tp_set(b, "spread", "0");
	tp_set(b, "counters", "0");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 4);
	cr_assert_eq(synth_cfg.calls, 1 + 3 + 4);
	cr_assert(synth_cfg.finished && synth_cfg.torn_down);

	/* Counters take one more sample, untimed, after the timed ones. */
	synth_cfg.calls = 0;
	tp_set(b, "counters", "1");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 4);
	cr_assert_eq(synth_cfg.calls, 1 + 3 + 4 + 1);
}

/*
 * A body that speeds up over its first 60 calls (3x slower at first, as
 * freshly mapped memory is): the engine sees the samples trend and keeps
 * warming up, so the kept samples are the steady ones.
 */
Test(engine, samples_that_still_trend_become_warmup)
{
	const embperf_result *r;

	synth_cfg.unit_ns = 4000;
	synth_cfg.max_units = 1; /* one call per sample: the ramp is in calls */
	synth_cfg.ramp_calls = 60;
	synth_cfg.ramp_factor = 3.0;
	tp_set(b, "spread", "0");
	tp_set(b, "counters", "0");

	/* Without the extra warm-up the samples are taken inside the ramp. */
	tp_set(b, "warmup_max", "0");
	r = run_ok();
	cr_assert_eq(embperf_result_sample_count(r), 11);
	cr_assert_eq(synth_cfg.calls, 1 + 1 + 11);
	cr_assert_gt(embperf_result_stat(r, EMBPERF_STAT_MIN), 1.5 * 4000.0, "min %g",
		     embperf_result_stat(r, EMBPERF_STAT_MIN));

	/* With it the engine warms up until the samples stop trending. */
	synth_cfg.calls = 0;
	tp_set(b, "warmup_max", "100");
	r = run_ok();
	cr_assert_eq(embperf_result_sample_count(r), 11);
	cr_assert_gt(synth_cfg.calls, 1 + 1 + 11, "calls %d: no extra warm-up", synth_cfg.calls);
	cr_assert_leq(synth_cfg.calls, 1 + 1 + 11 + 100, "warmup_max bounds it");
	cr_assert_lt(embperf_result_stat(r, EMBPERF_STAT_MEDIAN), 1.05 * 4000.0, "median %g",
		     embperf_result_stat(r, EMBPERF_STAT_MEDIAN));
	cr_assert_lt(embperf_result_stat(r, EMBPERF_STAT_MAX), 1.2 * 4000.0,
		     "max %g: a kept sample from the steep part of the ramp",
		     embperf_result_stat(r, EMBPERF_STAT_MAX));
}

/* A steady body takes no extra warm-up; the cap bounds a trend that never ends. */
Test(engine, steady_samples_take_no_extra_warmup)
{
	synth_cfg.unit_ns = 500000;
	synth_cfg.max_units = 1;
	tp_set(b, "spread", "0");
	tp_set(b, "counters", "0");
	run_ok();
	cr_assert_eq(synth_cfg.calls, 1 + 1 + 11, "calibration, warm-up and 11 samples");

	/* A ramp longer than the cap: 20 samples more warm-up, no more. */
	synth_cfg.ramp_factor = 3.0;
	synth_cfg.ramp_calls = 40; /* calls 14 to 33 are still in it */
	synth_cfg.calls = 0;
	tp_set(b, "warmup_max", "20");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 11);
	cr_assert_eq(synth_cfg.calls, 1 + 1 + 11 + 20, "calls %d", synth_cfg.calls);
}

/* The stop rule: identical samples stop at min_repetitions. */
Test(engine, spread_stops_early)
{
	const embperf_result *r;

	tp_set(b, "repetitions", "50");
	tp_set(b, "min_repetitions", "3");
	tp_set(b, "spread", "0.01");
	r = run_ok();
	cr_assert_eq(embperf_result_sample_count(r), 3);
	cr_assert_eq(embperf_result_truncated(r), 0);

	/* spread 0 takes every repetition. */
	tp_set(b, "spread", "0");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 50);
}

/* Samples that disagree (1.0 to 1.4 times the unit, in turn) do not stop early. */
Test(engine, samples_that_disagree_take_every_repetition)
{
	synth_cfg.max_units = 1;
	synth_cfg.jitter = 1;
	tp_set(b, "repetitions", "40");
	tp_set(b, "min_repetitions", "3");
	tp_set(b, "spread", "0.05");
	tp_set(b, "warmup_max", "0");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 40);
}

/*
 * The interval rule ('precision'): samples that agree stop as soon as the
 * median's 95 % interval exists (6 samples); samples that disagree (1.0 to
 * 1.4 times the unit in turn: the interval stays about 8 % wide) take
 * every repetition at a precision of 5 %, and stop at 25 %.
 */
Test(engine, the_median_interval_rule_takes_more_samples_when_they_disagree)
{
	synth_cfg.max_units = 1;
	tp_set(b, "spread", "0");
	tp_set(b, "warmup_max", "0");
	tp_set(b, "repetitions", "60");
	tp_set(b, "min_repetitions", "3");
	tp_set(b, "precision", "0.01");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 6, "identical samples");

	synth_cfg.jitter = 1;
	tp_set(b, "precision", "0.05");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 60, "disagreeing samples");
	tp_set(b, "precision", "0.25");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 6);
	tp_set(b, "precision", "0");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 60, "0: off");
}

/*
 * lmbench's convention (ep_lmbench_defaults): samples that agree stop at
 * lmbench's 11; samples that disagree (1.0 to 1.4 times the unit in turn)
 * take more, up to the cap of 101. A minimum or maximum kernel
 * (ep_lmbench_count_defaults) takes 11 either way; a count set with
 * tp_set_count() is exactly that count.
 */
Test(engine, lmbench_kernels_take_11_samples_that_agree_and_more_that_disagree)
{
	static struct ep_kernel median_kernel, count_kernel; /* the benches outlive this call */
	embperf_bench *count_b;

	median_kernel = synth_kernel;
	count_kernel = synth_kernel;
	median_kernel.engine_defaults = ep_lmbench_defaults;
	count_kernel.engine_defaults = ep_lmbench_count_defaults;
	embperf_bench_free(b);
	b = ep_bench_new_kernel(ctx, &median_kernel);
	count_b = ep_bench_new_kernel(ctx, &count_kernel);
	cr_assert(b && count_b);
	synth_cfg.max_units = 1;
	cr_assert_eq(embperf_result_sample_count(run_ok()), 11, "identical samples");
	cr_assert_eq(embperf_bench_run(count_b), 0);
	cr_assert_eq(embperf_result_sample_count(embperf_bench_result(count_b, 0)), 11);
	/* A count asked for is a count: the interval rule is off. */
	tp_set_count(b, "40");
	cr_assert_eq(embperf_result_sample_count(run_ok()), 40, "tp_set_count 40");
	embperf_bench_free(b); /* back to the kernel's defaults */
	b = ep_bench_new_kernel(ctx, &median_kernel);
	cr_assert(b);

	synth_cfg.jitter = 1;
	cr_assert_eq(embperf_result_sample_count(run_ok()), 101, "disagreeing samples");
	cr_assert_eq(embperf_bench_run(count_b), 0);
	cr_assert_eq(embperf_result_sample_count(embperf_bench_result(count_b, 0)), 11,
		     "a count is a count");
	embperf_bench_free(count_b);
}

/*
 * Samples precise enough to stop but still trending (a warm-up that fades
 * over 60 calls) are not kept: as when every repetition is taken, their
 * older half becomes warm-up first.
 */
Test(engine, precise_samples_that_still_trend_take_more_warmup)
{
	synth_cfg.max_units = 1;
	synth_cfg.ramp_calls = 60;
	synth_cfg.ramp_factor = 1.5;
	tp_set(b, "spread", "0");
	tp_set(b, "repetitions", "50");
	tp_set(b, "min_repetitions", "11");
	tp_set(b, "precision", "0.5"); /* the ramp's samples are within it */
	cr_assert_eq(embperf_result_sample_count(run_ok()), 11);
	cr_assert_gt(synth_cfg.calls, 1 + 1 + 11, "calls %d: stopped on a trend", synth_cfg.calls);
	cr_assert_lt(embperf_result_stat(run_ok(), EMBPERF_STAT_MEDIAN), 1.1 * 1000.0);
}

/* One sample stretched 100x (a preemption) must not keep the stop rule
 * from stopping: its spread is robust (median absolute deviation). */
Test(engine, one_outlier_does_not_defeat_the_stop_rule)
{
	const embperf_result *r;

	synth_cfg.max_units = 1; /* calibration: one call; warm-up: one */
	synth_cfg.slow_call = 1 + 1 + 2; /* the second sample */
	tp_set(b, "repetitions", "200");
	tp_set(b, "min_repetitions", "5");
	tp_set(b, "spread", "0.2");
	tp_set(b, "warmup_max", "0");
	r = run_ok();
	cr_assert_eq(embperf_result_sample_count(r), 5, "n %d", embperf_result_sample_count(r));
	cr_assert_eq(embperf_result_stat(r, EMBPERF_STAT_MAX), 100.0 * 1000.0,
		     "the outlier is among the samples");
	cr_assert_eq(embperf_result_value(r), 1000.0);
}

Test(engine, primary_statistic_and_rate_conversion)
{
	const embperf_result *r;

	synth_cfg.metric = 2; /* bandwidth: 1000 bytes per unit, primary max */
	tp_set(b, "repetitions", "5");
	r = run_ok();
	cr_assert_str_eq(embperf_result_unit(r), "MB/s");
	cr_assert_eq(embperf_result_higher_is_better(r), 1);
	/* 1000 bytes per 1000 ns: 10^9 bytes/s, 1000 MB/s of 10^6 bytes. */
	cr_assert_float_eq(embperf_result_value(r), 1000.0, 1e-9);
	cr_assert_float_eq(embperf_result_value(r), embperf_result_stat(r, EMBPERF_STAT_MAX), 0);

	synth_cfg.metric = 4; /* units per second */
	cr_assert_float_eq(embperf_result_value(run_ok()), 1e6, 1e-6);

	synth_cfg.metric = 1; /* primary min */
	r = run_ok();
	cr_assert_float_eq(embperf_result_value(r), embperf_result_stat(r, EMBPERF_STAT_MIN), 0);
}

Test(engine, derived_values_and_cases)
{
	synth_cfg.cases = 3;
	synth_cfg.derived = 42.5;
	tp_set(b, "repetitions", "3");
	run_ok();
	cr_assert_eq(embperf_bench_result_count(b), 4);
	cr_assert_str_eq(embperf_result_labels(embperf_bench_result(b, 2)), "case=2");
	cr_assert_str_eq(embperf_result_metric(embperf_bench_result(b, 3)), "derived");
	cr_assert_float_eq(embperf_result_value(embperf_bench_result(b, 3)), 42.5, 0);
	cr_assert_eq(embperf_result_sample_count(embperf_bench_result(b, 3)), 1);
}

/* Progress is reported after every sample, rising to 1 over the cases. */
static double progress_last;
static int progress_calls, progress_fell;

static void note_progress(void *user, const char *kernel, const char *what, double f)
{
	(void)user;
	(void)kernel;
	(void)what;
	progress_fell |= f < progress_last;
	progress_last = f;
	progress_calls++;
}

Test(engine, progress_rises_to_one_over_the_cases)
{
	synth_cfg.cases = 2;
	tp_set(b, "repetitions", "4");
	tp_set(b, "spread", "0");
	embperf_ctx_set_progress_fn(ctx, note_progress, NULL);
	run_ok();
	cr_assert_eq(progress_calls, 8, "one call per sample");
	cr_assert_eq(progress_fell, 0);
	cr_assert_float_eq(progress_last, 1.0, 1e-12);
}

/*
 * 300 ms of budget, 1 ms per sample: the run takes samples until the next
 * one would pass the budget, so it ends within one sample of it and never
 * past it, and keeps what it took, marked truncated.
 */
Test(engine, budget_cuts_the_run_short)
{
	const embperf_result *r;
	uint64_t start;

	synth_cfg.unit_ns = 1000000;
	synth_cfg.max_units = 1;
	tp_set(b, "repetitions", "100000");
	tp_set(b, "spread", "0");
	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 300000000), 0);
	start = tp_sim_now(&sim);
	cr_assert_eq(embperf_bench_run(b), -ETIME);
	cr_assert_eq(embperf_bench_result_count(b), 1, "samples taken are kept");
	r = embperf_bench_result(b, 0);
	cr_assert_eq(embperf_result_truncated(r), 1);
	cr_assert_leq(tp_sim_now(&sim) - start, 300000000, "never past the budget");
	cr_assert_gt(tp_sim_now(&sim) - start, 299000000, "ends within one sample of it");
	/* Calibration and warm-up took one sample each. */
	cr_assert_eq(embperf_result_sample_count(r), 298);
	cr_assert(synth_cfg.torn_down);
	cr_assert(strstr(embperf_bench_errmsg(b), "budget"));
	cr_assert_eq(embperf_ctx_remaining_ns(ctx), 0);
}

Test(engine, spent_budget_runs_nothing)
{
	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 1), 0);
	tp_sim_idle(&sim, 1000000);
	cr_assert_eq(embperf_bench_run(b), -ETIME);
	cr_assert_eq(embperf_bench_result_count(b), 0);
	cr_assert_eq(synth_cfg.calls, 0);
	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 0), 0);
	cr_assert_eq(embperf_ctx_remaining_ns(ctx), UINT64_MAX);
	run_ok();
}

/* max_time ends a case without an error: its samples are kept, truncated. */
Test(engine, max_time_truncates_without_error)
{
	const embperf_result *r;
	uint64_t start = tp_sim_now(&sim);

	synth_cfg.unit_ns = 1000000;
	synth_cfg.max_units = 1;
	tp_set(b, "repetitions", "100000");
	tp_set(b, "spread", "0");
	tp_set(b, "max_time", "300ms");
	r = run_ok();
	cr_assert_eq(embperf_result_truncated(r), 1);
	cr_assert_eq(embperf_result_sample_count(r), 298);
	cr_assert_leq(tp_sim_now(&sim) - start, 300000000);
}

/* A case whose max_time ends before its first sample is an error naming
 * max_time, not a case that silently gives no result. */
Test(engine, max_time_before_the_first_sample_is_an_error)
{
	tp_set(b, "max_time", "1us");
	cr_assert_eq(embperf_bench_run(b), -ETIMEDOUT, "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "'max_time'") &&
		  strstr(embperf_bench_errmsg(b), "case=0"), "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_result_count(b), 0);
	cr_assert(synth_cfg.torn_down);
}

static void cancel_on_progress(void *user, const char *kernel, const char *what, double f)
{
	(void)kernel;
	(void)what;
	(void)f;
	embperf_ctx_cancel(user);
}

Test(engine, cancel_from_progress_callback)
{
	embperf_ctx_set_progress_fn(ctx, cancel_on_progress, ctx);
	tp_set(b, "repetitions", "100");
	cr_assert_eq(embperf_bench_run(b), -ECANCELED);
	cr_assert_eq(embperf_bench_result_count(b), 0, "a cancelled run keeps nothing");
	cr_assert(synth_cfg.torn_down, "teardown runs on cancel");
	cr_assert_eq(embperf_bench_run(b), -ECANCELED, "cancel sticks until reset");
	embperf_ctx_set_progress_fn(ctx, NULL, NULL);
	embperf_ctx_reset_cancel(ctx);
	run_ok();
}

/* A cancel 30 ms into a run of 1 ms samples: the run stops at the next
 * sample's end, as it would for a user's other thread. */
Test(engine, cancel_stops_the_run_at_the_next_sample)
{
	synth_cfg.unit_ns = 1000000;
	synth_cfg.max_units = 1;
	tp_set(b, "repetitions", "100000");
	tp_set(b, "spread", "0");
	tp_sim_cancel_at(&sim, ctx, tp_sim_now(&sim) + 30000000);
	cr_assert_eq(embperf_bench_run(b), -ECANCELED);
	cr_assert_neq(sim.fired_ns, 0, "the cancel came");
	cr_assert_leq(tp_sim_now(&sim) - sim.fired_ns, 1000000, "stopped %llu ns after the cancel",
		      (unsigned long long)(tp_sim_now(&sim) - sim.fired_ns));
	cr_assert_eq(embperf_bench_result_count(b), 0);
}

Test(engine, kernel_errors_propagate)
{
	synth_cfg.fail_after = 3;
	synth_cfg.fail_rc = -EIO;
	cr_assert_eq(embperf_bench_run(b), -EIO);
	cr_assert_eq(embperf_bench_result_count(b), 0);
	cr_assert(synth_cfg.torn_down);
	cr_assert(strstr(embperf_bench_errmsg(b), "EIO"), "%s", embperf_bench_errmsg(b));
}

/*
 * A kernel whose setup fails: after storing an allocated state (the engine
 * must then call teardown, which frees it: the sanitizer run sees a leak
 * otherwise), or before allocating anything (no teardown).
 */
static int unwind_allocate;  /* setup allocates and stores its state before failing */
static int unwind_teardowns; /* teardown calls seen */

struct unwind_state {
	char *buf;
};

static int unwind_setup(struct ep_run *run, void **state)
{
	struct unwind_state *st;

	if (!unwind_allocate)
		return ep_run_fail(run, -EINVAL, "unwind: failed before allocating");
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	*state = st;
	st->buf = malloc(64);
	return ep_run_fail(run, -EIO, "unwind: failed after allocating");
}

static void unwind_teardown(void *state)
{
	struct unwind_state *st = state;

	unwind_teardowns++;
	free(st->buf);
	free(st);
}

static const struct ep_metric_desc unwind_metrics[] = {
	{ "latency", "ns", EP_METRIC_TIME, 1.0, EP_PRIMARY_MEDIAN, 0, "time per unit" },
};

static const struct ep_kernel unwind_kernel = {
	.name = "test.unwind",
	.summary = "a setup that fails",
	.metrics = unwind_metrics,
	.n_metrics = 1,
	.setup = unwind_setup,
	.teardown = unwind_teardown,
};

Test(engine, teardown_unwinds_a_setup_that_failed_after_allocating)
{
	embperf_bench *u = ep_bench_new_kernel(ctx, &unwind_kernel);

	cr_assert(u);
	unwind_allocate = 1;
	cr_assert_eq(embperf_bench_run(u), -EIO);
	cr_assert_eq(unwind_teardowns, 1, "teardown ran %d times", unwind_teardowns);
	cr_assert_str_eq(embperf_bench_errmsg(u), "unwind: failed after allocating");
	cr_assert_eq(embperf_bench_result_count(u), 0);
	unwind_allocate = 0;
	cr_assert_eq(embperf_bench_run(u), -EINVAL);
	cr_assert_eq(unwind_teardowns, 1, "no state, no teardown");
	embperf_bench_free(u);
}

/*
 * ep_run_refuse(): the message names the parameter and its canonical text
 * before the kernel's reason, and a reason longer than the buffer is cut,
 * not written past it (the sanitizer run checks the second).
 */
static int refuse_long; /* give a reason longer than the message buffer */

static const struct ep_param_desc refuse_params[] = {
	{ "size", EP_PT_SIZE, "3k", { { 1, 1LL << 30 } }, NULL, "bytes", "a size" },
};

static int refuse_setup(struct ep_run *run, void **state)
{
	char reason[2 * EP_ERRMSG_MAX];

	(void)state;
	if (!refuse_long)
		return ep_run_refuse(run, -ERANGE, "size", " is odd; accepted: multiples of %d "
				     "bytes", 2);
	memset(reason, 'x', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	return ep_run_refuse(run, -EINVAL, "size", ": %s", reason);
}

static const struct ep_kernel refuse_kernel = {
	.name = "test.refuse",
	.summary = "a setup that refuses its parameter",
	.params = refuse_params,
	.n_params = 1,
	.metrics = unwind_metrics,
	.n_metrics = 1,
	.setup = refuse_setup,
};

Test(engine, a_refusal_names_the_parameter_and_its_value_before_the_reason)
{
	embperf_bench *r = ep_bench_new_kernel(ctx, &refuse_kernel);
	const char *msg;

	cr_assert(r);
	cr_assert_eq(embperf_bench_set(r, "size", "3000"), 0);
	refuse_long = 0;
	cr_assert_eq(embperf_bench_run(r), -ERANGE);
	cr_assert_str_eq(embperf_bench_errmsg(r), "parameter 'size': value '3000' is odd; "
			 "accepted: multiples of 2 bytes");
	refuse_long = 1;
	cr_assert_eq(embperf_bench_run(r), -EINVAL);
	msg = embperf_bench_errmsg(r);
	cr_assert_eq(strncmp(msg, "parameter 'size': value '3000': xxx", 35), 0, "%s", msg);
	cr_assert_eq(strlen(msg), EP_ERRMSG_MAX - 1, "%zu", strlen(msg));
	embperf_bench_free(r);
}

/*
 * A kernel whose state the engine allocates (state_bytes): setup finds it
 * zeroed in *state; teardown runs after every setup, also one that failed
 * before touching the state, and frees only what the state holds; the
 * engine frees the state (the sanitizer run sees a leak or a double free
 * otherwise).
 */
struct owned_state {
	char *buf;
	uint64_t words[15];
};

static int owned_fail_first; /* setup fails before touching its state */
static int owned_zeroed;     /* setup found the state zeroed */
static int owned_teardowns;  /* teardown calls seen, with the state setup had */
static void *owned_seen;     /* the state setup received */

static int owned_setup(struct ep_run *run, void **state)
{
	struct owned_state *st = *state;

	owned_seen = st;
	owned_zeroed = st && !st->buf;
	for (size_t i = 0; st && i < sizeof(st->words) / sizeof(st->words[0]); i++)
		owned_zeroed &= !st->words[i];
	if (owned_fail_first)
		return ep_run_fail(run, -EINVAL, "owned: failed first");
	st->buf = malloc(64);
	st->words[0] = 1;
	return ep_run_fail(run, -EIO, "owned: failed after allocating");
}

static void owned_teardown(void *state)
{
	struct owned_state *st = state;

	if (st == owned_seen)
		owned_teardowns++;
	free(st->buf);
}

static const struct ep_kernel owned_kernel = {
	.name = "test.owned",
	.summary = "a setup given its state by the engine",
	.metrics = unwind_metrics,
	.n_metrics = 1,
	.setup = owned_setup,
	.teardown = owned_teardown,
	.state_bytes = sizeof(struct owned_state),
};

Test(engine, the_engine_allocates_zeroes_and_frees_a_declared_state)
{
	embperf_bench *o = ep_bench_new_kernel(ctx, &owned_kernel);

	cr_assert(o);
	owned_fail_first = 0;
	owned_teardowns = 0;
	cr_assert_eq(embperf_bench_run(o), -EIO);
	cr_assert(owned_seen, "setup got no state");
	cr_assert(owned_zeroed, "the state setup got was not zeroed");
	cr_assert_eq(owned_teardowns, 1, "teardown ran %d times", owned_teardowns);
	cr_assert_str_eq(embperf_bench_errmsg(o), "owned: failed after allocating");
	/* A second run gets a fresh, zeroed state again. */
	owned_seen = NULL;
	owned_fail_first = 1;
	cr_assert_eq(embperf_bench_run(o), -EINVAL);
	cr_assert(owned_seen && owned_zeroed, "the second run's state was not fresh");
	cr_assert_eq(owned_teardowns, 2, "teardown runs after a setup that failed first");
	embperf_bench_free(o);
}

#if defined(__SANITIZE_ADDRESS__)
#define TP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TP_ASAN 1
#endif
#endif

Test(engine, a_state_that_cannot_be_allocated_fails_the_run_with_enomem)
{
	struct ep_kernel k = owned_kernel;
	embperf_bench *o;

#ifdef TP_ASAN
	cr_skip_test("AddressSanitizer stops the process on a calloc it cannot serve "
		     "(allocator_may_return_null=0) instead of returning NULL");
#endif
	k.state_bytes = SIZE_MAX; /* more than any calloc can give */
	o = ep_bench_new_kernel(ctx, &k);
	cr_assert(o);
	owned_seen = NULL;
	owned_teardowns = 0;
	cr_assert_eq(embperf_bench_run(o), -ENOMEM);
	cr_assert_null(owned_seen, "setup ran without its state");
	cr_assert_eq(owned_teardowns, 0, "teardown ran without a state");
	cr_assert(strstr(embperf_bench_errmsg(o), "cannot allocate its state"), "%s",
		  embperf_bench_errmsg(o));
	embperf_bench_free(o);
}

/* A kernel that reads a parameter it does not declare fails, naming it. */
static int typo_setup(struct ep_run *run, void **state)
{
	(void)state;
	return ep_param_int(run, "repetitoins") ? 0 : 0;
}

Test(engine, a_kernel_reading_an_undeclared_parameter_fails_naming_it)
{
	struct ep_kernel k = synth_kernel;
	embperf_bench *t;

	k.setup = typo_setup;
	k.finish = NULL;
	k.teardown = NULL;
	t = ep_bench_new_kernel(ctx, &k);
	cr_assert(t);
	cr_assert_eq(embperf_bench_run(t), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(t), "'repetitoins'"), "%s", embperf_bench_errmsg(t));
	cr_assert(strstr(embperf_bench_errmsg(t), "does not declare"), "%s",
		  embperf_bench_errmsg(t));
	embperf_bench_free(t);
}

/* What a finish() found with ep_run_find_result(). */
static struct {
	const char *second;    /* labels of (latency, "case=1") */
	const char *first;     /* labels of (latency, NULL) */
	double second_value;   /* its value, as the bench reports it later */
	int missing_label;     /* (latency, "case=9") is NULL */
	int missing_metric;    /* ("best", NULL) is NULL: no case reports it */
	int out_of_range;      /* metric -1 and 99 give NULL */
	double derived;        /* value of the derived result added in finish */
} found;

static int lookup_finish(struct ep_run *run, void *state)
{
	const struct embperf_result *r;
	int rc;

	(void)state;
	r = ep_run_find_result(run, 0, "case=1");
	found.second = r ? embperf_result_labels(r) : NULL;
	found.second_value = r ? embperf_result_value(r) : NAN;
	r = ep_run_find_result(run, 0, NULL);
	found.first = r ? embperf_result_labels(r) : NULL;
	found.missing_label = !ep_run_find_result(run, 0, "case=9");
	found.missing_metric = !ep_run_find_result(run, 1, NULL);
	found.out_of_range = !ep_run_find_result(run, -1, NULL) &&
			     !ep_run_find_result(run, 99, NULL);
	rc = ep_run_add_value(run, 3, "what=derived", 7.0);
	r = ep_run_find_result(run, 3, "what=derived");
	found.derived = r ? embperf_result_value(r) : NAN;
	return rc;
}

Test(engine, finish_finds_results_by_metric_and_labels)
{
	struct ep_kernel k = synth_kernel;
	embperf_bench *lb;

	k.finish = lookup_finish;
	lb = ep_bench_new_kernel(ctx, &k);
	cr_assert(lb);
	synth_cfg.cases = 2;
	tp_set(lb, "sample_time", "1ms");
	tp_set(lb, "repetitions", "3");
	cr_assert_eq(embperf_bench_run(lb), 0, "%s", embperf_bench_errmsg(lb));
	cr_assert(found.second && !strcmp(found.second, "case=1"));
	cr_assert(found.first && !strcmp(found.first, "case=0"), "NULL labels: the first");
	cr_assert_eq(found.second_value, embperf_result_value(embperf_bench_result(lb, 1)));
	cr_assert(found.missing_label && found.missing_metric && found.out_of_range);
	cr_assert_eq(found.derived, 7.0);
	embperf_bench_free(lb);
}

/* On the simulated clock the body works all the time: 100 % of one CPU. */
Test(engine, cpu_load_is_taken_over_the_samples)
{
	const embperf_result *r;
	double v;

	tp_set(b, "repetitions", "5");
	r = run_ok();
	cr_assert_eq(embperf_result_counter(r, "cpu_process_pct", &v), 0);
	cr_assert_float_eq(v, 100.0, 1e-9);
	cr_assert_eq(embperf_result_counter(r, "cpu_system_pct", &v), 0);
	cr_assert_float_eq(v, 100.0, 1e-9);
	cr_assert_eq(embperf_result_counter(r, "no_such_counter", &v), -ENOENT);
	cr_assert_eq(embperf_result_counter(r, "task_clock_ns", &v), -EOPNOTSUPP,
		     "the simulated clock counts no perf events");
}

Test(engine, pinning)
{
	tp_set(b, "cpu", "0");
	tp_set(b, "repetitions", "3");
	cr_assert_eq(embperf_result_cpu(run_ok()), 0);
	tp_set(b, "cpu", "4000");
	cr_assert_eq(embperf_bench_run(b), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(b), "cpu"));
	cr_assert_eq(embperf_bench_set(b, "cpu", "5000"), -ERANGE);
}

/*
 * The real clock: what only a real run records. A busy-wait of 1000 ns a
 * unit on a loaded machine is stretched, never shortened, so the one bound
 * that holds everywhere is from below; the figures go to the TAP output.
 */
TestSuite(engine_real, .init = setup, .fini = teardown);

Test(engine_real, counters_and_cpu_load_of_a_real_run)
{
	const embperf_result *r;
	double v;
	int rc;

	synth_cfg.sim = NULL;
	ep_ctx_set_clock(ctx, NULL);
	/* 30 samples of 2 ms: /proc/stat counts in clock ticks (10 ms at
	 * USER_HZ 100), so the span must hold a few of them for a system load. */
	tp_set(b, "repetitions", "30");
	tp_set(b, "spread", "0");
	r = run_ok();
	tp_figure("busy-wait of 1000 ns: %.1f ns a unit, %.0f units a sample, process %.0f %%",
		  embperf_result_value(r), units_per_sample(r), counter(r, "cpu_process_pct"));
	cr_assert_geq(embperf_result_stat(r, EMBPERF_STAT_MIN), 1000.0,
		      "a unit busy-waits 1000 ns, so no sample is faster");
	cr_assert_eq(embperf_result_counter_count(r), 14,
		     "12 engine counters, cpu_wait_pct, involuntary_switches");
	cr_assert_eq(embperf_result_counter(r, "cpu_process_pct", &v), 0);
	cr_assert_gt(v, 0.0, "a busy-wait loads its own process");
	cr_assert_eq(embperf_result_counter(r, "cpu_system_pct", &v), 0);
	cr_assert(v > 0.0 && v <= 100.0, "system load %g %%", v);
	rc = embperf_result_counter(r, "task_clock_ns", &v);
	if (rc == -EOPNOTSUPP)
		cr_log_info("software perf events unavailable here");
	else
		cr_assert(rc == 0 && v > 1e6, "task clock %g ns over 30 samples of 2 ms", v);
	/* Hardware events are missing in VMs: unavailable, never an error. */
	rc = embperf_result_counter(r, "cycles", &v);
	cr_assert(rc == 0 || rc == -EOPNOTSUPP);

	tp_set(b, "counters", "0");
	cr_assert_eq(embperf_result_counter(run_ok(), "task_clock_ns", &v), -EOPNOTSUPP,
		     "counters=0 records none");
}

/*
 * The perf counters count the body, not a case's untimed before(): with
 * 4000 ns of before() ahead of each 1000 ns unit, the task clock per unit
 * of the counters' pass stays near the body's 1000 (a busy-wait's CPU time
 * is at most its wall time, so no load can raise it; one could hide the
 * before() time, never add it).
 */
Test(engine_real, counters_leave_out_the_untimed_before)
{
	const embperf_result *r;
	double task_ns;
	int rc;

	synth_cfg.sim = NULL;
	synth_cfg.before_ns = 4000;
	ep_ctx_set_clock(ctx, NULL);
	tp_set(b, "repetitions", "5");
	tp_set(b, "spread", "0");
	r = run_ok();
	rc = embperf_result_counter(r, "task_clock_ns", &task_ns);
	if (rc == -EOPNOTSUPP)
		cr_skip_test("this machine lacks software perf events (task-clock)");
	cr_assert_eq(rc, 0);
	tp_figure("task clock %.0f ns a unit with 4000 ns of before() a unit",
		  task_ns / counter(r, "units"));
	cr_assert_lt(task_ns / counter(r, "units"), 2500.0,
		     "task clock %.0f ns a unit: before()'s 4000 ns were counted",
		     task_ns / counter(r, "units"));
	cr_assert_eq(synth_cfg.unpaired, 0);
}

/* A user's other thread cancels a real run of 100 s: it returns -ECANCELED
 * (the time it took is a figure, not a gate). */
Test(engine_real, cancel_from_another_thread)
{
	uint64_t late_ns;

	synth_cfg.sim = NULL;
	ep_ctx_set_clock(ctx, NULL);
	synth_cfg.unit_ns = 1000000;
	synth_cfg.max_units = 1;
	tp_set(b, "repetitions", "100000");
	tp_set(b, "spread", "0");
	late_ns = tp_run_cancelled(b, ctx, 30);
	tp_figure("returned %.2f ms after a cancel from another thread", (double)late_ns / 1e6);
	cr_assert_lt(late_ns, 10000000000ULL, "a cancel ends a 100 s run");
	cr_assert(embperf_ctx_is_cancelled(ctx));
}
