// SPDX-License-Identifier: MIT
/*
 * mem_stream.c - mem.stream: sustainable memory bandwidth of the four
 * kernels of STREAM (McCalpin), on arrays of 8-byte reals, or (loops=stream2)
 * of the four of McCalpin's STREAM2 as lmbench's `stream -v 2` runs them.
 *
 *   copy   c = a          2 arrays of 8 bytes per element counted
 *   scale  b = q * c      2
 *   add    c = a + b      3
 *   triad  a = b + q * c  3
 *   fill   a = 0          1  (STREAM2)
 *   daxpy  a = a + q * b  3  (STREAM2)
 *   sum    s = s + a      1  (STREAM2: a serial sum, each thread its own)
 *
 * Bytes are counted as STREAM counts them: every array read and every array
 * written, 8 bytes per element each. A team of threads (the caller and
 * threads - 1 workers) splits the arrays as OpenMP's static schedule does;
 * each thread first-touches the part it works on. The values are checked
 * after the run as STREAM does.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/ctx.h"
#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/core/buffer.h"
#include "lib/mem/pool.h"
#include "lib/mem/stream.h"

#define STREAM_SCALAR 3.0
#define STREAM_ARRAYS 3
#define STREAM_DEFAULT_ELEMENTS 10000000 /* STREAM 5.10's default, when no cache size is known */
#define STREAM_CACHE_FACTOR 4            /* STREAM's rule: each array >= 4 x the cache */
#define STREAM_MAX_ELEMENTS ((int64_t)1 << 37) /* 1T bytes per array; checked against memory */
#define STREAM_MAX_THREADS 1024
#define STREAM_LABEL_MAX 80

enum stream_kernel { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_FILL, K_DAXPY, K_SUM, K_COUNT };

/* The kernels each 'loops' value runs, in the order they run. */
#define STREAM_LOOPS_PER_SET 4
static const enum stream_kernel stream1_kernels[STREAM_LOOPS_PER_SET] = { K_COPY, K_SCALE, K_ADD,
									   K_TRIAD };
/* lmbench's stream -v 2 order: fill, copy, daxpy, sum. */
static const enum stream_kernel stream2_kernels[STREAM_LOOPS_PER_SET] = { K_FILL, K_COPY, K_DAXPY,
									   K_SUM };

struct stream_state;

/* One thread's share of one pass; returns the sum of a over the share for
 * sum, 0 for the others. */
typedef double (*stream_pass_fn)(double *restrict, double *restrict, double *restrict, size_t,
				 size_t);

/**
 * struct stream_case - one kernel's case.
 * @st:     the run's state.
 * @kernel: which kernel.
 * @before: the kernel whose pass runs, untimed, before each timed pass
 *          (order=stream: the one STREAM's loop runs just before it).
 */
struct stream_case {
	struct stream_state *st;
	enum stream_kernel kernel;
	enum stream_kernel before;
};

/**
 * struct stream_state - the run's state.
 * @buf:      one mapping for the three arrays.
 * @a, @b, @c: the arrays, @n elements each, each starting on a page.
 * @n:        elements per array.
 * @pool:     the thread team.
 * @expect:   value every element should hold, updated with each pass.
 * @passes:   the kernels' passes (copy as the 'copy' parameter picks).
 * @cases:    one case per kernel (only those of the 'loops' set are added).
 * @sums:     each thread's sum of its share of a in its last sum pass.
 * @sum_want: what the sums should add up to after the last sum pass.
 * @summed:   1 once a sum pass ran.
 * @label:    "size=N threads=T", shared by the four results.
 */
struct stream_state {
	struct ep_mem_buf buf;
	double *a, *b, *c;
	size_t n;
	struct ep_mem_pool *pool;
	struct ep_stream_expect expect;
	stream_pass_fn passes[K_COUNT];
	struct stream_case cases[K_COUNT];
	double *sums;
	double sum_want;
	int summed;
	char label[STREAM_LABEL_MAX];
};

