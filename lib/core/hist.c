// SPDX-License-Identifier: MIT
/*
 * hist.c - the engine-owned log-linear latency histogram.
 *
 * The bucket scheme is fio's (stat.c, plat_val_to_idx/plat_idx_to_val:
 * exact below 2 * 2^6, then 2^6 linear buckets per power of two); this is
 * a fresh implementation of that method, see hist.h and doc/engine.md.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "util.h"

_Static_assert(sizeof(struct ep_hist) == (5 + EP_HIST_BUCKETS) * sizeof(uint64_t),
	"struct ep_hist is 17960 bytes, as hist.h states");
_Static_assert(EP_HIST_GROUPS + EP_HIST_SUB_BITS - 1 == 40,
	"the last group ends at 2^40 ns (18.3 min), above the 10 min asked for");

/*
 * Bucket of @v, without a loop or a data-dependent branch. With m the top
 * bit of (v | 64) and shift = m - 6, v >> shift lies in [64, 128) for
 * v >= 64 and is v itself below 128 (shift 0), so shift * 64 + (v >> shift)
 * is v below 128 and counts on contiguously above.
 */
static inline size_t bucket_of(uint64_t v)
{
	unsigned int shift = 63u - (unsigned int)__builtin_clzll(v | EP_HIST_SUB_BUCKETS) -
		EP_HIST_SUB_BITS;
	size_t i = ((size_t)shift << EP_HIST_SUB_BITS) + (size_t)(v >> shift);

	return i < EP_HIST_BUCKETS ? i : EP_HIST_BUCKETS - 1;
}

/* Shift of bucket @i's group: its width is 1 << shift (0 below 128). */
static unsigned int bucket_shift(size_t i)
{
	return i < EP_HIST_EXACT_BELOW_NS ? 0u : (unsigned int)(i >> EP_HIST_SUB_BITS) - 1u;
}

/* Lowest value of bucket @i: the inverse of bucket_of() on bucket edges. */
static uint64_t bucket_lower(size_t i)
{
	unsigned int shift = bucket_shift(i);

	return (uint64_t)(i - ((size_t)shift << EP_HIST_SUB_BITS)) << shift;
}

/* Representative of bucket @i: the midpoint of the integers it holds. */
static double bucket_mid(size_t i)
{
	uint64_t width = (uint64_t)1 << bucket_shift(i);

	return (double)bucket_lower(i) + (double)(width - 1) / 2.0;
}

EP_UNTIMED struct ep_hist *ep_hist_new(void)
{
	struct ep_hist *h = malloc(sizeof(*h));

	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	ep_hist_reset(h);
	return h;
}

EP_UNTIMED void ep_hist_free(struct ep_hist *h)
{
	free(h);
}

void ep_hist_reset(struct ep_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

void ep_hist_record(struct ep_hist *h, uint64_t value_ns)
{
	h->count++;
	h->sum_lo_ns += value_ns;
	h->sum_hi_ns += h->sum_lo_ns < value_ns;	/* carry */
	h->min_ns = value_ns < h->min_ns ? value_ns : h->min_ns;
	h->max_ns = value_ns > h->max_ns ? value_ns : h->max_ns;
	h->buckets[bucket_of(value_ns)]++;
}

EP_UNTIMED void ep_hist_merge(struct ep_hist *dst, const struct ep_hist *src)
{
	uint64_t lo = dst->sum_lo_ns + src->sum_lo_ns;

	dst->sum_hi_ns += src->sum_hi_ns + (lo < src->sum_lo_ns);
	dst->sum_lo_ns = lo;
	dst->count += src->count;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (size_t i = 0; i < EP_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}

uint64_t ep_hist_count(const struct ep_hist *h)
{
	return h->count;
}

uint64_t ep_hist_min(const struct ep_hist *h)
{
	return h->count ? h->min_ns : 0;
}

uint64_t ep_hist_max(const struct ep_hist *h)
{
	return h->max_ns;
}

EP_UNTIMED double ep_hist_mean(const struct ep_hist *h)
{
	if (!h->count)
		return NAN;
	return ((double)h->sum_hi_ns * 18446744073709551616.0 + (double)h->sum_lo_ns) /
		(double)h->count;
}

/*
 * Nearest rank of @pct among @n values: ceil(pct / 100 * n), in [1, n]. A
 * product within a relative 1e-9 of an integer is that integer: 99.9 / 100
 * * 10^6 must give rank 999000 even if it computes as 999000.0000000001.
 */
static uint64_t nearest_rank(uint64_t n, double pct)
{
	double x = pct / 100.0 * (double)n;
	double r = nearbyint(x);
	double rank = fabs(x - r) <= 1e-9 * x ? r : ceil(x);

	if (rank < 1.0)
		return 1;
	return rank >= (double)n ? n : (uint64_t)rank;
}

EP_UNTIMED double ep_hist_percentile(const struct ep_hist *h, double pct)
{
	uint64_t rank, seen = 0;
	size_t i;
	double v;

	if (!h->count || !(pct > 0.0 && pct <= 100.0))	/* NaN fails both */
		return NAN;
	rank = nearest_rank(h->count, pct);
	if (rank == h->count)	/* the largest value: known exactly, even past 2^40 */
		return (double)h->max_ns;
	for (i = 0; i < EP_HIST_BUCKETS - 1; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	v = bucket_mid(i);
	if (v < (double)h->min_ns)
		v = (double)h->min_ns;
	if (v > (double)h->max_ns)
		v = (double)h->max_ns;
	return v;
}

size_t ep_hist_bucket_count(void)
{
	return EP_HIST_BUCKETS;
}

size_t ep_hist_bucket_index(uint64_t value_ns)
{
	return bucket_of(value_ns);
}

uint64_t ep_hist_bucket_lower_ns(size_t i)
{
	return bucket_lower(i < EP_HIST_BUCKETS ? i : EP_HIST_BUCKETS - 1);
}
