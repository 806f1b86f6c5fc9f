// SPDX-License-Identifier: MIT
/*
 * peer_tcp.c - the peer's side of the TCP and request/response trials
 * (doc/methodology-net.md, "TCP and request/response kernels"):
 *
 *   tcp.sink    accept one connection, read and discard; log when the bytes
 *               came so that the client's measured bytes can be timed here
 *   tcp.source  accept one connection, write until told to stop
 *   tcp.both    both at once: a sink on one listener and, in a second
 *               thread, a source on another (netperf's TCP_STREAM and
 *               TCP_MAERTS run side by side)
 *   tcp.rr      accept one connection; per request of 'size' bytes, answer
 *               'response' bytes
 *   tcp.crr     accept a connection per transaction: request, answer, close
 *   udp.rr      answer each request datagram with a response datagram
 *
 * Connections are accepted only from the address of the client that asked
 * on the control connection (others are closed at once), and answers go only
 * to that address. Every blocking call waits at most SLICE_MS, so a worker
 * sees the server loop's stop and its own hard end (duration + a margin)
 * promptly, whatever the client does.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "io_wait.h"
#include "lib/core/clock.h"
#include "lib/core/cpuload.h"
#include "peer.h"
#include "udp_io.h"

/* How long any one wait of a worker lasts before it looks at stop and the clock. */
#define SLICE_MS 10
#define SLICE_NS (SLICE_MS * UINT64_C(1000000))
/* tcp.sink: read this much at a time unless the client says (its recv_size). */
#define SINK_READ_BYTES (128 * 1024)
/* io_wait=select: writes per poll() at most, iperf3's multisend. */
#define SOURCE_BATCH 10
/* tcp.sink: the arrival log keeps a point at most every SAMPLE_STEP_NS, and
 * at most MAX_SAMPLES of them (the step grows for very long trials). */
#define SAMPLE_STEP_NS 1000000
#define MAX_SAMPLES 65536
/* tcp.sink: after a stop without the client's end of data, read on this long at most. */
#define DRAIN_MAX_NS 250000000
#define LISTEN_BACKLOG 4

/** struct arrival - tcp.sink: by @t_ns, @bytes of the flow had arrived. */
struct arrival {
	uint64_t t_ns;
	uint64_t bytes;
};

/* The worker should stop: told so, or past its hard end. */
static int done(const struct ep_peer_trial *t, uint64_t end_ns)
{
	return ep_peer_trial_stopping(t) || ep_now_ns() >= end_ns;
}

/**
 * accept_client() - the next connection on @lfd from the client's address;
 * others are closed unanswered. Return: a blocking descriptor with SLICE_MS
 * timeouts, -ECANCELED when told to stop (or past @end_ns), or a negative errno.
 */
static int accept_client(struct ep_peer_trial *t, int lfd, uint64_t end_ns)
{
	for (;;) {
		struct sockaddr_storage a;
		socklen_t len = sizeof(a);
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int fd = accept4(lfd, (struct sockaddr *)&a, &len, SOCK_CLOEXEC);

		if (fd >= 0 && ep_addr_same_host(&a, &t->client)) {
			ep_tcp_set_options(fd, (int)t->req.nodelay, t->req.sockbuf_bytes);
			ep_netk_set_timeouts(fd, SLICE_NS);
			return fd;
		}
		if (fd >= 0) {
			close(fd); /* not the client that asked: no data for it */
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    errno != ECONNABORTED)
			return -errno;
		if (done(t, end_ns))
			return -ECANCELED;
		(void)poll(&p, 1, SLICE_MS);
	}
}

/* One tcp.sink arrival point, if the last is older than @step_ns. */
static void log_arrival(struct arrival *log, size_t *n, uint64_t now, uint64_t bytes,
			uint64_t step_ns)
{
	if (*n && now - log[*n - 1].t_ns < step_ns)
		return;
	if (*n == MAX_SAMPLES)
		(*n)--; /* unreachable with the step below; keep the newest */
	log[(*n)++] = (struct arrival){ now, bytes };
}

/* The first point with at least @mark bytes, or the last one. */
static const struct arrival *first_at(const struct arrival *log, size_t n, uint64_t mark)
{
	size_t i = 0;

	while (i + 1 < n && log[i].bytes < mark)
		i++;
	return &log[i];
}

/**
 * sink_window() - the receiver's figures of the client's measured bytes:
 * the client wrote bytes (@from, @to] in its measured part; the points
 * where this side had first received @from and @to bytes bound them. Both
 * the byte count and the time come from those two points, so the rate is
 * this side's own.
 */
