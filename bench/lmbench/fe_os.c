// SPDX-License-Identifier: MIT
/*
 * fe_os.c - process, system call and signal front ends: lat_ctx (os.ctx),
 * lat_syscall (os.syscall), lat_sig (os.signal), lat_proc (os.proc),
 * lat_sem (os.sem), lat_fcntl (os.fcntl), lat_cmd (os.proc op=cmd).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lmb.h"

/* Parse the -P/-W/-N options of a front end that has no other. Return: 0 or usage status. */
static int engine_options_only(struct lmb *m, int argc, char **argv)
{
	int c;

	while ((c = lmb_getopt(m, argc, argv, "P:W:N:")) != -1)
		if (lmb_engine_option(m, c) != 1)
			return lmb_usage(m);
	return 0;
}

/**
 * struct ctx_point - lat_ctx's figure for one process count.
 * @procs:     processes in the ring.
 * @switch_us: time of one switch, overhead subtracted.
 * @ovr_us:    the overhead os.ctx subtracted (pipe transfer and summing).
 */
struct ctx_point {
	long procs;
	double switch_us;
	double ovr_us;
};

/* Run os.ctx for one ring. Return: an exit status. */
static int ctx_measure(struct lmb *m, long size_bytes, struct ctx_point *pt)
{
	embperf_bench *b = lmb_bench(m, "os.ctx");
	const embperf_result *r;
	double ovr_ns = NAN;
	int status = 0;

	if (!b)
		return LMB_EXIT_FAIL;
	if (lmb_set(m, b, "procs", "%ld", pt->procs) < 0 ||
	    lmb_set(m, b, "size", "%ld", size_bytes) < 0)
		status = LMB_EXIT_FAIL;
	if (!status)
		status = lmb_run(m, b);
	if (!status) {
		r = lmb_result(b, "latency", NULL, NULL);
		pt->switch_us = lmb_value(r, "us");
		/* The per-hop overhead the engine subtracted (pipe transfer and
		 * sum in one process): lat_ctx's "ovr=". */
		if (r && embperf_result_counter(r, "overhead_ns", &ovr_ns) < 0)
			ovr_ns = NAN;
		pt->ovr_us = ovr_ns / 1000.0;
	}
	embperf_bench_free(b);
	return status;
}

/**
 * lmb_lat_ctx() - lat_ctx [-P N] [-W US] [-N N] [-s KB] PROCS [PROCS...]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Prints an empty line, "size=Kk ovr=O (O: the overhead os.ctx subtracted
 * for the largest ring, in microseconds, as the original measures it once
 * for the largest), then "PROCS US" per ring.
 *
 * Return: the exit status.
 */
int lmb_lat_ctx(struct lmb *m, int argc, char **argv)
{
	struct ctx_point *points;
	long size_kb = 0;
	int c, n, status = 0, largest = 0;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>] [-s kbytes] processes [processes ...]\n";
	while ((c = lmb_getopt(m, argc, argv, "s:P:W:N:")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0)
			return lmb_usage(m);
		if (handled)
			continue;
		if (c != 's')
			return lmb_usage(m);
		size_kb = lmb_atoi(m->optarg);
	}
	if (m->optind >= argc)
		return lmb_usage(m);
	status = lmb_need_single(m);
	if (status)
		return status;
	n = argc - m->optind;
	points = calloc((size_t)n, sizeof(*points));
	if (!points)
		return lmb_fail(m, "out of memory");
	status = lmb_open(m);
	for (int i = 0; i < n && !status; i++) {
		points[i].procs = lmb_atoi(argv[m->optind + i]);
		status = ctx_measure(m, size_kb * 1024, &points[i]);
		if (points[i].procs > points[largest].procs)
			largest = i;
	}
	if (!status) {
		fprintf(stderr, "\n\"size=%ldk ovr=%.2f\n", size_kb,
			isnan(points[largest].ovr_us) ? 0.0 : points[largest].ovr_us);
		for (int i = 0; i < n; i++)
			if (points[i].switch_us > 0)
				fprintf(stderr, "%ld %.2f\n", points[i].procs, points[i].switch_us);
	}
	free(points);
	return status;
}

