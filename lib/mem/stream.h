/* SPDX-License-Identifier: MIT */
/*
 * stream.h - helpers of mem.stream that tests call directly: the check of
 * the arrays' final values, done after every run as STREAM does.
 */
#ifndef EMBPERF_MEM_STREAM_H
#define EMBPERF_MEM_STREAM_H

#include <stddef.h>

#include "lib/core/kernel.h"

extern const struct ep_kernel ep_kernel_mem_stream;

/** Largest accepted average relative error, STREAM's for 8-byte reals. */
#define EP_STREAM_EPSILON 1e-13

/**
 * struct ep_stream_expect - the value every element of each array should
 * hold, tracked with scalar copies of the kernels' updates.
 */
struct ep_stream_expect {
	double a, b, c;
};

/**
 * ep_stream_expect_init() - expected values after STREAM's initialisation:
 * a = 1, b = 2, c = 0, then a = 2 * a.
 * @e: receives the values.
 */
void ep_stream_expect_init(struct ep_stream_expect *e);

/**
 * ep_stream_validate() - check three arrays against their expected values.
 * @a, @b, @c: the arrays, @n elements each.
 * @n:         elements per array (> 0).
 * @expect:    expected value of every element.
 * @msg:       receives, on failure, which array failed and by how much.
 * @msg_size:  size of @msg.
 *
 * For each array, the average of |x[j] - expected| over the array, divided
 * by |expected| (not divided when the expected value is 0), must not exceed
 * EP_STREAM_EPSILON: the test of STREAM's checkSTREAMresults().
 *
 * Return: 0 when all three pass; -EIO when one fails.
 */
int ep_stream_validate(const double *a, const double *b, const double *c, size_t n,
		       const struct ep_stream_expect *expect, char *msg, size_t msg_size);

#endif /* EMBPERF_MEM_STREAM_H */
