// SPDX-License-Identifier: MIT
/*
 * test_compare.c - embperf_report_compare(): verdicts in both directions at
 * the tolerance edges, missing metrics, zero and NaN baselines, tolerance
 * validation, and how a comparison shows in the renderings.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/report.h"

/* A one-sample result whose value is @value. */
static struct embperf_result *one(const char *title, const char *unit, double value,
				  int higher_better)
{
	struct embperf_result *r = ep_result_new("test.k", "m", unit, "", "");

	cr_assert_not_null(r);
	cr_assert_eq(ep_result_set_title(r, title), 0);
	r->higher_better = higher_better;
	cr_assert_eq(ep_result_set_samples(r, &value, 1), 0);
	cr_assert_eq(r->value, value);
	return r;
}

/* A report of one result per (title, value) pair. */
static struct embperf_report *report_of(const char *const *titles, const double *values, int n,
					int higher_better)
{
	struct embperf_report *rep = ep_report_alloc(NULL, NULL);

	cr_assert_not_null(rep);
	for (int i = 0; i < n; i++)
		cr_assert_eq(ep_report_append(rep, one(titles[i], "u", values[i], higher_better)),
			     0);
	return rep;
}

/* Verdict of @current against @baseline through the public compare. */
static int verdict_of(double current, double baseline, int higher_better, double tolerance_pct,
		      int *failures, double *ratio)
{
	static const char *const title[] = { "x" };
	struct embperf_report *cur = report_of(title, &current, 1, higher_better);
	struct embperf_report *base = report_of(title, &baseline, 1, higher_better);
	const embperf_result *r;
	double b = 0.0;
	int verdict;

	*failures = embperf_report_compare(cur, base, tolerance_pct);
	r = embperf_report_result(cur, 0);
	verdict = embperf_result_verdict(r);
	cr_assert_eq(embperf_result_baseline(r, &b, ratio), 0);
	cr_assert_eq(b, baseline);
	embperf_report_free(cur);
	embperf_report_free(base);
	return verdict;
}

Test(compare, higher_is_better_edges)
{
	static const struct {
		double current;
		int verdict;
	} cases[] = {
		{ 100.0, EMBPERF_VERDICT_PASS },     { 95.0, EMBPERF_VERDICT_PASS },
		{ 94.99, EMBPERF_VERDICT_REGRESSED }, { 105.0, EMBPERF_VERDICT_PASS },
		{ 105.01, EMBPERF_VERDICT_IMPROVED }, { 50.0, EMBPERF_VERDICT_REGRESSED },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double ratio = 0.0;
		int failures, v = verdict_of(cases[i].current, 100.0, 1, 5.0, &failures, &ratio);

		cr_expect_eq(v, cases[i].verdict, "%g against 100 at 5%%: verdict %d", cases[i].current,
			     v);
		cr_expect_eq(failures, v == EMBPERF_VERDICT_REGRESSED);
		cr_expect_eq(ratio, cases[i].current / 100.0);
	}
}

Test(compare, lower_is_better_edges)
{
	static const struct {
		double current;
		int verdict;
	} cases[] = {
		{ 100.0, EMBPERF_VERDICT_PASS },     { 105.0, EMBPERF_VERDICT_PASS },
		{ 105.01, EMBPERF_VERDICT_REGRESSED }, { 95.0, EMBPERF_VERDICT_PASS },
		{ 94.99, EMBPERF_VERDICT_IMPROVED }, { 300.0, EMBPERF_VERDICT_REGRESSED },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double ratio = 0.0;
		int failures, v = verdict_of(cases[i].current, 100.0, 0, 5.0, &failures, &ratio);

		cr_expect_eq(v, cases[i].verdict, "%g ns against 100 ns at 5%%: verdict %d",
			     cases[i].current, v);
		cr_expect_eq(failures, v == EMBPERF_VERDICT_REGRESSED);
	}
}

