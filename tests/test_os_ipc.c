// SPDX-License-Identifier: MIT
/*
 * test_os_ipc.c - the IPC kernels (os.pipe.*, os.unix.*, os.tcp.*,
 * os.udp.lat, os.select, os.sem, os.fcntl) through the public API: every kernel
 * gives a positive, plausible figure with the labels and units the front
 * ends rely on; select over 200 descriptors costs more than over 10;
 * larger messages take longer; a run that ends normally, by cancel, by
 * the budget, by a stopped or dead helper process leaves no child, no
 * descriptor and no semaphore set behind; bad parameters fail with
 * messages that name them.
 *
 * Bounds are loose on purpose (the machine is shared and noisy): they
 * catch a unit error or a broken round trip, not a slow system.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emulated.h"
#include "proc_state.h"

/*
 * No IPC round trip on a working system takes 50 ms (20 times that under
 * qemu-user, as in test_os_proc.c: each trip there waits on a forked
 * helper that a loaded host runs late); none is below 10 ns.
 */
#define LAT_MAX_US (50000.0 * (tp_emulated() ? 20.0 : 1.0))
#define LAT_MIN_US 0.01
/* No pipe or socket moves 1 TB/s. */
#define BW_PHYSICAL_BOUND_MBS 1e6

static embperf_ctx *ctx;
static int private_ipc; /* this test process has its own System V IPC namespace */

static void setup(void)
{
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	/* Tests run in parallel processes: only a namespace of our own tells
	 * which semaphore sets are this test's (needs CAP_SYS_ADMIN). */
	private_ipc = unshare(CLONE_NEWIPC) == 0;
}

static void teardown(void)
{
	embperf_ctx_free(ctx);
}

TestSuite(os_ipc, .init = setup, .fini = teardown, .timeout = 60);

/* A bench with few, short samples: these tests check behaviour, not figures. */
static embperf_bench *new_bench(const char *kernel)
{
	embperf_bench *b = embperf_bench_new(ctx, kernel);

	cr_assert(b, "%s missing: %s", kernel, embperf_ctx_errmsg(ctx));
	cr_assert_eq(embperf_bench_set(b, "repetitions", "3"), 0);
	cr_assert_eq(embperf_bench_set(b, "sample_time", "2ms"), 0);
	cr_assert_eq(embperf_bench_set(b, "counters", "0"), 0);
	return b;
}

/* ------------------------------------------------------------ leftovers */