static const struct ep_param_desc stream_params[] = {
	{ "size", EP_PT_INT, "0", { { 0, STREAM_MAX_ELEMENTS } }, NULL, "elements",
	  "elements (8-byte reals) per array, as STREAM_ARRAY_SIZE; 0: 4 x the last-level cache" },
	{ "threads", EP_PT_INT, "1", { { 1, STREAM_MAX_THREADS } }, NULL, "",
	  "threads sharing each pass (the OpenMP threads of STREAM)" },
	{ "copy", EP_PT_ENUM, "memcpy", { { 0, 0 } }, "loop|memcpy", "",
	  "how copy moves the data: memcpy() as gcc -O2 compiles stream.c's copy, or a loop of loads and stores" },
	{ "loops", EP_PT_ENUM, "stream", { { 0, 0 } }, "stream|stream2", "",
	  "which kernels: STREAM's copy, scale, add, triad; or STREAM2's fill, copy, daxpy, sum (lmbench stream -v 2)" },
	{ "order", EP_PT_ENUM, "stream", { { 0, 0 } }, "stream|kernel", "",
	  "what runs before each timed pass: stream, the pass STREAM's loop runs before it (untimed; copy after triad), so the caches hold what they hold in STREAM; kernel, the same kernel's previous pass" },
};

static const struct ep_metric_desc stream_metrics[] = {
	[K_COPY] = { "copy", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MAX, 1,
		     "c = a; 16 bytes per element, best rate as STREAM" },
	[K_SCALE] = { "scale", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MAX, 1,
		      "b = q * c; 16 bytes per element, best rate as STREAM" },
	[K_ADD] = { "add", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MAX, 1,
		    "c = a + b; 24 bytes per element, best rate as STREAM" },
	[K_TRIAD] = { "triad", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MAX, 1,
		      "a = b + q * c; 24 bytes per element, best rate as STREAM" },
	[K_FILL] = { "fill", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MAX, 1,
		     "a = 0 (loops=stream2); 8 bytes per element, best rate" },
	[K_DAXPY] = { "daxpy", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MAX, 1,
		      "a = a + q * b (loops=stream2); 24 bytes per element, best rate" },
	[K_SUM] = { "sum", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MAX, 1,
		    "s = s + a (loops=stream2); 8 bytes per element, best rate" },
};

/* STREAM: NTIMES = 10 runs, the first excluded, best of the other nine. */
static const struct ep_default stream_defaults[] = {
	{ "repetitions", "9" },
	{ "warmup", "1" },
	{ "spread", "0" },
	{ NULL, NULL },
};

static const int stream_arrays_touched[K_COUNT] = {
	[K_COPY] = 2, [K_SCALE] = 2, [K_ADD] = 3, [K_TRIAD] = 3,
	[K_FILL] = 1, [K_DAXPY] = 3, [K_SUM] = 1,
};

EP_UNTIMED void ep_stream_expect_init(struct ep_stream_expect *e)
{
	e->a = 1.0;
	e->b = 2.0;
	e->c = 0.0;
	e->a = 2.0 * e->a;
}

/* Scalar shadow of one pass of @k. */
static void expect_pass(struct ep_stream_expect *e, enum stream_kernel k)
{
	switch (k) {
	case K_COPY:
		e->c = e->a;
		break;
	case K_SCALE:
		e->b = STREAM_SCALAR * e->c;
		break;
	case K_ADD:
		e->c = e->a + e->b;
		break;
	case K_TRIAD:
		e->a = e->b + STREAM_SCALAR * e->c;
		break;
	case K_FILL:
		e->a = 0.0;
		break;
	case K_DAXPY:
		e->a = e->a + STREAM_SCALAR * e->b;
		break;
	default: /* K_SUM changes no array */
		break;
	}
}

/* Average relative error of @x against @want; 0 when the array is right. */
static double avg_rel_error(const double *x, size_t n, double want, size_t *n_wrong)
{
	double sum = 0.0;

	*n_wrong = 0;
	for (size_t j = 0; j < n; j++) {
		double d = fabs(x[j] - want);

		sum += d;
		*n_wrong += d != 0.0;
	}
	sum /= (double)n;
	return want != 0.0 ? sum / fabs(want) : sum;
}

EP_UNTIMED int ep_stream_validate(const double *a, const double *b, const double *c, size_t n,
		       const struct ep_stream_expect *expect, char *msg, size_t msg_size)
{
	const double *arrays[STREAM_ARRAYS] = { a, b, c };
	const double wants[STREAM_ARRAYS] = { expect->a, expect->b, expect->c };
	static const char names[STREAM_ARRAYS] = { 'a', 'b', 'c' };

	for (int i = 0; i < STREAM_ARRAYS; i++) {
		size_t n_wrong;
		double err = avg_rel_error(arrays[i], n, wants[i], &n_wrong);

		if (!(err <= EP_STREAM_EPSILON)) {
			if (msg_size)
				snprintf(msg, msg_size,
					 "mem.stream: validation failed on array %c: average relative "
					 "error %.3g exceeds %.0e (expected %.17g; %zu of %zu elements "
					 "differ)",
					 names[i], err, EP_STREAM_EPSILON, wants[i], n_wrong, n);
			return -EIO;
		}
	}
	return 0;
}

