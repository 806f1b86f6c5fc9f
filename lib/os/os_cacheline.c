// SPDX-License-Identifier: MIT
/*
 * os_cacheline.c - os.cacheline: the cache line size, found by timing loads
 * as lmbench's "line" program does (Staelin & McVoy, lib_mem.c line_find).
 *
 * A buffer far larger than the caches is walked by a pointer chain that
 * visits every page once, pages in a random order, and inside a page one
 * word every 'stride' bytes, in bit-reversed order so that neighbouring
 * loads are never neighbours in memory. One case per stride, from a
 * pointer's size up to a sixteenth of a page, measures ns per load:
 *
 *   - while the stride is below the line size, several loads share a line
 *     and only the first misses: the time per load is low;
 *   - from the line size up, every load misses: the time per load jumps
 *     and then stays about flat.
 *
 * The rule of line_find (line_rule.c): walking up the strides, the first
 * rise of more than 30% over the previous stride marks the jump; after it,
 * the first stride less than 15% above the previous one is past the line,
 * and the line size is the stride before it. Where the curve shows no
 * jump then plateau (on CPUs whose prefetchers pull in neighbouring lines
 * it keeps rising past the line), no size is reported: a warning says
 * "not found here" and gives the curve, which stays in the results.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/result.h"
#include "lib/core/util.h"
#include "lib/os/line_rule.h"
#include "lib/os/os_files.h"

#define LINE_MIN_SIZE ((int64_t)1 << 20)
#define LINE_MAX_SIZE ((int64_t)1 << 34)
#define LINE_UNROLL 100            /* dependent loads per loop iteration */
#define LINE_MAX_STRIDES 16
#define LINE_CHECK_PAGES 4096      /* pages linked between cancel checks */
#define LINE_LABEL_MAX 32
#define LINE_CURVE_TEXT_MAX 256
#define LINE_SEED 0x11e5eedULL

enum { METRIC_LATENCY, METRIC_LINE_SIZE };

struct line_state;

/**
 * struct line_case - one stride.
 * @st:           the run's state.
 * @stride_bytes: distance between the words visited in a page.
 * @pos:          where the chase stands; kept between body calls.
 * @label:        "stride=64".
 */
struct line_case {
	struct line_state *st;
	size_t stride_bytes;
	void **pos;
	char label[LINE_LABEL_MAX];
};

/**
 * struct line_state - the run's state.
 * @run:        the run (cancel checks while linking).
 * @base:       the buffer, page aligned.
 * @map_bytes:  its length.
 * @page_bytes: page size.
 * @n_pages:    pages in the buffer.
 * @pages:      page indices in the order the chain visits them.
 * @cases:      one per stride, smallest first.
 * @n_cases:    number of @cases.
 */
struct line_state {
	struct ep_run *run;
	char *base;
	size_t map_bytes;
	size_t page_bytes;
	size_t n_pages;
	size_t *pages;
	struct line_case cases[LINE_MAX_STRIDES];
	int n_cases;
};

/*
 * lmbench's defaults, with samples of 20 ms: on a loaded VM, 5 ms samples
 * of a 64M chase missed the 30% step to the line in 6 of 15 runs, 20 ms
 * ones in 3 of 12, 100 ms ones in 2 of 11 (doc/benchmarks-lmbench.md,
 * "line"); 20 ms keeps a run near 3 s. lmbench's timings there last 100 ms.
 */
static const struct ep_default line_defaults[] = {
	{ "repetitions", "11" },
	{ "spread", "0" },
	{ "sample_time", "20ms" },
	{ NULL, NULL },
};

static const struct ep_param_desc line_params[] = {
	{ "size", EP_PT_SIZE, "64M", { { LINE_MIN_SIZE, LINE_MAX_SIZE } }, NULL, "bytes",
	  "buffer walked, far larger than the caches (line -M; default 64M as line)" },
};

static const struct ep_metric_desc line_metrics[] = {
	[METRIC_LATENCY] = { "latency", "ns", EP_METRIC_TIME, 1.0, EP_PRIMARY_MEDIAN, 0,
			     "time per load at one stride, median as line_test" },
	[METRIC_LINE_SIZE] = { "line_size", "bytes", EP_METRIC_VALUE, 1.0, EP_PRIMARY_MEDIAN, 0,
			       "cache line size found by line_find's rule" },
};

/* Address of word @j (in visiting order) of the @i-th page visited. */
static inline char *word_at(const struct line_state *st, size_t i, size_t j, size_t stride_bytes,
			    unsigned bits)
{
	return st->base + st->pages[i] * st->page_bytes + ep_bit_reverse(j, bits) * stride_bytes;
}

/* prepare(): link the chain for this case's stride over the whole buffer. */
EP_UNTIMED static int line_prepare(void *arg)
{
	struct line_case *lc = arg;
	struct line_state *st = lc->st;
	size_t per_page = st->page_bytes / lc->stride_bytes;
	unsigned bits = 0;
	int rc;

	while (((size_t)1 << bits) < per_page)
		bits++;
	for (size_t i = 0; i < st->n_pages; i++) {
		size_t next_page = i + 1 < st->n_pages ? i + 1 : 0;

		for (size_t j = 0; j + 1 < per_page; j++)
			*(char **)word_at(st, i, j, lc->stride_bytes, bits) =
				word_at(st, i, j + 1, lc->stride_bytes, bits);
		*(char **)word_at(st, i, per_page - 1, lc->stride_bytes, bits) =
			word_at(st, next_page, 0, lc->stride_bytes, bits);
		if (i % LINE_CHECK_PAGES == 0 && (rc = ep_run_check(st->run)))
			return rc;
	}
	lc->pos = (void **)word_at(st, 0, 0, lc->stride_bytes, bits);
	return 0;
}