Test(compare, nearer_zero_is_better_whatever_the_sign)
{
	static const struct {
		double current, baseline;
		int verdict;
	} cases[] = {
		/* A rate error in ppm: the magnitude is judged, lower better. */
		{ -100.0, 100.0, EMBPERF_VERDICT_PASS },     { 100.0, -100.0, EMBPERF_VERDICT_PASS },
		{ -104.0, -100.0, EMBPERF_VERDICT_PASS },    { -200.0, -100.0, EMBPERF_VERDICT_REGRESSED },
		{ 200.0, -100.0, EMBPERF_VERDICT_REGRESSED }, { -5.0, 100.0, EMBPERF_VERDICT_IMPROVED },
		{ 5.0, -100.0, EMBPERF_VERDICT_IMPROVED },   { 0.0, 0.0, EMBPERF_VERDICT_PASS },
		{ -1.0, 0.0, EMBPERF_VERDICT_REGRESSED },    { 0.0, -3.0, EMBPERF_VERDICT_IMPROVED },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double ratio = 0.0;
		int failures, v = verdict_of(cases[i].current, cases[i].baseline, EP_BETTER_ZERO, 5.0,
					     &failures, &ratio);

		cr_expect_eq(v, cases[i].verdict, "%g ppm against %g ppm at 5%%: verdict %d",
			     cases[i].current, cases[i].baseline, v);
		cr_expect_eq(failures, v == EMBPERF_VERDICT_REGRESSED);
		if (cases[i].baseline != 0.0)
			cr_expect_float_eq(ratio, fabs(cases[i].current / cases[i].baseline), 1e-12);
	}
}

Test(compare, zero_tolerance_and_wide_tolerance)
{
	double ratio;
	int failures;

	cr_assert_eq(verdict_of(100.0, 100.0, 1, 0.0, &failures, &ratio), EMBPERF_VERDICT_PASS);
	cr_assert_eq(verdict_of(99.999, 100.0, 1, 0.0, &failures, &ratio),
		     EMBPERF_VERDICT_REGRESSED);
	cr_assert_eq(verdict_of(100.001, 100.0, 1, 0.0, &failures, &ratio),
		     EMBPERF_VERDICT_IMPROVED);
	/* 1000%: a tenfold rise is still within, a drop to zero is not a regression either. */
	cr_assert_eq(verdict_of(1100.0, 100.0, 0, 1000.0, &failures, &ratio), EMBPERF_VERDICT_PASS);
	cr_assert_eq(verdict_of(1100.5, 100.0, 0, 1000.0, &failures, &ratio),
		     EMBPERF_VERDICT_REGRESSED);
	cr_assert_eq(verdict_of(0.0, 100.0, 1, 1000.0, &failures, &ratio), EMBPERF_VERDICT_PASS);
}

Test(compare, zero_nan_and_negative_baselines)
{
	double ratio;

	/* Zero baseline: no ratio, any change counts. */
	cr_assert_eq(ep_judge(0.0, 0.0, 1, 5.0, &ratio), EMBPERF_VERDICT_PASS);
	cr_assert(isnan(ratio));
	cr_assert_eq(ep_judge(1e-9, 0.0, 1, 5.0, &ratio), EMBPERF_VERDICT_IMPROVED);
	cr_assert_eq(ep_judge(1e-9, 0.0, 0, 5.0, &ratio), EMBPERF_VERDICT_REGRESSED);
	cr_assert(isnan(ratio));
	/* No baseline value: not judged. No current value: regressed. */
	cr_assert_eq(ep_judge(10.0, NAN, 1, 5.0, &ratio), EMBPERF_VERDICT_NONE);
	cr_assert_eq(ep_judge(NAN, 10.0, 1, 5.0, &ratio), EMBPERF_VERDICT_REGRESSED);
	cr_assert_eq(ep_judge(NAN, 10.0, 0, 5.0, &ratio), EMBPERF_VERDICT_REGRESSED);
	/* Negative baseline: -20 is lower than -10 whatever the ratio says. */
	cr_assert_eq(ep_judge(-20.0, -10.0, 1, 5.0, &ratio), EMBPERF_VERDICT_REGRESSED);
	cr_assert_eq(ratio, 2.0);
	cr_assert_eq(ep_judge(-5.0, -10.0, 1, 5.0, &ratio), EMBPERF_VERDICT_IMPROVED);
	cr_assert_eq(ep_judge(-10.4, -10.0, 0, 5.0, &ratio), EMBPERF_VERDICT_PASS);
}