/*
 * The four kernels, over one thread's share. The arrays are restrict
 * parameters, which lets the compiler treat them as STREAM's distinct static
 * arrays. Copy comes in two forms, as the 'copy' parameter picks: a loop of
 * loads and stores (kept a loop: gcc -O2 would make it a memcpy() call), or
 * memcpy(), which is what gcc 12 -O2 makes of stream.c's copy loop with and
 * without -fopenmp (objdump: a call to memcpy in main, or in the outlined
 * parallel region). glibc's memcpy() uses non-temporal stores at STREAM's
 * sizes and so skips the read-for-ownership of c; see
 * doc/methodology-memory.md for the figures of both on AMD and Intel.
 */
#if defined(__clang__)
__attribute__((no_builtin("memcpy")))
#elif defined(__GNUC__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
static double pass_copy(double *restrict a, double *restrict b, double *restrict c, size_t lo,
		      size_t hi)
{
	(void)b;
	for (size_t j = lo; j < hi; j++)
		c[j] = a[j];
	return 0.0;
}

static double pass_copy_memcpy(double *restrict a, double *restrict b, double *restrict c,
			     size_t lo, size_t hi)
{
	(void)b;
	if (hi > lo)
		memcpy(c + lo, a + lo, (hi - lo) * sizeof(*c));
	return 0.0;
}

static double pass_scale(double *restrict a, double *restrict b, double *restrict c, size_t lo,
		       size_t hi)
{
	(void)a;
	for (size_t j = lo; j < hi; j++)
		b[j] = STREAM_SCALAR * c[j];
	return 0.0;
}

static double pass_add(double *restrict a, double *restrict b, double *restrict c, size_t lo,
		     size_t hi)
{
	for (size_t j = lo; j < hi; j++)
		c[j] = a[j] + b[j];
	return 0.0;
}

static double pass_triad(double *restrict a, double *restrict b, double *restrict c, size_t lo,
		       size_t hi)
{
	for (size_t j = lo; j < hi; j++)
		a[j] = b[j] + STREAM_SCALAR * c[j];
	return 0.0;
}

/*
 * STREAM2's kernels. fill is kept a loop of stores, as copy's loop form
 * (gcc -O2 would make it a memset() call): lmbench's stream, built with -O,
 * runs it as a loop (objdump of its fill: one movq $0 per element).
 */
#if defined(__clang__)
__attribute__((no_builtin("memset")))
#elif defined(__GNUC__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
static double pass_fill(double *restrict a, double *restrict b, double *restrict c, size_t lo,
			size_t hi)
{
	(void)b;
	(void)c;
	for (size_t j = lo; j < hi; j++)
		a[j] = 0.0;
	return 0.0;
}

static double pass_daxpy(double *restrict a, double *restrict b, double *restrict c, size_t lo,
			 size_t hi)
{
	(void)c;
	for (size_t j = lo; j < hi; j++)
		a[j] = a[j] + STREAM_SCALAR * b[j];
	return 0.0;
}

/* A serial sum, one add waiting for the one before, as STREAM2's and
 * lmbench's sum: floating-point adds are not reassociated without
 * -ffast-math, so the loop's speed is bound by the add's latency. */
static double pass_sum(double *restrict a, double *restrict b, double *restrict c, size_t lo,
		       size_t hi)
{
	double s = 0.0;

	(void)b;
	(void)c;
	for (size_t j = lo; j < hi; j++)
		s += a[j];
	return s;
}

static const stream_pass_fn stream_passes[K_COUNT] = {
	[K_COPY] = pass_copy, [K_SCALE] = pass_scale, [K_ADD] = pass_add,
	[K_TRIAD] = pass_triad, [K_FILL] = pass_fill, [K_DAXPY] = pass_daxpy,
	[K_SUM] = pass_sum,
};

/* One thread's share of one pass of the case given as @arg. */
static void thread_pass(void *arg, int thread, int n_threads)
{
	struct stream_case *sc = arg;
	size_t lo, hi;

	ep_mem_pool_share(sc->st->n, thread, n_threads, &lo, &hi);
	sc->st->sums[thread] = sc->st->passes[sc->kernel](sc->st->a, sc->st->b, sc->st->c, lo, hi);
}

