// SPDX-License-Identifier: MIT
/*
 * mem_par.c - mem.par: memory-level parallelism, the number of independent
 * loads the memory system overlaps, by the method of lmbench's par_mem
 * (Staelin & McVoy, lib_mem.c).
 *
 * A buffer holds one long cycle of pointers. The cycle visits the buffer's
 * 'line'-sized slots page by page (pages in a random order, slots of a page
 * in bit-reversed order, which no stride prefetcher follows) and makes one
 * lap per pointer-sized word of a slot, using the next word on each lap, so
 * that every byte of the buffer is in play. Width w starts w chases at
 * evenly spaced points of the cycle; they never meet. One unit advances
 * every chase by one load, so it costs about one load latency whatever w
 * is, as long as the memory system keeps w misses in flight.
 *
 * A size below a page (par_mem -L with 16 lines under a page: its first
 * sizes) is one page's first slots, the largest power of two of them the
 * size holds, in the same bit-reversed order; par_mem's chain for such a
 * size also takes 16 lines of one page.
 *
 * For each size the parallelism is the best w * t(1) / t(w) over the widths,
 * with par_mem's stopping rule (it gives up once four times the best so far
 * is below w - 1).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/result.h"
#include "lib/core/util.h"
#include "lib/core/buffer.h"

#define PAR_MAX_WIDTH 16                     /* par_mem's MAX_MEM_PARALLELISM */
#define PAR_MAX_SIZE ((int64_t)1 << 40)      /* checked against memory in setup */
#define PAR_MIN_LINE ((int64_t)sizeof(void *))
#define PAR_UNROLL 10                        /* steps per loop iteration */
#define PAR_STOP_FACTOR 4.0                  /* par_mem: stop once 4 * best < w - 1 */
#define PAR_CHECK_ELEMENTS ((size_t)1 << 18) /* elements linked between cancel checks */
#define PAR_LABEL_MAX 48
#define PAR_SEED 0x9a43e3ULL

enum { METRIC_LATENCY, METRIC_PARALLELISM };

struct par_state;

/**
 * struct par_case - one size at one width.
 * @st:         the run's state.
 * @size_bytes: bytes covered by the cycle.
 * @width:      number of chases.
 * @pos:        where each chase stands; kept between body calls.
 * @label:      "size=64M width=4".
 */
struct par_case {
	struct par_state *st;
	uint64_t size_bytes;
	int width;
	void *pos[PAR_MAX_WIDTH];
	char label[PAR_LABEL_MAX];
};

/**
 * struct par_state - the run's state.
 * @run:         the run (cancel checks while linking).
 * @buf:         one buffer, as large as the largest size.
 * @line_bytes:  slot size.
 * @page_bytes:  page size.
 * @linked_size: size the cycle in @buf is laid out for (0: none yet).
 * @pages:       page indices in visiting order, for the largest size.
 * @cases:       PAR_MAX_WIDTH per size, smallest size first.
 * @n_cases:     number of @cases.
 */
struct par_state {
	struct ep_run *run;
	struct ep_mem_buf buf;
	size_t line_bytes;
	size_t page_bytes;
	uint64_t linked_size;
	size_t *pages;
	struct par_case *cases;
	int n_cases;
};

static const struct ep_param_desc par_params[] = {
	{ "size", EP_PT_SIZE_RANGE, "4k..64M", { { PAR_MAX_WIDTH * PAR_MIN_LINE, PAR_MAX_SIZE } },
	  NULL, "bytes",
	  "buffer size, or MIN..MAX for sizes doubling from MIN as par_mem (-M); each at least "
	  "16 lines" },
	{ "line", EP_PT_SIZE, "0", { { 0, (int64_t)1 << 16 } }, NULL, "bytes",
	  "slot size, a power of two (par_mem -L); 0: a sixteenth of the page size, as par_mem" },
};

static const struct ep_metric_desc par_metrics[] = {
	[METRIC_LATENCY] = { "latency", "ns", EP_METRIC_TIME, 1.0, EP_PRIMARY_MEDIAN, 0,
			     "time for every one of 'width' chases to take one load, median" },
	[METRIC_PARALLELISM] = { "parallelism", "x", EP_METRIC_VALUE, 1.0, EP_PRIMARY_MEDIAN, 1,
				 "loads overlapped: best width x t(1) / t(width), as par_mem" },
};

