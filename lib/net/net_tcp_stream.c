// SPDX-License-Identifier: MIT
/*
 * net_tcp_stream.c - net.tcp.stream: one TCP connection per trial between
 * this host and an embperf peer, written as fast as it goes; netperf's
 * TCP_STREAM (direction=tx, this host sends) and TCP_MAERTS (direction=rx,
 * the peer sends), or both at once on two connections (direction=both, the
 * peer's tcp.both: this thread writes, a second one reads), with CPU load
 * on both ends (doc/methodology-net.md, "TCP and request/response kernels").
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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "io_wait.h"
#include "kclient.h"
#include "lib/core/clock.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/util.h"


enum {
	M_THROUGHPUT, M_THROUGHPUT_TX, M_THROUGHPUT_RX, M_CPU_PROCESS, M_CPU_SYSTEM,
	M_PEER_CPU_PROCESS, M_PEER_CPU_SYSTEM
};

/* direction=tx and rx count the first three; both all five. */
enum { C_THROUGHPUT, C_PEER_CPU_PROCESS, C_PEER_CPU_SYSTEM, C_THROUGHPUT_TX, C_THROUGHPUT_RX };

static const char *const stream_counters[] = {
	"throughput", "peer_cpu_process", "peer_cpu_system", "throughput_tx", "throughput_rx",
};

enum { DIR_TX, DIR_RX, DIR_BOTH };

/* io_wait=select: how long one wait for the socket lasts before the
 * stall and peer checks run again (as a send's or recv's timeout slice). */
#define IO_WAIT_SLICE_MS ((int)(EP_NETK_SLICE_NS / 1000000))

static const struct ep_param_desc stream_params[] = {
	{ "peer", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "HOST[:PORT] of the host running `embperf serve` (port 5301), or 'local' for a peer in "
	  "this process on 127.0.0.1" },
	{ "direction", EP_PT_ENUM, "tx", { { 0, 0 } }, "tx|rx|both", "",
	  "tx: this host sends, the peer receives (netperf TCP_STREAM); rx: the peer sends "
	  "(TCP_MAERTS); both: the two at once, a connection each" },
	{ "size", EP_PT_SIZE, "16k", { { 1, EP_PEER_MAX_STREAM_IO_BYTES } }, NULL, "bytes",
	  "bytes per send() of the sender (both: of each), up to 1 MiB (netperf's default on "
	  "Linux: 16384, the initial SO_SNDBUF; iperf3's: 128k)" },
	{ "rsize", EP_PT_SIZE, "128k", { { 1, EP_PEER_MAX_STREAM_IO_BYTES } }, NULL, "bytes",
	  "bytes per recv() of the receiver (both: of each), up to 1 MiB (netperf -M; its "
	  "default on Linux: 131072, the initial SO_RCVBUF)" },
	{ "nodelay", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",
	  "TCP_NODELAY on both ends' data sockets (netperf -D)" },
	{ "sockbuf", EP_PT_SIZE, "0", { { 0, EP_PEER_MAX_SOCKBUF_BYTES } }, NULL, "bytes",
	  "SO_SNDBUF and SO_RCVBUF of both ends' data sockets (netperf -s/-S); 0: the system's "
	  "autotuning" },
	{ "io_wait", EP_PT_ENUM, "none", { { 0, 0 } }, "none|select", "",
	  "none: each send() and recv() is called straight away, as netperf does; select: each "
	  "waits first for the socket to be ready (poll()), on both ends, as iperf3's loop "
	  "does around its reads and writes (doc/methodology-net.md); needs a peer of protocol "
	  "1.2" },
	{ "timeout", EP_PT_DURATION, "5s", { { 1000000, 600000000000LL } }, NULL, "ns",
	  "how long to wait for the peer: connecting, each answer, and a stalled connection" },
};