/*
 * body(): @units passes of one kernel over the whole arrays, the team
 * meeting at a barrier after each. The stores to the arrays, which finish()
 * reads back, keep the passes from being optimised away.
 */
static int stream_body(void *arg, uint64_t units)
{
	struct stream_case *sc = arg;

	ep_mem_pool_run(sc->st->pool, thread_pass, sc, units);
	for (uint64_t i = 0; i < units; i++)
		expect_pass(&sc->st->expect, sc->kernel);
	if (sc->kernel == K_SUM && units) {
		sc->st->sum_want = sc->st->expect.a * (double)sc->st->n;
		sc->st->summed = 1;
	}
	return 0;
}

/*
 * before(): the pass STREAM's loop runs just before this kernel's, untimed:
 * the lines it leaves in the caches, dirty or clean, are what the timed pass
 * meets in STREAM (gcc's copy is memcpy()'s non-temporal stores, the other
 * loops write through the caches). Timed back to back instead, copy read
 * 1.07 to 1.37 times STREAM's rate in one process on Zen 5
 * (doc/methodology-memory.md, "STREAM's order").
 */
static int stream_before(void *arg, uint64_t units)
{
	struct stream_case *sc = arg;

	(void)units; /* one pass: the state a single pass of STREAM meets */
	return stream_body(&sc->st->cases[sc->before], 1);
}

/* STREAM's initialisation, each thread on its share: a = 1, b = 2, c = 0. */
EP_UNTIMED static void thread_init(void *arg, int thread, int n_threads)
{
	struct stream_state *st = arg;
	size_t lo, hi;

	ep_mem_pool_share(st->n, thread, n_threads, &lo, &hi);
	for (size_t j = lo; j < hi; j++) {
		st->a[j] = 1.0;
		st->b[j] = 2.0;
		st->c[j] = 0.0;
	}
}

/* STREAM's timer check loop, kept for the same starting values: a = 2 * a. */
EP_UNTIMED static void thread_double_a(void *arg, int thread, int n_threads)
{
	struct stream_state *st = arg;
	size_t lo, hi;

	ep_mem_pool_share(st->n, thread, n_threads, &lo, &hi);
	for (size_t j = lo; j < hi; j++)
		st->a[j] = 2.0 * st->a[j];
}

/* Elements per array when size=0: 4 x the last-level cache, or STREAM's default. */
static size_t default_elements(embperf_ctx *ctx)
{
	uint64_t llc = ep_sysinfo_u64(ctx, "cache_l3_bytes");

	if (!llc)
		llc = ep_sysinfo_u64(ctx, "cache_l2_bytes");
	if (!llc)
		return STREAM_DEFAULT_ELEMENTS;
	return (size_t)(STREAM_CACHE_FACTOR * llc / sizeof(double));
}

EP_UNTIMED static void stream_teardown(void *state)
{
	struct stream_state *st = state;

	ep_mem_pool_free(st->pool);
	ep_mem_buf_free(&st->buf);
	free(st->sums);
}

/* Map the three arrays, each on its own pages, and start the team. */
static int alloc_arrays(struct ep_run *run, struct stream_state *st, int threads)
{
	size_t page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	size_t array_bytes = (st->n * sizeof(double) + page_bytes - 1) / page_bytes * page_bytes;
	int rc;

	rc = ep_mem_buf_alloc(run, &st->buf, STREAM_ARRAYS * array_bytes, EP_MEM_HUGE_SYSTEM);
	if (rc)
		return rc;
	st->a = st->buf.addr;
	st->b = (double *)((char *)st->buf.addr + array_bytes);
	st->c = (double *)((char *)st->buf.addr + 2 * array_bytes);
	st->sums = calloc((size_t)threads, sizeof(*st->sums));
	if (!st->sums)
		return -ENOMEM;
	rc = ep_mem_pool_new(threads, ep_run_cpu(run), &st->pool);
	if (rc)
		return ep_run_fail(run, rc, "parameter 'threads': value '%d': cannot start the "
				   "threads (%s)", threads, strerror(-rc));
	return 0;
}

