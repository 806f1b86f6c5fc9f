// SPDX-License-Identifier: MIT
/*
 * test_ctx.c - versions, errors, features, context settings, system info.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

Test(ctx, version_matches_header)
{
	char text[32];

	cr_assert_eq(embperf_version_number(), EMBPERF_VERSION_NUMBER);
	snprintf(text, sizeof(text), "%d.%d.%d", EMBPERF_VERSION_MAJOR, EMBPERF_VERSION_MINOR,
		 EMBPERF_VERSION_PATCH);
	cr_assert_str_eq(embperf_version_string(), text);
	cr_assert_str_eq(EMBPERF_VERSION_STRING, text);
}

Test(ctx, strerror_names_codes)
{
	cr_assert(strstr(embperf_strerror(-ETIME), "ETIME"));
	cr_assert(strstr(embperf_strerror(ECANCELED), "ECANCELED"));
	cr_assert(strstr(embperf_strerror(-EOPNOTSUPP), "EOPNOTSUPP"));
	cr_assert_str_eq(embperf_strerror(0), "success");
	cr_assert_str_eq(embperf_strerror(-99999), "unknown error");
}

Test(ctx, features)
{
	cr_assert_eq(embperf_has_feature("json"), 1);
	cr_assert_eq(embperf_has_feature("teleport"), 0);
	cr_assert_eq(embperf_has_feature(NULL), 0);
	int perf = embperf_has_feature("perf");
	cr_assert(perf == 0 || perf == 1);
}

Test(ctx, free_null_is_a_noop)
{
	embperf_ctx_free(NULL);
	embperf_bench_free(NULL);
	embperf_free(NULL);
}

Test(ctx, sysinfo_describes_the_machine)
{
	embperf_ctx *ctx = embperf_ctx_new();
	int n = embperf_ctx_sysinfo_count(ctx);
	const char *cpus;

	cr_assert_gt(n, 5);
	for (int i = 0; i < n; i++) {
		const char *key = embperf_ctx_sysinfo_key(ctx, i);

		cr_assert(key && *key);
		cr_assert(embperf_ctx_sysinfo(ctx, key), "value of %s", key);
	}
	cr_assert_null(embperf_ctx_sysinfo_key(ctx, n));
	cpus = embperf_ctx_sysinfo(ctx, "cpus_online");
	cr_assert(cpus && atoi(cpus) >= 1);
	cr_assert_gt(ep_sysinfo_u64(ctx, "clock_resolution_ns"), 0);
	cr_assert_gt(ep_sysinfo_u64(ctx, "mem_total_bytes"), 1 << 20);
	cr_assert_null(embperf_ctx_sysinfo(ctx, "no_such_key"));
	cr_assert_str_eq(embperf_ctx_sysinfo(ctx, "library_version"), EMBPERF_VERSION_STRING);
	embperf_ctx_free(ctx);
}

Test(ctx, cpu_setting)
{
	embperf_ctx *ctx = embperf_ctx_new();

	cr_assert_eq(embperf_ctx_get_cpu(ctx), -1);
	cr_assert_eq(embperf_ctx_set_cpu(ctx, 0), 0);
	cr_assert_eq(embperf_ctx_get_cpu(ctx), 0);
	cr_assert_eq(embperf_ctx_set_cpu(ctx, 100000), -EINVAL);
	cr_assert(strstr(embperf_ctx_errmsg(ctx), "100000"), "%s", embperf_ctx_errmsg(ctx));
	cr_assert_eq(embperf_ctx_get_cpu(ctx), 0, "a failed set keeps the old CPU");
	cr_assert_eq(embperf_ctx_set_cpu(ctx, -1), 0);
	embperf_ctx_free(ctx);
}

static int log_lines;

static void count_log(void *user, int level, const char *msg)
{
	(void)user;
	(void)msg;
	cr_assert_leq(level, EMBPERF_LOG_DEBUG);
	log_lines++;
}

Test(ctx, log_callback_receives_debug_lines)
{
	embperf_ctx *ctx = embperf_ctx_new();
	embperf_bench *b;

	memset(&synth_cfg, 0, sizeof(synth_cfg));
	synth_cfg.unit_ns = 1000;
	b = ep_bench_new_kernel(ctx, &synth_kernel);
	cr_assert_eq(embperf_bench_set(b, "repetitions", "2"), 0);
	embperf_ctx_set_log_fn(ctx, count_log, NULL, EMBPERF_LOG_DEBUG);
	cr_assert_eq(embperf_bench_run(b), 0);
	cr_assert_gt(log_lines, 0);
	log_lines = 0;
	embperf_ctx_set_log_fn(ctx, count_log, NULL, EMBPERF_LOG_WARNING);
	cr_assert_eq(embperf_bench_run(b), 0);
	cr_assert_eq(log_lines, 0, "debug lines are filtered at warning level");
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

Test(ctx, unknown_kernel)
{
	embperf_ctx *ctx = embperf_ctx_new();

	errno = 0;
	cr_assert_null(embperf_bench_new(ctx, "mem.nothing"));
	cr_assert_eq(errno, ENOENT);
	cr_assert(strstr(embperf_ctx_errmsg(ctx), "mem.nothing"));
	cr_assert_null(embperf_bench_new(NULL, "mem.lat"));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(embperf_kernel_summary("mem.nothing"));
	cr_assert_eq(embperf_kernel_param_count("mem.nothing"), -ENOENT);
	cr_assert_eq(embperf_kernel_metric_count("mem.nothing"), -ENOENT);
	embperf_ctx_free(ctx);
}
