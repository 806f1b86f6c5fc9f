// SPDX-License-Identifier: MIT
/*
 * test_mem_lat.c - mem.lat through the public API: the latency curve rises
 * from L1 to DRAM (and both orders' DRAM latency as a figure), a sweep's
 * cases come in increasing size with detected levels, bad parameters fail
 * clearly, and a cancel from another thread stops a run. Also the helpers of
 * lib/mem/lat.h on known inputs: the chain of each order, walked.
 *
 * Measured bounds are factors, not times, so a loaded machine does not fail
 * them: an L1 hit and a DRAM miss differ by more than ten times anywhere.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emulated.h"
#include "lib/core/ctx.h"
#include "lib/core/sysinfo.h"
#include "lib/mem/lat.h"
#include "proc_state.h"

#define MIB ((uint64_t)1 << 20)

static embperf_ctx *ctx;
static embperf_bench *b;

static void setup(void)
{
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	b = embperf_bench_new(ctx, "mem.lat");
	cr_assert(b, "mem.lat missing: %s", embperf_ctx_errmsg(ctx));
	/* Few, short samples: these tests check shapes, not precise figures. */
	cr_assert_eq(embperf_bench_set(b, "repetitions", "3"), 0);
	cr_assert_eq(embperf_bench_set(b, "sample_time", "1ms"), 0);
}

static void teardown(void)
{
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
}

TestSuite(mem_lat, .init = setup, .fini = teardown);

/* A size well above the last-level cache, or skip when memory is short. */
static uint64_t dram_bytes(void)
{
	uint64_t llc = ep_sysinfo_u64(ctx, "cache_l3_bytes");
	uint64_t bytes = 256 * MIB;

	if (!llc)
		llc = ep_sysinfo_u64(ctx, "cache_l2_bytes");
	while (bytes < 4 * llc)
		bytes *= 2;
	if (ep_mem_available_bytes() && ep_mem_available_bytes() < 2 * bytes)
		cr_skip_test("this machine lacks %llu MiB of free memory",
			     (unsigned long long)(2 * bytes / MIB));
	return bytes;
}

/* Run one size and return its latency. */
static double latency_at(const char *size, const char *order)
{
	const embperf_result *r;

	cr_assert_eq(embperf_bench_set(b, "size", size), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_set(b, "order", order), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_result_count(b), 1);
	r = embperf_bench_result(b, 0);
	cr_assert_str_eq(embperf_result_metric(r), "latency");
	cr_assert_str_eq(embperf_result_unit(r), "ns");
	cr_assert_str_eq(embperf_result_primary(r), "min");
	cr_assert(embperf_result_value(r) > 0.0);
	return embperf_result_value(r);
}

Test(mem_lat, latency_rises_from_l1_to_dram)
{
	tp_skip_if_emulated("load latency of L1 against DRAM sizes (emulated loads do not show the "
			    "caches)");
	char size[32];
	double l1_ns, dram_ns;

	snprintf(size, sizeof(size), "%lluM", (unsigned long long)(dram_bytes() / MIB));
	l1_ns = latency_at("16k", "stride");
	dram_ns = latency_at(size, "random");
	tp_figure("mem.lat fastest load: L1 (16k) %.2f ns, DRAM (%s) %.2f ns", l1_ns, size,
		  dram_ns);
	/* Shortest samples (load only lengthens them): a DRAM miss is tens of
	 * L1 hits anywhere, 5 is a gross bound. */
	cr_assert(dram_ns > 5.0 * l1_ns, "L1 (16k) %.2f ns, DRAM (%s) %.2f ns: expected a clear rise",
		  l1_ns, size, dram_ns);
}

/*
 * Stride against random order at a DRAM size: a figure only. Prefetchers
 * usually make the stride order several times faster (42 against 562 ns on
 * Zen 5), but not on every machine state: beside CI's jobs and two busy
 * loops, under ASan, a soak run read stride 176 ns and random 162 ns (the
 * stride chase lengthened by contention, the random one perhaps on huge
 * pages). That the random order is a random cycle is checked exactly below.
 */
Test(mem_lat, dram_latency_in_both_orders_is_a_figure)
{
	tp_skip_if_emulated("random against stride order at DRAM sizes (emulated loads do not show "
			    "the prefetchers)");
	char size[32];
	double stride_ns, random_ns;

	snprintf(size, sizeof(size), "%lluM", (unsigned long long)(dram_bytes() / MIB));
	stride_ns = latency_at(size, "stride");
	random_ns = latency_at(size, "random");
	tp_figure("mem.lat %s fastest load: stride %.2f ns, random %.2f ns (random / stride %.2f)",
		  size, stride_ns, random_ns, random_ns / stride_ns);
	cr_assert(isfinite(stride_ns) && stride_ns > 0.0, "%s stride: %g ns", size, stride_ns);
	cr_assert(isfinite(random_ns) && random_ns > 0.0, "%s random: %g ns", size, random_ns);
}

/*
 * Walk the chain from @base: every slot once, back to @base after @n_slots
 * loads. Return: how many loads went to the slot right above.
 */
