// SPDX-License-Identifier: MIT
/*
 * compare.c - judge a report against a baseline, metric by metric.
 *
 * A result is matched with the first baseline result of the same key (a
 * baseline read from a file has its renamed metrics under today's names:
 * json.c's table of them). Its value (the primary statistic) is divided by
 * the baseline's; the metric's direction says whether a change beyond the
 * tolerance is an improvement or a regression; a metric better near zero (a
 * signed error) is judged by its magnitude. doc/report-format.md gives the
 * rules for zero, negative and missing values.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/report.h"

/*
 * Slack on the tolerance bounds, relative: a change of exactly the tolerance
 * (95 against 100 at 5%) passes even when decimal rounding puts the ratio an
 * ulp beyond the bound.
 */
#define EP_TOLERANCE_SLACK 1e-12

/* Which way a value moved beyond the tolerance. */
enum move {
	MOVE_NONE,
	MOVE_UP,
	MOVE_DOWN,
};

/* How @current moved from @baseline (neither NaN), the ratio in *@ratio. */
static enum move movement(double current, double baseline, double tolerance_pct, double *ratio)
{
	double lo = 1.0 - tolerance_pct / 100.0 - EP_TOLERANCE_SLACK;
	double hi = 1.0 + tolerance_pct / 100.0 + EP_TOLERANCE_SLACK;

	if (baseline == 0.0) {
		/* No ratio: any change is beyond every relative tolerance. */
		*ratio = NAN;
		return current > 0.0 ? MOVE_UP : current < 0.0 ? MOVE_DOWN : MOVE_NONE;
	}
	*ratio = current / baseline;
	if (*ratio < lo)
		/* With a negative baseline a smaller ratio is a larger value. */
		return baseline > 0.0 ? MOVE_DOWN : MOVE_UP;
	if (*ratio > hi)
		return baseline > 0.0 ? MOVE_UP : MOVE_DOWN;
	return MOVE_NONE;
}

int ep_judge(double current, double baseline, int higher_better, double tolerance_pct,
	     double *ratio)
{
	enum move move;

	*ratio = NAN;
	if (higher_better == EP_BETTER_ZERO) {
		/* A signed error: its magnitude is what is better lower (-5 ppm beats +50). */
		current = fabs(current);
		baseline = fabs(baseline);
		higher_better = EP_BETTER_LOWER;
	}
	if (isnan(baseline))
		/* The baseline has no value: nothing to hold the result to. */
		return EMBPERF_VERDICT_NONE;
	if (isnan(current))
		/* The baseline measured this metric; now it yields no value. */
		return EMBPERF_VERDICT_REGRESSED;
	move = movement(current, baseline, tolerance_pct, ratio);
	if (move == MOVE_NONE)
		return EMBPERF_VERDICT_PASS;
	if ((move == MOVE_UP) == !!higher_better)
		return EMBPERF_VERDICT_IMPROVED;
	return EMBPERF_VERDICT_REGRESSED;
}

/* Judge @r against @baseline's result of the same key, if any. */
static int judge_result(struct embperf_result *r, const struct embperf_report *baseline,
			double tolerance_pct)
{
	char *key = ep_result_key_dup(r);
	const struct embperf_result *b;

	if (!key)
		return -ENOMEM;
	b = embperf_report_find(baseline, key);
	free(key);
	/* A unit change makes the ratio meaningless: the metric is not comparable. */
	if (!b || strcmp(b->unit, r->unit))
		return 0;
	r->has_baseline = 1;
	r->baseline = b->value;
	r->verdict = ep_judge(r->value, b->value, r->higher_better, tolerance_pct, &r->ratio);
	return 0;
}

/* Record the baseline results with no comparable result in @report. */
static int list_missing(struct embperf_report *report, const struct embperf_report *baseline)
{
	for (int i = 0; i < baseline->n_results; i++) {
		const struct embperf_result *b = baseline->results[i];
		const struct embperf_result *r;
		char *key = ep_result_key_dup(b);
		int err = 0;

		if (!key)
			return -ENOMEM;
		r = embperf_report_find(report, key);
		/* Report a duplicated baseline key once. */
		if ((!r || strcmp(r->unit, b->unit)) && embperf_report_find(baseline, key) == b)
			err = ep_report_add_missing(report, key, b->unit, b->value);
		free(key);
		if (err)
			return err;
	}
	return 0;
}

/* Keep the baseline's CPU model when it is not this report's. Return: 0 or -ENOMEM. */
static int note_other_cpu(struct embperf_report *report, const struct embperf_report *baseline)
{
	const char *now = embperf_report_sysinfo(report, "cpu_model");
	const char *then = embperf_report_sysinfo(baseline, "cpu_model");

	if (!now || !then || !strcmp(now, then))
		return 0;
	report->baseline_cpu = strdup(then);
	return report->baseline_cpu ? 0 : -ENOMEM;
}

/**
 * embperf_report_compare() - judge a report against a baseline, metric by metric.
 * @report:        current results; each receives a verdict.
 * @baseline:      reference results, matched by key.
 * @tolerance_pct: allowed relative change, 0 to 1000 percent.
 *
 * Verdicts and the missing list of a previous compare are replaced. A
 * result with no baseline of its key (or of a different unit) keeps
 * EMBPERF_VERDICT_NONE; a baseline result with no comparable result is
 * listed as missing and counts as a failure.
 *
 * Return: regressed plus missing (0: pass); -EINVAL for a NULL argument or a
 * tolerance out of range, -ENOMEM; on failure the report keeps no verdicts.
 */
int embperf_report_compare(embperf_report *report, const embperf_report *baseline,
			   double tolerance_pct)
{
	int err = 0;

	if (!report)
		return -EINVAL;
	if (!baseline)
		return ep_report_fail(report, -EINVAL,
				      "baseline: NULL; accepted: a report, e.g. from embperf_report_load()");
	if (!(tolerance_pct >= 0.0 && tolerance_pct <= 1000.0))
		return ep_report_fail(report, -EINVAL,
				      "tolerance_pct: value '%g' is out of range; accepted: 0 to 1000 (percent)",
				      tolerance_pct);
	ep_report_clear_comparison(report);
	for (int i = 0; i < report->n_results && !err; i++)
		err = judge_result(report->results[i], baseline, tolerance_pct);
	if (!err)
		err = list_missing(report, baseline);
	if (!err)
		err = note_other_cpu(report, baseline);
	if (err) {
		ep_report_clear_comparison(report);
		return ep_report_fail(report, err, "out of memory comparing with the baseline");
	}
	report->compared = 1;
	report->tolerance_pct = tolerance_pct;
	return ep_report_failures(report);
}
