// SPDX-License-Identifier: MIT
/*
 * fe_lmdd.c - lmdd, lmbench's dd-like mover, over blk.io: memory to a file
 * (of=FILE, lmdd's internal input) and a file to memory (if=FILE, the
 * internal output), one block of 'bs' bytes per call, timed from after the
 * file is opened to after the last write (and its fsync with fsync=1), as
 * lmdd times it.
 *
 * lmdd's arguments are NAME=VALUE words; numbers take lmdd's suffixes
 * (k, m, g: 2^10, 2^20, 2^30; K, M, G: 10^3, 10^6, 10^9), read from the
 * word's last character. Supported: if, of, bs (default 8k), count, move,
 * fsync, print, label. An argument lmdd does not know gets lmdd's "Bad arg"
 * line; one it knows that this front end does not offer (a copy from file
 * to file, skip, rand, patterns...) is named and refused. lmdd without
 * count or move writes until interrupted; here a write needs one of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lmb.h"

#define LMDD_DEFAULT_BS 8192
#define LMDD_MB 1e6 /* lmbench's MB and KB in its printouts: 10^6, 10^3 */
#define LMDD_KB 1e3

/* The arguments lmdd knows, in its order, as a Linux build lists them in
 * its "Bad arg" line (without direct, idirect, odirect: lmbench's
 * compiler flags leave O_DIRECT undefined there). */
static const char *const lmdd_known[] = {
	"bs", "bufs", "count", "flush", "fork", "fsync",
	"if", "ipat", "label", "mismatch", "move", "of", "opat", "print", "rand", "poff",
	"rusage", "skip", "sync", "touch", "usleep", "hash", "append", "rtmax", "wtmax",
	"rtmin", "wtmin", "realtime", "notrunc", "end", "start", "time", "srand", "padin",
	"norepeat", "timeopen", "nocreate", "osync",
};

/* The ones this front end offers. */
static const char *const lmdd_offered[] = {
	"bs", "count", "fsync", "if", "label", "move", "of", "print",
};

/**
 * struct lmdd_job - what the command line asks for.
 * @in, @out:  the file names; NULL for lmdd's "internal".
 * @label:     printed before the figures, or NULL.
 * @bs:        bytes per call.
 * @count:     blocks; 0 when neither count nor move was given.
 * @fsync:     fsync() the output before the clock stops.
 * @print:     lmdd's print= (-1: not given, the "MB in secs" line).
 */
struct lmdd_job {
	const char *in;
	const char *out;
	const char *label;
	uint64_t bs;
	uint64_t count;
	int fsync;
	long print;
};

/* The value of NAME= among the arguments (lmdd's getarg: a prefix match), or NULL. */
static const char *arg_text(int argc, char **argv, const char *name)
{
	size_t len = strlen(name);

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], name, len) && argv[i][len] == '=')
			return argv[i] + len + 1;
	return NULL;
}

/* A number with lmdd's suffix, read from the word's last character. */
static uint64_t lmdd_number(const char *text)
{
	uint64_t n = strtoull(text, NULL, 10);

	switch (*text ? text[strlen(text) - 1] : '\0') {
	case 'k': return n << 10;
	case 'K': return n * 1000;
	case 'm': return n << 20;
	case 'M': return n * 1000000;
	case 'g': return n << 30;
	case 'G': return n * 1000000000;
	default: return n;
	}
}

static int in_list(const char *const *list, size_t n, const char *word, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncmp(list[i], word, len))
			return 1;
	return 0;
}

/* Every word must be NAME=VALUE of a known name: lmdd's chkarg(). Return: 0 or a status. */
static int check_args(struct lmb *m, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t len = eq ? (size_t)(eq - argv[i]) : 0;
		size_t n_known = sizeof(lmdd_known) / sizeof(lmdd_known[0]);

		if (!eq || !in_list(lmdd_known, n_known, argv[i], len)) {
			fprintf(stderr, "Bad arg: %s, possible arguments are: ", argv[i]);
			for (size_t k = 0; k < n_known; k++)
				fprintf(stderr, "%s ", lmdd_known[k]);
			fprintf(stderr, "\n");
			return LMB_EXIT_FAIL;
		}
		if (!in_list(lmdd_offered, sizeof(lmdd_offered) / sizeof(lmdd_offered[0]),
			     argv[i], len))
			return lmb_fail(m, "%.*s= is not offered by this front end (libembperf's "
					"lmdd moves between memory and one file: if, of, bs, count, "
					"move, fsync, print, label)", (int)len, argv[i]);
	}
	return 0;
}

