// SPDX-License-Identifier: MIT
/*
 * test_net_peer.c - the embperf peer and net.udp.stream on loopback.
 *
 * A peer runs in a thread of the test (embperf_server_* on 127.0.0.1, a
 * free port); the tests talk to it as raw clients (to send what a real
 * client never would) or through the kernel. Figures are never asserted,
 * only what holds under any load: loss counted exactly when the receiver
 * discards every Nth datagram, the peer's refusals, its limits, and that
 * nothing keeps sending after a client is gone.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "embperf.h"
#include "emulated.h"
#include "lib/core/clock.h"
#include "lib/net/addr.h"
#include "lib/net/proto.h"
#include "lib/net/wire.h"
#include "proc_state.h"

static embperf_ctx *srv_ctx;
static embperf_server *srv;
static pthread_t srv_thread;
static int srv_running;

static void *serve(void *arg)
{
	(void)arg;
	embperf_server_run(srv, UINT64_MAX);
	return NULL;
}

/* A peer on 127.0.0.1 with the settings given as name, value, ..., NULL. */
static void start_peer(const char *name, ...)
{
	va_list ap;

	srv_ctx = embperf_ctx_new();
	cr_assert(srv_ctx);
	srv = embperf_server_new(srv_ctx);
	cr_assert(srv);
	cr_assert_eq(embperf_server_set(srv, "listen", "127.0.0.1:0"), 0);
	va_start(ap, name);
	for (const char *n = name; n; n = va_arg(ap, const char *)) {
		const char *v = va_arg(ap, const char *);

		cr_assert_eq(embperf_server_set(srv, n, v), 0, "%s", embperf_server_errmsg(srv));
	}
	va_end(ap);
	cr_assert_eq(embperf_server_start(srv), 0, "%s", embperf_server_errmsg(srv));
	cr_assert_eq(pthread_create(&srv_thread, NULL, serve, NULL), 0);
	srv_running = 1;
}

static void stop_peer(void)
{
	if (srv_running) {
		embperf_ctx_cancel(srv_ctx);
		pthread_join(srv_thread, NULL);
		srv_running = 0;
	}
	embperf_server_free(srv);
	embperf_ctx_free(srv_ctx);
	srv = NULL;
	srv_ctx = NULL;
}

static uint64_t stat_of(enum embperf_server_stat s)
{
	uint64_t v = 0;

	cr_assert_eq(embperf_server_stat(srv, s, &v), 0);
	return v;
}

static char peer_spec[64];

static const char *peer_address(void)
{
	snprintf(peer_spec, sizeof(peer_spec), "127.0.0.1:%d", embperf_server_port(srv));
	return peer_spec;
}

/* A raw control connection to the test's peer. */
static int raw_connect(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[200];
	int fd;

	cr_assert_eq(ep_addr_parse(peer_address(), 1, &ss, &len, err, sizeof(err)), 0);
	fd = ep_connect_timeout(&ss, len, 2000000000);
	cr_assert_geq(fd, 0, "connect: %s", strerror(-fd));
	return fd;
}

static void raw_send(int fd, const struct ep_msg *m)
{
	cr_assert_eq(ep_msg_send(fd, m, 1000000000), 0);
}

static struct ep_msg raw_recv(int fd)
{
	struct ep_msg m;
	char err[200];
	int rc = ep_msg_recv(fd, &m, 3000000000ULL, err, sizeof(err));

	cr_assert_eq(rc, 0, "no answer: %s (%s)", strerror(-rc), err);
	return m;
}

static int raw_hello(int fd, int proto)
{
	struct ep_msg m = { .type = EP_MSG_HELLO, .proto = proto };

	raw_send(fd, &m);
	m = raw_recv(fd);
	return m.type == EP_MSG_WELCOME ? 0 : -1;
}

/* A raw client welcomed to a session. */
static int raw_session(void)
{
	int fd = raw_connect();

	cr_assert_eq(raw_hello(fd, EP_PROTO_VERSION), 0);
	return fd;
}

/* Ask for flow @start on @fd; the peer's answer. */
static struct ep_msg raw_start(int fd, struct ep_start start)
{
	struct ep_msg m = { .type = EP_MSG_START, .start = start };

	raw_send(fd, &m);
	return raw_recv(fd);
}

/* The peer closes @fd within @ms. */
static int closed_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	for (uint64_t end = ep_now_ns() + (uint64_t)ms * 1000000; ep_now_ns() < end;) {
		if (poll(&p, 1, 10) > 0) {
			ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);

			if (n == 0 || (n < 0 && errno == ECONNRESET))
				return 1;
		}
	}
	return 0;
}

TestSuite(peer, .fini = stop_peer);

Test(peer, welcome_carries_the_limits_and_another_version_is_refused)
{
	struct ep_msg m = { .type = EP_MSG_HELLO, .proto = EP_PROTO_VERSION + 1 };
	int fd;

	start_peer("max_rate", "100Mbit", "max_size", "1000", NULL);
	fd = raw_connect();
	raw_send(fd, &m);
	m = raw_recv(fd);
	cr_assert_eq(m.type, EP_MSG_ERROR);
	cr_assert_str_eq(m.code, "version");
	cr_assert(closed_within(fd, 2000));
	close(fd);
	fd = raw_connect();
	/* A hello of protocol 1.0 (no proto_minor): welcomed, told the peer's minor. */
	m = (struct ep_msg){ .type = EP_MSG_HELLO, .proto = EP_PROTO_VERSION };
	raw_send(fd, &m);
	m = raw_recv(fd);
	cr_assert_eq(m.type, EP_MSG_WELCOME);
	cr_assert_eq(m.proto, EP_PROTO_VERSION);
	cr_assert_eq(m.proto_minor, EP_PROTO_MINOR, "the welcome names what this peer serves");
	cr_assert_float_eq(m.max_rate_bps, 100e6, 1.0);
	cr_assert_eq(m.max_size_bytes, 1000);
	close(fd);
}

