// SPDX-License-Identifier: MIT
/*
 * test_report_v2.c - what API 0.2 added around results: labels and
 * parameters as pairs (a value with a space survives a run, JSON and a
 * compare), the JSON report format version 2 (percentiles, distribution,
 * kernel-declared counters, trial log), the recorded version 1 reports in
 * tests/data, and the tables of results with a distribution.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/bench.h"
#include "lib/report/report.h"
#include "synth.h"

/* A value with everything the pairs syntax must quote: space, quote, backslash. */
#define AWKWARD_DIR_NAME "ep dir \"q\" back\\slash"

/**
 * make_tmpdir() - a fresh folder whose name holds AWKWARD_DIR_NAME.
 * Return: its path, malloc'd.
 */
static char *make_tmpdir(void)
{
	char templ[] = "/tmp/test_report_v2.XXXXXX";
	char *dir, *path;

	dir = mkdtemp(templ);
	cr_assert_not_null(dir);
	path = ep_asprintf("%s/%s", dir, AWKWARD_DIR_NAME);
	cr_assert_not_null(path);
	cr_assert_eq(mkdir(path, 0700), 0, "mkdir %s: %s", path, strerror(errno));
	return path;
}

/** remove_tmpdir() - remove @path (made by make_tmpdir()) and its parent. */
static void remove_tmpdir(char *path)
{
	char *slash;

	rmdir(path);
	slash = strrchr(path, '/');
	*slash = '\0';
	rmdir(path);
	free(path);
}

/**
 * param_of() - a parameter of @r through the public pair accessors.
 * Return: its value, or NULL when @r has no parameter @key.
 */
static const char *param_of(const embperf_result *r, const char *key)
{
	for (int i = 0; i < embperf_result_param_count(r); i++)
		if (!strcmp(embperf_result_param_key(r, i), key))
			return embperf_result_param_value(r, i);
	return NULL;
}

/* A quick run of the synthetic kernel with its string parameter 'path' set to @path. */
static embperf_bench *run_synth_with_path(embperf_ctx *ctx, const char *path)
{
	embperf_bench *b;

	memset(&synth_cfg, 0, sizeof(synth_cfg));
	synth_cfg.unit_ns = 1000;
	b = ep_bench_new_kernel(ctx, &synth_kernel);
	cr_assert_not_null(b);
	cr_assert_eq(embperf_bench_set(b, "path", path), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_set(b, "repetitions", "2"), 0);
	cr_assert_eq(embperf_bench_set(b, "sample_time", "100us"), 0);
	cr_assert_eq(embperf_bench_set(b, "counters", "0"), 0);
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_result_count(b), 1);
	return b;
}

Test(pairs, string_parameter_with_a_space_survives_run_json_and_compare)
{
	embperf_ctx *ctx = embperf_ctx_new();
	char *dir = make_tmpdir(), *file = ep_asprintf("%s/report.json", dir);
	embperf_bench *b = run_synth_with_path(ctx, dir);
	embperf_report *rep = embperf_report_new(ctx), *back;
	const embperf_result *r = embperf_bench_result(b, 0);
	char got[256];

	cr_assert_str_eq(param_of(r, "path"), dir);
	cr_assert_str_eq(param_of(r, "op"), "rd", "the pairs after it are intact too");
	cr_assert_eq(embperf_result_param_count(r), synth_kernel.n_params + ep_engine_n_params,
		     "one pair per parameter: '%s'", embperf_result_params(r));
	/* The one line form quotes the value, and the one parser reads it back. */
	cr_assert(strstr(embperf_result_params(r), "path=\"/tmp/"), "%s", embperf_result_params(r));
	cr_assert_eq(ep_labels_get(embperf_result_params(r), "path", got, sizeof(got)),
		     (int)strlen(dir));
	cr_assert_str_eq(got, dir);

	cr_assert_eq(embperf_report_add(rep, b, "synth-path"), 1);
	cr_assert_eq(embperf_report_save(rep, EMBPERF_FORMAT_JSON, file), 0, "%s",
		     embperf_report_errmsg(rep));
	back = embperf_report_load(ctx, file);
	cr_assert_not_null(back, "%s", embperf_ctx_errmsg(ctx));
	cr_assert_str_eq(param_of(embperf_report_find(back, "synth-path"), "path"), dir);
	cr_assert_str_eq(embperf_result_params(embperf_report_result(back, 0)),
			 embperf_result_params(embperf_report_result(rep, 0)));
	cr_assert_eq(embperf_report_compare(back, rep, 5.0), 0, "%s", embperf_report_errmsg(back));
	cr_assert_eq(embperf_result_verdict(embperf_report_result(back, 0)), EMBPERF_VERDICT_PASS);

	unlink(file);
	free(file);
	remove_tmpdir(dir);
	embperf_report_free(back);
	embperf_report_free(rep);
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

Test(pairs, label_values_with_spaces_are_found_by_titles_and_keys)
{
	struct embperf_result *r = ep_result_new("k.x", "m", "ns", "dev=\"/mnt/my disk\" op=rd", "");
	const struct embperf_result *list[1];
	embperf_report *rep = ep_report_alloc(NULL, NULL);
	char value[64];

	cr_assert_not_null(r);
	list[0] = r;
	cr_assert_eq(embperf_result_label_count(r), 2);
	cr_assert_str_eq(embperf_result_label_value(r, 0), "/mnt/my disk");
	cr_assert_eq(embperf_result_label(r, "dev", value, sizeof(value)),
		     (int)strlen("/mnt/my disk"));
	cr_assert_str_eq(value, "/mnt/my disk");
	cr_assert_eq(embperf_result_label(r, "op", value, sizeof(value)), 2);
	cr_assert_str_eq(value, "rd");
	cr_assert_eq(ep_report_add_results(rep, list, 1, "x-{dev}-{op}"), 1,
		     "%s", embperf_report_errmsg(rep));
	cr_assert_str_eq(embperf_result_title(embperf_report_result(rep, 0)), "x-/mnt/my disk-rd");
	cr_assert_eq(ep_report_add_results(rep, list, 1, NULL), 1);
	cr_assert_not_null(embperf_report_find(rep, "k.x/m[dev=\"/mnt/my disk\" op=rd]"));
	cr_assert_eq(ep_report_add_results(rep, list, 1, "{size}"), -EINVAL);
	cr_assert(strstr(embperf_report_errmsg(rep), "(dev, op)"), "%s",
		  embperf_report_errmsg(rep));
	embperf_report_free(rep);
	ep_result_free(r);
}
