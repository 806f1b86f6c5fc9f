// SPDX-License-Identifier: MIT
/*
 * fe_mem.c - memory front ends: lat_mem_rd (mem.lat), bw_mem (mem.bw) and
 * lmbench's stream (mem.stream).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lmb.h"

/* lat_mem_rd walks arrays from 512 bytes up: its smallest size. */
#define LAT_MEM_RD_FIRST_BYTES 512
/* lat_mem_rd's default stride: 512 bytes over the size of a pointer. */
#define LAT_MEM_RD_DEFAULT_STRIDE (512 / sizeof(char *))
/* bw_mem refuses buffers below 512 bytes. */
#define BW_MEM_MIN_BYTES 512
/* lmbench's stream: three arrays of doubles in 24,000,000 bytes by default. */
#define STREAM_DEFAULT_BYTES (1000ULL * 1000 * 3 * sizeof(double))

/*
 * The size after @bytes in lat_mem_rd's sweep (lmbench3's step()): doubling
 * below 1k, +1k below 4k, then +1/16 of the smallest power of two above
 * @bytes that is at least 32k: +2k up to 32k, then eight steps per octave.
 * 8 MB at stride 64 has 83 sizes. mem.lat's own size ranges take coarser
 * steps, so the front end walks these itself.
 */
static uint64_t mem_rd_next_size(uint64_t bytes)
{
	uint64_t octave = 32 * 1024;

	if (bytes < 1024)
		return bytes * 2;
	if (bytes < 4 * 1024)
		return bytes + 1024;
	while (octave <= bytes)
		octave *= 2;
	return bytes + octave / 16;
}

/* Run @b at @size bytes and print its "MB NS" line; sizes below the stride
 * are skipped, as lat_mem_rd does. Return: the exit status. */
static int mem_rd_size(struct lmb *m, embperf_bench *b, uint64_t size)
{
	double ns;
	int status;

	if (lmb_set(m, b, "size", "%llu", (unsigned long long)size) < 0)
		return LMB_EXIT_FAIL;
	status = lmb_run(m, b);
	if (status)
		return status;
	ns = lmb_value(lmb_result(b, "latency", NULL, NULL), "ns");
	if (!(ns > 0))
		return lmb_fail(m, "no latency from mem.lat at %llu bytes", (unsigned long long)size);
	fprintf(stderr, "%.5f %.3f\n", (double)size / (1024.0 * 1024.0), ns);
	return 0;
}

/*
 * One stride of lat_mem_rd: the "stride=S header, then "MB NS" for each size
 * of the sweep from 512 bytes to @max_bytes in lat_mem_rd's steps, one
 * mem.lat run per size.
 */
static int mem_rd_stride(struct lmb *m, uint64_t max_bytes, uint64_t stride, int random_order)
{
	embperf_bench *b;
	int status = 0;

	fprintf(stderr, "\"stride=%d\n", (int)stride);
	/* lat_mem_rd skips the sizes below the stride; none left, nothing to run. */
	if (max_bytes < LAT_MEM_RD_FIRST_BYTES || max_bytes < stride)
		return 0;
	b = lmb_bench(m, "mem.lat");
	if (!b)
		return LMB_EXIT_FAIL;
	if (lmb_set(m, b, "stride", "%llu", (unsigned long long)stride) < 0 ||
	    (random_order && lmb_set(m, b, "order", "random") < 0))
		status = LMB_EXIT_FAIL;
	for (uint64_t size = LAT_MEM_RD_FIRST_BYTES; status == 0 && size <= max_bytes;
	     size = mem_rd_next_size(size))
		if (size >= stride)
			status = mem_rd_size(m, b, size);
	embperf_bench_free(b);
	return status;
}

