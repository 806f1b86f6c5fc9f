// SPDX-License-Identifier: MIT
/*
 * fe_extra.c - front ends of the lmbench programs that vendor scripts run
 * beyond the TI table (the Xilinx guide's full run): lat_usleep (os.sleep),
 * line (os.cacheline) and par_mem (mem.par).
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lmb.h"

/* lat_usleep's -u methods that os.sleep measures, by the original's name. */
static const char *const sleep_methods[] = { "usleep", "nanosleep", "select", "itimer" };

/* The original's -r: SCHED_FIFO at the highest priority. Return: 1 when set. */
static int set_realtime(void)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };

	return sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
}

/*
 * Which of sleep_methods @name is; -1 for a name the original refuses.
 * pselect is refused too: lmbench3 compiles it in only where the C library
 * defines _POSIX_SELECT, which glibc does not, so on Linux
 * `lat_usleep -u pselect` prints the usage line and exits 255.
 */
static int sleep_method(const char *name)
{
	for (size_t i = 0; i < sizeof(sleep_methods) / sizeof(sleep_methods[0]); i++)
		if (strcmp(name, sleep_methods[i]) == 0)
			return (int)i;
	return -1;
}

/**
 * lmb_lat_usleep() - lat_usleep [-r] [-u METHOD] [-W US] [-N N] USECS
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Prints "[realtime ]METHOD USECS microseconds: X microseconds" on stderr:
 * the time one sleep of USECS really takes. As in the original, -P is in
 * the usage line but refused; so is pselect, as in lmbench3 built on Linux.
 *
 * Return: the exit status.
 */
int lmb_lat_usleep(struct lmb *m, int argc, char **argv)
{
	char label[96], interval[32];
	const char *params[3] = { NULL, interval, NULL };
	char op[32];
	int c, method = 0, realtime = 0;
	uint64_t usecs;

	m->synopsis = "[-r] [-u <method>] [-P <parallelism>] [-W <warmup>] [-N <repetitions>] "
		      "usecs\nmethod=usleep|nanosleep|select|pselect|itimer\n";
	while ((c = lmb_getopt(m, argc, argv, "ru:W:N:")) != -1) {
		if (c == 'r') {
			realtime = 1;
		} else if (c == 'u') {
			method = sleep_method(m->optarg);
			if (method < 0)
				return lmb_usage(m);
		} else if (lmb_engine_option(m, c) != 1) {
			return lmb_usage(m);
		}
	}
	if (m->optind != argc - 1)
		return lmb_usage(m);
	usecs = lmb_bytes(argv[m->optind]);
	snprintf(op, sizeof(op), "op=%s", sleep_methods[method]);
	params[0] = op;
	snprintf(interval, sizeof(interval), "interval=%lluus", (unsigned long long)usecs);
	snprintf(label, sizeof(label), "%s%s %llu microseconds",
		 realtime && set_realtime() ? "realtime " : "", sleep_methods[method],
		 (unsigned long long)usecs);
	return lmb_one(m, "os.sleep", params, label);
}

/* Open, run @b and keep it; on failure free it. Return: the exit status. */
static int run_kept(struct lmb *m, embperf_bench *b)
{
	int status = lmb_run(m, b);

	if (status)
		embperf_bench_free(b);
	return status;
}

/* -v without a line size: "not found here" and the curve, on stderr, as the
 * kernel's warning gives them (stdout stays empty, as the original's). */
static void print_line_not_found(const embperf_bench *b)
{
	const char *sep = "";

	fprintf(stderr, "cache line size: not found here: no jump then plateau in the time per "
			"load by stride (");
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (strcmp(embperf_result_metric(r), "latency"))
			continue;
		fprintf(stderr, "%s%llu B %.1f ns", sep,
			(unsigned long long)lmb_label_bytes(r, "stride"), lmb_value(r, "ns"));
		sep = ", ";
	}
	fprintf(stderr, ")\n");
}

/**
 * lmb_line() - line [-v] [-W US] [-N N] [-M LEN]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Prints the cache line size in bytes on stdout ("N", or with -v "cache
 * line size: N bytes"); nothing when none was found, as the original, and
 * with -v then "not found here" with the curve on stderr.
 *
 * Return: the exit status.
 */
