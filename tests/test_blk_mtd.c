// SPDX-License-Identifier: MIT
/*
 * test_blk_mtd.c - blk.mtd (flash_speed's method) against an in-memory
 * flash that behaves as NAND does: a page can be programmed only when
 * erased, erase works on whole eraseblocks, bad eraseblocks refuse both.
 * The kernel's passes must erase before they write, skip the bad blocks
 * and count them, and refuse a device without destructive=1 or in use.
 * This machine has no MTD (no CONFIG_MTD): the kernel interface itself is
 * checked here only for its refusals; tests/vm/ runs it against mtdram.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embperf.h"
#include "lib/blk/mtd_dev.h"
#include "proc_state.h"

#define EB_BYTES 16384
#define PAGE_BYTES 512
#define N_EB 64

/**
 * struct fake_flash - the in-memory flash and what was done to it.
 * @mem:        N_EB eraseblocks.
 * @bad:        1 per bad eraseblock.
 * @mounted:    in_use() says "mounted".
 * @fail_write_at: a write at this offset fails with EIO (UINT64_MAX: none).
 * @erases, @writes, @reads: calls.
 * @violations: writes to unerased pages or to bad blocks, erases of bad blocks.
 * @open:       the device is open.
 */
static struct fake_flash {
	unsigned char mem[N_EB * EB_BYTES];
	unsigned char bad[N_EB];
	int mounted;
	uint64_t fail_write_at;
	long erases, writes, reads, violations;
	int open;
} flash;

static int fake_open(const char *path, void **dev, struct blk_mtd_info *info, char *why,
		     size_t why_size)
{
	if (strcmp(path, "fake0")) {
		snprintf(why, why_size, "no such fake flash");
		return -ENOENT;
	}
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "fake NAND");
	snprintf(info->type, sizeof(info->type), "nand");
	info->size_bytes = sizeof(flash.mem);
	info->eb_bytes = EB_BYTES;
	info->page_bytes = PAGE_BYTES;
	info->has_bad = 1;
	info->index = 0;
	flash.open = 1;
	*dev = &flash;
	return 0;
}

static int fake_in_use(void *dev, char *why, size_t why_size)
{
	(void)dev;
	if (flash.mounted)
		snprintf(why, why_size, "mounted as /dev/mtdblock0 on /mnt (jffs2)");
	return flash.mounted;
}

static int fake_is_bad(void *dev, uint64_t off)
{
	(void)dev;
	return flash.bad[off / EB_BYTES];
}

static int fake_erase(void *dev, uint64_t off, uint64_t len)
{
	(void)dev;
	flash.erases++;
	if (off % EB_BYTES || len % EB_BYTES || off + len > sizeof(flash.mem))
		return -EINVAL;
	for (uint64_t eb = off / EB_BYTES; eb < (off + len) / EB_BYTES; eb++)
		if (flash.bad[eb]) {
			flash.violations++;
			return -EIO;
		}
	memset(flash.mem + off, 0xff, len);
	return 0;
}

static ssize_t fake_read(void *dev, void *buf, size_t len, uint64_t off)
{
	(void)dev;
	flash.reads++;
	if (off + len > sizeof(flash.mem))
		return -EINVAL;
	memcpy(buf, flash.mem + off, len);
	return (ssize_t)len;
}

static ssize_t fake_write(void *dev, const void *buf, size_t len, uint64_t off)
{
	(void)dev;
	flash.writes++;
	if (off == flash.fail_write_at)
		return -EIO;
	if (off % PAGE_BYTES || len % PAGE_BYTES || off + len > sizeof(flash.mem))
		return -EINVAL;
	if (flash.bad[off / EB_BYTES]) {
		flash.violations++;
		return -EIO;
	}
	for (size_t i = 0; i < len; i++)
		if (flash.mem[off + i] != 0xff) { /* NAND programs erased pages only */
			flash.violations++;
			return -EIO;
		}
	memcpy(flash.mem + off, buf, len);
	return (ssize_t)len;
}

static void fake_close(void *dev)
{
	(void)dev;
	flash.open = 0;
}

