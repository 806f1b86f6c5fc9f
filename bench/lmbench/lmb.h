/* SPDX-License-Identifier: MIT */
/*
 * lmb.h - what the lmbench-compatible front ends share.
 *
 * One program, installed under the names of lmbench's benchmarks (lat_mem_rd,
 * bw_mem, lat_syscall, ...), reads the command line the way the lmbench
 * program of that name does, runs the matching libembperf kernel, and prints
 * the result in that program's output layout, so that scripts written for
 * lmbench parse it unchanged. Nothing is measured here: every figure comes
 * from the library, through its public API only.
 *
 * Conventions the originals share and the front ends keep:
 *   - results go to stderr (mhz alone prints on stdout);
 *   - a bad option or operand prints "Usage: PROGRAM SYNOPSIS" on stderr and
 *     exits with status 255 (lmbench calls exit(-1));
 *   - options come before the operands and are never permuted; an option's
 *     value may be glued to it (-N5) or be the next word, which may not
 *     start with '-'.
 */
#ifndef EMBPERF_LMB_H
#define EMBPERF_LMB_H

#include <stddef.h>
#include <stdint.h>

#include "embperf.h"

/* Exit status of a usage error: lmbench's exit(-1). */
#define LMB_EXIT_USAGE 255
/* Exit status of a failed measurement (a kernel error, a missing kernel). */
#define LMB_EXIT_FAIL 1
/* Exit status after SIGINT or SIGTERM cancelled the run. */
#define LMB_EXIT_CANCELLED 130

/**
 * struct lmb - one invocation of a front end.
 * @argv0:       the program as invoked, for the usage line.
 * @name:        the front end's name (basename of argv[0]).
 * @synopsis:    what follows the program name in the usage line.
 * @ctx:         the library session; created by lmb_open().
 * @optind:      next argument lmb_getopt() looks at.
 * @optarg:      value of the option lmb_getopt() returned last.
 * @optpos:      position inside a word of bundled flags ("-rC").
 * @parallel:    -P value (1 when not given).
 * @warmup_us:   -W value in microseconds; -1 when not given.
 * @repetitions: -N value; -1 when not given.
 */
struct lmb {
	const char *argv0;
	const char *name;
	const char *synopsis;
	embperf_ctx *ctx;
	int optind;
	const char *optarg;
	int optpos;
	int parallel;
	long warmup_us;
	long repetitions;
};

/**
 * typedef lmb_main_fn - a front end's main.
 * @m:    the invocation (name, synopsis to fill in, options state).
 * @argc: argument count, argv[0] included.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
typedef int (*lmb_main_fn)(struct lmb *m, int argc, char **argv);

/* The front ends, one per lmbench program (fe_*.c). */
int lmb_lat_mem_rd(struct lmb *m, int argc, char **argv);
int lmb_bw_mem(struct lmb *m, int argc, char **argv);
int lmb_stream(struct lmb *m, int argc, char **argv);
int lmb_lat_ops(struct lmb *m, int argc, char **argv);
int lmb_par_ops(struct lmb *m, int argc, char **argv);
int lmb_mhz(struct lmb *m, int argc, char **argv);
int lmb_lat_ctx(struct lmb *m, int argc, char **argv);
int lmb_lat_syscall(struct lmb *m, int argc, char **argv);
int lmb_lat_sig(struct lmb *m, int argc, char **argv);
int lmb_lat_proc(struct lmb *m, int argc, char **argv);
int lmb_lat_sem(struct lmb *m, int argc, char **argv);
int lmb_lat_pagefault(struct lmb *m, int argc, char **argv);
int lmb_lat_mmap(struct lmb *m, int argc, char **argv);
int lmb_lat_pipe(struct lmb *m, int argc, char **argv);
int lmb_lat_unix(struct lmb *m, int argc, char **argv);
int lmb_lat_tcp(struct lmb *m, int argc, char **argv);
int lmb_lat_udp(struct lmb *m, int argc, char **argv);
int lmb_lat_connect(struct lmb *m, int argc, char **argv);
int lmb_lat_select(struct lmb *m, int argc, char **argv);
int lmb_bw_pipe(struct lmb *m, int argc, char **argv);
int lmb_bw_unix(struct lmb *m, int argc, char **argv);
int lmb_lat_fs(struct lmb *m, int argc, char **argv);
int lmb_bw_file_rd(struct lmb *m, int argc, char **argv);
int lmb_bw_mmap_rd(struct lmb *m, int argc, char **argv);
int lmb_lat_usleep(struct lmb *m, int argc, char **argv);
int lmb_line(struct lmb *m, int argc, char **argv);
int lmb_par_mem(struct lmb *m, int argc, char **argv);
int lmb_lat_fcntl(struct lmb *m, int argc, char **argv);
int lmb_lat_cmd(struct lmb *m, int argc, char **argv);
int lmb_lmdd(struct lmb *m, int argc, char **argv);

