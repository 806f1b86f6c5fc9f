// SPDX-License-Identifier: MIT
/*
 * test_report_merge.c - embperf_report_add_result() and
 * embperf_report_set_sysinfo() through the public API only: results copied
 * from one report into another keep everything (samples, trial log, marks)
 * but their verdict, titles are kept or re-templated, a failed copy leaves
 * the report as it was, and sysinfo entries survive a JSON round trip.
 * Reports are parsed from text: no kernel runs.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embperf.h"

/* Two results: a titled bandwidth with samples and a marked one with a trial log. */
static const char source_json[] =
	"{\"format\":\"embperf-report\",\"format_version\":2,\"system\":{\"cpu_model\":\"X\"},"
	"\"results\":["
	"{\"title\":\"bw-{odd}\",\"kernel\":\"mem.bw\",\"metric\":\"bandwidth\",\"unit\":\"MB/s\","
	"\"labels\":{\"op\":\"rd\",\"size\":\"1M\"},\"primary\":\"median\",\"value\":20,"
	"\"better\":\"higher\",\"stats\":{\"n\":3,\"min\":10,\"max\":30,\"mean\":20,"
	"\"median\":20,\"stddev\":10},\"samples\":[10,20,30],\"baseline\":5,\"ratio\":4,"
	"\"verdict\":\"improved\"},"
	"{\"title\":\"\",\"kernel\":\"net.udp.rfc2544\",\"metric\":\"throughput\","
	"\"unit\":\"frames/s\",\"labels\":{\"frame\":\"64\"},\"primary\":\"median\",\"value\":7,"
	"\"better\":\"higher\",\"stats\":{\"n\":1,\"min\":7,\"max\":7,\"mean\":7,\"median\":7,"
	"\"stddev\":null},\"flags\":[\"disturbed\"],\"note\":\"disturbed: test\","
	"\"trials\":{\"config\":\"rate\",\"outcome\":\"loss\",\"rows\":["
	"{\"config\":10,\"outcome\":1.5,\"pass\":false,\"duration_ns\":1000},"
	"{\"config\":7,\"outcome\":0,\"pass\":true,\"duration_ns\":1000}]}}"
	"]}";

static embperf_report *source(void)
{
	embperf_report *r = embperf_report_parse(NULL, source_json);

	cr_assert_not_null(r, "the test's source report must parse");
	cr_assert_eq(embperf_report_result_count(r), 2);
	return r;
}

Test(add_result, null_title_copies_the_title_as_text_and_everything_but_the_verdict)
{
	embperf_report *src = source(), *dst = embperf_report_new(NULL);
	const embperf_result *a, *b;
	double pass = -1, base;

	cr_assert_not_null(dst);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(embperf_report_add_result(dst, embperf_report_result(src, i), NULL), 1);
	cr_assert_eq(embperf_report_result_count(dst), 2);
	a = embperf_report_result(dst, 0);
	b = embperf_report_result(dst, 1);
	/* "{odd}" is no label: as a template it would fail, as text it is kept. */
	cr_assert_str_eq(embperf_result_title(a), "bw-{odd}");
	cr_assert_eq(embperf_result_sample_count(a), 3);
	cr_assert_eq(embperf_result_sample(a, 2), 30.0);
	cr_assert_eq(embperf_result_verdict(a), EMBPERF_VERDICT_NONE, "a verdict is not copied");
	cr_assert_eq(embperf_result_baseline(a, &base, NULL), -ENODATA);
	cr_assert_str_eq(embperf_result_title(b), "");
	cr_assert_eq(embperf_result_trial_count(b), 2);
	cr_assert_eq(embperf_result_trial(b, 1, EMBPERF_TRIAL_PASS, &pass), 0);
	cr_assert_eq(pass, 1.0);
	cr_assert_eq(embperf_result_flags(b), EMBPERF_RESULT_DISTURBED);
	cr_assert_str_eq(embperf_result_note(b), "disturbed: test");
	/* A deep copy: freeing the source leaves the copies whole. */
	embperf_report_free(src);
	cr_assert_str_eq(embperf_result_title(embperf_report_result(dst, 0)), "bw-{odd}");
	cr_assert_eq(embperf_result_sample(embperf_report_result(dst, 0), 0), 10.0);
	embperf_report_free(dst);
}

