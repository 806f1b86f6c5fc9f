/* SPDX-License-Identifier: MIT */
/*
 * hist.h - the engine-owned latency histogram (internal, not public).
 *
 * A body records one latency per operation, in nanoseconds; the engine
 * turns the histogram into count, min, max, mean and percentiles.
 *
 * Scheme: log-linear, the method of fio's completion-latency histogram
 * (fio stat.h/stat.c, FIO_IO_U_PLAT_BITS = 6; the method only, not its
 * code). With B = EP_HIST_SUB_BITS = 6:
 *  - values below 2 * 2^B = 128 ns have a bucket each (exact);
 *  - above, the power-of-two range [2^m, 2^(m+1)) (m >= 7) is split into
 *    2^B = 64 linear buckets of width 2^(m-6), so a bucket is 1/64 of its
 *    lower edge at most and its midpoint is within 1/128 = 0.78 % of any
 *    value in it (bound and arithmetic in doc/engine.md);
 *  - EP_HIST_GROUPS = 35 groups of 64 reach 2^40 ns (1099 s, 18.3 min);
 *    larger values are counted in the last bucket (min, max and the sum
 *    stay exact for every value).
 *
 * Memory: fixed, 2240 counters of 8 bytes plus 5 words, 17960 bytes
 * (~17.5 KiB), inside the struct, so it can be embedded; recording never
 * allocates.
 *
 * Thread-safety: one writer per histogram, no locking. Threads record
 * into their own histograms and ep_hist_merge() adds them up afterwards.
 */
#ifndef EMBPERF_CORE_HIST_H
#define EMBPERF_CORE_HIST_H

#include <stddef.h>
#include <stdint.h>

/** Linear sub-bucket bits per power-of-two group (fio's PLAT_BITS). */
#define EP_HIST_SUB_BITS 6
/** Buckets per group: 64. */
#define EP_HIST_SUB_BUCKETS (1u << EP_HIST_SUB_BITS)
/** Values below this (128 ns) are recorded exactly. */
#define EP_HIST_EXACT_BELOW_NS (2u * EP_HIST_SUB_BUCKETS)
/** Groups: 0..127 ns are the first two, then one per power of two up to 2^40 ns. */
#define EP_HIST_GROUPS 35
/** Buckets in all: 2240. */
#define EP_HIST_BUCKETS (EP_HIST_GROUPS * EP_HIST_SUB_BUCKETS)

/**
 * struct ep_hist - a log-linear histogram of nanosecond values.
 * @count: values recorded.
 * @min_ns: smallest value; UINT64_MAX while empty (ep_hist_min() says 0).
 * @max_ns: largest value; 0 while empty.
 * @sum_lo_ns: low 64 bits of the sum of all values.
 * @sum_hi_ns: high 64 bits of that sum (a carry word: the sum of 2^64
 *             values of 2^64 ns each still fits).
 * @buckets: counts per bucket; see ep_hist_bucket_index().
 *
 * Read it through the functions below; the fields are here only so that
 * the struct can be embedded (no allocation) and has a fixed size.
 */
struct ep_hist {
	uint64_t count;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t sum_lo_ns;
	uint64_t sum_hi_ns;
	uint64_t buckets[EP_HIST_BUCKETS];
};

/**
 * ep_hist_new() - allocate an empty histogram on the heap.
 *
 * Return: the histogram, owned by the caller (ep_hist_free()); NULL with
 * errno = ENOMEM.
 */
struct ep_hist *ep_hist_new(void);

/** ep_hist_free() - free a histogram from ep_hist_new(); NULL is a no-op. */
void ep_hist_free(struct ep_hist *h);

/** ep_hist_reset() - empty @h (also the way to initialise an embedded one). */
void ep_hist_reset(struct ep_hist *h);

/**
 * ep_hist_record() - count one value.
 * @h: the histogram (one writer at a time).
 * @value_ns: the value in nanoseconds; any uint64_t, values above the last
 *            bucket (2^40 ns) are counted in the last bucket.
 *
 * O(1): no allocation, no loop, no system call.
 */
void ep_hist_record(struct ep_hist *h, uint64_t value_ns);

/**
 * ep_hist_merge() - add the values of @src to @dst, as if every value of
 * @src had been recorded into @dst. @src is unchanged.
 */
void ep_hist_merge(struct ep_hist *dst, const struct ep_hist *src);

/** ep_hist_count() - number of values recorded. */
uint64_t ep_hist_count(const struct ep_hist *h);

/** ep_hist_min() - smallest value recorded (exact), in ns; 0 when empty. */
uint64_t ep_hist_min(const struct ep_hist *h);

/** ep_hist_max() - largest value recorded (exact), in ns; 0 when empty. */
uint64_t ep_hist_max(const struct ep_hist *h);

/**
 * ep_hist_mean() - mean of the values, in ns, from their exact 128-bit sum.
 *
 * Return: the mean; NaN when empty.
 */
double ep_hist_mean(const struct ep_hist *h);

/**
 * ep_hist_percentile() - value at a percentile.
 * @h: the histogram.
 * @pct: the percentile, 0 < @pct <= 100.
 *
 * Nearest rank: the smallest recorded value v such that at least @pct % of
 * the values are <= v, i.e. the value of rank ceil(@pct / 100 * n) in
 * sorted order (a product within a relative 1e-9 of an integer counts as
 * that integer, so 99.9 % of 10^6 values is rank 999000 whatever the
 * binary rounding of 99.9). It is reported as its bucket's representative: the value
 * itself below 128 ns, the bucket's midpoint above (within 0.78 % of the
 * value), clamped to [min, max]. The rank n (100 %, or any @pct whose
 * rank rounds to n) is the exact max. Values from the last bucket on
 * (2^40 - 2^33 ns, 17.9 min, and above) share one bucket: a percentile
 * among them reads as its midpoint, ~1.1e12 ns, clamped to [min, max].
 *
 * Return: the value in ns; NaN when empty, or when @pct is NaN, <= 0 or
 * > 100.
 */
double ep_hist_percentile(const struct ep_hist *h, double pct);

/** ep_hist_bucket_count() - number of buckets (EP_HIST_BUCKETS, 2240). */
size_t ep_hist_bucket_count(void);

/**
 * ep_hist_bucket_index() - the bucket that counts @value_ns: the value
 * itself below 128; for larger values, with m the top bit of @value_ns,
 * (m - 6) * 64 + (@value_ns >> (m - 6)); at most EP_HIST_BUCKETS - 1.
 */
size_t ep_hist_bucket_index(uint64_t value_ns);

/**
 * ep_hist_bucket_lower_ns() - smallest value of bucket @i (i < 2240):
 * @i itself below 128, then (64 + i % 64) << (i / 64 - 1). Bucket @i
 * holds [lower(i), lower(i + 1)); the last one everything from 2^40 - 2^33
 * on (its nominal upper edge is 2^40).
 */
uint64_t ep_hist_bucket_lower_ns(size_t i);

#endif /* EMBPERF_CORE_HIST_H */
