// SPDX-License-Identifier: MIT
/*
 * lmbench.c - the lmbench-compatible front ends: one program that acts as
 * the lmbench benchmark it is named after.
 *
 * Installed once as libexec/embperf/lmbench/embperf-lmbench with a symlink
 * per benchmark name (lat_mem_rd -> embperf-lmbench, ...), so that putting
 * that folder on PATH makes lmbench's scripts run on libembperf without
 * clashing with a real lmbench elsewhere. Called under its own name, the
 * first operand names the front end instead: `embperf-lmbench lat_syscall
 * null`. See doc/methodology-os.md.
 */
#include <stdio.h>
#include <string.h>

#include "lmb.h"

/**
 * struct front_end - one lmbench program the binary can act as.
 * @name: the program's name.
 * @main: its main.
 */
struct front_end {
	const char *name;
	lmb_main_fn main;
};

static const struct front_end front_ends[] = {
	{ "lat_mem_rd", lmb_lat_mem_rd },
	{ "bw_mem", lmb_bw_mem },
	{ "stream", lmb_stream },
	{ "lat_ops", lmb_lat_ops },
	{ "par_ops", lmb_par_ops },
	{ "mhz", lmb_mhz },
	{ "lat_ctx", lmb_lat_ctx },
	{ "lat_syscall", lmb_lat_syscall },
	{ "lat_sig", lmb_lat_sig },
	{ "lat_proc", lmb_lat_proc },
	{ "lat_sem", lmb_lat_sem },
	{ "lat_pagefault", lmb_lat_pagefault },
	{ "lat_mmap", lmb_lat_mmap },
	{ "lat_pipe", lmb_lat_pipe },
	{ "lat_unix", lmb_lat_unix },
	{ "lat_tcp", lmb_lat_tcp },
	{ "lat_udp", lmb_lat_udp },
	{ "lat_connect", lmb_lat_connect },
	{ "lat_select", lmb_lat_select },
	{ "bw_pipe", lmb_bw_pipe },
	{ "bw_unix", lmb_bw_unix },
	{ "lat_fs", lmb_lat_fs },
	{ "bw_file_rd", lmb_bw_file_rd },
	{ "bw_mmap_rd", lmb_bw_mmap_rd },
	{ "lat_usleep", lmb_lat_usleep },
	{ "line", lmb_line },
	{ "par_mem", lmb_par_mem },
	{ "lat_fcntl", lmb_lat_fcntl },
	{ "lat_cmd", lmb_lat_cmd },
	{ "lmdd", lmb_lmdd },
};

#define N_FRONT_ENDS ((int)(sizeof(front_ends) / sizeof(front_ends[0])))

static const struct front_end *find_front_end(const char *name)
{
	for (int i = 0; i < N_FRONT_ENDS; i++)
		if (strcmp(front_ends[i].name, name) == 0)
			return &front_ends[i];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Called under its own name without a front end: say what it is. */
static int print_help(const char *self, FILE *out, int status)
{
	fprintf(out,
		"Usage: %s NAME [ARGUMENTS...]\n"
		"   or: NAME [ARGUMENTS...]   (through a symlink named NAME)\n\n"
		"lmbench-compatible front ends of libembperf %s: each accepts the arguments\n"
		"of the lmbench program NAME and prints its output format; the measuring\n"
		"is done by libembperf's kernels. See doc/methodology-os.md.\n\nNames:",
		self, embperf_version_string());
	for (int i = 0; i < N_FRONT_ENDS; i++)
		fprintf(out, "%s%s", i % 8 ? " " : "\n  ", front_ends[i].name);
	fputc('\n', out);
	return status;
}

static int run_front_end(const struct front_end *fe, const char *argv0, int argc, char **argv)
{
	struct lmb m = {
		.argv0 = argv0,
		.name = fe->name,
		.synopsis = "",
		.optind = 1,
		.parallel = 1,
		.warmup_us = -1,
		.repetitions = -1,
	};
	int status;

	status = fe->main(&m, argc, argv);
	lmb_close(&m);
	fflush(stdout);
	fflush(stderr);
	return status;
}

int main(int argc, char **argv)
{
	const char *self = argc > 0 ? argv[0] : "embperf-lmbench";
	const struct front_end *fe = find_front_end(base_name(self));

	if (fe)
		return run_front_end(fe, self, argc, argv);
	if (argc < 2)
		return print_help(self, stderr, LMB_EXIT_USAGE);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return print_help(self, stdout, 0);
	fe = find_front_end(argv[1]);
	if (!fe) {
		fprintf(stderr, "%s: '%s' is not an lmbench program this binary provides\n",
			base_name(self), argv[1]);
		return print_help(self, stderr, LMB_EXIT_USAGE);
	}
	/* "embperf-lmbench lat_syscall null" acts as "lat_syscall null". */
	return run_front_end(fe, argv[1], argc - 1, argv + 1);
}