static unsigned log2_of(size_t n)
{
	unsigned bits = 0;

	while (((size_t)1 << bits) < n)
		bits++;
	return bits;
}

/**
 * struct par_layout - positions of the cycle for one size.
 * @n_pages:       pages covered.
 * @lines_per_page: slots per page.
 * @n_lines:       slots in all.
 * @n_words:       words per slot: laps of the cycle.
 * @line_bits:     bits of a slot index within a page.
 * @word_bits:     bits of a word index.
 */
struct par_layout {
	size_t n_pages;
	size_t lines_per_page;
	size_t n_lines;
	size_t n_words;
	unsigned line_bits;
	unsigned word_bits;
};

static void layout_of(const struct par_state *st, uint64_t size_bytes, struct par_layout *l)
{
	size_t page_lines = st->page_bytes / st->line_bytes;

	if (size_bytes < st->page_bytes) {
		/* One page's first slots, a power of two of them (bit reversal
		 * permutes only such a count): at least 16 (checked in setup). */
		size_t lines = (size_t)(size_bytes / st->line_bytes);

		l->lines_per_page = (size_t)1 << (log2_of(lines + 1) - 1);
		l->n_pages = 1;
	} else {
		/* Whole pages; a partial last page is left out. */
		l->lines_per_page = page_lines;
		l->n_pages = (size_t)(size_bytes / st->page_bytes);
	}
	l->n_lines = l->n_pages * l->lines_per_page;
	l->n_words = st->line_bytes / sizeof(void *);
	l->line_bits = log2_of(l->lines_per_page);
	l->word_bits = log2_of(l->n_words);
}

/*
 * Address of element @e of the cycle: lap e / n_lines uses the word of that
 * index (bit-reversed), and e % n_lines is the slot, counted page by page.
 */
static inline char *element(const struct par_state *st, const struct par_layout *l, size_t e)
{
	size_t lap = e / l->n_lines, slot = e % l->n_lines;
	size_t page = st->pages[slot / l->lines_per_page];
	size_t line = ep_bit_reverse(slot % l->lines_per_page, l->line_bits);
	size_t word = ep_bit_reverse(lap, l->word_bits);

	return (char *)st->buf.addr + page * st->page_bytes + line * st->line_bytes +
	       word * sizeof(void *);
}

/* Lay the cycle for @size_bytes over its number of pages, taken from the
 * shuffle of the largest size's pages (so spread over the whole buffer). */
static int link_cycle(struct par_state *st, uint64_t size_bytes)
{
	struct par_layout l;
	size_t n, e;
	int rc;

	layout_of(st, size_bytes, &l);
	n = l.n_lines * l.n_words;
	for (e = 0; e + 1 < n; e++) {
		*(char **)element(st, &l, e) = element(st, &l, e + 1);
		if (e % PAR_CHECK_ELEMENTS == 0 && (rc = ep_run_check(st->run)))
			return rc;
	}
	*(char **)element(st, &l, e) = element(st, &l, 0);
	st->linked_size = size_bytes;
	return 0;
}

/* prepare(): the cycle of this size, and the width's starting points. */
EP_UNTIMED static int par_prepare(void *arg)
{
	struct par_case *pc = arg;
	struct par_state *st = pc->st;
	struct par_layout l;
	int rc;

	if (st->linked_size != pc->size_bytes && (rc = link_cycle(st, pc->size_bytes)))
		return rc;
	layout_of(st, pc->size_bytes, &l);
	/* As par_mem: chase j starts j/width of the way through the slots, on word j/width. */
	for (int j = 0; j < pc->width; j++) {
		size_t slot = (size_t)j * (l.n_lines / (size_t)pc->width);
		size_t lap = (size_t)j * l.n_words / (size_t)pc->width;

		pc->pos[j] = element(st, &l, lap * l.n_lines + slot);
	}
	return 0;
}

