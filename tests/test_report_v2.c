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

#include "lib/core/registry.h"
#include "lib/core/trial.h"
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
	cr_assert_eq(embperf_result_param_count(r), ep_kernel_param_total(&synth_kernel),
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

/* ------------------------------------------------------------------------ */
/* JSON format version 2                                                    */
/* ------------------------------------------------------------------------ */

static const double lat_samples[] = { 12.5, 12.25, 13.75, 12.0 };
static const struct ep_pct some_pcts[] = {
	/* Out of order on purpose: results keep them ascending. */
	{ 99.9, 35.0 }, { 50.0, 11.875 }, { 99.0, 20.125 }, { 90.0, 15.5 }, { 99.99, 61.0625 },
};
static const struct ep_trial_row some_trials[] = {
	{ 1e9, 0.125, 0, 2000000000u }, { 5e8, 0.0, 1, 2000000123u }, { 7.5e8, 1e-6, 0, 1999999999u },
};

/* The test's distribution into @r: 1234567 operations, some_pcts. */
static void set_test_dist(struct embperf_result *r)
{
	r->has_dist = 1;
	r->dist_n = 1234567.0;
	r->dist_min = 0.75;
	r->dist_max = 80.25;
	r->dist_mean = 12.3456789;
	cr_assert_eq(ep_result_set_pcts(r, some_pcts, EP_ARRAY_SIZE(some_pcts)), 0);
}

/* A result as a trial kernel fills it: distribution, kernel counters, trial log. */
static struct embperf_result *trial_result(void)
{
	struct embperf_result *r = ep_result_new("test.trial", "latency", "us",
						 "dev=\"/mnt/my disk\" op=randread",
						 "dev=\"/mnt/my disk\" op=randread depth=4");

	cr_assert_not_null(r);
	cr_assert_eq(ep_result_set_samples(r, lat_samples, EP_ARRAY_SIZE(lat_samples)), 0);
	set_test_dist(r);
	cr_assert_eq(ep_result_add_named(r, "xruns", 3.0), 0);
	cr_assert_eq(ep_result_add_named(r, "short_writes", 0.0), 0);
	cr_assert_eq(ep_result_set_trials(r, "rate", "loss", some_trials,
					  EP_ARRAY_SIZE(some_trials)), 0);
	r->counters[EP_CTR_UNITS] = 1234567.0;
	r->counter_ok[EP_CTR_UNITS] = 1;
	return r;
}

/* A report holding trial_result() and a plain calibrated result. */
static struct embperf_report *trial_report(void)
{
	struct embperf_report *rep = ep_report_alloc("2026-01-02T03:04:05Z", NULL);
	struct embperf_result *plain = ep_result_new("mem.bw", "bandwidth", "MB/s", "op=rd", "");

	cr_assert_not_null(rep);
	cr_assert_not_null(plain);
	plain->higher_better = 1;
	cr_assert_eq(ep_result_set_samples(plain, lat_samples, 3), 0);
	cr_assert_eq(ep_report_append(rep, trial_result()), 0);
	cr_assert_eq(ep_report_append(rep, plain), 0);
	return rep;
}

/* Bits of a double, so NaN equals NaN and -0.0 differs from 0.0. */
static uint64_t bits(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

#define assert_same_double(a, b, what) \
	cr_assert_eq(bits(a), bits(b), "%s: %.17g vs %.17g", what, (a), (b))

/* The 0.2 parts of two results are the same, bit for bit. */
static void assert_same_trial_parts(const struct embperf_result *a, const struct embperf_result *b)
{
	cr_assert_eq(a->has_dist, b->has_dist);
	assert_same_double(a->dist_n, b->dist_n, "dist n");
	assert_same_double(a->dist_min, b->dist_min, "dist min");
	assert_same_double(a->dist_max, b->dist_max, "dist max");
	assert_same_double(a->dist_mean, b->dist_mean, "dist mean");
	cr_assert_eq(a->n_pcts, b->n_pcts);
	for (size_t i = 0; i < a->n_pcts; i++) {
		assert_same_double(a->pcts[i].pct, b->pcts[i].pct, "pct");
		assert_same_double(a->pcts[i].value, b->pcts[i].value, "pct value");
	}
	cr_assert_eq(a->n_named, b->n_named);
	for (size_t i = 0; i < a->n_named; i++) {
		cr_assert_str_eq(a->named[i].name, b->named[i].name);
		assert_same_double(a->named[i].value, b->named[i].value, a->named[i].name);
	}
	cr_assert_eq(a->n_trials, b->n_trials);
	for (size_t i = 0; i < a->n_trials; i++) {
		assert_same_double(a->trials[i].config, b->trials[i].config, "trial config");
		assert_same_double(a->trials[i].outcome, b->trials[i].outcome, "trial outcome");
		cr_assert_eq(a->trials[i].pass, b->trials[i].pass);
		cr_assert_eq(a->trials[i].duration_ns, b->trials[i].duration_ns);
	}
	if (a->n_trials) {
		cr_assert_str_eq(a->trial_config_name, b->trial_config_name);
		cr_assert_str_eq(a->trial_outcome_name, b->trial_outcome_name);
	}
	cr_assert_str_eq(a->labels, b->labels);
	cr_assert_str_eq(a->params, b->params);
}

Test(json_v2, round_trip_is_exact)
{
	struct embperf_report *rep = trial_report(), *back;
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON), *again;

	cr_assert_not_null(json);
	back = embperf_report_parse(NULL, json);
	cr_assert_not_null(back, "parse failed: errno %d", errno);
	cr_assert_eq(back->n_results, 2);
	for (int i = 0; i < 2; i++)
		assert_same_trial_parts(rep->results[i], back->results[i]);
	again = embperf_report_render(back, EMBPERF_FORMAT_JSON);
	cr_assert_str_eq(again, json, "a second generation renders the same text");
	free(again);
	free(json);
	embperf_report_free(back);
	embperf_report_free(rep);
}

Test(json_v2, loaded_parts_read_through_the_public_accessors)
{
	struct embperf_report *rep = trial_report(), *back;
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON);
	const embperf_result *r;
	double v = NAN, pct = NAN;

	back = embperf_report_parse(NULL, json);
	cr_assert_not_null(back);
	r = embperf_report_result(back, 0);
	cr_assert_eq(embperf_result_percentile_count(r), (int)EP_ARRAY_SIZE(some_pcts));
	cr_assert_eq(embperf_result_percentile(r, 99.9, &v), 0);
	assert_same_double(v, some_pcts[0].value, "p99.9");
	cr_assert_eq(embperf_result_percentile_at(r, 0, &pct, &v), 0);
	cr_assert_eq(pct, 50.0, "ascending order: the lowest first");
	cr_assert_eq(embperf_result_percentile(r, 75.0, &v), -ENOENT);
	assert_same_double(embperf_result_dist_stat(r, EMBPERF_STAT_N), 1234567.0, "dist n");
	assert_same_double(embperf_result_dist_stat(r, EMBPERF_STAT_MEAN), 12.3456789, "mean");
	cr_assert_eq(embperf_result_counter(r, "xruns", &v), 0);
	cr_assert_eq(v, 3.0);
	cr_assert_str_eq(embperf_result_counter_name(r, EP_CTR_COUNT), "xruns");
	cr_assert_str_eq(embperf_result_counter_name(r, EP_CTR_COUNT + 1), "short_writes");
	cr_assert_eq(embperf_result_trial_count(r), (int)EP_ARRAY_SIZE(some_trials));
	cr_assert_eq(embperf_result_trial(r, 1, EMBPERF_TRIAL_PASS, &v), 0);
	cr_assert_eq(v, 1.0);
	cr_assert_eq(embperf_result_trial(r, 2, EMBPERF_TRIAL_DURATION_NS, &v), 0);
	cr_assert_eq(v, (double)some_trials[2].duration_ns);
	cr_assert_str_eq(embperf_result_trial_name(r, EMBPERF_TRIAL_CONFIG), "rate");
	cr_assert_str_eq(embperf_result_trial_name(r, EMBPERF_TRIAL_OUTCOME), "loss");
	cr_assert_str_eq(embperf_result_label_value(r, 0), "/mnt/my disk");
	r = embperf_report_result(back, 1);
	cr_assert_eq(embperf_result_percentile(r, 50.0, &v), -ENODATA, "no distribution");
	cr_assert(isnan(embperf_result_dist_stat(r, EMBPERF_STAT_N)));
	cr_assert_eq(embperf_result_trial_count(r), 0);
	cr_assert_null(embperf_result_trial_name(r, EMBPERF_TRIAL_CONFIG));
	cr_assert_eq(embperf_result_counter_count(r), EP_CTR_COUNT);
	free(json);
	embperf_report_free(back);
	embperf_report_free(rep);
}