/* Command line (lmb_common.c). */

/**
 * lmb_getopt() - next option, parsed as lmbench's own getopt does.
 * @m:    invocation; m->optind starts at 1.
 * @argc: argument count.
 * @argv: arguments.
 * @spec: option letters, a letter followed by ':' takes a value.
 *
 * Stops at the first word that does not start with '-' (or is "-" alone);
 * never prints anything.
 *
 * Return: the option letter (m->optarg holds its value), '?' for an unknown
 * letter or a missing value, -1 at the end of the options.
 */
int lmb_getopt(struct lmb *m, int argc, char **argv, const char *spec);

/**
 * lmb_engine_option() - handle the -P, -W and -N options every original has.
 * @m:   invocation.
 * @opt: the option letter lmb_getopt() returned.
 *
 * Return: 1 when @opt was one of them and its value is valid, 0 when @opt is
 * another letter, -1 when the value is bad (the caller prints the usage).
 */
int lmb_engine_option(struct lmb *m, int opt);

/**
 * lmb_usage() - print "Usage: PROGRAM SYNOPSIS" on stderr.
 * @m: invocation.
 *
 * Return: LMB_EXIT_USAGE, for `return lmb_usage(m);`.
 */
int lmb_usage(struct lmb *m);

/**
 * lmb_bytes() - a size as lmbench's bytes() reads it.
 * @text: digits; when the word's last character is k or K, times 1024;
 *        m or M, times 2^20 (lmbench3 reads both cases as binary and knows
 *        no other suffix).
 *
 * Return: the number of bytes; 0 when @text does not start with a digit.
 */
uint64_t lmb_bytes(const char *text);

/**
 * lmb_atoi() - an integer as C's atoi() reads it (0 when not a number),
 * without its undefined behaviour on overflow (the value saturates).
 * @text: the text.
 *
 * Return: the value.
 */
long lmb_atoi(const char *text);

/**
 * lmb_need_single() - refuse -P N with N > 1 for a kernel without copies.
 * @m: invocation.
 *
 * The library runs one instance of a kernel; lmbench's -P forks N copies and
 * adds their rates. Rather than print a figure that means something else,
 * the front end says so and fails.
 *
 * Return: 0 when -P is 1, LMB_EXIT_FAIL after printing why otherwise.
 */
int lmb_need_single(struct lmb *m);

/* Measuring (lmb_common.c). */

/**
 * lmb_open() - create the library session and the SIGINT/SIGTERM handlers
 * that cancel it. Return: 0, or LMB_EXIT_FAIL after printing why.
 */
int lmb_open(struct lmb *m);

/** lmb_close() - restore the signal handlers and free the session. */
void lmb_close(struct lmb *m);

/**
 * lmb_bench() - a bench of @kernel with the -W/-N options applied.
 * @m:      invocation, opened.
 * @kernel: kernel name.
 *
 * Return: the bench, or NULL after printing "PROGRAM: kernel KERNEL not
 * available ..." (or the library's message).
 */
embperf_bench *lmb_bench(struct lmb *m, const char *kernel);

