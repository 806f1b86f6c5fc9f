// SPDX-License-Identifier: MIT
/*
 * mem_lat.c - mem.lat: memory load latency by pointer chasing, the method of
 * lmbench's lat_mem_rd (McVoy & Staelin).
 *
 * The buffer holds a circular chain of pointers, one every 'stride' bytes,
 * visited in address order (order=stride) or in a random cyclic permutation
 * (order=random). Each load depends on the one before, so the time per load
 * is the latency of the level of the memory hierarchy that holds the chain.
 * A sweep ("16k..256M") measures one case per size and then finds the cache
 * levels in the curve.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/ctx.h"
#include "lib/core/run.h"
#include "lib/core/result.h"
#include "lib/core/util.h"
#include "lib/core/buffer.h"
#include "lib/mem/lat.h"

#define LAT_MIN_SIZE 512                 /* lmbench's smallest size */
#define LAT_MAX_SIZE ((int64_t)1 << 40)  /* 1T; checked against memory in setup */
#define LAT_UNROLL 100                   /* dependent loads per loop iteration */
#define LAT_CHECK_SLOTS ((size_t)1 << 16) /* slots between cancel checks in setup */
#define LAT_PLATEAU_TOLERANCE 1.15
#define LAT_LEVEL_STEP 1.25
#define LAT_PLATEAU_MIN_POINTS 3
#define LAT_MAX_LEVELS 8
#define LAT_LABEL_MAX 96
#define LAT_BODY_ALIGN 512 /* a divisor of 4096 larger than the body */

enum { ORDER_STRIDE, ORDER_RANDOM };
enum { METRIC_LATENCY, METRIC_LEVEL_LATENCY, METRIC_LEVEL_SIZE };

struct lat_state;

/**
 * struct lat_case - one size of the run.
 * @st:         the run's state.
 * @size_bytes: bytes covered by the chain.
 * @pos:        where the chase stands; kept between body calls.
 * @label:      "size=64k".
 */
struct lat_case {
	struct lat_state *st;
	uint64_t size_bytes;
	void **pos;
	char label[LAT_LABEL_MAX];
};

/**
 * struct lat_state - the run's state.
 * @run:          the run (cancel checks while building long chains).
 * @buf:          one buffer, as large as the largest size; the cases take
 *                turns using its start.
 * @stride_bytes: distance between two pointers of a stride chain, and the
 *                slot size of a random chain.
 * @order:        ORDER_STRIDE or ORDER_RANDOM.
 * @walks:        least walks of a whole chain per sample ('walks').
 * @cases:        one per size, smallest first.
 * @n_cases:      number of @cases.
 */
struct lat_state {
	struct ep_run *run;
	struct ep_mem_buf buf;
	uint64_t stride_bytes;
	int order;
	double walks;
	struct lat_case *cases;
	int n_cases;
};

static const struct ep_param_desc lat_params[] = {
	{ "size", EP_PT_SIZE_RANGE, "512..64M", { { LAT_MIN_SIZE, LAT_MAX_SIZE } }, NULL, "bytes",
	  "array size, or MIN..MAX for a sweep in lat_mem_rd's steps (two per octave above 4k)" },
	{ "stride", EP_PT_SIZE, "128", { { (int64_t)sizeof(void *), (int64_t)1 << 30 } }, NULL,
	  "bytes", "distance between consecutive pointers; a multiple of the pointer size" },
	{ "order", EP_PT_ENUM, "stride", { { 0, 0 } }, "stride|random", "",
	  "stride: addresses in increasing order; random: a random cycle over the stride slots" },
	{ "hugepages", EP_PT_ENUM, "off", { { 0, 0 } }, "off|thp|on", "",
	  "off: base pages; thp: transparent huge pages (madvise); on: reserved huge pages" },
	{ "walks", EP_PT_DOUBLE, "1", { .dmin = 0.0, .dmax = 1000.0 }, NULL, "",
	  "least walks of the whole chain per sample, longer than sample_time if need be (0: sample_time alone)" },
};