/* The bodies: one per width, the chases in registers as par_mem's. */
#define PAR_DECL(k) void **p##k = pc->pos[k];
#define PAR_STEP(k) p##k = (void **)*p##k;
#define PAR_SAVE(k) pc->pos[k] = p##k;
#define PAR_R1(m) m(0)
#define PAR_R2(m) PAR_R1(m) m(1)
#define PAR_R3(m) PAR_R2(m) m(2)
#define PAR_R4(m) PAR_R3(m) m(3)
#define PAR_R5(m) PAR_R4(m) m(4)
#define PAR_R6(m) PAR_R5(m) m(5)
#define PAR_R7(m) PAR_R6(m) m(6)
#define PAR_R8(m) PAR_R7(m) m(7)
#define PAR_R9(m) PAR_R8(m) m(8)
#define PAR_R10(m) PAR_R9(m) m(9)
#define PAR_R11(m) PAR_R10(m) m(10)
#define PAR_R12(m) PAR_R11(m) m(11)
#define PAR_R13(m) PAR_R12(m) m(12)
#define PAR_R14(m) PAR_R13(m) m(13)
#define PAR_R15(m) PAR_R14(m) m(14)
#define PAR_R16(m) PAR_R15(m) m(15)
#define PAR_TIMES10(x) x x x x x x x x x x

