// SPDX-License-Identifier: MIT
/*
 * fe_fs.c - file and mapping front ends: lat_fs (os.fs), bw_file_rd
 * (os.file_rd), bw_mmap_rd (os.mmap_rd), lat_pagefault (os.pagefault) and
 * lat_mmap (os.mmap).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lmb.h"

/* bw_file_rd and bw_mmap_rd refuse sizes below 128 ints. */
#define FILE_RD_MIN_BYTES (128 * sizeof(int))
/* lat_mmap maps at least twice its stride of ten 16 KiB pages: 320 KiB. */
#define LAT_MMAP_MIN_BYTES (2 * 10 * 16 * 1024)

/* Parse -P/-W/-N and the flags of @spec (-C: ignored, as documented). Return: 0 or usage status. */
static int options_with_flags(struct lmb *m, int argc, char **argv, const char *spec)
{
	int c;

	while ((c = lmb_getopt(m, argc, argv, spec)) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0)
			return lmb_usage(m);
		/* -C (a copy of the file per parallel copy) has no use with one copy. */
		if (!handled && c != 'C')
			return lmb_usage(m);
	}
	return 0;
}

/* Label @key of @r as text into @buf (size 64); "" when missing. */
static const char *label_text(const embperf_result *r, const char *key, char *buf)
{
	if (embperf_result_label(r, key, buf, 64) < 0)
		buf[0] = '\0';
	return buf;
}

/* The result of @metric whose size label reads @size_label, or NULL. */
static const embperf_result *fs_result(const embperf_bench *b, const char *metric,
				       const char *size_label)
{
	return lmb_result(b, metric, "size", size_label);
}

/*
 * lat_fs's lines, one per size, in the order of @sizes: "SIZEk N CREATES/s
 * DELETES/s" with N the files of one timed batch (os.fs's num_files); -1
 * for what is missing, as the original prints when a timing fails.
 */
static void fs_print(const embperf_bench *b, const uint64_t *sizes, int n_sizes)
{
	int n = embperf_bench_result_count(b), line = 0;
	char label[64];

	/* os.fs reports its create results in the order of its size list. */
	for (int i = 0; i < n && line < n_sizes; i++) {
		const embperf_result *r = embperf_bench_result(b, i);
		double created, deleted, files;

		if (strcmp(embperf_result_metric(r), "create") != 0)
			continue;
		label_text(r, "size", label);
		created = lmb_value(r, "");
		deleted = lmb_value(fs_result(b, "delete", label), "");
		files = lmb_value(fs_result(b, "num_files", label), "");
		fprintf(stderr, "%lluk", (unsigned long long)(sizes[line++] >> 10));
		if (created > 0 && files > 0)
			fprintf(stderr, "\t%.0f\t%.0f", files, created);
		else
			fprintf(stderr, "\t-1\t-1");
		if (deleted > 0)
			fprintf(stderr, "\t%.0f\n", deleted);
		else
			fprintf(stderr, "\t-1\n");
	}
}

/* Run os.fs over @sizes in @dir (NULL: its default) and print the lines. */
static int fs_run(struct lmb *m, const uint64_t *sizes, int n_sizes, const char *dir)
{
	char list[256];
	size_t used = 0;
	embperf_bench *b = lmb_bench(m, "os.fs");
	int status = 0;

	if (!b)
		return LMB_EXIT_FAIL;
	for (int i = 0; i < n_sizes; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%llu", i ? "," : "",
					 (unsigned long long)sizes[i]);
	if (lmb_set(m, b, "size", "%s", list) < 0 ||
	    (dir && lmb_set(m, b, "tmpdir", "%s", dir) < 0))
		status = LMB_EXIT_FAIL;
	if (!status)
		status = lmb_run(m, b);
	if (!status)
		fs_print(b, sizes, n_sizes);
	embperf_bench_free(b);
	return status;
}

/**
 * lmb_lat_fs() - lat_fs [-s SIZE] [-n FILES] [-P N] [-W US] [-N N] [DIR]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * One line per file size (0k, 1k, 4k and 10k, or the -s size): size, files
 * of one timed batch, creations per second, deletions per second. -n (files
 * per directory of the original's tree) is accepted and has no effect:
 * os.fs keeps 100 per directory, the original's default.
 *
 * Return: the exit status.
 */