/* The member at @path ("results.0.trials.rows.1") of @root; NULL when absent. */
static json_object *at(json_object *root, const char *path)
{
	char *copy = strdup(path), *save = NULL;
	json_object *node = root;

	for (char *part = strtok_r(copy, ".", &save); part && node;
	     part = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(node, json_type_array))
			node = json_object_array_get_idx(node, (size_t)atoi(part));
		else if (!json_object_object_get_ex(node, part, &node))
			node = NULL;
	}
	free(copy);
	return node;
}

Test(json_v2, document_members)
{
	struct embperf_report *rep = trial_report();
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON);
	json_object *root = json_tokener_parse(json), *counters;
	const char *last = NULL;
	int seen_engine = 0;

	cr_assert_not_null(root);
	cr_assert_eq(json_object_get_int(at(root, "format_version")), 2);
	cr_assert_str_eq(json_object_get_string(at(root, "results.0.labels.dev")), "/mnt/my disk");
	cr_assert_str_eq(json_object_get_string(at(root, "results.0.params.depth")), "4");
	cr_assert_eq(json_object_array_length(at(root, "results.0.percentiles")),
		     EP_ARRAY_SIZE(some_pcts));
	cr_assert_eq(json_object_get_double(at(root, "results.0.percentiles.4.pct")), 99.99);
	cr_assert_eq(json_object_get_double(at(root, "results.0.percentiles.4.value")), 61.0625);
	cr_assert_eq(json_object_get_double(at(root, "results.0.distribution.n")), 1234567.0);
	cr_assert_eq(json_object_get_double(at(root, "results.0.distribution.max")), 80.25);
	cr_assert_str_eq(json_object_get_string(at(root, "results.0.trials.config")), "rate");
	cr_assert_str_eq(json_object_get_string(at(root, "results.0.trials.outcome")), "loss");
	cr_assert(json_object_is_type(at(root, "results.0.trials.rows.1.pass"), json_type_boolean));
	cr_assert_eq(json_object_get_int64(at(root, "results.0.trials.rows.1.duration_ns")),
		     (int64_t)some_trials[1].duration_ns);
	/* The kernel's counters come after all the engine's, in one object. */
	counters = at(root, "results.0.counters");
	json_object_object_foreach(counters, name, val)
	{
		(void)val;
		seen_engine += ep_counter_index(name) >= 0;
		if (ep_counter_index(name) < 0)
			cr_assert_eq(seen_engine, EP_CTR_COUNT, "%s before an engine counter", name);
		last = name;
	}
	cr_assert_str_eq(last, "short_writes");
	cr_assert_eq(json_object_get_double(at(root, "results.0.counters.xruns")), 3.0);
	/* A result without them has none of the 0.2 members. */
	cr_assert_null(at(root, "results.1.percentiles"));
	cr_assert_null(at(root, "results.1.distribution"));
	cr_assert_null(at(root, "results.1.trials"));
	json_object_put(root);
	free(json);
	embperf_report_free(rep);
}

