// SPDX-License-Identifier: MIT
/*
 * mtd.c - blk.mtd: raw flash throughput through the kernel MTD interface,
 * the method of mtd-utils' flash_speed (and the kernel's mtd_speedtest), as
 * a trial kernel (doc/methodology-blk.md, "blk.mtd").
 *
 * The eraseblocks used ('start', 'count') are scanned for bad blocks once
 * (MEMGETBADBLOCK); bad ones are skipped by every pass and counted. The
 * cases, in flash_speed's order, each a pass over the good eraseblocks:
 * eraseblock write (one write per eraseblock, after an untimed erase),
 * eraseblock read, page write (one write per page, after an untimed erase),
 * page read, erase (one MEMERASE64 per eraseblock) and multi-block erase
 * (one MEMERASE64 over N consecutive good eraseblocks, N = 2, 4, ...
 * 'multi'). Each gives MB/s (10^6), KiB/s (flash_speed's unit), the
 * latency of each call and the CPU load. It writes the flash: it refuses
 * without destructive=1, and a mounted MTD (or one attached to UBI) always.
 * The device is reached through struct blk_mtd_ops (mtd_dev.h), which the
 * tests replace with an in-memory flash.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/blk/job.h"
#include "lib/blk/mtd_dev.h"
#include "lib/core/util.h"

#define MTD_MAX_CASES 16

enum { M_BANDWIDTH, M_SPEED, M_LATENCY, M_BAD, M_CPU_PROCESS, M_CPU_SYSTEM };
enum { OP_EB_WRITE, OP_EB_READ, OP_PAGE_WRITE, OP_PAGE_READ, OP_ERASE, OP_MULTI_ERASE };
enum { C_BAD };

static const char *const op_names[] = {
	[OP_EB_WRITE] = "eb_write", [OP_EB_READ] = "eb_read", [OP_PAGE_WRITE] = "page_write",
	[OP_PAGE_READ] = "page_read", [OP_ERASE] = "erase", [OP_MULTI_ERASE] = "multi_erase",
};

static const struct ep_param_desc mtd_params[] = {
	{ "target", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "MTD character device: /dev/mtdN or mtdN (its contents are erased)" },
	{ "destructive", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",
	  "allow erasing and writing the flash (required)" },
	{ "start", EP_PT_INT, "0", { { 0, INT32_MAX } }, NULL, "",
	  "first eraseblock used" },
	{ "count", EP_PT_INT, "0", { { 0, INT32_MAX } }, NULL, "",
	  "eraseblocks used from 'start' (0: to the end; mtd_speedtest's count)" },
	{ "multi", EP_PT_INT, "64", { { 0, 1024 } }, NULL, "",
	  "largest multi-block erase, eraseblocks (powers of two from 2; 0 or 1: none)" },
};

static const struct ep_metric_desc mtd_metrics[] = {
	[M_BANDWIDTH] = { "bandwidth", "MB/s", EP_METRIC_TRIAL_MBPS, 1.0, EP_PRIMARY_MEDIAN, 1,
			  "bytes written, read or erased / measured time, MB = 10^6 bytes" },
	[M_SPEED] = { "speed", "KiB/s", EP_METRIC_VALUE, 1.0, EP_PRIMARY_MEDIAN, 1,
		      "the median bandwidth in flash_speed's unit, KiB/s (1 KiB = 1024 bytes)" },
	[M_LATENCY] = { "latency", "us", EP_METRIC_TRIAL_LATENCY, 1000.0, EP_PRIMARY_MEDIAN, 0,
			"time of each read, write or erase call" },
	[M_BAD] = { "bad_blocks", "blocks", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0,
		    "bad eraseblocks skipped, per pass" },
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_PROCESS_HELP),
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM(EP_CPU_SYSTEM_HELP),
};

static const char *const mtd_counters[] = { [C_BAD] = "bad_blocks" };

struct mtd_state;

/**
 * struct mtd_case - one pass of the method.
 * @st:     the run's state.
 * @op:     OP_*.
 * @blocks: eraseblocks per call of a multi-block erase.
 * @label:  "op=eb_write dev=mtd0 eb=131072 page=2048 blocks=64".
 */
struct mtd_case {
	struct mtd_state *st;
	int op;
	int blocks;
	char label[192];
};

/**
 * struct mtd_state - the run.
 * @run:      the run.
 * @ops:      the device's operations (ep_blk_mtd_ops when the run began).
 * @dev:      the open device; NULL before.
 * @info:     its geometry.
 * @first_eb: first eraseblock used.
 * @n_eb:     eraseblocks used.
 * @bad:      1 per bad eraseblock of the @n_eb.
 * @n_bad:    bad ones among them.
 * @buf:      one eraseblock of data (the verify pattern).
 * @n_cases:  number of @cases.
 * @cases:    the passes.
 */