Test(peer, a_second_client_is_told_busy_and_served_after_the_first)
{
	int first, second;
	struct ep_msg m = { .type = EP_MSG_BYE };

	start_peer(NULL);
	first = raw_session();
	second = raw_connect();
	cr_assert_neq(raw_hello(second, EP_PROTO_VERSION), 0, "busy, not welcome");
	cr_assert(closed_within(second, 2000), "and closed, not left hanging");
	cr_assert_eq(stat_of(EMBPERF_SERVER_STAT_BUSY), 1);
	close(second);
	raw_send(first, &m);
	close(first);
	second = raw_connect();
	cr_assert_eq(raw_hello(second, EP_PROTO_VERSION), 0, "served once the first left");
	close(second);
}

Test(peer, clients_outside_allow_are_refused)
{
	int fd;
	struct ep_msg m;

	start_peer("allow", "198.18.0.0/15", NULL);
	fd = raw_connect();
	m = raw_recv(fd);
	cr_assert_eq(m.type, EP_MSG_ERROR);
	cr_assert_str_eq(m.code, "refused");
	cr_assert(closed_within(fd, 2000));
	cr_assert_eq(stat_of(EMBPERF_SERVER_STAT_REFUSED), 1);
	cr_assert_eq(stat_of(EMBPERF_SERVER_STAT_SESSIONS), 0);
	close(fd);
}

/* A raw client writes @len bytes of @bytes; the peer closes it within @ms. */
static void raw_write_is_closed(const void *bytes, size_t len, int ms)
{
	int fd = raw_connect();

	cr_assert_eq(write(fd, bytes, len), (ssize_t)len);
	cr_assert(closed_within(fd, ms));
	close(fd);
}

Test(peer, garbage_oversized_and_truncated_messages_close_only_their_connection)
{
	static const char garbage[] = "\x00\x00\x00\x05{{{{{";
	static const unsigned char oversized[] = { 0x7f, 0xff, 0xff, 0xff, '{' };
	static const unsigned char truncated[] = { 0, 0, 0, 100, '{', '"' };
	int fd;

	start_peer("idle_timeout", "500ms", NULL);
	raw_write_is_closed(garbage, sizeof(garbage) - 1, 2000);
	raw_write_is_closed(oversized, sizeof(oversized), 2000);
	/* A message that never completes: the connection ends at the idle limit. */
	raw_write_is_closed(truncated, sizeof(truncated), 3000);
	cr_assert_geq(stat_of(EMBPERF_SERVER_STAT_INVALID), 2);
	fd = raw_connect();
	cr_assert_eq(raw_hello(fd, EP_PROTO_VERSION), 0, "the peer still serves");
	close(fd);
}

Test(peer, the_first_message_must_be_hello)
{
	struct ep_msg m = { .type = EP_MSG_STOP, .flow = 1 };
	int fd;

	start_peer(NULL);
	fd = raw_connect();
	raw_send(fd, &m);
	m = raw_recv(fd);
	cr_assert_eq(m.type, EP_MSG_ERROR);
	cr_assert_str_eq(m.code, "invalid");
	cr_assert(closed_within(fd, 2000));
	close(fd);
}

Test(peer, requests_above_its_limits_are_refused_naming_the_limit)
{
	struct ep_msg m;
	int fd;

	start_peer("max_rate", "10Mbit", "max_size", "512", "max_duration", "2s", NULL);
	fd = raw_session();
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_UDP_SINK, .flow = 1, .size_bytes = 1000,
					     .duration_ns = 1000000000 });
	cr_assert_eq(m.type, EP_MSG_ERROR);
	cr_assert_str_eq(m.code, "limit");
	cr_assert(strstr(m.text, "512"), "%s", m.text);
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_UDP_SOURCE, .flow = 2, .size_bytes = 100,
					     .rate_bps = 50e6, .port = 9,
					     .duration_ns = 1000000000 });
	cr_assert_str_eq(m.code, "limit");
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_UDP_SINK, .flow = 3, .size_bytes = 100,
					     .duration_ns = 5000000000ULL });
	cr_assert_str_eq(m.code, "limit");
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_UDP_SOURCE, .flow = 4, .size_bytes = 100,
					     .port = 9, .duration_ns = 1000000000 });
	cr_assert_str_eq(m.code, "limit", "an unpaced source when the rate is capped");
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_TCP_BOTH, .flow = 5, .size_bytes = 100,
					     .duration_ns = 1000000000 });
	cr_assert_str_eq(m.code, "limit", "tcp.both sends unpaced: refused when the rate is capped");
	cr_assert(strstr(m.text, "TCP source"), "%s", m.text);
	cr_assert_eq(stat_of(EMBPERF_SERVER_STAT_TRIALS), 0);
	close(fd);
}

/* Past a datagram: a stream's writes up to 1 MiB; a datagram or request never. */
Test(peer, sizes_past_a_datagram_only_for_a_tcp_stream)
{
	struct ep_msg m;
	int fd;

	start_peer(NULL);
	fd = raw_session();
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_TCP_SOURCE, .flow = 1,
					     .size_bytes = EP_PEER_MAX_STREAM_IO_BYTES + 1,
					     .duration_ns = 1000000000 });
	cr_assert_str_eq(m.code, "invalid");
	cr_assert(strstr(m.text, "size"), "%s", m.text);
	cr_assert(closed_within(fd, 2000));
	close(fd);
	fd = raw_session();
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_UDP_SINK, .flow = 2,
					     .size_bytes = 65508, .duration_ns = 1000000000 });
	cr_assert_str_eq(m.code, "limit");
	cr_assert(strstr(m.text, "65508") && strstr(m.text, "65507"), "%s", m.text);
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_TCP_RR, .flow = 3, .size_bytes = 65508,
					     .response_bytes = 1, .duration_ns = 1000000000 });
	cr_assert_str_eq(m.code, "limit");
	cr_assert_eq(stat_of(EMBPERF_SERVER_STAT_TRIALS), 0);
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_TCP_SOURCE, .flow = 4,
					     .size_bytes = EP_PEER_MAX_STREAM_IO_BYTES,
					     .duration_ns = 1000000000 });
	cr_assert_eq(m.type, EP_MSG_READY, "a 1 MiB stream write: %s %s", m.code, m.text);
	close(fd);
}

/*
 * layer=l2 over a loopback control connection: the peer refuses l2.sink and
 * l2.source ("failed", naming layer=l2 and why: loopback carries no
 * Ethernet frame, or the library has no libpcap), runs no trial and keeps
 * the session.
 */