/* Descriptors open in this process. */
/* System V semaphore sets of this test (-1 when that cannot be told). */
static int count_sem_sets(void)
{
	FILE *f = private_ipc ? fopen("/proc/sysvipc/sem", "r") : NULL;
	char line[512];
	int n = -1; /* the header */

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

/**
 * struct snapshot - what a run must give back: descriptors and sem sets.
 */
struct snapshot {
	int fds;
	int sems;
};

static struct snapshot take_snapshot(void)
{
	struct snapshot s = { tp_count_fds(), count_sem_sets() };

	cr_assert_eq(tp_children().n, 0, "a child exists before the run");
	return s;
}

static void assert_nothing_left(const struct snapshot *before, const char *kernel)
{
	int status;

	cr_assert_eq(tp_children().n, 0, "%s: a child process is left", kernel);
	errno = 0;
	cr_assert_eq(waitpid(-1, &status, WNOHANG), -1, "%s: a child is left to reap", kernel);
	cr_assert_eq(errno, ECHILD, "%s: waitpid: %s", kernel, strerror(errno));
	cr_assert_eq(tp_count_fds(), before->fds, "%s: %d descriptors before, %d after", kernel,
		     before->fds, tp_count_fds());
	if (before->sems >= 0)
		cr_assert_eq(count_sem_sets(), before->sems, "%s: a semaphore set is left", kernel);
}

/* ---------------------------------------------------------------- sanity */

static const embperf_result *run_one(embperf_bench *b)
{
	cr_assert_eq(embperf_bench_run(b), 0, "%s: %s", embperf_bench_kernel(b),
		     embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_result_count(b), 1);
	return embperf_bench_result(b, 0);
}

/* Run @kernel with defaults; check units, labels and a plausible latency. */
static double check_latency(const char *kernel, const char *labels)
{
	struct snapshot before = take_snapshot();
	embperf_bench *b = new_bench(kernel);
	const embperf_result *r = run_one(b);
	double us = embperf_result_value(r);

	cr_assert_str_eq(embperf_result_metric(r), "latency");
	cr_assert_str_eq(embperf_result_unit(r), "us");
	cr_assert_str_eq(embperf_result_primary(r), "median");
	cr_assert_str_eq(embperf_result_labels(r), labels, "%s: labels '%s'", kernel,
			 embperf_result_labels(r));
	cr_assert(!embperf_result_higher_is_better(r));
	cr_assert(us > LAT_MIN_US && us < LAT_MAX_US, "%s: %g us", kernel, us);
	embperf_bench_free(b);
	assert_nothing_left(&before, kernel);
	return us;
}

Test(os_ipc, every_latency_kernel_is_plausible_and_labelled)
{
	check_latency("os.pipe.lat", "");
	check_latency("os.unix.lat", "size=1");
	check_latency("os.tcp.lat", "size=1");
	check_latency("os.tcp.connect", "");
	check_latency("os.udp.lat", "size=4");
	check_latency("os.select", "type=file n=200");
	check_latency("os.sem", "");
	check_latency("os.fcntl", "");
}

/*
 * os.tcp.connect's server queue is a parameter (backlog=100 is lat_connect's):
 * a value other than the default 4096 is in the label, 0 is refused naming
 * the parameter. 4095 here: a queue as deep as the default's, so the run
 * cannot meet the 1 s SYN retransmissions a short queue can cost.
 */
Test(os_ipc, tcp_connect_backlog_is_a_labelled_parameter)
{
	embperf_bench *b = new_bench("os.tcp.connect");

	cr_assert_eq(embperf_bench_set(b, "backlog", "0"), -ERANGE);
	cr_assert(strstr(embperf_bench_errmsg(b), "'backlog'"), "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "1..65535"), "%s", embperf_bench_errmsg(b));
	tp_set(b, "backlog", "4095");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_str_eq(embperf_result_labels(embperf_bench_result(b, 0)), "backlog=4095");
	embperf_bench_free(b);
}

static void check_bandwidth(const char *kernel)
{
	struct snapshot before = take_snapshot();
	embperf_bench *b = new_bench(kernel);
	const embperf_result *r;
	double mbs;

	tp_set(b, "total", "1M");
	r = run_one(b);
	mbs = embperf_result_value(r);
	cr_assert_str_eq(embperf_result_metric(r), "bandwidth");
	cr_assert_str_eq(embperf_result_unit(r), "MB/s");
	cr_assert_str_eq(embperf_result_labels(r), "size=64k");
	cr_assert(embperf_result_higher_is_better(r));
	cr_assert(mbs > 0.0 && mbs < BW_PHYSICAL_BOUND_MBS, "%s: %g MB/s", kernel, mbs);
	embperf_bench_free(b);
	assert_nothing_left(&before, kernel);
}

/* The value engine parameter @name takes in a new bench of @kernel: its default. */
static void param_default(const char *kernel, const char *name, char *buf, size_t size)
{
	embperf_bench *b = embperf_bench_new(ctx, kernel);

	cr_assert(b, "%s missing: %s", kernel, embperf_ctx_errmsg(ctx));
	cr_assert_gt(embperf_bench_get(b, name, buf, size), 0, "%s: no '%s'", kernel, name);
	embperf_bench_free(b);
}

/*
 * The kernels whose token goes between freely placed processes take 100 ms
 * samples (doc/methodology-os.md, "Sample length"); os.sem, os.fcntl and
 * os.udp.lat keep the engine's 5 ms.
 */
Test(os_ipc, the_round_trip_kernels_default_to_the_sample_length_measured_for_them)
{
	static const char *const long_samples[] = { "os.ctx", "os.pipe.lat", "os.unix.lat",
						    "os.tcp.lat" };
	static const char *const short_samples[] = { "os.sem", "os.fcntl", "os.udp.lat" };
	char text[32];

	for (size_t i = 0; i < sizeof(long_samples) / sizeof(long_samples[0]); i++) {
		param_default(long_samples[i], "sample_time", text, sizeof(text));
		cr_expect_str_eq(text, "100ms", "%s: sample_time default %s", long_samples[i], text);
		param_default(long_samples[i], "repetitions", text, sizeof(text));
		cr_expect_str_eq(text, "11", "%s: repetitions default %s", long_samples[i], text);
	}
	for (size_t i = 0; i < sizeof(short_samples) / sizeof(short_samples[0]); i++) {
		param_default(short_samples[i], "sample_time", text, sizeof(text));
		cr_expect_str_eq(text, "5ms", "%s: sample_time default %s", short_samples[i], text);
	}
}

Test(os_ipc, bandwidth_is_positive_and_below_a_physical_bound)
{
	check_bandwidth("os.pipe.bw");
	check_bandwidth("os.unix.bw");
}

Test(os_ipc, bandwidth_total_smaller_than_size_is_raised_to_size)
{
	embperf_bench *b = new_bench("os.unix.bw");
	double units = 0.0;
	const embperf_result *r;

	tp_set(b, "size", "128k");
	tp_set(b, "total", "1k");
	r = run_one(b);
	cr_assert_str_eq(embperf_result_labels(r), "size=128k");
	cr_assert_eq(embperf_result_counter(r, "units", &units), 0);
	cr_assert(units >= 1.0 && embperf_result_value(r) > 0.0);
	embperf_bench_free(b);
}

Test(os_ipc, select_on_tcp_descriptors_works)
{
	struct snapshot before = take_snapshot();
	embperf_bench *b = new_bench("os.select");
	const embperf_result *r;

	tp_set(b, "type", "tcp");
	tp_set(b, "n", "50");
	r = run_one(b);
	cr_assert_str_eq(embperf_result_labels(r), "type=tcp n=50");
	cr_assert(embperf_result_value(r) > LAT_MIN_US && embperf_result_value(r) < LAT_MAX_US);
	embperf_bench_free(b);
	assert_nothing_left(&before, "os.select type=tcp");
}

/* -------------------------------------------------------------- orderings */

static double min_of(const char *kernel, const char *k1, const char *v1, const char *k2,
		     const char *v2)
{
	embperf_bench *b = new_bench(kernel);
	double v;

	tp_set(b, "repetitions", "5");
	tp_set(b, k1, v1);
	if (k2)
		tp_set(b, k2, v2);
	v = embperf_result_stat(run_one(b), EMBPERF_STAT_MIN);
	embperf_bench_free(b);
	return v;
}

/*
 * The minimums of @kernel with @key=@small and @key=@large (and @k2=@v2),
 * measured in turns over ORDER_ROUNDS rounds: under a load average of 20
 * every one of five samples of a 1-byte round trip once waited for a CPU
 * (126 us, against 60 us for 256 KiB); more samples, taken alternately,
 * let each minimum find an undisturbed one.
 */
#define ORDER_ROUNDS 4
static void mins_in_turns(const char *kernel, const char *key, const char *small,
			  const char *large, const char *k2, const char *v2, double *small_us,
			  double *large_us)
{
	*small_us = INFINITY;
	*large_us = INFINITY;
	for (int round = 0; round < ORDER_ROUNDS; round++) {
		*small_us = fmin(*small_us, min_of(kernel, key, small, k2, v2));
		*large_us = fmin(*large_us, min_of(kernel, key, large, k2, v2));
	}
}

/*
 * select() polls every descriptor: 20 times as many cannot cost less. Kept
 * as a gross check: the two differ by a factor of 4 (files) to 10 (TCP)
 * here, the minimums of 20 samples each are compared, taken in turns, so
 * inverting them needs every sample of the small set stretched that much
 * more than one of the large set; the ratio is reported.
 */
Test(os_ipc, select_on_200_costs_more_than_on_10)
{
	for (int type = 0; type < 2; type++) {
		const char *t = type ? "tcp" : "file";
		double small, large;

		mins_in_turns("os.select", "n", "10", "200", "type", t, &small, &large);
		tp_figure("os.select type=%s: n=10 %.2f us, n=200 %.2f us (x%.1f)", t, small, large,
			  large / small);
		cr_assert(large > small, "type=%s: n=200 %g us, n=10 %g us", t, large, small);
	}
}

/* A 256 KiB round trip copies half a megabyte more than a 1-byte one: 6
 * to 9 times the time here; minimums in turns, as above. */
Test(os_ipc, larger_messages_take_longer)
{
	double one, big;

	mins_in_turns("os.unix.lat", "size", "1", "256k", NULL, NULL, &one, &big);
	tp_figure("os.unix.lat: 1 byte %.1f us, 256k %.1f us (x%.1f)", one, big, big / one);
	cr_assert(big > one, "os.unix.lat: 256k %g us, 1 byte %g us", big, one);
}

/* ----------------------------------------------- cancel, budget, helpers */

static const char *const partner_kernels[] = {
	"os.pipe.lat", "os.pipe.bw", "os.unix.lat", "os.unix.bw", "os.tcp.lat",
	"os.tcp.connect", "os.udp.lat", "os.sem", "os.fcntl",
};

static void cancel_on_progress(void *user, const char *kernel, const char *what, double f)
{
	embperf_ctx_cancel(user);
}

Test(os_ipc, cancel_mid_run_leaves_nothing)
{
	for (size_t i = 0; i < sizeof(partner_kernels) / sizeof(partner_kernels[0]); i++) {
		struct snapshot before = take_snapshot();
		embperf_bench *b = new_bench(partner_kernels[i]);

		tp_set_count(b, "20");
		embperf_ctx_set_progress_fn(ctx, cancel_on_progress, ctx);
		cr_assert_eq(embperf_bench_run(b), -ECANCELED, "%s: %s", partner_kernels[i],
			     embperf_bench_errmsg(b));
		cr_assert_eq(embperf_bench_result_count(b), 0);
		embperf_ctx_set_progress_fn(ctx, NULL, NULL);
		embperf_ctx_reset_cancel(ctx);
		embperf_bench_free(b);
		assert_nothing_left(&before, partner_kernels[i]);
	}
}

Test(os_ipc, budget_cut_keeps_samples_and_leaves_nothing)
{
	for (size_t i = 0; i < sizeof(partner_kernels) / sizeof(partner_kernels[0]); i++) {
		struct snapshot before = take_snapshot();
		embperf_bench *b = new_bench(partner_kernels[i]);
		int rc;

		/* More samples than 150 ms can hold even at one round trip each,
		 * should calibration settle on one unit (a first timing that
		 * waited for a partner not yet scheduled, twice). */
		tp_set_count(b, "100000");
		tp_set(b, "sample_time", "5ms");
		cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 150000000ULL), 0);
		rc = embperf_bench_run(b);
		cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 0), 0);
		cr_assert_eq(rc, -ETIME, "%s: %d %s", partner_kernels[i], rc,
			     embperf_bench_errmsg(b));
		if (embperf_bench_result_count(b) == 1)
			cr_assert(embperf_result_truncated(embperf_bench_result(b, 0)));
		embperf_bench_free(b);
		assert_nothing_left(&before, partner_kernels[i]);
	}
}

