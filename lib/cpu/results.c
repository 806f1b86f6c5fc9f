// SPDX-License-Identifier: MIT
/*
 * results.c - reading the results of a run's cases back in finish().
 */
#include <math.h>
#include <string.h>

#include "lib/core/bench.h"
#include "lib/cpu/results.h"

double ep_cpu_result_value(const struct ep_run *run, const char *metric, const char *labels)
{
	for (int i = 0; i < run->n_results; i++) {
		const struct embperf_result *r = run->results[i];

		if (!strcmp(r->metric, metric) && !strcmp(r->labels, labels))
			return r->value;
	}
	return NAN;
}