static const struct ep_metric_desc lat_metrics[] = {
	[METRIC_LATENCY] = { "latency", "ns", EP_METRIC_TIME, 1.0, EP_PRIMARY_MIN, 0,
			     "time of one dependent load, best of the samples as lat_mem_rd" },
	[METRIC_LEVEL_LATENCY] = { "cache_level_latency", "ns", EP_METRIC_VALUE, 1.0,
				   EP_PRIMARY_MEDIAN, 0,
				   "latency of a level found in a sweep (median of its plateau)" },
	[METRIC_LEVEL_SIZE] = { "cache_level_size", "bytes", EP_METRIC_VALUE, 1.0,
				EP_PRIMARY_MEDIAN, 1,
				"capacity of a level found in a sweep, next to the size sysfs gives" },
};

EP_UNTIMED uint64_t ep_mem_lat_next_size(uint64_t bytes)
{
	uint64_t octave = 4096;

	if (bytes < 1024)
		return bytes * 2;
	if (bytes < 4096)
		return bytes + 1024;
	while (octave <= bytes) {
		if (octave > UINT64_MAX / 2)
			return 0;
		octave *= 2;
	}
	return bytes + octave / 4 < bytes ? 0 : bytes + octave / 4;
}

/* Slot @k of the chain. */
static inline char *slot(char *base, uint64_t stride_bytes, size_t k)
{
	return base + (uint64_t)k * stride_bytes;
}

/* Each slot points to the next one up; the last back to the first. */
static void chain_in_order(char *base, uint64_t stride_bytes, size_t n_slots)
{
	for (size_t k = 0; k + 1 < n_slots; k++)
		*(char **)slot(base, stride_bytes, k) = slot(base, stride_bytes, k + 1);
	*(char **)slot(base, stride_bytes, n_slots - 1) = base;
}

/*
 * A uniformly random single cycle through all slots (Sattolo's algorithm),
 * built in place: each slot first holds the index of its successor, then the
 * indices become addresses.
 */
static int chain_random(char *base, uint64_t stride_bytes, size_t n_slots, uint64_t seed,
			struct ep_run *run)
{
	uint64_t rng = seed;
	int rc;

	for (size_t k = 0; k < n_slots; k++)
		*(uintptr_t *)slot(base, stride_bytes, k) = k;
	for (size_t i = n_slots - 1; i > 0; i--) {
		size_t j = (size_t)(ep_mem_splitmix64(&rng) % i);
		uintptr_t *a = (uintptr_t *)slot(base, stride_bytes, i);
		uintptr_t *b = (uintptr_t *)slot(base, stride_bytes, j);
		uintptr_t t = *a;

		*a = *b;
		*b = t;
		if (run && i % LAT_CHECK_SLOTS == 0 && (rc = ep_run_check(run)))
			return rc;
	}
	for (size_t k = 0; k < n_slots; k++) {
		uintptr_t *p = (uintptr_t *)slot(base, stride_bytes, k);

		*(char **)p = slot(base, stride_bytes, (size_t)*p);
	}
	return 0;
}

int ep_mem_lat_chain(char *base, uint64_t stride_bytes, size_t n_slots, int random,
		     uint64_t seed, struct ep_run *run)
{
	if (random)
		return chain_random(base, stride_bytes, n_slots, seed, run);
	chain_in_order(base, stride_bytes, n_slots);
	return 0;
}

/* prepare(): lay this case's chain over the start of the shared buffer. */
/* Slots of a chain over @size_bytes: wherever a whole stride starts below the size, as lat_mem_rd. */
static size_t chain_slots(uint64_t size_bytes, uint64_t stride_bytes)
{
	return (size_t)((size_bytes + stride_bytes - 1) / stride_bytes);
}

EP_UNTIMED static int lat_prepare(void *arg)
{
	struct lat_case *lc = arg;
	struct lat_state *st = lc->st;
	char *base = st->buf.addr;
	size_t n_slots = chain_slots(lc->size_bytes, st->stride_bytes);
	int rc = 0;

	rc = ep_mem_lat_chain(base, st->stride_bytes, n_slots, st->order == ORDER_RANDOM,
			      0x5eed0000ULL ^ lc->size_bytes, st->run);
	lc->pos = (void **)base;
	return rc;
}

#define LAT_LOAD(p) ((p) = (void **)*(p));
#define LAT_LOAD10(p) \
	LAT_LOAD(p) LAT_LOAD(p) LAT_LOAD(p) LAT_LOAD(p) LAT_LOAD(p) \
	LAT_LOAD(p) LAT_LOAD(p) LAT_LOAD(p) LAT_LOAD(p) LAT_LOAD(p)
