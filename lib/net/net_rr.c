// SPDX-License-Identifier: MIT
/*
 * net_rr.c - the request/response kernels against an embperf peer, after
 * netperf's TCP_RR, TCP_CRR and UDP_RR (doc/methodology-net.md, "TCP and
 * request/response kernels"):
 *
 *   net.tcp.rr   one connection per trial; a transaction is a request of
 *                'request' bytes and the peer's response of 'response' bytes
 *   net.tcp.crr  a new connection per transaction: connect, request,
 *                response, the peer's close, this side's close
 *   net.udp.rr   a request datagram and a response datagram; a response that
 *                does not come within 'lost_after' is a lost transaction,
 *                and the next one goes from a new socket (a new port), so a
 *                late response is never taken for the next one's
 *
 * One transaction is outstanding at a time. Each gives one latency (from
 * just before the request is written to just after the last byte of the
 * response is read: the round trip, not half of it) into the trial's
 * distribution; transactions/s is their count over the measured time.
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "client.h"
#include "kclient.h"
#include "lib/core/clock.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/util.h"
#include "udp_io.h"

enum {
	M_TRANSACTIONS, M_LATENCY, M_CPU_PROCESS, M_CPU_SYSTEM, M_PEER_CPU_PROCESS,
	M_PEER_CPU_SYSTEM, M_LOST, M_LOSS,
};

enum { C_PEER_CPU_PROCESS, C_PEER_CPU_SYSTEM, C_LOST, C_LOSS };

static const char *const rr_counters[] = {
	"peer_cpu_process", "peer_cpu_system", "lost", "loss",
};

#define PEER_PARAM                                                                          \
	{ "peer", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",                                   \
	  "HOST[:PORT] of the host running `embperf serve` (port 5301), or 'local' for a "  \
	  "peer in this process on 127.0.0.1" }
#define SIZE_PARAMS                                                                         \
	{ "request", EP_PT_SIZE, "1", { { 1, EP_PEER_MAX_SIZE_BYTES } }, NULL, "bytes",       \
	  "bytes of each request (netperf -r, default 1)" },                                \
	{ "response", EP_PT_SIZE, "1", { { 1, EP_PEER_MAX_SIZE_BYTES } }, NULL, "bytes",  \
	  "bytes of each response (netperf -r, default 1)" }
#define TIMEOUT_PARAM                                                                       \
	{ "timeout", EP_PT_DURATION, "5s", { { 1000000, 600000000000LL } }, NULL, "ns",       \
	  "how long to wait for the peer: connecting, each answer of the session, each "    \
	  "TCP response" }
#define NODELAY_PARAM                                                                       \
	{ "nodelay", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",                                 \
	  "TCP_NODELAY on both ends' data sockets (netperf -D)" }

static const struct ep_param_desc tcp_rr_params[] = {
	PEER_PARAM, SIZE_PARAMS, NODELAY_PARAM, TIMEOUT_PARAM,
};

static const struct ep_param_desc udp_rr_params[] = {
	PEER_PARAM,
	SIZE_PARAMS,
	{ "lost_after", EP_PT_DURATION, "200ms", { { 10000, 60000000000LL } }, NULL, "ns",
	  "a response that has not come this long after its request is lost; the next "
	  "request goes from a new port" },
	{ "drop_every", EP_PT_INT, "0", { { 0, 1000000000 } }, NULL, "",
	  "test of the loss count: the peer leaves every Nth request unanswered; 0: none" },
	TIMEOUT_PARAM,
};

#define RR_METRICS                                                                          \
	[M_TRANSACTIONS] = { "transactions", "trans/s", EP_METRIC_TRIAL_OPS, 1.0,           \
			     EP_PRIMARY_MEDIAN, 1,                                          \
			     "completed transactions / measured time (netperf's Trans. Rate)" }, \
	[M_LATENCY] = { "latency", "us", EP_METRIC_TRIAL_LATENCY, 1000.0, EP_PRIMARY_MEDIAN, 0, \
			"round trip of one transaction: request written to response read" }, \
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_THIS_PROCESS_HELP),                  \
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM(EP_NETK_CPU_SYSTEM_HELP),                     \
	[M_PEER_CPU_PROCESS] = EP_METRIC_PEER_CPU("peer_cpu_process", EP_PEER_CPU_PROCESS_HELP), \
	[M_PEER_CPU_SYSTEM] = EP_METRIC_PEER_CPU("peer_cpu_system", EP_PEER_CPU_SYSTEM_HELP)

static const struct ep_metric_desc tcp_rr_metrics[] = { RR_METRICS };

static const struct ep_metric_desc udp_rr_metrics[] = {
	RR_METRICS,
	[M_LOST] = { "lost", "transactions", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0,
		     "transactions whose response did not come within lost_after, per trial" },
	[M_LOSS] = { "loss", "%", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0,
		     "lost transactions / transactions started in the measured part" },
};

/**
 * struct rr - the kernel's state.
 * @test:       EP_TEST_TCP_RR, EP_TEST_TCP_CRR or EP_TEST_UDP_RR.
 * @name:       the kernel's name, for messages.
 * @port:       the peer's data port of the running trial.
 * @data_fd:    tcp.rr: the connection; udp.rr: the socket (-1 between trials).
 * @lost_after_ns: udp.rr: when a transaction is lost.
 * @req, @resp: the request's and the response's bytes.
 */