/*
 * Parse the JSON of trial_report() with the member at @path replaced by
 * @value (JSON text; NULL deletes it). Return: the report or NULL, and the
 * context's message in @msg.
 */
static struct embperf_report *parse_changed(const char *path, const char *value, char *msg,
					    size_t size)
{
	struct embperf_report *rep = trial_report(), *back;
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON);
	char *parent_path = strdup(path), *leaf = strrchr(parent_path, '.');
	json_object *root = json_tokener_parse(json), *parent;
	embperf_ctx *ctx = embperf_ctx_new();

	if (leaf) {
		*leaf++ = '\0';
		parent = at(root, parent_path);
	} else {
		leaf = parent_path; /* a top-level member */
		parent = root;
	}
	cr_assert_not_null(parent, "no %s", parent_path);
	if (json_object_is_type(parent, json_type_array))
		json_object_array_put_idx(parent, (size_t)atoi(leaf), json_tokener_parse(value));
	else if (value)
		json_object_object_add(parent, leaf, json_tokener_parse(value));
	else
		json_object_object_del(parent, leaf);
	back = embperf_report_parse(ctx, json_object_to_json_string(root));
	snprintf(msg, size, "%s", embperf_ctx_errmsg(ctx));
	embperf_ctx_free(ctx);
	json_object_put(root);
	free(parent_path);
	free(json);
	embperf_report_free(rep);
	return back;
}

Test(json_v2, unknown_members_are_ignored)
{
	static const char *const paths[] = {
		"future_top", "results.0.future_member", "results.0.distribution.stddev",
		"results.0.percentiles.0.error_bound", "results.0.trials.unit",
		"results.0.trials.rows.0.peer_cpu_pct",
	};

	for (size_t i = 0; i < EP_ARRAY_SIZE(paths); i++) {
		char msg[EP_ERRMSG_MAX];
		struct embperf_report *back = parse_changed(paths[i], "{\"any\": [1, null]}", msg,
							    sizeof(msg));

		cr_assert_not_null(back, "%s: %s", paths[i], msg);
		cr_assert_eq(back->results[0]->n_trials, EP_ARRAY_SIZE(some_trials));
		cr_assert_eq(back->results[0]->n_pcts, EP_ARRAY_SIZE(some_pcts));
		embperf_report_free(back);
	}
}