static const struct blk_mtd_ops fake_ops = {
	.open = fake_open, .in_use = fake_in_use, .is_bad = fake_is_bad, .erase = fake_erase,
	.read = fake_read, .write = fake_write, .close = fake_close,
};

static embperf_ctx *ctx;
static embperf_bench *b;

/** setup() - a fake flash of 64 x 16 KiB with bad eraseblocks 3, 17 and 40, written over. */
static void setup(void)
{
	memset(&flash, 0, sizeof(flash));
	memset(flash.mem, 0x5a, sizeof(flash.mem)); /* old data: not erased */
	flash.bad[3] = flash.bad[17] = flash.bad[40] = 1;
	flash.fail_write_at = UINT64_MAX;
	ep_blk_mtd_ops = &fake_ops;
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	b = embperf_bench_new(ctx, "blk.mtd");
	cr_assert(b, "blk.mtd is registered");
	tp_set(b, "repetitions", "1");
	tp_set(b, "target", "fake0");
	tp_set(b, "multi", "8");
}

static void teardown(void)
{
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
	ep_blk_mtd_ops = &blk_mtd_kernel_ops;
	cr_assert_eq(flash.open, 0, "the device is closed");
}

TestSuite(blk_mtd, .init = setup, .fini = teardown, .timeout = 60);

/** result() - the result of @metric whose labels begin with @labels, or NULL. */
static const embperf_result *result(const char *metric, const char *labels)
{
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (!strcmp(embperf_result_metric(r), metric) &&
		    !strncmp(embperf_result_labels(r), labels, strlen(labels)))
			return r;
	}
	return NULL;
}

/**
 * check_pass() - the pass @labels made @calls calls, each with its
 * latency, saw the 3 bad blocks, and its KiB/s is its MB/s in KiB.
 */
static void check_pass(const char *labels, double calls)
{
	const embperf_result *bw = result("bandwidth", labels);
	const embperf_result *speed = result("speed", labels);
	const embperf_result *lat = result("latency", labels);
	const embperf_result *bad = result("bad_blocks", labels);

	cr_assert(bw && speed && lat && bad, "every metric of '%s'", labels);
	cr_assert_float_eq(tp_counter(bw, "units"), calls, 1e-9, "%s: %.0f calls, wanted %.0f",
			   labels, tp_counter(bw, "units"), calls);
	cr_assert_float_eq(embperf_result_dist_stat(lat, EMBPERF_STAT_N), calls, 1e-9,
			   "%s: one latency per call", labels);
	cr_assert_float_eq(embperf_result_value(speed), embperf_result_value(bw) * 1e6 / 1024,
			   1e-6 * embperf_result_value(speed), "%s: KiB/s from MB/s", labels);
	cr_assert_float_eq(embperf_result_value(bad), 3.0, 1e-9, "%s: 3 bad blocks", labels);
	cr_assert_gt(embperf_result_value(bw), 0.0);
}

Test(blk_mtd, every_pass_skips_and_counts_the_bad_blocks)
{
	tp_set(b, "destructive", "1");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(flash.violations, 0, "no write to an unerased page or a bad block");
	check_pass("op=eb_write dev=mtd0 eb=16384 page=512", 61);
	check_pass("op=eb_read ", 61);
	check_pass("op=page_write ", 61 * 32);
	check_pass("op=page_read ", 61 * 32);
	check_pass("op=erase ", 61);
	/* Groups of 2, 4, 8 from block 0 holding none of 3, 17, 40. */
	check_pass("op=multi_erase dev=mtd0 eb=16384 page=512 blocks=2", 29);
	check_pass("op=multi_erase dev=mtd0 eb=16384 page=512 blocks=4", 13);
	check_pass("op=multi_erase dev=mtd0 eb=16384 page=512 blocks=8", 5);
	cr_assert_null(result("bandwidth", "op=multi_erase dev=mtd0 eb=16384 page=512 blocks=16"),
		       "multi=8 is the largest group");
}

