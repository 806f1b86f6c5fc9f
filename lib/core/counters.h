/* SPDX-License-Identifier: MIT */
/*
 * counters.h - perf_event counters around a measured span (counters.c).
 */
#ifndef EMBPERF_CORE_COUNTERS_H
#define EMBPERF_CORE_COUNTERS_H

#include "result.h"

/**
 * struct ep_counters - perf_event file descriptors, one per counter
 * (EP_CTR_TASK_CLOCK_NS .. EP_CTR_CACHE_MISSES); -1 where the system or the
 * build cannot count.
 */
struct ep_counters {
	int fd[EP_CTR_COUNT];
};

/**
 * ep_counters_open() - open the counters, disabled, for this thread and the
 * threads it creates later. Counters that cannot be opened stay -1: missing
 * hardware events are normal (VMs, some SoCs) and never an error.
 */
void ep_counters_open(struct ep_counters *c);
/** ep_counters_start() - reset and enable. */
void ep_counters_start(struct ep_counters *c);
/** ep_counters_stop() - disable and read into @values, marking @ok where measured. */
void ep_counters_stop(struct ep_counters *c, double *values, unsigned char *ok);
/** ep_counters_close() - close every descriptor. */
void ep_counters_close(struct ep_counters *c);

#endif /* EMBPERF_CORE_COUNTERS_H */
