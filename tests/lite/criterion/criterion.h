/* SPDX-License-Identifier: MIT */
/*
 * criterion.h - the part of criterion's test API that the tests (tests/test_*.c) use, for
 * builds without criterion (the aarch64 and armhf cross builds: Debian has
 * no armhf criterion, and criterion 2.4.1 hangs under qemu-user 7.2). Our
 * own runner (tests/lite/runner.c), not criterion's code: Test() and
 * TestSuite() register through constructors; each test runs in a forked
 * child with the suite's timeout; an assertion failure ends the test (the
 * cr_expect forms record it and go on), then .fini runs. See doc/tests.md,
 * "The lite runner".
 *
 * Marked a system header as criterion's is (installed in /usr/include):
 * the tests compare mixed types through these macros (an int result with a
 * size_t, say) exactly as they do through criterion's, without warnings.
 */
#ifndef EMBPERF_TESTS_LITE_CRITERION_H
#define EMBPERF_TESTS_LITE_CRITERION_H
#pragma GCC system_header

/* What criterion's header brings in and tests may rely on. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/**
 * struct crl_opts - options of a test or a suite (the designated
 * initializers Test() and TestSuite() take).
 * @init:     run before each test of the suite, in the test's process.
 * @fini:     run after it, even when the test failed or skipped.
 * @timeout:  seconds before the test is killed and failed (0: none).
 * @disabled: the test is reported as skipped.
 * @description: free text (accepted, not shown).
 */
struct crl_opts {
	void (*init)(void);
	void (*fini)(void);
	double timeout;
	bool disabled;
	const char *description;
};

/** struct crl_test - one Test(): its names, body, options and place. */
struct crl_test {
	const char *suite;
	const char *name;
	void (*fn)(void);
	struct crl_opts opts;
	const char *file;
	int line;
	struct crl_test *next;
};

/** struct crl_suite - one TestSuite(): its name and options. */
struct crl_suite {
	const char *name;
	struct crl_opts opts;
	struct crl_suite *next;
};

/** crl_register_test() - add @t to the tests main() runs (from a constructor). */
void crl_register_test(struct crl_test *t);

/** crl_register_suite() - give suite @s's options to its tests (from a constructor). */
void crl_register_suite(struct crl_suite *s);

/**
 * crl_assert_failed() - record a failed assertion at @file:@line: @what (the
 * expression) and the caller's message (@fmt has a one-character prefix so
 * that an absent message is not an empty format string), and end the test.
 */
void crl_assert_failed(const char *file, int line, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));

