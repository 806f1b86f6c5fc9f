// SPDX-License-Identifier: MIT
/*
 * test_trial.c - the engine's trials, on a synthetic trial kernel run on a
 * simulated clock (tests/simclock.h): an operation falls due every
 * 'period' and completes at its due time, so a trial of 200 ms counts
 * exactly 2000 of them at 10 000 per second, on every run and machine, and
 * nothing sleeps.
 *
 * Also: ramp excluded from every figure, several metrics from one tally,
 * kernel counters, worker threads, a body's start-up, cancel and budget,
 * the settle pause, the engine's binary search on a device of hidden
 * capacity, and bad input. One test runs a real trial on the real clock,
 * asserting what no load can break and reporting its figures.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lib/core/bench.h"
#include "lib/core/clock.h"
#include "lib/core/ctx.h"
#include "lib/core/run.h"
#include "lib/core/search.h"
#include "lib/core/trial.h"
#include "proc_state.h"
#include "simclock.h"

/**
 * struct tsynth - configuration and observations of the synthetic kernel.
 * @sim:            the simulated clock (NULL: the real clock, a busy body).
 * @period_ns:      one operation falls due every period.
 * @late_step_ns:   operation k completes (k mod 4) x this after its due time.
 * @bytes_per_op:   bytes each operation counts.
 * @threads:        worker threads, each with its own tally (0: none).
 * @worker_ops:     what each worker's tally counted, before the merge.
 * @stop_after_ops: the body stops on its own after so many operations (0: never).
 * @capacity:       search: the hidden capacity; a trial passes at or below it.
 * @search:         run the binary search instead of repetitions.
 * @bs:             the search's range.
 * @far_side:       the body idles through the trial, then counts what a far
 *                  side reports after the end and works 200 ms more.
 * @startup_ns:     the body first idles this long (a stream's prepare, a
 *                  handshake), then calls ep_trial_started().
 * @stall_ns:       the body first idles this long without a word to the
 *                  engine (descheduled, a wait that outlasted the ramp).
 */
struct tsynth {
	struct tp_sim *sim;
	uint64_t period_ns;
	uint64_t late_step_ns;
	uint64_t bytes_per_op;
	int threads;
	uint64_t worker_ops[4];
	uint64_t stop_after_ops;
	double capacity;
	int search;
	struct ep_bsearch bs;
	int torn_down;
	int no_derive;
	int derive_calls;
	int far_side;
	uint64_t startup_ns;
	uint64_t stall_ns;
};

static struct tsynth ts;
static struct tp_sim sim;

enum { M_MBPS, M_BITS, M_OPS, M_LAT, M_WAKES, M_CPU, M_RATE, M_PER_MS };

static const struct ep_metric_desc ts_metrics[] = {
	{ "bandwidth", "MB/s", EP_METRIC_TRIAL_MBPS, 1, EP_PRIMARY_MEDIAN, 1, "bytes per second" },
	{ "bitrate", "bit/s", EP_METRIC_TRIAL_BITS, 1, EP_PRIMARY_MEDIAN, 1, "bits per second" },
	{ "ops", "ops/s", EP_METRIC_TRIAL_OPS, 1, EP_PRIMARY_MEDIAN, 1, "operations per second" },
	{ "latency", "us", EP_METRIC_TRIAL_LATENCY, 1000, EP_PRIMARY_MEDIAN, 0, "lateness" },
	{ "wakes", "", EP_METRIC_TRIAL_COUNTER, 1, EP_PRIMARY_MEDIAN, 0, "a kernel counter" },
	{ "cpu", "%", EP_METRIC_TRIAL_CPU_PROCESS, 1, EP_PRIMARY_MEDIAN, 0, "process CPU load" },
	{ "capacity", "op/s", EP_METRIC_SEARCH, 1, EP_PRIMARY_MEDIAN, 1, "highest passing rate" },
	{ "per_ms", "ops/ms", EP_METRIC_TRIAL_DERIVED, 1, EP_PRIMARY_MEDIAN, EP_BETTER_ZERO,
	  "derived from the tally: operations per ms" },
};

static const char *const ts_counters[] = { "wakes", "spare" };

struct worker {
	struct ep_trial *t;
	struct ep_tally *ta;
};

