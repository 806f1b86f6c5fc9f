// SPDX-License-Identifier: MIT
/*
 * test_mem_bw.c - mem.bw through the public API: every operation gives a
 * bandwidth between zero and a physical bound, the byte count of a copy is
 * bw_mem's (the size once, about half of what STREAM's copy counts), and
 * bad parameters fail with messages that name them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emulated.h"
#include "proc_state.h"
#include "lib/core/sysinfo.h"
#include "embperf.h"
#include "lib/core/clock.h"
#include "lib/core/buffer.h"

/* No memory system of the next years moves a terabyte per second per core. */
#define BW_PHYSICAL_BOUND_MBS 1e6

static embperf_ctx *ctx;
static embperf_bench *b;

static void setup(void)
{
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	b = embperf_bench_new(ctx, "mem.bw");
	cr_assert(b, "mem.bw missing: %s", embperf_ctx_errmsg(ctx));
	cr_assert_eq(embperf_bench_set(b, "repetitions", "3"), 0);
	cr_assert_eq(embperf_bench_set(b, "sample_time", "1ms"), 0);
}

static void teardown(void)
{
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

TestSuite(mem_bw, .init = setup, .fini = teardown);

static double run_bw(embperf_bench *bench, const char *op, const char *size)
{
	const embperf_result *r;
	char want[64];

	cr_assert_eq(embperf_bench_set(bench, "op", op), 0, "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(embperf_bench_set(bench, "size", size), 0, "%s", embperf_bench_errmsg(bench));
	cr_assert_eq(embperf_bench_run(bench), 0, "%s: %s", op, embperf_bench_errmsg(bench));
	cr_assert_eq(embperf_bench_result_count(bench), 1);
	r = embperf_bench_result(bench, 0);
	snprintf(want, sizeof(want), "op=%s size=%s", op, size);
	cr_assert_str_eq(embperf_result_labels(r), want);
	cr_assert_str_eq(embperf_result_unit(r), "MB/s");
	cr_assert_str_eq(embperf_result_primary(r), "median");
	cr_assert(embperf_result_higher_is_better(r));
	return embperf_result_value(r);
}

Test(mem_bw, every_op_is_positive_and_below_a_physical_bound)
{
	static const char *const ops[] = { "rd", "wr", "rdwr", "cp", "fcp",
					   "frd", "fwr", "bzero", "bcopy" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		double mbs = run_bw(b, ops[i], "1M");

		cr_assert(mbs > 0.0 && mbs < BW_PHYSICAL_BOUND_MBS, "%s: %g MB/s", ops[i], mbs);
	}
}

/* The test's own memmove() of @bytes, best of @timings, bytes copied per second in MB/s. */
static double own_memmove_best_mbs(size_t bytes, int timings)
{
	char *src = malloc(bytes), *dst = malloc(bytes);
	double best_mbs = 0.0;
	const int copies = 64; /* ~0.1-1 ms a timing in L2: far above the clock's cost */

	cr_assert(src && dst);
	memset(src, 0x5a, bytes);
	memset(dst, 0xa5, bytes);
	for (int t = 0; t < timings; t++) {
		uint64_t start_ns = ep_now_ns(), elapsed_ns;

		for (int i = 0; i < copies; i++) {
			memmove(dst, src, bytes);
			__asm__ volatile("" : : "r"(dst) : "memory"); /* keep every copy */
		}
		elapsed_ns = ep_now_ns() - start_ns;
		if (elapsed_ns)
			best_mbs = fmax(best_mbs, 1e3 * (double)bytes * copies / (double)elapsed_ns);
	}
	free(src);
	free(dst);
	return best_mbs;
}

/*
 * bw_mem counts the bytes copied, not read plus written (STREAM counts
 * both, so its copy reads twice bcopy's figure for the same memcpy). The
 * test times memmove() of the same 256 KiB itself, as bcopy does, in turns
 * with the kernel: bcopy's best sample over its own best must be near 1; a
 * double count gives 2, a half count 0.5. The size sits in L2 and the
 * samples are short: best-of figures of DRAM-sized copies on a loaded VM
 * moved 2.6x from run to run (8-21 GB/s), in cache they kept within 6 %.
 * The best of 150 samples of 200 us, each side, in three interleaved
 * rounds, is the measurement itself (load only lengthens a sample and
 * rarely preempts one that short), not a retry.
 */
#define COPY_ROUNDS 3
Test(mem_bw, bcopy_counts_the_bytes_copied_once)
{
	double best_bcopy_mbs = 0, best_own_mbs = 0, ratio;

	tp_skip_if_emulated("a ratio of two measured bandwidths");
	/* Under ASan the library's memmove() went through the interceptor at
	 * 3 356 MB/s while the test's own ran at 54 317 (CI, 256 KiB). */
	if (TP_UNDER_ASAN)
		cr_skip_test("AddressSanitizer's memmove() costs differ between library and test");
	cr_assert_eq(embperf_bench_set(b, "sample_time", "200us"), 0);
	tp_set_count(b, "50"); /* the best of 50, as own_memmove_best_mbs() takes */
	for (int i = 0; i < COPY_ROUNDS; i++) {
		run_bw(b, "bcopy", "256k");
		best_bcopy_mbs = fmax(best_bcopy_mbs,
				      embperf_result_stat(embperf_bench_result(b, 0), EMBPERF_STAT_MAX));
		best_own_mbs = fmax(best_own_mbs, own_memmove_best_mbs(256 << 10, 50));
	}
	ratio = best_bcopy_mbs / best_own_mbs;
	tp_figure("mem.bw bcopy 256k: best %.0f MB/s, best memmove() here %.0f MB/s: %.3f",
		  best_bcopy_mbs, best_own_mbs, ratio);
	/* A double count reads 2, a half count 0.5; 0.95-1.08 was read here
	 * (8 runs beside a CI build): a bound 1.6 times off either way. */
	cr_assert(ratio > 0.6 && ratio < 1.6,
		  "best bcopy %g MB/s / best memmove() timed here %g MB/s = %.2f (expected about 1)",
		  best_bcopy_mbs, best_own_mbs, ratio);
}

Test(mem_bw, unknown_op_names_op)
{
	cr_assert_eq(embperf_bench_set(b, "op", "memcpy"), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(b), "'op'"), "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "bcopy"), "%s", embperf_bench_errmsg(b));
}

Test(mem_bw, size_below_a_block_is_refused)
{
	cr_assert_eq(embperf_bench_set(b, "size", "100"), -ERANGE);
	cr_assert(strstr(embperf_bench_errmsg(b), "size"), "%s", embperf_bench_errmsg(b));
}

Test(mem_bw, size_larger_than_memory_is_enomem)
{
	if (!ep_mem_available_bytes() || ep_mem_available_bytes() > ((uint64_t)1 << 40))
		cr_skip_test("this machine lacks a MemAvailable below 1 TiB");
	cr_assert_eq(embperf_bench_set(b, "op", "bcopy"), 0);
	cr_assert_eq(embperf_bench_set(b, "size", "1T"), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_run(b), -ENOMEM);
	cr_assert(strstr(embperf_bench_errmsg(b), "'size'"), "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "1T"), "%s", embperf_bench_errmsg(b));
}

/* ASan and its kind replace malloc(): glibc's layout is not there to compare. */
#if defined(__SANITIZE_ADDRESS__)
#define MALLOC_REPLACED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MALLOC_REPLACED 1
#endif
#endif
#if defined(__GLIBC__) && !defined(MALLOC_REPLACED)
#define COMPARE_GLIBC 1
#endif

#ifdef COMPARE_GLIBC
/*
 * Where glibc mapped a chunk it served by mmap(): the chunk's header, two
 * words below the pointer, holds the bytes before the chunk in the mapping
 * (prev_size) and the chunk's size with the IS_MMAPPED bit (2). Reading the
 * header instead of /proc/self/maps: adjacent anonymous mappings merge there.
 */
static int glibc_mapping_of(const void *p, const char **start, size_t *len)
{
	/* through an integer: the header lies outside the object gcc knows */
	volatile uintptr_t at = (uintptr_t)p - 2 * sizeof(size_t);
	const size_t *hdr = (const size_t *)at;

	if (!(hdr[1] & 2))
		return 0;
	*start = (const char *)hdr - hdr[0];
	*len = hdr[0] + (hdr[1] & ~(size_t)7);
	return 1;
}
#endif

/*
 * bw_mem's buffers come from glibc's valloc(): at these sizes a mapping of
 * their own, the buffer one page in. mem.bw's must lie the same way (not on
 * a 2 MiB boundary, where transparent huge pages would back a buffer that
 * bw_mem gets in base pages, and a 1 MiB row would see another cache).
 */
Test(mem_bw, buffers_lie_in_their_mapping_as_glibc_valloc_puts_them)
{
	size_t page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	size_t sizes[] = { 1 << 20, (1 << 20) + 2048, 64 << 20 };
	void *vallocs[3] = { NULL };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct ep_mem_buf buf;

		cr_assert_eq(ep_mem_buf_alloc_like_malloc(NULL, &buf, sizes[i]), 0);
		cr_expect_eq((char *)buf.addr, (char *)buf.map_addr + page_bytes,
			     "%zu bytes: the buffer one page into its mapping", sizes[i]);
		cr_expect_geq(buf.map_bytes, sizes[i] + page_bytes);
		cr_expect_lt(buf.map_bytes, sizes[i] + 3 * page_bytes);
#ifdef COMPARE_GLIBC
		{
			/* freed at the end: a free() would raise glibc's mmap threshold */
			void *v = vallocs[i] = valloc(sizes[i]);
			const char *start;
			size_t len;

			cr_assert(v);
			cr_assert(glibc_mapping_of(v, &start, &len), "valloc(%zu) was mmap()ed", sizes[i]);
			cr_expect_eq((const char *)v - page_bytes, start,
				     "glibc's valloc(%zu) is one page into a mapping", sizes[i]);
			cr_expect_eq(len, buf.map_bytes, "valloc(%zu): a mapping of %zu bytes, ours %zu",
				     sizes[i], len, buf.map_bytes);
		}
#endif
		ep_mem_buf_free(&buf);
	}
	for (size_t i = 0; i < sizeof(vallocs) / sizeof(vallocs[0]); i++)
		free(vallocs[i]);
}
