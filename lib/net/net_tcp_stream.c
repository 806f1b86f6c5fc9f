// SPDX-License-Identifier: MIT
/*
 * net_tcp_stream.c - net.tcp.stream: one TCP connection per trial between
 * this host and an embperf peer, written as fast as it goes; netperf's
 * TCP_STREAM (direction=tx, this host sends) and TCP_MAERTS (direction=rx,
 * the peer sends), with CPU load on both ends (doc/methodology-net.md,
 * "TCP and request/response kernels").
 *
 * The throughput is the receiver's: bytes received over the receiver's own
 * time. rx: this host reads, and counts what it read during the measured
 * part. tx: the peer reads; this host tells it, after the trial, which bytes
 * of the stream it wrote during the measured part (from the byte after the
 * ramp's to the last), and the peer times those bytes from its log of
 * arrivals. No clock is shared between the hosts: only byte offsets cross.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "kclient.h"
#include "lib/core/clock.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/util.h"


enum { M_THROUGHPUT, M_CPU_PROCESS, M_CPU_SYSTEM, M_PEER_CPU_PROCESS, M_PEER_CPU_SYSTEM };

enum { C_THROUGHPUT, C_PEER_CPU_PROCESS, C_PEER_CPU_SYSTEM };

static const char *const stream_counters[] = {
	"throughput", "peer_cpu_process", "peer_cpu_system",
};

static const struct ep_param_desc stream_params[] = {
	{ "peer", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "HOST[:PORT] of the host running `embperf serve` (port 5301), or 'local' for a peer in "
	  "this process on 127.0.0.1" },
	{ "direction", EP_PT_ENUM, "tx", { { 0, 0 } }, "tx|rx", "",
	  "tx: this host sends, the peer receives (netperf TCP_STREAM); rx: the peer sends "
	  "(TCP_MAERTS)" },
	{ "size", EP_PT_SIZE, "16k", { { 1, EP_PEER_MAX_STREAM_IO_BYTES } }, NULL, "bytes",
	  "bytes per send() of the sender, up to 1 MiB (netperf's default on Linux: 16384, the "
	  "initial SO_SNDBUF; iperf3's: 128k)" },
	{ "rsize", EP_PT_SIZE, "128k", { { 1, EP_PEER_MAX_STREAM_IO_BYTES } }, NULL, "bytes",
	  "bytes per recv() of the receiver, up to 1 MiB (netperf -M; its default on Linux: "
	  "131072, the initial SO_RCVBUF)" },
	{ "nodelay", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",
	  "TCP_NODELAY on both ends' data sockets (netperf -D)" },
	{ "sockbuf", EP_PT_SIZE, "0", { { 0, EP_PEER_MAX_SOCKBUF_BYTES } }, NULL, "bytes",
	  "SO_SNDBUF and SO_RCVBUF of both ends' data sockets (netperf -s/-S); 0: the system's "
	  "autotuning" },
	{ "timeout", EP_PT_DURATION, "5s", { { 1000000, 600000000000LL } }, NULL, "ns",
	  "how long to wait for the peer: connecting, each answer, and a stalled connection" },
};

static const struct ep_metric_desc stream_metrics[] = {
	[M_THROUGHPUT] = { "throughput", "Mbit/s", EP_METRIC_TRIAL_COUNTER, 1.0,
			   EP_PRIMARY_MEDIAN, 1,
			   "TCP payload the receiver got in the measured part / the receiver's time "
			   "for it (Mbit = 10^6 bits)" },
	[M_CPU_PROCESS] = { "cpu_process", "%", EP_METRIC_TRIAL_CPU_PROCESS, 1.0,
			    EP_PRIMARY_MEDIAN, 0, "this process's CPU load, % of one CPU" },
	[M_CPU_SYSTEM] = { "cpu_system", "%", EP_METRIC_TRIAL_CPU_SYSTEM, 1.0, EP_PRIMARY_MEDIAN, 0,
			   "this host's CPU load, % of all CPUs (netperf's LOCAL_CPU_UTIL)" },
	[M_PEER_CPU_PROCESS] = { "peer_cpu_process", "%", EP_METRIC_TRIAL_COUNTER, 1.0,
				 EP_PRIMARY_MEDIAN, 0,
				 "the peer process's CPU load over the flow, % of one CPU" },
	[M_PEER_CPU_SYSTEM] = { "peer_cpu_system", "%", EP_METRIC_TRIAL_COUNTER, 1.0,
				EP_PRIMARY_MEDIAN, 0,
				"the peer host's CPU load over the flow, % of all CPUs "
				"(netperf's REMOTE_CPU_UTIL)" },
};

/**
 * struct tcp_stream - the kernel's state.
 * @tx:          direction=tx.
 * @size_bytes:  bytes per send() (this host's for tx, the peer's for rx).
 * @rsize_bytes: bytes per recv() (the peer's for tx, this host's for rx).
 * @timeout_ns:  the longest wait for the peer, also for a stalled connection.
 * @flow_cap_ns: the peer ends the flow by itself a little after this.
 * @data_fd:     the trial's connection (-1 between trials).
 * @buf:         what is written, or read into.
 * @req:         the running trial's request (flow id).
 */