Test(compare, missing_metrics_and_new_results)
{
	static const char *const base_titles[] = { "a", "b", "c", "d" };
	static const double base_values[] = { 10.0, 20.0, 30.0, 40.0 };
	static const char *const cur_titles[] = { "a", "c", "new" };
	static const double cur_values[] = { 5.0, 30.0, 1.0 };
	struct embperf_report *base = report_of(base_titles, base_values, 4, 1);
	struct embperf_report *cur = report_of(cur_titles, cur_values, 3, 1);
	int failures = embperf_report_compare(cur, base, 10.0), regressed = 0;
	double b;
	char *text, *json, *csv;

	for (int i = 0; i < embperf_report_result_count(cur); i++)
		regressed += embperf_result_verdict(embperf_report_result(cur, i)) ==
			     EMBPERF_VERDICT_REGRESSED;
	cr_assert_eq(regressed, 1, "a fell from 10 to 5");
	cr_assert_eq(cur->n_missing, 2, "b and d");
	cr_assert_eq(failures, regressed + cur->n_missing);
	cr_assert_str_eq(cur->missing[0].key, "b");
	cr_assert_eq(cur->missing[0].baseline, 20.0);
	cr_assert_str_eq(cur->missing[1].key, "d");
	cr_assert_eq(embperf_result_verdict(embperf_report_find(cur, "new")), EMBPERF_VERDICT_NONE);
	cr_assert_eq(embperf_result_baseline(embperf_report_find(cur, "new"), &b, NULL), -ENODATA);

	text = embperf_report_render(cur, EMBPERF_FORMAT_TEXT);
	cr_assert(strstr(text, "| verdict"), "%s", text);
	cr_assert(strstr(text, "regressed"));
	cr_assert(strstr(text, "missing from this report"));
	cr_assert(strstr(text, "  b: baseline 20.00 u"), "%s", text);
	cr_assert(strstr(text, "2 missing"));
	json = embperf_report_render(cur, EMBPERF_FORMAT_JSON);
	cr_assert(strstr(json, "\"missing\": ["), "%s", json);
	cr_assert(strstr(json, "\"verdict\": \"regressed\""));
	csv = embperf_report_render(cur, EMBPERF_FORMAT_CSV);
	/* The columns of 0.2 come last, after the comparison's: older columns keep their places. */
	cr_assert(strstr(csv, ",baseline,ratio,verdict,dist_n,"));
	cr_assert(strstr(csv, ",d,,,u,"), "%s", csv);
	cr_assert(strstr(csv, ",40,,missing,,,,,,,,,\r\n"), "%s", csv);
	free(text);
	free(json);
	free(csv);

	/* A second compare replaces the first: against itself all pass. */
	cr_assert_eq(embperf_report_compare(cur, cur, 0.0), 0);
	cr_assert_eq(cur->n_missing, 0);
	cr_assert_eq(embperf_result_verdict(embperf_report_find(cur, "a")), EMBPERF_VERDICT_PASS);
	embperf_report_free(cur);
	embperf_report_free(base);
}