Test(blk_mtd, a_range_of_eraseblocks_is_used_alone)
{
	tp_set(b, "destructive", "1");
	tp_set(b, "start", "16");
	tp_set(b, "count", "8");
	tp_set(b, "multi", "0");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_float_eq(tp_counter(result("bandwidth", "op=eb_write "), "units"), 7, 1e-9,
			   "blocks 16..23 less bad block 17");
	cr_assert_float_eq(embperf_result_value(result("bad_blocks", "op=eb_read ")), 1, 1e-9);
	for (int eb = 0; eb < N_EB; eb++)
		if (eb < 16 || eb >= 24)
			cr_assert_eq(flash.mem[eb * EB_BYTES], 0x5a, "eraseblock %d untouched", eb);
	cr_assert_null(result("bandwidth", "op=multi_erase"), "multi=0: no multi-block erase");
}

Test(blk_mtd, without_destructive_nothing_is_written)
{
	int rc = embperf_bench_run(b);

	cr_assert_eq(rc, -EPERM, "rc %d: %s", rc, embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "parameter 'destructive'"), "%s",
		  embperf_bench_errmsg(b));
	cr_assert_eq(flash.erases + flash.writes, 0, "nothing erased or written");
}

Test(blk_mtd, a_mounted_device_is_refused_even_with_destructive)
{
	int rc;

	flash.mounted = 1;
	tp_set(b, "destructive", "1");
	rc = embperf_bench_run(b);
	cr_assert_eq(rc, -EBUSY, "rc %d: %s", rc, embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "is mounted as /dev/mtdblock0 on /mnt"), "%s",
		  embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "even with destructive=1"));
	cr_assert_eq(flash.erases + flash.writes, 0, "nothing erased or written");
}

Test(blk_mtd, a_failed_write_names_its_offset_and_eraseblock)
{
	int rc;

	tp_set(b, "destructive", "1");
	flash.fail_write_at = 5 * EB_BYTES;
	rc = embperf_bench_run(b);
	cr_assert_eq(rc, -EIO, "rc %d: %s", rc, embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "write at offset 81920 (eraseblock 5)"), "%s",
		  embperf_bench_errmsg(b));
}

/** run_fails() - run, which must fail with @err and a message holding @words. */
static void run_fails(int err, const char *words)
{
	int rc = embperf_bench_run(b);

	cr_assert_eq(rc, err, "rc %d (%s), wanted %d", rc, embperf_bench_errmsg(b), err);
	cr_assert(strstr(embperf_bench_errmsg(b), words), "message '%s' names '%s'",
		  embperf_bench_errmsg(b), words);
}

Test(blk_mtd, bad_input_names_the_parameter)
{
	tp_set(b, "destructive", "1");
	tp_set(b, "start", "64");
	run_fails(-EINVAL, "parameter 'start': value '64' is past the last eraseblock");
	tp_set(b, "start", "60");
	tp_set(b, "count", "8");
	run_fails(-EINVAL, "parameter 'count': value '8' goes past the end");
	tp_set(b, "start", "3");
	tp_set(b, "count", "1");
	run_fails(-EIO, "all 1 eraseblocks used are bad");
	tp_set(b, "target", "");
	run_fails(-EINVAL, "parameter 'target' is empty");
	tp_set(b, "target", "fake9");
	run_fails(-ENOENT, "parameter 'target': value 'fake9'");
	cr_assert_eq(flash.erases + flash.writes, 0, "nothing erased or written");
}

Test(blk_mtd, the_kernel_interface_refuses_what_is_not_mtd)
{
	ep_blk_mtd_ops = &blk_mtd_kernel_ops;
	tp_set(b, "destructive", "1");
	tp_set(b, "target", "/dev/null");
	cr_assert_neq(embperf_bench_run(b), 0);
	cr_assert(strstr(embperf_bench_errmsg(b), "parameter 'target': value '/dev/null': a "
		  "character device"), "%s", embperf_bench_errmsg(b));
	tp_set(b, "target", "/tmp");
	run_fails(-EINVAL, "not a character device");
	tp_set(b, "target", "mtd-none");
	run_fails(-ENOENT, "'mtd-none'");
}