Test(json_v2, malformed_members_are_named)
{
	static const struct {
		const char *path, *value, *place, *expected;
	} cases[] = {
		{ "results.0.percentiles.1.pct", "\"x\"", "results[0].percentiles[1].pct", "a finite number" },
		{ "results.0.percentiles.1.pct", "0", "results[0].percentiles[1].pct", "above 0 and at most 100" },
		{ "results.0.percentiles.1.pct", "100.5", "results[0].percentiles[1].pct", "above 0 and at most 100" },
		{ "results.0.percentiles.1.value", NULL, "results[0].percentiles[1].value", "a finite number or null" },
		{ "results.0.percentiles.2", "7", "results[0].percentiles[2]", "an object" },
		{ "results.0.percentiles", "{}", "results[0].percentiles", "an array" },
		{ "results.0.distribution", NULL, "results[0].distribution", "need their distribution" },
		{ "results.0.distribution.n", NULL, "results[0].distribution.n", "a finite number" },
		{ "results.0.distribution.mean", "\"m\"", "results[0].distribution.mean", "a finite number or null" },
		{ "results.0.counters.xruns", "\"many\"", "results[0].counters.xruns", "a finite number or null" },
		{ "results.0.trials.config", NULL, "results[0].trials.config", "a non-empty string" },
		{ "results.0.trials.rows", "{}", "results[0].trials.rows", "an array" },
		{ "results.0.trials.rows.0.pass", "1", "results[0].trials.rows[0].pass", "true or false" },
		{ "results.0.trials.rows.2.duration_ns", "-5", "results[0].trials.rows[2].duration_ns", "an integer from 0" },
		{ "results.0.trials.rows.0.duration_ns", NULL, "results[0].trials.rows[0].duration_ns", "an integer from 0" },
		{ "results.0.trials.rows.1", "[]", "results[0].trials.rows[1]", "an object {\"config\", \"outcome\", \"pass\", \"duration_ns\"}" },
		{ "results.0.trials.rows.1.outcome", NULL, "results[0].trials.rows[1].outcome", "a finite number or null" },
		{ "results.0.trials", "[]", "results[0].trials", "an object" },
	};

	for (size_t i = 0; i < EP_ARRAY_SIZE(cases); i++) {
		char msg[EP_ERRMSG_MAX];
		struct embperf_report *back;

		errno = 0;
		back = parse_changed(cases[i].path, cases[i].value, msg, sizeof(msg));
		cr_expect_null(back, "case %zu (%s) was accepted", i, cases[i].path);
		embperf_report_free(back);
		cr_expect_eq(errno, EBADMSG, "case %zu: errno %d", i, errno);
		cr_expect(strstr(msg, cases[i].place), "case %zu: '%s' lacks the place '%s'", i, msg,
			  cases[i].place);
		cr_expect(strstr(msg, cases[i].expected), "case %zu: '%s' lacks '%s'", i, msg,
			  cases[i].expected);
	}
}

/* Write @text to a new file in a fresh folder; return its path (malloc'd). */
static char *write_temp(const char *text, size_t len)
{
	char templ[] = "/tmp/test_report_v2.XXXXXX", *dir = mkdtemp(templ), *path;
	FILE *f;

	cr_assert_not_null(dir);
	path = ep_asprintf("%s/report.json", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* Remove the file write_temp() made, and its folder. */
static void remove_temp(char *path)
{
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	free(path);
}

Test(json_v2, truncated_file_names_the_file_and_the_place)
{
	struct embperf_report *rep = trial_report();
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON);
	/* Cut inside the trial log, as a full disk or a killed writer would. */
	char *cut = strstr(json, "\"duration_ns\"");
	char *path = write_temp(json, (size_t)(cut - json));
	embperf_ctx *ctx = embperf_ctx_new();
	const char *msg;

	errno = 0;
	cr_assert_null(embperf_report_load(ctx, path));
	cr_assert_eq(errno, EBADMSG);
	msg = embperf_ctx_errmsg(ctx);
	cr_assert(strstr(msg, path), "'%s' names no file", msg);
	cr_assert(strstr(msg, "line "), "'%s' names no place", msg);
	cr_assert(strstr(msg, "ends early"), "'%s' says not what was expected", msg);
	remove_temp(path);
	embperf_ctx_free(ctx);
	free(json);
	embperf_report_free(rep);
}

Test(json_v2, future_format_version_is_refused_naming_what_is_accepted)
{
	struct embperf_report *rep = trial_report();
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON);
	char *v = strstr(json, "\"format_version\": 2"), *path;
	embperf_ctx *ctx = embperf_ctx_new();
	const char *msg;

	cr_assert_not_null(v, "%.200s", json);
	v[strlen("\"format_version\": ")] = '3';
	path = write_temp(json, strlen(json));
	errno = 0;
	cr_assert_null(embperf_report_load(ctx, path));
	cr_assert_eq(errno, EBADMSG);
	msg = embperf_ctx_errmsg(ctx);
	cr_assert(strstr(msg, path), "%s", msg);
	cr_assert(strstr(msg, "format_version: expected 1 to 2, found 3"), "%s", msg);
	cr_assert(strstr(msg, "reads versions 1 to 2"), "%s", msg);
	remove_temp(path);
	embperf_ctx_free(ctx);
	free(json);
	embperf_report_free(rep);
}

