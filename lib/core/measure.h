/* SPDX-License-Identifier: MIT */
/*
 * measure.h - what the engine records around the samples of a case: perf
 * counters and CPU load.
 */
#ifndef EMBPERF_CORE_MEASURE_H
#define EMBPERF_CORE_MEASURE_H

#include <stdint.h>
#include <sys/resource.h>

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

/** struct ep_cpuload - snapshot at the start of a measured span. */
struct ep_cpuload {
	struct rusage usage;
	uint64_t wall_ns;
	uint64_t stat_total;
	uint64_t stat_busy;
	int stat_ok;
	uint64_t wait_ns;  /* run-queue wait of the process's threads (schedstat) */
	int wait_ok;
};

/** ep_cpuload_start() - snapshot getrusage() and /proc/stat. */
void ep_cpuload_start(struct ep_cpuload *s);

/**
 * ep_cpuload_stop() - CPU load since ep_cpuload_start().
 * Process load is (user + system time) / wall time, in % of one CPU; system
 * load is (total - idle - iowait) / total of /proc/stat's "cpu" line, in %.
 * Writes EP_CTR_CPU_PROCESS_PCT and EP_CTR_CPU_SYSTEM_PCT; also
 * EP_CTR_CPU_WAIT_PCT, the time the process's threads were runnable but
 * waited for a CPU (/proc/self/task/N/schedstat, second field), in % of the
 * wall time, and EP_CTR_INVOLUNTARY_SWITCHES (getrusage's ru_nivcsw): the
 * evidence that another task had the run's CPU.
 */
void ep_cpuload_stop(const struct ep_cpuload *s, double *values, unsigned char *ok);

#endif /* EMBPERF_CORE_MEASURE_H */
