// SPDX-License-Identifier: MIT
/*
 * crypto_speed.c - crypto.speed: how many bytes per second a cipher or a
 * digest processes, per buffer size, and the CPU load meanwhile, as
 * `openssl speed -elapsed -evp ALG` measures it (doc/methodology-crypto.md).
 *
 * One trial case per algorithm and buffer size: for 'duration' (openssl
 * speed: 3 s) the body encrypts (or hashes) one buffer of the size after
 * another, through libcrypto's EVP interface or the kernel's AF_ALG
 * sockets, and counts them; the engine's wall clock times the trial (as
 * -elapsed does) and records the CPU load over it. The figures: kB/s (1000
 * bytes per second, openssl speed's "1000s of bytes per second"), MB/s,
 * the process's and the system's CPU load per trial, and per algorithm the
 * process's CPU load over all its sizes (TI's "OpenSSL CPU Load", time -v
 * around openssl speed).
 *
 * Trials rather than calibrated cases: openssl speed runs each size for a
 * fixed time and counts, which is a trial; the CPU load of a trial is a
 * metric of its own; and an operation through a driver that sleeps on an
 * accelerator is not a loop the engine should calibrate.
 *
 * Each algorithm is opened once and its known vector checked before
 * anything is timed (algs.c); a wrong answer fails the run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/params.h"
#include "lib/core/result.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/util.h"
#include "lib/crypto/crypto.h"

#define SPEED_MAX_SIZES 16
#define SPEED_MAX_BYTES (64 * 1024) /* below an AF_ALG socket's default send buffer */
#define SPEED_BATCH_BYTES 16384     /* at least this much work between two deadline checks */
#define SPEED_ALIGN 64              /* the buffer starts on a cache line */
#define SPEED_LABEL_MAX 160

enum { M_KBPS, M_THROUGHPUT, M_CPU_PROCESS, M_CPU_SYSTEM, M_CPU_LOAD };

/* cr_algs' names; the end of the parameter's help, and of its error (one string) */
#define SPEED_ALG_NAMES                                                                    \
	"aes-128-cbc, aes-192-cbc, aes-256-cbc, aes-128-ecb, aes-192-ecb, aes-256-ecb, "   \
	"des-ede3-cbc, md5, sha1, sha256, sha512"

static const struct ep_param_desc speed_params[] = {
	{ "alg", EP_PT_STRING, "aes-128-cbc", { { 0, 0 } }, NULL, "",
	  "algorithms, comma-separated, or all (the back end's), from "
	  SPEED_ALG_NAMES },
	{ "size", EP_PT_STRING, "16,64,256,1024,8192,16384", { { 0, 0 } }, NULL, "bytes",
	  "buffer sizes, comma-separated, 1..64k; ciphers: whole blocks" },
	{ "backend", EP_PT_ENUM, "evp", { { 0, 0 } }, "evp|afalg", "",
	  "evp: libcrypto, as openssl speed -evp; afalg: the kernel crypto API (AF_ALG sockets)" },
	{ "io", EP_PT_ENUM, "sync", { { 0, 0 } }, "sync|aio|aio-splice", "",
	  "backend=afalg: how a buffer travels; sync: sendmsg() with the data, read(); aio "
	  "(ciphers), as OpenSSL's afalg engine: sendmsg() with the data, io_submit(), read() "
	  "of an eventfd, io_getevents(); aio-splice (ciphers), as its zero-copy build: "
	  "sendmsg(), vmsplice()+splice() of the data, then the same AIO read" },
};

static const struct ep_metric_desc speed_metrics[] = {
	[M_KBPS] = { "kbps", "kB/s", EP_METRIC_TRIAL_DERIVED, 1.0, EP_PRIMARY_MEDIAN, 1,
		     "bytes processed per second / 1000, as openssl speed prints" },
	[M_THROUGHPUT] = { "throughput", "MB/s", EP_METRIC_TRIAL_MBPS, 1.0, EP_PRIMARY_MEDIAN, 1,
			   "bytes processed per second, MB = 10^6 bytes" },
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_THIS_PROCESS_HELP),
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM("the system's CPU load, % of all CPUs (/proc/stat)"),
	[M_CPU_LOAD] = { "cpu_load", "%", EP_METRIC_VALUE, 1.0, EP_PRIMARY_MEDIAN, 0,
			 "size=all: cpu_process over all sizes (TI's OpenSSL CPU Load)" },
};

/*
 * Both kernels' (crypto.pkey's too): three trials of 1 s (openssl speed:
 * one of 3 s, or of 10 s per key and operation); no perf events, whose
 * opening and closing per trial would add to the CPU load, a figure here
 * (doc/methodology-audio.md, "The perf counters").
 */