static const struct ep_metric_desc stream_metrics[] = {
	[M_THROUGHPUT] = { "throughput", "Mbit/s", EP_METRIC_TRIAL_COUNTER, 1.0,
			   EP_PRIMARY_MEDIAN, 1,
			   "TCP payload the receiver got in the measured part / the receiver's time "
			   "for it (Mbit = 10^6 bits); both: the sum of the two ways" },
	[M_THROUGHPUT_TX] = { "throughput_tx", "Mbit/s", EP_METRIC_TRIAL_COUNTER, 1.0,
			      EP_PRIMARY_MEDIAN, 1,
			      "direction=both: the way this host sends, as the peer received it" },
	[M_THROUGHPUT_RX] = { "throughput_rx", "Mbit/s", EP_METRIC_TRIAL_COUNTER, 1.0,
			      EP_PRIMARY_MEDIAN, 1,
			      "direction=both: the way the peer sends, as this host received it" },
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_THIS_PROCESS_HELP),
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM(EP_NETK_CPU_SYSTEM_HELP),
	[M_PEER_CPU_PROCESS] = EP_METRIC_PEER_CPU("peer_cpu_process", EP_PEER_CPU_PROCESS_HELP),
	[M_PEER_CPU_SYSTEM] = EP_METRIC_PEER_CPU("peer_cpu_system", EP_PEER_CPU_SYSTEM_HELP),
};

/**
 * struct tcp_stream - the kernel's state.
 * @dir:         DIR_TX, DIR_RX or DIR_BOTH.
 * @size_bytes:  bytes per send() (this host's for tx, the peer's for rx, both's for both).
 * @rsize_bytes: bytes per recv() (the peer's for tx, this host's for rx, both's for both).
 * @io_wait:     1: poll() before each send() and recv() (io_wait=select).
 * @timeout_ns:  the longest wait for the peer, also for a stalled connection.
 * @flow_cap_ns: the peer ends the flow by itself a little after this.
 * @data_fd:     the trial's connection (-1 between trials): the one this host
 *               writes for tx and both, reads for rx.
 * @rx_fd:       direction=both: the connection this host reads (-1 otherwise).
 * @buf:         what is written (tx, both).
 * @rbuf:        what is read into (rx, both).
 * @req:         the running trial's request (flow id).
 */
struct tcp_stream {
	struct ep_run *run;
	struct ep_peer_conn peer;
	int dir;
	uint32_t size_bytes;
	uint32_t rsize_bytes;
	int nodelay;
	uint32_t sockbuf_bytes;
	int io_wait;
	uint64_t timeout_ns;
	uint64_t flow_cap_ns;
	int data_fd;
	int rx_fd;
	char *buf;
	char *rbuf;
	struct ep_start req;
	char label[160];
};

static int fail(struct tcp_stream *st, int rc, const char *what, const char *why)
{
	return ep_netk_fail(st->run, &st->data_fd, rc, "net.tcp.stream: peer %s: %s: %s",
			    st->peer.name, what, why);
}

/* A data connection to the peer's @port into *@fd. */
static int connect_data(struct tcp_stream *st, uint16_t port, int *fd)
{
	char err[80];
	int rc = ep_netk_tcp_connect(&st->peer, port, st->nodelay, st->sockbuf_bytes,
				     st->timeout_ns, EP_NETK_SLICE_NS);

	if (rc >= 0) {
		*fd = rc;
		return 0;
	}
	snprintf(err, sizeof(err), "port %u: %s", port, strerror(-rc));
	return fail(st, rc, "data connection", err);
}

/** stream_before_trial() - before each trial (not timed): a new flow and its connections. */
static int stream_before_trial(void *arg, int index)
{
	struct tcp_stream *st = arg;
	char err[320];
	uint16_t port = 0;
	int rc;

	(void)index;
	ep_netk_close(&st->data_fd);
	ep_netk_close(&st->rx_fd);
	memset(&st->req, 0, sizeof(st->req));
	st->req.test = st->dir == DIR_TX ? EP_TEST_TCP_SINK
		       : st->dir == DIR_RX ? EP_TEST_TCP_SOURCE
					   : EP_TEST_TCP_BOTH;
	st->req.size_bytes = st->size_bytes;
	st->req.recv_bytes = st->rsize_bytes;
	st->req.duration_ns = st->flow_cap_ns;
	st->req.nodelay = (uint32_t)st->nodelay;
	st->req.sockbuf_bytes = st->sockbuf_bytes;
	st->req.io_wait = (uint32_t)st->io_wait;
	rc = ep_peer_start(&st->peer, &st->req, &port, err, sizeof(err));
	if (rc)
		return ep_run_fail(st->run, rc, "net.tcp.stream: %s", err);
	rc = connect_data(st, port, &st->data_fd);
	if (!rc && st->dir == DIR_BOTH)
		rc = st->peer.source_port ? connect_data(st, st->peer.source_port, &st->rx_fd)
					  : fail(st, -EPROTO, "ready", "no port for the flow it sends");
	return rc;
}

