/* SPDX-License-Identifier: MIT */
/*
 * runner.h - a run from setup to teardown (runner.c): pinning, the cases
 * through their drivers, finish, the 'metrics' filter.
 */
#ifndef EMBPERF_CORE_RUNNER_H
#define EMBPERF_CORE_RUNNER_H

struct ep_run;

/**
 * ep_runner_run() - run @run's kernel: pin to the run's CPU, setup, each
 * case through its driver (calibrated or trials), finish, teardown; then
 * keep only the results 'metrics' lists, and unpin.
 *
 * Return: 0; -ECANCELED; -ETIME when the budget cut a case short or ended
 * the run (the results taken are kept); -EINVAL when the kernel read a
 * parameter it does not declare; a kernel's error. The run's message says
 * why, except for -ECANCELED and -ETIME without one (the caller words them).
 */
int ep_runner_run(struct ep_run *run);

#endif /* EMBPERF_CORE_RUNNER_H */
