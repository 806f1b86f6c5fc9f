/* SPDX-License-Identifier: MIT */
/*
 * lat.h - helpers of mem.lat that tests call directly: the sweep's size
 * progression and the detection of cache levels in a latency curve.
 */
#ifndef EMBPERF_MEM_LAT_H
#define EMBPERF_MEM_LAT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/kernel.h"

extern const struct ep_kernel ep_kernel_mem_lat;

/**
 * ep_mem_lat_next_size() - the size after @bytes in a sweep.
 * @bytes: current size.
 *
 * The progression of lmbench's lat_mem_rd: doubling below 1 KiB, 1 KiB steps
 * up to 4 KiB, then two points per octave (4k, 6k, 8k, 12k, 16k, 24k, ...).
 *
 * Return: the next size; 0 when it would overflow.
 */
uint64_t ep_mem_lat_next_size(uint64_t bytes);

/**
 * ep_mem_lat_chain() - lay mem.lat's pointer chain over @n_slots slots.
 * @base:         the first slot; slot k is at @base + k * @stride_bytes and
 *                receives the address of the slot the chase loads next.
 * @stride_bytes: distance between slots (at least a pointer's size).
 * @n_slots:      slots in the chain (at least 1).
 * @random:       0: address order, each slot pointing to the next one up and
 *                the last back to the first (order=stride); 1: a uniformly
 *                random single cycle through all slots (Sattolo's algorithm),
 *                drawn from @seed (order=random).
 * @seed:         the generator's seed for @random.
 * @run:          the run checked for cancel while a long random chain is
 *                drawn; NULL: never checked.
 *
 * Return: 0, or the error of the cancel check.
 */
int ep_mem_lat_chain(char *base, uint64_t stride_bytes, size_t n_slots, int random,
		     uint64_t seed, struct ep_run *run);

/**
 * struct ep_mem_level - one plateau of a latency curve.
 * @first:      index of its smallest size.
 * @last:       index of its largest size.
 * @edge:       index of the level's capacity estimate: the largest size,
 *              from @last on, whose latency stays below the midpoint between
 *              this plateau and the next (@last for the final plateau).
 * @latency_ns: median latency of its points.
 */
struct ep_mem_level {
	int first;
	int last;
	int edge;
	double latency_ns;
};

/**
 * ep_mem_lat_detect_levels() - find the plateaus of a latency curve.
 * @latency_ns: latencies at increasing sizes.
 * @n:          number of points.
 * @levels:     receives the plateaus, smallest first.
 * @max_levels: room in @levels.
 *
 * A plateau is a run of at least two consecutive points whose latencies stay
 * within 15% of the run's lowest latency; the points between two plateaus
 * are the transition (the jump) from one level of the hierarchy to the next.
 * A plateau also needs three points and to sit clearly (25%) above the one
 * before, so that noise on a flat curve does not split a level in two. The
 * capacity of a level is where the curve, climbing to the next plateau,
 * crosses the midpoint between the two latencies.
 *
 * Return: the number of plateaus found (at most @max_levels).
 */
int ep_mem_lat_detect_levels(const double *latency_ns, int n, struct ep_mem_level *levels,
			     int max_levels);

#endif /* EMBPERF_MEM_LAT_H */
