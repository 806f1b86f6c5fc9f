// SPDX-License-Identifier: MIT
/*
 * lmb_common.c - command line, session and printing helpers of the
 * lmbench-compatible front ends (see lmb.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lmb.h"

/* Longest parameter name or value text handled here; kernels' are short. */
#define TEXT_MAX 256

/* ------------------------------------------------------------------------ */
/* Command line                                                             */
/* ------------------------------------------------------------------------ */

/**
 * lmb_getopt() - next option, parsed as lmbench's getopt does (see lmb.h).
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 * @spec: option letters; a letter followed by ':' takes a value.
 *
 * Return: the letter, '?' or -1.
 */
int lmb_getopt(struct lmb *m, int argc, char **argv, const char *spec)
{
	const char *word, *hit;
	int letter;

	if (m->optpos == 0)
		m->optpos = 1;
	if (m->optind >= argc)
		return -1;
	word = argv[m->optind];
	if (word[0] != '-' || word[1] == '\0')
		return -1;
	letter = (unsigned char)word[m->optpos];
	hit = letter != ':' ? strchr(spec, letter) : NULL;
	if (!hit) {
		m->optind++;
		m->optpos = 1;
		return '?';
	}
	if (hit[1] != ':') {
		/* A flag: the next one may follow in the same word ("-rC"). */
		if (word[m->optpos + 1] == '\0') {
			m->optind++;
			m->optpos = 1;
		} else {
			m->optpos++;
		}
		return letter;
	}
	if (word[m->optpos + 1] != '\0') {
		m->optarg = word + m->optpos + 1;
		m->optind++;
		m->optpos = 1;
		return letter;
	}
	/* The value is the next word, which must exist and not look like an option. */
	if (m->optind + 1 >= argc || argv[m->optind + 1][0] == '-') {
		m->optind++;
		m->optpos = 1;
		return '?';
	}
	m->optarg = argv[m->optind + 1];
	m->optind += 2;
	m->optpos = 1;
	return letter;
}

/**
 * lmb_atoi() - an integer as atoi() reads it, saturating on overflow.
 * @text: the text.
 *
 * Return: the value (0 when @text is not a number).
 */
long lmb_atoi(const char *text)
{
	return strtol(text, NULL, 10);
}

/**
 * lmb_engine_option() - handle -P, -W and -N.
 * @m:   invocation.
 * @opt: the option letter.
 *
 * Return: 1 when handled, 0 for another letter, -1 for a bad value.
 */
int lmb_engine_option(struct lmb *m, int opt)
{
	long value;

	if (opt != 'P' && opt != 'W' && opt != 'N')
		return 0;
	value = lmb_atoi(m->optarg);
	if (opt == 'P') {
		/* As the originals: zero, negative or not a number is a usage error. */
		if (value <= 0 || value > INT_MAX)
			return -1;
		m->parallel = (int)value;
	} else if (opt == 'W') {
		m->warmup_us = value;
	} else {
		m->repetitions = value;
	}
	return 1;
}

/**
 * lmb_usage() - print the usage line.
 * @m: invocation.
 *
 * Return: LMB_EXIT_USAGE.
 */
int lmb_usage(struct lmb *m)
{
	fprintf(stderr, "Usage: %s %s", m->argv0, m->synopsis);
	return LMB_EXIT_USAGE;
}

/**
 * lmb_bytes() - a size as lmbench3's bytes() reads it: an unsigned decimal
 * number (what sscanf's %llu takes), times 1024 when the word's last
 * character is k or K, times 2^20 when it is m or M (both cases binary;
 * no other suffix, so "1g" is 1 byte).
 * @text: the text.
 *
 * Return: bytes, 0 when not a number; saturates instead of wrapping.
 */
uint64_t lmb_bytes(const char *text)
{
	const char *p = text;
	char *end;
	uint64_t n;
	size_t len;
	int shift;

	/* %llu skips white space and takes a sign; it needs a digit after. */
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	if (*p == '+' || *p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return UINT64_MAX;
	len = strlen(text);
	switch (text[len - 1]) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	default:
		return n;
	}
	return n > (UINT64_MAX >> shift) ? UINT64_MAX : n << shift;
}

/**
 * lmb_need_single() - refuse -P above 1 (see lmb.h).
 * @m: invocation.
 *
 * Return: 0 or LMB_EXIT_FAIL.
 */
int lmb_need_single(struct lmb *m)
{
	if (m->parallel <= 1)
		return 0;
	return lmb_fail(m,
			"-P %d: libembperf runs one instance of this benchmark, it cannot add the rates of %d copies; use -P 1",
			m->parallel, m->parallel);
}

