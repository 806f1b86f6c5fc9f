// SPDX-License-Identifier: MIT
/*
 * os_unix.c - os.unix.lat and os.unix.bw: latency and bandwidth of an
 * AF_UNIX stream socket pair between two processes, the methods of
 * lmbench's lat_unix and bw_unix (McVoy & Staelin).
 *
 * os.unix.lat: one unit is a round trip of a 'size'-byte message (1 byte
 *   by default) through a forked echo process; reported per round trip, as
 *   lat_unix does.
 * os.unix.bw: one unit asks a forked writer for 'total' bytes (an 8-byte
 *   request on the same socket) and reads them in reads of at most 'size'
 *   bytes while the writer sends them in 'size'-byte writes. The writer
 *   waits for each request, as bw_unix's does, so it never runs ahead of
 *   the timed reads. MB/s with MB = 10^6 bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/os/partner.h"

/**
 * struct unix_ipc - state of both kernels.
 * @partner: the echo or writer process.
 * @sv:      the socket pair: this process uses [0], the partner [1].
 * @echo:    the echo process's arguments (latency).
 * @buf:     message (latency) or read buffer (bandwidth), page aligned.
 * @wbuf:    the writer's chunk (bandwidth), allocated before the fork; the
 *           echo thread's buffer (latency, mode=threads).
 * @size:    message size (latency); bytes per write and most per read (bandwidth).
 * @total:   bytes per unit (bandwidth).
 */
struct unix_ipc {
	struct ep_partner partner;
	int sv[2];
	struct ep_partner_echo echo;
	char *buf;
	char *wbuf;
	size_t size;
	uint64_t total;
};

static const struct ep_param_desc unix_lat_params[] = {
	{ "size", EP_PT_SIZE, "1", { { 1, 16LL << 20 } }, NULL, "bytes",
	  "message size of each round trip (lat_unix -m)" },
	EP_PARTNER_MODE_PARAM,
	EP_PARTNER_TIMEOUT_PARAM,
};

static const struct ep_param_desc unix_bw_params[] = {
	{ "size", EP_PT_SIZE, "64k", { { 1, 64LL << 20 } }, NULL, "bytes",
	  "bytes per write of the writer and most bytes per read (bw_unix -m)" },
	{ "total", EP_PT_SIZE, "10M", { { 1, 1LL << 30 } }, NULL, "bytes",
	  "bytes asked for and read per unit (bw_unix -M); raised to 'size' when smaller" },
	EP_PARTNER_MODE_PARAM,
	EP_PARTNER_TIMEOUT_PARAM,
};

static const struct ep_metric_desc unix_lat_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "round trip of a message over an AF_UNIX stream socket pair, median (lat_unix)" },
};

static const struct ep_metric_desc unix_bw_metrics[] = {
	{ "bandwidth", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MEDIAN, 1,
	  "bytes moved over an AF_UNIX stream socket per second, MB = 10^6 bytes, median (bw_unix)" },
};

static const struct ep_default unix_bw_defaults[] = {
	{ "repetitions", "11" },
	{ "spread", "0" },
	{ "sample_time", "20ms" }, /* a few 10 MB units per sample */
	{ NULL, NULL },
};

static void unix_teardown(void *state)
{
	struct unix_ipc *st = state;

	ep_partner_stop(&st->partner);
	ep_ipc_close(&st->sv[0]);
	ep_ipc_close(&st->sv[1]);
	free(st->buf);
	free(st->wbuf);
}

/* The start of setup, on the engine's zeroed state. */
static void unix_init(struct ep_run *run, struct unix_ipc *st)
{
	st->sv[0] = st->sv[1] = -1;
	st->size = (size_t)ep_param_int(run, "size");
}

/* Page-aligned, touched: no page fault in a timed call. */
static int unix_alloc(struct ep_run *run, char **buf, size_t size)
{
	/*
	 * Each side holds one buffer of @size: the echo process writes into
	 * its copy, the bandwidth kernels allocate one for each side.
	 */
	int rc = ep_mem_check_fits(run, "size", ep_param_text(run, "size"), 2 * (uint64_t)size);

	if (rc)
		return rc;
	if (posix_memalign((void **)buf, (size_t)sysconf(_SC_PAGESIZE), size))
		return ep_partner_size_nomem(run, size);
	memset(*buf, 'u', size);
	return 0;
}

static int unix_pair(struct ep_run *run, struct unix_ipc *st)
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, st->sv))
		return ep_run_fail(run, -errno, "cannot make an AF_UNIX socket pair: %s",
				   strerror(errno));
	return 0;
}

/* Fork @fn on the pair's second end, which this process then closes. */
static int unix_fork(struct ep_run *run, struct unix_ipc *st, const char *name,
		     void (*fn)(void *), void *arg)
{
	struct ep_partner_cfg cfg = ep_partner_cfg_of(run, name, fn, arg);

	return ep_partner_start_on(run, &st->partner, &cfg, &st->sv[1]);
}