static int add_cases(struct ep_run *run, struct stream_state *st)
{
	const enum stream_kernel *set =
		strcmp(ep_param_text(run, "loops"), "stream2") ? stream1_kernels : stream2_kernels;
	int in_order = !strcmp(ep_param_text(run, "order"), "stream");

	for (int i = 0; i < STREAM_LOOPS_PER_SET; i++) {
		enum stream_kernel k = set[i];
		struct ep_case c = {
			.metric = k,
			.labels = st->label,
			.body = stream_body,
			.before = in_order ? stream_before : NULL,
			.arg = &st->cases[k],
			.bytes_per_unit = (double)stream_arrays_touched[k] * sizeof(double) *
					  (double)st->n,
			/* STREAM times one pass; a second in the same sample would follow
			 * its own kernel, not the one STREAM runs before it */
			.max_units = in_order ? 1 : 0,
		};
		int rc;

		st->cases[k].st = st;
		st->cases[k].kernel = k;
		st->cases[k].before = set[(i + STREAM_LOOPS_PER_SET - 1) % STREAM_LOOPS_PER_SET];
		rc = ep_run_add_case(run, &c);
		if (rc)
			return rc;
	}
	return 0;
}

EP_UNTIMED static int stream_setup(struct ep_run *run, void **state)
{
	/* judged as 64 bits: a size_t would wrap large counts on a 32-bit board */
	uint64_t n_elements = (uint64_t)ep_param_int(run, "size");
	size_t n;
	int threads = (int)ep_param_int(run, "threads");
	struct stream_state *st = *state;
	char value[64];
	int rc;

	if (!n_elements)
		n_elements = default_elements(ep_run_ctx(run));
	snprintf(value, sizeof(value), "%s (%" PRIu64 " elements)", ep_param_text(run, "size"),
		 n_elements);
	rc = ep_mem_check_fits(run, "size", value,
			       (uint64_t)STREAM_ARRAYS * sizeof(double) * n_elements);
	if (rc)
		return rc;
	n = (size_t)n_elements;
	st->n = n;
	memcpy(st->passes, stream_passes, sizeof(st->passes));
	if (!strcmp(ep_param_text(run, "copy"), "memcpy"))
		st->passes[K_COPY] = pass_copy_memcpy;
	snprintf(st->label, sizeof(st->label), "size=%zu threads=%d%s", n, threads,
		 strcmp(ep_param_text(run, "order"), "stream") ? " order=kernel" : "");
	rc = alloc_arrays(run, st, threads);
	if (!rc) {
		ep_mem_pool_run(st->pool, thread_init, st, 1);
		ep_mem_pool_run(st->pool, thread_double_a, st, 1);
		ep_stream_expect_init(&st->expect);
		rc = add_cases(run, st);
	}
	return rc;
}

/*
 * The threads' sums of the last sum pass against n times the value of a.
 * A serial sum of n equal values rounds by at most (n - 1) units in the
 * last place of the total.
 */
static int check_sum(struct ep_run *run, const struct stream_state *st, int threads)
{
	double got = 0.0, tolerance = (double)st->n * DBL_EPSILON * fabs(st->sum_want);

	for (int t = 0; t < threads; t++)
		got += st->sums[t];
	if (fabs(got - st->sum_want) <= tolerance)
		return 0;
	return ep_run_fail(run, -EIO,
			   "mem.stream: validation failed on sum: %.17g where a's %zu elements "
			   "add up to %.17g", got, st->n, st->sum_want);
}

/* finish(): STREAM's check of the results; a wrong value fails the run. */
EP_UNTIMED static int stream_finish(struct ep_run *run, void *state)
{
	struct stream_state *st = state;
	char msg[EP_ERRMSG_MAX];
	int rc = ep_stream_validate(st->a, st->b, st->c, st->n, &st->expect, msg, sizeof(msg));

	if (rc)
		return ep_run_fail(run, rc, "%s", msg);
	return st->summed ? check_sum(run, st, (int)ep_param_int(run, "threads")) : 0;
}

const struct ep_kernel ep_kernel_mem_stream = {
	.name = "mem.stream",
	.summary = "sustainable memory bandwidth: STREAM's copy, scale, add and triad (or "
		   "STREAM2's fill, copy, daxpy, sum), optionally multithreaded",
	EP_PARAMS(stream_params),
	EP_METRICS(stream_metrics),
	.engine_defaults = stream_defaults,
	.setup = stream_setup,
	.finish = stream_finish,
	.teardown = stream_teardown,
	.state_bytes = sizeof(struct stream_state),
	.cpu_bound = 1,
};