Test(compare, comparison_survives_json)
{
	static const char *const titles[] = { "a", "b" };
	static const double base_values[] = { 10.0, 20.0 }, cur_values[] = { 12.0 };
	struct embperf_report *base = report_of(titles, base_values, 2, 0);
	struct embperf_report *cur = report_of(titles, cur_values, 1, 0), *back;
	char *json;
	double b, ratio;

	cr_assert_eq(embperf_report_compare(cur, base, 5.0), 2);
	json = embperf_report_render(cur, EMBPERF_FORMAT_JSON);
	back = embperf_report_parse(NULL, json);
	cr_assert_not_null(back);
	cr_assert_eq(back->compared, 1);
	cr_assert_eq(back->tolerance_pct, 5.0);
	cr_assert_eq(back->n_missing, 1);
	cr_assert_str_eq(back->missing[0].key, "b");
	cr_assert_eq(embperf_result_verdict(back->results[0]), EMBPERF_VERDICT_REGRESSED);
	cr_assert_eq(embperf_result_baseline(back->results[0], &b, &ratio), 0);
	cr_assert_eq(b, 10.0);
	cr_assert_eq(ratio, 12.0 / 10.0);
	free(json);
	embperf_report_free(back);
	embperf_report_free(cur);
	embperf_report_free(base);
}

Test(compare, loaded_baseline_matches_derived_keys)
{
	struct embperf_report *base = ep_report_alloc(NULL, NULL), *cur = ep_report_alloc(NULL, NULL);
	struct embperf_report *loaded;
	double v1 = 2000.0, v2 = 1800.0;
	struct embperf_result *r;
	char *json;

	r = ep_result_new("mem.bw", "bandwidth", "MB/s", "op=rd size=1M", "");
	r->higher_better = 1;
	ep_result_set_samples(r, &v1, 1);
	cr_assert_eq(ep_report_append(base, r), 0);
	r = ep_result_dup(r);
	ep_result_set_samples(r, &v2, 1);
	cr_assert_eq(ep_report_append(cur, r), 0);
	json = embperf_report_render(base, EMBPERF_FORMAT_JSON);
	loaded = embperf_report_parse(NULL, json);
	cr_assert_not_null(loaded);
	cr_assert_eq(embperf_report_compare(cur, loaded, 5.0), 1, "1800 is 10%% below 2000");
	cr_assert_eq(embperf_result_verdict(embperf_report_find(cur, "mem.bw/bandwidth[op=rd size=1M]")),
		     EMBPERF_VERDICT_REGRESSED);
	cr_assert_eq(embperf_report_compare(cur, loaded, 10.0), 0, "exactly 10%% is within 10%%");
	free(json);
	embperf_report_free(loaded);
	embperf_report_free(base);
	embperf_report_free(cur);
}

/* A one-sample result of @kernel's @metric in %, lower better. */
static struct embperf_result *load_result(const char *kernel, const char *metric,
					  const char *labels, const char *title, double value)
{
	struct embperf_result *r = ep_result_new(kernel, metric, "%", labels, "");

	cr_assert_not_null(r);
	cr_assert_eq(ep_result_set_title(r, title), 0);
	cr_assert_eq(ep_result_set_samples(r, &value, 1), 0);
	return r;
}

/*
 * blk.fs's whole-system load named @metric, of a write (a suite row, titled)
 * and a read (untitled), and crypto.speed's cpu_load: another figure, which
 * keeps its name.
 */
static struct embperf_report *loads_named(const char *metric, double write_load)
{
	struct embperf_report *rep = ep_report_alloc(NULL, NULL);
	char title[64];

	cr_assert_not_null(rep);
	snprintf(title, sizeof(title), "write-ext4-102400-%s", metric);
	cr_assert_eq(ep_report_append(rep, load_result("blk.fs", metric,
						       "op=write fs=ext4 bs=102400 size=100M", title,
						       write_load)), 0);
	cr_assert_eq(ep_report_append(rep, load_result("blk.fs", metric,
						       "op=read fs=ext4 bs=102400 size=100M", "",
						       30.0)), 0);
	cr_assert_eq(ep_report_append(rep, load_result("crypto.speed", "cpu_load",
						       "alg=sha256 size=all", "sha256-all-cpu_load",
						       99.0)), 0);
	return rep;
}