#define LINE_LOAD(p) ((p) = (void **)*(p));
#define LINE_LOAD10(p) \
	LINE_LOAD(p) LINE_LOAD(p) LINE_LOAD(p) LINE_LOAD(p) LINE_LOAD(p) \
	LINE_LOAD(p) LINE_LOAD(p) LINE_LOAD(p) LINE_LOAD(p) LINE_LOAD(p)
#define LINE_LOAD100(p) \
	LINE_LOAD10(p) LINE_LOAD10(p) LINE_LOAD10(p) LINE_LOAD10(p) LINE_LOAD10(p) \
	LINE_LOAD10(p) LINE_LOAD10(p) LINE_LOAD10(p) LINE_LOAD10(p) LINE_LOAD10(p)

/* body: @units dependent loads, a hundred per iteration as line_test. */
static int line_body(void *arg, uint64_t units)
{
	struct line_case *lc = arg;
	void **p = lc->pos;

	for (uint64_t blocks = units / LINE_UNROLL; blocks; blocks--) {
		LINE_LOAD100(p)
	}
	for (uint64_t rest = units % LINE_UNROLL; rest; rest--)
		LINE_LOAD(p)
	lc->pos = p;
	return 0;
}

EP_UNTIMED static void line_teardown(void *state)
{
	struct line_state *st = state;

	if (st->base)
		munmap(st->base, st->map_bytes);
	free(st->pages);
}

/* One case per stride: a pointer's size, doubling up to a sixteenth of a page. */
static int add_cases(struct ep_run *run, struct line_state *st)
{
	for (size_t s = sizeof(void *); s <= st->page_bytes / 16; s *= 2) {
		struct line_case *lc = &st->cases[st->n_cases++];
		struct ep_case c = {
			.metric = METRIC_LATENCY,
			.labels = lc->label,
			.body = line_body,
			.prepare = line_prepare,
			.arg = lc,
		};
		int rc;

		lc->st = st;
		lc->stride_bytes = s;
		snprintf(lc->label, sizeof(lc->label), "stride=%zu", s);
		rc = ep_run_add_case(run, &c);
		if (rc)
			return rc;
	}
	return 0;
}

static int map_buffer(struct ep_run *run, struct line_state *st, uint64_t size_bytes)
{
	int rc = ep_mem_check_fits(run, "size", ep_param_text(run, "size"), size_bytes);
	void *p;

	if (rc)
		return rc;
	st->n_pages = (size_t)((size_bytes + st->page_bytes - 1) / st->page_bytes);
	st->map_bytes = st->n_pages * st->page_bytes;
	/* No huge page advice: the system's policy decides, as for line's malloc(). */
	p = mmap(NULL, st->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return ep_run_fail(run, -ENOMEM, "parameter 'size': mapping '%s' failed: %s",
				   ep_param_text(run, "size"), strerror(errno));
	st->base = p;
	return 0;
}

EP_UNTIMED static int line_setup(struct ep_run *run, void **state)
{
	struct line_state *st = *state;
	int rc;

	st->run = run;
	st->page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	rc = map_buffer(run, st, (uint64_t)ep_param_int(run, "size"));
	if (!rc)
		rc = ep_os_random_order(&st->pages, st->n_pages, LINE_SEED);
	if (!rc)
		rc = add_cases(run, st);
	return rc;
}

/* Median time per load of each stride, from the run's results. */
static int collect_latencies(struct ep_run *run, const struct line_state *st, double *ns)
{
	for (int i = 0; i < st->n_cases; i++) {
		const struct embperf_result *res =
			ep_run_find_result(run, METRIC_LATENCY, st->cases[i].label);

		ns[i] = res ? res->value : NAN;
		if (isnan(ns[i]))
			return -ENODATA;
	}
	return 0;
}

/* finish: apply line_find's rule to the curve; without a size, say so with the curve. */
EP_UNTIMED static int line_finish(struct ep_run *run, void *state)
{
	struct line_state *st = state;
	double ns[LINE_MAX_STRIDES];
	size_t strides[LINE_MAX_STRIDES], line_bytes;
	char curve[LINE_CURVE_TEXT_MAX];

	if (collect_latencies(run, st, ns))
		return 0;
	for (int i = 0; i < st->n_cases; i++)
		strides[i] = st->cases[i].stride_bytes;
	line_bytes = ep_line_find(ns, strides, st->n_cases);
	if (line_bytes)
		return ep_run_add_value(run, METRIC_LINE_SIZE, "", (double)line_bytes);
	ep_line_curve_text(curve, sizeof(curve), ns, strides, st->n_cases);
	ep_run_log(run, EMBPERF_LOG_WARNING,
		   "os.cacheline: cache line size not found here: no jump then plateau in the "
		   "time per load by stride (%s)", curve);
	return 0;
}

const struct ep_kernel ep_kernel_os_cacheline = {
	.name = "os.cacheline",
	.summary = "cache line size from load times at growing strides (lmbench line)",
	EP_PARAMS(line_params),
	EP_METRICS(line_metrics),
	.engine_defaults = line_defaults,
	.setup = line_setup,
	.finish = line_finish,
	.teardown = line_teardown,
	.state_bytes = sizeof(struct line_state),
	.cpu_bound = 1,
};
