// SPDX-License-Identifier: MIT
/*
 * os_tcp.c - os.tcp.lat and os.tcp.connect: TCP round trip and connection
 * cost over loopback (127.0.0.1), the methods of lmbench's lat_tcp and
 * lat_connect (McVoy & Staelin).
 *
 * os.tcp.lat: one unit is a round trip of a 'size'-byte message (1 byte by
 *   default) over an established connection to a forked echo process, as
 *   lat_tcp's client and its per-connection server child. No socket option
 *   is set (Nagle stays on, as in lat_tcp); reported per round trip.
 * os.tcp.connect: one unit is socket(), SO_REUSEADDR, a blocking connect()
 *   to a forked server and close(), the calls of lat_connect's client. The
 *   server accepts, waits for the client's end of file and closes, as
 *   lat_connect's server does, on the other side of the accept queue.
 *
 * Everything binds 127.0.0.1 with a port the kernel picks: no other
 * address is ever used and nothing is reachable from outside.
 */
#include <errno.h>
#include <inttypes.h>
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

/**
 * struct tcp_lat - state of os.tcp.lat.
 * @msg:     the echo process; this process's end of the connection
 *           (client); the accepted end, the echo process's (server,
 *           closed here after the fork); the message.
 * @echo:    the echo process's arguments.
 * @echo_buf: the echo thread's buffer (mode=threads), else NULL.
 */
struct tcp_lat {
	struct ep_partner_msg msg;
	struct ep_partner_echo echo;
	char *echo_buf;
};

/**
 * struct tcp_connect - state of os.tcp.connect.
 * @partner:  the server process.
 * @listener: the listening socket, the server's (closed here after the fork).
 * @addr:     127.0.0.1 and the listener's port.
 */
struct tcp_connect {
	struct ep_partner partner;
	int listener;
	struct sockaddr_in addr;
};

static const struct ep_param_desc tcp_lat_params[] = {
	{ "size", EP_PT_SIZE, "1", { { 1, 16LL << 20 } }, NULL, "bytes",
	  "message size of each round trip (lat_tcp -m)" },
	EP_PARTNER_MODE_PARAM,
	EP_PARTNER_TIMEOUT_PARAM,
};

/* SOMAXCONN of glibc's headers since Linux 5.4; lat_connect's server listens with 100. */
#define TCP_CONNECT_BACKLOG 4096
#define TCP_TEXT_(x) #x
#define TCP_TEXT(x) TCP_TEXT_(x) /* a number as the text of a parameter's default */

static const struct ep_param_desc tcp_connect_params[] = {
	{ "backlog", EP_PT_INT, TCP_TEXT(TCP_CONNECT_BACKLOG), { { 1, 65535 } }, NULL, "",
	  "the server's accept queue (listen()'s backlog, capped by net.core.somaxconn): 4096, "
	  "deep enough that the client never waits; 100 is lat_connect's, whose queue can "
	  "overflow into 1 s SYN retransmissions when client and server share a CPU" },
	EP_PARTNER_MODE_PARAM,
	EP_PARTNER_TIMEOUT_PARAM,
};

static const struct ep_metric_desc tcp_lat_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "round trip of a message over TCP on 127.0.0.1, median (lat_tcp)" },
};

static const struct ep_metric_desc tcp_connect_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "socket, connect to 127.0.0.1 and close, median (lat_connect)" },
};

/* ------------------------------------------------------------------ latency */

static int tcp_lat_body(void *arg, uint64_t units)
{
	struct tcp_lat *st = arg;

	return ep_partner_round_trips(&st->msg.partner, st->msg.client, st->msg.client, 1,
				      st->msg.buf, st->msg.size, units);
}

static void tcp_lat_teardown(void *state)
{
	struct tcp_lat *st = state;

	ep_partner_msg_close(&st->msg);
	free(st->echo_buf);
}

static int tcp_lat_start(struct ep_run *run, struct tcp_lat *st)
{
	struct ep_partner_cfg cfg = ep_partner_cfg_of(run, "TCP echo process",
						      ep_partner_echo_loop, &st->echo);
	int rc;

	/* This buffer, and the echo process's copy of it once it writes there. */
	rc = ep_mem_check_fits(run, "size", ep_param_text(run, "size"), 2 * (uint64_t)st->msg.size);
	if (rc)
		return rc;
	st->msg.buf = calloc(1, st->msg.size);
	/* An echo process writes into its own copy of the buffer; a thread needs one. */
	if (st->msg.buf && cfg.threads)
		st->echo_buf = calloc(1, st->msg.size);
	if (!st->msg.buf || (cfg.threads && !st->echo_buf))
		return ep_partner_size_nomem(run, st->msg.size);
	rc = ep_ipc_tcp_pair(run, &st->msg.client, &st->msg.server);
	if (rc)
		return rc;
	st->echo = (struct ep_partner_echo){ .in = st->msg.server, .out = st->msg.server,
					     .buf = st->echo_buf ? st->echo_buf : st->msg.buf,
					     .size = st->msg.size };
	rc = ep_partner_start_on(run, &st->msg.partner, &cfg, &st->msg.server);
	return rc ? rc : tcp_lat_body(st, 1); /* one round trip first: both processes are up */
}

