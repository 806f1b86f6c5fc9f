// SPDX-License-Identifier: MIT
/*
 * test_assess.c - a result marks itself when its own evidence says the
 * figure is the machine's: its threads waited for a CPU (a busy process on
 * the same CPU), its samples disagree, or it moved between CPUs.
 *
 * The disturbed case makes its own disturbance: a child process spinning on
 * the CPU the run is pinned to, so the run waits about half of the time
 * whatever else the machine does. The opposite direction (an undisturbed
 * run carries no mark) is not asserted on a live machine: another task may
 * really have had the CPU; it is asserted on results built from known
 * samples and counters.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "synth.h"

static struct embperf_result *made(const double *samples, size_t n, double wait_pct)
{
	struct embperf_result *r = ep_result_new("k", "m", "ns", "", "");

	cr_assert(r);
	cr_assert_eq(ep_result_set_samples(r, samples, n), 0);
	r->counters[EP_CTR_CPU_WAIT_PCT] = wait_pct;
	r->counter_ok[EP_CTR_CPU_WAIT_PCT] = !isnan(wait_pct);
	r->counters[EP_CTR_INVOLUNTARY_SWITCHES] = 7;
	r->counter_ok[EP_CTR_INVOLUNTARY_SWITCHES] = 1;
	return r;
}

Test(assess, steady_samples_on_a_free_cpu_carry_no_mark)
{
	const double v[] = { 100, 101, 99, 100, 100.5 };
	struct embperf_result *r = made(v, 5, 0.3);

	cr_assert_eq(ep_result_assess(r, 0), 0);
	cr_assert_eq(embperf_result_flags(r), 0);
	cr_assert_str_eq(embperf_result_note(r), "");
	ep_result_free(r);
}

Test(assess, waiting_for_a_cpu_marks_disturbed_with_the_evidence)
{
	const double v[] = { 100, 101, 99, 100, 100.5 };
	struct embperf_result *r = made(v, 5, 48.0), *d;

	cr_assert_eq(ep_result_assess(r, 0), 0);
	cr_assert_eq(embperf_result_flags(r), EMBPERF_RESULT_DISTURBED);
	cr_assert(strstr(embperf_result_note(r), "disturbed"), "%s", embperf_result_note(r));
	cr_assert(strstr(embperf_result_note(r), "48 %"), "%s", embperf_result_note(r));
	cr_assert(strstr(embperf_result_note(r), "7 involuntary"), "%s", embperf_result_note(r));
	d = ep_result_dup(r);
	cr_assert_eq(embperf_result_flags(d), EMBPERF_RESULT_DISTURBED, "a copy keeps the mark");
	cr_assert_str_eq(embperf_result_note(d), embperf_result_note(r));
	ep_result_free(d);
	ep_result_free(r);
}

Test(assess, samples_that_disagree_mark_unstable_and_moving_marks_migrated)
{
	const double v[] = { 6400, 13100, 9000, 12900, 7100, 13000, 6600 };
	struct embperf_result *r = made(v, 7, NAN);

	cr_assert_eq(ep_result_assess(r, 1), 0);
	cr_assert_eq(embperf_result_flags(r), EMBPERF_RESULT_UNSTABLE | EMBPERF_RESULT_MIGRATED);
	cr_assert(strstr(embperf_result_note(r), "unstable"), "%s", embperf_result_note(r));
	cr_assert(strstr(embperf_result_note(r), "migrated"), "%s", embperf_result_note(r));
	cr_assert_null(strstr(embperf_result_note(r), "disturbed"), "no wait counter, no claim");
	ep_result_free(r);
}

Test(assess, two_samples_are_too_few_to_disagree)
{
	const double v[] = { 1, 100 };
	struct embperf_result *r = made(v, 2, 0.0);

	cr_assert_eq(ep_result_assess(r, 0), 0);
	cr_assert_eq(embperf_result_flags(r), 0);
	ep_result_free(r);
}

/* A child that spins on @cpu until killed. */
static pid_t spin_on(int cpu)
{
	pid_t pid = fork();
	cpu_set_t one;

	cr_assert_geq(pid, 0);
	if (pid)
		return pid;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (;;)
		;
}

Test(assess, a_busy_process_on_the_pinned_cpu_marks_the_result_disturbed)
{
	embperf_ctx *ctx = embperf_ctx_new();
	embperf_bench *b = ep_bench_new_kernel(ctx, &synth_kernel);
	const embperf_result *r;
	double wait = NAN;
	cpu_set_t mask;
	int cpu = -1;
	pid_t hog;

	cr_assert(ctx && b);
	cr_assert_eq(sched_getaffinity(0, sizeof(mask), &mask), 0);
	for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
		if (CPU_ISSET(i, &mask))
			cpu = i;
	memset(&synth_cfg, 0, sizeof(synth_cfg));
	synth_cfg.unit_ns = 1000;
	embperf_bench_set_int(b, "cpu", cpu);
	embperf_bench_set(b, "sample_time", "10ms");
	embperf_bench_set(b, "repetitions", "20");
	embperf_bench_set(b, "spread", "0");
	hog = spin_on(cpu);
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	r = embperf_bench_result(b, 0);
	if (embperf_result_counter(r, "cpu_wait_pct", &wait) == -EOPNOTSUPP)
		cr_skip_test("this kernel keeps no /proc/self/task/N/schedstat (CONFIG_SCHED_INFO)");
	/* Two runnable tasks on one CPU: each waits about half of the time. */
	cr_assert_gt(wait, 20.0, "cpu_wait_pct %.1f", wait);
	cr_assert(embperf_result_flags(r) & EMBPERF_RESULT_DISTURBED, "flags %#x, note '%s'",
		  embperf_result_flags(r), embperf_result_note(r));
	cr_assert(strstr(embperf_result_note(r), "disturbed"));
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}