struct rr {
	struct ep_run *run;
	struct ep_peer_conn peer;
	enum ep_net_test test;
	const char *name;
	uint32_t request_bytes;
	uint32_t response_bytes;
	int nodelay;
	uint64_t timeout_ns;
	uint64_t lost_after_ns;
	uint32_t drop_every;
	uint64_t flow_cap_ns;
	uint16_t port;
	int data_fd;
	char *req;
	char *resp;
	struct ep_start start;
	char label[160];
};

static int fail(struct rr *st, int rc, const char *what, const char *why)
{
	return ep_netk_fail(st->run, &st->data_fd, rc, "%s: peer %s: %s: %s", st->name,
			    st->peer.name, what, why);
}

/* A failed send or receive: the peer closed, reset, or did not answer in time. */
static int io_fail(struct rr *st, ssize_t n, int err)
{
	char why[96];

	if (n == 0)
		return fail(st, -ECONNRESET, "data connection", "the peer closed it mid-trial");
	if (err == EAGAIN || err == EWOULDBLOCK) {
		snprintf(why, sizeof(why), "no response within %.3f s (parameter 'timeout')",
			 (double)st->timeout_ns / 1e9);
		return fail(st, -ETIMEDOUT, "data connection", why);
	}
	return fail(st, -err, "data connection", strerror(err));
}

/* Write or read all @len bytes on a blocking socket; 0 or the failure. */
static int io_full(struct rr *st, int fd, char *buf, size_t len, int writing)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = writing ? send(fd, buf + off, len - off, MSG_NOSIGNAL)
				    : recv(fd, buf + off, len - off, 0);

		if (n > 0)
			off += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else
			return io_fail(st, n, n < 0 ? errno : 0);
	}
	return 0;
}

