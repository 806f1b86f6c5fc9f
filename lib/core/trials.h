/* SPDX-License-Identifier: MIT */
/*
 * trials.h - the driver of trial cases (trials.c).
 */
#ifndef EMBPERF_CORE_TRIALS_H
#define EMBPERF_CORE_TRIALS_H

struct ep_run;
struct ep_run_case;

/**
 * ep_trials_measure() - run the trials of a trial case (repeated, or as its
 * search asks) and add its results to the run.
 * @run:   the run.
 * @rc:    the case.
 * @index: its position among the run's cases (for progress).
 *
 * Return: 0; -ECANCELED; -ETIME when the budget ended before any trial
 * counted; -ETIMEDOUT when 'max_time' did; a kernel error.
 */
int ep_trials_measure(struct ep_run *run, struct ep_run_case *rc, int index);

#endif /* EMBPERF_CORE_TRIALS_H */