/* Stop (SIGSTOP) or kill every child of this process from a progress
 * callback: the next sample's body then waits on a helper that never
 * answers, or finds it gone. */
static int signal_to_send;

static void signal_children(void *user, const char *kernel, const char *what, double f)
{
	struct tp_kids k = tp_children();

	for (int i = 0; i < k.n && i < TP_MAX_KIDS; i++)
		kill(k.pids[i], signal_to_send);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A stopped helper does not hang the run: the budget's end frees it. */
Test(os_ipc, stopped_helper_ends_with_the_budget)
{
	for (size_t i = 0; i < sizeof(partner_kernels) / sizeof(partner_kernels[0]); i++) {
		struct snapshot before = take_snapshot();
		embperf_bench *b = new_bench(partner_kernels[i]);
		double t0;
		int rc;

		tp_set_count(b, "1000");
		signal_to_send = SIGSTOP;
		embperf_ctx_set_progress_fn(ctx, signal_children, NULL);
		cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 300000000ULL), 0);
		t0 = now_s();
		rc = embperf_bench_run(b);
		cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 0), 0);
		embperf_ctx_set_progress_fn(ctx, NULL, NULL);
		cr_assert_eq(rc, -ETIME, "%s: %d %s", partner_kernels[i], rc,
			     embperf_bench_errmsg(b));
		cr_assert(now_s() - t0 < 5.0, "%s: %.1f s to give up", partner_kernels[i],
			  now_s() - t0);
		embperf_bench_free(b);
		assert_nothing_left(&before, partner_kernels[i]);
	}
}