/* Work until @when_ns: on the simulated clock, or busy-waiting on the real one. */
static void work_until(struct ep_trial *t, uint64_t when_ns)
{
	if (ts.sim) {
		tp_sim_work_until(ts.sim, when_ns);
		return;
	}
	while (ep_trial_now_ns(t) < when_ns)
		;
}

/*
 * One operation falls due every period, like a device completing work at a
 * fixed rate: the body works until it completes, counts it, then asks
 * whether the trial goes on. An operation that completes in the ramp, or
 * after the end, is not counted (the tally looks at the trial's phase).
 */
static void paced_loop(struct ep_trial *t, struct ep_tally *ta)
{
	uint64_t due = ep_trial_now_ns(t) + ts.period_ns;

	for (uint64_t done = 0;; due += ts.period_ns) {
		uint64_t late_ns = (done % 4) * ts.late_step_ns;

		work_until(t, due + late_ns);
		ep_tally_op(ta, 1, ts.bytes_per_op, late_ns);
		ep_tally_count(ta, 0, 1);
		if (++done == ts.stop_after_ops)
			return; /* the work is done, counted or not */
		if (!ep_trial_running(t))
			return;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	paced_loop(w->t, w->ta);
	return NULL;
}

/* A network kernel's shape: the far side's figures come after the trial. */
static int far_side_body(struct ep_trial *t)
{
	struct ep_tally *ta = ep_trial_tally(t);

	while (ep_trial_running(t))
		tp_sim_idle(ts.sim, 1000000);
	ep_tally_count(ta, 0, 1);           /* after the end: not counted */
	ep_tally_count_after(ta, 1, 5);     /* the far side's count: counted */
	ep_tally_add_after(ta, 7, 7000);
	tp_sim_work(ts.sim, 200000000);     /* waiting for a report is not the trial's load */
	return 0;
}

/* A device that passes at or below its capacity: work 100 us an operation. */
static int search_body(struct ep_trial *t)
{
	do {
		tp_sim_work(ts.sim, 100000);
		ep_tally_add(ep_trial_tally(t), 1, 0);
	} while (ep_trial_running(t));
	return 0;
}

static int ts_body(void *arg, struct ep_trial *t)
{
	struct worker w[4];
	pthread_t tid[4];

	(void)arg;
	if (ts.far_side)
		return far_side_body(t);
	if (ts.search)
		return search_body(t);
	if (ts.startup_ns) {
		tp_sim_idle(ts.sim, ts.startup_ns);
		ep_trial_started(t);
	}
	if (ts.stall_ns)
		tp_sim_idle(ts.sim, ts.stall_ns);
	for (int i = 0; i < ts.threads; i++) {
		w[i].t = t;
		w[i].ta = ep_trial_tally_new(t);
		cr_assert(w[i].ta);
		cr_assert_eq(pthread_create(&tid[i], NULL, worker_main, &w[i]), 0);
	}
	if (!ts.threads)
		paced_loop(t, ep_trial_tally(t));
	for (int i = 0; i < ts.threads; i++) {
		pthread_join(tid[i], NULL);
		ts.worker_ops[i] += ep_tally_ops(w[i].ta);
		ep_trial_tally_merge(t, w[i].ta);
	}
	return 0;
}

static int ts_judge(void *arg, const struct ep_tally *tally, double config, double *outcome,
		    int *pass)
{
	(void)arg;
	cr_assert_gt(ep_tally_ops(tally), 0, "the judged tally counted the trial's work");
	*outcome = config > ts.capacity ? (config - ts.capacity) / config : 0.0;
	*pass = *outcome == 0.0;
	return 0;
}

/* The derived metric: operations per millisecond of the trial's measured time. */
static double ts_derive(void *arg, int metric, const struct ep_tally *ta)
{
	cr_assert_eq(arg, &ts, "derive() gets the case's arg");
	cr_assert_eq(metric, M_PER_MS, "derive() is asked only for derived metrics");
	ts.derive_calls++;
	if (!ep_tally_elapsed_ns(ta))
		return NAN;
	return (double)ep_tally_ops(ta) / ((double)ep_tally_elapsed_ns(ta) / 1e6);
}

static int ts_setup(struct ep_run *run, void **state)
{
	struct ep_search s = {
		.next = ep_bsearch_next,
		.judge = ts_judge,
		.found = ep_bsearch_found,
		.arg = &ts.bs,
		.metric = M_RATE,
		.config_name = "rate",
		.outcome_name = "loss",
	};
	struct ep_trial_case tc = {
		.labels = "job=paced",
		.body = ts_body,
		.counters = ts_counters,
		.n_counters = 2,
		.search = ts.search ? &s : NULL,
		.arg = &ts,
		.derive = ts.no_derive ? NULL : ts_derive,
	};

	*state = &ts;
	return ep_run_add_trial(run, &tc);
}

static void ts_teardown(void *state)
{
	((struct tsynth *)state)->torn_down++;
}

static const struct ep_kernel ts_kernel = {
	.name = "test.trial",
	.summary = "a clock-paced synthetic trial kernel",
	EP_METRICS(ts_metrics),
	.setup = ts_setup,
	.teardown = ts_teardown,
	.trials = 1,
};

static embperf_ctx *ctx;
static embperf_bench *b;

static void setup(void)
{
	memset(&ts, 0, sizeof(ts));
	ts.sim = &sim;
	ts.period_ns = 100000; /* 10 000 operations per second */
	ts.bytes_per_op = 1000;
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	tp_sim_install(&sim, ctx);
	b = ep_bench_new_kernel(ctx, &ts_kernel);
	cr_assert(b);
	tp_set(b, "duration", "200ms");
	tp_set(b, "repetitions", "3");
}

static void teardown(void)
{
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

TestSuite(trial, .init = setup, .fini = teardown);

static const embperf_result *find(const char *metric)
{
	return tp_find(b, metric);
}

static void run_ok(void)
{
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
}

/* Every trial of metric 'ops' read @expected operations per second. */
static void assert_every_trial_at(double expected)
{
	const embperf_result *ops = find("ops");

	cr_assert(ops);
	for (int i = 0; i < embperf_result_sample_count(ops); i++)
		cr_assert_float_eq(embperf_result_sample(ops, i), expected, 1e-6 * expected,
				   "trial %d: %.6f ops/s", i, embperf_result_sample(ops, i));
}

Test(trial, a_paced_body_reports_its_known_rate)
{
	const embperf_result *ops, *mbps, *bits;

	run_ok();
	assert_every_trial_at(10000.0);
	ops = find("ops");
	mbps = find("bandwidth");
	bits = find("bitrate");
	cr_assert(ops && mbps && bits);
	cr_assert_eq(embperf_result_sample_count(ops), 3);
	cr_assert_eq(tp_counter(ops, "units"), 3 * 2000.0);
	for (int i = 0; i < 3; i++) {
		double rate = embperf_result_sample(ops, i);

		cr_assert_float_eq(embperf_result_sample(mbps, i), rate * 1000.0 / 1e6, 1e-9);
		cr_assert_float_eq(embperf_result_sample(bits, i), rate * 1000.0 * 8.0, 1e-3);
	}
	cr_assert_eq(embperf_result_truncated(ops), 0);
	cr_assert_geq(ts.torn_down, 1);
	cr_assert_eq(tp_sim_now(&sim) - TP_SIM_START_NS, 3 * 200000000ULL,
		     "three trials of 200 ms back to back");
}

Test(trial, one_tally_gives_every_metric_with_the_same_counters)
{
	const char *names[] = { "bandwidth", "bitrate", "ops", "latency", "wakes", "cpu", "per_ms" };

	run_ok();
	cr_assert_eq(embperf_bench_result_count(b), 7, "the search metric is absent without a search");
	for (size_t i = 0; i < EP_ARRAY_SIZE(names); i++) {
		const embperf_result *r = find(names[i]);

		cr_assert(r, "metric %s", names[i]);
		cr_assert_str_eq(embperf_result_labels(r), "job=paced");
		cr_assert_eq(tp_counter(r, "units"), 6000.0, "%s", names[i]);
		cr_assert_eq(tp_counter(r, "wakes"), 6000.0, "kernel counter on %s", names[i]);
		cr_assert_float_eq(tp_counter(r, "spare"), 0.0, 1e-12, "declared, never counted");
	}
	cr_assert_eq(embperf_result_value(find("wakes")), 2000.0, "the counter per trial");
	cr_assert_float_eq(embperf_result_value(find("cpu")), 100.0, 1e-9, "the body works throughout");
	cr_assert_eq(embperf_result_counter_count(find("ops")),
		     embperf_result_counter_count(find("latency")));
	cr_assert_str_eq(embperf_result_counter_name(find("ops"),
						     embperf_result_counter_count(find("ops")) - 2),
			 "wakes");
	cr_assert_eq(embperf_result_percentile_count(find("ops")), 0, "only latencies have percentiles");
}

Test(trial, a_derived_metric_is_one_sample_per_trial_from_its_tally)
{
	const embperf_result *ops, *per_ms;

	run_ok();
	ops = find("ops");
	per_ms = find("per_ms");
	cr_assert(ops && per_ms);
	cr_assert_eq(ts.derive_calls, 3, "derive() once per trial");
	cr_assert_eq(embperf_result_sample_count(per_ms), 3);
	/* The same tally and measured time as ops/s: each trial's value is ops/s / 1000. */
	for (int i = 0; i < 3; i++)
		cr_assert_float_eq(embperf_result_sample(per_ms, i), embperf_result_sample(ops, i) / 1e3,
				   1e-9 * embperf_result_sample(ops, i), "trial %d", i);
	cr_assert_float_eq(embperf_result_value(per_ms), 10.0, 1e-9);
	cr_assert(!isnan(embperf_result_stat(per_ms, EMBPERF_STAT_STDDEV)), "statistics of 3 samples");
	cr_assert_eq(embperf_result_higher_is_better(per_ms), 0, "better nearer zero is not higher");
	cr_assert_float_eq(tp_counter(per_ms, "units"), tp_counter(ops, "units"), 1e-9,
			   "the case's counters, as every metric's");
}

Test(trial, a_case_without_derive_gives_no_derived_result)
{
	ts.no_derive = 1;
	run_ok();
	cr_assert(find("ops"));
	cr_assert_null(find("per_ms"));
	cr_assert_eq(ts.derive_calls, 0);
}

/* Latenesses of 0, 1, 2 and 3 us in turn: the distribution of all trials. */
Test(trial, latency_metric_carries_the_distribution_of_all_trials)
{
	const embperf_result *lat;
	double p50 = NAN, p99 = NAN, pct, last = -1;

	ts.late_step_ns = 1000;
	tp_set(b, "percentiles", "50,99,99.9");
	run_ok();
	lat = find("latency");
	cr_assert(lat);
	cr_assert_eq(embperf_result_percentile_count(lat), 3);
	for (int i = 0; i < 3; i++) {
		double v;

		cr_assert_eq(embperf_result_percentile_at(lat, i, &pct, &v), 0);
		cr_assert_geq(v, last, "ascending");
		last = v;
	}
	cr_assert_eq(embperf_result_percentile(lat, 50, &p50), 0);
	cr_assert_eq(embperf_result_percentile(lat, 99, &p99), 0);
	cr_assert_eq(embperf_result_percentile(lat, 90, &pct), -ENOENT);
	cr_assert_eq(embperf_result_percentile(lat, 0, &pct), -EINVAL);
	cr_assert_eq(embperf_result_percentile(lat, NAN, &pct), -EINVAL);
	cr_assert_eq(embperf_result_percentile(find("ops"), 50, &pct), -ENODATA);
	/* One latency per operation, in us: 0..3, a quarter each. */
	cr_assert_float_eq(embperf_result_dist_stat(lat, EMBPERF_STAT_N), tp_counter(lat, "units"), 1e-9);
	cr_assert_eq(embperf_result_dist_stat(lat, EMBPERF_STAT_MIN), 0.0);
	cr_assert_float_eq(embperf_result_dist_stat(lat, EMBPERF_STAT_MAX), 3.0, 0.03);
	cr_assert_float_eq(embperf_result_dist_stat(lat, EMBPERF_STAT_MEAN), 1.5, 0.02);
	cr_assert(p50 >= 1.0 && p50 <= 2.0, "p50 %g", p50);
	cr_assert_float_eq(p99, 3.0, 0.03);
	cr_assert(isnan(embperf_result_dist_stat(lat, EMBPERF_STAT_STDDEV)));
	cr_assert(isnan(embperf_result_dist_stat(find("ops"), EMBPERF_STAT_N)));
}

/* A ramp of 300 ms, then 100 ms measured: 1000 operations, not the 4000 run. */
Test(trial, ramp_is_run_but_not_counted)
{
	const embperf_result *ops, *lat;

	tp_set(b, "ramp", "300ms");
	tp_set(b, "duration", "100ms");
	tp_set(b, "repetitions", "1");
	run_ok();
	assert_every_trial_at(10000.0);
	ops = find("ops");
	lat = find("latency");
	cr_assert_eq(tp_counter(ops, "units"), 1000.0);
	cr_assert_eq(embperf_result_dist_stat(lat, EMBPERF_STAT_N), 1000.0);
	cr_assert_eq(tp_sim_now(&sim) - TP_SIM_START_NS, 400000000ULL, "ramp and measured part");
}

/*
 * A body that starts up for @startup_ns, then calls ep_trial_started(), with
 * @ramp: the 100 ms measured part is 1000 operations at the paced rate.
 */
static void check_measured_part_after_startup(const char *ramp, uint64_t startup_ns)
{
	ts.startup_ns = startup_ns;
	tp_set(b, "ramp", ramp);
	tp_set(b, "duration", "100ms");
	tp_set(b, "repetitions", "1");
	run_ok();
	assert_every_trial_at(10000.0);
	cr_assert_eq(tp_counter(find("ops"), "units"), 1000.0, "ramp %s", ramp);
}

/*
 * Without a ramp, the body's start-up is left out once it says it is over:
 * 200 ms of it before a 100 ms trial. Counted from before it, the trial had
 * ended before the work began.
 */
Test(trial, a_body_start_up_before_ep_trial_started_is_not_timed)
{
	check_measured_part_after_startup("0", 200000000);
	cr_assert_eq(tp_sim_now(&sim) - TP_SIM_START_NS, 300000000ULL);
}

/*
 * With a ramp the start-up is in the ramp: ep_trial_started() changes
 * nothing (a restart there would cut the 100 ms measured part to 50).
 */
Test(trial, with_a_ramp_ep_trial_started_changes_nothing)
{
	check_measured_part_after_startup("100ms", 50000000);
	cr_assert_eq(tp_sim_now(&sim) - TP_SIM_START_NS, 200000000ULL);
}

/*
 * A body whose first look after a 50 ms ramp comes @stall_ns after it
 * started: the 200 ms measured part runs from that look, 2000 operations at
 * the paced rate, whether the look came within the planned measured part
 * or after its planned end (a thread descheduled through the whole trial,
 * seen under AddressSanitizer on a loaded CI machine: before, that trial
 * measured nothing and read NaN).
 */
static void check_a_late_first_look(uint64_t stall_ns)
{
	ts.stall_ns = stall_ns;
	tp_set(b, "ramp", "50ms");
	tp_set(b, "duration", "200ms");
	tp_set(b, "repetitions", "1");
	run_ok();
	assert_every_trial_at(10000.0);
	cr_assert_eq(tp_counter(find("ops"), "units"), 2000.0, "stalled %llu ns",
		     (unsigned long long)stall_ns);
	cr_assert_eq(embperf_result_truncated(find("ops")), 0);
}

Test(trial, a_first_look_late_in_the_measured_part_still_measures_all_of_it)
{
	check_a_late_first_look(150000000);
}

Test(trial, a_first_look_after_the_planned_end_still_measures_a_whole_trial)
{
	check_a_late_first_look(300000000);
	cr_assert_eq(tp_sim_now(&sim) - TP_SIM_START_NS, 500000000ULL + ts.period_ns,
		     "the stall, one operation, then the measured part");
}

/*
 * Two workers, each pacing 10 000 per second on the one clock, each with
 * its own tally merged into the trial's: what the trial counts is what the
 * workers' tallies counted, never more than the two paces give.
 */
Test(trial, worker_threads_count_into_one_tally)
{
	const embperf_result *ops;

	ts.threads = 2;
	tp_set(b, "repetitions", "1");
	run_ok();
	ops = find("ops");
	cr_assert_eq(tp_counter(ops, "units"), (double)(ts.worker_ops[0] + ts.worker_ops[1]));
	cr_assert_leq(tp_counter(ops, "units"), 4000.0);
	cr_assert_gt(tp_counter(ops, "units"), 0.0);
	cr_assert_float_eq(embperf_result_dist_stat(find("latency"), EMBPERF_STAT_N),
			   tp_counter(ops, "units"), 1e-9);
}

Test(trial, a_body_that_stops_on_its_own_is_measured_until_it_stopped)
{
	const embperf_result *ops;

	ts.stop_after_ops = 500; /* 50 ms of a 10 s trial */
	tp_set(b, "duration", "10s");
	tp_set(b, "repetitions", "1");
	run_ok();
	ops = find("ops");
	cr_assert_eq(tp_counter(ops, "units"), 500.0);
	/* Measured until it stopped, not for the 10 s asked. */
	assert_every_trial_at(10000.0);
	cr_assert_eq(embperf_result_truncated(ops), 0);
}

Test(trial, work_that_ends_within_the_ramp_is_an_error_naming_ramp)
{
	ts.stop_after_ops = 10;
	tp_set(b, "ramp", "1s");
	cr_assert_eq(embperf_bench_run(b), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(b), "'ramp'"), "%s", embperf_bench_errmsg(b));
	cr_assert_eq(ts.torn_down, 1);
}

/* A cancel 50 ms into a 10 s trial: the body's next check ends it. */
Test(trial, cancel_stops_a_trial_at_the_next_check)
{
	tp_set(b, "duration", "10s");
	tp_sim_cancel_at(&sim, ctx, tp_sim_now(&sim) + 50000000);
	cr_assert_eq(embperf_bench_run(b), -ECANCELED);
	cr_assert_neq(sim.fired_ns, 0);
	cr_assert_leq(tp_sim_now(&sim) - sim.fired_ns, ts.period_ns,
		      "ended %llu ns after the cancel",
		      (unsigned long long)(tp_sim_now(&sim) - sim.fired_ns));
	cr_assert_eq(embperf_bench_result_count(b), 0);
	cr_assert_eq(ts.torn_down, 1);
}

/* 'settle' pauses between trials (not before the first) on the run's clock. */
Test(trial, settle_pauses_between_trials)
{
	tp_set(b, "duration", "10ms");
	tp_set(b, "settle", "25ms");
	run_ok();
	cr_assert_eq(tp_sim_now(&sim) - TP_SIM_START_NS, 3 * 10000000ULL + 2 * 25000000ULL);
	cr_assert_eq(sim.sleeps, 2 * 3, "in steps of at most 10 ms");
}

/* A cancel during a 10 s settle is seen within one of its 10 ms steps. */
Test(trial, cancel_during_settle_is_seen)
{
	tp_set(b, "duration", "10ms");
	tp_set(b, "settle", "10s");
	tp_sim_cancel_at(&sim, ctx, tp_sim_now(&sim) + 55000000);
	cr_assert_eq(embperf_bench_run(b), -ECANCELED);
	cr_assert_leq(tp_sim_now(&sim) - sim.fired_ns, 10000000ULL);
	cr_assert_lt(tp_sim_now(&sim) - TP_SIM_START_NS, 100000000ULL);
}

/* The budget ends a 10 s trial at 200 ms: its counts are kept, marked truncated. */
Test(trial, budget_stops_a_trial_and_keeps_its_counts_marked_truncated)
{
	const embperf_result *ops;

	tp_set(b, "duration", "10s");
	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 200000000ULL), 0);
	cr_assert_eq(embperf_bench_run(b), -ETIME);
	ops = find("ops");
	cr_assert(ops, "the cut trial's counts are kept");
	cr_assert_eq(embperf_result_truncated(ops), 1);
	cr_assert_eq(embperf_result_sample_count(ops), 1);
	cr_assert_eq(tp_counter(ops, "units"), 2000.0, "the 200 ms before the budget ended");
	assert_every_trial_at(10000.0);
	cr_assert_eq(tp_sim_now(&sim) - TP_SIM_START_NS, 200000000ULL, "ended at the budget");
}