#define LAT_LOAD100(p) \
	LAT_LOAD10(p) LAT_LOAD10(p) LAT_LOAD10(p) LAT_LOAD10(p) LAT_LOAD10(p) \
	LAT_LOAD10(p) LAT_LOAD10(p) LAT_LOAD10(p) LAT_LOAD10(p) LAT_LOAD10(p)

/*
 * body(): @units dependent loads. Unrolled by a hundred, as lat_mem_rd, so
 * the loop's own instructions hide behind the loads. The final position is
 * stored, which both keeps the chase going across calls and keeps the
 * compiler from dropping the loads.
 *
 * Aligned so that the loop (about 350 bytes) never straddles a 4 KiB page of
 * code: on AMD Zen 5 a stride chase whose loop crosses a code page measured
 * twice the latency at DRAM sizes (22 ns instead of 11 ns at 256M, stride
 * 128), which made the result depend on where the linker put the function.
 */
__attribute__((aligned(LAT_BODY_ALIGN)))
static int lat_body(void *arg, uint64_t units)
{
	struct lat_case *lc = arg;
	void **p = lc->pos;

	for (uint64_t blocks = units / LAT_UNROLL; blocks; blocks--) {
		LAT_LOAD100(p)
	}
	for (uint64_t rest = units % LAT_UNROLL; rest; rest--)
		LAT_LOAD(p)
	lc->pos = p;
	return 0;
}

/*
 * Least loads per sample: 'walks' times the chain. A 5 ms sample of a
 * random chain at 96M walks ~3 % of it (Intel Xeon VM), and the best of 11
 * such parts read 0.84x of lat_mem_rd; a whole walk each agreed.
 */
static uint64_t walk_units(const struct lat_state *st, const struct lat_case *lc)
{
	return (uint64_t)ceil(st->walks * (double)chain_slots(lc->size_bytes, st->stride_bytes));
}

/* Sizes of the sweep: lo, then lat_mem_rd's steps while <= hi, skipping sizes below a stride. */
static int count_sizes(uint64_t lo, uint64_t hi, uint64_t stride_bytes)
{
	int n = 0;

	for (uint64_t s = lo; s && s <= hi; s = ep_mem_lat_next_size(s))
		n += s >= stride_bytes;
	return n;
}

static int add_cases(struct ep_run *run, struct lat_state *st, uint64_t lo, uint64_t hi)
{
	int n = count_sizes(lo, hi, st->stride_bytes), i = 0;

	st->cases = calloc((size_t)n, sizeof(*st->cases));
	if (!st->cases)
		return -ENOMEM;
	for (uint64_t s = lo; s && s <= hi; s = ep_mem_lat_next_size(s)) {
		struct lat_case *lc;
		char text[32];

		if (s < st->stride_bytes)
			continue;
		lc = &st->cases[i++];
		lc->st = st;
		lc->size_bytes = s;
		ep_format_size((int64_t)s, text, sizeof(text));
		snprintf(lc->label, sizeof(lc->label), "size=%s", text);
	}
	st->n_cases = n;
	for (i = 0; i < n; i++) {
		struct ep_case c = {
			.metric = METRIC_LATENCY,
			.labels = st->cases[i].label,
			.body = lat_body,
			.prepare = lat_prepare,
			.arg = &st->cases[i],
			.min_units = walk_units(st, &st->cases[i]),
		};
		int rc = ep_run_add_case(run, &c);

		if (rc)
			return rc;
	}
	return 0;
}

static int check_params(struct ep_run *run, uint64_t lo, uint64_t hi, uint64_t stride_bytes)
{
	if (stride_bytes % sizeof(void *))
		return ep_run_refuse(run, -EINVAL, "stride", " is not a multiple of the pointer "
				     "size; accepted: multiples of %zu bytes", sizeof(void *));
	if (hi < stride_bytes)
		return ep_run_refuse(run, -EINVAL, "size", " is smaller than the stride (%s); "
				     "accepted: sizes of at least one stride",
				     ep_param_text(run, "stride"));
	if (!count_sizes(lo, hi, stride_bytes))
		return ep_run_refuse(run, -EINVAL, "size", " holds no size");
	/* The chain's last pointer may start just below hi: one stride of room. */
	return ep_mem_check_fits(run, "size", ep_param_text(run, "size"), hi + stride_bytes);
}

EP_UNTIMED static void lat_teardown(void *state)
{
	struct lat_state *st = state;

	ep_mem_buf_free(&st->buf);
	free(st->cases);
}