Test(peer, l2_tests_on_loopback_are_refused_naming_the_layer)
{
	enum ep_net_test tests[] = { EP_TEST_L2_SINK, EP_TEST_L2_SOURCE };
	struct ep_msg m;
	int fd;

	start_peer(NULL);
	fd = raw_connect();
	cr_assert_eq(raw_hello(fd, EP_PROTO_VERSION), 0);
	for (int i = 0; i < 2; i++) {
		m = (struct ep_msg){ .type = EP_MSG_START };
		m.start = (struct ep_start){ .test = tests[i], .flow = 1, .size_bytes = 124,
					     .rate_bps = 1e6, .port = 9, .duration_ns = 1000000000 };
		raw_send(fd, &m);
		m = raw_recv(fd);
		cr_assert_eq(m.type, EP_MSG_ERROR);
		cr_assert_str_eq(m.code, "failed");
		cr_assert(strstr(m.text, "layer=l2: ") &&
			  (strstr(m.text, "interface lo is loopback") || strstr(m.text, "libpcap")),
			  "%s", m.text);
	}
	cr_assert_eq(stat_of(EMBPERF_SERVER_STAT_TRIALS), 0);
	m = (struct ep_msg){ .type = EP_MSG_START };
	m.start = (struct ep_start){ .test = EP_TEST_UDP_SINK, .flow = 3, .size_bytes = 100,
				     .duration_ns = 1000000000 };
	raw_send(fd, &m);
	cr_assert_eq(raw_recv(fd).type, EP_MSG_READY, "the session goes on");
	close(fd);
}

/* A TCP connection from 127.0.0.1 to the test's peer at @port. */
static int data_connect(uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[200];
	int fd;
	struct timeval tv = { .tv_sec = 5 };

	cr_assert_eq(ep_addr_parse("127.0.0.1", port, &ss, &len, err, sizeof(err)), 0);
	fd = ep_connect_timeout(&ss, len, 2000000000);
	cr_assert_geq(fd, 0, "connect to port %u: %s", port, strerror(-fd));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

/* The peer ends the TCP connection @fd (its end of data) within @ms; what comes before is read. */
static int ended_within(int fd, int ms)
{
	static char buf[65536];

	for (uint64_t end = ep_now_ns() + (uint64_t)ms * 1000000; ep_now_ns() < end;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 10) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return 1;
	}
	return 0;
}

/*
 * tcp.both: two listeners (ready's port for the client's writes, source_port
 * for the peer's), each way moves data, and a client that vanishes without
 * stop or bye ends both: the source, in a thread of its own, closes its
 * connection long before the flow's duration (60 s).
 */
Test(peer, tcp_both_runs_each_way_and_ends_when_its_client_vanishes)
{
	static char data[65536];
	struct ep_msg m;
	int fd, to_peer, from_peer;

	start_peer(NULL);
	fd = raw_session();
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_TCP_BOTH, .flow = 9,
					     .size_bytes = 16384, .duration_ns = 60000000000ULL });
	cr_assert_eq(m.type, EP_MSG_READY, "%s %s", m.code, m.text);
	cr_assert(m.port && m.source_port && m.port != m.source_port, "ports %u and %u", m.port,
		  m.source_port);
	to_peer = data_connect(m.port);
	from_peer = data_connect(m.source_port);
	cr_assert_eq(send(to_peer, data, sizeof(data), MSG_NOSIGNAL), (ssize_t)sizeof(data),
		     "the peer reads what the client writes");
	cr_assert_eq(recv(from_peer, data, sizeof(data), MSG_WAITALL), (ssize_t)sizeof(data),
		     "the peer writes to the client meanwhile");
	close(fd); /* vanish, mid-trial, without stop or bye */
	cr_assert(ended_within(from_peer, 3000), "the peer's source stopped with the session");
	close(to_peer);
	close(from_peer);
}

/*
 * Datagrams that reach @fd within @ms stamped (the wire header's send time,
 * taken on this host's clock) at or after @since_ns; those sent before are
 * read and not counted, however late they are delivered.
 */
static int sent_since_within(int fd, uint64_t since_ns, int ms)
{
	unsigned char buf[2048];
	struct ep_wire_header h;
	ssize_t len;
	int n = 0;

	for (uint64_t end = ep_now_ns() + (uint64_t)ms * 1000000; ep_now_ns() < end;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 10) > 0)
			while ((len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
				if (ep_wire_decode(buf, (size_t)len, &h) || h.send_ns >= since_ns)
					n++;
	}
	return n;
}

/* A datagram reaches @fd within @ms (returns at the first). */
static int first_datagram_within(int fd, int ms)
{
	char buf[2048];

	for (uint64_t end = ep_now_ns() + (uint64_t)ms * 1000000; ep_now_ns() < end;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 10) > 0 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			return 1;
	}
	return 0;
}

/* A new client is welcomed by the test's peer within @ms (told busy until then). */
static int welcomed_within(int ms)
{
	const uint64_t end = ep_now_ns() + (uint64_t)ms * 1000000;
	char err[200];

	for (uint64_t now = ep_now_ns(); now < end; now = ep_now_ns()) {
		struct ep_msg m = { .type = EP_MSG_HELLO, .proto = EP_PROTO_VERSION };
		int fd = raw_connect(), rc;

		raw_send(fd, &m);
		rc = ep_msg_recv(fd, &m, end - now, err, sizeof(err));
		if (!rc && m.type != EP_MSG_WELCOME)
			closed_within(fd, 1000); /* the peer's answer to busy: no hammering */
		close(fd);
		if (!rc && m.type == EP_MSG_WELCOME)
			return 1;
	}
	return 0;
}