/**
 * lmb_lat_mem_rd() - lat_mem_rd [-P N] [-W US] [-N N] [-t] SIZE_MB [STRIDE...]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_lat_mem_rd(struct lmb *m, int argc, char **argv)
{
	int c, random_order = 0, status;
	uint64_t max_bytes;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>] [-t] len [stride...]\n";
	while ((c = lmb_getopt(m, argc, argv, "tP:W:N:")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0)
			return lmb_usage(m);
		if (handled)
			continue;
		if (c != 't')
			return lmb_usage(m);
		random_order = 1;
	}
	if (m->optind >= argc)
		return lmb_usage(m);
	status = lmb_need_single(m);
	if (status)
		return status;
	/* The size is a whole number of MB (2^20 bytes), read as atoi() does. */
	max_bytes = lmb_atoi(argv[m->optind]) > 0 ? (uint64_t)lmb_atoi(argv[m->optind]) << 20 : 0;
	status = lmb_open(m);
	if (status)
		return status;
	if (m->optind == argc - 1)
		return mem_rd_stride(m, max_bytes, LAT_MEM_RD_DEFAULT_STRIDE, random_order);
	for (int i = m->optind + 1; i < argc && status == 0; i++) {
		status = mem_rd_stride(m, max_bytes, lmb_bytes(argv[i]), random_order);
		/* With strides given, each curve ends with an empty line. */
		if (status == 0)
			fputc('\n', stderr);
	}
	return status;
}

static int bw_mem_op_known(const char *op)
{
	static const char *const ops[] = { "rd",  "wr",  "rdwr",  "cp",   "fwr",
					   "frd", "fcp", "bzero", "bcopy" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(op, ops[i]) == 0)
			return 1;
	return 0;
}

/**
 * lmb_bw_mem() - bw_mem [-P N] [-W US] [-N N] SIZE OP [conflict]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Prints "MB MB/s" with MB = 10^6 bytes of the buffer. The third operand of
 * the original (align the two buffers of a copy differently) is accepted
 * and has no effect: mem.bw places its buffers itself.
 *
 * Return: the exit status.
 */
int lmb_bw_mem(struct lmb *m, int argc, char **argv)
{
	const embperf_result *r;
	embperf_bench *b;
	uint64_t bytes;
	const char *op;
	int c, status;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>] <size> what [conflict]\n"
		      "what: rd wr rdwr cp fwr frd fcp bzero bcopy\n"
		      "<size> must be larger than 512";
	while ((c = lmb_getopt(m, argc, argv, "P:W:N:")) != -1)
		if (lmb_engine_option(m, c) != 1)
			return lmb_usage(m);
	if (argc - m->optind != 2 && argc - m->optind != 3)
		return lmb_usage(m);
	bytes = lmb_bytes(argv[m->optind]);
	op = argv[m->optind + 1];
	if (bytes < BW_MEM_MIN_BYTES || !bw_mem_op_known(op))
		return lmb_usage(m);
	status = lmb_need_single(m);
	if (!status)
		status = lmb_open(m);
	if (status)
		return status;
	b = lmb_bench(m, "mem.bw");
	if (!b)
		return LMB_EXIT_FAIL;
	if (lmb_set(m, b, "op", "%s", op) < 0 ||
	    lmb_set(m, b, "size", "%llu", (unsigned long long)bytes) < 0)
		status = LMB_EXIT_FAIL;
	if (!status)
		status = lmb_run(m, b);
	if (!status) {
		r = lmb_result(b, "bandwidth", NULL, NULL);
		if (lmb_value(r, "MB/s") > 0)
			lmb_print_mb_pair((double)bytes / 1e6, lmb_value(r, "MB/s"));
		else
			status = lmb_fail(m, "no bandwidth from mem.bw");
	}
	embperf_bench_free(b);
	return status;
}

/**
 * struct stream_row - one of the STREAM loops as lmbench's stream prints it.
 * @metric:        mem.stream metric.
 * @bytes_per_elt: bytes read plus written per array element.
 */
struct stream_row {
	const char *metric;
	int bytes_per_elt;
};

#define STREAM_ROWS 4

/* stream -v 1: STREAM's loops. */
static const struct stream_row stream1_rows[STREAM_ROWS] = {
	{ "copy", 16 },
	{ "scale", 16 },
	{ "add", 24 },
	{ "triad", 24 },
};