/**
 * struct syscall_row - one operation of lat_syscall.
 * @op:        lat_syscall's operand and os.syscall's "op".
 * @label:     the line the original prints.
 * @uses_file: the operation works on the file operand.
 */
struct syscall_row {
	const char *op;
	const char *label;
	int uses_file;
};

static const struct syscall_row syscall_rows[] = {
	{ "null", "Simple syscall", 0 }, { "read", "Simple read", 0 },
	{ "write", "Simple write", 0 },  { "stat", "Simple stat", 1 },
	{ "fstat", "Simple fstat", 1 },  { "open", "Simple open/close", 1 },
};

/**
 * lmb_lat_syscall() - lat_syscall [-P N] [-W US] [-N N] null|read|write|stat|fstat|open [FILE]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Without FILE, os.syscall uses its own temporary file where the original
 * used /usr/include/sys/types.h; read and write use /dev/zero and /dev/null
 * as the original, whatever FILE says.
 *
 * Return: the exit status.
 */
int lmb_lat_syscall(struct lmb *m, int argc, char **argv)
{
	char op_param[64], file_param[4096];
	const char *params[3] = { op_param, NULL, NULL };
	int status;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>] null|read|write|stat|fstat|open [file]\n";
	status = engine_options_only(m, argc, argv);
	if (status)
		return status;
	if (argc - m->optind != 1 && argc - m->optind != 2)
		return lmb_usage(m);
	for (size_t i = 0; i < sizeof(syscall_rows) / sizeof(syscall_rows[0]); i++) {
		const struct syscall_row *row = &syscall_rows[i];

		if (strcmp(argv[m->optind], row->op) != 0)
			continue;
		snprintf(op_param, sizeof(op_param), "op=%s", row->op);
		if (row->uses_file && argc - m->optind == 2) {
			snprintf(file_param, sizeof(file_param), "file=%s", argv[m->optind + 1]);
			params[1] = file_param;
		}
		return lmb_one(m, "os.syscall", params, row->label);
	}
	return lmb_usage(m);
}

/**
 * lmb_lat_sig() - lat_sig [-P N] [-W US] [-N N] install|catch|prot [FILE]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * prot needs FILE, as in the original; os.signal is given it when the
 * kernel takes a file, otherwise it faults on a mapping of its own.
 *
 * Return: the exit status.
 */
int lmb_lat_sig(struct lmb *m, int argc, char **argv)
{
	char file_param[4096];
	const char *params[3] = { NULL, NULL, NULL };
	const char *op;
	int status, operands;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>] install|catch|prot [file]\n";
	status = engine_options_only(m, argc, argv);
	if (status)
		return status;
	operands = argc - m->optind;
	if (operands != 1 && operands != 2)
		return lmb_usage(m);
	op = argv[m->optind];
	if (strcmp(op, "install") == 0) {
		params[0] = "op=install";
		return lmb_one(m, "os.signal", params, "Signal handler installation");
	}
	if (strcmp(op, "catch") == 0) {
		params[0] = "op=catch";
		return lmb_one(m, "os.signal", params, "Signal handler overhead");
	}
	if (strcmp(op, "prot") != 0 || operands != 2)
		return lmb_usage(m);
	params[0] = "op=prot";
	if (lmb_has_param("os.signal", "file")) {
		snprintf(file_param, sizeof(file_param), "file=%s", argv[m->optind + 1]);
		params[1] = file_param;
	}
	return lmb_one(m, "os.signal", params, "Protection fault");
}