EP_UNTIMED static int lat_setup(struct ep_run *run, void **state)
{
	uint64_t stride_bytes = (uint64_t)ep_param_int(run, "stride");
	int64_t lo, hi;
	struct lat_state *st = *state;
	int rc;

	ep_param_range(run, "size", &lo, &hi);
	rc = check_params(run, (uint64_t)lo, (uint64_t)hi, stride_bytes);
	if (rc)
		return rc;
	st->run = run;
	st->stride_bytes = stride_bytes;
	st->order = (int)ep_param_int(run, "order");
	st->walks = ep_param_double(run, "walks");
	rc = ep_mem_buf_alloc(run, &st->buf, (size_t)hi + stride_bytes,
			      (enum ep_mem_huge)ep_param_int(run, "hugepages"));
	if (!rc)
		rc = add_cases(run, st, (uint64_t)lo, (uint64_t)hi);
	return rc;
}

/* Median of v[first..last]; @tmp has room for the run. */
static double median_of(const double *v, int first, int last, double *tmp)
{
	size_t n = (size_t)(last - first + 1);

	memcpy(tmp, v + first, n * sizeof(*tmp));
	return ep_median_inplace(tmp, n);
}

/* Longest run from @first whose points stay within tolerance of its lowest. */
static int plateau_end(const double *lat, int n, int first)
{
	double low = lat[first];
	int last = first;

	while (last + 1 < n) {
		double next = lat[last + 1];
		double new_low = next < low ? next : low;
		int ok = 1;

		for (int k = first; k <= last + 1 && ok; k++)
			ok = lat[k] <= new_low * LAT_PLATEAU_TOLERANCE;
		if (!ok)
			break;
		low = new_low;
		last++;
	}
	return last;
}

EP_UNTIMED int ep_mem_lat_detect_levels(const double *latency_ns, int n,
					 struct ep_mem_level *levels, int max_levels)
{
	double *tmp;
	int count = 0;

	if (n <= 0 || max_levels <= 0)
		return 0;
	tmp = malloc((size_t)n * sizeof(*tmp));
	if (!tmp)
		return 0;
	for (int first = 0; first < n;) {
		int last = plateau_end(latency_ns, n, first);
		double med;

		if (last - first + 1 < LAT_PLATEAU_MIN_POINTS) {
			first++;
			continue;
		}
		med = median_of(latency_ns, first, last, tmp);
		if (count && med < levels[count - 1].latency_ns * LAT_LEVEL_STEP) {
			/* Not clearly above the level before: the same level. */
			levels[count - 1].last = last;
			levels[count - 1].edge = last;
			levels[count - 1].latency_ns =
				median_of(latency_ns, levels[count - 1].first, last, tmp);
		} else if (count < max_levels) {
			levels[count++] = (struct ep_mem_level){ first, last, last, med };
		}
		first = last + 1;
	}
	free(tmp);
	for (int i = 0; i + 1 < count; i++) {
		double mid = 0.5 * (levels[i].latency_ns + levels[i + 1].latency_ns);
		int edge = levels[i].last;

		while (edge + 1 < levels[i + 1].first && latency_ns[edge + 1] < mid)
			edge++;
		levels[i].edge = edge;
	}
	return count;
}

/* Measured latency of each case, read from the run's results by label. */
static int collect_latencies(struct ep_run *run, const struct lat_state *st, double *lat)
{
	for (int i = 0; i < st->n_cases; i++) {
		const struct embperf_result *res =
			ep_run_find_result(run, METRIC_LATENCY, st->cases[i].label);

		lat[i] = res ? res->value : NAN;
		if (isnan(lat[i]))
			return -ENODATA;
	}
	return 0;
}