/* A stopped helper without a budget: the 'timeout' parameter ends the wait
 * (os.fcntl: the killed helper's locks go with it, and the body that then
 * finds every lock free must still fail). */
Test(os_ipc, stopped_helper_times_out)
{
	static const char *const kernels[] = { "os.sem", "os.fcntl" };

	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		struct snapshot before = take_snapshot();
		embperf_bench *b = new_bench(kernels[i]);

		tp_set_count(b, "1000");
		tp_set(b, "timeout", "300ms");
		signal_to_send = SIGSTOP;
		embperf_ctx_set_progress_fn(ctx, signal_children, NULL);
		cr_assert_eq(embperf_bench_run(b), -ETIMEDOUT, "%s: %s", kernels[i],
			     embperf_bench_errmsg(b));
		embperf_ctx_set_progress_fn(ctx, NULL, NULL);
		cr_assert(strstr(embperf_bench_errmsg(b), "'timeout'"), "%s",
			  embperf_bench_errmsg(b));
		embperf_bench_free(b);
		assert_nothing_left(&before, kernels[i]);
	}
}

/* A helper killed from outside: the run fails at once and says so. */
Test(os_ipc, killed_helper_is_reported)
{
	static const char *const streams[] = { "os.pipe.lat", "os.unix.lat", "os.tcp.lat",
					       "os.pipe.bw", "os.fcntl" };

	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++) {
		struct snapshot before = take_snapshot();
		embperf_bench *b = new_bench(streams[i]);

		tp_set_count(b, "1000");
		signal_to_send = SIGKILL;
		embperf_ctx_set_progress_fn(ctx, signal_children, NULL);
		cr_assert_eq(embperf_bench_run(b), -EPIPE, "%s: %s", streams[i],
			     embperf_bench_errmsg(b));
		embperf_ctx_set_progress_fn(ctx, NULL, NULL);
		cr_assert(strstr(embperf_bench_errmsg(b), "went away"), "%s",
			  embperf_bench_errmsg(b));
		embperf_bench_free(b);
		assert_nothing_left(&before, streams[i]);
	}
}