static void sink_window(struct ep_report *r, const struct arrival *log, size_t n, uint64_t from,
			uint64_t to)
{
	const struct arrival *a, *b;

	if (n < 2)
		return;
	a = first_at(log, n, from);
	b = first_at(log, n, to);
	if (b->t_ns <= a->t_ns)
		return;
	r->bytes = b->bytes - a->bytes;
	r->elapsed_ns = b->t_ns - a->t_ns;
}

/* Read until the client's end of data (then answer it with ours), stop, or the hard end. */
static int sink_read(struct ep_peer_trial *t, int fd, char *buf, size_t buf_len,
		     struct arrival *log, size_t *n, uint64_t end_ns)
{
	/* Half the log covers the whole flow (its duration and the worker's margin). */
	uint64_t step = (t->req.duration_ns + 1000000000) / (MAX_SAMPLES / 2);
	uint64_t stop_ns = 0, bytes = 0, last_ns = 0;

	step = step < SAMPLE_STEP_NS ? SAMPLE_STEP_NS : step;
	for (;;) {
		ssize_t got;

		if (ep_peer_trial_stopping(t)) {
			/* Stopped before the end of data: what is on its way, briefly. */
			stop_ns = stop_ns ? stop_ns : ep_now_ns();
			if (ep_now_ns() - stop_ns > DRAIN_MAX_NS ||
			    bytes >= t->ramp_sent_by_client + t->sent_by_client)
				break;
		} else if (ep_now_ns() >= end_ns) {
			break;
		}
		got = ep_net_io_ready((int)t->req.io_wait, fd, POLLIN, SLICE_MS)
			      ? recv(fd, buf, buf_len, 0)
			      : -1;
		if (got > 0) {
			bytes += (uint64_t)got;
			last_ns = ep_now_ns();
			log_arrival(log, n, last_ns, bytes, step);
			t->report.received = bytes;
			continue;
		}
		if (got == 0 || errno == ECONNRESET) {
			shutdown(fd, SHUT_WR); /* tells the client all its data is here */
			while (!done(t, end_ns))
				(void)poll(NULL, 0, 1);
			break;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
	}
	if (*n && log[*n - 1].bytes != bytes) { /* the last arrival always counts */
		if (*n == MAX_SAMPLES)
			(*n)--;
		log[(*n)++] = (struct arrival){ last_ns, bytes };
	}
	return 0;
}

static int run_sink(struct ep_peer_trial *t, int fd, uint64_t end_ns)
{
	size_t len = t->req.recv_bytes ? t->req.recv_bytes : SINK_READ_BYTES;
	struct arrival *log = calloc(MAX_SAMPLES, sizeof(*log));
	char *buf = malloc(len);
	size_t n = 0;
	int rc = -ENOMEM;

	if (log && buf)
		rc = sink_read(t, fd, buf, len, log, &n, end_ns);
	if (!rc && ep_peer_trial_stopping(t))
		sink_window(&t->report, log, n, t->ramp_sent_by_client,
			    t->ramp_sent_by_client + t->sent_by_client);
	free(log);
	free(buf);
	return rc;
}

/*
 * source_batch() - with io_wait=select, iperf3's sending: once poll() says
 * the socket has room, up to SOURCE_BATCH writes that do not block (its
 * "multisend"), so a full send buffer ends the batch (EAGAIN, or a short
 * write) instead of putting the sender to sleep inside send().
 * Return: the bytes written, or -1 with errno when the first write failed.
 */
static ssize_t source_batch(int fd, const char *buf, size_t len)
{
	ssize_t sum = 0;

	if (!ep_net_io_ready(1, fd, POLLOUT, SLICE_MS))
		return -1;
	for (int i = 0; i < SOURCE_BATCH; i++) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n <= 0)
			return sum ? sum : -1;
		sum += n;
		if ((size_t)n < len)
			break;
	}
	return sum;
}

static int run_source(struct ep_peer_trial *t, int fd, uint64_t end_ns)
{
	char *buf = malloc(t->req.size_bytes);

	if (!buf)
		return -ENOMEM;
	/* Bytes, as iperf3 and netperf send, not calloc()'s shared zero page. */
	for (size_t i = 0; i < t->req.size_bytes; i++)
		buf[i] = (char)(i * 131 + 7);
	while (!done(t, end_ns)) {
		ssize_t put = t->req.io_wait ? source_batch(fd, buf, t->req.size_bytes)
					     : send(fd, buf, t->req.size_bytes, MSG_NOSIGNAL);

		if (put > 0) {
			t->report.sent += (uint64_t)put;
			continue;
		}
		if (errno == EPIPE || errno == ECONNRESET)
			break; /* the client closed its end: the flow is over */
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			free(buf);
			return -errno;
		}
	}
	free(buf);
	return 0;
}

