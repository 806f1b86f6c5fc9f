// SPDX-License-Identifier: MIT
/*
 * udp_flow.c - one trial's UDP flow with the peer (udp_flow.h), shared by
 * net.udp.stream and net.udp.rfc2544.
 *
 * tx: this host sends, the peer's sink counts and reports (exact loss:
 * this side knows how many it sent); with echo_every the sink sends back
 * the header of every Nth datagram and this side records the round trips.
 * rx: the peer sends to this host's socket, which counts the datagrams of
 * its measured part (loss from the sequence numbers of the first and last
 * seen, RFC 3550 A.3). A ramp's datagrams travel but are not counted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "kclient.h"
#include "lib/core/clock.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/util.h"
#include "linkspeed.h"
#include "pace.h"
#include "udp_flow.h"
#include "udp_io.h"
#include "wire.h"

/* How often a sender looks whether the peer left (its control connection). */
#define PEER_CHECK_NS 50000000

static void close_data(struct ep_udp_flow *f)
{
	ep_netk_close(&f->data_fd);
	ep_l2_close(&f->link);
}

/* The peer refused the trial: l2 names the parameter; a peer from before
 * layer=l2 refuses its tests as unknown values of member 'test'. */
static int fail_start(struct ep_udp_flow *f, int rc, const char *err)
{
	close_data(f);
	return ep_run_fail(f->run, rc, "%s: %s%s%s", f->name,
			   f->l2 ? "parameter 'layer': value 'l2': " : "", err,
			   f->l2 && strstr(err, "'test': unknown value")
				   ? " (a peer older than layer=l2); accepted: l4, or a newer peer"
				   : "");
}

EP_UNTIMED int ep_udp_flow_connect(struct ep_udp_flow *f, struct ep_run *run, const char *name)
{
	f->run = run;
	f->name = name;
	f->data_fd = -1;
	f->peer.fd = -1;
	return ep_netk_open(run, name, &f->peer);
}

EP_UNTIMED int ep_udp_flow_check_rate(struct ep_udp_flow *f, double pps)
{
	double wire_bps = pps * (f->frame_bytes + EP_WIRE_GAP_BYTES) * 8.0;
	double payload_bps = pps * f->size_bytes * 8.0;
	int64_t link_bps = ep_link_speed_bps(&f->peer.local);

	if (payload_bps > f->peer.welcome.max_rate_bps)
		return ep_run_fail(f->run, -ERANGE, "parameter 'rate': %.0f bit/s is above the limit "
				   "of peer %s (%.0f bit/s; `embperf serve --max-rate`)", payload_bps,
				   f->peer.name, f->peer.welcome.max_rate_bps);
	if (ep_netk_check_size(f->run, &f->peer, "size", f->size_bytes))
		return -ERANGE;
	if (link_bps > 0 && wire_bps > (double)link_bps)
		return ep_run_fail(f->run, -ERANGE, "parameter 'rate': %.0f datagrams/s of %u bytes "
				   "take %.0f bit/s on the wire (frames + preamble and gap); the link "
				   "to peer %s runs at %lld bit/s", pps, f->size_bytes, wire_bps,
				   f->peer.name, (long long)link_bps);
	return 0;
}

