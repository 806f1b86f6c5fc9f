// SPDX-License-Identifier: MIT
/*
 * clock.c - the engine's clock (clock.h): CLOCK_MONOTONIC_RAW through the
 * vDSO, and the seam a simulated clock replaces.
 *
 * MONOTONIC_RAW is not slewed by NTP, so a sample is not stretched or
 * shrunk while the time daemon corrects the clock.
 */
#include <errno.h>
#include <time.h>

#include "clock.h"
#include "counters.h"
#include "cpuload.h"
#include "util.h"

const struct ep_clock ep_real_clock = { 0 };

uint64_t ep_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

EP_UNTIMED void ep_clock_sleep_until_ns(const struct ep_clock *clk, uint64_t when_ns)
{
	uint64_t now;
	struct timespec ts;

	if (clk->ops) {
		clk->ops->sleep_until_ns(clk, when_ns);
		return;
	}
	now = ep_now_ns();
	if (when_ns <= now)
		return;
	ts.tv_sec = (time_t)((when_ns - now) / 1000000000u);
	ts.tv_nsec = (long)((when_ns - now) % 1000000000u);
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

EP_UNTIMED void ep_clock_load_start(const struct ep_clock *clk, struct ep_cpuload *snap)
{
	if (clk->ops)
		clk->ops->load_start(clk, snap);
	else
		ep_cpuload_start(snap, ep_now_ns());
}

EP_UNTIMED void ep_clock_load_stop(const struct ep_clock *clk, const struct ep_cpuload *snap,
				   double *values, unsigned char *ok)
{
	if (clk->ops)
		clk->ops->load_stop(clk, snap, values, ok);
	else
		ep_cpuload_stop(snap, ep_now_ns(), values, ok);
}

EP_UNTIMED void ep_clock_counters_open(const struct ep_clock *clk, struct ep_counters *ctr)
{
	if (clk->ops)
		clk->ops->counters_open(clk, ctr);
	else
		ep_counters_open(ctr);
}

/*
 * The resolution that matters is the smallest step two successive reads
 * can see, which also includes the cost of a read; clock_getres() only
 * gives the nominal tick. Take the smallest non-zero step of many reads.
 */
EP_UNTIMED uint64_t ep_clock_resolution_ns(const struct ep_clock *clk)
{
	uint64_t best = UINT64_MAX;

	if (clk->ops)
		return clk->ops->resolution_ns ? clk->ops->resolution_ns : 1;
	for (int i = 0; i < 200; i++) {
		uint64_t t0 = ep_now_ns(), t1;

		do {
			t1 = ep_now_ns();
		} while (t1 == t0);
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best ? best : 1;
}