/* max_time ends the case like the budget, but the run is not an error. */
Test(trial, max_time_cuts_a_trial_without_an_error)
{
	tp_set(b, "duration", "10s");
	tp_set(b, "max_time", "150ms");
	run_ok();
	cr_assert_eq(embperf_result_truncated(find("ops")), 1);
	cr_assert_eq(tp_counter(find("ops"), "units"), 1500.0);
}

static void search_setup(double capacity, double resolution, int max_trials)
{
	ts.search = 1;
	ts.capacity = capacity;
	ts.bs.lo = 0.0;
	ts.bs.hi = 10000.0;
	ts.bs.resolution = resolution;
	ts.bs.max_trials = max_trials;
	tp_set(b, "duration", "2ms");
}

Test(trial, binary_search_finds_a_hidden_capacity_within_the_resolution)
{
	const embperf_result *r;
	double prev_config = NAN, v;
	int n;

	search_setup(7321.0, 10.0, 100);
	run_ok();
	r = find("capacity");
	cr_assert(r);
	cr_assert(embperf_result_value(r) <= 7321.0 && embperf_result_value(r) > 7311.0, "found %.2f",
		  embperf_result_value(r));
	n = embperf_result_trial_count(r);
	/* 10000 down to a 10-wide interval: the first trial at the top, then halvings. */
	cr_assert(n >= 10 && n <= 12, "%d trials", n);
	cr_assert_str_eq(embperf_result_trial_name(r, EMBPERF_TRIAL_CONFIG), "rate");
	cr_assert_str_eq(embperf_result_trial_name(r, EMBPERF_TRIAL_OUTCOME), "loss");
	for (int i = 0; i < n; i++) {
		double config, outcome, pass, dur;

		cr_assert_eq(embperf_result_trial(r, i, EMBPERF_TRIAL_CONFIG, &config), 0);
		cr_assert_eq(embperf_result_trial(r, i, EMBPERF_TRIAL_OUTCOME, &outcome), 0);
		cr_assert_eq(embperf_result_trial(r, i, EMBPERF_TRIAL_PASS, &pass), 0);
		cr_assert_eq(embperf_result_trial(r, i, EMBPERF_TRIAL_DURATION_NS, &dur), 0);
		cr_assert_eq(pass, config <= 7321.0, "trial %d at %.2f", i, config);
		cr_assert_eq(outcome == 0.0, pass == 1.0);
		cr_assert(dur >= 2e6, "trial %d lasted %.0f ns", i, dur);
		cr_assert_neq(config, prev_config, "no trial repeated");
		prev_config = config;
	}
	cr_assert_eq(embperf_result_trial(r, n, EMBPERF_TRIAL_CONFIG, &v), -ENOENT);
	cr_assert_eq(embperf_result_trial(r, 0, (enum embperf_trial_field)42, &v), -EINVAL);
	/* The other metrics describe the best passing trial. */
	cr_assert_eq(embperf_result_sample_count(find("ops")), 1);
}