/* ------------------------------------------------------------------------ */
/* Recorded version 1 reports (tests/data, written by the 0.1 format)       */
/* ------------------------------------------------------------------------ */

static const char *const v1_files[] = {
	TEST_SRCDIR "/data/report-v1-suite.json", /* a suite, compared: verdicts, missing */
	TEST_SRCDIR "/data/report-v1-run.json",   /* one run, tmpdir with a space */
};

/* Every pair of the JSON object @obj is a pair of @r (through the public accessors). */
static void assert_pairs_match(json_object *obj, const embperf_result *r, int labels)
{
	int n = 0;

	json_object_object_foreach(obj, name, val)
	{
		const char *got = NULL;
		int count = labels ? embperf_result_label_count(r) : embperf_result_param_count(r);

		for (int i = 0; i < count && !got; i++) {
			const char *key = labels ? embperf_result_label_key(r, i)
						 : embperf_result_param_key(r, i);

			if (!strcmp(key, name))
				got = labels ? embperf_result_label_value(r, i)
					     : embperf_result_param_value(r, i);
		}
		cr_assert_not_null(got, "no pair '%s'", name);
		cr_assert_str_eq(got, json_object_get_string(val), "pair '%s'", name);
		n++;
	}
	cr_assert_eq(n, labels ? embperf_result_label_count(r) : embperf_result_param_count(r));
}

/* Result @i of @rep holds what the version 1 file's result object @res says. */
static void assert_v1_result(const embperf_report *rep, int i, json_object *res)
{
	const embperf_result *r = embperf_report_result(rep, i);
	char key[256];

	cr_assert_not_null(r);
	embperf_result_key(r, key, sizeof(key));
	cr_assert_str_eq(key, json_object_get_string(at(res, "key")));
	assert_same_double(embperf_result_value(r), json_object_get_double(at(res, "value")),
			   "value");
	cr_assert_eq(embperf_result_stat(r, EMBPERF_STAT_N),
		     (double)json_object_get_int(at(res, "stats.n")));
	cr_assert_eq((size_t)embperf_result_sample_count(r),
		     json_object_array_length(at(res, "samples")));
	assert_pairs_match(at(res, "labels"), r, 1);
	assert_pairs_match(at(res, "params"), r, 0);
	if (at(res, "verdict"))
		cr_assert_str_eq(ep_verdict_name(embperf_result_verdict(r)),
				 json_object_get_string(at(res, "verdict")));
	cr_assert_eq(embperf_result_percentile_count(r), 0);
	cr_assert_eq(embperf_result_counter_count(r), EP_CTR_COUNT);
	cr_assert_eq(embperf_result_trial_count(r), 0);
}

Test(json_v1, recorded_reports_still_load)
{
	for (size_t f = 0; f < EP_ARRAY_SIZE(v1_files); f++) {
		embperf_ctx *ctx = embperf_ctx_new();
		embperf_report *rep = embperf_report_load(ctx, v1_files[f]);
		json_object *root = json_object_from_file(v1_files[f]), *results;
		json_object *missing;

		cr_assert_not_null(rep, "%s", embperf_ctx_errmsg(ctx));
		cr_assert_not_null(root);
		cr_assert_eq(json_object_get_int(at(root, "format_version")), 1, "%s", v1_files[f]);
		results = at(root, "results");
		cr_assert_gt(json_object_array_length(results), 0);
		cr_assert_eq((size_t)embperf_report_result_count(rep), json_object_array_length(results));
		for (int i = 0; i < embperf_report_result_count(rep); i++)
			assert_v1_result(rep, i, json_object_array_get_idx(results, (size_t)i));
		missing = at(root, "missing");
		cr_assert_eq(rep->n_missing, missing ? (int)json_object_array_length(missing) : 0);
		json_object_put(root);
		embperf_report_free(rep);
		embperf_ctx_free(ctx);
	}
}