/* tcp.both: the source's side, in a thread of its own beside the sink. */
struct both_source {
	struct ep_peer_trial *t;
	uint64_t end_ns;
	int rc;
};

static void *both_source_main(void *arg)
{
	struct both_source *o = arg;
	int fd = accept_client(o->t, o->t->source_fd, o->end_ns);

	if (fd < 0) {
		o->rc = fd == -ECANCELED ? 0 : fd;
		return NULL;
	}
	close(o->t->source_fd); /* one connection: nobody else gets in after it */
	o->t->source_fd = -1;
	o->rc = run_source(o->t, fd, o->end_ns);
	close(fd);
	return NULL;
}

/**
 * io_full() - read or write exactly @len bytes of @buf in SLICE_MS waits.
 * Return: 1 done, 0 when the client closed (or reset) the connection
 * before it, -ECANCELED when told to stop, or a negative errno.
 */
static int io_full(struct ep_peer_trial *t, int fd, char *buf, size_t len, int writing,
		   uint64_t end_ns)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = writing ? send(fd, buf + off, len - off, MSG_NOSIGNAL)
				    : recv(fd, buf + off, len - off, 0);

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0 || errno == ECONNRESET || errno == EPIPE)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (done(t, end_ns))
			return -ECANCELED;
	}
	return 1;
}

/* One transaction on @fd: read the request, write the response. */
static int answer(struct ep_peer_trial *t, int fd, char *req, char *resp, uint64_t end_ns)
{
	int rc = io_full(t, fd, req, t->req.size_bytes, 0, end_ns);

	if (rc == 1)
		rc = io_full(t, fd, resp, t->req.response_bytes, 1, end_ns);
	if (rc == 1) {
		t->report.received++;
		t->report.bytes += t->req.size_bytes + t->req.response_bytes;
	}
	return rc;
}

static int run_rr(struct ep_peer_trial *t, int fd, char *req, char *resp, uint64_t end_ns)
{
	int rc;

	do
		rc = answer(t, fd, req, resp, end_ns);
	while (rc == 1);
	return rc == -ECANCELED ? 0 : rc;
}

static int run_crr(struct ep_peer_trial *t, char *req, char *resp, uint64_t end_ns)
{
	for (;;) {
		int fd = accept_client(t, t->data_fd, end_ns);
		int rc;

		if (fd < 0)
			return fd == -ECANCELED ? 0 : fd;
		rc = answer(t, fd, req, resp, end_ns);
		close(fd); /* this side closes first: TIME_WAIT stays here, not on the client */
		if (rc < 0)
			return rc == -ECANCELED ? 0 : rc;
	}
}

/*
 * udp.rr: each request from the client's address gets one response, but for
 * every drop_every'th (a test of the client's loss count).
 */
static int run_udp_rr(struct ep_peer_trial *t, char *req, char *resp, uint64_t end_ns)
{
	uint64_t seen = 0;

	while (!done(t, end_ns)) {
		struct sockaddr_storage a;
		socklen_t len = sizeof(a);
		ssize_t n = recvfrom(t->data_fd, req, EP_PEER_MAX_SIZE_BYTES, 0,
				     (struct sockaddr *)&a, &len);

		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNREFUSED)
				return -errno;
			continue;
		}
		if (!ep_addr_same_host(&a, &t->client)) {
			t->report.dropped++; /* never answered: no reflection to a third address */
			continue;
		}
		if (t->req.drop_every && ++seen % t->req.drop_every == 0) {
			t->report.dropped++;
			continue;
		}
		if (sendto(t->data_fd, resp, t->req.response_bytes, 0, (struct sockaddr *)&a,
			   len) < 0 && errno != EAGAIN && errno != ENOBUFS && errno != ECONNREFUSED)
			return -errno;
		t->report.received++;
		t->report.bytes += (uint64_t)n + t->req.response_bytes;
	}
	return 0;
}

/* The request/response trials: their buffers, then the loop of the test. */
static int run_answers(struct ep_peer_trial *t, int fd, uint64_t end_ns)
{
	size_t req_len = t->req.test == EP_TEST_UDP_RR ? EP_PEER_MAX_SIZE_BYTES : t->req.size_bytes;
	char *req = malloc(req_len);
	char *resp = calloc(1, t->req.response_bytes ? t->req.response_bytes : 1);
	int rc = -ENOMEM;

	if (req && resp) {
		if (t->req.test == EP_TEST_TCP_RR)
			rc = run_rr(t, fd, req, resp, end_ns);
		else if (t->req.test == EP_TEST_TCP_CRR)
			rc = run_crr(t, req, resp, end_ns);
		else
			rc = run_udp_rr(t, req, resp, end_ns);
	}
	free(req);
	free(resp);
	return rc;
}