Test(trial, binary_search_stops_at_max_trials)
{
	const embperf_result *r;

	search_setup(7321.0, 0.001, 4);
	run_ok();
	r = find("capacity");
	cr_assert_eq(embperf_result_trial_count(r), 4);
	/* 10000 fails, 5000 passes, 7500 fails, 6250 passes. */
	cr_assert_float_eq(embperf_result_value(r), 6250.0, 1e-9);
}

Test(trial, binary_search_ends_when_the_top_passes_or_the_bottom_fails)
{
	const embperf_result *r;
	double v;

	search_setup(20000.0, 1.0, 100);
	run_ok();
	r = find("capacity");
	cr_assert_eq(embperf_result_trial_count(r), 1);
	cr_assert_float_eq(embperf_result_value(r), 10000.0, 1e-9);

	ts.capacity = -1.0; /* nothing passes */
	run_ok();
	r = find("capacity");
	cr_assert_eq(embperf_result_sample_count(r), 0, "no value found: no sample");
	cr_assert(isnan(embperf_result_value(r)));
	cr_assert_eq(embperf_result_trial(r, embperf_result_trial_count(r) - 1, EMBPERF_TRIAL_CONFIG,
					  &v), 0);
	cr_assert_float_eq(v, 0.0, 1e-12, "the bottom of the range was tried");
	cr_assert_null(find("ops"), "no trial passed: no figures of a best trial");
}