Test(peer, a_source_stops_when_its_client_vanishes)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	struct ep_msg m;
	uint64_t ended_ns;
	int fd, data = socket(AF_INET, SOCK_DGRAM, 0);

	cr_assert_geq(data, 0);
	cr_assert_eq(bind(data, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(data, (struct sockaddr *)&a, &len), 0);
	start_peer(NULL);
	fd = raw_session();
	m = raw_start(fd, (struct ep_start){ .test = EP_TEST_UDP_SOURCE, .flow = 7, .size_bytes = 64,
					     .rate_bps = 64 * 8 * 2000.0,
					     .port = ntohs(a.sin_port),
					     .duration_ns = 60000000000ULL });
	cr_assert_eq(m.type, EP_MSG_READY, "%s %s", m.code, m.text);
	/* Up to 3 s for the first datagram: under qemu-user on a loaded host
	 * (10-20x slower, stalls of 1-2 s) 300 ms were not enough. */
	cr_assert(first_datagram_within(data, 3000), "the source sends to the client's port");
	close(fd); /* vanish, mid-trial, without stop or bye */
	/*
	 * The peer welcomes another client once it has ended the vanished
	 * one's session, which joins the source's thread; from then on no
	 * datagram may be sent. The send time each carries tells, not a quiet
	 * gap: a gap of 200 ms was faked whenever the host kept the source's
	 * and the server's threads off the CPU that long. A source that never
	 * stops (its flow lasts 60 s, at 2000/s) sends hundreds in 500 ms; a
	 * peer that never notices the client left stays busy.
	 */
	cr_assert(welcomed_within(tp_emulated() ? 10000 : 5000),
		  "the peer still holds the session of a client gone for %d s",
		  tp_emulated() ? 10 : 5);
	ended_ns = ep_now_ns();
	cr_assert_eq(sent_since_within(data, ended_ns, 500), 0, "nothing keeps sending");
	close(data);
}

/* --- the kernel ---------------------------------------------------------- */

static embperf_ctx *ctx;
static embperf_bench *b;

/* A new context and a bench of @kernel: trials of @duration, a ramp of 50 ms, no settle. */
static embperf_bench *short_bench(const char *kernel, const char *duration)
{
	embperf_bench *x;

	ctx = embperf_ctx_new();
	cr_assert(ctx);
	x = embperf_bench_new(ctx, kernel);
	cr_assert(x, "%s is registered", kernel);
	tp_set(x, "duration", duration);
	tp_set(x, "ramp", "50ms");
	tp_set(x, "settle", "0");
	return x;
}

/* Free @x and the context of short_bench(). */
static void free_short_bench(embperf_bench *x)
{
	embperf_bench_free(x);
	embperf_ctx_free(ctx);
}

static void kernel_setup(void)
{
	b = short_bench("net.udp.stream", "500ms");
	tp_set(b, "repetitions", "1");
}

static void kernel_teardown(void)
{
	free_short_bench(b);
	stop_peer();
}

TestSuite(udp_stream, .init = kernel_setup, .fini = kernel_teardown);

static double value_of(const char *metric)
{
	const embperf_result *r = tp_find(b, metric);

	cr_assert(r, "no %s result", metric);
	return embperf_result_value(r);
}

/*
 * The receiver discards every 10th counted datagram: of n sent, exactly
 * floor(n / 10) are lost when the link loses none, so the loss lies in
 * (10 - 100 / n, 10] %. Both directions.
 */
static void check_drop_every_10(const char *direction)
{
	int fds = tp_count_fds(), threads = tp_count_threads();
	/* 0.5 s natively; 3 s under emulation, where a stall of 1-2 s of a
	 * loaded host could take most of a 0.5 s trial (the pacer catches up
	 * only 100 ms' worth): 12000 due, 60x the bound below. */
	const char *duration = tp_emulated() ? "3s" : "500ms";
	double loss, lost, sent;

	tp_set(b, "peer", "local");
	tp_set(b, "direction", direction);
	tp_set(b, "size", "200");
	tp_set(b, "pps", "4000");
	tp_set(b, "drop_every", "10");
	tp_set(b, "duration", duration);
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	loss = value_of("loss");
	lost = value_of("lost");
	cr_assert_gt(lost, 0);
	sent = lost * 100.0 / loss;
	cr_assert_gt(sent, 200, "a trial of %s at 4000/s sends hundreds: %.0f", duration, sent);
	cr_assert_leq(loss, 10.0 + 1e-9, "%s: loss %.4f %% of %.0f", direction, loss, sent);
	cr_assert_gt(loss, 10.0 - 100.0 / sent, "%s: loss %.4f %% of %.0f", direction, loss, sent);
	cr_assert_eq(tp_count_fds(), fds, "sockets closed");
	cr_assert_eq(tp_count_threads_settled(threads), threads, "the local peer's threads ended");
}

Test(udp_stream, loss_is_counted_exactly_tx)
{
	check_drop_every_10("tx");
}

Test(udp_stream, loss_is_counted_exactly_rx)
{
	check_drop_every_10("rx");
}

Test(udp_stream, figures_agree_with_each_other)
{
	double mbps, kpps, l2, offered;

	tp_set(b, "peer", "local");
	tp_set(b, "frame", "64");
	tp_set(b, "pps", "5000");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	mbps = value_of("throughput");
	kpps = value_of("kpps");
	l2 = value_of("throughput_l2");
	offered = value_of("offered");
	cr_assert_gt(kpps, 0);
	cr_assert_float_eq(mbps, kpps * 1e3 * 18 * 8 / 1e6, mbps * 1e-9, "payload 18 bytes");
	cr_assert_float_eq(l2, kpps * 1e3 * 64 * 8 / 1e6, l2 * 1e-9, "frame 64 bytes");
	cr_assert_geq(offered, mbps * (1 - 1e-9), "nothing arrives that was not sent");
	cr_assert_leq(offered * 1e6 / (18 * 8), 5000 * 1.01, "never above the asked rate");
	cr_assert_not(isnan(value_of("peer_cpu_system")), "the peer's CPU load is reported");
}

/**
 * struct hog - a SCHED_FIFO thread on CPU 0: with @for_ns, it waits until
 * the test's peer has started more than @trials_before trials, sleeps
 * @after_ns and then spins @for_ns (the CPU is taken from whoever runs
 * there); without, it looks every millisecond whether thread @watch_tid
 * runs SCHED_FIFO (@seen_fifo). Either until it is done, the run is over
 * (@done) or 10 s passed.
 */
struct hog {
	uint64_t after_ns, for_ns, trials_before;
	pid_t watch_tid;
	int seen_fifo;
	int done;
};

/* How long a watching hog looks at most. */
#define HOG_WATCH_MAX_NS 10000000000ULL