struct mtd_state {
	struct ep_run *run;
	const struct blk_mtd_ops *ops;
	void *dev;
	struct blk_mtd_info info;
	uint64_t first_eb, n_eb;
	unsigned char *bad;
	uint64_t n_bad;
	void *buf;
	int n_cases;
	struct mtd_case cases[MTD_MAX_CASES];
};

/** eb_off() - byte offset of eraseblock @i of the range. */
static uint64_t eb_off(const struct mtd_state *st, uint64_t i)
{
	return (st->first_eb + i) * st->info.eb_bytes;
}

/** op_fail() - the run's message for a failed call. Return: @rc. */
static int op_fail(struct mtd_state *st, int rc, const char *what, uint64_t off_bytes)
{
	return ep_run_fail(st->run, rc, "target '%s': %s at offset %" PRIu64 " (eraseblock %"
			   PRIu64 ") failed: %s", ep_param_text(st->run, "target"), what,
			   off_bytes, off_bytes / st->info.eb_bytes, strerror(-rc));
}

/**
 * erase_all() - erase every good eraseblock of the range (untimed, before
 * a write pass). Return: 0 or a negative errno with the run's message.
 */
static int erase_all(struct mtd_state *st)
{
	for (uint64_t i = 0; i < st->n_eb; i++) {
		int rc;

		if (st->bad[i])
			continue;
		rc = st->ops->erase(st->dev, eb_off(st, i), st->info.eb_bytes);
		if (rc)
			return op_fail(st, rc, "erase", eb_off(st, i));
		if (!(i & 63) && (rc = ep_run_check(st->run)))
			return rc;
	}
	return 0;
}

/**
 * timed_io() - one read or write call of @len at @off_bytes, counted with
 * its latency. Return: 0 or a negative errno with the run's message.
 */
static int timed_io(struct mtd_state *st, struct ep_tally *ta, int is_read, size_t len,
		    uint64_t off_bytes, const void *data)
{
	uint64_t start_ns, end_ns;
	ssize_t n;

	if (!is_read) /* unique data per sector, outside the call's time */
		blk_scramble((void *)data, len, off_bytes);
	start_ns = ep_now_ns();
	n = is_read ? st->ops->read(st->dev, st->buf, len, off_bytes) :
	    st->ops->write(st->dev, data, len, off_bytes);
	end_ns = ep_now_ns();
	if (n < 0 || (size_t)n != len)
		return op_fail(st, n < 0 ? (int)n : -EIO, is_read ? "read" : "write", off_bytes);
	ep_tally_op(ta, 1, len, end_ns - start_ns);
	return 0;
}

/** timed_erase() - one erase call of @n_blocks eraseblocks, counted with its latency. */
static int timed_erase(struct mtd_state *st, struct ep_tally *ta, uint64_t off_bytes,
		       uint64_t n_blocks)
{
	uint64_t len = n_blocks * st->info.eb_bytes, start_ns = ep_now_ns();
	int rc = st->ops->erase(st->dev, off_bytes, len);
	uint64_t end_ns = ep_now_ns();

	if (rc)
		return op_fail(st, rc, "erase", off_bytes);
	ep_tally_op(ta, 1, len, end_ns - start_ns);
	return 0;
}

/** pass_eb() - one eraseblock's part of a pass: whole, by pages, or erased. */
static int pass_eb(struct mtd_case *c, struct ep_tally *ta, uint64_t i)
{
	struct mtd_state *st = c->st;
	uint64_t off = eb_off(st, i), page = st->info.page_bytes;
	int rc = 0;

	switch (c->op) {
	case OP_EB_WRITE:
	case OP_EB_READ:
		return timed_io(st, ta, c->op == OP_EB_READ, st->info.eb_bytes, off, st->buf);
	case OP_PAGE_WRITE:
	case OP_PAGE_READ:
		for (uint64_t p = 0; !rc && p < st->info.eb_bytes; p += page)
			rc = timed_io(st, ta, c->op == OP_PAGE_READ, page, off + p,
				      (char *)st->buf + p);
		return rc;
	default:
		return timed_erase(st, ta, off, 1);
	}
}

/** group_good() - the @n eraseblocks from @i are all good. */
static int group_good(const struct mtd_state *st, uint64_t i, uint64_t n)
{
	for (uint64_t k = i; k < i + n; k++)
		if (st->bad[k])
			return 0;
	return 1;
}

/**
 * mtd_body() - one pass over the good eraseblocks (a multi-block erase:
 * over the groups of 'blocks' eraseblocks that hold no bad one).
 * Return: 0 or a negative errno with the run's message.
 */