/* The end of setup: add the case unless @rc says setup failed (teardown unwinds). */
static int unix_finish_setup(struct ep_run *run, struct unix_ipc *st, int rc, ep_body_fn body,
			     double bytes_per_unit)
{
	struct ep_case c = { .metric = 0, .body = body, .arg = st,
			     .bytes_per_unit = bytes_per_unit };

	return rc ? rc : ep_partner_add_size_case(run, &c);
}

/* ------------------------------------------------------------------ latency */

static int unix_lat_body(void *arg, uint64_t units)
{
	struct unix_ipc *st = arg;

	return ep_partner_round_trips(&st->partner, st->sv[0], st->sv[0], 1, st->buf, st->size,
				      units);
}

static int unix_lat_setup(struct ep_run *run, void **state)
{
	struct unix_ipc *st = *state;
	int rc;

	unix_init(run, st);
	rc = unix_alloc(run, &st->buf, st->size);
	/* An echo process works on its own copy of the buffer; a thread needs one. */
	if (!rc && ep_param_int(run, "mode") == EP_PARTNER_THREADS)
		rc = unix_alloc(run, &st->wbuf, st->size);
	if (!rc)
		rc = unix_pair(run, st);
	if (!rc) {
		st->echo = (struct ep_partner_echo){ .in = st->sv[1], .out = st->sv[1],
						     .buf = st->wbuf ? st->wbuf : st->buf,
						     .size = st->size };
		rc = unix_fork(run, st, "AF_UNIX echo process", ep_partner_echo_loop, &st->echo);
	}
	if (!rc)
		rc = unix_lat_body(st, 1); /* one round trip first: both processes are up */
	return unix_finish_setup(run, st, rc, unix_lat_body, 0.0);
}

/* ---------------------------------------------------------------- bandwidth */

/* The writer process: for each request, send that many bytes in 'size'-byte
 * writes (the last one shorter), as bw_unix's writer. */
static void unix_bw_writer(void *arg)
{
	const struct unix_ipc *st = arg;
	uint64_t todo;

	while (!ep_partner_read_full(st->sv[1], &todo, sizeof(todo))) {
		while (todo) {
			size_t n = todo < st->size ? (size_t)todo : st->size;

			if (ep_partner_write_full(st->sv[1], st->wbuf, n, 0))
				return;
			todo -= n;
		}
	}
}

static int unix_bw_body(void *arg, uint64_t units)
{
	struct unix_ipc *st = arg;
	int rc = 0;

	while (units-- && !rc) {
		rc = ep_partner_write_full(st->sv[0], &st->total, sizeof(st->total), 1);
		rc = rc ? ep_partner_failed(&st->partner, rc, "request")
			: ep_partner_receive(&st->partner, st->sv[0], st->buf, st->size, st->total);
	}
	return rc;
}

static int unix_bw_setup(struct ep_run *run, void **state)
{
	struct unix_ipc *st = *state;
	int rc;

	unix_init(run, st);
	st->total = (uint64_t)ep_param_int(run, "total");
	if (st->total < st->size)
		st->total = st->size; /* as bw_unix */
	rc = unix_alloc(run, &st->buf, st->size);
	if (!rc)
		rc = unix_alloc(run, &st->wbuf, st->size);
	if (!rc)
		rc = unix_pair(run, st);
	if (!rc)
		rc = unix_fork(run, st, "AF_UNIX writer process", unix_bw_writer, st);
	if (!rc)
		rc = unix_bw_body(st, 1); /* one unit first: the writer is up */
	return unix_finish_setup(run, st, rc, unix_bw_body, (double)st->total);
}

const struct ep_kernel ep_kernel_os_unix_lat = {
	.name = "os.unix.lat",
	.summary = "AF_UNIX stream socket round trip between two processes (lmbench lat_unix); mode=process needs fork()",
	EP_PARAMS(unix_lat_params),
	EP_METRICS(unix_lat_metrics),
	.engine_defaults = ep_lmbench_ipc_defaults,
	.setup = unix_lat_setup,
	.teardown = unix_teardown,
	.state_bytes = sizeof(struct unix_ipc),
};

const struct ep_kernel ep_kernel_os_unix_bw = {
	.name = "os.unix.bw",
	.summary = "AF_UNIX stream socket bandwidth from a writer process (lmbench bw_unix); mode=process needs fork()",
	EP_PARAMS(unix_bw_params),
	EP_METRICS(unix_bw_metrics),
	.engine_defaults = unix_bw_defaults,
	.setup = unix_bw_setup,
	.teardown = unix_teardown,
	.state_bytes = sizeof(struct unix_ipc),
};
