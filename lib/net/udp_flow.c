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
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "lib/core/core.h"
#include "linkspeed.h"
#include "pace.h"
#include "udp_flow.h"
#include "udp_io.h"
#include "wire.h"

/* How often a sender looks whether the peer left (its control connection). */
#define PEER_CHECK_NS 50000000

static void close_data(struct ep_udp_flow *f)
{
	if (f->data_fd >= 0)
		close(f->data_fd);
	f->data_fd = -1;
}

static int fail_peer(struct ep_udp_flow *f, int rc, const char *err)
{
	close_data(f);
	return ep_run_fail(f->run, rc, "%s: %s", f->name, err);
}

int ep_udp_flow_connect(struct ep_udp_flow *f, struct ep_run *run, const char *name)
{
	const char *peer = ep_param_text(run, "peer");
	char err[320];
	int rc;

	f->run = run;
	f->name = name;
	f->data_fd = -1;
	f->peer.fd = -1;
	if (!peer[0])
		return ep_run_fail(run, -EINVAL, "parameter 'peer': not set; accepted: HOST[:PORT] of "
				   "a host running `embperf serve`, or 'local' (a peer in this "
				   "process, on 127.0.0.1)");
	rc = ep_peer_open(&f->peer, peer, (uint64_t)ep_param_int(run, "timeout"), err,
			  sizeof(err));
	return rc ? ep_run_fail(run, rc, "%s: %s", name, err) : 0;
}

int ep_udp_flow_check_rate(struct ep_udp_flow *f, double pps)
{
	double wire_bps = pps * (f->frame_bytes + EP_WIRE_GAP_BYTES) * 8.0;
	double payload_bps = pps * f->size_bytes * 8.0;
	int64_t link_bps = ep_link_speed_bps(&f->peer.local);

	if (payload_bps > f->peer.welcome.max_rate_bps)
		return ep_run_fail(f->run, -ERANGE, "parameter 'rate': %.0f bit/s is above the limit "
				   "of peer %s (%.0f bit/s; `embperf serve --max-rate`)", payload_bps,
				   f->peer.name, f->peer.welcome.max_rate_bps);
	if (f->size_bytes > f->peer.welcome.max_size_bytes)
		return ep_run_fail(f->run, -ERANGE, "parameter 'size': %u bytes is above the limit of "
				   "peer %s (%u bytes)", f->size_bytes, f->peer.name,
				   f->peer.welcome.max_size_bytes);
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
	struct sockaddr_storage a = f->peer.local;
	socklen_t len = f->peer.local_len;
	int fd = ep_udp_socket(a.ss_family, 1);

	if (fd < 0)
		return fd;
	ep_addr_set_port(&a, 0);
	if (bind(fd, (struct sockaddr *)&a, len) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	f->data_fd = fd;
	*port = ep_addr_port(&a);
	return 0;
}

static void fill_request(struct ep_udp_flow *f)
{
	memset(&f->req, 0, sizeof(f->req));
	f->req.test = f->tx ? EP_TEST_UDP_SINK : EP_TEST_UDP_SOURCE;
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

int ep_udp_flow_begin(struct ep_udp_flow *f)
{
	char err[320];
	uint16_t port = 0;
	int rc;

	close_data(f);
	fill_request(f);
	if (!f->tx) {
		rc = open_rx_socket(f, &f->req.port);
		if (rc)
			return ep_run_fail(f->run, rc, "%s: data socket: %s", f->name, strerror(-rc));
	}
	ep_flow_drops_start(&f->drops, &f->peer.addr);
	rc = ep_peer_start(&f->peer, &f->req, &port, err, sizeof(err));
	if (rc)
		return fail_peer(f, rc, err);
	if (f->tx) {
		rc = open_tx_socket(f, port);
		if (rc)
			return ep_run_fail(f->run, rc, "%s: data socket to %s port %u: %s", f->name,
					   f->peer.name, port, strerror(-rc));
	}
	return 0;
}

/* The control connection has something to say mid-trial: the peer left or refused. */
static int peer_gone(const struct ep_udp_flow *f)
{
	struct pollfd p = { .fd = f->peer.fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
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

	return rc ? fail_peer(f, rc, err) : 0;
}

static int run_tx(struct ep_udp_flow *f, struct ep_trial *t, struct ep_udp_outcome *o)
{
	struct ep_tally *ta = ep_trial_tally(t);
	struct ep_udp_tx tx;
	struct ep_pacer pacer;
	uint64_t checked_ns = ep_now_ns();
	int restarted = 0;
	int rc = ep_udp_tx_init(&tx, f->data_fd, f->size_bytes, f->req.flow);

	if (rc)
		return rc;
	ep_pacer_init(&pacer, f->pacing, f->pps, f->burst, f->wait_ns, f->batch, ep_now_ns());
	while (ep_trial_running(t) && (!f->count || tx.sent < f->count)) {
		uint64_t measured_ns = ep_trial_start_ns(t);
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
		if (f->count && n > f->count - tx.sent && measured_ns)
			n = (uint32_t)(f->count - tx.sent);
		if (n)
			ep_pacer_sent(&pacer, ep_udp_tx_send(&tx, n, ep_trial_start_ns(t) != 0));
		if (f->echo_every)
			take_echoes(f, ta);
		if (ep_now_ns() - checked_ns > PEER_CHECK_NS) {
			checked_ns = ep_now_ns();
			if (peer_gone(f))
				break;
		}
	}
	ep_udp_tx_free(&tx);
	rc = stop_and_report(f, tx.sent, &o->peer);
	close_data(f);
	if (rc)
		return rc;
	o->sent = tx.sent;
	o->forgiven = pacer.forgiven;
	o->received = o->peer.received;
	o->reordered = o->peer.reordered;
	o->duplicated = o->peer.duplicated;
	o->jitter_ns = o->peer.jitter_ns;
	return 0;
}

static int run_rx(struct ep_udp_flow *f, struct ep_trial *t, struct ep_udp_outcome *o)
{
	struct ep_udp_rx rx;
	int rc = ep_udp_rx_init(&rx, f->data_fd, f->req.flow, f->size_bytes);

	if (rc)
		return rc;
	memcpy(&rx.from, &f->peer.addr, sizeof(rx.from));
	rx.from_len = f->peer.addr_len;
	rx.drop_every = f->drop_every;
	while (ep_trial_running(t)) {
		rc = ep_udp_rx_poll(&rx, 5, ep_trial_start_ns(t) != 0);
		if (rc < 0 || (rc == 0 && peer_gone(f)))
			break;
	}
	close_data(f);
	o->sent = ep_seq_expected(rx.count);
	o->received = rx.count->received;
	o->reordered = rx.count->reordered;
	o->duplicated = rx.count->duplicated;
	o->jitter_ns = rx.count->jitter_ns;
	ep_udp_rx_free(&rx);
	return stop_and_report(f, 0, &o->peer);
}

/* Where the trial's lost datagrams went: this side's counters and the peer's. */
static void attribute(struct ep_udp_flow *f, struct ep_udp_outcome *o)
{
	struct ep_linkstats mine, theirs;
	struct ep_loss_inputs in = {
		.lost = o->sent > o->received ? o->sent - o->received : 0,
		.socket_drops = UINT64_MAX,
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

void ep_udp_flow_close(struct ep_udp_flow *f)
{
	struct ep_linkstats unused;

	ep_flow_drops_stop(&f->drops, &unused);
	close_data(f);
	ep_peer_close(&f->peer);
}