/* Bad input. */

static void set_fails(const char *name, const char *value, const char *needle)
{
	int rc = embperf_bench_set(b, name, value);

	cr_assert(rc == -EINVAL || rc == -ERANGE, "%s=%s gave %d", name, value, rc);
	cr_assert(strstr(embperf_bench_errmsg(b), needle), "%s=%s: %s", name, value,
		  embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), value) || !*value, "the value is named: %s",
		  embperf_bench_errmsg(b));
}

Test(trial, bad_durations_and_percentiles_are_refused_by_name)
{
	char hundred[1024] = "";

	set_fails("duration", "0", "'duration'");
	set_fails("duration", "-1s", "'duration'");
	set_fails("percentiles", "-1", "'percentiles'");
	set_fails("percentiles", "nan", "'percentiles'");
	set_fails("percentiles", "50,100.5", "'percentiles'");
	set_fails("percentiles", "50,,90", "'percentiles'");
	set_fails("percentiles", "0", "'percentiles'");
	for (int i = 1; i <= 100; i++)
		snprintf(hundred + strlen(hundred), sizeof(hundred) - strlen(hundred), "%s%d",
			 i > 1 ? "," : "", i);
	set_fails("percentiles", hundred, "at most" /* names what is accepted */);
	cr_assert_eq(embperf_bench_set(b, "percentiles", "100"), 0);
	cr_assert_eq(embperf_bench_set(b, "percentiles", "0.001,99.999"), 0);
}

