// SPDX-License-Identifier: MIT
/*
 * cpuload.c - CPU load over a measured span: the process's own (getrusage)
 * and the whole system's (/proc/stat, the TI guides' method:
 * (total - idle - iowait) / total).
 */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "measure.h"

/* Sum of the "cpu" line's first eight fields, and the busy part of it. */
static int read_proc_stat(uint64_t *total, uint64_t *busy)
{
	unsigned long long f[8] = { 0 };
	FILE *fp = fopen("/proc/stat", "re");
	int n;

	if (!fp)
		return -1;
	n = fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
		   &f[4], &f[5], &f[6], &f[7]);
	fclose(fp);
	if (n < 5)
		return -1;
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += f[i];
	*busy = *total - f[3] - f[4];
	return 0;
}

static double timeval_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e9 + (double)tv->tv_usec * 1e3;
}

void ep_cpuload_start(struct ep_cpuload *s)
{
	getrusage(RUSAGE_SELF, &s->usage);
	s->stat_ok = !read_proc_stat(&s->stat_total, &s->stat_busy);
	s->wall_ns = ep_now_ns();
}

void ep_cpuload_stop(const struct ep_cpuload *s, double *values, unsigned char *ok)
{
	uint64_t wall_ns = ep_now_ns() - s->wall_ns, total, busy;
	struct rusage now;

	if (!getrusage(RUSAGE_SELF, &now) && wall_ns) {
		double cpu_ns = timeval_ns(&now.ru_utime) - timeval_ns(&s->usage.ru_utime) +
				timeval_ns(&now.ru_stime) - timeval_ns(&s->usage.ru_stime);

		values[EP_CTR_CPU_PROCESS_PCT] = 100.0 * cpu_ns / (double)wall_ns;
		ok[EP_CTR_CPU_PROCESS_PCT] = 1;
	}
	if (s->stat_ok && !read_proc_stat(&total, &busy) && total > s->stat_total) {
		values[EP_CTR_CPU_SYSTEM_PCT] =
			100.0 * (double)(busy - s->stat_busy) / (double)(total - s->stat_total);
		ok[EP_CTR_CPU_SYSTEM_PCT] = 1;
	}
}
