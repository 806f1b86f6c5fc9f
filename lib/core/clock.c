// SPDX-License-Identifier: MIT
/*
 * clock.c - the engine's clock: CLOCK_MONOTONIC_RAW through the vDSO.
 *
 * MONOTONIC_RAW is not slewed by NTP, so a sample is not stretched or
 * shrunk while the time daemon corrects the clock.
 */
#include <time.h>

#include "core.h"
#include "util.h"

uint64_t ep_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The resolution that matters is the smallest step two successive reads
 * can see, which also includes the cost of a read; clock_getres() only
 * gives the nominal tick. Take the smallest non-zero step of many reads.
 */
EP_UNTIMED uint64_t ep_clock_resolution_ns(void)
{
	uint64_t best = UINT64_MAX;

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