/* stream -v 2: STREAM2's loops, in the order lmbench runs and prints them. */
static const struct stream_row stream2_rows[STREAM_ROWS] = {
	{ "fill", 8 },
	{ "copy", 16 },
	{ "daxpy", 24 },
	{ "sum", 8 },
};

/*
 * Print the latency (time per element of one copy) and bandwidth lines of
 * each loop of @version. mem.stream reports the best rate, as lmbench's
 * stream keeps its fastest run; the time per element follows from it.
 */
static int stream_print(struct lmb *m, const embperf_bench *b, long version, int copies)
{
	const struct stream_row *rows = version == 2 ? stream2_rows : stream1_rows;
	const char *prefix = version == 2 ? "STREAM2" : "STREAM";

	for (size_t i = 0; i < STREAM_ROWS; i++) {
		const struct stream_row *row = &rows[i];
		double mbs = lmb_value(lmb_result(b, row->metric, NULL, NULL), "MB/s");

		if (!(mbs > 0))
			return lmb_fail(m, "no %s rate from mem.stream", row->metric);
		/* bytes / (MB/s) is microseconds per element; times 1000 for ns. */
		fprintf(stderr, "%s %s latency: %.2f nanoseconds\n", prefix, row->metric,
			1000.0 * row->bytes_per_elt * copies / mbs);
		fprintf(stderr, "%s %s bandwidth: %.2f MB/sec\n", prefix, row->metric, mbs);
	}
	return 0;
}

/**
 * lmb_stream() - stream [-v 1|2] [-M LEN] [-P N] [-W US] [-N N]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * -M is the bytes of the three arrays together (lmbench's meaning); -P N
 * runs N threads of mem.stream, each on arrays of that size. Version 2 runs
 * mem.stream's STREAM2 loops (fill, copy, daxpy, sum). Copy is a loop of
 * loads and stores in both, as lmbench's stream is built (-O: its copy is
 * one movsd load and store per element, no memcpy() call). Each kernel's
 * passes run back to back (order=kernel), as lmbench times each kernel on
 * its own with benchmp(), where McCalpin's STREAM runs the four in turn.
 *
 * Return: the exit status.
 */
int lmb_stream(struct lmb *m, int argc, char **argv)
{
	uint64_t total_bytes = STREAM_DEFAULT_BYTES, elements;
	embperf_bench *b;
	long version = 1;
	int c, status;

	m->synopsis = "[-v <stream version 1|2>] [-M <len>[K|M]] [-P <parallelism>] [-W <warmup>] [-N <repetitions>]\n";
	while ((c = lmb_getopt(m, argc, argv, "v:M:P:W:N:")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0)
			return lmb_usage(m);
		if (handled)
			continue;
		if (c == 'v') {
			version = lmb_atoi(m->optarg);
			if (version != 1 && version != 2)
				return lmb_usage(m);
		} else if (c == 'M') {
			total_bytes = lmb_bytes(m->optarg);
		} else {
			return lmb_usage(m);
		}
	}
	/* The original ignores extra operands; so does this one. */
	elements = total_bytes / (3 * sizeof(double));
	if (elements == 0)
		return lmb_fail(m, "-M %llu: the three arrays need at least %zu bytes",
				(unsigned long long)total_bytes, 3 * sizeof(double));
	status = lmb_open(m);
	if (status)
		return status;
	b = lmb_bench(m, "mem.stream");
	if (!b)
		return LMB_EXIT_FAIL;
	/* N copies of lmbench's stream each have their arrays: N threads share N times the elements. */
	if (lmb_set(m, b, "size", "%llu", (unsigned long long)elements * (uint64_t)m->parallel) < 0 ||
	    lmb_set(m, b, "threads", "%d", m->parallel) < 0 ||
	    lmb_set(m, b, "copy", "loop") < 0 || lmb_set(m, b, "order", "kernel") < 0 ||
	    lmb_set(m, b, "loops", "%s", version == 2 ? "stream2" : "stream") < 0)
		status = LMB_EXIT_FAIL;
	if (!status)
		status = lmb_run(m, b);
	if (!status)
		status = stream_print(m, b, version, m->parallel);
	embperf_bench_free(b);
	return status;
}
