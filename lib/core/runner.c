// SPDX-License-Identifier: MIT
/*
 * runner.c - a run from setup to teardown (runner.h).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "cases.h"
#include "cfg.h"
#include "result.h"
#include "run.h"
#include "runner.h"

/* Pin the calling thread to the run's CPU; *saved receives the old mask. */
static int pin(struct ep_run *run, cpu_set_t *saved, int *pinned)
{
	int cpu = run->cfg.cpu;
	cpu_set_t one;

	*pinned = 0;
	if (cpu < 0)
		cpu = embperf_ctx_get_cpu(run->ctx);
	run->cpu = cpu;
	if (cpu < 0)
		return 0;
	if (sched_getaffinity(0, sizeof(*saved), saved))
		return ep_run_fail(run, -errno, "cpu: cannot read the CPU mask");
	if (!CPU_ISSET(cpu, saved))
		return ep_run_fail(run, -EINVAL,
				   "parameter 'cpu': value '%d' is not a CPU this process may use", cpu);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return ep_run_fail(run, -errno, "parameter 'cpu': cannot pin to CPU %d", cpu);
	*pinned = 1;
	return 0;
}

/* A kernel read a parameter it does not declare: a bug, said loudly. */
static int undeclared_param(struct ep_run *run)
{
	return ep_run_fail(run, -EINVAL,
			   "kernel %s read parameter '%s', which it does not declare (a bug in "
			   "the kernel: its parameter table and its setup disagree)",
			   run->kernel->name, run->unknown_param);
}

static int run_cases(struct ep_run *run)
{
	int rc = 0;

	for (int i = 0; i < run->n_cases && !rc; i++) {
		rc = ep_run_check(run);
		if (!rc && run->cases[i].measure_trials)
			rc = run->cases[i].measure_trials(run, &run->cases[i], i);
		else if (!rc)
			rc = ep_cases_measure(run, &run->cases[i], i);
	}
	return rc;
}

/*
 * Drop the results of metrics the 'metrics' parameter leaves out. After the
 * kernel's finish(), which may derive its metrics from the dropped ones (a
 * parallelism from step times).
 */
static void keep_listed_metrics(struct ep_run *run)
{
	const char *list = run->cfg.metrics;
	int kept = 0;

	if (!list || !*list)
		return;
	for (int i = 0; i < run->n_results; i++) {
		if (ep_list_has(list, run->results[i]->metric))
			run->results[kept++] = run->results[i];
		else
			ep_result_free(run->results[i]);
	}
	run->n_results = kept;
}

/*
 * The state, setup, the cases, finish; then teardown whenever setup
 * succeeded or a state exists (the engine's own, or one setup left behind),
 * so that a kernel's setup unwinds its failures through its teardown alone;
 * last, the engine's state is freed.
 */
static int run_kernel(struct ep_run *run)
{
	const struct ep_kernel *k = run->kernel;
	void *owned = NULL, *state;
	int rc, set_up;

	if (k->state_bytes) {
		owned = calloc(1, k->state_bytes);
		if (!owned)
			return ep_run_fail(run, -ENOMEM,
					   "kernel %s: cannot allocate its state (%zu bytes)",
					   k->name, k->state_bytes);
	}
	state = owned;
	rc = k->setup(run, &state);
	set_up = !rc;
	if (!rc && run->unknown_param)
		rc = undeclared_param(run);
	if (!rc)
		rc = run_cases(run);
	if (!rc && k->finish)
		rc = k->finish(run, state);
	if (!rc && run->unknown_param)
		rc = undeclared_param(run);
	if ((set_up || state) && k->teardown)
		k->teardown(state);
	free(owned);
	return rc;
}

int ep_runner_run(struct ep_run *run)
{
	cpu_set_t saved;
	int pinned = 0, rc;

	rc = pin(run, &saved, &pinned);
	if (!rc)
		rc = run_kernel(run);
	keep_listed_metrics(run);
	if (pinned)
		sched_setaffinity(0, sizeof(saved), &saved);
	if (!rc && run->budget_hit)
		rc = -ETIME;
	return rc;
}