static void *hog_main(void *arg)
{
	struct hog *h = arg;
	uint64_t start, trials = 0, end = ep_now_ns() + HOG_WATCH_MAX_NS;
	struct timespec ms = { 0, 1000000 };
	cpu_set_t cpu0;

	/* On CPU 0 (sched_setaffinity on the thread itself: musl has no
	 * pthread_attr_setaffinity_np()). */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	if (!h->for_ns) {
		/* Watching: the sender turns SCHED_FIFO only once the peer's
		 * setup is over, which a loaded machine can delay. */
		while (!__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) && ep_now_ns() < end) {
			if (sched_getscheduler(h->watch_tid) == SCHED_FIFO) {
				h->seen_fifo = 1;
				break;
			}
			nanosleep(&ms, NULL);
		}
		return NULL;
	}
	/* The peer counts a trial as it answers the client's start: the
	 * client's measured part begins a ramp (50 ms) after at most, however
	 * long the set-up before it took. (The peer's server thread runs on
	 * any CPU: it was started before the test pinned itself to CPU 0.) */
	while (!__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) && trials <= h->trials_before) {
		if (ep_now_ns() >= end || embperf_server_stat(srv, EMBPERF_SERVER_STAT_TRIALS, &trials))
			return NULL;
		nanosleep(&ms, NULL);
	}
	start = ep_now_ns() + h->after_ns;
	while (!__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) && ep_now_ns() < start)
		nanosleep(&ms, NULL);
	while (ep_now_ns() < start + h->for_ns)
		;
	return NULL;
}

/* Start a hog at SCHED_FIFO 1 on CPU 0, where the caller then runs too. */
static void start_hog(pthread_t *tid, struct hog *h, cpu_set_t *old)
{
	struct sched_param sp = { .sched_priority = 1 };
	pthread_attr_t attr;
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	cr_assert_eq(sched_getaffinity(0, sizeof(*old), old), 0);
	cr_assert_eq(sched_setaffinity(0, sizeof(cpu0), &cpu0), 0);
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	cr_assert_eq(pthread_create(tid, &attr, hog_main, h), 0);
	pthread_attr_destroy(&attr);
}

/* Run the bench while hog @h runs beside it on CPU 0; afterwards the caller
 * runs where it ran before. */
static void run_beside_hog(struct hog *h)
{
	cpu_set_t old;
	pthread_t tid;
	int rc;

	start_hog(&tid, h, &old);
	rc = embperf_bench_run(b);
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);
	sched_setaffinity(0, sizeof(old), &old);
	cr_assert_eq(rc, 0, "%s", embperf_bench_errmsg(b));
}

/*
 * A sender held off its CPU for 300 ms owes 600 datagrams at 2000/s; the
 * pacer keeps 100 ms' worth (200) owing and gives up on the rest: the
 * 'forgiven' figure says so, and sent + forgiven never exceeds the schedule
 * (by its last look).
 *
 * The stall must fall in the measured part, which starts after the peer's
 * set-up and the 50 ms ramp. A stall at a fixed time after the hog started
 * (700 ms) fell in the set-up whenever that took longer (ASan on a loaded
 * host), in every run alike. So the hog waits for the peer (here a peer of
 * the test's, whose trial count it can read) to start the trial, then
 * 500 ms more: the test's thread would have to be held off that long
 * between the peer's answer and its first look after the ramp. The trial
 * lasts 2 s, so the stall (0.5-0.8 s after the answer) ends well inside it.
 * A stall 300 ms in, in a 1 s trial, once gave 0 forgiven in CI (why was
 * not found: that run took 1.12 s, so its setup was quick); up to three
 * runs, each checked; a pacer that never forgives fails all three.
 *
 * Under emulation the path from the peer's answer to the measured part
 * takes 10-20x as long, and a loaded host stalls for 1-2 s: the stall
 * starts 1.5 s after the answer, in a 3 s trial.
 */
Test(udp_stream, datagrams_the_pacer_gave_up_on_are_counted)
{
	const double trial_s = tp_emulated() ? 3 : 2;
	const uint64_t after_ns = tp_emulated() ? 1500000000ULL : 500000000ULL;
	double forgiven = 0, sent;

	if (!tp_fifo_permitted())
		cr_skip_test("this process may not use SCHED_FIFO (the hog that stalls the sender)");
	start_peer(NULL);
	tp_set(b, "peer", peer_address());
	tp_set(b, "size", "200");
	tp_set(b, "pps", "2000");
	tp_set(b, "duration", tp_emulated() ? "3s" : "2s");
	for (int attempt = 0; attempt < 3 && forgiven < 300; attempt++) {
		struct hog h = { .after_ns = after_ns, .for_ns = 300000000,
				 .trials_before = stat_of(EMBPERF_SERVER_STAT_TRIALS) };

		run_beside_hog(&h);
		forgiven = value_of("forgiven");
		sent = value_of("offered") * trial_s * 1e6 / (200 * 8);
		tp_figure("udp_stream, a 300 ms stall at 2000/s, run %d: %.0f forgiven",
			  attempt + 1, forgiven);
		/* The pacer's last look may come after the trial's end on a
		 * busy host (a late wake-up): what fell due by then counts, up
		 * to 100 ms' worth. */
		cr_assert_leq(sent + forgiven, 2000 * trial_s + 200 + 1, "sent %.0f + forgiven %.0f",
			      sent, forgiven);
	}
	/* 400 forgiven unless the sender was held off longer (a loaded host). */
	cr_assert_geq(forgiven, 300, "a 300 ms stall at 2000/s: %.0f forgiven", forgiven);
}

/* priority=N: the sending thread runs SCHED_FIFO during the trial, and not after. */
Test(udp_stream, priority_runs_the_sender_sched_fifo)
{
	struct hog h = { .for_ns = 0, .watch_tid = (pid_t)syscall(SYS_gettid) };

	if (!tp_fifo_permitted())
		cr_skip_test("this process may not use SCHED_FIFO");
	tp_set(b, "peer", "local");
	tp_set(b, "pps", "2000");
	tp_set(b, "priority", "2");
	run_beside_hog(&h);
	cr_assert(h.seen_fifo, "the sender never ran SCHED_FIFO");
	cr_assert_eq(sched_getscheduler(0), SCHED_OTHER, "given back after the run");
	/*
	 * Whether a FIFO-2 sender keeps its pace is a figure: a real-time task
	 * of higher priority (another test's, at FIFO 80) or an emulator can
	 * hold it past the pacer's 100 ms of debt (seen once natively under
	 * load, once under qemu-user). The forgiving itself is checked exactly
	 * on the simulated clock (test_net_proto.c, pace::...forgiven...).
	 */
	tp_figure("udp_stream priority=2 at 2000/s: %.0f forgiven", value_of("forgiven"));
}