/**
 * lmb_has_param() - tell whether @kernel accepts the parameter @key.
 * Return: 1 or 0.
 */
int lmb_has_param(const char *kernel, const char *key);

/**
 * lmb_set() - set a kernel parameter from a printf format.
 * @m:   invocation.
 * @b:   bench.
 * @key: parameter name.
 * @fmt: format of the value.
 *
 * Return: 0, or -1 after printing the library's message.
 */
int lmb_set(struct lmb *m, embperf_bench *b, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * lmb_run() - run a bench.
 * @m: invocation.
 * @b: bench.
 *
 * Return: 0 (a run the budget cut short counts as done); LMB_EXIT_CANCELLED
 * when a signal cancelled it; LMB_EXIT_FAIL after printing the library's
 * message.
 */
int lmb_run(struct lmb *m, embperf_bench *b);

/**
 * lmb_run_status() - lmb_run() for a run already made.
 * @m:   invocation.
 * @b:   bench.
 * @err: what embperf_bench_run(@b) returned.
 *
 * Return: as lmb_run() (and prints the same message on failure).
 */
int lmb_run_status(struct lmb *m, embperf_bench *b, int err);

/**
 * lmb_result() - the first result of @b's last run with metric @metric and
 * the label @key=@value.
 * @b:      bench.
 * @metric: metric name.
 * @key:    label name, or NULL for the first result of the metric.
 * @value:  label value.
 *
 * Return: the result, or NULL.
 */
const embperf_result *lmb_result(const embperf_bench *b, const char *metric, const char *key,
				 const char *value);

/**
 * lmb_duration_us() - a duration in the engine's canonical text ("5ms",
 * "250us", a bare number of ns) in microseconds.
 * @text: the text.
 *
 * Return: microseconds, or -1 when @text is not a duration.
 */
double lmb_duration_us(const char *text);

/**
 * lmb_value() - a result's value (its primary statistic) in @unit.
 * @r:    result, or NULL.
 * @unit: "ns", "us", "MB/s", or "" to take the value as it is.
 *
 * Times convert between ns, us, ms and s.
 *
 * Return: the value; NaN for NULL, no sample, or a unit that does not convert.
 */
double lmb_value(const embperf_result *r, const char *unit);

/**
 * lmb_label_bytes() - a size label of @r ("size=1212k") in bytes.
 * @r:   result.
 * @key: label name.
 *
 * Return: the bytes, or 0 when the label is missing or not a size.
 */
uint64_t lmb_label_bytes(const embperf_result *r, const char *key);

/**
 * lmb_fail() - print "PROGRAM: MESSAGE" on stderr.
 * @m:   invocation.
 * @fmt: message format.
 *
 * Return: LMB_EXIT_FAIL.
 */
int lmb_fail(struct lmb *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * lmb_micro() - print "LABEL: X.XXXX microseconds" on stderr, as lmbench's
 * micro() does, for a result in microseconds.
 * @m:     invocation.
 * @label: what was measured.
 * @r:     the result.
 *
 * Return: 0, or LMB_EXIT_FAIL after printing why there is no value.
 */
int lmb_micro(struct lmb *m, const char *label, const embperf_result *r);

/**
 * lmb_print_mb_pair() - print "SIZE RATE" as lmbench's bandwidth() does:
 * each number with 2 decimals, or 6 when below 1.
 * @mb:      the size in MB (10^6 bytes).
 * @rate_mb: MB/s.
 */
void lmb_print_mb_pair(double mb, double rate_mb);

/**
 * lmb_one() - the common shape of the simplest front ends: run @kernel with
 * the given parameters and print the "LABEL: X microseconds" line of its
 * "latency" metric.
 * @m:      invocation, parsed.
 * @kernel: kernel name.
 * @params: NULL-terminated "key=value" list, or NULL.
 * @label:  the lmbench label.
 *
 * Return: the exit status.
 */
int lmb_one(struct lmb *m, const char *kernel, const char *const *params, const char *label);

#endif /* EMBPERF_LMB_H */
