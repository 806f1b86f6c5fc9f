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

	cr_assert_eq(ep_result_assess(r, 0, 1), 0);
	cr_assert_eq(embperf_result_flags(r), 0);
	cr_assert_str_eq(embperf_result_note(r), "");
	ep_result_free(r);
}

Test(assess, waiting_for_a_cpu_marks_disturbed_with_the_evidence)
{
	const double v[] = { 100, 101, 99, 100, 100.5 };
	struct embperf_result *r = made(v, 5, 48.0), *d;

	cr_assert_eq(ep_result_assess(r, 0, 1), 0);
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

Test(assess, a_kernel_whose_threads_take_turns_is_not_judged_by_its_wait)
{
	const double v[] = { 100, 101, 99, 100, 100.5 };
	struct embperf_result *r = made(v, 5, 48.0);

	cr_assert_eq(ep_result_assess(r, 0, 0), 0);
	cr_assert_eq(embperf_result_flags(r), 0, "a pinned ping-pong waits for its partner");
	ep_result_free(r);
}

Test(assess, samples_that_disagree_mark_unstable_and_moving_marks_migrated)
{
	const double v[] = { 6400, 13100, 9000, 12900, 7100, 13000, 6600 };
	struct embperf_result *r = made(v, 7, NAN);

	cr_assert_eq(ep_result_assess(r, 1, 1), 0);
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

	cr_assert_eq(ep_result_assess(r, 0, 1), 0);
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
	cr_assert_eq(embperf_bench_set_int(b, "cpu", cpu), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_set(b, "sample_time", "10ms"), 0);
	cr_assert_eq(embperf_bench_set(b, "repetitions", "20"), 0);
	cr_assert_eq(embperf_bench_set(b, "spread", "0"), 0);
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

/* Reports: the mark in tables, JSON and compare. */

#include "lib/report/report.h"

/* A report of one result of @value, marked with @wait_pct of CPU wait, on @cpu_model. */
static struct embperf_report *report_of(double value, double wait_pct, const char *cpu_model)
{
	struct embperf_report *rep = ep_report_alloc(NULL, NULL);
	const double v[] = { value, value, value };
	struct embperf_result *r = made(v, 3, wait_pct);

	cr_assert(rep);
	cr_assert_eq(ep_result_set_title(r, "row"), 0);
	r->higher_better = 1;
	cr_assert_eq(ep_result_assess(r, 0, 1), 0);
	cr_assert_eq(ep_report_append(rep, r), 0);
	cr_assert_eq(ep_report_set_sysinfo(rep, "cpu_model", cpu_model), 0);
	return rep;
}

static char *render(const struct embperf_report *rep, enum embperf_format f)
{
	char *text = embperf_report_render(rep, f);

	cr_assert(text);
	return text;
}

Test(assess, a_marked_result_carries_its_mark_and_note_into_every_rendering)
{
	struct embperf_report *rep = report_of(6331.0, 50.0, "cpu A"), *back;
	char *table = render(rep, EMBPERF_FORMAT_TEXT), *md = render(rep, EMBPERF_FORMAT_MARKDOWN);
	char *csv = render(rep, EMBPERF_FORMAT_CSV), *json = render(rep, EMBPERF_FORMAT_JSON);

	cr_assert(strstr(table, " !1"), "the value cell is marked:\n%s", table);
	cr_assert(strstr(table, "!1 disturbed: its threads waited for a CPU 50 %"), "%s", table);
	cr_assert(strstr(md, "- !1 disturbed"), "%s", md);
	cr_assert(strstr(csv, ",disturbed,"), "%s", csv);
	cr_assert(strstr(json, "\"flags\""), "%s", json);
	back = embperf_report_parse(NULL, json);
	cr_assert(back);
	cr_assert_eq(embperf_result_flags(embperf_report_result(back, 0)), EMBPERF_RESULT_DISTURBED);
	cr_assert_str_eq(embperf_result_note(embperf_report_result(back, 0)),
			 embperf_result_note(embperf_report_result(rep, 0)));
	embperf_report_free(back);
	free(table);
	free(md);
	free(csv);
	free(json);
	embperf_report_free(rep);
}

Test(assess, an_unmarked_result_has_no_mark_and_no_flags_member)
{
	struct embperf_report *rep = report_of(12352.0, 0.0, "cpu A");
	char *table = render(rep, EMBPERF_FORMAT_TEXT), *json = render(rep, EMBPERF_FORMAT_JSON);

	cr_assert_null(strstr(table, "!1"), "%s", table);
	cr_assert_null(strstr(table, "marked"), "%s", table);
	cr_assert_null(strstr(json, "\"flags\""), "%s", json);
	free(table);
	free(json);
	embperf_report_free(rep);
}

Test(assess, unknown_flag_names_in_json_are_ignored)
{
	struct embperf_report *rep = report_of(1.0, 50.0, "cpu A"), *back;
	char *json = render(rep, EMBPERF_FORMAT_JSON), *at = strstr(json, "\"disturbed\"");

	cr_assert(at);
	memcpy(at, "\"fromnext1\"", 11); /* same length: a name of a later version */
	back = embperf_report_parse(NULL, json);
	cr_assert(back, "a newer mark does not make the file unreadable");
	cr_assert_eq(embperf_result_flags(embperf_report_result(back, 0)), 0);
	embperf_report_free(back);
	free(json);
	embperf_report_free(rep);
}

Test(assess, a_marked_regression_and_another_cpu_are_said_before_the_verdict)
{
	struct embperf_report *base = report_of(12352.0, 0.0, "AMD EPYC");
	struct embperf_report *cur = report_of(6331.0, 50.0, "Intel Xeon");
	char *table;

	cr_assert_eq(embperf_report_compare(cur, base, 5.0), 1, "still judged a regression");
	cr_assert_eq(embperf_result_verdict(embperf_report_result(cur, 0)),
		     EMBPERF_VERDICT_REGRESSED);
	table = render(cur, EMBPERF_FORMAT_TEXT);
	cr_assert(strstr(table, "measured on another CPU (AMD EPYC)"), "%s", table);
	cr_assert(strstr(table, "1 regressed result is marked"), "%s", table);
	cr_assert(strstr(table, "regressed (marked !1: may be the machine's)"), "%s", table);
	free(table);
	embperf_report_free(base);
	base = report_of(12352.0, 0.0, "Intel Xeon");
	cr_assert_eq(embperf_report_compare(cur, base, 5.0), 1);
	table = render(cur, EMBPERF_FORMAT_TEXT);
	cr_assert_null(strstr(table, "another CPU"), "same CPU model: no note\n%s", table);
	free(table);
	embperf_report_free(base);
	embperf_report_free(cur);
}