const struct ep_default cr_defaults[] = {
	{ "duration", "1s" },
	{ "repetitions", "3" },
	{ "counters", "0" },
	{ NULL, NULL },
};

/**
 * struct speed_case - one algorithm at one buffer size.
 * @st:    the run's state.
 * @op:    the algorithm, opened.
 * @bytes: the buffer size.
 * @batch: buffers between two deadline checks.
 * @label: "alg=aes-128-cbc size=16 backend=afalg io=sync driver=cbc-aes-aesni".
 */
struct speed_case {
	struct speed_state *st;
	struct cr_op *op;
	size_t bytes;
	unsigned batch;
	char label[SPEED_LABEL_MAX];
};

/**
 * struct speed_state - the run's state.
 * @backend: an enum cr_backend.
 * @io:      an enum cr_io.
 * @ops:     the algorithms, opened and checked (@n_ops).
 * @sizes:   the buffer sizes (@n_sizes).
 * @buf:     the buffer every case processes, as large as the largest size.
 * @cases:   one per algorithm and size (@n_cases).
 */
struct speed_state {
	struct ep_run *run;
	int backend;
	int io;
	int n_ops;
	int n_sizes;
	int n_cases;
	size_t sizes[SPEED_MAX_SIZES];
	unsigned char *buf;
	struct cr_op ops[CR_N_ALGS];
	struct speed_case cases[CR_N_ALGS * SPEED_MAX_SIZES];
};

/** speed_body() - one trial: buffer after buffer until the engine says stop. */
static int speed_body(void *arg, struct ep_trial *t)
{
	struct speed_case *c = arg;
	struct cr_op *op = c->op;
	struct ep_tally *ta = ep_trial_tally(t);

	while (ep_trial_running(t)) {
		for (unsigned i = 0; i < c->batch; i++) {
			int rc = op->run(op, c->st->buf, c->bytes);

			if (rc)
				return ep_run_fail(c->st->run, rc, "crypto.speed: %s: %s", c->label,
						   strerror(-rc));
		}
		/* counted before the next check, which times the batch in */
		ep_tally_add(ta, c->batch, (uint64_t)c->batch * c->bytes);
	}
	return 0;
}

/** speed_derive() - kB/s of a trial: its bytes / its wall-clock time / 1000. */
static double speed_derive(void *arg, int metric, const struct ep_tally *ta)
{
	double ns = (double)ep_tally_elapsed_ns(ta);

	(void)arg;
	return metric == M_KBPS && ns > 0 ? (double)ep_tally_bytes(ta) * 1e6 / ns : NAN;
}

/* Parameter @name's list names @item twice (the rows would be the same). */
static int twice(struct speed_state *st, const char *name, const char *item)
{
	return ep_run_refuse(st->run, -EINVAL, name, " lists %s twice; accepted: distinct items",
			     item);
}

/* Algorithm @a could not be opened or failed its vector: the run's error. */
static int alg_failed(struct speed_state *st, const struct cr_alg *a, int rc, const char *why)
{
	char offered[256];

	if (rc != -EOPNOTSUPP)
		return ep_run_fail(st->run, rc, "crypto.speed: %s", why);
	cr_offered(st->backend, offered, sizeof(offered));
	return ep_run_fail(st->run, rc, "parameter 'alg': value '%s': %s; accepted: what "
			   "backend %s offers here: %s", a->name, why,
			   cr_backend_name(st->backend), offered[0] ? offered : "nothing");
}

/*
 * Open algorithm @a and check its vector; with @all, one that is not there
 * is skipped, and so is a digest with an AIO io (check_io() refused a
 * named one).
 */
static int add_alg(struct speed_state *st, const struct cr_alg *a, int all)
{
	struct cr_op *op;
	char why[CR_WHY_MAX];
	int rc;

	if (st->io != CR_IO_SYNC && a->kind == CR_DIGEST) {
		ep_run_log(st->run, EMBPERF_LOG_INFO, "crypto.speed: %s left out: a digest, and "
			   "io=%s is a cipher path", a->name, cr_io_name(st->io));
		return 0;
	}
	op = &st->ops[st->n_ops++];
	rc = cr_op_open(op, a, st->backend, st->io, why, sizeof(why));

	if (!rc)
		rc = cr_op_check(op, why, sizeof(why));
	if (rc == -EOPNOTSUPP && all) {
		ep_run_log(st->run, EMBPERF_LOG_INFO, "crypto.speed: %s left out: %s",
			   a->name, why);
		cr_op_close(op);
		st->n_ops--;
		return 0;
	}
	return rc ? alg_failed(st, a, rc, why) : 0;
}