/** crl_expect_failed() - as crl_assert_failed(), but the test goes on (and fails at its end). */
void crl_expect_failed(const char *file, int line, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** crl_skip() - end the test as skipped, the message (prefixed as crl_fail's) saying why. */
void crl_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/** crl_log() - print a message of @level on stderr, prefixed like crl_fail's. */
void crl_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** crl_str_eq() - are @a and @b both strings, and equal? */
static inline bool crl_str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

#define CRL_CAT_(a, b, c) a##_##b##_##c
#define CRL_ID_(what, suite, name) CRL_CAT_(crl_##what, suite, name)

/* A test: its record, a constructor that registers it, then its body. */
#define Test(suite, name, ...)                                                          \
	static void CRL_ID_(fn, suite, name)(void);                                     \
	static struct crl_test CRL_ID_(test, suite, name) = {                           \
		#suite, #name, CRL_ID_(fn, suite, name), { __VA_ARGS__ }, __FILE__,      \
		__LINE__, NULL };                                                       \
	__attribute__((constructor)) static void CRL_ID_(reg, suite, name)(void)        \
	{                                                                               \
		crl_register_test(&CRL_ID_(test, suite, name));                         \
	}                                                                               \
	static void CRL_ID_(fn, suite, name)(void)

#define TestSuite(name, ...)                                                            \
	static struct crl_suite crl_suite_##name = { #name, { __VA_ARGS__ }, NULL };     \
	__attribute__((constructor)) static void crl_suite_reg_##name(void)             \
	{                                                                               \
		crl_register_suite(&crl_suite_##name);                                  \
	}

/* "-" __VA_ARGS__: the message's format with crl_fail's prefix. */
#define CRL_CHECK_(kind, cond, what, ...)                                               \
	do {                                                                            \
		if (!(cond))                                                            \
			crl_##kind##_failed(__FILE__, __LINE__, what, "-" __VA_ARGS__);  \
	} while (0)

#define CRL_OP_(kind, op, a, b, ...) \
	CRL_CHECK_(kind, (a) op (b), "(" #a ") " #op " (" #b ")", __VA_ARGS__)
#define CRL_FLOAT_EQ_(kind, a, b, eps, ...)                                             \
	CRL_CHECK_(kind, (b) - (a) <= (eps) && (a) - (b) <= (eps),                      \
		   "(" #a ") == (" #b ") within " #eps, __VA_ARGS__)

#define cr_assert(cond, ...) CRL_CHECK_(assert, cond, "(" #cond ")", __VA_ARGS__)
#define cr_assert_not(cond, ...) CRL_CHECK_(assert, !(cond), "!(" #cond ")", __VA_ARGS__)
#define cr_assert_null(p, ...) CRL_CHECK_(assert, (p) == NULL, "(" #p ") == NULL", __VA_ARGS__)
#define cr_assert_not_null(p, ...) CRL_CHECK_(assert, (p) != NULL, "(" #p ") != NULL", __VA_ARGS__)
#define cr_assert_eq(a, b, ...) CRL_OP_(assert, ==, a, b, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) CRL_OP_(assert, !=, a, b, __VA_ARGS__)
#define cr_assert_lt(a, b, ...) CRL_OP_(assert, <, a, b, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) CRL_OP_(assert, <=, a, b, __VA_ARGS__)
#define cr_assert_gt(a, b, ...) CRL_OP_(assert, >, a, b, __VA_ARGS__)
#define cr_assert_geq(a, b, ...) CRL_OP_(assert, >=, a, b, __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) \
	CRL_CHECK_(assert, crl_str_eq(a, b), "strings (" #a ") == (" #b ")", __VA_ARGS__)
#define cr_assert_str_neq(a, b, ...) \
	CRL_CHECK_(assert, !crl_str_eq(a, b), "strings (" #a ") != (" #b ")", __VA_ARGS__)
#define cr_assert_float_eq(a, b, eps, ...) CRL_FLOAT_EQ_(assert, a, b, eps, __VA_ARGS__)
#define cr_assert_fail(...) crl_assert_failed(__FILE__, __LINE__, "cr_assert_fail", "-" __VA_ARGS__)

#define cr_expect(cond, ...) CRL_CHECK_(expect, cond, "(" #cond ")", __VA_ARGS__)
#define cr_expect_not(cond, ...) CRL_CHECK_(expect, !(cond), "!(" #cond ")", __VA_ARGS__)
#define cr_expect_null(p, ...) CRL_CHECK_(expect, (p) == NULL, "(" #p ") == NULL", __VA_ARGS__)
#define cr_expect_not_null(p, ...) \
	CRL_CHECK_(expect, (p) != NULL, "(" #p ") != NULL", __VA_ARGS__)
#define cr_expect_eq(a, b, ...) CRL_OP_(expect, ==, a, b, __VA_ARGS__)
#define cr_expect_neq(a, b, ...) CRL_OP_(expect, !=, a, b, __VA_ARGS__)
#define cr_expect_lt(a, b, ...) CRL_OP_(expect, <, a, b, __VA_ARGS__)
#define cr_expect_leq(a, b, ...) CRL_OP_(expect, <=, a, b, __VA_ARGS__)
#define cr_expect_gt(a, b, ...) CRL_OP_(expect, >, a, b, __VA_ARGS__)
#define cr_expect_geq(a, b, ...) CRL_OP_(expect, >=, a, b, __VA_ARGS__)
#define cr_expect_str_eq(a, b, ...) \
	CRL_CHECK_(expect, crl_str_eq(a, b), "strings (" #a ") == (" #b ")", __VA_ARGS__)
#define cr_expect_float_eq(a, b, eps, ...) CRL_FLOAT_EQ_(expect, a, b, eps, __VA_ARGS__)

#define cr_skip_test(...) crl_skip("-" __VA_ARGS__)
#define cr_log_info(...) crl_log("info", "-" __VA_ARGS__)
#define cr_log_warn(...) crl_log("warn", "-" __VA_ARGS__)

#endif /* EMBPERF_TESTS_LITE_CRITERION_H */