Test(udp_stream, priority_without_permission_is_refused_by_name)
{
	const char *msg;

	if (!tp_drop_rt_permission())
		cr_skip_test("could not drop the permission to use SCHED_FIFO");
	tp_set(b, "peer", "local");
	tp_set(b, "priority", "50");
	cr_assert_eq(embperf_bench_run(b), -EPERM, "%s", embperf_bench_errmsg(b));
	msg = embperf_bench_errmsg(b);
	cr_assert(strstr(msg, "'priority'") && strstr(msg, "'50'") && strstr(msg, "RLIMIT_RTPRIO"),
		  "%s", msg);
}

Test(udp_stream, bad_input_names_the_parameter)
{
	static const struct {
		const char *name, *value, *says;
	} cases[] = {
		{ "frame", "63", "parameter 'frame'" },
		{ "size", "65508", "parameter 'size'" },
		{ "size", "17", "parameter 'size'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		embperf_bench *x = embperf_bench_new(ctx, "net.udp.stream");
		int rc = embperf_bench_set(x, cases[i].name, cases[i].value);

		if (!rc) {
			tp_set(x, "peer", "local");
			rc = embperf_bench_run(x);
		}
		cr_assert_lt(rc, 0, "%s=%s accepted", cases[i].name, cases[i].value);
		cr_assert(strstr(embperf_bench_errmsg(x), cases[i].says), "%s",
			  embperf_bench_errmsg(x));
		embperf_bench_free(x);
	}
	cr_assert_lt(embperf_bench_run(b), 0, "no peer");
	cr_assert(strstr(embperf_bench_errmsg(b), "parameter 'peer'"), "%s",
		  embperf_bench_errmsg(b));
	tp_set(b, "peer", "local");
	tp_set(b, "rate", "1Mbit");
	tp_set(b, "pps", "10");
	cr_assert_lt(embperf_bench_run(b), 0, "rate and pps");
	cr_assert(strstr(embperf_bench_errmsg(b), "'pps'"), "%s", embperf_bench_errmsg(b));
}

Test(udp_stream, an_unreachable_peer_is_named_within_the_timeout)
{
	uint64_t t0;

	/* Port 1 on loopback: nothing listens, the connection is refused. */
	tp_set(b, "peer", "127.0.0.1:1");
	tp_set(b, "timeout", "2s");
	t0 = ep_now_ns();
	cr_assert_lt(embperf_bench_run(b), 0);
	cr_assert_lt(ep_now_ns() - t0, 3000000000ULL);
	cr_assert(strstr(embperf_bench_errmsg(b), "127.0.0.1:1"), "%s", embperf_bench_errmsg(b));
}

Test(udp_stream, a_rate_above_the_peers_limit_is_refused)
{
	start_peer("max_rate", "1Mbit", NULL);
	tp_set(b, "peer", peer_address());
	tp_set(b, "rate", "2Mbit");
	cr_assert_lt(embperf_bench_run(b), 0);
	cr_assert(strstr(embperf_bench_errmsg(b), "parameter 'rate'"), "%s",
		  embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), peer_address()), "%s", embperf_bench_errmsg(b));
}

static void *stop_later(void *arg)
{
	(void)arg;
	usleep(400000);
	embperf_ctx_cancel(srv_ctx);
	pthread_join(srv_thread, NULL);
	srv_running = 0;
	embperf_server_free(srv); /* closes the control connection mid-trial */
	srv = NULL;
	return NULL;
}

Test(udp_stream, a_peer_that_disappears_mid_trial_ends_the_run_with_an_error)
{
	pthread_t killer;
	uint64_t t0;
	int rc;

	start_peer(NULL);
	tp_set(b, "peer", peer_address());
	tp_set(b, "pps", "2000");
	tp_set(b, "duration", "3s");
	cr_assert_eq(pthread_create(&killer, NULL, stop_later, NULL), 0);
	t0 = ep_now_ns();
	rc = embperf_bench_run(b);
	pthread_join(killer, NULL);
	cr_assert_lt(rc, 0);
	cr_assert(strstr(embperf_bench_errmsg(b), "peer"), "%s", embperf_bench_errmsg(b));
	cr_assert_lt(ep_now_ns() - t0, 10000000000ULL, "bounded, not a hang");
}

/* A "peer" that answers hello with a welcome of another protocol version. */
static void *fake_peer(void *arg)
{
	int lfd = *(int *)arg, fd = accept(lfd, NULL, NULL);
	struct ep_msg m;
	char err[200];

	if (fd < 0)
		return NULL;
	if (!ep_msg_recv(fd, &m, 3000000000ULL, err, sizeof(err))) {
		m = (struct ep_msg){ .type = EP_MSG_WELCOME, .proto = EP_PROTO_VERSION + 1,
				     .max_rate_bps = 1e9, .max_duration_ns = 1000000000,
				     .max_size_bytes = 1000 };
		ep_msg_send(fd, &m, 1000000000);
	}
	usleep(200000);
	close(fd);
	return NULL;
}

Test(udp_stream, a_peer_of_another_protocol_version_is_named)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	pthread_t th;
	char spec[64];

	cr_assert_eq(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(lfd, 1), 0);
	cr_assert_eq(getsockname(lfd, (struct sockaddr *)&a, &len), 0);
	cr_assert_eq(pthread_create(&th, NULL, fake_peer, &lfd), 0);
	snprintf(spec, sizeof(spec), "127.0.0.1:%u", ntohs(a.sin_port));
	tp_set(b, "peer", spec);
	cr_assert_eq(embperf_bench_run(b), -EPROTO, "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "protocol"), "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), spec), "%s", embperf_bench_errmsg(b));
	pthread_join(th, NULL);
	close(lfd);
}

/* --- net.udp.rfc2544 on loopback --------------------------------------------- */

static embperf_bench *rfc;

static void rfc_setup(void)
{
	rfc = short_bench("net.udp.rfc2544", "300ms");
	tp_set(rfc, "peer", "local");
}

static void rfc_teardown(void)
{
	free_short_bench(rfc);
}

TestSuite(rfc2544, .init = rfc_setup, .fini = rfc_teardown);