/* An AIO io with @what (the back end or a digest): the error naming both. */
static int io_refused(struct speed_state *st, const char *what)
{
	return ep_run_refuse(st->run, -EINVAL, "io", " is not accepted %s; accepted: sync, or aio "
			     "and aio-splice with backend=afalg and ciphers (aes-*, des-ede3-cbc)",
			     what);
}

/*
 * io=aio and aio-splice are AF_ALG cipher paths: refused with backend=evp
 * or a digest named in 'alg', before the back end is looked for (an
 * unknown name is parse_algs()'s to refuse).
 */
static int check_io(struct speed_state *st)
{
	const char *p = ep_param_text(st->run, "alg");
	char item[32], what[64];

	if (st->io == CR_IO_SYNC)
		return 0;
	if (st->backend != CR_AFALG)
		return io_refused(st, "with backend=evp (libcrypto: no AF_ALG socket)");
	while (cr_list_item(&p, item, sizeof(item)) > 0) {
		const struct cr_alg *a = cr_alg_find(item);

		if (a && a->kind == CR_DIGEST) {
			snprintf(what, sizeof(what), "with alg=%s, a digest", item);
			return io_refused(st, what);
		}
	}
	return 0;
}

/* The 'alg' list (or all): each opened and checked. */
static int parse_algs(struct speed_state *st)
{
	const char *text = ep_param_text(st->run, "alg"), *p = text;
	char item[32];
	int rc;

	if (!strcmp(text, "all")) {
		for (int i = 0; i < CR_N_ALGS; i++)
			if ((rc = add_alg(st, &cr_algs[i], 1)))
				return rc;
		return st->n_ops ? 0 : ep_run_refuse(st->run, -EOPNOTSUPP, "alg", ": backend %s "
						     "offers none of them here",
						     cr_backend_name(st->backend));
	}
	while ((rc = cr_list_item(&p, item, sizeof(item))) > 0) {
		const struct cr_alg *a = cr_alg_find(item);

		for (int i = 0; a && i < st->n_ops; i++)
			if (st->ops[i].alg == a)
				return twice(st, "alg", item);
		if (!a)
			break;
		if ((rc = add_alg(st, a, 0)))
			return rc;
	}
	if (rc == 0 && st->n_ops)
		return 0;
	return ep_run_refuse(st->run, -EINVAL, "alg", "%s%s%s is not accepted; accepted: all, or "
			     "comma-separated names from %s", rc > 0 ? ": item '" : "",
			     rc > 0 ? item : "", rc > 0 ? "'" : "", SPEED_ALG_NAMES);
}

/*
 * Check size @bytes (its text @item) against every algorithm's block. Whole
 * blocks are also what keeps EVP_EncryptUpdate() in place within the buffer:
 * of a partial block it would hold the rest back and write it with the next
 * call, past that buffer's end.
 */
static int check_blocks(struct speed_state *st, size_t bytes, const char *item)
{
	for (int i = 0; i < st->n_ops; i++) {
		const struct cr_alg *a = st->ops[i].alg;

		if (bytes % a->block_bytes)
			return ep_run_refuse(st->run, -EINVAL, "size", ": %s is not whole %u-byte "
					     "blocks of %s; accepted: multiples of %u up to 64k",
					     item, a->block_bytes, a->name, a->block_bytes);
	}
	return 0;
}

/* The 'size' list into @st->sizes. */
static int parse_sizes(struct speed_state *st)
{
	static const struct ep_param_desc one = { "size", EP_PT_SIZE, "", { { 1, SPEED_MAX_BYTES } },
						  NULL, "bytes", "" };
	const char *text = ep_param_text(st->run, "size"), *p = text;
	char item[32], err[EP_ERRMSG_MAX];
	int rc;

	while ((rc = cr_list_item(&p, item, sizeof(item))) > 0 && st->n_sizes < SPEED_MAX_SIZES) {
		struct ep_value v;

		if (ep_param_parse(&one, item, &v, err, sizeof(err)))
			break;
		ep_value_free(&v);
		for (int i = 0; i < st->n_sizes; i++)
			if (st->sizes[i] == (size_t)v.i)
				return twice(st, "size", item);
		if ((rc = check_blocks(st, (size_t)v.i, item)))
			return rc;
		st->sizes[st->n_sizes++] = (size_t)v.i;
	}
	if (rc == 0 && st->n_sizes)
		return 0;
	return ep_run_refuse(st->run, -EINVAL, "size", "%s%s%s is not accepted; accepted: up to "
			     "%d sizes of 1..64k bytes, comma-separated", rc > 0 ? ": item '" : "",
			     rc > 0 ? item : "", rc > 0 ? "'" : "", SPEED_MAX_SIZES);
}