Test(json_v1, a_path_with_a_space_in_a_v1_file_is_one_parameter)
{
	embperf_report *rep = embperf_report_load(NULL, v1_files[1]);
	const embperf_result *r;

	cr_assert_not_null(rep);
	r = embperf_report_result(rep, 0);
	cr_assert_str_eq(param_of(r, "tmpdir"), "/tmp/ep v1 dir");
	cr_assert_str_eq(param_of(r, "file"), "");
	cr_assert_str_eq(param_of(r, "op"), "stat");
	embperf_report_free(rep);
}

/* Load @path with the value of result @index multiplied by @factor (JSON edited). */
static embperf_report *load_scaled(const char *path, int index, double factor)
{
	json_object *root = json_object_from_file(path), *res;
	embperf_report *rep;

	cr_assert_not_null(root);
	res = json_object_array_get_idx(at(root, "results"), (size_t)index);
	json_object_object_add(res, "value",
			       json_object_new_double(json_object_get_double(at(res, "value")) *
						      factor));
	rep = embperf_report_parse(NULL, json_object_to_json_string(root));
	cr_assert_not_null(rep);
	json_object_put(root);
	return rep;
}

Test(json_v1, recorded_reports_compare)
{
	embperf_report *v1 = embperf_report_load(NULL, v1_files[0]), *again, *better;
	char *v2_text = embperf_report_render(v1, EMBPERF_FORMAT_JSON);
	const embperf_result *bw;

	cr_assert_not_null(v1);
	cr_assert_not_null(v2_text);
	cr_assert(strstr(v2_text, "\"format_version\": 2"));
	/* Against itself, rewritten as version 2: every result passes, ratio 1. */
	again = embperf_report_parse(NULL, v2_text);
	cr_assert_not_null(again);
	cr_assert_eq(embperf_report_compare(again, v1, 5.0), 0, "%s", embperf_report_errmsg(again));
	for (int i = 0; i < embperf_report_result_count(again); i++) {
		double base, ratio;

		cr_assert_eq(embperf_result_verdict(embperf_report_result(again, i)),
			     EMBPERF_VERDICT_PASS);
		cr_assert_eq(embperf_result_baseline(embperf_report_result(again, i), &base, &ratio), 0);
		cr_assert_eq(ratio, 1.0);
	}
	/* A baseline ten times better: the bandwidth regressed, the other passes. */
	better = load_scaled(v1_files[0], 0, 10.0);
	cr_assert_eq(embperf_report_compare(again, better, 5.0), 1);
	bw = embperf_report_find(again, "bw-rd-64k");
	cr_assert_not_null(bw);
	cr_assert_eq(embperf_result_verdict(bw), EMBPERF_VERDICT_REGRESSED);
	cr_assert_eq(embperf_result_verdict(embperf_report_find(again, "lat-stat")),
		     EMBPERF_VERDICT_PASS);
	embperf_report_free(better);
	embperf_report_free(again);
	free(v2_text);
	embperf_report_free(v1);
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * The row value the tables must show for trial_result(), built here from
 * the figures the test gave it: "mean (min X, pP V, ..., max Y)".
 */
static void dist_text(char *buf, size_t size)
{
	static const struct ep_pct sorted[] = {
		{ 50.0, 11.875 }, { 90.0, 15.5 }, { 99.0, 20.125 }, { 99.9, 35.0 }, { 99.99, 61.0625 },
	};
	int len = snprintf(buf, size, "%.2f (min %.2f", 12.3456789, 0.75);

	for (size_t i = 0; i < EP_ARRAY_SIZE(sorted); i++)
		len += snprintf(buf + len, size - (size_t)len, ", p%g %.2f", sorted[i].pct,
				sorted[i].value);
	snprintf(buf + len, size - (size_t)len, ", max %.2f)", 80.25);
}

Test(tables, distribution_row_text_and_markdown)
{
	struct embperf_report *rep = trial_report();
	char want[256], plain[64];

	snprintf(plain, sizeof(plain), "%.2f (min %.2f, max %.2f)",
		 (lat_samples[0] + lat_samples[1] + lat_samples[2]) / 3, lat_samples[1],
		 lat_samples[2]);
	dist_text(want, sizeof(want));
	cr_assert_str_eq(want, "12.35 (min 0.75, p50 11.88, p90 15.50, p99 20.12, p99.9 35.00, p99.99 61.06, max 80.25)");
	for (int markdown = 0; markdown < 2; markdown++) {
		char *text = embperf_report_render(rep, markdown ? EMBPERF_FORMAT_MARKDOWN
								 : EMBPERF_FORMAT_TEXT);

		cr_assert_not_null(text);
		cr_assert(strstr(text, want), "'%s' not in:\n%s", want, text);
		/* n: the trials' samples, then the operations and the trials counted. */
		cr_assert(strstr(text, "4 (1234567 ops, 3 trials)"), "%s", text);
		/* The plain result keeps the seeds' mean (min, max) of its samples. */
		cr_assert(strstr(text, plain), "'%s' not in:\n%s", plain, text);
		free(text);
	}
	embperf_report_free(rep);
}

Test(tables, searched_result_shows_its_trial_count)
{
	struct embperf_result *r = ep_result_new("net.x", "throughput", "bit/s", "", "");
	struct embperf_report *rep = ep_report_alloc(NULL, NULL);
	char *text;

	cr_assert_not_null(r);
	cr_assert_eq(ep_result_set_samples(r, lat_samples, 1), 0);
	cr_assert_eq(ep_result_set_trials(r, "rate", "loss", some_trials, 1), 0);
	r->truncated = 1;
	cr_assert_eq(ep_report_append(rep, r), 0);
	text = embperf_report_render(rep, EMBPERF_FORMAT_TEXT);
	cr_assert(strstr(text, "| 1 (1 trial, truncated)\n"), "%s", text);
	free(text);
	embperf_report_free(rep);
}

/* Occurrences of @needle in @text. */
static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * Without a row title the key is kernel/metric[labels], so the "kernel and
 * labels" column would say it again on every row: it is left out.
 * A titled row (a suite's or the guide's name) keeps the column.
 */
Test(tables, the_kernel_column_appears_only_where_a_title_hides_the_kernel)
{
	struct embperf_result *r = ep_result_new("mem.lat", "latency", "ns", "size=16k", "");
	struct embperf_report *rep = ep_report_alloc(NULL, NULL);
	char *text, *md;

	cr_assert_not_null(r);
	cr_assert_eq(ep_result_set_samples(r, lat_samples, 3), 0);
	cr_assert_eq(ep_report_append(rep, r), 0);
	text = embperf_report_render(rep, EMBPERF_FORMAT_TEXT);
	md = embperf_report_render(rep, EMBPERF_FORMAT_MARKDOWN);
	cr_assert(!strstr(text, "kernel and labels"), "%s", text);
	cr_assert_eq(count_of(text, "size=16k"), 1, "the labels once:\n%s", text);
	cr_assert_eq(count_of(md, "size=16k"), 1, "the labels once:\n%s", md);
	free(text);
	free(md);
	cr_assert_eq(ep_result_set_title(r, "lat_mem_rd-16k"), 0);
	text = embperf_report_render(rep, EMBPERF_FORMAT_TEXT);
	cr_assert(strstr(text, "kernel and labels"), "%s", text);
	cr_assert(strstr(text, "| mem.lat size=16k\n"), "%s", text);
	free(text);
	embperf_report_free(rep);
}

/* A result of @kernel with @labels and three samples; a distribution when @dist. */
static struct embperf_result *labelled(const char *kernel, const char *metric, const char *labels,
				       int dist)
{
	struct embperf_result *r = ep_result_new(kernel, metric, dist ? "us" : "MB/s", labels, "");

	cr_assert_not_null(r);
	cr_assert_eq(ep_result_set_samples(r, lat_samples, 3), 0);
	if (dist)
		set_test_dist(r);
	return r;
}

/* The widest line of @text, in bytes. */
static size_t widest_line(const char *text)
{
	size_t widest = 0;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		widest = n > widest ? n : widest;
		p += n + (p[n] == '\n');
	}
	return widest;
}

