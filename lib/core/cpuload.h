/* SPDX-License-Identifier: MIT */
/*
 * cpuload.h - CPU load over a measured span, the process's and the whole
 * system's (cpuload.c).
 */
#ifndef EMBPERF_CORE_CPULOAD_H
#define EMBPERF_CORE_CPULOAD_H

#include <stdint.h>
#include <sys/resource.h>

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

/** ep_cpuload_start() - snapshot getrusage() and /proc/stat; the span starts at @now_ns. */
void ep_cpuload_start(struct ep_cpuload *s, uint64_t now_ns);

/**
 * ep_cpuload_stop() - CPU load since ep_cpuload_start(), for a span that
 * ends at @now_ns (the same clock as the start's).
 * Process load is (user + system time) / wall time, in % of one CPU; system
 * load is (total - idle - iowait) / total of /proc/stat's "cpu" line, in %.
 * Writes EP_CTR_CPU_PROCESS_PCT and EP_CTR_CPU_SYSTEM_PCT; also
 * EP_CTR_CPU_WAIT_PCT, the time the process's threads were runnable but
 * waited for a CPU (/proc/self/task/N/schedstat, second field), in % of the
 * wall time, and EP_CTR_INVOLUNTARY_SWITCHES (getrusage's ru_nivcsw): the
 * evidence that another task had the run's CPU.
 */
void ep_cpuload_stop(const struct ep_cpuload *s, uint64_t now_ns, double *values,
		     unsigned char *ok);

#endif /* EMBPERF_CORE_CPULOAD_H */