Test(trial, each_kind_is_offered_only_its_engine_parameters)
{
	char buf[64];

	cr_assert_eq(embperf_bench_set(b, "sample_time", "1ms"), -ENOENT);
	cr_assert_eq(embperf_bench_set(b, "warmup", "1"), -ENOENT);
	cr_assert_eq(embperf_bench_set(b, "spread", "0"), -ENOENT);
	cr_assert_geq(embperf_bench_get(b, "settle", buf, sizeof(buf)), 0);
	cr_assert_eq(embperf_bench_set(b, "min_repetitions", "3"), -ENOENT);
	for (int i = 0; i < embperf_kernel_param_count("mem.lat"); i++) {
		embperf_kernel_param_info("mem.lat", i, EMBPERF_INFO_NAME, buf, sizeof(buf));
		cr_assert(strcmp(buf, "duration") && strcmp(buf, "ramp") && strcmp(buf, "settle") &&
				  strcmp(buf, "percentiles"),
			  "mem.lat offers '%s'", buf);
	}
}

/*
 * What a far side reports after the trial counts (ep_tally_*_after), what
 * the body counts after the end the usual way does not, and the CPU load
 * closes with the measured part: a body that idled through it and worked
 * 200 ms afterwards (waiting for a peer's report) shows an idle trial. (Had
 * the load closed when the body returned, it would read 50 %.)
 */