/**
 * lmb_lat_proc() - lat_proc [-P N] [-W US] [-N N] procedure|fork|exec|shell
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * os.proc execs embperf-hello, installed with the library, where the
 * original execs /tmp/hello, which the user had to copy there; the
 * environment variable EMBPERF_HELLO names another program.
 *
 * Return: the exit status.
 */
int lmb_lat_proc(struct lmb *m, int argc, char **argv)
{
	static const struct {
		const char *what, *param, *label;
	} rows[] = {
		{ "procedure", "op=proccall", "Procedure call" },
		{ "fork", "op=fork", "Process fork+exit" },
		{ "exec", "op=exec", "Process fork+execve" },
		{ "shell", "op=sh", "Process fork+/bin/sh -c" },
	};
	const char *params[3] = { NULL, NULL, NULL };
	const char *hello = getenv("EMBPERF_HELLO");
	char exec_param[4200];
	int status;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>] procedure|fork|exec|shell\n";
	status = engine_options_only(m, argc, argv);
	if (status)
		return status;
	if (argc - m->optind != 1)
		return lmb_usage(m);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (strcmp(argv[m->optind], rows[i].what) != 0)
			continue;
		params[0] = rows[i].param;
		/* $EMBPERF_HELLO: another program to exec than os.proc's default. */
		if (hello && hello[0]) {
			snprintf(exec_param, sizeof(exec_param), "exec_path=%s", hello);
			params[1] = exec_param;
		}
		return lmb_one(m, "os.proc", params, rows[i].label);
	}
	return lmb_usage(m);
}

/**
 * lmb_lat_sem() - lat_sem [-P N] [-W US] [-N N]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_lat_sem(struct lmb *m, int argc, char **argv)
{
	int status;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>]\n";
	status = engine_options_only(m, argc, argv);
	if (status)
		return status;
	if (m->optind < argc)
		return lmb_usage(m);
	return lmb_one(m, "os.sem", NULL, "Semaphore latency");
}

/**
 * lmb_lat_fcntl() - lat_fcntl [-P N] [-W US] [-N N]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Operands after the options are ignored, as the original ignores them.
 *
 * Return: the exit status.
 */
int lmb_lat_fcntl(struct lmb *m, int argc, char **argv)
{
	int status;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>]\n";
	status = engine_options_only(m, argc, argv);
	if (status)
		return status;
	return lmb_one(m, "os.fcntl", NULL, "Fcntl lock latency");
}

/**
 * lmb_lat_cmd() - lat_cmd [-P N] [-W US] [-N N] cmdline...
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * The operands are the command and its arguments, as lat_cmd execvp()s
 * them; os.proc takes them as one line split at blanks, so an operand with
 * a blank in it is refused rather than split differently.
 *
 * Return: the exit status.
 */
int lmb_lat_cmd(struct lmb *m, int argc, char **argv)
{
	const char *params[3] = { "op=cmd", NULL, NULL };
	char cmd_param[8192] = "cmd=";
	size_t used = strlen(cmd_param);
	int status;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>] cmdline...\n";
	status = engine_options_only(m, argc, argv);
	if (status)
		return status;
	if (m->optind >= argc)
		return lmb_usage(m);
	for (int i = m->optind; i < argc; i++) {
		size_t len = strlen(argv[i]);

		if (!len || argv[i][strcspn(argv[i], " \t\n")])
			return lmb_fail(m, "operand '%s': an empty word or one with a blank cannot "
					"be passed on (os.proc splits its 'cmd' at blanks); wrap "
					"the command in a script", argv[i]);
		if (used + len + 2 > sizeof(cmd_param))
			return lmb_fail(m, "the command line is longer than %zu bytes",
					sizeof(cmd_param) - 6);
		used += (size_t)snprintf(cmd_param + used, sizeof(cmd_param) - used, "%s%s",
					 i > m->optind ? " " : "", argv[i]);
	}
	params[1] = cmd_param;
	return lmb_one(m, "os.proc", params, "lat_cmd");
}