/* ------------------------------------------------------- bad parameters */

static void assert_set_fails(const char *kernel, const char *name, const char *value, int err)
{
	embperf_bench *b = new_bench(kernel);

	cr_assert_eq(embperf_bench_set(b, name, value), err, "%s %s=%s", kernel, name, value);
	cr_assert(strstr(embperf_bench_errmsg(b), name), "%s", embperf_bench_errmsg(b));
	embperf_bench_free(b);
}

Test(os_ipc, out_of_range_parameters_are_refused)
{
	assert_set_fails("os.select", "n", "0", -ERANGE);
	assert_set_fails("os.select", "n", "5000", -ERANGE);
	assert_set_fails("os.select", "type", "pipe", -EINVAL);
	assert_set_fails("os.udp.lat", "size", "2", -ERANGE);
	assert_set_fails("os.udp.lat", "size", "64k", -ERANGE);
	assert_set_fails("os.pipe.bw", "size", "0", -ERANGE);
	assert_set_fails("os.unix.bw", "total", "2G", -ERANGE);
	assert_set_fails("os.tcp.lat", "timeout", "1ms", -ERANGE);
}

Test(os_ipc, missing_tmpdir_is_named)
{
	static const char *const kernels[] = { "os.select", "os.fcntl" };

	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		struct snapshot before = take_snapshot();
		embperf_bench *b = new_bench(kernels[i]);

		tp_set(b, "tmpdir", "/nonexistent/embperf-test");
		cr_assert_eq(embperf_bench_run(b), -ENOENT, "%s: %s", kernels[i],
			     embperf_bench_errmsg(b));
		cr_assert(strstr(embperf_bench_errmsg(b), "'tmpdir'"), "%s",
			  embperf_bench_errmsg(b));
		cr_assert(strstr(embperf_bench_errmsg(b), "/nonexistent/embperf-test"), "%s",
			  embperf_bench_errmsg(b));
		embperf_bench_free(b);
		assert_nothing_left(&before, kernels[i]);
	}
}

/* More descriptors than RLIMIT_NOFILE allows: -EMFILE naming 'n'. */
Test(os_ipc, too_many_descriptors_for_the_limit)
{
	struct rlimit rl;
	struct snapshot before;
	embperf_bench *b;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = 64;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0, "%s", strerror(errno));
	before = take_snapshot();
	b = new_bench("os.select");
	tp_set(b, "n", "200");
	cr_assert_eq(embperf_bench_run(b), -EMFILE, "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "'n'"), "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "RLIMIT_NOFILE"), "%s", embperf_bench_errmsg(b));
	embperf_bench_free(b);
	assert_nothing_left(&before, "os.select");
}

/* Descriptors past FD_SETSIZE cannot be selected: -ERANGE naming 'n'. */
Test(os_ipc, descriptors_beyond_fd_setsize_are_refused)
{
	struct rlimit rl;
	struct snapshot before;
	embperf_bench *b;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 2 * FD_SETSIZE)
		cr_skip_test("this machine lacks an RLIMIT_NOFILE of %d", 2 * FD_SETSIZE);
	rl.rlim_cur = 2 * FD_SETSIZE;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0, "%s", strerror(errno));
	before = take_snapshot();
	b = new_bench("os.select");
	tp_set(b, "n", "1024");
	cr_assert_eq(embperf_bench_run(b), -ERANGE, "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "'n'"), "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "FD_SETSIZE"), "%s", embperf_bench_errmsg(b));
	embperf_bench_free(b);
	assert_nothing_left(&before, "os.select");
}
