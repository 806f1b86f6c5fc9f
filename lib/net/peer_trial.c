// SPDX-License-Identifier: MIT
/*
 * peer_trial.c - what the peer does in one trial, in a worker thread:
 * count the client's datagrams (udp.sink) or send paced ones to it
 * (udp.source). The worker stops when the server loop says so, or by
 * itself shortly after the duration the client asked for (a client that
 * vanished does not keep it sending; peer_stop.c says when, for TCP's
 * workers too).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "flow_drops.h"
#include "lib/core/clock.h"
#include "lib/core/cpuload.h"
#include "pace.h"
#include "peer.h"
#include "lib/core/result.h"
#include "udp_io.h"

/* After the client's stop, a sink keeps counting what is still on its way
 * until the flow has been quiet this long, or at most DRAIN_MAX_NS. */
#define DRAIN_QUIET_NS 20000000
#define DRAIN_MAX_NS 250000000

/* A sink's receiver: UDP datagrams, or raw frames (l2.sink). */
struct sink {
	int l2;
	struct ep_udp_rx udp;
	struct ep_l2_rx raw;
};

static int sink_poll(struct sink *k, int timeout_ms)
{
	return k->l2 ? ep_l2_rx_poll(&k->raw, timeout_ms, 1) : ep_udp_rx_poll(&k->udp, timeout_ms, 1);
}

static void drain(struct sink *k)
{
	uint64_t stop_ns = ep_now_ns();

	for (;;) {
		uint64_t now = ep_now_ns();
		uint64_t seen = k->l2 ? k->raw.last_ns : k->udp.last_ns;
		uint64_t last = seen > stop_ns ? seen : stop_ns;

		if (now - stop_ns >= DRAIN_MAX_NS || now - last >= DRAIN_QUIET_NS)
			return;
		if (sink_poll(k, 5) < 0)
			return;
	}
}

static int sink_init(struct ep_peer_trial *t, struct sink *k)
{
	k->l2 = t->req.test == EP_TEST_L2_SINK;
	if (k->l2)
		return ep_l2_rx_init(&k->raw, &t->l2, t->req.flow);
	if (ep_udp_rx_init(&k->udp, t->data_fd, t->req.flow, t->req.size_bytes))
		return -ENOMEM;
	memcpy(&k->udp.from, &t->client, sizeof(k->udp.from));
	k->udp.from_len = t->client_len;
	k->udp.drop_every = t->req.drop_every;
	k->udp.echo_every = t->req.echo_every;
	return 0;
}

static void sink_report(struct ep_peer_trial *t, struct sink *k)
{
	const struct ep_seq_count *c = k->l2 ? k->raw.count : k->udp.count;

	t->report.received = c->received;
	t->report.bytes = c->bytes;
	t->report.duplicated = c->duplicated;
	t->report.reordered = c->reordered;
	t->report.expected = ep_seq_expected(c);
	t->report.jitter_ns = c->jitter_ns;
	if (k->l2) {
		t->report.capture_drops = ep_l2_capture_drops(&t->l2);
		ep_l2_rx_free(&k->raw);
	} else {
		t->report.dropped = k->udp.dropped;
		ep_udp_rx_free(&k->udp);
	}
}

static int run_sink(struct ep_peer_trial *t)
{
	struct sink k;
	uint64_t start = ep_now_ns(), end = ep_peer_trial_hard_end_ns(t, start);
	struct ep_cpuload load;
	struct ep_flow_drops drops;
	struct ep_linkstats delta;
	int rc = sink_init(t, &k);

	if (rc)
		return rc;
	ep_flow_drops_start(&drops, &t->client);
	ep_cpuload_start(&load, ep_now_ns());
	while (!ep_peer_trial_stopping(t) && ep_now_ns() < end) {
		rc = sink_poll(&k, 10);
		if (rc < 0)
			break;
	}
	if (rc >= 0) {
		drain(&k);
		rc = 0;
	}
	ep_peer_trial_load_into(&t->report, &load);
	ep_flow_drops_stop(&drops, &delta);
	ep_flow_drops_to_report(&delta, &t->report);
	t->report.flow = t->req.flow;
	sink_report(t, &k);
	t->report.elapsed_ns = ep_now_ns() - start;
	return rc;
}

static double source_pps(const struct ep_start *s)
{
	return s->rate_bps > 0.0 ? s->rate_bps / (8.0 * s->size_bytes) : 0.0;
}

/* A source's sender: UDP datagrams, or raw frames (l2.source). */
struct source {
	int l2;
	struct ep_udp_tx udp;
	struct ep_l2_tx raw;
};

static uint64_t source_sent(const struct source *o)
{
	return o->l2 ? o->raw.count.sent : o->udp.count.sent;
}