/* The tests of one connection: accept it, then sink, source or answers on it. */
static int run_connected(struct ep_peer_trial *t, uint64_t end_ns)
{
	int fd = accept_client(t, t->data_fd, end_ns), rc;

	if (fd < 0)
		return fd == -ECANCELED ? 0 : fd;
	/* One connection per trial: nobody else gets in after it. */
	close(t->data_fd);
	t->data_fd = -1;
	if (t->req.test == EP_TEST_TCP_SOURCE)
		rc = run_source(t, fd, end_ns);
	else if (t->req.test == EP_TEST_TCP_RR)
		rc = run_answers(t, fd, end_ns);
	else
		rc = run_sink(t, fd, end_ns); /* tcp.sink, and tcp.both's sink */
	close(fd);
	return rc;
}

/*
 * tcp.both: the source in a thread of its own, the sink on this one, each
 * on its own listener's connection, so that neither waits for the other
 * (not even to be accepted). The report holds the sink's figures (received,
 * bytes, elapsed_ns) and the source's bytes written (sent).
 */
static int run_both(struct ep_peer_trial *t, uint64_t end_ns)
{
	struct both_source o = { .t = t, .end_ns = end_ns };
	pthread_t th;
	int rc = -pthread_create(&th, NULL, both_source_main, &o);

	if (rc)
		return rc;
	rc = run_connected(t, end_ns);
	/* The client's stop, or the end of its connection, ends the source too. */
	pthread_join(th, NULL);
	return rc ? rc : o.rc;
}

int ep_peer_tcp_run(struct ep_peer_trial *t)
{
	uint64_t start = ep_now_ns(), end = ep_peer_trial_hard_end_ns(t, start);
	enum ep_net_test test = t->req.test;
	struct ep_cpuload load;
	int rc;

	ep_cpuload_start(&load, ep_now_ns());
	if (test == EP_TEST_TCP_BOTH)
		rc = run_both(t, end);
	else if (test == EP_TEST_TCP_CRR || test == EP_TEST_UDP_RR)
		rc = run_answers(t, -1, end);
	else
		rc = run_connected(t, end);
	if (test == EP_TEST_TCP_SOURCE)
		t->report.bytes = t->report.sent;
	ep_peer_trial_load_into(&t->report, &load);
	t->report.flow = t->req.flow;
	if (test != EP_TEST_TCP_SINK && test != EP_TEST_TCP_BOTH)
		t->report.elapsed_ns = ep_now_ns() - start;
	return rc;
}

/* A TCP listener on the control connection's local address, any port: *@fd, *@port. */
static int open_listener(struct ep_peer_trial *t, int *fd, uint16_t *port)
{
	struct sockaddr_storage a = t->local;
	socklen_t len = t->local_len;
	int lfd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (lfd < 0)
		return -errno;
	/* Buffer sizes set before listen() shape the window the connection offers. */
	ep_tcp_set_options(lfd, (int)t->req.nodelay, t->req.sockbuf_bytes);
	ep_addr_set_port(&a, 0);
	if (bind(lfd, (struct sockaddr *)&a, len) || listen(lfd, LISTEN_BACKLOG) ||
	    getsockname(lfd, (struct sockaddr *)&a, &len)) {
		int rc = -errno;

		close(lfd);
		return rc;
	}
	*fd = lfd;
	*port = ep_addr_port(&a);
	return 0;
}

/* tcp.both: a listener for each way; neither is left open on a failure. */
static int open_both(struct ep_peer_trial *t)
{
	int rc = open_listener(t, &t->data_fd, &t->port);

	if (!rc)
		rc = open_listener(t, &t->source_fd, &t->source_port);
	if (rc && t->data_fd >= 0) {
		close(t->data_fd);
		t->data_fd = -1;
	}
	return rc;
}

/* udp.rr: a UDP socket on the control connection's local address, any port. */
static int open_udp(struct ep_peer_trial *t)
{
	int fd = ep_udp_socket_bound(&t->local, t->local_len, 0, &t->port);

	if (fd < 0)
		return fd;
	ep_netk_set_timeouts(fd, SLICE_NS);
	t->data_fd = fd;
	return 0;
}

int ep_peer_tcp_open(struct ep_peer_trial *t)
{
	switch (t->req.test) {
	case EP_TEST_TCP_SINK:
	case EP_TEST_TCP_SOURCE:
	case EP_TEST_TCP_RR:
	case EP_TEST_TCP_CRR:
		return open_listener(t, &t->data_fd, &t->port);
	case EP_TEST_TCP_BOTH:
		return open_both(t);
	case EP_TEST_UDP_RR:
		return open_udp(t);
	default:
		return -EOPNOTSUPP;
	}
}