/* A file operand, or NULL for "internal" (lmdd's default); stdin/stdout are refused. */
static int file_operand(struct lmb *m, const char *name, const char *text, const char **file)
{
	*file = NULL;
	if (!text || !strcmp(text, "internal"))
		return 0;
	if (!strcmp(text, "-") || !strcmp(text, "0") || !strcmp(text, "1") ||
	    !strcmp(text, "2") || !strcmp(text, "stdin") || !strcmp(text, "stdout") ||
	    !strcmp(text, "stderr"))
		return lmb_fail(m, "%s=%s: standard input and output are not offered; name a file",
				name, text);
	*file = text;
	return 0;
}

static int parse_job(struct lmb *m, int argc, char **argv, struct lmdd_job *job)
{
	const char *bs = arg_text(argc, argv, "bs"), *count = arg_text(argc, argv, "count");
	const char *move = arg_text(argc, argv, "move"), *fsync = arg_text(argc, argv, "fsync");
	const char *print = arg_text(argc, argv, "print");
	int status = check_args(m, argc, argv);

	if (!status)
		status = file_operand(m, "if", arg_text(argc, argv, "if"), &job->in);
	if (!status)
		status = file_operand(m, "of", arg_text(argc, argv, "of"), &job->out);
	if (status)
		return status;
	job->label = arg_text(argc, argv, "label");
	job->bs = bs ? lmdd_number(bs) : LMDD_DEFAULT_BS;
	job->count = count ? lmdd_number(count) : 0;
	if (move)
		job->count = lmdd_number(move) / (job->bs ? job->bs : 1);
	job->fsync = fsync && lmdd_number(fsync) > 0;
	job->print = print ? (long)lmdd_number(print) : -1;
	if (job->bs < 4) {
		fprintf(stderr, "Block size must be at least 4.\n"); /* lmdd's words */
		return LMB_EXIT_FAIL;
	}
	if (job->in && job->out)
		return lmb_fail(m, "if=%s of=%s: a copy from file to file is not offered (blk.io "
				"moves between memory and one file); time the write and the read "
				"apart", job->in, job->out);
	if (!job->in && !job->out)
		return lmb_fail(m, "if= and of= are both internal: no I/O to time; name a file");
	if (job->out && !job->count)
		return lmb_fail(m, "of=%s: count= or move= is needed (lmdd would write until "
				"interrupted; libembperf bounds every job)", job->out);
	return 0;
}

