// SPDX-License-Identifier: MIT
/*
 * counters.c - perf_event_open counters around the measured samples.
 *
 * Each counter is its own event (not a group) with inherit set, so threads
 * a kernel starts after the counters were opened (STREAM's workers) are
 * counted too; the kernel forbids inherit for group reads.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "counters.h"

#if EMBPERF_HAVE_PERF
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

struct event {
	int counter;
	uint32_t type;
	uint64_t config;
};

static const struct event events[] = {
	{ EP_CTR_TASK_CLOCK_NS, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ EP_CTR_CONTEXT_SWITCHES, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ EP_CTR_CPU_MIGRATIONS, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ EP_CTR_PAGE_FAULTS, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ EP_CTR_CYCLES, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ EP_CTR_INSTRUCTIONS, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ EP_CTR_CACHE_REFERENCES, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ EP_CTR_CACHE_MISSES, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
};

static int open_event(const struct event *e, int exclude_kernel)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = e->type;
	attr.config = e->config;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.exclude_kernel = (unsigned)exclude_kernel;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

void ep_counters_open(struct ep_counters *c)
{
	for (int i = 0; i < EP_CTR_COUNT; i++)
		c->fd[i] = -1;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		int fd = open_event(&events[i], 0);

		/* perf_event_paranoid >= 2 refuses kernel-side counting to
		 * unprivileged users: count user space only then. */
		if (fd < 0 && (errno == EACCES || errno == EPERM))
			fd = open_event(&events[i], 1);
		c->fd[events[i].counter] = fd;
	}
}

void ep_counters_start(struct ep_counters *c)
{
	for (int i = 0; i < EP_CTR_COUNT; i++) {
		if (c->fd[i] < 0)
			continue;
		ioctl(c->fd[i], PERF_EVENT_IOC_RESET, 0);
		ioctl(c->fd[i], PERF_EVENT_IOC_ENABLE, 0);
	}
}

void ep_counters_stop(struct ep_counters *c, double *values, unsigned char *ok)
{
	for (int i = 0; i < EP_CTR_COUNT; i++) {
		uint64_t v[3];

		if (c->fd[i] < 0)
			continue;
		ioctl(c->fd[i], PERF_EVENT_IOC_DISABLE, 0);
		if (read(c->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v) || !v[2])
			continue;
		/* Scale for multiplexing: the event ran v[2] of v[1] ns. */
		values[i] = (double)v[0] * ((double)v[1] / (double)v[2]);
		ok[i] = 1;
	}
}

void ep_counters_close(struct ep_counters *c)
{
	for (int i = 0; i < EP_CTR_COUNT; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->fd[i] = -1;
	}
}

#else /* !EMBPERF_HAVE_PERF: every counter reads as unavailable. */

void ep_counters_open(struct ep_counters *c)
{
	for (int i = 0; i < EP_CTR_COUNT; i++)
		c->fd[i] = -1;
}

void ep_counters_start(struct ep_counters *c)
{
	(void)c;
}

void ep_counters_stop(struct ep_counters *c, double *values, unsigned char *ok)
{
	(void)c;
	(void)values;
	(void)ok;
}

void ep_counters_close(struct ep_counters *c)
{
	(void)c;
}
#endif