static size_t walk_chain(char *base, uint64_t stride_bytes, size_t n_slots)
{
	unsigned char *seen = calloc(n_slots, 1);
	size_t loads = 0, next_up = 0;
	char *p = base;

	cr_assert(seen);
	do {
		size_t off = (size_t)(p - base);
		char *q;

		cr_assert(p >= base && off % stride_bytes == 0 && off / stride_bytes < n_slots,
			  "load %zu went outside the slots (offset %zu)", loads, off);
		cr_assert(!seen[off / stride_bytes], "slot %zu loaded twice, after %zu loads",
			  off / stride_bytes, loads);
		seen[off / stride_bytes] = 1;
		q = *(char **)p;
		next_up += q == p + stride_bytes;
		p = q;
		loads++;
	} while (p != base && loads <= n_slots);
	cr_assert_eq(loads, n_slots, "back to the first slot after %zu loads, not %zu", loads,
		     n_slots);
	free(seen);
	return next_up;
}

Test(mem_lat, random_chain_is_one_cycle_out_of_address_order)
{
	const size_t n_slots = 4096;
	const uint64_t stride_bytes = 128;
	char *buf = aligned_alloc(64, n_slots * stride_bytes);
	size_t next_up;

	cr_assert(buf);
	cr_assert_eq(ep_mem_lat_chain(buf, stride_bytes, n_slots, 0, 0, NULL), 0);
	next_up = walk_chain(buf, stride_bytes, n_slots);
	cr_assert_eq(next_up, n_slots - 1, "address order: %zu of %zu loads to the slot above",
		     next_up, n_slots);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		cr_assert_eq(ep_mem_lat_chain(buf, stride_bytes, n_slots, 1, seed, NULL), 0);
		next_up = walk_chain(buf, stride_bytes, n_slots);
		/* A random cycle goes to the slot above about once in n_slots loads. */
		cr_assert(next_up <= 8, "seed %llu: %zu of %zu loads to the slot above: not random",
			  (unsigned long long)seed, next_up, n_slots);
	}
	free(buf);
}

/* Size in bytes of a result's "size" label ("64k", "1536k", "4M"). */
static uint64_t label_bytes(const embperf_result *r, const char *key)
{
	char text[32], *end;
	uint64_t v;

	cr_assert_geq(embperf_result_label(r, key, text, sizeof(text)), 0, "no '%s' label in '%s'",
		      key, embperf_result_labels(r));
	v = strtoull(text, &end, 10);
	if (*end == 'k')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	else if (*end == 'G')
		v <<= 30;
	return v;
}

/* One sweep: the sizes must rise; returns whether level 1 was detected and
 * leaves the levels it found in @found (for the failure message). */
static int sweep_once(const char *size, int *n_lat, char *found, size_t found_size)
{
	char level[16];
	uint64_t prev = 0;
	int found_l1 = 0;

	*n_lat = 0;
	cr_assert_eq(embperf_bench_set(b, "size", size), 0);
	cr_assert_eq(embperf_bench_set(b, "repetitions", "2"), 0);
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (!strcmp(embperf_result_metric(r), "latency")) {
			uint64_t bytes = label_bytes(r, "size");

			cr_assert_gt(bytes, prev, "sizes out of order at '%s'",
				     embperf_result_labels(r));
			prev = bytes;
			(*n_lat)++;
			if (bytes <= 128 * 1024)
				snprintf(found + strlen(found), found_size - strlen(found), " %s=%.2f",
					 embperf_result_labels(r), embperf_result_value(r));
		} else if (!strcmp(embperf_result_metric(r), "cache_level_latency")) {
			cr_assert_geq(embperf_result_label(r, "level", level, sizeof(level)), 0);
			found_l1 |= !strcmp(level, "1");
			snprintf(found + strlen(found), found_size - strlen(found), " [%s] %.2f ns",
				 embperf_result_labels(r), embperf_result_value(r));
		}
	}
	return found_l1;
}

/*
 * The levels a sweep detects are a shape of measured figures, which a
 * shared machine can blur (a short sweep, 2 repetitions per size): they are
 * reported, not judged; the detector is judged on known curves below.
 */
Test(mem_lat, sweep_has_increasing_sizes_and_reports_its_levels)
{
	tp_skip_if_emulated("a sweep up to a DRAM size (emulated loads take too long)");
	char size[32], found[1024] = "";
	int n_lat = 0, found_l1;

	snprintf(size, sizeof(size), "4k..%lluM", (unsigned long long)(dram_bytes() / MIB));
	found_l1 = sweep_once(size, &n_lat, found, sizeof(found));
	tp_figure("mem.lat sweep, level 1 %s:%.400s", found_l1 ? "found" : "not found", found);
	/* 4k, 6k, 8k, 12k, ... two sizes per octave up to the DRAM size. */
	cr_assert_geq(n_lat, 2 * 16, "only %d sizes", n_lat);
}