int lmb_lat_fs(struct lmb *m, int argc, char **argv)
{
	static const uint64_t lat_fs_sizes[] = { 0, 1024, 4096, 10 * 1024 };
	uint64_t size = 0;
	const char *dir = NULL;
	int c, status;

	m->synopsis = "[-s <file size>] [-n <max files per dir>] [-P <parallelism>] [-W <warmup>] [-N <repetitions>] [<dir>]\n";
	while ((c = lmb_getopt(m, argc, argv, "s:n:P:W:N:")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0)
			return lmb_usage(m);
		if (handled)
			continue;
		if (c == 's')
			size = lmb_bytes(m->optarg);
		else if (c != 'n')
			return lmb_usage(m);
	}
	if (argc - m->optind > 1)
		return lmb_usage(m);
	if (argc - m->optind == 1)
		dir = argv[m->optind];
	status = lmb_need_single(m);
	if (!status)
		status = lmb_open(m);
	if (status)
		return status;
	/* As the original, -s 0 means the default list. */
	if (size)
		return fs_run(m, &size, 1, dir);
	return fs_run(m, lat_fs_sizes, 4, dir);
}

/*
 * Run a reread kernel on @file and print "MB MB/s" as lmbench's
 * bandwidth(). Return: an exit status.
 */
static int reread_line(struct lmb *m, const char *kernel, uint64_t bytes, const char *mode,
		       const char *file)
{
	embperf_bench *b;
	double mbs;
	int status = lmb_need_single(m);

	if (!status)
		status = lmb_open(m);
	if (status)
		return status;
	b = lmb_bench(m, kernel);
	if (!b)
		return LMB_EXIT_FAIL;
	if (lmb_set(m, b, "size", "%llu", (unsigned long long)bytes) < 0 ||
	    lmb_set(m, b, "mode", "%s", mode) < 0 || lmb_set(m, b, "file", "%s", file) < 0)
		status = LMB_EXIT_FAIL;
	if (!status)
		status = lmb_run(m, b);
	if (!status) {
		mbs = lmb_value(lmb_result(b, "bandwidth", NULL, NULL), "MB/s");
		if (mbs > 0)
			lmb_print_mb_pair((double)bytes / 1e6, mbs);
		else
			status = lmb_fail(m, "no bandwidth from %s", kernel);
	}
	embperf_bench_free(b);
	return status;
}

/**
 * lmb_bw_file_rd() - bw_file_rd [-C] [-P N] [-W US] [-N N] SIZE open2close|io_only FILE
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_bw_file_rd(struct lmb *m, int argc, char **argv)
{
	uint64_t bytes;
	const char *mode;
	int status;

	m->synopsis = "[-C] [-P <parallelism>] [-W <warmup>] [-N <repetitions>] <size> open2close|io_only <filename>\n"
		      "min size=64\n";
	status = options_with_flags(m, argc, argv, "P:W:N:C");
	if (status)
		return status;
	if (argc - m->optind != 3)
		return lmb_usage(m);
	bytes = lmb_bytes(argv[m->optind]);
	/* The original exits 1 without a word for a size below its minimum. */
	if (bytes < FILE_RD_MIN_BYTES)
		return LMB_EXIT_FAIL;
	mode = argv[m->optind + 1];
	if (strcmp(mode, "open2close") == 0)
		mode = "o2c";
	else if (strcmp(mode, "io_only") == 0)
		mode = "io";
	else
		return lmb_usage(m);
	return reread_line(m, "os.file_rd", bytes, mode, argv[m->optind + 2]);
}

