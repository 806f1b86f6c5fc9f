/* SPDX-License-Identifier: MIT */
/*
 * cases.h - the driver of calibrated cases (cases.c).
 */
#ifndef EMBPERF_CORE_CASES_H
#define EMBPERF_CORE_CASES_H

struct ep_run;
struct ep_run_case;

/**
 * ep_cases_measure() - calibrate, warm up and sample one case, and add its
 * result to the run.
 * @run:   the run.
 * @rc:    the case.
 * @index: its position among the run's cases (for progress).
 *
 * Return: 0; -ECANCELED; -ETIME when the context's budget ended before the
 * first sample; -ETIMEDOUT when 'max_time' did; a kernel error.
 */
int ep_cases_measure(struct ep_run *run, struct ep_run_case *rc, int index);

#endif /* EMBPERF_CORE_CASES_H */