static int mtd_body(void *arg, struct ep_trial *t)
{
	struct mtd_case *c = arg;
	struct mtd_state *st = c->st;
	struct ep_tally *ta = ep_trial_tally(t);
	int rc = 0;

	ep_tally_count(ta, C_BAD, (double)st->n_bad);
	if (c->op == OP_MULTI_ERASE) {
		uint64_t n = (uint64_t)c->blocks;

		for (uint64_t i = 0; !rc && i + n <= st->n_eb && ep_trial_running(t); i += n)
			if (group_good(st, i, n))
				rc = timed_erase(st, ta, eb_off(st, i), n);
		return rc;
	}
	for (uint64_t i = 0; !rc && i < st->n_eb && ep_trial_running(t); i++)
		if (!st->bad[i])
			rc = pass_eb(c, ta, i);
	return rc;
}

/** mtd_before_trial() - a write pass starts from erased eraseblocks (untimed). */
static int mtd_before_trial(void *arg, int index)
{
	struct mtd_case *c = arg;

	(void)index;
	return c->op == OP_EB_WRITE || c->op == OP_PAGE_WRITE ? erase_all(c->st) : 0;
}

/**
 * open_target() - open 'target' through the operations, refuse it without
 * destructive=1 and when it is in use.
 * Return: 0, or an error naming 'target' or 'destructive'.
 */
static int open_target(struct mtd_state *st)
{
	const char *target = ep_param_text(st->run, "target");
	char why[256] = "";
	int rc;

	if (!*target)
		return ep_run_fail(st->run, -EINVAL, "parameter 'target' is empty; accepted: an "
				   "MTD character device, /dev/mtdN or mtdN");
	rc = st->ops->open(target, &st->dev, &st->info, why, sizeof(why));
	if (rc)
		return ep_run_refuse(st->run, rc, "target", ": %s; accepted: an MTD character "
				     "device, /dev/mtdN or mtdN", why);
	if (!ep_param_int(st->run, "destructive"))
		return ep_run_fail(st->run, -EPERM, "parameter 'destructive': target '%s' (%s, "
				   "\"%s\") is erased and written by blk.mtd, only with "
				   "destructive=1; accepted: destructive=1", target, st->info.type,
				   st->info.name);
	rc = st->ops->in_use(st->dev, why, sizeof(why));
	if (rc < 0)
		return ep_run_fail(st->run, rc, "target '%s': cannot tell whether it is in use: %s",
				   target, strerror(-rc));
	if (rc)
		return ep_run_refuse(st->run, -EBUSY, "target", " is %s; refused even with "
				     "destructive=1; accepted: an MTD device nothing uses "
				     "(unmount it, or detach it from UBI, first)", why);
	/* flash_speed and mtd_speedtest: "not NAND flash, assume page size is 512 bytes" */
	if (st->info.page_bytes == 1 && st->info.eb_bytes % 512 == 0)
		st->info.page_bytes = 512;
	if (!st->info.eb_bytes || st->info.eb_bytes % st->info.page_bytes ||
	    st->info.size_bytes < st->info.eb_bytes)
		return ep_run_fail(st->run, -EINVAL, "target '%s': unusable geometry (size %"
				   PRIu64 ", eraseblock %" PRIu64 ", page %" PRIu64 ")", target,
				   st->info.size_bytes, st->info.eb_bytes, st->info.page_bytes);
	return 0;
}

/**
 * read_range() - 'start' and 'count' against the device's eraseblocks.
 * Return: 0, or -EINVAL naming the parameter.
 */
static int read_range(struct mtd_state *st)
{
	uint64_t eb_cnt = st->info.size_bytes / st->info.eb_bytes;
	uint64_t start = (uint64_t)ep_param_int(st->run, "start");
	uint64_t count = (uint64_t)ep_param_int(st->run, "count");

	if (start >= eb_cnt)
		return ep_run_fail(st->run, -EINVAL, "parameter 'start': value '%" PRIu64 "' is "
				   "past the last eraseblock of '%s'; accepted: 0..%" PRIu64, start,
				   ep_param_text(st->run, "target"), eb_cnt - 1);
	if (count > eb_cnt - start)
		return ep_run_fail(st->run, -EINVAL, "parameter 'count': value '%" PRIu64 "' "
				   "goes past the end of '%s' from eraseblock %" PRIu64 "; accepted: "
				   "0 (to the end) or 1..%" PRIu64, count,
				   ep_param_text(st->run, "target"), start, eb_cnt - start);
	st->first_eb = start;
	st->n_eb = count ? count : eb_cnt - start;
	return 0;
}

/**
 * scan_bad() - mark the bad eraseblocks of the range (flash_speed scans
 * first, then skips them). Return: 0 or a negative errno with the message.
 */