/* The name of a data connection in messages: both has two. */
static const char *conn_name(const struct tcp_stream *st, int reading)
{
	return st->dir != DIR_BOTH ? "data connection"
	       : reading	   ? "data connection (rx)"
				   : "data connection (tx)";
}

/**
 * stalled() - a send or receive timed out (one slice): the peer left, or
 * the connection stalled for longer than the timeout since @progress_ns.
 * Records nothing (safe on the reading thread of both): *@what (set to the
 * control connection when that is the cause) and @why say what happened.
 * Return: 0 to go on, -ECONNRESET or -ETIMEDOUT.
 */
static int stalled(const struct tcp_stream *st, uint64_t progress_ns, const char **what,
		   char *why, size_t why_len)
{
	if (ep_netk_peer_gone(&st->peer)) {
		*what = "control connection";
		snprintf(why, why_len, "the peer ended the session");
		return -ECONNRESET;
	}
	if (ep_now_ns() - progress_ns < st->timeout_ns)
		return 0;
	snprintf(why, why_len, "no progress for %.1f s (parameter 'timeout')",
		 (double)st->timeout_ns / 1e9);
	return -ETIMEDOUT;
}

/* stalled() on the body's thread: the failure recorded. */
static int wait_slice(struct tcp_stream *st, uint64_t progress_ns)
{
	const char *what = conn_name(st, 0);
	char why[80];
	int rc = stalled(st, progress_ns, &what, why, sizeof(why));

	return rc ? fail(st, rc, what, why) : 0;
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
			return fail(st, -errno, conn_name(st, 0), strerror(errno));
		if (n < 0) {
			int rc = wait_slice(st, since);

			if (rc)
				return rc;
		}
	}
}

/* Mbit/s of @bytes in @ns (NaN without time). */
static double mbit_per_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 * 1e3 / (double)ns : NAN;
}

/* Per-trial figures from the peer's report: its CPU load; @mbps the receiver's rate. */
static void count_figures(struct ep_tally *ta, double mbps, const struct ep_report *r)
{
	ep_tally_count_after(ta, C_THROUGHPUT, mbps);
	ep_tally_count_after(ta, C_PEER_CPU_PROCESS, ep_netk_or_nan(r->cpu_process_pct));
	ep_tally_count_after(ta, C_PEER_CPU_SYSTEM, ep_netk_or_nan(r->cpu_system_pct));
}

/*
 * The writes until the trial ends or *@quit is set (both: the reading way
 * failed; NULL for tx); *@ramp_bytes and *@measured_bytes: written before
 * and during the measured part.
 */
