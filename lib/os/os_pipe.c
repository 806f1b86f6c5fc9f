// SPDX-License-Identifier: MIT
/*
 * os_pipe.c - os.pipe.lat and os.pipe.bw: latency and bandwidth of a pipe
 * between two processes, the methods of lmbench's lat_pipe and bw_pipe
 * (McVoy & Staelin).
 *
 * os.pipe.lat: one unit is a round trip of one byte. This process writes a
 *   byte into one pipe, a forked echo process reads it and writes it into a
 *   second pipe, this process reads it back. Reported per round trip, as
 *   lat_pipe does (it does not halve it).
 * os.pipe.bw: a forked process writes 'size'-byte chunks into a pipe
 *   without pause; one unit is reading 'total' bytes out of it in reads of
 *   at most 'size' bytes. MB/s with MB = 10^6 bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/os/partner.h"

#define PIPE_READ_MISALIGN 128 /* bw_pipe reads into a buffer 128 bytes past a page */

/**
 * struct pipe_lat - state of os.pipe.lat.
 * @partner:      the echo process.
 * @to_partner:   pipe this process writes, the echo process reads.
 * @from_partner: pipe the echo process writes, this process reads.
 * @echo:         the echo process's arguments.
 * @byte:         the byte going round.
 * @echo_byte:    the echo's copy of it (a thread shares this struct).
 */
struct pipe_lat {
	struct ep_partner partner;
	int to_partner[2];
	int from_partner[2];
	struct ep_partner_echo echo;
	char byte;
	char echo_byte;
};

/**
 * struct pipe_bw - state of os.pipe.bw.
 * @partner:  the writer process.
 * @fds:      the pipe: the writer holds [1], this process reads [0].
 * @wbuf:     the writer's chunk (page aligned), allocated before the fork.
 * @rbuf_mem: the reader's allocation; @rbuf lies 128 bytes into it.
 * @rbuf:     where reads land.
 * @size:     bytes per write and most bytes per read.
 * @total:    bytes one unit reads.
 */
struct pipe_bw {
	struct ep_partner partner;
	int fds[2];
	char *wbuf;
	char *rbuf_mem;
	char *rbuf;
	size_t size;
	uint64_t total;
};

static const struct ep_param_desc pipe_lat_params[] = {
	EP_PARTNER_MODE_PARAM,
	EP_PARTNER_TIMEOUT_PARAM,
};

static const struct ep_param_desc pipe_bw_params[] = {
	{ "size", EP_PT_SIZE, "64k", { { 1, 64LL << 20 } }, NULL, "bytes",
	  "bytes per write of the writer and most bytes per read (bw_pipe -m)" },
	{ "total", EP_PT_SIZE, "10M", { { 1, 1LL << 30 } }, NULL, "bytes",
	  "bytes read per unit (bw_pipe -M); raised to 'size' when smaller" },
	EP_PARTNER_MODE_PARAM,
	EP_PARTNER_TIMEOUT_PARAM,
};

static const struct ep_metric_desc pipe_lat_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "round trip of one byte between two processes, median of the samples (lat_pipe)" },
};

static const struct ep_metric_desc pipe_bw_metrics[] = {
	{ "bandwidth", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MEDIAN, 1,
	  "bytes moved through the pipe per second, MB = 10^6 bytes, median (bw_pipe)" },
};

static const struct ep_default pipe_bw_defaults[] = {
	{ "repetitions", "11" },
	{ "spread", "0" },
	{ "sample_time", "20ms" }, /* a few 10 MB units per sample */
	{ NULL, NULL },
};

static int make_pipe(struct ep_run *run, int fds[2])
{
	if (pipe2(fds, O_CLOEXEC))
		return ep_run_fail(run, -errno, "cannot make a pipe: %s", strerror(errno));
	return 0;
}

/* ------------------------------------------------------------------ latency */

static int pipe_lat_body(void *arg, uint64_t units)
{
	struct pipe_lat *st = arg;

	return ep_partner_round_trips(&st->partner, st->to_partner[1], st->from_partner[0], 0,
				      &st->byte, 1, units);
}

static void pipe_lat_teardown(void *state)
{
	struct pipe_lat *st = state;

	ep_partner_stop(&st->partner);
	for (int i = 0; i < 2; i++) {
		ep_ipc_close(&st->to_partner[i]);
		ep_ipc_close(&st->from_partner[i]);
	}
}

static int pipe_lat_start(struct ep_run *run, struct pipe_lat *st)
{
	struct ep_partner_cfg cfg = ep_partner_cfg_of(run, "pipe echo process",
						      ep_partner_echo_loop, &st->echo);
	int rc;

	rc = make_pipe(run, st->to_partner);
	if (!rc)
		rc = make_pipe(run, st->from_partner);
	if (rc)
		return rc;
	st->echo = (struct ep_partner_echo){ .in = st->to_partner[0], .out = st->from_partner[1],
					     .buf = &st->echo_byte, .size = 1 };
	cfg.keep[cfg.n_keep++] = st->to_partner[0];
	cfg.wake[cfg.n_wake++] = st->to_partner[1]; /* a thread's read then ends */
	/*
	 * Close the echo process's write end here, so its death reads as an
	 * end of file. Its read end stays open: the pipe we write then always
	 * has a reader, and a write can never raise SIGPIPE in the caller.
	 */
	rc = ep_partner_start_on(run, &st->partner, &cfg, &st->from_partner[1]);
	if (rc)
		return rc;
	/* One round trip before timing, as lat_pipe: both processes are up. */
	return pipe_lat_body(st, 1);
}