/**
 * lmb_fail() - print "PROGRAM: MESSAGE" on stderr.
 * @m:   invocation.
 * @fmt: format.
 *
 * Return: LMB_EXIT_FAIL.
 */
int lmb_fail(struct lmb *m, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", m->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return LMB_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */
/* Session                                                                  */
/* ------------------------------------------------------------------------ */

/* The session the signal handler cancels; NULL outside one. */
static embperf_ctx *volatile signal_ctx;
static struct sigaction saved_sigint, saved_sigterm;

static void on_signal(int signo)
{
	embperf_ctx *ctx = signal_ctx;

	(void)signo;
	if (ctx)
		embperf_ctx_cancel(ctx);
}

static void log_to_stderr(void *user, int level, const char *message)
{
	const struct lmb *m = user;

	(void)level;
	fprintf(stderr, "%s: embperf: %s\n", m->name, message);
}

/*
 * EMBPERF_LOG=warning|info|debug: the library's messages on stderr, as
 * `embperf run` prints them with -v or -vv (lmbench's own options leave no
 * room for a flag). At debug, each case's sample count and units show what
 * -N and -W became. Unset: the front ends stay as quiet as lmbench.
 */
static int set_log_level(struct lmb *m)
{
	static const struct {
		const char *name;
		int level;
	} levels[] = { { "warning", EMBPERF_LOG_WARNING },
		       { "info", EMBPERF_LOG_INFO },
		       { "debug", EMBPERF_LOG_DEBUG } };
	const char *value = getenv("EMBPERF_LOG");

	if (!value || !*value)
		return 0;
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (strcmp(value, levels[i].name) == 0) {
			embperf_ctx_set_log_fn(m->ctx, log_to_stderr, m, levels[i].level);
			return 0;
		}
	}
	return lmb_fail(m, "environment variable EMBPERF_LOG='%s' is not a log level; "
			"accepted: warning, info, debug (or unset)", value);
}

/**
 * lmb_open() - create the session; SIGINT and SIGTERM cancel its run, which
 * then stops its children and removes its files before the program exits.
 * A second signal ends the program at once (SA_RESETHAND).
 * @m: invocation.
 *
 * Return: 0 or LMB_EXIT_FAIL.
 */
int lmb_open(struct lmb *m)
{
	struct sigaction sa;

	m->ctx = embperf_ctx_new();
	if (!m->ctx)
		return lmb_fail(m, "cannot start libembperf: %s", embperf_strerror(-errno));
	if (set_log_level(m)) {
		embperf_ctx_free(m->ctx);
		m->ctx = NULL;
		return LMB_EXIT_FAIL;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	signal_ctx = m->ctx;
	sigaction(SIGINT, &sa, &saved_sigint);
	sigaction(SIGTERM, &sa, &saved_sigterm);
	return 0;
}

/**
 * lmb_close() - restore the signal handlers and free the session.
 * @m: invocation.
 */
void lmb_close(struct lmb *m)
{
	if (!m->ctx)
		return;
	sigaction(SIGINT, &saved_sigint, NULL);
	sigaction(SIGTERM, &saved_sigterm, NULL);
	signal_ctx = NULL;
	embperf_ctx_free(m->ctx);
	m->ctx = NULL;
}

/**
 * lmb_has_param() - tell whether @kernel accepts @key.
 * @kernel: kernel name.
 * @key:    parameter name.
 *
 * Return: 1 or 0.
 */
int lmb_has_param(const char *kernel, const char *key)
{
	int n = embperf_kernel_param_count(kernel);
	char name[TEXT_MAX];

	for (int i = 0; i < n; i++)
		if (embperf_kernel_param_info(kernel, i, EMBPERF_INFO_NAME, name, sizeof(name)) >= 0 &&
		    strcmp(name, key) == 0)
			return 1;
	return 0;
}

/* A duration in the engine's canonical text ("5ms", "250us") in microseconds; -1 if not one. */
double lmb_duration_us(const char *text)
{
	static const struct {
		const char *suffix;
		double us;
	} units[] = { { "ns", 1e-3 }, { "us", 1.0 }, { "ms", 1e3 }, { "s", 1e6 } };
	char *end;
	double value = strtod(text, &end);

	if (end == text)
		return -1;
	if (*end == '\0')
		return value / 1e3; /* a bare number is nanoseconds */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].suffix) == 0)
			return value * units[i].us;
	return -1;
}

/*
 * -W: lmbench lets its copies run WARMUP microseconds before timing; the
 * engine discards whole samples. Warm up for at least as long: as many
 * samples as cover the time, at least one when -W is positive.
 */
