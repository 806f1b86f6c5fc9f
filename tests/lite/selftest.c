// SPDX-License-Identifier: MIT
/*
 * selftest.c - the lite runner's own cases (tests/meson.build runs them by
 * --filter). Suite "pass" must pass as a whole: its checks hold, one test
 * skips, .init and .fini run around each test in its own process. Each
 * "fail_*" suite must fail the run (should_fail): a runner that lost a
 * failure of that kind would pass it.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static int init_ran, fini_ran;
static int counter; /* each test starts from the parent's 0: tests are isolated */

static void pass_init(void)
{
	init_ran = 1;
}

static void pass_fini(void)
{
	fini_ran = 1;
}

TestSuite(pass, .init = pass_init, .fini = pass_fini, .timeout = 10);

Test(pass, checks_hold)
{
	const char *s = "abc";
	double x = 0.1 + 0.2;

	cr_assert(init_ran, "init ran before the test");
	cr_assert_not(fini_ran, "fini runs after the test, not before");
	cr_assert_eq(counter, 0, "a test does not see another's changes");
	counter++;
	cr_assert_eq(1 + 1, 2);
	cr_assert_neq(1, 2);
	cr_assert_lt(1, 2);
	cr_assert_leq(2, 2);
	cr_assert_gt(3, 2);
	cr_assert_geq(3, 3);
	cr_assert_null(NULL);
	cr_assert_not_null(s);
	cr_assert_str_eq(s, "abc");
	cr_assert_str_neq(s, "abd");
	cr_assert_str_neq(s, NULL, "NULL is no string equal to another");
	cr_assert_float_eq(x, 0.3, 1e-12);
	cr_expect(1);
	cr_expect_eq(2, 2, "%d", 2);
	cr_expect_float_eq(1.0, 1.0 + 1e-9, 1e-6);
	cr_log_info("a log line (%d)", 1);
}

Test(pass, isolated_too)
{
	cr_assert_eq(counter, 0, "a test does not see another's changes");
	counter++;
}

Test(pass, skips)
{
	cr_skip_test("a skip is no failure (%s)", "reason shown");
	cr_assert_fail("not reached after a skip");
}

Test(pass, disabled, .disabled = true)
{
	cr_assert_fail("a disabled test does not run");
}

TestSuite(fail_assert);
Test(fail_assert, false_assertion)
{
	cr_assert_eq(1, 2, "one is not two");
}

TestSuite(fail_expect);
Test(fail_expect, false_expectation)
{
	cr_expect_lt(2, 1, "an expectation fails the test, which goes on");
	cr_assert(1);
}

TestSuite(fail_crash);
Test(fail_crash, killed_by_a_signal)
{
	raise(SIGSEGV);
}

TestSuite(fail_timeout, .timeout = 0.5);
Test(fail_timeout, sleeps_past_its_timeout)
{
	sleep(30);
}

TestSuite(fail_exit);
Test(fail_exit, exits_before_the_end)
{
	exit(0);
}

static void failing_init(void)
{
	cr_assert_fail("init failed");
}

TestSuite(fail_init, .init = failing_init);
Test(fail_init, body_would_pass)
{
	cr_assert(1);
}
