/* SPDX-License-Identifier: MIT */
/*
 * search.h - the engine's searches (search.c): pure functions of a trial
 * log that pick the next trial's configuration and the value found. A
 * kernel names them as its struct ep_search's next and found; the trial
 * driver (trials.c) runs what they pick.
 */
#ifndef EMBPERF_CORE_SEARCH_H
#define EMBPERF_CORE_SEARCH_H

#include <stddef.h>

struct ep_trial_row;

/**
 * struct ep_bsearch - the engine's binary search over one numeric
 * configuration: the highest value that passes, between @lo and @hi,
 * to within @resolution, in at most @max_trials trials. The first trial
 * runs at @hi (the full rate passes more often than not on a fast link);
 * then the interval between the highest pass and the lowest failure is
 * halved. Use ep_bsearch_init() and the ep_bsearch_* callbacks as the
 * struct ep_search's next and found; the kernel supplies judge.
 */
struct ep_bsearch {
	double lo, hi;
	double resolution;
	int max_trials;
};

/**
 * ep_bsearch_next() - struct ep_search next() for @arg = struct ep_bsearch *.
 * Return: 1 with *@config set, 0 when done (interval below the
 * resolution, max_trials reached, or the first trial at @hi passed).
 */
int ep_bsearch_next(void *arg, const struct ep_trial_row *log, size_t n, double *config);

/** ep_bsearch_found() - struct ep_search found(): the highest passing config. */
int ep_bsearch_found(void *arg, const struct ep_trial_row *log, size_t n, double *value);

/**
 * struct ep_rate_search - the engine's search for the highest offered rate
 * whose loss stays within a tolerance (RFC 2544 §26.1 throughput; a partial
 * drop rate when @tolerance_pct > 0). Each trial's log row holds the rate
 * it offered as its config and the loss in % of what it offered as its
 * outcome.
 *
 * A bottleneck that keeps forwarding under overload (a shaper, a queue, a
 * link) delivers its capacity whatever is offered above it, so what a
 * failed trial delivered, config x (1 - loss), bounds the throughput (FD.io
 * CSIT's MLRsearch starts from the receive rate at the maximal load the
 * same way). A trial far above the bottleneck fills its buffers before
 * its measured part and delivers the bare capacity; one just above it
 * ("near": loss at most 5 points above the tolerance) delivers what passes
 * in a trial of that length, buffers included. So after the first trial
 * at @top: nothing passed and only far failures, a trial a few
 * resolutions above what they delivered (to get a near one); then just
 * below what the near failure delivered; a pass within @resolution_pct
 * below it ends the search (@confirm: one more trial just above the pass
 * must fail, so that a pass and a failure bracket the result). A pass at or
 * above every bound disproves them (a receiver that livelocks under
 * overload delivers less than it takes without loss): the search then
 * steps up from the pass, 4 x farther at each pass, and halves once a
 * failure lies above the highest pass.
 *
 * @top:            the first trial's rate.
 * @floor:          the lowest rate worth a trial; a failure at or below it
 *                  ends the search.
 * @resolution_pct: the search ends when the interval is at most this share
 *                  of the highest rate that passed.
 * @tolerance_pct:  the loss a trial may have and pass.
 * @max_trials:     the most trials.
 * @confirm:        end only with a failing trial within the resolution
 *                  above the pass (at most one trial more).
 * @uncounted:      NULL, or per trial (at least @max_trials entries): 1 when
 *                  the kernel judged that trial's failure not to be the
 *                  path's (it is rerun, and it bounds nothing).
 */
struct ep_rate_search {
	double top;
	double floor;
	double resolution_pct;
	double tolerance_pct;
	int max_trials;
	int confirm;
	const unsigned char *uncounted;
};

/**
 * ep_rate_search_next() - struct ep_search next() for @arg = struct
 * ep_rate_search *.
 * Return: 1 with *@config set, 0 when done (the interval is within the
 * resolution, @max_trials ran, the first trial passed, or a trial at the
 * floor failed). The found value is ep_bsearch_found()'s: the highest pass.
 */
int ep_rate_search_next(void *arg, const struct ep_trial_row *log, size_t n, double *config);

#endif /* EMBPERF_CORE_SEARCH_H */