static int apply_warmup(struct lmb *m, embperf_bench *b)
{
	char text[TEXT_MAX];
	double sample_us = 0, samples;

	if (m->warmup_us < 0)
		return 0;
	if (embperf_bench_get(b, "sample_time", text, sizeof(text)) > 0)
		sample_us = lmb_duration_us(text);
	if (m->warmup_us == 0)
		samples = 0;
	else if (sample_us <= 0)
		samples = 1;
	else
		samples = ceil((double)m->warmup_us / sample_us);
	if (samples > 1000)
		samples = 1000; /* the engine's bound */
	return lmb_set(m, b, "warmup", "%d", (int)samples);
}

/*
 * -N: samples to take. lmbench takes its default (11) for a value of 0 or
 * less, so does the engine; below the engine's min_repetitions that one
 * follows, so that -N 1 means one sample. lmbench's -N is a count, so the
 * kernels' interval rule (precision) is off: exactly N samples.
 */
static int apply_repetitions(struct lmb *m, embperf_bench *b)
{
	long n = m->repetitions;
	char had[32];

	if (n <= 0)
		return 0;
	if (n > 1000000)
		n = 1000000;
	if (lmb_set(m, b, "repetitions", "%ld", n) < 0)
		return -1;
	/* Trial kernels have no interval rule: their -N is already a count.
	 * embperf_bench_get() returns the text's length, -ENOENT without it. */
	if (embperf_bench_get(b, "precision", had, sizeof(had)) >= 0 &&
	    lmb_set(m, b, "precision", "0") < 0)
		return -1;
	return lmb_set(m, b, "min_repetitions", "%ld", n < 5 ? n : 5);
}

/**
 * lmb_bench() - a bench with -W/-N applied.
 * @m:      invocation.
 * @kernel: kernel name.
 *
 * Return: the bench, or NULL after printing why.
 */
embperf_bench *lmb_bench(struct lmb *m, const char *kernel)
{
	embperf_bench *b;

	if (embperf_kernel_summary(kernel) == NULL) {
		lmb_fail(m, "kernel %s not available in this build of libembperf %s",
			 kernel, embperf_version_string());
		return NULL;
	}
	b = embperf_bench_new(m->ctx, kernel);
	if (!b) {
		lmb_fail(m, "%s", embperf_ctx_errmsg(m->ctx));
		return NULL;
	}
	if (apply_warmup(m, b) < 0 || apply_repetitions(m, b) < 0) {
		embperf_bench_free(b);
		return NULL;
	}
	return b;
}

/**
 * lmb_set() - set a parameter from a format.
 * @m:   invocation.
 * @b:   bench.
 * @key: name.
 * @fmt: value format.
 *
 * Return: 0 or -1.
 */