/* tx: a socket connected to the peer's data port. */
static int open_tx_socket(struct ep_udp_flow *f, uint16_t port)
{
	struct sockaddr_storage a = f->peer.addr;
	int fd = ep_udp_socket(a.ss_family, 1);

	if (fd < 0)
		return fd;
	ep_addr_set_port(&a, port);
	if (connect(fd, (struct sockaddr *)&a, f->peer.addr_len)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	f->data_fd = fd;
	return 0;
}

/* rx: a socket on this side's control address, any port; its port into *@port. */
static int open_rx_socket(struct ep_udp_flow *f, uint16_t *port)
{
	int fd = ep_udp_socket_bound(&f->peer.local, f->peer.local_len, 1, port);

	if (fd < 0)
		return fd;
	f->data_fd = fd;
	return 0;
}

static void fill_request(struct ep_udp_flow *f)
{
	memset(&f->req, 0, sizeof(f->req));
	f->req.test = f->tx ? (f->l2 ? EP_TEST_L2_SINK : EP_TEST_UDP_SINK)
			    : (f->l2 ? EP_TEST_L2_SOURCE : EP_TEST_UDP_SOURCE);
	f->req.size_bytes = f->size_bytes;
	f->req.rate_bps = f->pacing == EP_PACING_NONE ? 0.0 : f->pps * f->size_bytes * 8.0;
	f->req.pacing = f->pacing;
	f->req.burst = f->burst;
	f->req.wait_ns = f->wait_ns;
	f->req.batch = f->batch;
	f->req.duration_ns = f->flow_cap_ns;
	f->req.drop_every = f->tx ? f->drop_every : 0;
	f->req.count = f->tx ? 0 : f->count;
	f->req.echo_every = f->tx ? f->echo_every : 0;
}

EP_UNTIMED int ep_udp_flow_begin(struct ep_udp_flow *f)
{
	char err[320];
	uint16_t port = 0;
	int rc;

	close_data(f);
	fill_request(f);
	/* The receiver's capture is open before the peer sends. */
	if (!f->tx && f->l2) {
		rc = ep_udp_flow_open_l2(f, 1);
		if (rc)
			return rc;
	} else if (!f->tx) {
		rc = open_rx_socket(f, &f->req.port);
		if (rc)
			return ep_run_fail(f->run, rc, "%s: data socket: %s", f->name, strerror(-rc));
	}
	ep_flow_drops_start(&f->drops, &f->peer.addr);
	rc = ep_peer_start(&f->peer, &f->req, &port, err, sizeof(err));
	if (rc)
		return fail_start(f, rc, err);
	if (f->tx && f->l2) {
		rc = ep_udp_flow_open_l2(f, 0);
		if (rc)
			close_data(f);
		return rc;
	}
	if (f->tx) {
		rc = open_tx_socket(f, port);
		if (rc)
			return ep_run_fail(f->run, rc, "%s: data socket to %s port %u: %s", f->name,
					   f->peer.name, port, strerror(-rc));
	}
	return 0;
}

/* Echoed headers waiting on the data socket: their round trips into @ta. */
static void take_echoes(struct ep_udp_flow *f, struct ep_tally *ta)
{
	unsigned char buf[64];
	struct ep_wire_header h;
	ssize_t n;

	while ((n = recv(f->data_fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		uint64_t now = ep_now_ns();

		if (!ep_wire_decode(buf, (size_t)n, &h) && h.flow == f->req.flow &&
		    (h.flags & EP_WIRE_COUNTED) && h.send_ns <= now)
			ep_tally_latency(ta, now - h.send_ns);
	}
}

static int stop_and_report(struct ep_udp_flow *f, uint64_t sent, struct ep_report *r)
{
	char err[320];
	int rc = ep_peer_stop(&f->peer, f->req.flow, sent, r, err, sizeof(err));

	return rc ? ep_netk_fail(f->run, &f->data_fd, rc, "%s: %s", f->name, err) : 0;
}

/* This side's sender: datagrams, or raw frames (layer=l2). */
struct sender {
	struct ep_udp_tx udp;
	struct ep_l2_tx raw;
	uint64_t *sent;
};

__attribute__((cold)) static int sender_init(struct ep_udp_flow *f, struct sender *s)
{
	s->sent = f->l2 ? &s->raw.count.sent : &s->udp.count.sent;
	return f->l2 ? ep_l2_tx_init(&s->raw, &f->link, f->req.flow)
		     : ep_udp_tx_init(&s->udp, f->data_fd, f->size_bytes, f->req.flow);
}

__attribute__((cold)) static void sender_free(struct ep_udp_flow *f, struct sender *s)
{
	if (f->l2)
		ep_l2_tx_free(&s->raw);
	else
		ep_udp_tx_free(&s->udp);
}

static int run_tx(struct ep_udp_flow *f, struct ep_trial *t, struct ep_udp_outcome *o)
{
	struct ep_tally *ta = ep_trial_tally(t);
	struct sender s = { .sent = NULL };
	struct ep_pacer pacer;
	uint64_t checked_ns = ep_now_ns();
	int restarted = 0;
	int rc = sender_init(f, &s);

	if (rc)
		return rc;
	ep_pacer_init(&pacer, ep_trial_clock(t), f->pacing, f->pps, f->burst, f->wait_ns, f->batch,
		      ep_trial_now_ns(t));
	ep_pacer_set_catch_up(&pacer, f->catch_up_ms);
	while (ep_trial_running(t) && (!f->count || *s.sent < f->count) && !s.raw.count.last_errno) {
		/* Read once: the batch is paced, capped and counted as one part. */
		uint64_t measured_ns = ep_trial_start_ns(t);
		int counted = measured_ns != 0;
		uint32_t n;

		if (f->idle_ramp && !measured_ns) {
			struct timespec ms = { 0, 1000000 };

			nanosleep(&ms, NULL);
			continue;
		}
		/* The measured part starts on schedule: what the ramp still owes is
		 * not repaid in it (its rate would read above the one asked). */
		if (measured_ns && !restarted) {
			ep_pacer_restart(&pacer, measured_ns);
			restarted = 1;
		}
		n = ep_pacer_next(&pacer, ep_trial_end_ns(t));
		if (f->count && n > f->count - *s.sent && measured_ns)
			n = (uint32_t)(f->count - *s.sent);
		if (n)
			ep_pacer_sent(&pacer, f->l2 ? ep_l2_tx_send(&s.raw, n, counted)
						    : ep_udp_tx_send(&s.udp, n, counted));
		if (f->echo_every)
			take_echoes(f, ta);
		if (ep_now_ns() - checked_ns > PEER_CHECK_NS) {
			checked_ns = ep_now_ns();
			if (ep_netk_peer_gone(&f->peer))
				break;
		}
	}
	o->sent = *s.sent;
	sender_free(f, &s);
	rc = stop_and_report(f, o->sent, &o->peer);
	close_data(f);
	if (s.raw.count.last_errno)
		return ep_run_fail(f->run, -s.raw.count.last_errno, "%s: layer=l2: sending: %s",
				   f->name, strerror(s.raw.count.last_errno));
	if (rc)
		return rc;
	o->forgiven = pacer.forgiven;
	o->received = o->peer.received;
	o->bytes = o->peer.bytes;
	o->capture_drops = o->peer.capture_drops;
	o->reordered = o->peer.reordered;
	o->duplicated = o->peer.duplicated;
	o->jitter_ns = o->peer.jitter_ns;
	o->stall_ns = pacer.max_stall_ns;
	return 0;
}

/* This side's receiver: datagrams, or raw frames (layer=l2). */
struct receiver {
	struct ep_udp_rx udp;
	struct ep_l2_rx raw;
};

__attribute__((cold)) static int receiver_init(struct ep_udp_flow *f, struct receiver *r)
{
	int rc;

	if (f->l2)
		return ep_l2_rx_init(&r->raw, &f->link, f->req.flow);
	rc = ep_udp_rx_init(&r->udp, f->data_fd, f->req.flow, f->size_bytes);
	memcpy(&r->udp.from, &f->peer.addr, sizeof(r->udp.from));
	r->udp.from_len = f->peer.addr_len;
	r->udp.drop_every = f->drop_every;
	return rc;
}

static int receiver_poll(struct ep_udp_flow *f, struct receiver *r, int timeout_ms, int counting)
{
	return f->l2 ? ep_l2_rx_poll(&r->raw, timeout_ms, counting)
		     : ep_udp_rx_poll(&r->udp, timeout_ms, counting);
}

/*
 * The peer marks every datagram counted; this side's measured part is what
 * arrived between its start and its end, judged by the arrival stamps. By
 * when this thread read them instead, a thread descheduled over the ramp's
 * end would find the datagrams of the delay D queued at its first look
 * (where the measured part starts, to last a whole duration from there),
 * count them, and read the rate high by D / duration.
 */
static struct ep_rx_window *receiver_window(struct ep_udp_flow *f, struct receiver *r)
{
	return f->l2 ? &r->raw.window : &r->udp.window;
}

static int run_rx(struct ep_udp_flow *f, struct ep_trial *t, struct ep_udp_outcome *o)
{
	struct receiver r;
	const struct ep_seq_count *c;
	/* The window is on the trial's clock: the arrival stamps are the real
	 * clocks', so a simulated one (tests) counts by reading as before. */
	int by_arrival = !ep_trial_clock(t)->ops;
	int ended = 0;
	int rc = receiver_init(f, &r);

	if (rc)
		return rc;
	for (;;) {
		uint64_t start_ns;

		if (!ep_trial_running(t)) {
			ended = 1;
			break;
		}
		start_ns = ep_trial_start_ns(t);
		if (by_arrival)
			receiver_window(f, &r)->from_ns = start_ns;
		rc = receiver_poll(f, &r, 5, start_ns != 0);
		if (rc < 0 || (rc == 0 && ep_netk_peer_gone(&f->peer)))
			break;
	}
	/* What arrived before the end and was not read yet counts, what came
	 * after it does not: a thread descheduled at the end (the measured
	 * time runs to when it looked) neither misses nor adds any. */
	if (ended && by_arrival && ep_trial_start_ns(t)) {
		receiver_window(f, &r)->until_ns =
			ep_trial_start_ns(t) + ep_tally_elapsed_ns(ep_trial_tally(t));
		(void)receiver_poll(f, &r, 0, 1);
	}
	o->capture_drops = ep_l2_capture_drops(&f->link);
	close_data(f);
	c = f->l2 ? r.raw.count : r.udp.count;
	o->sent = ep_seq_expected(c);
	o->received = c->received;
	o->bytes = c->bytes;
	o->reordered = c->reordered;
	o->duplicated = c->duplicated;
	o->jitter_ns = c->jitter_ns;
	if (f->l2)
		ep_l2_rx_free(&r.raw);
	else
		ep_udp_rx_free(&r.udp);
	return stop_and_report(f, 0, &o->peer);
}

/* Where the trial's lost datagrams went: this side's counters and the peer's. */
static void attribute(struct ep_udp_flow *f, struct ep_udp_outcome *o)
{
	struct ep_linkstats mine, theirs;
	struct ep_loss_inputs in = {
		.lost = o->sent > o->received ? o->sent - o->received : 0,
		/* l2: the receiving socket is the capture's; its drops are its own. */
		.socket_drops = f->l2 ? o->capture_drops : UINT64_MAX,
	};

	ep_flow_drops_stop(&f->drops, &mine);
	ep_flow_drops_from_report(&o->peer, &theirs);
	in.sender = f->tx ? &mine : &theirs;
	in.receiver = f->tx ? &theirs : &mine;
	ep_loss_attribute(&in, &o->where);
}

int ep_udp_flow_run(struct ep_udp_flow *f, struct ep_trial *t, struct ep_udp_outcome *o)
{
	int slack_ns = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
	int rc;

	memset(o, 0, sizeof(*o));
	/* A sleeping sender wakes late by the timer slack (50 us by default);
	 * the caller's thread gets its own back. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	rc = f->tx ? run_tx(f, t, o) : run_rx(f, t, o);
	if (slack_ns > 0)
		(void)prctl(PR_SET_TIMERSLACK, (unsigned long)slack_ns, 0UL, 0UL, 0UL);
	if (!rc)
		attribute(f, o);
	else
		ep_flow_drops_stop(&f->drops, &(struct ep_linkstats){ 0 });
	return rc;
}

EP_UNTIMED void ep_udp_flow_close(struct ep_udp_flow *f)
{
	struct ep_linkstats unused;

	ep_flow_drops_stop(&f->drops, &unused);
	close_data(f);
	ep_peer_close(&f->peer);
}