static int write_stream(struct tcp_stream *st, struct ep_trial *t, const int *quit,
			uint64_t *ramp_bytes, uint64_t *measured_bytes)
{
	struct ep_tally *ta = ep_trial_tally(t);
	uint64_t total = 0, progress = ep_now_ns();
	int measuring = 0, moved = 0;

	while (ep_trial_running(t) && !(quit && __atomic_load_n(quit, __ATOMIC_ACQUIRE))) {
		ssize_t n;

		if (!measuring && ep_trial_start_ns(t)) {
			measuring = 1;
			*ramp_bytes = total;
		}
		n = ep_net_io_ready(st->io_wait, st->data_fd, POLLOUT, IO_WAIT_SLICE_MS)
			    ? send(st->data_fd, st->buf, st->size_bytes, MSG_NOSIGNAL)
			    : -1;
		if (n > 0) {
			total += (uint64_t)n;
			ep_tally_add(ta, 1, (uint64_t)n);
			moved = 1;
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return fail(st, -errno, conn_name(st, 0), strerror(errno));
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

/*
 * After the writes: the end of the stream, then the peer's report with the
 * receiver's rate of the measured bytes in *@mbps. Both: the reading
 * connection is closed first, so that the peer's writes fail and its
 * source ends.
 */
static int tx_report(struct tcp_stream *st, uint64_t ramp, uint64_t measured,
		     struct ep_report *r, double *mbps)
{
	char err[320];
	int rc = finish_tx(st);

	if (rc)
		return rc;
	ep_netk_close(&st->data_fd);
	ep_netk_close(&st->rx_fd);
	rc = ep_peer_stop_marks(&st->peer, st->req.flow, ramp, measured, r, err, sizeof(err));
	if (rc)
		return ep_run_fail(st->run, rc, "net.tcp.stream: %s", err);
	if (r->received < ramp + measured)
		return fail(st, -EPROTO, "report", "the peer received less than was sent");
	*mbps = mbit_per_s(r->bytes, r->elapsed_ns);
	return 0;
}

/*
 * The receiver's rate, or when its arrival log could not bound the measured
 * bytes (they all arrived between two of its time points: a short trial on
 * an emulated or very busy machine, seen under qemu-user in CI), this
 * host's: the bytes it wrote in the measured part over that part's time.
 */
static double tx_rate(struct tcp_stream *st, struct ep_trial *t, uint64_t measured, double mbps)
{
	if (!isnan(mbps))
		return mbps;
	ep_run_log(st->run, EMBPERF_LOG_WARNING,
		   "net.tcp.stream: the peer could not time the measured bytes (they arrived "
		   "between two of its time points); this trial's throughput is the sender's");
	return mbit_per_s(measured, ep_trial_elapsed_ns(t));
}

static int body_tx(struct tcp_stream *st, struct ep_trial *t)
{
	uint64_t ramp = 0, measured = 0;
	struct ep_report r;
	double mbps = NAN;
	int rc = write_stream(st, t, NULL, &ramp, &measured);

	if (!rc)
		rc = tx_report(st, ramp, measured, &r, &mbps);
	if (!rc)
		count_figures(ep_trial_tally(t), tx_rate(st, t, measured, mbps), &r);
	return rc;
}

/**
 * struct reader - this host's reads of one connection over a trial: rx's on
 * the body's thread, both's on a thread of its own, which records no
 * message (the body's thread does, from @rc, @what and @why).
 * @ta:   where the reads are counted (both: a worker's tally).
 * @quit: both: one way failed, the other stops too (atomic).
 * @why:  what failed ("": strerror(-@rc)).
 */
struct reader {
	struct tcp_stream *st;
	struct ep_trial *t;
	struct ep_tally *ta;
	int fd;
	int quit;
	int rc;
	const char *what;
	char why[80];
};

static int read_failed(struct reader *rd, int rc)
{
	rd->rc = rc;
	__atomic_store_n(&rd->quit, 1, __ATOMIC_RELEASE);
	return rc;
}

/* The reads until the trial ends, the writing way fails (both), or they fail. */
static int read_stream(struct reader *rd)
{
	uint64_t progress = ep_now_ns();
	int moved = 0;

	while (ep_trial_running(rd->t) && !__atomic_load_n(&rd->quit, __ATOMIC_ACQUIRE)) {
		ssize_t n = ep_net_io_ready(rd->st->io_wait, rd->fd, POLLIN, IO_WAIT_SLICE_MS)
				    ? recv(rd->fd, rd->st->rbuf, rd->st->rsize_bytes, 0)
				    : -1;
		int rc;

		if (n > 0) {
			ep_tally_add(rd->ta, 1, (uint64_t)n);
			moved = 1;
			continue;
		}
		if (n == 0) {
			snprintf(rd->why, sizeof(rd->why), "the peer closed it mid-trial");
			return read_failed(rd, -ECONNRESET);
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return read_failed(rd, -errno);
		if (moved) {
			progress = ep_now_ns();
			moved = 0;
		}
		rc = stalled(rd->st, progress, &rd->what, rd->why, sizeof(rd->why));
		if (rc)
			return read_failed(rd, rc);
	}
	return 0;
}

static int read_fail(struct tcp_stream *st, const struct reader *rd)
{
	return fail(st, rd->rc, rd->what, rd->why[0] ? rd->why : strerror(-rd->rc));
}

static int body_rx(struct tcp_stream *st, struct ep_trial *t)
{
	struct ep_tally *ta = ep_trial_tally(t);
	struct reader rd = { .st = st, .t = t, .ta = ta, .fd = st->data_fd,
			     .what = conn_name(st, 1) };
	struct ep_report r;
	char err[320];
	int rc;

	if (read_stream(&rd))
		return read_fail(st, &rd);
	ep_netk_close(&st->data_fd); /* the peer's writes fail from here: its flow ends */
	rc = ep_peer_stop(&st->peer, st->req.flow, 0, &r, err, sizeof(err));
	if (rc)
		return ep_run_fail(st->run, rc, "net.tcp.stream: %s", err);
	count_figures(ta, mbit_per_s(ep_tally_bytes(ta), ep_tally_elapsed_ns(ta)), &r);
	return 0;
}

static void *reader_main(void *arg)
{
	(void)read_stream(arg);
	return NULL;
}

/* both, after the trial: the peer's report, the two ways and their sum. */
static int both_figures(struct tcp_stream *st, struct ep_trial *t, uint64_t ramp,
			uint64_t measured, uint64_t rx_bytes, uint64_t rx_ns)
{
	struct ep_tally *ta = ep_trial_tally(t);
	double tx_mbps = NAN, rx_mbps = mbit_per_s(rx_bytes, rx_ns);
	struct ep_report r;
	int rc = tx_report(st, ramp, measured, &r, &tx_mbps);

	if (rc)
		return rc;
	if (r.sent < rx_bytes)
		return fail(st, -EPROTO, "report", "the peer sent less than this host received");
	tx_mbps = tx_rate(st, t, measured, tx_mbps);
	count_figures(ta, tx_mbps + rx_mbps, &r);
	ep_tally_count_after(ta, C_THROUGHPUT_TX, tx_mbps);
	ep_tally_count_after(ta, C_THROUGHPUT_RX, rx_mbps);
	return 0;
}

/*
 * both: this thread writes the connection to the peer's sink while a second
 * one reads the connection from its source, in the same trial; the reads
 * count into the second thread's tally, kept apart until the trial ended.
 */
static int body_both(struct tcp_stream *st, struct ep_trial *t)
{
	struct reader rd = { .st = st, .t = t, .fd = st->rx_fd, .what = conn_name(st, 1) };
	uint64_t ramp = 0, measured = 0, rx_bytes, rx_ns;
	pthread_t th;
	int rc;

	rd.ta = ep_trial_tally_new(t);
	if (!rd.ta)
		return -ENOMEM;
	rc = -pthread_create(&th, NULL, reader_main, &rd);
	if (rc) {
		ep_trial_tally_merge(t, rd.ta);
		return fail(st, rc, "reading thread", strerror(-rc));
	}
	rc = write_stream(st, t, &rd.quit, &ramp, &measured);
	if (rc)
		__atomic_store_n(&rd.quit, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	rx_bytes = ep_tally_bytes(rd.ta);
	rx_ns = ep_tally_elapsed_ns(rd.ta);
	ep_trial_tally_merge(t, rd.ta);
	if (rc)
		return rc;
	if (rd.rc)
		return read_fail(st, &rd);
	return both_figures(st, t, ramp, measured, rx_bytes, rx_ns);
}

/** stream_body() - one trial: write, read or both until the engine's deadline, then the figures. */
static int stream_body(void *arg, struct ep_trial *t)
{
	struct tcp_stream *st = arg;

	return st->dir == DIR_TX ? body_tx(st, t) : st->dir == DIR_RX ? body_rx(st, t)
								       : body_both(st, t);
}

/** stream_teardown() - close the connections and the session (bye). */
static void stream_teardown(void *state)
{
	struct tcp_stream *st = state;

	ep_netk_close(&st->data_fd);
	ep_netk_close(&st->rx_fd);
	ep_peer_close(&st->peer);
	free(st->buf);
	free(st->rbuf);
}

/*
 * A parameter's value the peer must know (@minor and later), refused before
 * any trial when it is older: @param=@value, and what it accepts instead.
 */
static int check_peer_minor(struct tcp_stream *st, const char *param, const char *value,
			    int minor, const char *accepted)
{
	const struct ep_msg *w = &st->peer.welcome;

	if (w->proto_minor >= minor)
		return 0;
	return ep_run_fail(st->run, -EPROTO, "net.tcp.stream: parameter '%s': value '%s': "
			   "the peer at %s does not serve %s=%s; it speaks protocol version "
			   "%d.%d (%s), %s=%s needs %d.%d or later; update it; accepted with "
			   "this peer: %s", param, value, st->peer.name, param, value, w->proto,
			   w->proto_minor, w->software[0] ? w->software : "software unnamed", param,
			   value, EP_PROTO_VERSION, minor, accepted);
}

/* direction=both and io_wait=select need a peer that knows them. */
static int check_peer(struct tcp_stream *st)
{
	int rc = 0;

	if (st->dir == DIR_BOTH)
		rc = check_peer_minor(st, "direction", "both", EP_PROTO_MINOR_TCP_BOTH, "tx, rx");
	if (!rc && st->io_wait)
		rc = check_peer_minor(st, "io_wait", "select", EP_PROTO_MINOR_IO_WAIT, "none");
	return rc;
}

/* The buffers of the direction: the writes' (tx, both), the reads' (rx, both). */
static int alloc_buffers(struct tcp_stream *st)
{
	if (st->dir != DIR_RX && !(st->buf = calloc(1, st->size_bytes)))
		return -ENOMEM;
	if (st->dir != DIR_TX && !(st->rbuf = malloc(st->rsize_bytes)))
		return -ENOMEM;
	return 0;
}

/** stream_setup() - read the parameters, connect to the peer, add the trial case. */
static int stream_setup(struct ep_run *run, void **state)
{
	struct tcp_stream *st = *state;
	struct ep_trial_case tc = {
		.body = stream_body,
		.before_trial = stream_before_trial,
		.counters = stream_counters,
	};
	int rc;

	st->data_fd = -1;
	st->rx_fd = -1;
	st->peer.fd = -1;
	st->run = run;
	st->dir = (int)ep_param_int(run, "direction");
	st->size_bytes = (uint32_t)ep_param_int(run, "size");
	st->rsize_bytes = (uint32_t)ep_param_int(run, "rsize");
	st->nodelay = (int)ep_param_int(run, "nodelay");
	st->sockbuf_bytes = (uint32_t)ep_param_int(run, "sockbuf");
	st->io_wait = (int)ep_param_int(run, "io_wait");
	st->timeout_ns = (uint64_t)ep_param_int(run, "timeout");
	st->flow_cap_ns = ep_netk_flow_cap_ns(run);
	if (alloc_buffers(st))
		return -ENOMEM;
	snprintf(st->label, sizeof(st->label), "direction=%s size=%u rsize=%u%s%s",
		 ep_param_text(run, "direction"), st->size_bytes, st->rsize_bytes,
		 st->nodelay ? " nodelay=1" : "", st->io_wait ? " io_wait=select" : "");
	tc.labels = st->label;
	tc.arg = st;
	/* The two ways' figures are counted by both only: the others report none. */
	tc.n_counters = st->dir == DIR_BOTH ? (int)EP_ARRAY_SIZE(stream_counters) : C_THROUGHPUT_TX;
	/* Not checked against the peer's max_size: that caps datagrams and
	 * messages; both sides cap a stream's writes at EP_PEER_MAX_STREAM_IO_BYTES. */
	rc = ep_netk_open(run, "net.tcp.stream", &st->peer);
	if (!rc)
		rc = check_peer(st);
	return rc ? rc : ep_run_add_trial(run, &tc);
}

/* A longer ramp than the other network kernels': slow start is left out of the count. */
static const struct ep_default stream_defaults[] = EP_NET_DEFAULTS("200ms", "100ms");

const struct ep_kernel ep_kernel_net_tcp_stream = {
	.name = "net.tcp.stream",
	.summary = "TCP bulk transfer to or from an embperf peer, or both ways at once (netperf "
		   "TCP_STREAM/TCP_MAERTS): Mbit/s, CPU load on both ends",
	EP_PARAMS(stream_params),
	EP_METRICS(stream_metrics),
	.engine_defaults = stream_defaults,
	.setup = stream_setup,
	.teardown = stream_teardown,
	.state_bytes = sizeof(struct tcp_stream),
	.trials = 1,
};