int lmb_set(struct lmb *m, embperf_bench *b, const char *key, const char *fmt, ...)
{
	char value[TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (embperf_bench_set(b, key, value) == 0)
		return 0;
	lmb_fail(m, "%s", embperf_bench_errmsg(b));
	return -1;
}

/**
 * lmb_run() - run a bench.
 * @m: invocation.
 * @b: bench.
 *
 * Return: 0, LMB_EXIT_CANCELLED or LMB_EXIT_FAIL.
 */
int lmb_run(struct lmb *m, embperf_bench *b)
{
	return lmb_run_status(m, b, embperf_bench_run(b));
}

/**
 * lmb_run_status() - the exit status of a run that returned @err.
 * @m:   invocation.
 * @b:   bench.
 * @err: what embperf_bench_run() returned.
 *
 * Return: as lmb_run().
 */
int lmb_run_status(struct lmb *m, embperf_bench *b, int err)
{
	if (err == 0 || (err == -ETIME && embperf_bench_result_count(b) > 0))
		return 0;
	if (err == -ECANCELED || embperf_ctx_is_cancelled(m->ctx))
		return LMB_EXIT_CANCELLED;
	return lmb_fail(m, "%s", embperf_bench_errmsg(b));
}

/**
 * lmb_result() - find a result of the last run.
 * @b:      bench.
 * @metric: metric.
 * @key:    label name, or NULL.
 * @value:  label value.
 *
 * Return: the result, or NULL.
 */
const embperf_result *lmb_result(const embperf_bench *b, const char *metric, const char *key,
				 const char *value)
{
	int n = embperf_bench_result_count(b);
	char text[TEXT_MAX];

	for (int i = 0; i < n; i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (strcmp(embperf_result_metric(r), metric) != 0)
			continue;
		if (!key)
			return r;
		if (embperf_result_label(r, key, text, sizeof(text)) >= 0 &&
		    strcmp(text, value) == 0)
			return r;
	}
	return NULL;
}

/* Nanoseconds in one @unit of time; 0 when @unit is not a time. */
static double unit_ns(const char *unit)
{
	if (strcmp(unit, "ns") == 0)
		return 1;
	if (strcmp(unit, "us") == 0)
		return 1e3;
	if (strcmp(unit, "ms") == 0)
		return 1e6;
	if (strcmp(unit, "s") == 0)
		return 1e9;
	return 0;
}

/**
 * lmb_value() - a result's value in @unit.
 * @r:    result or NULL.
 * @unit: wanted unit, "" for as is.
 *
 * Return: the value or NaN.
 */
double lmb_value(const embperf_result *r, const char *unit)
{
	const char *has;
	double from, to;

	if (!r)
		return NAN;
	has = embperf_result_unit(r);
	if (unit[0] == '\0' || strcmp(has, unit) == 0)
		return embperf_result_value(r);
	from = unit_ns(has);
	to = unit_ns(unit);
	if (from == 0 || to == 0)
		return NAN;
	return embperf_result_value(r) * from / to;
}

/**
 * lmb_label_bytes() - a size label in bytes ("512", "1212k", "1.5M").
 * @r:   result.
 * @key: label name.
 *
 * Return: bytes, 0 when missing or malformed.
 */
uint64_t lmb_label_bytes(const embperf_result *r, const char *key)
{
	static const char suffixes[] = "kMGT";
	char text[TEXT_MAX], *end;
	double value;
	const char *at;

	if (embperf_result_label(r, key, text, sizeof(text)) < 0)
		return 0;
	value = strtod(text, &end);
	if (end == text || value < 0)
		return 0;
	if (*end == '\0')
		return (uint64_t)value;
	at = end[1] == '\0' ? strchr(suffixes, *end) : NULL;
	if (!at)
		return 0;
	for (const char *s = suffixes; s <= at; s++)
		value *= 1024;
	return (uint64_t)(value + 0.5);
}

/**
 * lmb_micro() - print "LABEL: X microseconds" as lmbench's micro() does.
 * @m:     invocation.
 * @label: label.
 * @r:     result.
 *
 * Return: 0 or LMB_EXIT_FAIL.
 */
int lmb_micro(struct lmb *m, const char *label, const embperf_result *r)
{
	double us = lmb_value(r, "us");

	if (isnan(us))
		return lmb_fail(m, "%s: no result in microseconds from %s", label,
				r ? embperf_result_kernel(r) : "the kernel");
	fprintf(stderr, "%s: %.4f microseconds\n", label, us);
	return 0;
}

/**
 * lmb_print_mb_pair() - "SIZE RATE" as lmbench's bandwidth().
 * @mb:      MB.
 * @rate_mb: MB/s.
 */
void lmb_print_mb_pair(double mb, double rate_mb)
{
	fprintf(stderr, mb < 1 ? "%.6f " : "%.2f ", mb);
	fprintf(stderr, rate_mb < 1 ? "%.6f\n" : "%.2f\n", rate_mb);
}

/* Set "key=value" operands on @b. Return: 0 or -1. */
static int set_params(struct lmb *m, embperf_bench *b, const char *const *params)
{
	char key[TEXT_MAX];

	for (; params && *params; params++) {
		const char *eq = strchr(*params, '=');
		size_t len = eq ? (size_t)(eq - *params) : 0;

		if (!eq || len >= sizeof(key))
			return lmb_fail(m, "internal error: bad parameter '%s'", *params), -1;
		memcpy(key, *params, len);
		key[len] = '\0';
		if (lmb_set(m, b, key, "%s", eq + 1) < 0)
			return -1;
	}
	return 0;
}

/**
 * lmb_one() - run one kernel and print its latency as micro() does.
 * @m:      invocation.
 * @kernel: kernel.
 * @params: NULL-terminated "key=value" list, or NULL.
 * @label:  lmbench label.
 *
 * Return: the exit status.
 */
int lmb_one(struct lmb *m, const char *kernel, const char *const *params, const char *label)
{
	embperf_bench *b;
	int status = lmb_need_single(m);

	if (status)
		return status;
	status = lmb_open(m);
	if (status)
		return status;
	b = lmb_bench(m, kernel);
	if (!b)
		status = LMB_EXIT_FAIL;
	else if (set_params(m, b, params) < 0)
		status = LMB_EXIT_FAIL;
	else
		status = lmb_run(m, b);
	if (status == 0)
		status = lmb_micro(m, label, lmb_result(b, "latency", NULL, NULL));
	embperf_bench_free(b);
	lmb_close(m);
	return status;
}