/**
 * lmb_bw_mmap_rd() - bw_mmap_rd [-C] [-P N] [-W US] [-N N] SIZE open2close|mmap_only FILE
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_bw_mmap_rd(struct lmb *m, int argc, char **argv)
{
	struct stat st;
	uint64_t bytes;
	const char *mode, *file;
	int status;

	m->synopsis = "[-C] [-P <parallelism>] [-W <warmup>] [-N <repetitions>] <size> open2close|mmap_only <filename>";
	status = options_with_flags(m, argc, argv, "P:W:N:C");
	if (status)
		return status;
	if (argc - m->optind != 3)
		return lmb_usage(m);
	bytes = lmb_bytes(argv[m->optind]);
	file = argv[m->optind + 2];
	if (stat(file, &st) < 0)
		return lmb_fail(m, "%s: %s", file, strerror(errno));
	if ((S_ISREG(st.st_mode) && bytes > (uint64_t)st.st_size) || bytes < FILE_RD_MIN_BYTES) {
		fprintf(stderr, "<size> out of range!\n");
		return LMB_EXIT_FAIL;
	}
	mode = argv[m->optind + 1];
	if (strcmp(mode, "open2close") == 0)
		mode = "o2c";
	else if (strcmp(mode, "mmap_only") == 0)
		mode = "mo";
	else
		return lmb_usage(m);
	return reread_line(m, "os.mmap_rd", bytes, mode, file);
}

/**
 * lmb_lat_pagefault() - lat_pagefault [-C] [-P N] [-W US] [-N N] FILE
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_lat_pagefault(struct lmb *m, int argc, char **argv)
{
	char label[4200], file_param[4200], size_param[64];
	const char *params[3] = { NULL, NULL, NULL };
	struct stat st;
	const char *file;
	int status;

	m->synopsis = "[-C] [-P <parallel>] [-W <warmup>] [-N <repetitions>] file\n";
	status = options_with_flags(m, argc, argv, "P:W:N:C");
	if (status)
		return status;
	if (argc - m->optind != 1)
		return lmb_usage(m);
	file = argv[m->optind];
	if (stat(file, &st) < 0)
		return lmb_fail(m, "%s: %s", file, strerror(errno));
	/* The original faults in the whole file: map all of it. */
	snprintf(file_param, sizeof(file_param), "file=%s", file);
	snprintf(size_param, sizeof(size_param), "size=%llu", (unsigned long long)st.st_size);
	params[0] = file_param;
	params[1] = size_param;
	snprintf(label, sizeof(label), "Pagefaults on %s", file);
	return lmb_one(m, "os.pagefault", params, label);
}

/**
 * lmb_lat_mmap() - lat_mmap [-r] [-C] [-P N] [-W US] [-N N] SIZE FILE
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Prints "MB US" as the original: microseconds with no decimals from 10 up.
 *
 * Return: the exit status.
 */
int lmb_lat_mmap(struct lmb *m, int argc, char **argv)
{
	embperf_bench *b;
	uint64_t bytes;
	const char *file;
	double us;
	int c, status, whole = 0;

	m->synopsis = "[-r] [-C] [-P <parallelism>] [-W <warmup>] [-N <repetitions>] size file\n";
	while ((c = lmb_getopt(m, argc, argv, "rP:W:N:C")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0 || (!handled && c != 'r' && c != 'C'))
			return lmb_usage(m);
		/* -r: the original touches the whole mapping instead of its first tenth. */
		if (c == 'r')
			whole = 1;
	}
	if (argc - m->optind != 2)
		return lmb_usage(m);
	bytes = lmb_bytes(argv[m->optind]);
	/* The original exits 1 without a word for a size below its minimum. */
	if (bytes < LAT_MMAP_MIN_BYTES)
		return LMB_EXIT_FAIL;
	file = argv[m->optind + 1];
	status = lmb_need_single(m);
	if (!status)
		status = lmb_open(m);
	if (status)
		return status;
	b = lmb_bench(m, "os.mmap");
	if (!b)
		return LMB_EXIT_FAIL;
	if (lmb_set(m, b, "size", "%llu", (unsigned long long)bytes) < 0 ||
	    lmb_set(m, b, "file", "%s", file) < 0 ||
	    (whole && lmb_set(m, b, "touch", "whole") < 0))
		status = LMB_EXIT_FAIL;
	if (!status)
		status = lmb_run(m, b);
	if (!status) {
		us = lmb_value(lmb_result(b, "latency", NULL, NULL), "us");
		if (!(us > 0))
			status = lmb_fail(m, "no latency from os.mmap");
		else
			fprintf(stderr, us >= 10 ? "%.6f %.0f\n" : "%.6f %.3f\n",
				(double)bytes / 1e6, us);
	}
	embperf_bench_free(b);
	return status;
}