/*
 * Without titles the text table names each kernel once, with the labels all
 * its rows share, and each row by its metric and the labels that differ:
 * one blk.io-like run fits 160 columns, and a quoted label keeps its quotes.
 */
Test(tables, labels_are_printed_once_per_kernel_and_a_run_fits_160_columns)
{
	static const char shared[] = "rw=read bs=4k size=8M direct=0 jobs=1 sync=none engine=psync";
	struct embperf_report *rep = ep_report_alloc(NULL, NULL);
	char *text;

	cr_assert_eq(ep_report_append(rep, labelled("blk.x", "bandwidth", shared, 0)), 0);
	cr_assert_eq(ep_report_append(rep, labelled("blk.x", "latency", shared, 1)), 0);
	cr_assert_eq(ep_report_append(rep, labelled("mem.x", "bw", "stride=64 size=16k", 0)), 0);
	cr_assert_eq(ep_report_append(rep, labelled("mem.x", "bw", "stride=64 size=32k", 0)), 0);
	cr_assert_eq(ep_report_append(rep, labelled("dev.x", "bw", "dev=\"/mnt/my disk\"", 0)),
		     0);
	text = embperf_report_render(rep, EMBPERF_FORMAT_TEXT);
	cr_assert_not_null(text);
	cr_assert(strstr(text, "\nblk.x [rw=read bs=4k size=8M direct=0 jobs=1 sync=none "
			       "engine=psync]\n  bandwidth (MB/s) "), "%s", text);
	cr_assert(strstr(text, "\n  latency (us) "), "%s", text);
	cr_assert_eq(count_of(text, "engine=psync"), 1, "the shared labels once:\n%s", text);
	cr_assert(strstr(text, "\nmem.x [stride=64]\n  bw[size=16k] (MB/s) "), "%s", text);
	cr_assert(strstr(text, "\n  bw[size=32k] (MB/s) "), "%s", text);
	cr_assert(strstr(text, "\ndev.x [dev=\"/mnt/my disk\"]\n  bw (MB/s) "), "%s", text);
	cr_assert_leq(widest_line(text), 160, "a line of %zu columns:\n%s", widest_line(text),
		      text);
	free(text);
	embperf_report_free(rep);
}