Test(mem_lat, next_size_follows_lat_mem_rd)
{
	static const uint64_t want[] = { 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
					 24576, 32768, 49152, 65536 };

	for (size_t i = 0; i + 1 < sizeof(want) / sizeof(want[0]); i++)
		cr_assert_eq(ep_mem_lat_next_size(want[i]), want[i + 1], "after %llu",
			     (unsigned long long)want[i]);
	cr_assert_eq(ep_mem_lat_next_size(UINT64_MAX - 10), 0);
}

Test(mem_lat, detect_levels_on_a_known_curve)
{
	/* Three plateaus (1, 4, 20 ns) with a two-point climb between each. */
	static const double curve[] = { 1.0, 1.02, 0.98, 1.0, 1.01, 2.0, 3.5, 4.0, 4.1, 3.9,
					4.05, 4.2, 9.0, 15.0, 20.0, 21.0, 20.5, 19.8 };
	struct ep_mem_level lv[4];
	int n = ep_mem_lat_detect_levels(curve, (int)(sizeof(curve) / sizeof(curve[0])), lv, 4);

	cr_assert_eq(n, 3);
	cr_assert_eq(lv[0].first, 0);
	cr_assert_eq(lv[0].last, 4);
	cr_assert_eq(lv[0].edge, 5, "2.0 is below the 1..4 ns midpoint: edge %d", lv[0].edge);
	cr_assert_float_eq(lv[0].latency_ns, 1.0, 0.02);
	cr_assert_eq(lv[1].first, 7, "3.5 is too far below 4.1 to join: first %d", lv[1].first);
	cr_assert_eq(lv[1].edge, 12, "9.0 is below the 4..20 ns midpoint: edge %d", lv[1].edge);
	cr_assert_float_eq(lv[1].latency_ns, 4.05, 0.06);
	cr_assert_float_eq(lv[2].latency_ns, 20.25, 0.3);
}

Test(mem_lat, flat_curve_is_one_level)
{
	static const double curve[] = { 5.0, 5.1, 4.9, 5.2, 5.0, 5.05, 4.95, 5.1 };
	struct ep_mem_level lv[4];

	cr_assert_eq(ep_mem_lat_detect_levels(curve, 8, lv, 4), 1);
}

Test(mem_lat, bad_stride_is_refused)
{
	cr_assert_eq(embperf_bench_set(b, "stride", "0"), -ERANGE);
	cr_assert(strstr(embperf_bench_errmsg(b), "stride"), "%s", embperf_bench_errmsg(b));
	/* 102 is a multiple of neither a 4- nor an 8-byte pointer */
	cr_assert_eq(embperf_bench_set(b, "stride", "102"), 0);
	cr_assert_eq(embperf_bench_set(b, "size", "4k"), 0);
	cr_assert_eq(embperf_bench_run(b), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(b), "'stride'"), "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "102"), "%s", embperf_bench_errmsg(b));
}

Test(mem_lat, size_larger_than_memory_is_enomem)
{
	cr_assert_eq(embperf_bench_set(b, "size", "1T"), 0, "%s", embperf_bench_errmsg(b));
	if (!ep_mem_available_bytes() || ep_mem_available_bytes() > ((uint64_t)1 << 40))
		cr_skip_test("this machine lacks a MemAvailable below 1 TiB");
	cr_assert_eq(embperf_bench_run(b), -ENOMEM);
	cr_assert(strstr(embperf_bench_errmsg(b), "'size'"), "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "available"), "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_result_count(b), 0);
}

Test(mem_lat, reversed_range_is_refused)
{
	cr_assert_eq(embperf_bench_set(b, "size", "64M..1k"), -ERANGE);
	cr_assert(strstr(embperf_bench_errmsg(b), "size"), "%s", embperf_bench_errmsg(b));
}

Test(mem_lat, hugepages_on_without_reserve_names_hugepages)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "r");
	long reserved = -1;
	int rc;

	if (f) {
		if (fscanf(f, "%ld", &reserved) != 1)
			reserved = -1;
		fclose(f);
	}
	if (reserved != 0)
		cr_skip_test("this machine lacks a setup without reserved huge pages");
	cr_assert_eq(embperf_bench_set(b, "hugepages", "on"), 0);
	cr_assert_eq(embperf_bench_set(b, "size", "4M"), 0);
	rc = embperf_bench_run(b);
	cr_assert_eq(rc, -ENOMEM, "rc %d: %s", rc, embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "huge"), "%s", embperf_bench_errmsg(b));
}

Test(mem_lat, cancel_from_another_thread)
{
	struct tp_canceller cn;
	int rc;

	/* Far longer than the 200 ms before the cancel: 40 sizes x 1000 samples. */
	cr_assert_eq(embperf_bench_set(b, "size", "512..16M"), 0);
	cr_assert_eq(embperf_bench_set(b, "repetitions", "1000"), 0);
	tp_cancel_after(&cn, ctx, 200);
	rc = embperf_bench_run(b);
	tp_cancel_join(&cn);
	cr_assert_eq(rc, -ECANCELED, "rc %d: %s", rc, embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_result_count(b), 0);
}