Test(compare, a_baseline_of_blk_fs_cpu_load_meets_its_cpu_system)
{
	/* Saved when blk.fs named the whole system's load cpu_load. */
	struct embperf_report *base = loads_named("cpu_load", 40.0);
	struct embperf_report *cur = loads_named("cpu_system", 41.0), *loaded;
	const embperf_result *r;
	char *json;
	double b;

	json = embperf_report_render(base, EMBPERF_FORMAT_JSON);
	cr_assert_not_null(json);
	loaded = embperf_report_parse(NULL, json);
	cr_assert_not_null(loaded);

	cr_assert_eq(embperf_report_compare(cur, loaded, 5.0), 0, "nothing missing or regressed");
	cr_assert_eq(cur->n_missing, 0, "first missing: %s", cur->n_missing ? cur->missing[0].key : "");
	for (int i = 0; i < embperf_report_result_count(cur); i++) {
		r = embperf_report_result(cur, i);
		cr_assert_eq(embperf_result_verdict(r), EMBPERF_VERDICT_PASS, "result %d", i);
	}
	cr_assert_eq(embperf_result_baseline(embperf_report_find(cur, "write-ext4-102400-cpu_system"),
					     &b, NULL), 0);
	cr_assert_eq(b, 40.0);
	/* The loaded baseline says cpu_system: its renderings and the guide's tables too. */
	r = embperf_report_find(loaded, "write-ext4-102400-cpu_system");
	cr_assert_not_null(r);
	cr_assert_str_eq(embperf_result_metric(r), "cpu_system");
	r = embperf_report_find(loaded, "blk.fs/cpu_system[op=read fs=ext4 bs=102400 size=100M]");
	cr_assert_not_null(r);
	r = embperf_report_find(loaded, "sha256-all-cpu_load");
	cr_assert_not_null(r);
	cr_assert_str_eq(embperf_result_metric(r), "cpu_load");
	free(json);
	embperf_report_free(loaded);
	embperf_report_free(base);
	embperf_report_free(cur);
}

Test(compare, unit_change_is_not_comparable)
{
	struct embperf_report *base = ep_report_alloc(NULL, NULL), *cur = ep_report_alloc(NULL, NULL);

	cr_assert_eq(ep_report_append(base, one("lat", "ns", 1000.0, 0)), 0);
	cr_assert_eq(ep_report_append(cur, one("lat", "us", 1.0, 0)), 0);
	cr_assert_eq(embperf_report_compare(cur, base, 5.0), 1);
	cr_assert_eq(cur->n_missing, 1);
	cr_assert_eq(embperf_result_verdict(cur->results[0]), EMBPERF_VERDICT_NONE);
	embperf_report_free(base);
	embperf_report_free(cur);
}

Test(compare, bad_tolerance)
{
	static const double bad[] = { -0.001, -5.0, 1000.001, 1e9, NAN, INFINITY, -INFINITY };
	static const char *const titles[] = { "a" };
	static const double values[] = { 1.0 };
	struct embperf_report *rep = report_of(titles, values, 1, 1);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(embperf_report_compare(rep, rep, bad[i]), -EINVAL, "tolerance %g", bad[i]);
		cr_expect(strstr(embperf_report_errmsg(rep), "tolerance_pct"), "%s",
			  embperf_report_errmsg(rep));
		cr_expect(strstr(embperf_report_errmsg(rep), "0 to 1000"));
	}
	cr_assert_eq(rep->compared, 0, "a refused compare judges nothing");
	cr_assert_eq(embperf_report_compare(rep, rep, 0.0), 0);
	cr_assert_eq(embperf_report_compare(rep, rep, 1000.0), 0);
	cr_assert_eq(embperf_report_compare(rep, NULL, 5.0), -EINVAL);
	cr_assert_eq(embperf_report_compare(NULL, rep, 5.0), -EINVAL);
	embperf_report_free(rep);
}