/* Report one detected level next to the size sysfs gives for it. */
static int add_level(struct ep_run *run, const struct lat_state *st, const struct ep_mem_level *lv,
		     int number, uint64_t sysfs_bytes)
{
	char size[32], sysfs[32], labels[LAT_LABEL_MAX + 32];
	uint64_t size_bytes = st->cases[lv->edge].size_bytes;
	int rc;

	ep_format_size((int64_t)size_bytes, size, sizeof(size));
	if (!number) {
		snprintf(labels, sizeof(labels), "level=mem");
		return ep_run_add_value(run, METRIC_LEVEL_LATENCY, labels, lv->latency_ns);
	}
	if (sysfs_bytes)
		ep_format_size((int64_t)sysfs_bytes, sysfs, sizeof(sysfs));
	else
		snprintf(sysfs, sizeof(sysfs), "unknown");
	snprintf(labels, sizeof(labels), "level=%d size=%s sysfs_size=%s", number, size, sysfs);
	rc = ep_run_add_value(run, METRIC_LEVEL_LATENCY, labels, lv->latency_ns);
	if (rc)
		return rc;
	snprintf(labels, sizeof(labels), "level=%d sysfs_size=%s", number, sysfs);
	return ep_run_add_value(run, METRIC_LEVEL_SIZE, labels, (double)size_bytes);
}

/** struct lat_cache - a cache level as sysfs describes it. */
struct lat_cache {
	int level;
	uint64_t bytes;
};

/* The data caches sysfs names, smallest level first; returns how many. */
static int read_caches(embperf_ctx *ctx, struct lat_cache *caches)
{
	static const char *const keys[] = { "cache_l1d_bytes", "cache_l2_bytes",
					     "cache_l3_bytes" };
	int n = 0;

	for (size_t k = 0; k < EP_ARRAY_SIZE(keys); k++) {
		uint64_t bytes = ep_sysinfo_u64(ctx, keys[k]);

		if (bytes)
			caches[n++] = (struct lat_cache){ (int)k + 1, bytes };
	}
	return n;
}

/*
 * Name the plateaus. Each takes the next sysfs cache at least half as large
 * as the last size of its flat part (a sweep may start above L1, and a
 * level's capacity as seen through the TLB can fall short of its size). The
 * flat part, not the edge, decides: when the next level is too noisy to
 * form a plateau of its own, the edge of this one runs on into it. A plateau
 * that starts above the largest cache, or finds no cache left, is main
 * memory and ends the list. Without sysfs sizes plateaus are numbered in
 * order.
 */
static int report_levels(struct ep_run *run, const struct lat_state *st,
			 const struct ep_mem_level *levels, int n_levels)
{
	struct lat_cache caches[3];
	int n_caches = read_caches(ep_run_ctx(run), caches), next = 0, rc = 0;
	uint64_t largest = n_caches ? caches[n_caches - 1].bytes : 0;

	for (int i = 0; i < n_levels && !rc; i++) {
		uint64_t first_bytes = st->cases[levels[i].first].size_bytes;
		uint64_t last_bytes = st->cases[levels[i].last].size_bytes;
		int k = next;

		if (!n_caches) {
			rc = add_level(run, st, &levels[i], i + 1, 0);
			continue;
		}
		while (k < n_caches && caches[k].bytes < last_bytes / 2)
			k++;
		if (k >= n_caches || first_bytes > largest)
			return add_level(run, st, &levels[i], 0, 0);
		rc = add_level(run, st, &levels[i], caches[k].level, caches[k].bytes);
		next = k + 1;
	}
	return rc;
}

/* finish(): with a sweep, find the plateaus of the curve and report them as levels. */
EP_UNTIMED static int lat_finish(struct ep_run *run, void *state)
{
	struct lat_state *st = state;
	struct ep_mem_level levels[LAT_MAX_LEVELS];
	int n_levels, rc;
	double *lat;

	if (st->n_cases < 2 * LAT_PLATEAU_MIN_POINTS)
		return 0;
	lat = malloc((size_t)st->n_cases * sizeof(*lat));
	if (!lat)
		return -ENOMEM;
	if (collect_latencies(run, st, lat)) {
		free(lat);
		return 0; /* a case without a result: nothing to analyse */
	}
	n_levels = ep_mem_lat_detect_levels(lat, st->n_cases, levels, LAT_MAX_LEVELS);
	rc = report_levels(run, st, levels, n_levels);
	free(lat);
	return rc;
}

const struct ep_kernel ep_kernel_mem_lat = {
	.name = "mem.lat",
	.summary = "memory load latency by pointer chasing (lmbench lat_mem_rd), with cache "
		   "level detection over a size sweep",
	EP_PARAMS(lat_params),
	EP_METRICS(lat_metrics),
	.engine_defaults = ep_lmbench_count_defaults,
	.setup = lat_setup,
	.finish = lat_finish,
	.teardown = lat_teardown,
	.state_bytes = sizeof(struct lat_state),
	.cpu_bound = 1,
};
