// SPDX-License-Identifier: MIT
/*
 * cpuload.c - CPU load over a measured span: the process's own (getrusage)
 * and the whole system's (/proc/stat, the TI guides' method:
 * (total - idle - iowait) / total).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuload.h"
#include "result.h"

/*
 * read_numbers() - the first @max numbers after @prefix on the first line of
 * @path. Return: how many were read, or -1 (no file, or another first line).
 * fgets() and strtoull() rather than fscanf(), which would bring a static
 * musl program the whole scanf engine (doc/building.md).
 */
static int read_numbers(const char *path, const char *prefix, unsigned long long *v, int max)
{
	char line[512];
	FILE *fp = fopen(path, "re");
	size_t prefix_len = strlen(prefix);
	const char *p;
	int n = 0;

	if (!fp)
		return -1;
	p = fgets(line, sizeof(line), fp);
	fclose(fp);
	if (!p || strncmp(line, prefix, prefix_len))
		return -1;
	for (p = line + prefix_len; n < max; n++) {
		char *end;

		v[n] = strtoull(p, &end, 10);
		if (end == p)
			break;
		p = end;
	}
	return n;
}

/* Sum of the "cpu" line's first eight fields, and the busy part of it. */
static int read_proc_stat(uint64_t *total, uint64_t *busy)
{
	unsigned long long f[8] = { 0 };

	if (read_numbers("/proc/stat", "cpu ", f, 8) < 5)
		return -1;
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += f[i];
	*busy = *total - f[3] - f[4];
	return 0;
}

/*
 * Run-queue wait of every thread of the process so far, in ns: the second
 * field of /proc/self/task/N/schedstat (time runnable but not running).
 * Threads that exited take theirs with them; the kernels' worker threads
 * live as long as the span they are measured over.
 */
static int read_run_delay(uint64_t *wait_ns)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;
	int found = 0;

	*wait_ns = 0;
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		unsigned long long ns[2]; /* running, runnable but waiting */
		char path[64];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/schedstat", de->d_name);
		if (read_numbers(path, "", ns, 2) == 2) {
			*wait_ns += ns[1];
			found = 1;
		}
	}
	closedir(dir);
	return found ? 0 : -1;
}

static double timeval_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e9 + (double)tv->tv_usec * 1e3;
}

void ep_cpuload_start(struct ep_cpuload *s, uint64_t now_ns)
{
	getrusage(RUSAGE_SELF, &s->usage);
	s->stat_ok = !read_proc_stat(&s->stat_total, &s->stat_busy);
	s->wait_ok = !read_run_delay(&s->wait_ns);
	s->wall_ns = now_ns;
}

void ep_cpuload_stop(const struct ep_cpuload *s, uint64_t now_ns, double *values,
		     unsigned char *ok)
{
	uint64_t wall_ns = now_ns - s->wall_ns, total, busy, wait_ns;
	struct rusage now;

	if (s->wait_ok && !read_run_delay(&wait_ns) && wall_ns) {
		/* A thread that exited took its wait along: never below 0. */
		values[EP_CTR_CPU_WAIT_PCT] =
			wait_ns > s->wait_ns ? 100.0 * (double)(wait_ns - s->wait_ns) / (double)wall_ns
					     : 0.0;
		ok[EP_CTR_CPU_WAIT_PCT] = 1;
	}
	if (!getrusage(RUSAGE_SELF, &now) && wall_ns) {
		double cpu_ns = timeval_ns(&now.ru_utime) - timeval_ns(&s->usage.ru_utime) +
				timeval_ns(&now.ru_stime) - timeval_ns(&s->usage.ru_stime);

		values[EP_CTR_CPU_PROCESS_PCT] = 100.0 * cpu_ns / (double)wall_ns;
		ok[EP_CTR_CPU_PROCESS_PCT] = 1;
		values[EP_CTR_INVOLUNTARY_SWITCHES] = (double)(now.ru_nivcsw - s->usage.ru_nivcsw);
		ok[EP_CTR_INVOLUNTARY_SWITCHES] = 1;
	}
	if (s->stat_ok && !read_proc_stat(&total, &busy) && total > s->stat_total) {
		values[EP_CTR_CPU_SYSTEM_PCT] =
			100.0 * (double)(busy - s->stat_busy) / (double)(total - s->stat_total);
		ok[EP_CTR_CPU_SYSTEM_PCT] = 1;
	}
}
