// SPDX-License-Identifier: MIT
/*
 * mem_bw.c - mem.bw: memory bandwidth of simple loops, the operations of
 * lmbench's bw_mem (McVoy & Staelin).
 *
 * Every operation walks the buffer in 512-byte blocks of 4-byte words, as
 * bw_mem does, and counts the buffer's size once per pass whatever it
 * touches: a copy counts the bytes copied, not read plus written (so 'bcopy'
 * comes out near half of STREAM's copy, which counts both).
 *
 *   rd     read one word in four (every 16 bytes) and sum them
 *   wr     write one word in four
 *   rdwr   read then write one word in four
 *   cp     copy one word in four to a second buffer
 *   frd    read every word and sum them
 *   fwr    write every word
 *   fcp    copy every word to a second buffer
 *   bzero  memset() the buffer to 0 (what bzero() is)
 *   bcopy  memmove() the buffer into a second one (what bcopy() is)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/core/buffer.h"

/*
 * bw_mem is built with plain -O, which neither vectorizes nor merges the
 * word accesses; gcc's -O2 would turn the 128 word stores of fwr/fcp into 16
 * vector stores, a different loop. Keep the word-by-word code so the two
 * tools run the same instructions.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

#define BW_MIN_SIZE 512                /* bytes of one block; bw_mem's minimum */
#define BW_MAX_SIZE ((int64_t)1 << 40) /* 1T; checked against memory in setup */
#define BW_BLOCK_WORDS 128             /* 4-byte words per 512-byte block */
#define BW_DST_EXTRA_BYTES 2048       /* bw_mem allocates its second buffer this much longer */

typedef int bw_word; /* bw_mem's TYPE */

enum bw_op { OP_RD, OP_WR, OP_RDWR, OP_CP, OP_FCP, OP_FRD, OP_FWR, OP_BZERO, OP_BCOPY };

/**
 * struct bw_state - the run's state.
 * @src:      the buffer every operation walks.
 * @dst:      destination of the copies (cp, fcp, bcopy); empty otherwise.
 * @bytes:    size of the buffer: the bytes one pass counts for.
 * @n_blocks: whole 512-byte blocks in @bytes: what the word loops walk.
 * @sink:     where sums are stored so the reads cannot be optimised away.
 */
struct bw_state {
	struct ep_mem_buf src;
	struct ep_mem_buf dst;
	size_t bytes;
	size_t n_blocks;
	volatile bw_word sink;
};

static const struct ep_param_desc bw_params[] = {
	{ "op", EP_PT_ENUM, "rd", { { 0, 0 } }, "rd|wr|rdwr|cp|fcp|frd|fwr|bzero|bcopy", "",
	  "operation, as bw_mem's: rd/wr/rdwr/cp touch one word in four, f* every word" },
	{ "size", EP_PT_SIZE, "1M", { { BW_MIN_SIZE, BW_MAX_SIZE } }, NULL, "bytes",
	  "buffer size; counted once per pass (copies: the bytes copied)" },
};

static const struct ep_metric_desc bw_metrics[] = {
	{ "bandwidth", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MEDIAN, 1,
	  "buffer bytes per second, MB = 10^6 bytes, median of the samples as bw_mem" },
};

/* Tell the compiler the buffers may have changed: each pass must really run. */
static inline void pass_barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/* Word offsets 0, 4, 8, ... 124 (rd, wr, rdwr, cp) and 0..127 (f*). */
#define AT4(X, i) X(i) X(i + 4) X(i + 8) X(i + 12)
#define AT16(X, i) AT4(X, i) AT4(X, i + 16) AT4(X, i + 32) AT4(X, i + 48)
#define EVERY4TH(X) AT16(X, 0) AT16(X, 64)
#define AT1_4(X, i) X(i) X(i + 1) X(i + 2) X(i + 3)
#define AT1_16(X, i) AT1_4(X, i) AT1_4(X, i + 4) AT1_4(X, i + 8) AT1_4(X, i + 12)
#define AT1_64(X, i) AT1_16(X, i) AT1_16(X, i + 16) AT1_16(X, i + 32) AT1_16(X, i + 48)
#define EVERY(X) AT1_64(X, 0) AT1_64(X, 64)

/* A block's words are summed apart from the total, as bw_mem's loop does:
 * one short dependency chain per block rather than one across the buffer. */
#define READ_SUM(i) + p[i]
#define WRITE_ONE(i) p[i] = 1;
#define WRITE_ONE_DOWN(i) p[127 - (i)] = 1;
#define READ_WRITE(i) sum += p[i]; p[i] = 1;
#define COPY(i) q[i] = p[i];

static int bw_rd(void *arg, uint64_t units)
{
	struct bw_state *st = arg;
	const bw_word *end = (const bw_word *)st->src.addr + st->n_blocks * BW_BLOCK_WORDS;
	bw_word sum = 0;

	while (units--) {
		for (const bw_word *p = st->src.addr; p < end; p += BW_BLOCK_WORDS)
			sum += 0 EVERY4TH(READ_SUM);
		pass_barrier();
	}
	st->sink = sum;
	return 0;
}

static int bw_wr(void *arg, uint64_t units)
{
	struct bw_state *st = arg;
	bw_word *end = (bw_word *)st->src.addr + st->n_blocks * BW_BLOCK_WORDS;

	while (units--) {
		for (bw_word *p = st->src.addr; p < end; p += BW_BLOCK_WORDS) {
			EVERY4TH(WRITE_ONE)
		}
		pass_barrier();
	}
	return 0;
}