static const embperf_result *rfc_find(const char *metric, const char *frame)
{
	for (int i = 0; i < embperf_bench_result_count(rfc); i++) {
		const embperf_result *r = embperf_bench_result(rfc, i);
		char buf[16];

		if (!strcmp(embperf_result_metric(r), metric) &&
		    embperf_result_label(r, "frame", buf, sizeof(buf)) >= 0 && !strcmp(buf, frame) &&
		    embperf_result_label(r, "step", buf, sizeof(buf)) < 0)
			return r;
	}
	return NULL;
}

/*
 * A search per frame size, each with its trial log: no trial ran above the
 * top it was given (the log holds the rates achieved), and the rate found
 * is the highest that passed.
 */
Test(rfc2544, a_search_per_frame_size_with_its_trial_log)
{
	const char *frames[] = { "64", "1518" };

	tp_set(rfc, "frame", "64,1518");
	tp_set(rfc, "rate", "20Mbit");
	tp_set(rfc, "max_trials", "4");
	cr_assert_eq(embperf_bench_run(rfc), 0, "%s", embperf_bench_errmsg(rfc));
	for (int i = 0; i < 2; i++) {
		const embperf_result *r = rfc_find("throughput", frames[i]);
		double top = 20e6 / ((atof(frames[i]) + 20) * 8), best = -1;

		cr_assert(r, "frame %s", frames[i]);
		cr_assert_geq(embperf_result_trial_count(r), 1);
		cr_assert_leq(embperf_result_trial_count(r), 4);
		for (int k = 0; k < embperf_result_trial_count(r); k++) {
			double config, pass;

			cr_assert_eq(embperf_result_trial(r, k, EMBPERF_TRIAL_CONFIG, &config), 0);
			cr_assert_eq(embperf_result_trial(r, k, EMBPERF_TRIAL_PASS, &pass), 0);
			cr_assert_leq(config, top * 1.01, "frame %s trial %d: %.0f of top %.0f",
				      frames[i], k, config, top);
			if (pass == 1.0 && config > best)
				best = config;
		}
		if (best > 0) {
			cr_assert_float_eq(embperf_result_value(r), best, 1e-6);
			cr_assert(rfc_find("kpps", frames[i]), "the kept trial's figures");
		}
	}
}

/*
 * The latency trials run at the rate the throughput search found; on a
 * machine whose CPUs are taken (4 CI jobs, ASan, busy loops) that search
 * can honestly find a low rate, and 300 ms at it carry few tagged frames
 * (the busy-loop soak of e6a9b55 timed 10 or fewer). Every run's
 * distribution is checked; the run is taken again, up to 3 times, until
 * one timed more than 10 echoes. A peer that echoes nothing fails in all 3.
 */
Test(rfc2544, latency_at_the_found_rate_has_a_distribution)
{
	double timed = 0;

	tp_set(rfc, "test", "latency");
	tp_set(rfc, "frame", "512");
	tp_set(rfc, "rate", "50Mbit");
	tp_set(rfc, "tag_every", "10");
	tp_set(rfc, "repetitions", "2");
	for (int run = 1; run <= 3 && timed <= 10; run++) {
		const embperf_result *lat;
		double p50 = 0, p99 = 0;

		cr_assert_eq(embperf_bench_run(rfc), 0, "%s", embperf_bench_errmsg(rfc));
		lat = rfc_find("latency", "512");
		timed = lat ? embperf_result_dist_stat(lat, EMBPERF_STAT_N) : 0;
		cr_log_info("run %d: %.0f echoes timed", run, timed);
		if (!lat)
			continue;
		cr_assert_eq(embperf_result_percentile(lat, 50.0, &p50), 0);
		cr_assert_eq(embperf_result_percentile(lat, 99.0, &p99), 0);
		cr_assert_gt(p50, 0.0);
		cr_assert_geq(p99, p50);
	}
	cr_assert_gt(timed, 10, "echoes were timed (in 3 runs; the last timed %.0f)", timed);
}

/* §26.3 on loopback: steps down from the top until two trials lose nothing. */
Test(rfc2544, the_loss_test_steps_down_to_two_clean_trials)
{
	const embperf_result *r;
	double c0, c1;
	int n;

	tp_set(rfc, "test", "loss");
	tp_set(rfc, "frame", "1024");
	tp_set(rfc, "rate", "20Mbit");
	cr_assert_eq(embperf_bench_run(rfc), 0, "%s", embperf_bench_errmsg(rfc));
	r = rfc_find("no_loss", "1024");
	cr_assert(r);
	n = embperf_result_trial_count(r);
	cr_assert_geq(n, 2);
	cr_assert_leq(n, 10, "100 %% down to 10 %% in steps of 10");
	/* The log holds the share of the top each trial achieved: never above
	 * what it was asked (100, 90, ... %). */
	for (int i = 0; i < n; i++) {
		cr_assert_eq(embperf_result_trial(r, i, EMBPERF_TRIAL_CONFIG, &c0), 0);
		cr_assert_leq(c0, (100.0 - 10.0 * i) * 1.01, "trial %d at %.1f %%", i, c0);
	}
	cr_assert_eq(embperf_result_trial(r, n - 1, EMBPERF_TRIAL_PASS, &c0), 0);
	cr_assert_eq(embperf_result_trial(r, n - 2, EMBPERF_TRIAL_PASS, &c1), 0);
	cr_assert(c0 == 1.0 && c1 == 1.0, "it ends on two clean trials");
}

/*
 * How late after the budget's end or the cancel a search may return. The
 * prompt stop (the engine checks inside the body, doc/engine.md) is 25 to
 * 42 ms here natively and was 221 ms once under ASan in CI; the stop path
 * crosses the body, the sender and the peer's server and worker threads,
 * each of which a loaded 2-CPU VM can keep off the CPU for hundreds of ms
 * (1.5 s, the bound before, was within reach of a few such stalls), and
 * under emulation it is 0.5-0.8 s plus stalls of 1-2 s. The cut below lands
 * in a trial of 20 s, so a stop honoured only at a trial's end returns 17 s
 * or more late: 3.5 s tells the two apart under any load. The lateness
 * itself is a figure (doc/tests.md).
 */
#define STOP_BOUND_NS 3500000000ULL