/* The trial log follows the table, one line per trial, in text and markdown. */
Test(tables, the_trial_log_is_printed_after_the_table)
{
	struct embperf_report *rep = trial_report();
	char *text = embperf_report_render(rep, EMBPERF_FORMAT_TEXT);
	char *md = embperf_report_render(rep, EMBPERF_FORMAT_MARKDOWN);

	cr_assert(strstr(text, "3 trials, rate searched, judged by loss"), "%s", text);
	cr_assert(strstr(text, "\n      2    500000000.00          0.00   yes    2000.0\n"), "%s", text);
	cr_assert(strstr(md, "| trial | rate | loss | pass | ms |"), "%s", md);
	cr_assert(strstr(md, "| 1 | "), "%s", md);
	cr_assert(strstr(md, " | no | 2000.0 |"), "%s", md);
	cr_assert(strstr(md, " | yes | 2000.0 |"), "%s", md);
	free(text);
	free(md);
	embperf_report_free(rep);
}

Test(tables, csv_columns_of_0_2)
{
	struct embperf_report *rep = trial_report();
	char *csv = embperf_report_render(rep, EMBPERF_FORMAT_CSV), *row;

	cr_assert_not_null(csv);
	cr_assert(strstr(csv, ",cpu_system_pct,dist_n,dist_mean,dist_min,dist_max,percentiles,trials,kernel_counters,flags,note\r\n"),
		  "%s", csv);
	row = strstr(csv, "\r\n") + 2;
	cr_assert(strstr(row, ",1234567,12.3456789,0.75,80.25,p50=11.875 p90=15.5 p99=20.125 p99.9=35 p99.99=61.0625,3,xruns=3 short_writes=0,,\r\n"),
		  "%s", row);
	row = strstr(row, "\r\n") + 2;
	cr_assert(strstr(row, ",,,,,,,\r\n"), "no distribution, trials or kernel counters: %s", row);
	free(csv);
	embperf_report_free(rep);
}

Test(json_v1, unknown_counters_of_a_v1_file_are_ignored)
{
	json_object *root = json_object_from_file(v1_files[1]);
	embperf_report *rep;

	cr_assert_not_null(root);
	json_object_object_add(at(root, "results.0.counters"), "xruns", json_object_new_int(3));
	rep = embperf_report_parse(NULL, json_object_to_json_string(root));
	cr_assert_not_null(rep);
	cr_assert_eq(embperf_result_counter_count(embperf_report_result(rep, 0)), EP_CTR_COUNT,
		     "version 1 had no kernel counters: the name is ignored, as 0.1 did");
	embperf_report_free(rep);
	/* The same member in a version 2 file is a counter of the kernel. */
	json_object_object_add(root, "format_version", json_object_new_int(2));
	rep = embperf_report_parse(NULL, json_object_to_json_string(root));
	cr_assert_not_null(rep);
	cr_assert_eq(embperf_result_counter_count(embperf_report_result(rep, 0)), EP_CTR_COUNT + 1);
	embperf_report_free(rep);
	json_object_put(root);
}