struct tcp_stream {
	struct ep_run *run;
	struct ep_peer_conn peer;
	int tx;
	uint32_t size_bytes;
	uint32_t rsize_bytes;
	int nodelay;
	uint32_t sockbuf_bytes;
	uint64_t timeout_ns;
	uint64_t flow_cap_ns;
	int data_fd;
	char *buf;
	struct ep_start req;
	char label[160];
};

static int fail(struct tcp_stream *st, int rc, const char *what, const char *why)
{
	return ep_netk_fail(st->run, &st->data_fd, rc, "net.tcp.stream: peer %s: %s: %s",
			    st->peer.name, what, why);
}

/** stream_before_trial() - before each trial (not timed): a new flow and its connection. */
static int stream_before_trial(void *arg, int index)
{
	struct tcp_stream *st = arg;
	char err[320];
	uint16_t port = 0;
	int rc;

	(void)index;
	ep_netk_close(&st->data_fd);
	memset(&st->req, 0, sizeof(st->req));
	st->req.test = st->tx ? EP_TEST_TCP_SINK : EP_TEST_TCP_SOURCE;
	st->req.size_bytes = st->size_bytes;
	st->req.recv_bytes = st->rsize_bytes;
	st->req.duration_ns = st->flow_cap_ns;
	st->req.nodelay = (uint32_t)st->nodelay;
	st->req.sockbuf_bytes = st->sockbuf_bytes;
	rc = ep_peer_start(&st->peer, &st->req, &port, err, sizeof(err));
	if (rc)
		return ep_run_fail(st->run, rc, "net.tcp.stream: %s", err);
	rc = ep_netk_tcp_connect(&st->peer, port, st->nodelay, st->sockbuf_bytes, st->timeout_ns,
				 EP_NETK_SLICE_NS);
	if (rc < 0) {
		snprintf(err, sizeof(err), "port %u: %s", port, strerror(-rc));
		return fail(st, rc, "data connection", err);
	}
	st->data_fd = rc;
	return 0;
}

/**
 * wait_slice() - a send or receive timed out (one slice): the peer left, or
 * the connection stalled for longer than the timeout since @progress_ns.
 * Return: 0 to go on, or the failure.
 */
static int wait_slice(struct tcp_stream *st, uint64_t progress_ns)
{
	char why[80];

	if (ep_netk_peer_gone(&st->peer))
		return fail(st, -ECONNRESET, "control connection", "the peer ended the session");
	if (ep_now_ns() - progress_ns < st->timeout_ns)
		return 0;
	snprintf(why, sizeof(why), "no progress for %.1f s (parameter 'timeout')",
		 (double)st->timeout_ns / 1e9);
	return fail(st, -ETIMEDOUT, "data connection", why);
}