static int run_source(struct ep_peer_trial *t)
{
	struct source o = { .l2 = t->req.test == EP_TEST_L2_SOURCE };
	struct ep_pacer pacer;
	struct ep_cpuload load;
	struct ep_flow_drops drops;
	struct ep_linkstats delta;
	uint64_t start = ep_now_ns(), end = ep_peer_trial_hard_end_ns(t, start);
	enum ep_pacing mode = t->req.rate_bps > 0.0 || t->req.pacing == EP_PACING_BURST
				      ? t->req.pacing
				      : EP_PACING_NONE;
	int rc = o.l2 ? ep_l2_tx_init(&o.raw, &t->l2, t->req.flow)
		      : ep_udp_tx_init(&o.udp, t->data_fd, t->req.size_bytes, t->req.flow);

	if (rc)
		return rc;
	/* A sleeping sender's wake-ups are late by the timer slack (50 us by default). */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	ep_pacer_init(&pacer, &ep_real_clock, mode, source_pps(&t->req), t->req.burst,
		      t->req.wait_ns, t->req.batch ? t->req.batch : 16, start);
	ep_flow_drops_start(&drops, &t->client);
	ep_cpuload_start(&load, ep_now_ns());
	while (!ep_peer_trial_stopping(t) && (!t->req.count || source_sent(&o) < t->req.count)) {
		uint64_t now = ep_now_ns();
		uint32_t n;

		if (now >= end)
			break;
		n = ep_pacer_next(&pacer, end);
		if (t->req.count && n > t->req.count - source_sent(&o))
			n = (uint32_t)(t->req.count - source_sent(&o));
		if (n)
			ep_pacer_sent(&pacer, o.l2 ? ep_l2_tx_send(&o.raw, n, 1)
						   : ep_udp_tx_send(&o.udp, n, 1));
	}
	ep_peer_trial_load_into(&t->report, &load);
	ep_flow_drops_stop(&drops, &delta);
	ep_flow_drops_to_report(&delta, &t->report);
	t->report.flow = t->req.flow;
	t->report.sent = source_sent(&o);
	t->report.bytes = t->report.sent * t->req.size_bytes;
	t->report.dropped = o.l2 ? o.raw.count.refused : o.udp.count.refused;
	t->report.elapsed_ns = ep_now_ns() - start;
	if (o.l2)
		ep_l2_tx_free(&o.raw);
	else
		ep_udp_tx_free(&o.udp);
	return 0;
}

static void *worker(void *arg)
{
	struct ep_peer_trial *t = arg;

	switch (t->req.test) {
	case EP_TEST_UDP_SINK:
	case EP_TEST_L2_SINK:
		t->rc = run_sink(t);
		break;
	case EP_TEST_UDP_SOURCE:
	case EP_TEST_L2_SOURCE:
		t->rc = run_source(t);
		break;
	default:
		t->rc = ep_peer_tcp_run(t);
	}
	if (t->rc && !t->text[0])
		snprintf(t->text, sizeof(t->text), "%s trial failed: %s", ep_net_test_name(t->req.test),
			 strerror(-t->rc));
	return NULL;
}

/* A UDP socket bound to the control connection's local address, port 0. */
static int open_sink(struct ep_peer_trial *t)
{
	int fd = ep_udp_socket_bound(&t->local, t->local_len, 1, &t->port);

	if (fd < 0)
		return fd;
	t->data_fd = fd;
	return 0;
}

/* A UDP socket connected to the client's address: never any other. */
static int open_source(struct ep_peer_trial *t)
{
	struct sockaddr_storage a = t->client;
	struct sockaddr_storage l = t->local;
	int fd = ep_udp_socket(a.ss_family, 1);

	if (fd < 0)
		return fd;
	ep_addr_set_port(&a, t->req.port);
	ep_addr_set_port(&l, 0);
	if (bind(fd, (struct sockaddr *)&l, t->local_len) ||
	    connect(fd, (struct sockaddr *)&a, t->client_len)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	t->data_fd = fd;
	t->port = 0;
	return 0;
}

int ep_peer_trial_open(struct ep_peer_trial *t)
{
	char why[224];
	int rc;

	t->data_fd = -1;
	t->source_fd = -1;
	t->text[0] = '\0';
	switch (t->req.test) {
	case EP_TEST_UDP_SINK:
		rc = open_sink(t);
		break;
	case EP_TEST_UDP_SOURCE:
		if (!t->req.port) {
			snprintf(t->text, sizeof(t->text), "udp.source needs the client's port");
			return -EINVAL;
		}
		rc = open_source(t);
		break;
	case EP_TEST_L2_SINK:
	case EP_TEST_L2_SOURCE:
		rc = ep_l2_open(&t->l2, &t->local, &t->client, t->req.size_bytes,
				t->req.test == EP_TEST_L2_SINK, why, sizeof(why));
		if (rc)
			snprintf(t->text, sizeof(t->text), "layer=l2: %s", why);
		return rc;
	default:
		rc = ep_peer_tcp_open(t);
		if (rc == -EOPNOTSUPP) {
			snprintf(t->text, sizeof(t->text), "test '%s' is not served by this peer",
				 ep_net_test_name(t->req.test));
			return rc;
		}
	}
	if (rc)
		snprintf(t->text, sizeof(t->text), "data socket: %s", strerror(-rc));
	return rc;
}

int ep_peer_trial_start(struct ep_peer_trial *t)
{
	int rc;

	t->stop = 0;
	t->rc = 0;
	memset(&t->report, 0, sizeof(t->report));
	rc = pthread_create(&t->thread, NULL, worker, t);
	if (rc)
		return -rc;
	t->started = 1;
	return 0;
}

void ep_peer_trial_finish(struct ep_peer_trial *t)
{
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	if (t->started) {
		pthread_join(t->thread, NULL);
		t->started = 0;
	}
	if (t->data_fd >= 0) {
		close(t->data_fd);
		t->data_fd = -1;
	}
	if (t->source_fd >= 0) {
		close(t->source_fd);
		t->source_fd = -1;
	}
	ep_l2_close(&t->l2);
}