Test(add_result, a_title_is_a_template_and_a_bad_one_changes_nothing)
{
	embperf_report *src = source(), *dst = embperf_report_new(NULL);
	const embperf_result *rfc = embperf_report_result(src, 1);

	cr_assert_eq(embperf_report_add_result(dst, rfc, "emmc/{metric}-{frame}"), 1);
	cr_assert_str_eq(embperf_result_title(embperf_report_result(dst, 0)),
			 "emmc/throughput-64");
	cr_assert_not_null(embperf_report_find(dst, "emmc/throughput-64"));
	cr_assert_eq(embperf_report_add_result(dst, rfc, "x-{size}"), -EINVAL);
	cr_assert(strstr(embperf_report_errmsg(dst), "size"), "the message names the label: %s",
		  embperf_report_errmsg(dst));
	cr_assert_eq(embperf_report_add_result(dst, NULL, NULL), -EINVAL);
	cr_assert_eq(embperf_report_add_result(NULL, rfc, NULL), -EINVAL);
	cr_assert_eq(embperf_report_result_count(dst), 1, "failed copies add nothing");
	embperf_report_free(src);
	embperf_report_free(dst);
}

Test(set_sysinfo, entries_replace_and_survive_json)
{
	embperf_report *r = source(), *back;
	char *json;

	cr_assert_eq(embperf_report_set_sysinfo(r, "board", "first"), 0);
	cr_assert_eq(embperf_report_set_sysinfo(r, "board", "AM62Px SK\nrev \"E1\""), 0);
	cr_assert_eq(embperf_report_set_sysinfo(r, "guide.not_measured", ""), 0);
	cr_assert_str_eq(embperf_report_sysinfo(r, "board"), "AM62Px SK\nrev \"E1\"");
	cr_assert_str_eq(embperf_report_sysinfo(r, "cpu_model"), "X", "others are kept");
	json = embperf_report_render(r, EMBPERF_FORMAT_JSON);
	cr_assert_not_null(json);
	back = embperf_report_parse(NULL, json);
	cr_assert_not_null(back);
	cr_assert_str_eq(embperf_report_sysinfo(back, "board"), "AM62Px SK\nrev \"E1\"");
	cr_assert_str_eq(embperf_report_sysinfo(back, "guide.not_measured"), "");
	embperf_free(json);
	embperf_report_free(back);
	embperf_report_free(r);
}

Test(set_sysinfo, malformed_keys_and_null_values_are_refused)
{
	embperf_report *r = embperf_report_new(NULL);
	char long_key[80];

	memset(long_key, 'k', 65);
	long_key[65] = '\0';
	cr_assert_eq(embperf_report_set_sysinfo(r, "", "v"), -EINVAL);
	cr_assert_eq(embperf_report_set_sysinfo(r, "a b", "v"), -EINVAL);
	cr_assert(strstr(embperf_report_errmsg(r), "'a b'"), "%s", embperf_report_errmsg(r));
	cr_assert_eq(embperf_report_set_sysinfo(r, "a\"b", "v"), -EINVAL);
	cr_assert_eq(embperf_report_set_sysinfo(r, long_key, "v"), -EINVAL);
	cr_assert_eq(embperf_report_set_sysinfo(r, NULL, "v"), -EINVAL);
	cr_assert_eq(embperf_report_set_sysinfo(r, "k", NULL), -EINVAL);
	cr_assert_eq(embperf_report_set_sysinfo(NULL, "k", "v"), -EINVAL);
	long_key[64] = '\0';
	cr_assert_eq(embperf_report_set_sysinfo(r, long_key, "v"), 0, "64 characters are accepted");
	cr_assert_null(embperf_report_sysinfo(r, "k"));
	embperf_report_free(r);
}