Test(trial, the_far_sides_figures_count_after_the_end_and_cpu_load_closes_with_it)
{
	const embperf_result *ops, *cpu, *wakes;

	ts.far_side = 1;
	tp_set(b, "repetitions", "1");
	run_ok();
	ops = find("ops");
	wakes = find("wakes");
	cpu = find("cpu");
	cr_assert(ops && wakes && cpu);
	cr_assert_float_eq(embperf_result_value(ops), 7 / 0.2, 1e-9,
			   "7 operations over the 200 ms trial");
	cr_assert_float_eq(tp_counter(ops, "spare"), 5.0, 1e-9);
	cr_assert_float_eq(embperf_result_value(wakes), 0.0, 1e-9, "counted after the end");
	cr_assert_float_eq(embperf_result_value(cpu), 0.0, 1e-9,
			   "%.1f %%: the work after the end is in", embperf_result_value(cpu));
}

/*
 * The real clock: a paced body that busy-waits for each operation. Load
 * can hold its thread off, so a trial may read low (the operations that
 * fell due while it waited complete late), never high; the figure goes
 * to the TAP output. A cancel 50 ms into a 10 s trial ends it.
 */
TestSuite(trial_real, .init = setup, .fini = teardown);

Test(trial_real, a_real_paced_trial_never_reads_high_and_a_cancel_ends_it)
{
	const embperf_result *ops;
	uint64_t late_ns;

	ts.sim = NULL;
	ep_ctx_set_clock(ctx, NULL);
	tp_set(b, "repetitions", "1");
	run_ok();
	ops = find("ops");
	cr_assert(ops);
	tp_figure("real paced trial: %.1f ops/s of 10000, %.0f operations, process CPU %.0f %%",
		  embperf_result_value(ops), tp_counter(ops, "units"),
		  embperf_result_value(find("cpu")));
	cr_assert_leq(embperf_result_value(ops), 10000.0 * 1.01);
	cr_assert_gt(tp_counter(ops, "units"), 0.0);

	tp_set(b, "duration", "10s");
	late_ns = tp_run_cancelled(b, ctx, 50);
	tp_figure("real trial: returned %.2f ms after the cancel", (double)late_ns / 1e6);
	cr_assert_lt(late_ns, 5000000000ULL, "a cancel ends a 10 s trial");
}