/* Searches of one trial of @duration each at 20 Mbit/s, seven frame sizes. */
static void one_trial_searches(const char *duration)
{
	tp_set(rfc, "duration", duration);
	tp_set(rfc, "test", "throughput");
	tp_set(rfc, "max_trials", "1");
	tp_set(rfc, "frame", "64,128,256,512,1024,1280,1518");
	tp_set(rfc, "rate", "20Mbit");
}

/*
 * The budget ends a run inside the trial it cuts: 1.5 s in (3 s under
 * emulation, where the set-up before the first trial is slower), inside the
 * first search's 20 s trial, so a stop only at the trial's end is 17 s late
 * or more. A cut trial judges nothing: the run returns -ETIME with no search
 * reported. The run takes the budget's time whatever the trials' length.
 */
Test(rfc2544, the_budget_cuts_a_search_inside_its_trial)
{
	const uint64_t budget_ns = tp_emulated() ? 3000000000ULL : 1500000000ULL;
	uint64_t t0, late_ns;

	one_trial_searches("20s");
	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, budget_ns), 0);
	t0 = ep_now_ns();
	cr_assert_eq(embperf_bench_run(rfc), -ETIME, "%s", embperf_bench_errmsg(rfc));
	late_ns = ep_now_ns() - t0 - budget_ns;
	tp_figure("rfc2544 returned %.1f ms after the budget's end", (double)late_ns / 1e6);
	cr_assert_lt(late_ns, STOP_BOUND_NS, "returned %.1f ms after the budget's end",
		     (double)late_ns / 1e6);
}

/*
 * The searches that ran before the budget's end are reported with their
 * trial logs, and the run is cut. Trials of 1 s and a budget of 3.5 s: the
 * first search ends about 1.1 s in, 2.4 s before the budget unless its
 * set-up is that slow, and seven take 7.3 s or more. Under emulation, trials
 * of 2 s and a budget of 8 s (6 s for the first search's set-up, seven take
 * 14 s or more). The bound on the lateness here only catches a run that
 * ignores the budget; how late a cut stops is the test above.
 */
Test(rfc2544, the_budget_keeps_the_searches_so_far)
{
	const uint64_t budget_ns = tp_emulated() ? 8000000000ULL : 3500000000ULL;
	int searches = 0, truncated = 0;
	uint64_t t0, late_ns;

	one_trial_searches(tp_emulated() ? "2s" : "1s");
	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, budget_ns), 0);
	t0 = ep_now_ns();
	cr_assert_eq(embperf_bench_run(rfc), -ETIME, "%s", embperf_bench_errmsg(rfc));
	late_ns = ep_now_ns() - t0 - budget_ns;
	cr_assert_lt(late_ns, STOP_BOUND_NS, "returned %.1f ms after the budget's end",
		     (double)late_ns / 1e6);
	for (int i = 0; i < embperf_bench_result_count(rfc); i++) {
		const embperf_result *r = embperf_bench_result(rfc, i);
		char step[16];

		if (strcmp(embperf_result_metric(r), "throughput") ||
		    embperf_result_label(r, "step", step, sizeof(step)) >= 0)
			continue;
		cr_assert_geq(embperf_result_trial_count(r), 1, "a reported search has its trials");
		searches++;
		truncated += embperf_result_truncated(r);
	}
	tp_figure("rfc2544: %d searches reported before the budget's end", searches);
	cr_assert_geq(searches, 1, "the searches before the budget's end are reported");
	cr_assert_lt(searches, 7, "the budget cut the run");
	cr_assert_leq(truncated, 1, "only the search the budget cut is truncated");
}

/*
 * A cancel 1 s in lands inside the first search's 20 s trial and ends the
 * run there; a stop only at the trial's end would be 19 s or more late.
 * Under emulation, where the set-up before the first trial is slower, the
 * cancel comes 3 s in (17 s or more late).
 */
Test(rfc2544, a_cancel_cuts_a_search_inside_its_trial)
{
	uint64_t late_ns;
	int threads = tp_count_threads();

	one_trial_searches("20s");
	late_ns = tp_run_cancelled(rfc, ctx, tp_emulated() ? 3000 : 1000);
	tp_figure("rfc2544 returned %.1f ms after the cancel", (double)late_ns / 1e6);
	cr_assert_lt(late_ns, STOP_BOUND_NS, "returned %.1f ms after the cancel",
		     (double)late_ns / 1e6);
	cr_assert_eq(tp_count_threads_settled(threads), threads,
		     "no sender or peer thread is left running");
}

Test(rfc2544, bad_input_names_the_parameter)
{
	tp_set(rfc, "frame", "64,63");
	cr_assert_lt(embperf_bench_run(rfc), 0);
	cr_assert(strstr(embperf_bench_errmsg(rfc), "parameter 'frame'"), "%s",
		  embperf_bench_errmsg(rfc));
	tp_set(rfc, "frame", "64");
	tp_set(rfc, "test", "back-to-back");
	tp_set(rfc, "direction", "rx");
	cr_assert_lt(embperf_bench_run(rfc), 0);
	cr_assert(strstr(embperf_bench_errmsg(rfc), "direction=tx"), "%s",
		  embperf_bench_errmsg(rfc));
}

/*
 * layer=l2 where it cannot work is refused before anything is sent, naming
 * the parameter, the value and why: peer=local runs over loopback (or the
 * library has no libpcap); test=latency is a UDP echo.
 */
Test(rfc2544, layer_l2_where_it_cannot_work_is_refused_before_any_trial)
{
	const char *msg;

	tp_set(rfc, "frame", "128");
	tp_set(rfc, "layer", "l2");
	cr_assert_lt(embperf_bench_run(rfc), 0);
	msg = embperf_bench_errmsg(rfc);
	cr_assert(strstr(msg, "parameter 'layer': value 'l2': ") &&
		  (strstr(msg, "interface lo is loopback") || strstr(msg, "without libpcap")),
		  "%s", msg);
	cr_assert_eq(embperf_bench_result_count(rfc), 0, "no trial ran");
	tp_set(rfc, "test", "latency");
	cr_assert_lt(embperf_bench_run(rfc), 0);
	cr_assert(strstr(embperf_bench_errmsg(rfc), "parameter 'test': value 'latency'"), "%s",
		  embperf_bench_errmsg(rfc));
}