/* tx, after the trial: end the stream and wait until the peer has all of it. */
static int finish_tx(struct tcp_stream *st)
{
	uint64_t since = ep_now_ns();
	char byte;

	shutdown(st->data_fd, SHUT_WR);
	for (;;) {
		ssize_t n = recv(st->data_fd, &byte, 1, 0);

		if (n == 0)
			return 0; /* the peer read to the end and said so */
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return fail(st, -errno, "data connection", strerror(errno));
		if (n < 0) {
			int rc = wait_slice(st, since);

			if (rc)
				return rc;
		}
	}
}

/* Per-trial figures from the peer's report: its CPU load; @mbps the receiver's rate. */
static void count_figures(struct ep_tally *ta, double mbps, const struct ep_report *r)
{
	ep_tally_count_after(ta, C_THROUGHPUT, mbps);
	ep_tally_count_after(ta, C_PEER_CPU_PROCESS, ep_netk_or_nan(r->cpu_process_pct));
	ep_tally_count_after(ta, C_PEER_CPU_SYSTEM, ep_netk_or_nan(r->cpu_system_pct));
}

/* The writes; *@ramp_bytes and *@measured_bytes: written before and during the measured part. */
static int write_stream(struct tcp_stream *st, struct ep_trial *t, uint64_t *ramp_bytes,
			uint64_t *measured_bytes)
{
	struct ep_tally *ta = ep_trial_tally(t);
	uint64_t total = 0, progress = ep_now_ns();
	int measuring = 0, moved = 0;

	while (ep_trial_running(t)) {
		ssize_t n;

		if (!measuring && ep_trial_start_ns(t)) {
			measuring = 1;
			*ramp_bytes = total;
		}
		n = send(st->data_fd, st->buf, st->size_bytes, MSG_NOSIGNAL);
		if (n > 0) {
			total += (uint64_t)n;
			ep_tally_add(ta, 1, (uint64_t)n);
			moved = 1;
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return fail(st, -errno, "data connection", strerror(errno));
		if (moved) { /* a slice's wait: the clock is read only then */
			progress = ep_now_ns();
			moved = 0;
		}
		if (wait_slice(st, progress))
			return -ETIMEDOUT;
	}
	if (!measuring)
		*ramp_bytes = total;
	*measured_bytes = total - *ramp_bytes;
	return 0;
}

static int body_tx(struct tcp_stream *st, struct ep_trial *t)
{
	uint64_t ramp = 0, measured = 0;
	struct ep_report r;
	char err[320];
	int rc = write_stream(st, t, &ramp, &measured);

	if (!rc)
		rc = finish_tx(st);
	if (rc)
		return rc;
	ep_netk_close(&st->data_fd);
	rc = ep_peer_stop_marks(&st->peer, st->req.flow, ramp, measured, &r, err, sizeof(err));
	if (rc)
		return ep_run_fail(st->run, rc, "net.tcp.stream: %s", err);
	if (r.received < ramp + measured)
		return fail(st, -EPROTO, "report", "the peer received less than was sent");
	count_figures(ep_trial_tally(t),
		      r.elapsed_ns ? (double)r.bytes * 8.0 * 1e3 / (double)r.elapsed_ns : NAN, &r);
	return 0;
}

static int body_rx(struct tcp_stream *st, struct ep_trial *t)
{
	struct ep_tally *ta = ep_trial_tally(t);
	uint64_t progress = ep_now_ns();
	struct ep_report r;
	char err[320];
	int rc, moved = 0;

	while (ep_trial_running(t)) {
		ssize_t n = recv(st->data_fd, st->buf, st->rsize_bytes, 0);

		if (n > 0) {
			ep_tally_add(ta, 1, (uint64_t)n);
			moved = 1;
			continue;
		}
		if (n == 0)
			return fail(st, -ECONNRESET, "data connection", "the peer closed it mid-trial");
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return fail(st, -errno, "data connection", strerror(errno));
		if (moved) {
			progress = ep_now_ns();
			moved = 0;
		}
		if (wait_slice(st, progress))
			return -ETIMEDOUT;
	}
	ep_netk_close(&st->data_fd); /* the peer's writes fail from here: its flow ends */
	rc = ep_peer_stop(&st->peer, st->req.flow, 0, &r, err, sizeof(err));
	if (rc)
		return ep_run_fail(st->run, rc, "net.tcp.stream: %s", err);
	count_figures(ta, ep_tally_elapsed_ns(ta) ? (double)ep_tally_bytes(ta) * 8.0 * 1e3 /
				     (double)ep_tally_elapsed_ns(ta) : NAN, &r);
	return 0;
}

/** stream_body() - one trial: write or read until the engine's deadline, then the figures. */
static int stream_body(void *arg, struct ep_trial *t)
{
	struct tcp_stream *st = arg;

	return st->tx ? body_tx(st, t) : body_rx(st, t);
}

/** stream_teardown() - close the connection and the session (bye). */
static void stream_teardown(void *state)
{
	struct tcp_stream *st = state;

	if (!st)
		return;
	ep_netk_close(&st->data_fd);
	ep_peer_close(&st->peer);
	free(st->buf);
	free(st);
}

/** stream_setup() - read the parameters, connect to the peer, add the trial case. */
static int stream_setup(struct ep_run *run, void **state)
{
	struct tcp_stream *st = calloc(1, sizeof(*st));
	struct ep_trial_case tc = {
		.body = stream_body,
		.before_trial = stream_before_trial,
		.counters = stream_counters,
		.n_counters = (int)EP_ARRAY_SIZE(stream_counters),
	};
	if (!st)
		return -ENOMEM;
	st->data_fd = -1;
	st->peer.fd = -1;
	st->run = run;
	*state = st;
	st->tx = ep_param_int(run, "direction") == 0;
	st->size_bytes = (uint32_t)ep_param_int(run, "size");
	st->rsize_bytes = (uint32_t)ep_param_int(run, "rsize");
	st->nodelay = (int)ep_param_int(run, "nodelay");
	st->sockbuf_bytes = (uint32_t)ep_param_int(run, "sockbuf");
	st->timeout_ns = (uint64_t)ep_param_int(run, "timeout");
	st->flow_cap_ns = ep_netk_flow_cap_ns(run);
	st->buf = calloc(1, st->size_bytes > st->rsize_bytes ? st->size_bytes : st->rsize_bytes);
	if (!st->buf)
		return -ENOMEM;
	snprintf(st->label, sizeof(st->label), "direction=%s size=%u rsize=%u%s",
		 ep_param_text(run, "direction"), st->size_bytes, st->rsize_bytes,
		 st->nodelay ? " nodelay=1" : "");
	tc.labels = st->label;
	tc.arg = st;
	/* Not checked against the peer's max_size: that caps datagrams and
	 * messages; both sides cap a stream's writes at EP_PEER_MAX_STREAM_IO_BYTES. */
	return ep_netk_setup_tail(run, "net.tcp.stream", &st->peer, NULL, 0, &tc);
}

/* A longer ramp than the other network kernels': slow start is left out of the count. */
static const struct ep_default stream_defaults[] = EP_NET_DEFAULTS("200ms", "100ms");

const struct ep_kernel ep_kernel_net_tcp_stream = {
	.name = "net.tcp.stream",
	.summary = "TCP bulk transfer to or from an embperf peer (netperf TCP_STREAM/TCP_MAERTS): "
		   "Mbit/s, CPU load on both ends",
	.params = stream_params,
	.n_params = (int)EP_ARRAY_SIZE(stream_params),
	.metrics = stream_metrics,
	.n_metrics = (int)EP_ARRAY_SIZE(stream_metrics),
	.engine_defaults = stream_defaults,
	.setup = stream_setup,
	.teardown = stream_teardown,
	.trials = 1,
};
