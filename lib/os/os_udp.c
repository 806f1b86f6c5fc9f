// SPDX-License-Identifier: MIT
/*
 * os_udp.c - os.udp.lat: UDP round trip over loopback (127.0.0.1), the
 * method of lmbench's lat_udp (McVoy & Staelin).
 *
 * One unit is a round trip of a 'size'-byte datagram (4 bytes by default,
 * lat_udp's: the smallest that holds its sequence number). This process
 * sends from a connected socket and receives the answer; a forked server
 * receives with recvfrom() and answers with sendto() on an unconnected
 * socket, as lat_udp's server does. Each datagram carries a sequence
 * number that the answer must carry back. Reported per round trip.
 *
 * Both sockets bind 127.0.0.1 with ports the kernel picks.
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/os/partner.h"

#define UDP_MIN_SIZE 4         /* the sequence number */
#define UDP_MAX_SIZE 65507     /* largest IPv4 UDP payload */
#define UDP_SERVER_BUF 65536

/**
 * struct udp_lat - state of os.udp.lat.
 * @msg:     the server process; this process's socket, connected to the
 *           server's (client); the server's socket (server, closed here
 *           after the fork); the datagram and its size.
 * @srv_buf: the server's receive buffer, allocated before the fork.
 * @seq:     sequence number of the next datagram.
 */
struct udp_lat {
	struct ep_partner_msg msg;
	char *srv_buf;
	uint32_t seq;
};

static const struct ep_param_desc udp_params[] = {
	{ "size", EP_PT_SIZE, "4", { { UDP_MIN_SIZE, UDP_MAX_SIZE } }, NULL, "bytes",
	  "datagram size of each round trip (lat_udp -m); at least 4 for the sequence number" },
	EP_PARTNER_MODE_PARAM,
	EP_PARTNER_TIMEOUT_PARAM,
};

static const struct ep_metric_desc udp_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "round trip of a datagram over UDP on 127.0.0.1, median (lat_udp)" },
};

/* The server process: answer each datagram to its sender. */
static void udp_server(void *arg)
{
	const struct udp_lat *st = arg;

	for (;;) {
		struct sockaddr_in from;
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(st->msg.server, st->srv_buf, UDP_SERVER_BUF, 0,
				     (struct sockaddr *)&from, &len);

		if (n < 0 && errno == EINTR)
			continue;
		/* Datagrams have 4 bytes at least: 0 is a shut socket (threads mode). */
		if (n <= 0)
			return;
		if (sendto(st->msg.server, st->srv_buf, (size_t)n, 0, (struct sockaddr *)&from,
			   len) < 0 &&
		    errno != EINTR && errno != ECONNREFUSED)
			return;
	}
}

/* A dead server does not end a wait for a datagram: shut the socket. */
static void udp_unblock(void *arg)
{
	const struct udp_lat *st = arg;

	shutdown(st->msg.client, SHUT_RDWR);
}

static int udp_round_trip(struct udp_lat *st)
{
	uint32_t seq = htonl(st->seq++), back;
	ssize_t n;

	memcpy(st->msg.buf, &seq, sizeof(seq));
	do
		n = send(st->msg.client, st->msg.buf, st->msg.size, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)st->msg.size)
		return n < 0 ? -errno : -EMSGSIZE;
	do
		n = recv(st->msg.client, st->msg.buf, st->msg.size, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n < 0 ? -errno : -EPIPE;
	memcpy(&back, st->msg.buf, sizeof(back));
	return n == (ssize_t)st->msg.size && back == seq ? 0 : -EPROTO;
}

static int udp_body(void *arg, uint64_t units)
{
	struct udp_lat *st = arg;
	int err = 0;

	ep_partner_enter(&st->msg.partner);
	while (units-- && !err) {
		err = udp_round_trip(st);
		ep_partner_beat(&st->msg.partner);
	}
	ep_partner_leave(&st->msg.partner);
	if (err == -EPROTO)
		return ep_run_fail(st->msg.partner.run, err,
				   "round trip: the answer is not the datagram sent (sequence %u)",
				   (unsigned)(st->seq - 1));
	return err ? ep_partner_failed(&st->msg.partner, err, "round trip") : 0;
}

static void udp_teardown(void *state)
{
	struct udp_lat *st = state;

	ep_partner_msg_close(&st->msg);
	free(st->srv_buf);
}

/* Server bound to 127.0.0.1:0, client connected to it. */
static int udp_sockets(struct ep_run *run, struct udp_lat *st)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int err;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	st->msg.server = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	st->msg.client = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (st->msg.server < 0 || st->msg.client < 0)
		return ep_run_fail(run, -errno, "cannot make a UDP socket: %s", strerror(errno));
	if (bind(st->msg.server, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(st->msg.server, (struct sockaddr *)&a, &len) ||
	    connect(st->msg.client, (struct sockaddr *)&a, sizeof(a))) {
		err = -errno;
		return ep_run_fail(run, err, "cannot set up UDP sockets on 127.0.0.1: %s",
				   strerror(-err));
	}
	return 0;
}

static int udp_start(struct ep_run *run, struct udp_lat *st)
{
	struct ep_partner_cfg cfg = ep_partner_cfg_of(run, "UDP server process", udp_server, st);
	int rc;

	st->msg.buf = calloc(1, st->msg.size);
	st->srv_buf = malloc(UDP_SERVER_BUF);
	if (!st->msg.buf || !st->srv_buf)
		return ep_partner_size_nomem(run, st->msg.size);
	rc = udp_sockets(run, st);
	if (rc)
		return rc;
	cfg.unblock = udp_unblock;
	cfg.unblock_arg = st;
	rc = ep_partner_start_on(run, &st->msg.partner, &cfg, &st->msg.server);
	return rc ? rc : udp_body(st, 1); /* one round trip first: the server is up */
}

static int udp_setup(struct ep_run *run, void **state)
{
	struct udp_lat *st = *state;
	struct ep_case c = { .metric = 0, .body = udp_body, .arg = st };
	int rc;

	ep_partner_msg_init(run, &st->msg);
	rc = udp_start(run, st);
	return rc ? rc : ep_partner_add_size_case(run, &c);
}

const struct ep_kernel ep_kernel_os_udp_lat = {
	.name = "os.udp.lat",
	.summary = "UDP round trip over 127.0.0.1 between two processes (lmbench lat_udp); mode=process needs fork()",
	EP_PARAMS(udp_params),
	EP_METRICS(udp_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = udp_setup,
	.teardown = udp_teardown,
	.state_bytes = sizeof(struct udp_lat),
};