/* The bytes a read moves: count blocks, or the whole file, in whole blocks. */
static int read_size(struct lmb *m, const struct lmdd_job *job, uint64_t *bytes)
{
	struct stat st;
	uint64_t want;

	if (stat(job->in, &st))
		return lmb_fail(m, "%s: %s", job->in, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return lmb_fail(m, "if=%s: not a regular file (blk.io reads files here)", job->in);
	want = job->count ? job->count * job->bs : (uint64_t)st.st_size;
	if (want > (uint64_t)st.st_size)
		want = (uint64_t)st.st_size; /* lmdd stops at the end of the file */
	*bytes = want / job->bs * job->bs;
	if (!*bytes)
		return lmb_fail(m, "if=%s: holds no whole block of %" PRIu64 " bytes", job->in,
				job->bs);
	return 0;
}

/* lmdd's output file: created or truncated, as lmdd opens it (not timed). */
static int truncate_output(struct lmb *m, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return lmb_fail(m, "%s: %s", path, strerror(errno));
	close(fd);
	return 0;
}

/* lmbench's latency() line (print=1). */
static void print_latency(uint64_t xfers, uint64_t bs, double secs)
{
	double ms = secs * 1000 / (double)xfers, mbs = (double)(xfers * bs) / (LMDD_MB * secs);

	if (xfers > 1)
		fprintf(stderr, "%d %dKB xfers in %.2f secs, ", (int)xfers, (int)((double)bs / LMDD_KB),
			secs);
	else
		fprintf(stderr, "%.1fKB in ", (double)bs / LMDD_KB);
	fprintf(stderr, ms > 100 ? "%.0f millisec%s, " : "%.4f millisec%s, ", ms,
		xfers > 1 ? "/xfer" : "s");
	if (mbs > 1)
		fprintf(stderr, "%.2f MB/sec\n", mbs);
	else
		fprintf(stderr, "%.2f KB/sec\n", (double)(xfers * bs) / (LMDD_KB * secs));
}

/* lmdd's report: the label, then the line print= chooses. */
static void print_report(const struct lmdd_job *job, uint64_t bytes, double rate_mbs)
{
	double mb = (double)bytes / LMDD_MB, secs = mb / rate_mbs;

	if (job->label)
		fprintf(stderr, "%s", job->label);
	switch (job->print) {
	case 0:
		break;
	case 1:
		print_latency(bytes / job->bs, job->bs, secs);
		break;
	case 2:
		fprintf(stderr, ": %.4f microseconds\n", secs * 1e6 / (double)(bytes / job->bs));
		break;
	case 3:
		fprintf(stderr, "%.0f KB/sec\n", (double)bytes / secs / LMDD_KB);
		break;
	case 4:
		fprintf(stderr, "%.2f MB/sec\n", rate_mbs);
		break;
	case 5:
		lmb_print_mb_pair(mb, rate_mbs);
		break;
	default:
		fprintf(stderr, "%.4f MB in %.4f secs, %.4f MB/sec\n", mb, secs, rate_mbs);
		break;
	}
}

/* Run blk.io for @job over @bytes and print. Return: the exit status. */
static int run_job(struct lmb *m, const struct lmdd_job *job, uint64_t bytes)
{
	embperf_bench *b = lmb_bench(m, "blk.io");
	const char *file = job->in ? job->in : job->out;
	int status = b ? 0 : LMB_EXIT_FAIL;
	double rate_mbs;

	/* One timed pass, page cache kept (lmdd neither drops nor repeats). */
	if (!status && (lmb_set(m, b, "target", "%s", file) < 0 ||
			lmb_set(m, b, "rw", "%s", job->in ? "read" : "write") < 0 ||
			lmb_set(m, b, "bs", "%" PRIu64, job->bs) < 0 ||
			lmb_set(m, b, "size", "%" PRIu64, bytes) < 0 ||
			lmb_set(m, b, "sync", "%s", job->fsync ? "end" : "none") < 0 ||
			lmb_set(m, b, "cache", "keep") < 0 || lmb_set(m, b, "repetitions", "1") < 0 ||
			lmb_set(m, b, "duration", "1h") < 0))
		status = LMB_EXIT_FAIL;
	if (!status)
		status = lmb_run(m, b);
	if (!status) {
		rate_mbs = lmb_value(lmb_result(b, "bandwidth", NULL, NULL), "MB/s");
		if (isnan(rate_mbs) || rate_mbs <= 0)
			status = lmb_fail(m, "no bandwidth from blk.io");
		else
			print_report(job, bytes, rate_mbs);
	}
	embperf_bench_free(b);
	return status;
}

/**
 * lmb_lmdd() - lmdd [if=FILE|of=FILE] [bs=N] [count=N|move=N] [fsync=1] [print=N] [label=TEXT]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Prints lmdd's "X MB in Y secs, Z MB/sec" line (MB = 10^6 bytes) on
 * stderr, or the line of print=N.
 *
 * Return: the exit status.
 */
int lmb_lmdd(struct lmb *m, int argc, char **argv)
{
	struct lmdd_job job = { 0 };
	uint64_t bytes = 0;
	int status;

	m->synopsis = "[if=FILE|of=FILE] [bs=N] [count=N|move=N] [fsync=1] [print=N] [label=TEXT]\n";
	status = parse_job(m, argc, argv, &job);
	if (!status)
		status = job.in ? read_size(m, &job, &bytes) : truncate_output(m, job.out);
	if (status)
		return status;
	if (job.out)
		bytes = job.count * job.bs;
	status = lmb_open(m);
	if (!status)
		status = run_job(m, &job, bytes);
	return status;
}