static int tcp_lat_setup(struct ep_run *run, void **state)
{
	struct tcp_lat *st = *state;
	struct ep_case c = { .metric = 0, .body = tcp_lat_body, .arg = st };
	int rc;

	ep_partner_msg_init(run, &st->msg);
	rc = tcp_lat_start(run, st);
	return rc ? rc : ep_partner_add_size_case(run, &c);
}

/* --------------------------------------------------------------- connection */

/* Cleanup of a cancelled server thread: the connection it was serving. */
static void close_connection(void *arg)
{
	close(*(int *)arg);
}

/* The server process (or thread): accept, wait for the client's close,
 * close; for ever. */
static void tcp_connect_server(void *arg)
{
	const struct tcp_connect *st = arg;
	char c;

	for (;;) {
		int s = accept(st->listener, NULL, NULL);

		if (s < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		/* A thread cancelled in read() (mode=threads) closes it too. */
		pthread_cleanup_push(close_connection, &s);
		while (read(s, &c, 1) > 0)
			;
		pthread_cleanup_pop(1);
	}
}

static int connect_failed(struct tcp_connect *st, int err)
{
	if (err == -EADDRNOTAVAIL && !__atomic_load_n(&st->partner.fired, __ATOMIC_ACQUIRE))
		return ep_run_fail(st->partner.run, err,
				   "connect to 127.0.0.1:%d: no local port is free (closed "
				   "connections wait in TIME_WAIT; see net.ipv4.tcp_tw_reuse and "
				   "net.ipv4.ip_local_port_range)",
				   ntohs(st->addr.sin_port));
	return ep_partner_failed(&st->partner, err, "connect to 127.0.0.1");
}

/* One connection: the calls lat_connect's client makes. */
static int connect_once(const struct tcp_connect *st)
{
	int one = 1, err = 0;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -errno;
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    connect(s, (const struct sockaddr *)&st->addr, sizeof(st->addr)))
		err = -errno;
	close(s);
	return err;
}

static int tcp_connect_body(void *arg, uint64_t units)
{
	struct tcp_connect *st = arg;
	int err = 0;

	ep_partner_enter(&st->partner);
	while (units-- && !err) {
		err = connect_once(st);
		ep_partner_beat(&st->partner);
	}
	ep_partner_leave(&st->partner);
	return err ? connect_failed(st, err) : 0;
}

static void tcp_connect_teardown(void *state)
{
	struct tcp_connect *st = state;

	ep_partner_stop(&st->partner);
	ep_ipc_close(&st->listener);
}

static int tcp_connect_start(struct ep_run *run, struct tcp_connect *st)
{
	struct ep_partner_cfg cfg = ep_partner_cfg_of(run, "TCP server process",
						      tcp_connect_server, st);
	int port = 0, rc;

	/* By default a deep accept queue: the client must never wait for the
	 * server to catch up (a full queue drops SYNs and costs a 1 s
	 * retransmission); backlog=100 gives lat_connect's. */
	rc = ep_ipc_listen(run, &st->listener, &port, (int)ep_param_int(run, "backlog"));
	if (rc)
		return rc;
	st->addr.sin_family = AF_INET;
	st->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	st->addr.sin_port = htons((uint16_t)port);
	rc = ep_partner_start_on(run, &st->partner, &cfg, &st->listener);
	return rc ? rc : tcp_connect_body(st, 1); /* one connection first: the server is up */
}

static int tcp_connect_setup(struct ep_run *run, void **state)
{
	struct tcp_connect *st = *state;
	int64_t backlog = ep_param_int(run, "backlog");
	char label[32] = ""; /* the backlog when not the default */

	st->listener = -1;
	if (backlog != TCP_CONNECT_BACKLOG)
		snprintf(label, sizeof(label), "backlog=%" PRId64, backlog);
	return ep_partner_add_labelled_case(run, tcp_connect_start(run, st), label,
					    tcp_connect_body, st);
}

const struct ep_kernel ep_kernel_os_tcp_lat = {
	.name = "os.tcp.lat",
	.summary = "TCP round trip over 127.0.0.1 between two processes (lmbench lat_tcp); mode=process needs fork()",
	EP_PARAMS(tcp_lat_params),
	EP_METRICS(tcp_lat_metrics),
	.engine_defaults = ep_lmbench_ipc_defaults,
	.setup = tcp_lat_setup,
	.teardown = tcp_lat_teardown,
	.state_bytes = sizeof(struct tcp_lat),
};

const struct ep_kernel ep_kernel_os_tcp_connect = {
	.name = "os.tcp.connect",
	.summary = "TCP connection cost to a server on 127.0.0.1 (lmbench lat_connect); mode=process needs fork()",
	EP_PARAMS(tcp_connect_params),
	EP_METRICS(tcp_connect_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = tcp_connect_setup,
	.teardown = tcp_connect_teardown,
	.state_bytes = sizeof(struct tcp_connect),
};