static int scan_bad(struct mtd_state *st)
{
	st->bad = calloc(st->n_eb, 1);
	if (!st->bad)
		return -ENOMEM;
	for (uint64_t i = 0; st->info.has_bad && i < st->n_eb; i++) {
		int rc = st->ops->is_bad(st->dev, eb_off(st, i));

		if (rc < 0)
			return op_fail(st, rc, "MEMGETBADBLOCK", eb_off(st, i));
		st->bad[i] = rc > 0;
		st->n_bad += rc > 0;
	}
	if (st->n_bad == st->n_eb)
		return ep_run_fail(st->run, -EIO, "target '%s': all %" PRIu64 " eraseblocks used "
				   "are bad; accepted: a range ('start', 'count') with good ones",
				   ep_param_text(st->run, "target"), st->n_eb);
	return 0;
}

/** add_case() - one pass. Return: 0 or a negative errno. */
static int add_case(struct mtd_state *st, int op, int blocks)
{
	struct mtd_case *c = &st->cases[st->n_cases];
	struct ep_trial_case tc = {
		.body = mtd_body,
		.before_trial = mtd_before_trial,
		.arg = c,
		.labels = c->label,
		.counters = mtd_counters,
		.n_counters = (int)EP_ARRAY_SIZE(mtd_counters),
	};
	int n, rc;

	c->st = st;
	c->op = op;
	c->blocks = blocks;
	n = snprintf(c->label, sizeof(c->label), "op=%s dev=mtd%d eb=%" PRIu64 " page=%" PRIu64,
		     op_names[op], st->info.index, st->info.eb_bytes, st->info.page_bytes);
	if (op == OP_MULTI_ERASE && n > 0 && (size_t)n < sizeof(c->label))
		snprintf(c->label + n, sizeof(c->label) - (size_t)n, " blocks=%d", blocks);
	rc = ep_run_add_trial(st->run, &tc);
	if (!rc)
		st->n_cases++;
	return rc;
}

/** add_cases() - flash_speed's passes, in its order. Return: 0 or a negative errno. */
static int add_cases(struct mtd_state *st)
{
	int multi = (int)ep_param_int(st->run, "multi"), rc = 0;

	for (int op = OP_EB_WRITE; !rc && op <= OP_ERASE; op++)
		rc = add_case(st, op, 1);
	for (int n = 2; !rc && n <= multi && (uint64_t)n <= st->n_eb &&
	     st->n_cases < MTD_MAX_CASES; n *= 2)
		rc = add_case(st, OP_MULTI_ERASE, n);
	return rc;
}

/** mtd_finish() - KiB/s of each pass from its median MB/s. */
static int mtd_finish(struct ep_run *run, void *state)
{
	struct mtd_state *st = state;

	for (int i = 0; i < st->n_cases; i++) {
		const struct embperf_result *r = ep_run_find_result(run, M_BANDWIDTH,
								    st->cases[i].label);
		int rc;

		if (!r)
			continue;
		rc = ep_run_add_value(run, M_SPEED, st->cases[i].label,
				      embperf_result_value(r) * 1e6 / 1024.0);
		if (rc)
			return rc;
	}
	return 0;
}

/** mtd_teardown() - close the device, free the buffers. */
static void mtd_teardown(void *state)
{
	struct mtd_state *st = state;

	if (st->dev)
		st->ops->close(st->dev);
	free(st->bad);
	free(st->buf);
}

/** mtd_setup() - open and check the target, scan it, add the passes. */
static int mtd_setup(struct ep_run *run, void **state)
{
	struct mtd_state *st = *state;
	int rc;

	st->run = run;
	st->ops = ep_blk_mtd_ops;
	rc = open_target(st);
	if (!rc)
		rc = read_range(st);
	if (!rc)
		rc = scan_bad(st);
	if (rc)
		return rc;
	if (posix_memalign(&st->buf, 4096, (st->info.eb_bytes + 7) / 8 * 8))
		return -ENOMEM;
	blk_pattern_fill(st->buf, (st->info.eb_bytes + 7) / 8 * 8, 0, 1);
	if (st->n_bad)
		ep_run_log(run, EMBPERF_LOG_INFO, "blk.mtd: %" PRIu64 " of %" PRIu64 " eraseblocks "
			   "are bad and skipped", st->n_bad, st->n_eb);
	return add_cases(st);
}

static const struct ep_default mtd_defaults[] = {
	{ "repetitions", "3" },
	{ "duration", "300s" },
	{ "max_time", "900s" },
	{ NULL, NULL },
};

const struct ep_kernel ep_kernel_blk_mtd = {
	.name = "blk.mtd",
	.summary = "raw flash (MTD) eraseblock/page write and read, erase, multi-block erase "
		   "(flash_speed's method): MB/s, KiB/s",
	EP_PARAMS(mtd_params),
	EP_METRICS(mtd_metrics),
	.engine_defaults = mtd_defaults,
	.setup = mtd_setup,
	.finish = mtd_finish,
	.teardown = mtd_teardown,
	.state_bytes = sizeof(struct mtd_state),
	.trials = 1,
};