/*
 * "alg=X size=S backend=B [io=I ]driver=D" of @op at @size (text); io only
 * with backend=afalg, the one it applies to.
 */
static void make_label(const struct speed_state *st, const struct cr_op *op, const char *size,
		       char *buf, size_t buf_size)
{
	snprintf(buf, buf_size, "alg=%s size=%s backend=%s%s%s driver=%s", op->alg->name, size,
		 cr_backend_name(st->backend), st->backend == CR_AFALG ? " io=" : "",
		 st->backend == CR_AFALG ? cr_io_name(st->io) : "", op->driver);
}

static int add_cases(struct speed_state *st)
{
	for (int i = 0; i < st->n_ops; i++) {
		for (int s = 0; s < st->n_sizes; s++) {
			struct speed_case *c = &st->cases[st->n_cases++];
			struct ep_trial_case tc = { .body = speed_body, .arg = c,
						    .derive = speed_derive, .labels = c->label };
			char size[24];
			int rc;

			c->st = st;
			c->op = &st->ops[i];
			c->bytes = st->sizes[s];
			c->batch = c->bytes < SPEED_BATCH_BYTES ? SPEED_BATCH_BYTES / c->bytes : 1;
			snprintf(size, sizeof(size), "%zu", c->bytes);
			make_label(st, c->op, size, c->label, sizeof(c->label));
			if ((rc = ep_run_add_trial(st->run, &tc)))
				return rc;
		}
	}
	return 0;
}

static void speed_teardown(void *state)
{
	struct speed_state *st = state;

	for (int i = 0; i < st->n_ops; i++)
		cr_op_close(&st->ops[i]);
	free(st->buf);
}

static int speed_setup(struct ep_run *run, void **state)
{
	struct speed_state *st = *state;
	char why[CR_WHY_MAX];
	size_t max_bytes = 0;
	int rc;

	st->run = run;
	st->backend = (int)ep_param_int(run, "backend");
	st->io = (int)ep_param_int(run, "io");
	if ((rc = check_io(st)))
		return rc;
	if ((rc = cr_backend_check(st->backend, why, sizeof(why))))
		return ep_run_refuse(run, rc, "backend", ": %s; accepted: evp or afalg, where this "
				     "system has it", why);
	if ((rc = parse_algs(st)) || (rc = parse_sizes(st)))
		return rc;
	for (int s = 0; s < st->n_sizes; s++)
		max_bytes = st->sizes[s] > max_bytes ? st->sizes[s] : max_bytes;
	rc = ep_mem_check_fits(run, "size", ep_param_text(run, "size"), max_bytes);
	if (rc)
		return rc;
	if (posix_memalign((void **)&st->buf, SPEED_ALIGN, max_bytes))
		return -ENOMEM;
	memset(st->buf, 0, max_bytes);
	return add_cases(st);
}

/*
 * Per algorithm, the process's CPU load over its trials of every size:
 * what time -v around openssl speed -evp ALG reports (every size runs
 * equally long, so the mean of the trials' loads is the load over all).
 */
static int speed_finish(struct ep_run *run, void *state)
{
	struct speed_state *st = state;

	for (int i = 0; i < st->n_ops; i++) {
		char label[SPEED_LABEL_MAX];
		double sum = 0.0;
		size_t n = 0;

		for (int s = 0; s < st->n_sizes; s++) { /* add_cases(): algorithm by algorithm */
			const char *labels = st->cases[i * st->n_sizes + s].label;
			const struct embperf_result *r = ep_run_find_result(run, M_CPU_PROCESS, labels);

			for (size_t j = 0; r && j < r->n_samples; j++, n++)
				sum += r->samples[j];
		}
		make_label(st, &st->ops[i], "all", label, sizeof(label));
		if (n && ep_run_add_value(run, M_CPU_LOAD, label, sum / (double)n))
			return -ENOMEM;
	}
	return 0;
}

const struct ep_kernel ep_kernel_crypto_speed = {
	.name = "crypto.speed",
	.summary = "cipher and digest throughput and CPU load per buffer size, as openssl speed -evp",
	EP_PARAMS(speed_params),
	EP_METRICS(speed_metrics),
	.engine_defaults = cr_defaults,
	.setup = speed_setup,
	.finish = speed_finish,
	.teardown = speed_teardown,
	.state_bytes = sizeof(struct speed_state),
	.cpu_bound = 1,
	.trials = 1,
};