static int pipe_lat_setup(struct ep_run *run, void **state)
{
	struct pipe_lat *st = *state;

	st->to_partner[0] = st->to_partner[1] = st->from_partner[0] = st->from_partner[1] = -1;
	return ep_partner_add_case(run, pipe_lat_start(run, st), pipe_lat_body, st);
}

/* ---------------------------------------------------------------- bandwidth */

/* The writer process: 'size'-byte writes for ever, as bw_pipe's writer. */
static void pipe_bw_writer(void *arg)
{
	const struct pipe_bw *st = arg;

	while (!ep_partner_write_full(st->fds[1], st->wbuf, st->size, 0))
		;
}

static int pipe_bw_body(void *arg, uint64_t units)
{
	struct pipe_bw *st = arg;
	int rc = 0;

	while (units-- && !rc)
		rc = ep_partner_receive(&st->partner, st->fds[0], st->rbuf, st->size, st->total);
	return rc;
}

static void pipe_bw_teardown(void *state)
{
	struct pipe_bw *st = state;

	ep_partner_stop(&st->partner);
	ep_ipc_close(&st->fds[0]);
	ep_ipc_close(&st->fds[1]);
	free(st->wbuf);
	free(st->rbuf_mem);
}

/* Page-aligned buffers, touched so no page fault lands in a timed read.
 * The reader's starts 128 bytes past a page boundary, as bw_pipe's. */
static int pipe_bw_buffers(struct ep_run *run, struct pipe_bw *st)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	/* The writer's chunk and the reader's buffer. */
	int rc = ep_mem_check_fits(run, "size", ep_param_text(run, "size"), 2 * (uint64_t)st->size);

	if (rc)
		return rc;
	if (posix_memalign((void **)&st->wbuf, page, st->size) ||
	    posix_memalign((void **)&st->rbuf_mem, page, st->size + page))
		return ep_partner_size_nomem(run, st->size);
	memset(st->wbuf, 'w', st->size);
	memset(st->rbuf_mem, 0, st->size + page);
	st->rbuf = st->rbuf_mem + PIPE_READ_MISALIGN;
	return 0;
}

static int pipe_bw_start(struct ep_run *run, struct pipe_bw *st)
{
	struct ep_partner_cfg cfg = ep_partner_cfg_of(run, "pipe writer process", pipe_bw_writer,
						      st);
	int rc = pipe_bw_buffers(run, st);

	if (!rc)
		rc = make_pipe(run, st->fds);
	if (rc)
		return rc;
	cfg.wake[cfg.n_wake++] = st->fds[0]; /* a thread's write then fails */
	rc = ep_partner_start_on(run, &st->partner, &cfg, &st->fds[1]);
	if (rc)
		return rc;
	/* One chunk before timing: the writer is up. */
	return ep_partner_receive(&st->partner, st->fds[0], st->rbuf, st->size, st->size);
}

static int pipe_bw_setup(struct ep_run *run, void **state)
{
	struct pipe_bw *st = *state;
	struct ep_case c = { .metric = 0, .body = pipe_bw_body };
	int rc;

	st->fds[0] = st->fds[1] = -1;
	st->size = (size_t)ep_param_int(run, "size");
	st->total = (uint64_t)ep_param_int(run, "total");
	if (st->total < st->size)
		st->total = st->size; /* as bw_pipe */
	rc = pipe_bw_start(run, st);
	if (!rc) {
		c.arg = st;
		c.bytes_per_unit = (double)st->total;
		rc = ep_partner_add_size_case(run, &c);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_pipe_lat = {
	.name = "os.pipe.lat",
	.summary = "pipe round trip of one byte between two processes (lmbench lat_pipe); mode=process needs fork()",
	EP_PARAMS(pipe_lat_params),
	EP_METRICS(pipe_lat_metrics),
	.engine_defaults = ep_lmbench_ipc_defaults,
	.setup = pipe_lat_setup,
	.teardown = pipe_lat_teardown,
	.state_bytes = sizeof(struct pipe_lat),
};

const struct ep_kernel ep_kernel_os_pipe_bw = {
	.name = "os.pipe.bw",
	.summary = "pipe bandwidth from a writer process to this one (lmbench bw_pipe); mode=process needs fork()",
	EP_PARAMS(pipe_bw_params),
	EP_METRICS(pipe_bw_metrics),
	.engine_defaults = pipe_bw_defaults,
	.setup = pipe_bw_setup,
	.teardown = pipe_bw_teardown,
	.state_bytes = sizeof(struct pipe_bw),
};
