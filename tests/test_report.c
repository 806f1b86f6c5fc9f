// SPDX-License-Identifier: MIT
/*
 * test_report.c - the report object: titles and keys, JSON round trip,
 * strict parsing and its messages, the text/markdown/CSV renderings, and
 * atomic saving. Results are built directly (no kernel runs, no timing).
 */
#include <criterion/criterion.h>
#include <dirent.h>
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
#include "lib/core/kernel.h"
#include "lib/report/report.h"
#include "synth.h"

/* A result with the given identity and samples. */
static struct embperf_result *mk(const char *kernel, const char *metric, const char *unit,
				 const char *labels, const double *samples, size_t n,
				 enum ep_primary primary, int higher_better)
{
	struct embperf_result *r = ep_result_new(kernel, metric, unit, labels, "size=1M op=rd");

	cr_assert_not_null(r);
	r->primary = primary;
	r->higher_better = higher_better;
	cr_assert_eq(ep_result_set_samples(r, samples, n), 0);
	return r;
}

/* Bits of a double, so NaN equals NaN and -0.0 differs from 0.0. */
static uint64_t bits(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

/* Mean of @n values, computed here rather than trusted from the library. */
static double mean_of(const double *v, size_t n)
{
	double sum = 0.0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

static double min_of(const double *v, size_t n)
{
	double m = v[0];

	for (size_t i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static double max_of(const double *v, size_t n)
{
	double m = v[0];

	for (size_t i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* Replace the parameters of @r by the pairs line @params (quoted values allowed). */
static void set_params(struct embperf_result *r, const char *params)
{
	free(r->params);
	ep_pairs_free(&r->param_kv);
	r->params = strdup(params);
	cr_assert_not_null(r->params);
	cr_assert_eq(ep_pairs_parse(params, &r->param_kv), 0);
}

static const double bw_samples[] = { 1926.11, 2020.2, 1968.5, 1971.25, 1955.0 };
static const double odd_samples[] = { 0.1, 1.0 / 3.0, 1e-300, 5e-324, 1.2345678901234567e150,
				      -0.0, 123456789.12345679, 2.5e-8 };

/* A report with sysinfo and four varied results. */
static struct embperf_report *sample_report(void)
{
	struct embperf_report *rep = ep_report_alloc("2024-05-01T12:00:00Z", NULL);
	struct embperf_result *r;
	double one = 42.125;

	cr_assert_not_null(rep);
	cr_assert_eq(ep_report_set_sysinfo(rep, "cpu_model", "Test CPU \"X\" @ 1GHz"), 0);
	cr_assert_eq(ep_report_set_sysinfo(rep, "cpus_online", "2"), 0);
	cr_assert_eq(ep_report_set_sysinfo(rep, "cache_l2_bytes", "1048576"), 0);
	cr_assert_eq(ep_report_set_sysinfo(rep, "kernel", "Linux 6.1.0"), 0);

	r = mk("mem.bw", "bandwidth", "MB/s", "op=bcopy size=1M", bw_samples, 5,
	       EP_PRIMARY_MEDIAN, 1);
	cr_assert_eq(ep_result_set_title(r, "bw_mem-bcopy-1mb"), 0);
	r->counters[EP_CTR_CPU_PROCESS_PCT] = 99.5;
	r->counter_ok[EP_CTR_CPU_PROCESS_PCT] = 1;
	r->counters[EP_CTR_UNITS] = 123456789.0;
	r->counter_ok[EP_CTR_UNITS] = 1;
	r->cpu = 1;
	cr_assert_eq(ep_report_append(rep, r), 0);

	r = mk("test.odd", "value", "ns", "", odd_samples, EP_ARRAY_SIZE(odd_samples),
	       EP_PRIMARY_MIN, EP_BETTER_ZERO); /* a signed error: better nearer zero */
	set_params(r, "path=\"/tmp/a b\" size=4k");
	r->truncated = 1;
	r->counters[EP_CTR_CPU_SYSTEM_PCT] = 0.0;
	r->counter_ok[EP_CTR_CPU_SYSTEM_PCT] = 1;
	cr_assert_eq(ep_report_append(rep, r), 0);

	r = mk("mem.lat", "latency", "ns", "size=64M stride=128", &one, 1, EP_PRIMARY_MIN, 0);
	cr_assert_eq(ep_report_append(rep, r), 0);

	r = mk("mem.lat", "latency", "ns", "size=1G", NULL, 0, EP_PRIMARY_MAX, 0);
	cr_assert_eq(ep_report_append(rep, r), 0);
	return rep;
}

static void assert_same_double(double a, double b, const char *what)
{
	cr_assert_eq(bits(a), bits(b), "%s: %.17g (%016llx) vs %.17g (%016llx)", what, a,
		     (unsigned long long)bits(a), b, (unsigned long long)bits(b));
}

static void assert_same_result(const struct embperf_result *a, const struct embperf_result *b)
{
	cr_assert_str_eq(a->kernel, b->kernel);
	cr_assert_str_eq(a->metric, b->metric);
	cr_assert_str_eq(a->unit, b->unit);
	cr_assert_str_eq(a->title, b->title);
	cr_assert_str_eq(a->labels, b->labels);
	cr_assert_str_eq(a->params, b->params);
	cr_assert_eq(a->param_kv.n, b->param_kv.n);
	for (size_t i = 0; i < a->param_kv.n; i++) {
		cr_assert_str_eq(a->param_kv.keys[i], b->param_kv.keys[i]);
		cr_assert_str_eq(a->param_kv.values[i], b->param_kv.values[i]);
	}
	cr_assert_eq(a->primary, b->primary);
	cr_assert_eq(a->higher_better, b->higher_better);
	cr_assert_eq(a->stats.n, b->stats.n);
	assert_same_double(a->stats.min, b->stats.min, "min");
	assert_same_double(a->stats.max, b->stats.max, "max");
	assert_same_double(a->stats.mean, b->stats.mean, "mean");
	assert_same_double(a->stats.median, b->stats.median, "median");
	assert_same_double(a->stats.stddev, b->stats.stddev, "stddev");
	assert_same_double(a->value, b->value, "value");
	cr_assert_eq(a->n_samples, b->n_samples);
	for (size_t i = 0; i < a->n_samples; i++)
		assert_same_double(a->samples[i], b->samples[i], "sample");
	for (int i = 0; i < EP_CTR_COUNT; i++) {
		cr_assert_eq(a->counter_ok[i], b->counter_ok[i], "counter %s availability",
			     ep_counter_name(i));
		if (a->counter_ok[i])
			assert_same_double(a->counters[i], b->counters[i], ep_counter_name(i));
	}
	cr_assert_eq(a->cpu, b->cpu);
	cr_assert_eq(a->truncated, b->truncated);
	cr_assert_eq(a->verdict, b->verdict);
	cr_assert_eq(a->has_baseline, b->has_baseline);
	if (a->has_baseline) {
		assert_same_double(a->baseline, b->baseline, "baseline");
		assert_same_double(a->ratio, b->ratio, "ratio");
	}
}

Test(report_json, round_trip_is_exact)
{
	struct embperf_report *rep = sample_report(), *back;
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON), *again;

	cr_assert_not_null(json);
	back = embperf_report_parse(NULL, json);
	cr_assert_not_null(back, "parse failed: errno %d", errno);
	cr_assert_eq(back->n_results, rep->n_results);
	for (int i = 0; i < rep->n_results; i++)
		assert_same_result(rep->results[i], back->results[i]);
	cr_assert_str_eq(back->created, "2024-05-01T12:00:00Z");
	cr_assert_str_eq(back->library_version, embperf_version_string());
	cr_assert_str_eq(embperf_report_sysinfo(back, "cpu_model"), "Test CPU \"X\" @ 1GHz");
	cr_assert_eq(back->n_sysinfo, rep->n_sysinfo);
	/* A second generation renders to the same text. */
	again = embperf_report_render(back, EMBPERF_FORMAT_JSON);
	cr_assert_str_eq(again, json);
	free(again);
	free(json);
	embperf_report_free(back);
	embperf_report_free(rep);
}

Test(report_json, document_members)
{
	struct embperf_report *rep = sample_report();
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON);
	json_object *root = json_tokener_parse(json), *v, *res, *x;

	cr_assert_not_null(root);
	cr_assert(json_object_object_get_ex(root, "format", &v));
	cr_assert_str_eq(json_object_get_string(v), "embperf-report");
	cr_assert(json_object_object_get_ex(root, "format_version", &v));
	cr_assert_eq(json_object_get_int(v), EP_REPORT_FORMAT_VERSION);
	cr_assert_eq(EP_REPORT_FORMAT_VERSION, 2);
	cr_assert(json_object_object_get_ex(root, "units_note", &v));
	cr_assert_str_eq(json_object_get_string(v),
			 "MB = 10^6 bytes; sizes use binary multiples k = 1024");
	cr_assert(json_object_object_get_ex(root, "generator", &v));
	cr_assert(json_object_object_get_ex(root, "system", &v));
	cr_assert(json_object_object_get_ex(v, "cpus_online", &x));
	cr_assert_str_eq(json_object_get_string(x), "2");
	cr_assert(!json_object_object_get_ex(root, "missing", &v), "not compared: no missing list");
	cr_assert(json_object_object_get_ex(root, "results", &v));
	res = json_object_array_get_idx(v, 0);
	cr_assert(json_object_object_get_ex(res, "key", &x));
	cr_assert_str_eq(json_object_get_string(x), "bw_mem-bcopy-1mb");
	cr_assert(json_object_object_get_ex(res, "labels", &x));
	cr_assert_str_eq(json_object_get_string(json_object_object_get(x, "op")), "bcopy");
	cr_assert_str_eq(json_object_get_string(json_object_object_get(x, "size")), "1M");
	cr_assert(json_object_object_get_ex(res, "better", &x));
	cr_assert_str_eq(json_object_get_string(x), "higher");
	x = json_object_object_get(json_object_array_get_idx(v, 1), "better");
	cr_assert_str_eq(json_object_get_string(x), "zero");
	x = json_object_object_get(json_object_array_get_idx(v, 2), "better");
	cr_assert_str_eq(json_object_get_string(x), "lower");
	cr_assert(json_object_object_get_ex(res, "counters", &x));
	cr_assert(json_object_object_get_ex(x, "cycles", &v));
	cr_assert_null(v, "an unavailable counter is null");
	cr_assert_float_eq(json_object_get_double(json_object_object_get(x, "cpu_process_pct")),
			   99.5, 0.0);
	/* The single-sample result has an undefined stddev: null. */
	res = json_object_array_get_idx(json_object_object_get(root, "results"), 2);
	cr_assert(json_object_object_get_ex(json_object_object_get(res, "stats"), "stddev", &v));
	cr_assert_null(v);
	cr_assert_str_eq(json_object_get_string(json_object_object_get(res, "key")),
			 "mem.lat/latency[size=64M stride=128]");
	/* A parameter value with a space stays one value. */
	res = json_object_array_get_idx(json_object_object_get(root, "results"), 1);
	x = json_object_object_get(res, "params");
	cr_assert_str_eq(json_object_get_string(json_object_object_get(x, "path")), "/tmp/a b");
	json_object_put(root);
	free(json);
	embperf_report_free(rep);
}

Test(report_json, created_is_utc_iso8601)
{
	struct embperf_report *rep = embperf_report_new(NULL);
	int y, mo, d, h, mi, s;
	char z = 0;

	cr_assert_not_null(rep);
	cr_assert_eq(sscanf(rep->created, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &z),
		     7, "created '%s'", rep->created);
	cr_assert_eq(z, 'Z');
	cr_assert(y >= 2020 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31);
	cr_assert_eq(strlen(rep->created), 20);
	embperf_report_free(rep);
}

/*
 * Replace the member at @path (dot-separated, "results.N" indexes arrays) of
 * the sample report's JSON by @value (JSON text, or NULL to delete it), and
 * parse the result.
 */
static struct embperf_report *parse_mutated(const char *path, const char *value, char *msg,
					    size_t msg_size)
{
	struct embperf_report *rep = sample_report(), *back;
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON), *copy = strdup(path);
	json_object *root = json_tokener_parse(json), *node = root;
	char *save = NULL, *part = strtok_r(copy, ".", &save), *next;
	embperf_ctx *ctx = embperf_ctx_new();

	cr_assert_not_null(root);
	for (; (next = strtok_r(NULL, ".", &save)); part = next) {
		if (json_object_is_type(node, json_type_array))
			node = json_object_array_get_idx(node, (size_t)atoi(part));
		else
			node = json_object_object_get(node, part);
		cr_assert_not_null(node, "no %s in %s", part, path);
	}
	if (json_object_is_type(node, json_type_array)) {
		json_object_array_put_idx(node, (size_t)atoi(part), json_tokener_parse(value));
	} else if (value) {
		json_object *v = json_tokener_parse(value);

		cr_assert(v || !strcmp(value, "null"), "bad test value %s", value);
		json_object_object_add(node, part, v);
	} else {
		json_object_object_del(node, part);
	}
	back = embperf_report_parse(ctx, json_object_to_json_string(root));
	snprintf(msg, msg_size, "%s", embperf_ctx_errmsg(ctx));
	embperf_ctx_free(ctx);
	json_object_put(root);
	free(copy);
	free(json);
	embperf_report_free(rep);
	return back;
}

Test(report_parse, malformed_members_are_named)
{
	static const struct {
		const char *path, *value, *place, *expected;
	} cases[] = {
		{ "results.1.stats.median", "\"abc\"", "results[1].stats.median", "a finite number or null" },
		{ "results.0.kernel", NULL, "results[0].kernel", "a non-empty string" },
		{ "results.2.metric", "7", "results[2].metric", "a non-empty string, found the number 7" },
		{ "results.2.kernel", "\"\"", "results[2].kernel", "a non-empty string" },
		{ "results.0.value", NULL, "results[0].value", "a finite number or null" },
		{ "results.0.better", "\"up\"", "results[0].better", "\"higher\", \"lower\" or \"zero\"" },
		{ "results.0.primary", "\"mean\"", "results[0].primary", "\"median\", \"min\" or \"max\"" },
		{ "results.0.stats.n", "-1", "results[0].stats.n", "an integer from 0" },
		{ "results.0.stats.n", "4", "results[0].samples", "4 samples" },
		{ "results.0.stats", "[]", "results[0].stats", "an object" },
		{ "results.1.samples.2", "\"x\"", "results[1].samples[2]", "a finite number or null" },
		{ "results.0.labels.op", "5", "results[0].labels.op", "a string, found the number 5" },
		{ "results.0.labels.a b", "\"x\"", "results[0].labels", "names without spaces" },
		{ "results.0.counters.cycles", "\"many\"", "results[0].counters.cycles", "a finite number or null" },
		{ "results.0.cpu", "1.5", "results[0].cpu", "an integer from -1" },
		{ "results.0.truncated", "1", "results[0].truncated", "true or false" },
		{ "results.3", "42", "results[3]", "an object" },
		{ "system.cpu_model", "5", "system.cpu_model", "a string" },
		{ "results", "{}", "results", "an array" },
		{ "results", NULL, "results", "an array" },
		{ "format", "\"other-report\"", "format", "\"embperf-report\"" },
		{ "format", NULL, "format", "a string" },
		{ "format_version", "3", "format_version", "expected 1 to 2, found 3" },
		{ "format_version", "0", "format_version", "an integer from 1" },
		{ "format_version", "\"1\"", "format_version", "an integer" },
		{ "created", "12", "created", "a string" },
	};

	for (size_t i = 0; i < EP_ARRAY_SIZE(cases); i++) {
		char msg[EP_ERRMSG_MAX];
		struct embperf_report *back;

		errno = 0;
		back = parse_mutated(cases[i].path, cases[i].value, msg, sizeof(msg));
		cr_expect_null(back, "case %zu (%s) was accepted", i, cases[i].path);
		embperf_report_free(back);
		cr_expect_eq(errno, EBADMSG, "case %zu: errno %d", i, errno);
		cr_expect(strstr(msg, cases[i].place), "case %zu: '%s' lacks the place '%s'", i, msg,
			  cases[i].place);
		cr_expect(strstr(msg, cases[i].expected), "case %zu: '%s' lacks '%s'", i, msg,
			  cases[i].expected);
		cr_expect(strstr(msg, "JSON text"), "case %zu: '%s' names no source", i, msg);
	}
}

Test(report_parse, optional_members_may_be_left_out)
{
	char msg[EP_ERRMSG_MAX];
	struct embperf_report *back = parse_mutated("results.0.samples", NULL, msg, sizeof(msg));

	cr_assert_not_null(back, "%s", msg);
	cr_assert_eq(embperf_result_sample_count(back->results[0]), 0);
	cr_assert_eq(embperf_result_stat(back->results[0], EMBPERF_STAT_N), 5.0,
		     "statistics come from the file");
	embperf_report_free(back);
	back = parse_mutated("results.0.counters", NULL, msg, sizeof(msg));
	cr_assert_not_null(back, "%s", msg);
	for (int i = 0; i < EP_CTR_COUNT; i++)
		cr_assert_eq(back->results[0]->counter_ok[i], 0);
	embperf_report_free(back);
	/* Format 2: a counter that is not the engine's is one the kernel declared. */
	back = parse_mutated("results.0.counters.future_counter", "3", msg, sizeof(msg));
	cr_assert_not_null(back, "%s", msg);
	cr_assert_eq(back->results[0]->n_named, 1);
	cr_assert_str_eq(embperf_result_counter_name(back->results[0], EP_CTR_COUNT),
			 "future_counter");
	embperf_report_free(back);
	/* ... unless null: an unavailable counter of a newer engine, skipped. */
	back = parse_mutated("results.0.counters.future_counter", "null", msg, sizeof(msg));
	cr_assert_not_null(back, "%s", msg);
	cr_assert_eq(back->results[0]->n_named, 0);
	embperf_report_free(back);
}

Test(report_parse, syntax_errors_and_garbage)
{
	static const char *const texts[] = {
		"", "   ", "hello", "{", "[]", "null", "42", "\"embperf-report\"",
		"{\"format\": \"embperf-report\", \"format_version\": 1, \"results\": [}",
		"{\"format\": \"embperf-report\", \"format_version\": 1, \"results\": []} x",
		"{\"format\": \"embperf-report\", \"format_version\": 1, \"results\": [NaN]}",
		"\x01\x02\xff\xfe",
	};
	embperf_ctx *ctx = embperf_ctx_new();

	for (size_t i = 0; i < EP_ARRAY_SIZE(texts); i++) {
		errno = 0;
		cr_expect_null(embperf_report_parse(ctx, texts[i]), "text %zu accepted", i);
		cr_expect_eq(errno, EBADMSG, "text %zu: errno %d", i, errno);
		cr_expect_neq(embperf_ctx_errmsg(ctx)[0], '\0', "text %zu: no message", i);
	}
	cr_assert_null(embperf_report_parse(ctx, "{\"a\":\n  tru}"));
	cr_assert(strstr(embperf_ctx_errmsg(ctx), "line 2"), "%s", embperf_ctx_errmsg(ctx));
	errno = 0;
	cr_assert_null(embperf_report_parse(ctx, NULL));
	cr_assert_eq(errno, EINVAL);
	embperf_ctx_free(ctx);
}

Test(report_parse, every_truncation_fails_cleanly)
{
	struct embperf_report *rep = sample_report();
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON);
	size_t len = strlen(json), end = len;

	/* The text ends with "}\n": anything shorter than the closing brace is cut. */
	while (end && json[end - 1] != '}')
		end--;
	for (size_t cut = 0; cut < end; cut++) {
		char *prefix = strndup(json, cut);
		struct embperf_report *back;

		errno = 0;
		back = embperf_report_parse(NULL, prefix);
		cr_expect_null(back, "prefix of %zu bytes accepted", cut);
		cr_expect_eq(errno, EBADMSG, "prefix of %zu bytes: errno %d", cut, errno);
		embperf_report_free(back);
		free(prefix);
	}
	free(json);
	embperf_report_free(rep);
}

Test(report_parse, corrupted_bytes_never_crash)
{
	struct embperf_report *rep = sample_report();
	char *json = embperf_report_render(rep, EMBPERF_FORMAT_JSON);
	size_t len = strlen(json);
	uint32_t state = 12345;
	int accepted = 0, rejected = 0;

	/* Deterministic xorshift: the same corruptions on every run. */
	for (int round = 0; round < 3000; round++) {
		char *copy = strdup(json);
		struct embperf_report *back;

		for (int k = 0; k < 1 + round % 3; k++) {
			state ^= state << 13;
			state ^= state >> 17;
			state ^= state << 5;
			copy[state % len] = (char)(1 + (state >> 8) % 255);
		}
		errno = 0;
		back = embperf_report_parse(NULL, copy);
		if (back) {
			accepted++;
			free(embperf_report_render(back, EMBPERF_FORMAT_TEXT));
		} else {
			rejected++;
			cr_expect(errno == EBADMSG, "round %d: errno %d", round, errno);
		}
		embperf_report_free(back);
		free(copy);
	}
	cr_assert_gt(rejected, 0, "no corruption was detected");
	cr_assert_eq(accepted + rejected, 3000);
	free(json);
	embperf_report_free(rep);
}

/* A fresh empty folder for file tests. */
static char *temp_dir(void)
{
	char *dir = strdup("/tmp/embperf-report-XXXXXX");

	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

/* Number of entries of @dir, without "." and "..". */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);
	size_t n;

	cr_assert_not_null(f);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(report_file, save_is_atomic_and_loads_back)
{
	struct embperf_report *rep = sample_report(), *back;
	char *dir = temp_dir(), path[512], bad[512], *text, *json;
	embperf_ctx *ctx = embperf_ctx_new();

	snprintf(path, sizeof(path), "%s/report.json", dir);
	cr_assert_eq(embperf_report_save(rep, EMBPERF_FORMAT_CSV, path), 0);
	cr_assert_eq(embperf_report_save(rep, EMBPERF_FORMAT_JSON, path), 0, "replacing: %s",
		     embperf_report_errmsg(rep));
	cr_assert_eq(dir_entries(dir), 1, "a temporary file was left behind");
	text = read_text(path);
	json = embperf_report_render(rep, EMBPERF_FORMAT_JSON);
	cr_assert_str_eq(text, json);
	back = embperf_report_load(ctx, path);
	cr_assert_not_null(back, "%s", embperf_ctx_errmsg(ctx));
	for (int i = 0; i < rep->n_results; i++)
		assert_same_result(rep->results[i], back->results[i]);

	/* A folder that does not exist: an error naming the path, no file anywhere. */
	snprintf(bad, sizeof(bad), "%s/nodir/report.json", dir);
	cr_assert_eq(embperf_report_save(rep, EMBPERF_FORMAT_JSON, bad), -ENOENT);
	cr_assert(strstr(embperf_report_errmsg(rep), bad), "%s", embperf_report_errmsg(rep));
	cr_assert_eq(dir_entries(dir), 1);
	/* The target is a folder: rename fails, the temporary file goes. */
	cr_assert_lt(embperf_report_save(rep, EMBPERF_FORMAT_TEXT, dir), 0);
	cr_assert_eq(dir_entries(dir), 1);
	snprintf(bad, sizeof(bad), "%s.tmp-%ld-0", dir, (long)getpid());
	cr_assert_neq(access(bad, F_OK), 0, "%s was left behind", bad);
	cr_assert_eq(embperf_report_save(rep, (enum embperf_format)9, path), -EINVAL);
	cr_assert(strstr(embperf_report_errmsg(rep), "format"));
	cr_assert_eq(embperf_report_save(rep, EMBPERF_FORMAT_JSON, ""), -EINVAL);
	free(text);
	text = read_text(path);
	cr_assert_str_eq(text, json, "failed saves left the file as it was");

	unlink(path);
	rmdir(dir);
	free(text);
	free(json);
	free(dir);
	embperf_report_free(back);
	embperf_report_free(rep);
	embperf_ctx_free(ctx);
}

Test(report_file, load_errors_name_the_file)
{
	char *dir = temp_dir(), path[512];
	embperf_ctx *ctx = embperf_ctx_new();
	FILE *f;

	snprintf(path, sizeof(path), "%s/absent.json", dir);
	errno = 0;
	cr_assert_null(embperf_report_load(ctx, path));
	cr_assert_eq(errno, ENOENT);
	cr_assert(strstr(embperf_ctx_errmsg(ctx), path), "%s", embperf_ctx_errmsg(ctx));

	errno = 0;
	cr_assert_null(embperf_report_load(ctx, dir));
	cr_assert_eq(errno, EISDIR);
	cr_assert(strstr(embperf_ctx_errmsg(ctx), dir));

	snprintf(path, sizeof(path), "%s/garbage.json", dir);
	f = fopen(path, "w");
	fputs("{\"format\": \"embperf-report\", \"format_version\": 1, \"results\": [{\"kernel\": 3}]}",
	      f);
	fclose(f);
	errno = 0;
	cr_assert_null(embperf_report_load(ctx, path));
	cr_assert_eq(errno, EBADMSG);
	cr_assert(strstr(embperf_ctx_errmsg(ctx), path), "%s", embperf_ctx_errmsg(ctx));
	cr_assert(strstr(embperf_ctx_errmsg(ctx), "results[0].kernel"));

	f = fopen(path, "w");
	fwrite("{\"a\"\0}", 1, 6, f);
	fclose(f);
	errno = 0;
	cr_assert_null(embperf_report_load(ctx, path));
	cr_assert_eq(errno, EBADMSG);
	cr_assert(strstr(embperf_ctx_errmsg(ctx), "NUL"));
	unlink(path);

	errno = 0;
	cr_assert_null(embperf_report_load(NULL, path), "a NULL context is allowed");
	cr_assert_eq(errno, ENOENT);
	rmdir(dir);
	free(dir);
	embperf_ctx_free(ctx);
}

Test(report_file, unreadable_file)
{
	char *dir = temp_dir(), path[512];
	embperf_ctx *ctx = embperf_ctx_new();
	FILE *f;

	if (geteuid() == 0) {
		rmdir(dir);
		free(dir);
		embperf_ctx_free(ctx);
		cr_skip_test("runs as root, which permissions do not stop: the test lacks an unprivileged user");
	}
	snprintf(path, sizeof(path), "%s/secret.json", dir);
	f = fopen(path, "w");
	fputs("{}", f);
	fclose(f);
	chmod(path, 0);
	errno = 0;
	cr_assert_null(embperf_report_load(ctx, path));
	cr_assert_eq(errno, EACCES);
	cr_assert(strstr(embperf_ctx_errmsg(ctx), path));
	unlink(path);
	rmdir(dir);
	free(dir);
	embperf_ctx_free(ctx);
}

/* A bench of the synthetic kernel holding @n given results, as after a run. */
static embperf_bench *bench_with(embperf_ctx *ctx, struct embperf_result **results, int n)
{
	embperf_bench *b = ep_bench_new_kernel(ctx, &synth_kernel);

	cr_assert_not_null(b);
	b->results = calloc((size_t)n, sizeof(*b->results));
	memcpy(b->results, results, (size_t)n * sizeof(*results));
	b->n_results = n;
	return b;
}

Test(report_add, title_templates)
{
	embperf_ctx *ctx = embperf_ctx_new();
	struct embperf_result *rs[] = {
		mk("mem.stream", "copy", "MB/s", "size=64M", bw_samples, 5, EP_PRIMARY_MAX, 1),
		mk("mem.stream", "triad", "MB/s", "size=64M", bw_samples, 3, EP_PRIMARY_MAX, 1),
	};
	embperf_bench *b = bench_with(ctx, rs, 2);
	embperf_report *rep = embperf_report_new(ctx);
	char key[128];

	cr_assert_eq(embperf_report_add(rep, b, "stream-{metric}-{size}"), 2);
	cr_assert_str_eq(embperf_result_title(embperf_report_result(rep, 0)), "stream-copy-64M");
	cr_assert_str_eq(embperf_result_title(embperf_report_result(rep, 1)), "stream-triad-64M");
	cr_assert_eq(embperf_report_find(rep, "stream-triad-64M"), embperf_report_result(rep, 1));
	cr_assert_neq((const void *)embperf_report_result(rep, 1), (const void *)rs[1],
		      "the report holds copies");

	/* A label the results lack: -EINVAL, a message, the report unchanged. */
	cr_assert_eq(embperf_report_add(rep, b, "bw_mem-{op}-1mb"), -EINVAL);
	cr_assert(strstr(embperf_report_errmsg(rep), "'op'"), "%s", embperf_report_errmsg(rep));
	cr_assert(strstr(embperf_report_errmsg(rep), "bw_mem-{op}-1mb"));
	cr_assert_eq(embperf_report_result_count(rep), 2);
	cr_assert_eq(embperf_report_add(rep, b, "stream-{metric"), -EINVAL);
	cr_assert(strstr(embperf_report_errmsg(rep), "closing"));
	cr_assert_eq(embperf_report_add(rep, b, "stream-{}"), -EINVAL);
	cr_assert_eq(embperf_report_add(rep, b, "stream"), -EINVAL, "two results, one title");
	cr_assert(strstr(embperf_report_errmsg(rep), "same"));
	cr_assert_eq(embperf_report_result_count(rep), 2);

	/* No title: the key derives from kernel, metric and labels. */
	cr_assert_eq(embperf_report_add(rep, b, NULL), 2);
	cr_assert_str_eq(embperf_result_title(embperf_report_result(rep, 2)), "");
	cr_assert_eq(embperf_result_key(embperf_report_result(rep, 2), key, sizeof(key)),
		     (int)strlen("mem.stream/copy[size=64M]"));
	cr_assert_str_eq(key, "mem.stream/copy[size=64M]");
	cr_assert_eq(embperf_report_find(rep, "mem.stream/triad[size=64M]"),
		     embperf_report_result(rep, 3));
	cr_assert_null(embperf_report_find(rep, "mem.stream/triad[size=64"));
	cr_assert_null(embperf_report_find(rep, "mem.stream/triad"));
	cr_assert_null(embperf_report_find(rep, "stream-add-64M"));
	cr_assert_eq(embperf_report_result_count(rep), 4);

	embperf_report_free(rep);
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

/*
 * "{metric:FROM=TO,...}": a data sheet's name for some metrics (TI's
 * THROUGHPUT column is the frame-based throughput_l2), the others' own.
 */
Test(report_add, title_template_renames_metrics)
{
	embperf_ctx *ctx = embperf_ctx_new();
	struct embperf_result *rs[] = {
		mk("net.udp.rfc2544", "throughput", "frames/s", "frame=64", bw_samples, 1,
		   EP_PRIMARY_MEDIAN, 1),
		mk("net.udp.rfc2544", "throughput_l2", "Mbit/s", "frame=64", bw_samples, 1,
		   EP_PRIMARY_MEDIAN, 1),
		mk("net.udp.rfc2544", "kpps", "kPPS", "frame=64", bw_samples, 1,
		   EP_PRIMARY_MEDIAN, 1),
	};
	embperf_bench *b = bench_with(ctx, rs, 3);
	embperf_report *rep = embperf_report_new(ctx);

	cr_assert_eq(embperf_report_add(rep, b, "udp-{frame}-{metric:throughput_l2=throughput,throughput=fps}"), 3,
		     "%s", embperf_report_errmsg(rep));
	cr_assert_str_eq(embperf_result_title(embperf_report_result(rep, 0)), "udp-64-fps");
	cr_assert_str_eq(embperf_result_title(embperf_report_result(rep, 1)), "udp-64-throughput");
	cr_assert_str_eq(embperf_result_title(embperf_report_result(rep, 2)), "udp-64-kpps");
	cr_assert_str_eq(embperf_result_metric(embperf_report_result(rep, 1)), "throughput_l2",
			 "only the title changes");

	/* TO may be empty: one result under the plain name. */
	cr_assert_eq(embperf_report_add(rep, b, "x{metric:kpps=,throughput=-fps,throughput_l2=-l2}"), 3);
	cr_assert_str_eq(embperf_result_title(embperf_report_result(rep, 5)), "x");

	/* Malformed lists, and a rename that makes two titles alike: refused, nothing added. */
	cr_assert_eq(embperf_report_add(rep, b, "u-{metric:kpps}"), -EINVAL);
	cr_assert(strstr(embperf_report_errmsg(rep), "FROM=TO"), "%s", embperf_report_errmsg(rep));
	cr_assert_eq(embperf_report_add(rep, b, "u-{metric:=x}"), -EINVAL);
	cr_assert_eq(embperf_report_add(rep, b, "u-{metric:a=b,}"), -EINVAL);
	cr_assert_eq(embperf_report_add(rep, b, "u-{metric:}"), -EINVAL);
	cr_assert_eq(embperf_report_add(rep, b, "u-{metric:a=b=c}"), -EINVAL);
	cr_assert_eq(embperf_report_add(rep, b, "u-{metric:throughput_l2=kpps}"), -EINVAL);
	cr_assert(strstr(embperf_report_errmsg(rep), "same"), "%s", embperf_report_errmsg(rep));
	cr_assert_eq(embperf_report_result_count(rep), 6);

	embperf_report_free(rep);
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

Test(report_add, one_result_with_a_plain_title)
{
	embperf_ctx *ctx = embperf_ctx_new();
	struct embperf_result *rs[] = {
		mk("mem.bw", "bandwidth", "MB/s", "op=bcopy size=1M", bw_samples, 5,
		   EP_PRIMARY_MEDIAN, 1),
	};
	embperf_bench *b = bench_with(ctx, rs, 1);
	embperf_report *rep = embperf_report_new(ctx);
	char key[8];

	cr_assert_eq(embperf_report_add(rep, b, "bw_mem-{op}-1mb"), 1);
	cr_assert_eq(embperf_report_add(rep, b, "copy"), 1);
	cr_assert_str_eq(embperf_result_title(embperf_report_result(rep, 0)), "bw_mem-bcopy-1mb");
	/* A short buffer: truncated, NUL-terminated, full length returned. */
	cr_assert_eq(embperf_result_key(embperf_report_result(rep, 0), key, sizeof(key)), 16);
	cr_assert_str_eq(key, "bw_mem-");
	cr_assert_eq(embperf_report_add(rep, NULL, NULL), -EINVAL);
	cr_assert_eq(embperf_report_add(NULL, b, NULL), -EINVAL);
	embperf_report_free(rep);
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

Test(report_add, new_report_records_the_context_system)
{
	embperf_ctx *ctx = embperf_ctx_new();
	embperf_report *rep = embperf_report_new(ctx);
	int n = embperf_ctx_sysinfo_count(ctx);

	cr_assert_gt(n, 0);
	for (int i = 0; i < n; i++) {
		const char *key = embperf_ctx_sysinfo_key(ctx, i);
		const char *want = embperf_ctx_sysinfo(ctx, key);

		if (want)
			cr_assert_str_eq(embperf_report_sysinfo(rep, key), want, "%s", key);
	}
	cr_assert_null(embperf_report_sysinfo(rep, "no_such_key"));
	cr_assert_eq(embperf_report_result_count(rep), 0);
	cr_assert_null(embperf_report_result(rep, 0));
	cr_assert_str_eq(embperf_report_errmsg(rep), "");
	embperf_report_free(rep);
	embperf_report_free(NULL);
	embperf_ctx_free(ctx);
}

/* The "mean (min X, max Y)" text the tables must show for @v, computed here. */
static void spread_text(const double *v, size_t n, char *buf, size_t size)
{
	snprintf(buf, size, "%.2f (min %.2f, max %.2f)", mean_of(v, n), min_of(v, n),
		 max_of(v, n));
}

Test(report_render, text_table)
{
	struct embperf_report *rep = sample_report();
	char *text = embperf_report_render(rep, EMBPERF_FORMAT_TEXT), want[128];

	cr_assert_not_null(text);
	spread_text(bw_samples, 5, want, sizeof(want));
	cr_assert(strstr(text, want), "'%s' not in:\n%s", want, text);
	cr_assert(strstr(text, "bw_mem-bcopy-1mb (MB/s)"));
	cr_assert(strstr(text, "mem.bw op=bcopy size=1M"));
	snprintf(want, sizeof(want), "median=%.2f", 1968.5);
	cr_assert(strstr(text, want), "%s", text);
	cr_assert(strstr(text, "bandwidth MB = 10^6 bytes/s"));
	cr_assert(strstr(text, embperf_version_string()));
	cr_assert(strstr(text, "Test CPU"));
	cr_assert(strstr(text, "L2 1M"), "%s", text);
	cr_assert(strstr(text, "Linux 6.1.0"));
	/* One sample: the value alone; none: n/a. */
	snprintf(want, sizeof(want), "| %.2f ", 42.125);
	cr_assert(strstr(text, want), "'%s' not in:\n%s", want, text);
	snprintf(want, sizeof(want), "%.2f (min", 42.125);
	cr_assert(!strstr(text, want));
	cr_assert(strstr(text, "| n/a "));
	cr_assert(strstr(text, "8 (truncated)"));
	cr_assert(!strstr(text, "verdict"), "not compared: no comparison columns");
	free(text);
	embperf_report_free(rep);
}

Test(report_render, markdown_table)
{
	struct embperf_report *rep = sample_report();
	char *md = embperf_report_render(rep, EMBPERF_FORMAT_MARKDOWN), want[256], spread[128];

	cr_assert_not_null(md);
	spread_text(bw_samples, 5, spread, sizeof(spread));
	snprintf(want, sizeof(want), "| bw_mem-bcopy-1mb (MB/s) | %s |", spread);
	cr_assert(strstr(md, want), "'%s' not in:\n%s", want, md);
	cr_assert(strstr(md, "| Benchmarks | value |"));
	cr_assert(strstr(md, "|---|---|"));
	cr_assert(strstr(md, "bandwidth MB = 10^6 bytes/s"));
	free(md);
	embperf_report_free(rep);
}

/* Split one CSV line (RFC 4180) into at most @max fields. Return: the count. */
static int csv_split(const char *line, char fields[][256], int max)
{
	int n = 0;

	while (n < max) {
		size_t len = 0;

		if (*line == '"') {
			for (line++; *line && !(*line == '"' && line[1] != '"'); line++) {
				if (*line == '"')
					line++;
				fields[n][len++] = *line;
			}
			line++;
		} else {
			while (*line && *line != ',' && *line != '\r')
				fields[n][len++] = *line++;
		}
		fields[n++][len] = '\0';
		if (*line != ',')
			break;
		line++;
	}
	return n;
}

Test(report_render, csv_rows)
{
	struct embperf_report *rep = sample_report();
	char *csv, *line, *save = NULL, fields[26][256];
	int n, rows = 0;

	cr_assert_eq(ep_result_set_title(rep->results[1], "odd, \"quoted\" title"), 0);
	csv = embperf_report_render(rep, EMBPERF_FORMAT_CSV);
	cr_assert_not_null(csv);
	cr_assert(strstr(csv, "\r\n"), "RFC 4180 line ends");
	cr_assert(!strncmp(csv, "title,key,kernel,metric,unit,labels,primary,value,n,mean,min,max,median,stddev,cpu_process_pct,cpu_system_pct,dist_n,dist_mean,dist_min,dist_max,percentiles,trials,kernel_counters,flags,note\r\n",
			   strlen("title,key,kernel,metric,unit,labels,primary,value,n,mean,min,max,median,stddev,cpu_process_pct,cpu_system_pct,dist_n,dist_mean,dist_min,dist_max,percentiles,trials,kernel_counters,flags,note\r\n")));
	cr_assert(strstr(csv, "\"odd, \"\"quoted\"\" title\""), "%s", csv);
	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save), rows++) {
		n = csv_split(line, fields, 26);
		cr_assert_eq(n, 25, "row %d has %d fields: %s", rows, n, line);
		if (rows == 1) {
			cr_assert_str_eq(fields[0], "bw_mem-bcopy-1mb");
			cr_assert_str_eq(fields[5], "op=bcopy size=1M");
			cr_assert_eq(strtod(fields[9], NULL), mean_of(bw_samples, 5));
			cr_assert_eq(strtod(fields[10], NULL), min_of(bw_samples, 5));
			cr_assert_eq(strtod(fields[11], NULL), max_of(bw_samples, 5));
			cr_assert_eq(strtod(fields[7], NULL), 1968.5, "value: the median");
			cr_assert_str_eq(fields[8], "5");
			cr_assert_eq(strtod(fields[14], NULL), 99.5);
			cr_assert_str_eq(fields[15], "", "an unavailable counter is empty");
		}
		if (rows == 2) {
			cr_assert_str_eq(fields[0], "odd, \"quoted\" title");
			cr_assert_eq(bits(strtod(fields[10], NULL)), bits(min_of(odd_samples, 8)),
				     "exact digits");
		}
	}
	cr_assert_eq(rows, 5, "header and four results");
	free(csv);
	embperf_report_free(rep);
}

Test(report_render, value_precision_and_bad_format)
{
	char buf[64];

	ep_report_format_value(1968.824, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1968.82");
	ep_report_format_value(0.1, buf, sizeof(buf));
	cr_assert_str_eq(buf, "0.10");
	ep_report_format_value(0.012345, buf, sizeof(buf));
	cr_assert_str_eq(buf, "0.0123");
	ep_report_format_value(0.0, buf, sizeof(buf));
	cr_assert_str_eq(buf, "0.00");
	ep_report_format_value(NAN, buf, sizeof(buf));
	cr_assert_str_eq(buf, "n/a");
	ep_report_format_value(2.5e-9, buf, sizeof(buf));
	cr_assert_str_eq(buf, "2.5e-09");

	struct embperf_report *rep = sample_report();

	errno = 0;
	cr_assert_null(embperf_report_render(rep, (enum embperf_format)42));
	cr_assert_eq(errno, EINVAL);
	errno = 0;
	cr_assert_null(embperf_report_render(NULL, EMBPERF_FORMAT_TEXT));
	cr_assert_eq(errno, EINVAL);
	embperf_report_free(rep);
}