static int bw_rdwr(void *arg, uint64_t units)
{
	struct bw_state *st = arg;
	bw_word *end = (bw_word *)st->src.addr + st->n_blocks * BW_BLOCK_WORDS;
	bw_word sum = 0;

	while (units--) {
		for (bw_word *p = st->src.addr; p < end; p += BW_BLOCK_WORDS) {
			EVERY4TH(READ_WRITE)
		}
		pass_barrier();
	}
	st->sink = sum;
	return 0;
}

static int bw_cp(void *arg, uint64_t units)
{
	struct bw_state *st = arg;
	const bw_word *end = (const bw_word *)st->src.addr + st->n_blocks * BW_BLOCK_WORDS;

	while (units--) {
		bw_word *q = st->dst.addr;

		for (const bw_word *p = st->src.addr; p < end; p += BW_BLOCK_WORDS) {
			EVERY4TH(COPY)
			q += BW_BLOCK_WORDS;
		}
		pass_barrier();
	}
	return 0;
}

static int bw_frd(void *arg, uint64_t units)
{
	struct bw_state *st = arg;
	const bw_word *end = (const bw_word *)st->src.addr + st->n_blocks * BW_BLOCK_WORDS;
	bw_word sum = 0;

	while (units--) {
		for (const bw_word *p = st->src.addr; p < end; p += BW_BLOCK_WORDS)
			sum += 0 EVERY(READ_SUM);
		pass_barrier();
	}
	st->sink = sum;
	return 0;
}

static int bw_fwr(void *arg, uint64_t units)
{
	struct bw_state *st = arg;
	bw_word *end = (bw_word *)st->src.addr + st->n_blocks * BW_BLOCK_WORDS;

	while (units--) {
		for (bw_word *p = st->src.addr; p < end; p += BW_BLOCK_WORDS) {
			EVERY(WRITE_ONE_DOWN)
		}
		pass_barrier();
	}
	return 0;
}

static int bw_fcp(void *arg, uint64_t units)
{
	struct bw_state *st = arg;
	const bw_word *end = (const bw_word *)st->src.addr + st->n_blocks * BW_BLOCK_WORDS;

	while (units--) {
		bw_word *q = st->dst.addr;

		for (const bw_word *p = st->src.addr; p < end; p += BW_BLOCK_WORDS) {
			EVERY(COPY)
			q += BW_BLOCK_WORDS;
		}
		pass_barrier();
	}
	return 0;
}

static int bw_bzero(void *arg, uint64_t units)
{
	struct bw_state *st = arg;

	while (units--) {
		memset(st->src.addr, 0, st->bytes);
		pass_barrier();
	}
	return 0;
}

static int bw_bcopy(void *arg, uint64_t units)
{
	struct bw_state *st = arg;

	while (units--) {
		memmove(st->dst.addr, st->src.addr, st->bytes);
		pass_barrier();
	}
	return 0;
}

static const ep_body_fn bw_bodies[] = {
	[OP_RD] = bw_rd,     [OP_WR] = bw_wr,   [OP_RDWR] = bw_rdwr,
	[OP_CP] = bw_cp,     [OP_FCP] = bw_fcp, [OP_FRD] = bw_frd,
	[OP_FWR] = bw_fwr,   [OP_BZERO] = bw_bzero, [OP_BCOPY] = bw_bcopy,
};

static int op_needs_dst(int op)
{
	return op == OP_CP || op == OP_FCP || op == OP_BCOPY;
}

EP_UNTIMED static void bw_teardown(void *state)
{
	struct bw_state *st = state;

	ep_mem_buf_free(&st->src);
	ep_mem_buf_free(&st->dst);
}

/*
 * Map and touch the buffers, so no page fault lands in a timed pass. Each is
 * laid out as bw_mem's valloc() gets it from glibc at these sizes; with the
 * copy destination 2 KiB longer, as bw_mem asks, source and destination lie
 * as far apart as in bw_mem, so effects of their placement are the same.
 */
static int alloc_buffers(struct ep_run *run, struct bw_state *st, int op)
{
	int rc = ep_mem_buf_alloc_like_malloc(run, &st->src, st->bytes);

	if (rc)
		return rc;
	memset(st->src.addr, 0, st->bytes);
	if (!op_needs_dst(op))
		return 0;
	rc = ep_mem_buf_alloc_like_malloc(run, &st->dst, st->bytes + BW_DST_EXTRA_BYTES);
	if (rc)
		return rc;
	memset(st->dst.addr, 0, st->bytes);
	return 0;
}

EP_UNTIMED static int bw_setup(struct ep_run *run, void **state)
{
	int op = (int)ep_param_int(run, "op");
	/* judged as 64 bits: a size_t would wrap 1T to 0 on a 32-bit board */
	uint64_t size_bytes = (uint64_t)ep_param_int(run, "size");
	size_t bytes = (size_t)size_bytes;
	struct bw_state *st = *state;
	struct ep_case c = { .metric = 0 };
	int rc;

	rc = ep_mem_check_fits(run, "size", ep_param_text(run, "size"),
			       size_bytes * (op_needs_dst(op) ? 2 : 1));
	if (rc)
		return rc;
	st->bytes = bytes;
	st->n_blocks = bytes / (BW_BLOCK_WORDS * sizeof(bw_word));
	rc = alloc_buffers(run, st, op);
	if (!rc) {
		c.body = bw_bodies[op];
		c.arg = st;
		c.bytes_per_unit = (double)bytes; /* bw_mem: the size, once per pass */
		rc = ep_run_add_params_case(run, &c, "op", "size", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_mem_bw = {
	.name = "mem.bw",
	.summary = "memory bandwidth of read, write and copy loops (lmbench bw_mem)",
	EP_PARAMS(bw_params),
	EP_METRICS(bw_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = bw_setup,
	.teardown = bw_teardown,
	.state_bytes = sizeof(struct bw_state),
	.cpu_bound = 1,
};