#define PAR_BODY(w)                                                     \
	static int par_body_##w(void *arg, uint64_t units)              \
	{                                                               \
		struct par_case *pc = arg;                              \
		PAR_R##w(PAR_DECL)                                      \
		for (uint64_t b = units / PAR_UNROLL; b; b--) {         \
			PAR_TIMES10(PAR_R##w(PAR_STEP))                 \
		}                                                       \
		for (uint64_t r = units % PAR_UNROLL; r; r--) {         \
			PAR_R##w(PAR_STEP)                              \
		}                                                       \
		PAR_R##w(PAR_SAVE)                                      \
		return 0;                                               \
	}

PAR_BODY(1)
PAR_BODY(2)
PAR_BODY(3)
PAR_BODY(4)
PAR_BODY(5)
PAR_BODY(6)
PAR_BODY(7)
PAR_BODY(8)
PAR_BODY(9)
PAR_BODY(10)
PAR_BODY(11)
PAR_BODY(12)
PAR_BODY(13)
PAR_BODY(14)
PAR_BODY(15)
PAR_BODY(16)

static const ep_body_fn par_bodies[PAR_MAX_WIDTH] = {
	par_body_1,  par_body_2,  par_body_3,  par_body_4,  par_body_5,  par_body_6,
	par_body_7,  par_body_8,  par_body_9,  par_body_10, par_body_11, par_body_12,
	par_body_13, par_body_14, par_body_15, par_body_16,
};

/* Sizes of the run: lo, doubling while <= hi, as par_mem's loop. */
static int count_sizes(uint64_t lo, uint64_t hi)
{
	int n = 0;

	for (uint64_t s = lo; s <= hi && s; s *= 2)
		n++;
	return n;
}

static int add_cases(struct ep_run *run, struct par_state *st, uint64_t lo, uint64_t hi)
{
	int n_sizes = count_sizes(lo, hi), i = 0;
	uint64_t s = lo;

	st->cases = calloc((size_t)n_sizes * PAR_MAX_WIDTH, sizeof(*st->cases));
	if (!st->cases)
		return -ENOMEM;
	for (int k = 0; k < n_sizes; k++, s *= 2) {
		char text[32];

		ep_format_size((int64_t)s, text, sizeof(text));
		for (int w = 1; w <= PAR_MAX_WIDTH; w++) {
			struct par_case *pc = &st->cases[i++];
			struct ep_case c = {
				.metric = METRIC_LATENCY,
				.labels = pc->label,
				.body = par_bodies[w - 1],
				.prepare = par_prepare,
				.arg = pc,
			};
			int rc;

			pc->st = st;
			pc->size_bytes = s;
			pc->width = w;
			snprintf(pc->label, sizeof(pc->label), "size=%s width=%d", text, w);
			rc = ep_run_add_case(run, &c);
			if (rc)
				return rc;
			st->n_cases = i;
		}
	}
	return 0;
}

static int check_params(struct ep_run *run, struct par_state *st, uint64_t lo)
{
	size_t line = st->line_bytes;

	if (line < (size_t)PAR_MIN_LINE || (line & (line - 1)) || line > st->page_bytes)
		return ep_run_refuse(run, -EINVAL, "line", " is not a power of two from %zu to "
				     "the page size (%zu); accepted: such a size, or 0 for %zu",
				     sizeof(void *), st->page_bytes, st->page_bytes / 16);
	/* 16 lines at least: one for each chase of the widest width. */
	if (lo < (uint64_t)PAR_MAX_WIDTH * line)
		return ep_run_refuse(run, -ERANGE, "size", " starts below %d lines of %zu bytes; "
				     "accepted: sizes of at least %zu bytes", PAR_MAX_WIDTH, line,
				     (size_t)PAR_MAX_WIDTH * line);
	return 0;
}

/* Page indices in a random order, for the largest size. */
static int make_page_order(struct par_state *st, uint64_t hi)
{
	size_t n = (size_t)((hi + st->page_bytes - 1) / st->page_bytes);
	uint64_t rng = PAR_SEED;

	st->pages = malloc(n * sizeof(*st->pages));
	if (!st->pages)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		st->pages[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(ep_mem_splitmix64(&rng) % (i + 1));
		size_t t = st->pages[i];

		st->pages[i] = st->pages[j];
		st->pages[j] = t;
	}
	return 0;
}

EP_UNTIMED static void par_teardown(void *state)
{
	struct par_state *st = state;

	ep_mem_buf_free(&st->buf);
	free(st->pages);
	free(st->cases);
}

EP_UNTIMED static int par_setup(struct ep_run *run, void **state)
{
	struct par_state *st = *state;
	int64_t lo, hi;
	int rc;

	st->run = run;
	st->page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	st->line_bytes = (size_t)ep_param_int(run, "line");
	if (!st->line_bytes)
		st->line_bytes = st->page_bytes / 16;
	ep_param_range(run, "size", &lo, &hi);
	rc = check_params(run, st, (uint64_t)lo);
	if (!rc)
		rc = ep_mem_check_fits(run, "size", ep_param_text(run, "size"), (uint64_t)hi);
	/* Base pages, as par_mem's malloc() of a buffer this size mostly gets. */
	if (!rc)
		rc = ep_mem_buf_alloc(run, &st->buf, (size_t)hi, EP_MEM_HUGE_SYSTEM);
	if (!rc)
		rc = make_page_order(st, (uint64_t)hi);
	if (!rc)
		rc = add_cases(run, st, (uint64_t)lo, (uint64_t)hi);
	return rc;
}

/* Primary value of the latency result with @label, or NaN. */
static double value_of(const struct ep_run *run, const char *label)
{
	const struct embperf_result *r = ep_run_find_result(run, METRIC_LATENCY, label);

	return r ? r->value : NAN;
}

/* Parallelism of the widths of one size, with par_mem's stopping rule. */
static double parallelism_of(const struct ep_run *run, const struct par_case *widths)
{
	double t1 = value_of(run, widths[0].label), best = 1.0;

	if (!(t1 > 0.0))
		return NAN;
	for (int w = 2; w <= PAR_MAX_WIDTH; w++) {
		double tw = value_of(run, widths[w - 1].label);

		if (!(tw > 0.0))
			break;
		if (w * t1 / tw > best)
			best = w * t1 / tw;
		if (PAR_STOP_FACTOR * best < w - 1)
			break;
	}
	return best;
}

/* finish: the parallelism of each size. */
EP_UNTIMED static int par_finish(struct ep_run *run, void *state)
{
	struct par_state *st = state;

	for (int i = 0; i < st->n_cases; i += PAR_MAX_WIDTH) {
		double par = parallelism_of(run, &st->cases[i]);
		char label[PAR_LABEL_MAX];
		int rc;

		if (isnan(par))
			continue;
		snprintf(label, sizeof(label), "%.*s", (int)strcspn(st->cases[i].label, " "),
			 st->cases[i].label);
		rc = ep_run_add_value(run, METRIC_PARALLELISM, label, par);
		if (rc)
			return rc;
	}
	return 0;
}

const struct ep_kernel ep_kernel_mem_par = {
	.name = "mem.par",
	.summary = "memory-level parallelism: independent loads overlapped, per buffer size "
		   "(lmbench par_mem)",
	EP_PARAMS(par_params),
	EP_METRICS(par_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = par_setup,
	.finish = par_finish,
	.teardown = par_teardown,
	.state_bytes = sizeof(struct par_state),
	.cpu_bound = 1,
};