/* udp.rr: a socket connected to the peer's data port, its waits lost_after long. */
static int open_udp(struct rr *st)
{
	struct sockaddr_storage a = st->peer.addr;
	int fd = ep_udp_socket(a.ss_family, 0);

	if (fd < 0)
		return fd;
	ep_addr_set_port(&a, st->port);
	if (connect(fd, (struct sockaddr *)&a, st->peer.addr_len)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	ep_netk_set_timeouts(fd, st->lost_after_ns);
	st->data_fd = fd;
	return 0;
}

/** rr_before_trial() - before each trial (not timed): a new flow (and connection, socket). */
static int rr_before_trial(void *arg, int index)
{
	struct rr *st = arg;
	char err[320];
	int rc = 0;

	(void)index;
	ep_netk_close(&st->data_fd);
	memset(&st->start, 0, sizeof(st->start));
	st->start.test = st->test;
	st->start.size_bytes = st->request_bytes;
	st->start.response_bytes = st->response_bytes;
	st->start.duration_ns = st->flow_cap_ns;
	st->start.nodelay = (uint32_t)st->nodelay;
	st->start.drop_every = st->drop_every;
	rc = ep_peer_start(&st->peer, &st->start, &st->port, err, sizeof(err));
	if (rc)
		return ep_run_fail(st->run, rc, "%s: %s", st->name, err);
	if (st->test == EP_TEST_TCP_RR) {
		rc = ep_netk_tcp_connect(&st->peer, st->port, st->nodelay, 0, st->timeout_ns,
					 st->timeout_ns);
		if (rc >= 0)
			st->data_fd = rc;
	} else if (st->test == EP_TEST_UDP_RR) {
		rc = open_udp(st);
	}
	if (rc < 0) {
		snprintf(err, sizeof(err), "port %u: %s", st->port, strerror(-rc));
		return fail(st, rc, "data socket", err);
	}
	return 0;
}

/* One transaction on @fd. */
static int transact(struct rr *st, int fd)
{
	int rc = io_full(st, fd, st->req, st->request_bytes, 1);

	return rc ? rc : io_full(st, fd, st->resp, st->response_bytes, 0);
}

/* tcp.crr: connect, transact, wait for the peer's close, close. */
static int transact_crr(struct rr *st)
{
	int fd = ep_netk_tcp_connect(&st->peer, st->port, st->nodelay, 0, st->timeout_ns,
				     st->timeout_ns);
	char byte;
	ssize_t n;
	int rc;

	if (fd < 0) {
		char why[80];

		snprintf(why, sizeof(why), "port %u: %s", st->port, strerror(-fd));
		return fail(st, fd, "connect", why);
	}
	st->data_fd = fd;
	rc = transact(st, fd);
	if (rc)
		return rc;
	n = recv(fd, &byte, 1, 0);
	if (n != 0) /* more bytes than the response, or no close from the peer */
		return n > 0 ? fail(st, -EPROTO, "data connection", "more than the response came")
			     : io_fail(st, n, errno);
	ep_netk_close(&st->data_fd);
	return 0;
}

static int body_tcp(struct rr *st, struct ep_trial *t)
{
	struct ep_tally *ta = ep_trial_tally(t);
	uint64_t bytes = (uint64_t)st->request_bytes + st->response_bytes;

	while (ep_trial_running(t)) {
		uint64_t t0 = ep_now_ns();
		int rc = st->test == EP_TEST_TCP_CRR ? transact_crr(st) : transact(st, st->data_fd);

		if (rc)
			return rc;
		ep_tally_op(ta, 1, bytes, ep_now_ns() - t0);
	}
	return 0;
}

/* udp.rr: a lost transaction; the next goes from a new socket. */
static int lost_one(struct rr *st, struct ep_trial *t, uint64_t *lost)
{
	int rc;

	if (ep_trial_start_ns(t))
		(*lost)++;
	if (ep_netk_peer_gone(&st->peer))
		return fail(st, -ECONNRESET, "control connection", "the peer ended the session");
	ep_netk_close(&st->data_fd);
	rc = open_udp(st);
	return rc ? fail(st, rc, "data socket", strerror(-rc)) : 0;
}

static int body_udp(struct rr *st, struct ep_trial *t, uint64_t *lost)
{
	struct ep_tally *ta = ep_trial_tally(t);
	uint64_t bytes = (uint64_t)st->request_bytes + st->response_bytes;

	while (ep_trial_running(t)) {
		uint64_t t0 = ep_now_ns();
		ssize_t n = send(st->data_fd, st->req, st->request_bytes, 0);
		int rc;

		if (n >= 0)
			n = recv(st->data_fd, st->resp, st->response_bytes, 0);
		if (n >= 0) {
			ep_tally_op(ta, 1, bytes, ep_now_ns() - t0);
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS)
			return fail(st, -errno, "data socket", strerror(errno));
		rc = lost_one(st, t, lost);
		if (rc)
			return rc;
	}
	return 0;
}

/** rr_body() - one trial: transactions until the engine's deadline, then the peer's report. */
static int rr_body(void *arg, struct ep_trial *t)
{
	struct rr *st = arg;
	struct ep_tally *ta = ep_trial_tally(t);
	uint64_t lost = 0;
	struct ep_report r;
	char err[320];
	int rc = st->test == EP_TEST_UDP_RR ? body_udp(st, t, &lost) : body_tcp(st, t);

	if (rc)
		return rc;
	ep_netk_close(&st->data_fd);
	rc = ep_peer_stop(&st->peer, st->start.flow, 0, &r, err, sizeof(err));
	if (rc)
		return ep_run_fail(st->run, rc, "%s: %s", st->name, err);
	ep_tally_count_after(ta, C_PEER_CPU_PROCESS, ep_netk_or_nan(r.cpu_process_pct));
	ep_tally_count_after(ta, C_PEER_CPU_SYSTEM, ep_netk_or_nan(r.cpu_system_pct));
	if (st->test == EP_TEST_UDP_RR) {
		double started = (double)(ep_tally_ops(ta) + lost);

		ep_tally_count_after(ta, C_LOST, (double)lost);
		ep_tally_count_after(ta, C_LOSS, started > 0 ? 100.0 * (double)lost / started : NAN);
	}
	return 0;
}

/** rr_teardown() - close the data socket and the session (bye). */
static void rr_teardown(void *state)
{
	struct rr *st = state;

	ep_netk_close(&st->data_fd);
	ep_peer_close(&st->peer);
	free(st->req);
	free(st->resp);
}

/* The test the peer runs for each of the three kernels, by the kernel's name. */
static enum ep_net_test rr_test_of(const char *kernel)
{
	return !strcmp(kernel, "net.tcp.rr")    ? EP_TEST_TCP_RR
	       : !strcmp(kernel, "net.tcp.crr") ? EP_TEST_TCP_CRR
						: EP_TEST_UDP_RR;
}

/** rr_setup() - read the parameters, connect to the peer, add the trial case. */
static int rr_setup(struct ep_run *run, void **state)
{
	const char *name = run->kernel->name;
	enum ep_net_test test = rr_test_of(name);
	struct rr *st = *state;
	struct ep_trial_case tc = {
		.body = rr_body,
		.before_trial = rr_before_trial,
		.counters = rr_counters,
		.n_counters = (int)EP_ARRAY_SIZE(rr_counters),
	};
	int request_larger;

	st->data_fd = -1;
	st->peer.fd = -1;
	st->run = run;
	st->test = test;
	st->name = name;
	if (test != EP_TEST_UDP_RR)
		tc.n_counters = 2; /* no losses over TCP */
	st->request_bytes = (uint32_t)ep_param_int(run, "request");
	st->response_bytes = (uint32_t)ep_param_int(run, "response");
	st->nodelay = test != EP_TEST_UDP_RR && ep_param_int(run, "nodelay");
	st->timeout_ns = (uint64_t)ep_param_int(run, "timeout");
	st->lost_after_ns = test == EP_TEST_UDP_RR ? (uint64_t)ep_param_int(run, "lost_after") : 0;
	st->drop_every = test == EP_TEST_UDP_RR ? (uint32_t)ep_param_int(run, "drop_every") : 0;
	st->flow_cap_ns = ep_netk_flow_cap_ns(run);
	st->req = calloc(1, st->request_bytes);
	st->resp = calloc(1, st->response_bytes);
	if (!st->req || !st->resp)
		return -ENOMEM;
	snprintf(st->label, sizeof(st->label), "request=%u response=%u%s", st->request_bytes,
		 st->response_bytes, st->nodelay ? " nodelay=1" : "");
	tc.labels = st->label;
	tc.arg = st;
	/* The peer's limit is on the larger of the two. */
	request_larger = st->request_bytes > st->response_bytes;
	return ep_netk_setup_tail(run, name, &st->peer, request_larger ? "request" : "response",
				  request_larger ? st->request_bytes : st->response_bytes, &tc);
}

/* The three kernels share all but their name, summary, parameters and metrics. */
#define RR_KERNEL(kernel_name, text, param_table, metric_table)                            \
	{                                                                                  \
		.name = (kernel_name),                                                     \
		.summary = (text),                                                         \
		EP_PARAMS(param_table),                                                    \
		EP_METRICS(metric_table),                                                  \
		.engine_defaults = ep_net_defaults,                                        \
		.setup = rr_setup,                                                         \
		.teardown = rr_teardown,                                                   \
		.state_bytes = sizeof(struct rr),                                          \
		.trials = 1,                                                               \
	}

const struct ep_kernel ep_kernel_net_tcp_rr = RR_KERNEL(
	"net.tcp.rr", "TCP request/response on one connection with an embperf peer (netperf "
	"TCP_RR): transactions/s, round-trip latency percentiles, CPU load",
	tcp_rr_params, tcp_rr_metrics);

const struct ep_kernel ep_kernel_net_tcp_crr = RR_KERNEL(
	"net.tcp.crr", "TCP connect/request/response/close with an embperf peer, a connection "
	"per transaction (netperf TCP_CRR): transactions/s, latency percentiles",
	tcp_rr_params, tcp_rr_metrics);

const struct ep_kernel ep_kernel_net_udp_rr = RR_KERNEL(
	"net.udp.rr", "UDP request/response with an embperf peer (netperf UDP_RR), lost "
	"transactions counted: transactions/s, latency percentiles, loss",
	udp_rr_params, udp_rr_metrics);