int lmb_line(struct lmb *m, int argc, char **argv)
{
	embperf_bench *b;
	int c, verbose = 0, status;
	uint64_t max_bytes = 0;
	double line_bytes;

	m->synopsis = "[-v] [-W <warmup>] [-N <repetitions>][-M len[K|M]]\n";
	while ((c = lmb_getopt(m, argc, argv, "vM:W:N:")) != -1) {
		if (c == 'v')
			verbose = 1;
		else if (c == 'M')
			max_bytes = lmb_bytes(m->optarg);
		else if (lmb_engine_option(m, c) != 1)
			return lmb_usage(m);
	}
	status = lmb_open(m);
	if (status)
		return status;
	b = lmb_bench(m, "os.cacheline");
	if (!b)
		return LMB_EXIT_FAIL;
	if (max_bytes && lmb_set(m, b, "size", "%llu", (unsigned long long)max_bytes) < 0) {
		embperf_bench_free(b);
		return LMB_EXIT_FAIL;
	}
	status = run_kept(m, b);
	if (status)
		return status;
	line_bytes = lmb_value(lmb_result(b, "line_size", NULL, NULL), "");
	if (line_bytes > 0) {
		if (verbose)
			printf("cache line size: %.0f bytes\n", line_bytes);
		else
			printf("%.0f\n", line_bytes);
	} else if (verbose) {
		print_line_not_found(b);
	}
	embperf_bench_free(b);
	return 0;
}

/* Print par_mem's "MB PARALLELISM" for every size of @b's run, in order. */
static void print_parallelism(const embperf_bench *b)
{
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);
		double par;

		if (strcmp(embperf_result_metric(r), "parallelism"))
			continue;
		par = lmb_value(r, "");
		if (par > 0)
			fprintf(stderr, "%.6f %.2f\n", (double)lmb_label_bytes(r, "size") / 1e6, par);
	}
}

/**
 * lmb_par_mem() - par_mem [-c] [-L LINE] [-M LEN] [-W US] [-N N]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Prints "MB PARALLELISM" on stderr for sizes doubling from 16 lines to
 * LEN (default 64 MB, 2^20 bytes each), MB being 10^6 bytes as in the
 * original. -c is accepted and, as in the original, changes nothing.
 * Sizes below a page (-L under page / 16) are measured too, as mem.par
 * measures them: 16 lines or more of one page.
 *
 * Return: the exit status.
 */
int lmb_par_mem(struct lmb *m, int argc, char **argv)
{
	uint64_t line_bytes = (uint64_t)getpagesize() / 16, max_bytes = 64ULL << 20, first_bytes;
	embperf_bench *b;
	int c, status;

	m->synopsis = "[-c] [-L <line size>] [-M len[K|M]] [-W <warmup>] [-N <repetitions>]\n";
	while ((c = lmb_getopt(m, argc, argv, "cL:M:W:N:")) != -1) {
		if (c == 'c') {
			continue;
		} else if (c == 'L') {
			long l = lmb_atoi(m->optarg);

			line_bytes = l < (long)sizeof(char *) ? sizeof(char *) : (uint64_t)l;
		} else if (c == 'M') {
			max_bytes = lmb_bytes(m->optarg);
		} else if (lmb_engine_option(m, c) != 1) {
			return lmb_usage(m);
		}
	}
	if (m->optind != argc)
		return lmb_usage(m);
	/* The original's first size is 16 lines, then it doubles while within
	 * -M; with none to measure, it prints nothing. */
	first_bytes = 16 * line_bytes;
	if (max_bytes < first_bytes)
		return 0;
	status = lmb_open(m);
	if (status)
		return status;
	b = lmb_bench(m, "mem.par");
	if (!b)
		return LMB_EXIT_FAIL;
	if (lmb_set(m, b, "line", "%llu", (unsigned long long)line_bytes) < 0 ||
	    lmb_set(m, b, "size", "%llu..%llu", (unsigned long long)first_bytes,
		    (unsigned long long)max_bytes) < 0) {
		embperf_bench_free(b);
		return LMB_EXIT_FAIL;
	}
	status = run_kept(m, b);
	if (status)
		return status;
	print_parallelism(b);
	embperf_bench_free(b);
	return 0;
}
