// SPDX-License-Identifier: MIT
/*
 * test_params.c - named parameters: units, ranges, overflow, messages.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "synth.h"

static embperf_ctx *ctx;
static embperf_bench *b;

static void setup(void)
{
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	b = ep_bench_new_kernel(ctx, &synth_kernel);
	cr_assert(b);
}

static void teardown(void)
{
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

TestSuite(params, .init = setup, .fini = teardown);

/* Set @text and expect its canonical form @canon. */
static void expect_canonical(const char *name, const char *text, const char *canon)
{
	char buf[128];

	cr_assert_eq(embperf_bench_set(b, name, text), 0, "%s=%s: %s", name, text,
		     embperf_bench_errmsg(b));
	cr_assert_gt(embperf_bench_get(b, name, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, canon, "%s=%s read back as %s, expected %s", name, text, buf, canon);
}

/* Set @text, expect @err, a message naming parameter and value, and no change. */
static void expect_error(const char *name, const char *text, int err)
{
	char before[128], after[128];

	embperf_bench_get(b, name, before, sizeof(before));
	cr_assert_eq(embperf_bench_set(b, name, text), err, "%s=%s", name, text);
	cr_assert(strstr(embperf_bench_errmsg(b), name), "message names the parameter: %s",
		  embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), text), "message names the value: %s",
		  embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "accepted"), "message says what is accepted: %s",
		  embperf_bench_errmsg(b));
	embperf_bench_get(b, name, after, sizeof(after));
	cr_assert_str_eq(before, after, "a failed set keeps the old value");
}

Test(params, defaults_read_back)
{
	char buf[64];

	cr_assert_eq(embperf_bench_get(b, "size", buf, sizeof(buf)), 3);
	cr_assert_str_eq(buf, "64M");
	embperf_bench_get(b, "repetitions", buf, sizeof(buf));
	cr_assert_str_eq(buf, "11", "engine parameters exist on every kernel");
	cr_assert_eq(embperf_bench_get(b, "nope", buf, sizeof(buf)), -ENOENT);
}

Test(params, sizes_are_binary)
{
	expect_canonical("size", "64M", "64M");
	expect_canonical("size", "64m", "64M");
	expect_canonical("size", "64MiB", "64M");
	expect_canonical("size", "1536k", "1536k");
	expect_canonical("size", "1.5M", "1536k");
	expect_canonical("size", "1000k", "1000k");
	expect_canonical("size", "4096", "4k");
	expect_canonical("size", "1000", "1000");
	expect_canonical("size", "1T", "1T");
}

Test(params, size_errors)
{
	expect_error("size", "12Q", -EINVAL);
	expect_error("size", "", -EINVAL);
	expect_error("size", "M", -EINVAL);
	expect_error("size", "1.2.3k", -EINVAL);
	expect_error("size", "64 M", -EINVAL);
	expect_error("size", "100", -ERANGE);            /* below 512 */
	expect_error("size", "-4k", -ERANGE);
	expect_error("size", "2T", -ERANGE);             /* above 1T */
	expect_error("size", "99999999999999999999", -ERANGE);
	expect_error("size", "9223372036854775807k", -ERANGE);
	expect_error("size", "1e300k", -EINVAL);
}

Test(params, size_ranges)
{
	int64_t lo, hi;
	char buf[64];

	expect_canonical("span", "1k..64M", "1k..64M");
	expect_canonical("span", "4k", "4k");
	expect_error("span", "64M..1k", -ERANGE);
	expect_error("span", "1k..", -EINVAL);
	expect_error("span", "1k..2X", -EINVAL);
	cr_assert_eq(embperf_bench_set(b, "span", "512..2M"), 0);
	embperf_bench_get(b, "span", buf, sizeof(buf));
	cr_assert_str_eq(buf, "512..2M");
	(void)lo;
	(void)hi;
}

Test(params, durations)
{
	expect_canonical("period", "1.5ms", "1500us");
	expect_canonical("period", "2", "2s");
	expect_canonical("period", "250us", "250us");
	expect_canonical("period", "100000ns", "100us");
	expect_canonical("period", "1min", "60s");
	expect_error("period", "5 ms", -EINVAL);
	expect_error("period", "5parsecs", -EINVAL);
	expect_error("period", "100ns", -ERANGE);
}

Test(params, rates_and_frequencies)
{
	expect_canonical("rate", "100Mbit", "100Mbit");
	expect_canonical("rate", "1.5Gbit", "1500Mbit");
	expect_canonical("rate", "1Gbps", "1Gbit");
	expect_canonical("rate", "64000", "64kbit");
	expect_error("rate", "100MB", -EINVAL);
	expect_canonical("freq", "48k", "48k");
	expect_canonical("freq", "44.1k", "44100");
	expect_canonical("freq", "96kHz", "96k");
	expect_error("freq", "1M", -ERANGE);
}

Test(params, enums_bools_doubles_ints)
{
	expect_canonical("op", "bcopy", "bcopy");
	expect_error("op", "memcpy", -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(b), "rd|wr|bcopy"), "choices listed: %s",
		  embperf_bench_errmsg(b));
	expect_canonical("flag", "yes", "1");
	expect_canonical("flag", "off", "0");
	expect_error("flag", "maybe", -EINVAL);
	expect_canonical("ratio", "5%", "0.05");
	expect_canonical("ratio", "0.25", "0.25");
	expect_error("ratio", "1.5", -ERANGE);
	expect_error("ratio", "nan", -ERANGE);
	expect_error("ratio", "half", -EINVAL);
	expect_canonical("count", "2k", "2000");
	expect_error("count", "0", -ERANGE);
	expect_error("count", "3.7", -EINVAL);
	expect_canonical("count", "1.5k", "1500");
	expect_error("size", "1.5", -EINVAL);
}

Test(params, typed_setters)
{
	char buf[64];

	cr_assert_eq(embperf_bench_set_int(b, "size", 8192), 0);
	embperf_bench_get(b, "size", buf, sizeof(buf));
	cr_assert_str_eq(buf, "8k");
	cr_assert_eq(embperf_bench_set_int(b, "period", 2000000), 0, "durations take ns");
	embperf_bench_get(b, "period", buf, sizeof(buf));
	cr_assert_str_eq(buf, "2ms");
	cr_assert_eq(embperf_bench_set_int(b, "op", 1), -EINVAL, "enums take text");
	cr_assert_eq(embperf_bench_set_double(b, "ratio", 0.125), 0);
	embperf_bench_get(b, "ratio", buf, sizeof(buf));
	cr_assert_str_eq(buf, "0.125");
	cr_assert_eq(embperf_bench_set_double(b, "count", 2.5), -EINVAL);
	cr_assert_eq(embperf_bench_set_double(b, "count", 3.0), 0);
	cr_assert_eq(embperf_bench_set_int(b, "count", 0), -ERANGE);
}

Test(params, unknown_name_lists_accepted)
{
	cr_assert_eq(embperf_bench_set(b, "sise", "1M"), -ENOENT);
	cr_assert(strstr(embperf_bench_errmsg(b), "sise"));
	cr_assert(strstr(embperf_bench_errmsg(b), "size"), "lists the accepted names: %s",
		  embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_set(b, NULL, "1"), -ENOENT);
	cr_assert_eq(embperf_bench_set(b, "size", NULL), -EINVAL);
}

Test(params, strings_are_kept)
{
	expect_canonical("path", "/tmp/some file", "/tmp/some file");
}
