// SPDX-License-Identifier: MIT
/*
 * test_net_proto.c - the network area's parts that need no traffic: test
 * packet headers, the receiver's count (loss, duplicates, reordering,
 * jitter), control messages (valid ones round-trip, every kind of invalid
 * one is refused with a reason), framing on a socket pair, addresses and
 * address blocks, and the pacer's bound (never more than half a
 * millisecond's worth of datagrams ahead of its schedule).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "emulated.h"
#include "lib/core/clock.h"
#include "lib/core/util.h"
#include "lib/net/addr.h"
#include "lib/net/pace.h"
#include "lib/net/proto.h"
#include "lib/net/udp_io.h"
#include "lib/net/wire.h"
#include "simclock.h"

Test(wire, header_round_trips_in_18_bytes)
{
	unsigned char buf[EP_WIRE_HEADER_BYTES];
	struct ep_wire_header in = { .flags = EP_WIRE_COUNTED, .flow = 0xdeadbeef,
				     .seq = 0x01020304, .send_ns = 0x1122334455667788ULL };
	struct ep_wire_header out;

	cr_assert_eq(EP_WIRE_HEADER_BYTES, 64 - EP_WIRE_FRAME_OVERHEAD_BYTES,
		     "the header fits the payload of a 64-byte frame");
	ep_wire_encode(buf, &in);
	cr_assert_eq(ep_wire_decode(buf, sizeof(buf), &out), 0);
	cr_assert_eq(out.flags, in.flags);
	cr_assert_eq(out.flow, in.flow);
	cr_assert_eq(out.seq, in.seq);
	cr_assert_eq(out.send_ns, in.send_ns);
	cr_assert_eq(ep_wire_decode(buf, sizeof(buf) - 1, &out), -EBADMSG, "too short");
	buf[0] ^= 0xff;
	cr_assert_eq(ep_wire_decode(buf, sizeof(buf), &out), -EBADMSG, "wrong magic");
}

static struct ep_seq_count count;

Test(wire, a_clean_flow_counts_every_packet_once)
{
	ep_seq_reset(&count);
	for (uint32_t s = 0; s < 1000; s++)
		ep_seq_add(&count, s, 100, s * 1000, s * 1000 + 50);
	cr_assert_eq(count.received, 1000);
	cr_assert_eq(count.bytes, 100000);
	cr_assert_eq(count.duplicated + count.reordered, 0);
	cr_assert_eq(ep_seq_expected(&count), 1000);
	cr_assert_float_eq(count.jitter_ns, 0.0, 1e-9, "constant transit: no jitter");
}

Test(wire, gaps_duplicates_and_late_packets_are_told_apart)
{
	static const uint32_t order[] = { 0, 1, 3, 2, 3, 5, 6, 6, 4, 9 };

	ep_seq_reset(&count);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		ep_seq_add(&count, order[i], 10, i, i);
	/* distinct: 0 1 2 3 4 5 6 9 = 8; missing 7 and 8 */
	cr_assert_eq(count.received, 8);
	cr_assert_eq(count.duplicated, 2, "3 and 6 came twice");
	cr_assert_eq(count.reordered, 2, "2 after 3, 4 after 6");
	cr_assert_eq(ep_seq_expected(&count), 10);
	cr_assert_eq(ep_seq_expected(&count) - count.received, 2, "7 and 8 lost");
}

Test(wire, a_packet_older_than_the_window_is_late_not_a_duplicate)
{
	ep_seq_reset(&count);
	ep_seq_add(&count, 0, 1, 0, 0);
	ep_seq_add(&count, EP_SEQ_WINDOW + 10, 1, 0, 0);
	ep_seq_add(&count, 0, 1, 0, 0);
	cr_assert_eq(count.too_old, 1);
	cr_assert_eq(count.duplicated, 0, "beyond the window a duplicate cannot be told");
	/* within the window after the jump, duplicates are seen again */
	ep_seq_add(&count, EP_SEQ_WINDOW + 10, 1, 0, 0);
	cr_assert_eq(count.duplicated, 1);
}

/* A UDP socket on 127.0.0.1, bound (@peer NULL) or connected to @peer. */
static int loopback_socket(const struct sockaddr_in *peer, struct sockaddr_in *bound)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	if (peer) {
		cr_assert_eq(connect(fd, (const struct sockaddr *)peer, sizeof(*peer)), 0);
		return fd;
	}
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)bound, &len), 0);
	return fd;
}

/*
 * Each trial is a flow of its own (MoonGen's new port per trial): datagrams
 * of the previous trial's flow that arrive late, even in the middle of the
 * next trial's, are never counted in it. 40 late datagrams of flow 7, then
 * 25 of flow 8 with 10 more of flow 7 between them: the receiver of flow 8
 * counts 25, in order, and 50 strays.
 */
Test(wire, a_late_datagram_of_the_last_trials_flow_never_counts_in_the_next)
{
	struct sockaddr_in at;
	int rx_fd = loopback_socket(NULL, &at);
	int old_fd = loopback_socket(&at, NULL), new_fd = loopback_socket(&at, NULL);
	struct ep_udp_tx old_tx, new_tx;
	struct ep_udp_rx rx;
	uint64_t taken = 0;

	cr_assert_eq(ep_udp_tx_init(&old_tx, old_fd, 64, 7), 0);
	cr_assert_eq(ep_udp_tx_init(&new_tx, new_fd, 64, 8), 0);
	cr_assert_eq(ep_udp_rx_init(&rx, rx_fd, 8, 64), 0);
	cr_assert_eq(ep_udp_tx_send(&old_tx, 40, 1), 40);
	cr_assert_eq(ep_udp_tx_send(&new_tx, 20, 1), 20);
	cr_assert_eq(ep_udp_tx_send(&old_tx, 10, 1), 10);
	cr_assert_eq(ep_udp_tx_send(&new_tx, 5, 1), 5);
	for (int i = 0; i < 100 && rx.count->received + rx.stray < 75; i++) {
		int got = ep_udp_rx_poll(&rx, 100, 1);

		cr_assert_geq(got, 0);
		taken += (uint64_t)got;
	}
	cr_assert_eq(rx.count->received, 25, "flow 8 counted %llu of its 25",
		     (unsigned long long)rx.count->received);
	cr_assert_eq(taken, 25);
	cr_assert_eq(rx.stray, 50, "flow 7's 50 are strays: %llu", (unsigned long long)rx.stray);
	cr_assert_eq(rx.count->duplicated + rx.count->reordered, 0);
	ep_udp_tx_free(&old_tx);
	ep_udp_tx_free(&new_tx);
	ep_udp_rx_free(&rx);
	close(old_fd);
	close(new_fd);
	close(rx_fd);
}

/*
 * The receiver's measured part by arrival, on synthetic stamps: a stamp
 * crosses from CLOCK_REALTIME to ep_now_ns() by its age (the clocks' offset
 * drops out), and a packet counts only when it surely arrived inside
 * [from, until). A reader that looked 300 ms late finds the ramp's last
 * datagrams queued: by their stamps they are before the start.
 */
Test(wire, arrival_stamps_place_a_packet_in_the_measured_part)
{
	const uint64_t ms = 1000000;
	/* Read at 50 s of ep_now_ns(), real time some 1.7e18 ns. */
	struct ep_clock_pair now = { .mono_ns = 50000 * ms, .real_ns = 1700000000000000000ull };
	struct ep_rx_window w = { .from_ns = 50000 * ms - 100 * ms, .until_ns = 0 };
	uint64_t queued = ep_rx_arrival_ns(&now, now.real_ns - 300 * ms);
	uint64_t fresh = ep_rx_arrival_ns(&now, now.real_ns - 20 * ms);

	cr_assert_eq(queued, 50000 * ms - 300 * ms, "300 ms old: %llu", (unsigned long long)queued);
	cr_assert_eq(fresh, 50000 * ms - 20 * ms);
	cr_assert_eq(ep_rx_arrival_ns(&now, now.real_ns + ms), now.mono_ns,
		     "a stamp after the reading is taken as the reading");
	cr_assert_eq(ep_rx_arrival_ns(&now, 0), 0, "older than ep_now_ns()'s epoch: 0, no wrap");
	cr_assert_eq(ep_rx_window_place(&w, queued, queued), -1, "arrived before the start: ramp");
	cr_assert_eq(ep_rx_window_place(&w, fresh, fresh), 0, "arrived after the start: counted");
	cr_assert_eq(ep_rx_window_place(&w, w.from_ns, w.from_ns), 0, "the start is inside");
	w.until_ns = fresh;
	cr_assert_eq(ep_rx_window_place(&w, fresh, fresh), 1, "the end is outside");
	cr_assert_eq(ep_rx_window_place(&w, fresh - 1, fresh - 1), 0);
	/* Without a stamp: after the last empty read, before this one. Counted
	 * only when the whole span is inside. */
	cr_assert_eq(ep_rx_window_place(&w, w.from_ns - 1, fresh - 1), -1);
	cr_assert_eq(ep_rx_window_place(&w, w.from_ns, fresh), 1);
	cr_assert_eq(ep_rx_window_place(&w, w.from_ns, fresh - 1), 0);
	/* The peer's sink: a zero window counts everything. */
	cr_assert_eq(ep_rx_window_place(&(struct ep_rx_window){ 0 }, 0, UINT64_MAX), 0);
}

/*
 * The kernel stamps a datagram as it arrives only once some socket asked
 * for stamps (a switch that a work item flips shortly after the first
 * asks); until then a datagram is stamped when it is read. Wait for the
 * switch, at most 5 s: a datagram read after the time taken when its send
 * returned carries a stamp before that time. Return: 0 when it never came.
 */
static int wait_for_arrival_stamps(void)
{
	struct sockaddr_in at;
	int rx_fd = loopback_socket(NULL, &at), tx_fd = loopback_socket(&at, NULL), on = 1, ok = 0;
	uint64_t end = ep_now_ns() + 5000000000ull;

	if (setsockopt(rx_fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) != 0) {
		/* qemu-user (7.2) refuses the option (ENOPROTOOPT): no stamps. */
		cr_assert(tp_emulated(), "SO_TIMESTAMPNS: %s", strerror(errno));
		close(tx_fd);
		close(rx_fd);
		return 0;
	}
	while (!ok && ep_now_ns() < end) {
		char buf[8], ctl[64];
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };
		struct pollfd p = { .fd = rx_fd, .events = POLLIN };
		struct timespec sent;

		cr_assert_eq(send(tx_fd, "x", 1, 0), 1);
		clock_gettime(CLOCK_REALTIME, &sent);
		cr_assert_eq(poll(&p, 1, 1000), 1);
		cr_assert_eq(recvmsg(rx_fd, &h, 0), 1);
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
			struct timespec ts;

			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
				continue;
			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			ok = ts.tv_sec < sent.tv_sec ||
			     (ts.tv_sec == sent.tv_sec && ts.tv_nsec < sent.tv_nsec);
		}
	}
	close(tx_fd);
	close(rx_fd);
	return ok;
}

/* Poll @rx until it has taken @n datagrams of its flow (at most 100 polls of 100 ms). */
static void take_n(struct ep_udp_rx *rx, uint64_t n)
{
	for (int i = 0; i < 100 && rx->count->received + rx->ramp + rx->past_end < n; i++)
		cr_assert_geq(ep_udp_rx_poll(rx, 100, 1), 0);
	cr_assert_eq(rx->count->received + rx->ramp + rx->past_end, n);
}

/* A pause between datagrams that must fall on either side of a bound:
 * wider than the error of carrying a stamp across clocks (microseconds). */
static void apart(void)
{
	struct timespec ms = { 0, 1000000 };

	nanosleep(&ms, NULL);
}

/*
 * A receiver that looked late finds datagrams queued: those that arrived
 * before its measured part (30, the ramp's tail) are not counted, though it
 * reads them with the measured part under way; those that arrived in it
 * (20) are; those that arrived after its end (10) are not, though read in
 * the final look. Loopback stamps a datagram inside the send.
 */
Test(wire, a_late_reader_counts_what_arrived_in_its_window)
{
	struct sockaddr_in at;
	int rx_fd = loopback_socket(NULL, &at), tx_fd = loopback_socket(&at, NULL);
	struct ep_udp_tx tx;
	struct ep_udp_rx rx;

	cr_assert_eq(ep_udp_tx_init(&tx, tx_fd, 64, 8), 0);
	cr_assert_eq(ep_udp_rx_init(&rx, rx_fd, 8, 64), 0);
	if (!wait_for_arrival_stamps()) {
		if (tp_emulated())
			cr_skip_test("under emulation (%s): no arrival stamps", tp_emulated());
		cr_assert_fail("no datagram stamped on arrival within 5 s");
	}
	cr_assert_eq(ep_udp_tx_send(&tx, 30, 1), 30);
	apart();
	rx.window.from_ns = ep_now_ns();
	apart();
	cr_assert_eq(ep_udp_tx_send(&tx, 20, 1), 20);
	take_n(&rx, 50);
	cr_assert_eq(rx.ramp, 30, "arrived before the start, read after it: %llu of 30 kept out",
		     (unsigned long long)rx.ramp);
	cr_assert_eq(rx.count->received, 20);
	apart();
	rx.window.until_ns = ep_now_ns();
	apart();
	cr_assert_eq(ep_udp_tx_send(&tx, 10, 1), 10);
	take_n(&rx, 60);
	cr_assert_eq(rx.past_end, 10, "arrived after the end: %llu of 10 kept out",
		     (unsigned long long)rx.past_end);
	cr_assert_eq(rx.count->received, 20);
	cr_assert_eq(ep_seq_expected(rx.count), 20, "sequence numbers 30..49: none lost");
	cr_assert_eq(rx.unstamped, 0);
	ep_udp_tx_free(&tx);
	ep_udp_rx_free(&rx);
	close(tx_fd);
	close(rx_fd);
}

Test(wire, jitter_follows_rfc3550)
{
	/* Transit alternates 100 and 300 ns: |D| = 200 each time after the
	 * first; J converges to 200 as J += (|D| - J) / 16. */
	double j = 0.0;

	ep_seq_reset(&count);
	for (uint32_t s = 0; s < 200; s++) {
		ep_seq_add(&count, s, 1, 1000 * s, 1000 * s + (s % 2 ? 300 : 100));
		if (s)
			j += (200.0 - j) / 16.0;
	}
	cr_assert_float_eq(count.jitter_ns, j, 1e-6);
	cr_assert_gt(count.jitter_ns, 199.0);
}

static int parse(const char *json, struct ep_msg *m, char *err)
{
	return ep_msg_parse(json, strlen(json), m, err, 200);
}

Test(proto, every_message_type_round_trips)
{
	struct ep_msg in = { .type = EP_MSG_START }, out;
	unsigned char frame[4 + EP_MSG_MAX_BYTES];
	char err[200];
	int len;

	in.start = (struct ep_start){ .test = EP_TEST_UDP_SOURCE, .flow = 4000000000u,
				      .size_bytes = 1472, .rate_bps = 123456789.5,
				      .pacing = EP_PACING_BURST, .burst = 42, .wait_ns = 10000000,
				      .batch = 16, .duration_ns = 5000000000ULL, .port = 40000,
				      .drop_every = 7 };
	for (int t = 0; t < EP_MSG_TYPE_COUNT; t++) {
		in.type = (enum ep_msg_type)t;
		in.proto = 1;
		snprintf(in.code, sizeof(in.code), "busy");
		in.report.flow = 9;
		in.report.received = UINT64_C(1) << 40;
		len = ep_msg_encode(&in, frame, sizeof(frame));
		cr_assert_gt(len, 4);
		cr_assert_eq(ep_msg_parse((char *)frame + 4, (size_t)len - 4, &out, err, sizeof(err)),
			     0, "%s: %s", ep_msg_type_name(in.type), err);
		cr_assert_eq(out.type, in.type);
	}
	in.type = EP_MSG_START;
	len = ep_msg_encode(&in, frame, sizeof(frame));
	cr_assert_eq(ep_msg_parse((char *)frame + 4, (size_t)len - 4, &out, err, sizeof(err)), 0);
	cr_assert_eq(memcmp(&out.start, &in.start, sizeof(in.start)), 0, "start is kept exactly");
}

/* layer=l2's tests and the sink's capture drops cross the protocol intact. */
Test(proto, l2_tests_and_capture_drops_round_trip)
{
	struct ep_msg in = { .type = EP_MSG_START }, out;
	unsigned char frame[4 + EP_MSG_MAX_BYTES];
	char err[200];
	int len;

	for (int t = EP_TEST_L2_SINK; t <= EP_TEST_L2_SOURCE; t++) {
		in.start = (struct ep_start){ .test = (enum ep_net_test)t, .flow = 7,
					      .size_bytes = 60, .duration_ns = 1 };
		len = ep_msg_encode(&in, frame, sizeof(frame));
		cr_assert_eq(ep_msg_parse((char *)frame + 4, (size_t)len - 4, &out, err, sizeof(err)),
			     0, "%s", err);
		cr_assert_eq((int)out.start.test, t);
		cr_assert(strstr((char *)frame + 4, t == EP_TEST_L2_SINK ? "\"l2.sink\""
									  : "\"l2.source\""));
	}
	in = (struct ep_msg){ .type = EP_MSG_REPORT };
	in.report.capture_drops = 12345;
	len = ep_msg_encode(&in, frame, sizeof(frame));
	cr_assert_eq(ep_msg_parse((char *)frame + 4, (size_t)len - 4, &out, err, sizeof(err)), 0);
	cr_assert_eq(out.report.capture_drops, 12345);
}

/* encode() then parse() of @in into @out; the JSON text into @json. */
static void round_trip(const struct ep_msg *in, struct ep_msg *out, char *json, size_t json_len)
{
	unsigned char frame[4 + EP_MSG_MAX_BYTES];
	char err[200];
	int len = ep_msg_encode(in, frame, sizeof(frame));

	cr_assert_gt(len, 4);
	snprintf(json, json_len, "%.*s", len - 4, (char *)frame + 4);
	cr_assert_eq(ep_msg_parse(json, strlen(json), out, err, sizeof(err)), 0, "%s: %s", json, err);
}

/*
 * Protocol 1.1 (tcp.both): the minor version in hello and welcome, the test
 * and the ready's source port cross intact; a side that has none of them
 * (minor 0, no source port) sends the messages of 1.0, byte for byte
 * without the new members, and a 1.0 message reads as minor 0.
 */
Test(proto, minor_version_tcp_both_and_source_port_round_trip)
{
	struct ep_msg in = { .type = EP_MSG_WELCOME, .proto = 1, .proto_minor = EP_PROTO_MINOR,
			     .max_size_bytes = 9 }, out;
	char json[EP_MSG_MAX_BYTES + 1], err[200];

	cr_assert_geq(EP_PROTO_MINOR, EP_PROTO_MINOR_TCP_BOTH);
	round_trip(&in, &out, json, sizeof(json));
	cr_assert_eq(out.proto_minor, EP_PROTO_MINOR, "%s", json);
	in.type = EP_MSG_HELLO;
	round_trip(&in, &out, json, sizeof(json));
	cr_assert_eq(out.proto_minor, EP_PROTO_MINOR, "%s", json);
	in.proto_minor = 0;
	round_trip(&in, &out, json, sizeof(json));
	cr_assert(!strstr(json, "proto_minor"), "a 1.0 hello: %s", json);
	in = (struct ep_msg){ .type = EP_MSG_READY, .port = 4000, .flow = 3, .source_port = 4001 };
	round_trip(&in, &out, json, sizeof(json));
	cr_assert_eq(out.port, 4000);
	cr_assert_eq(out.source_port, 4001, "%s", json);
	in.source_port = 0;
	round_trip(&in, &out, json, sizeof(json));
	cr_assert(!strstr(json, "source_port"), "a 1.0 ready: %s", json);
	in = (struct ep_msg){ .type = EP_MSG_START };
	in.start = (struct ep_start){ .test = EP_TEST_TCP_BOTH, .flow = 5, .size_bytes = 16384,
				      .recv_bytes = 131072, .duration_ns = 1 };
	round_trip(&in, &out, json, sizeof(json));
	cr_assert_eq(out.start.test, EP_TEST_TCP_BOTH);
	cr_assert(strstr(json, "\"test\":\"tcp.both\""), "%s", json);
	cr_assert(!strstr(json, "io_wait"), "a start without io_wait writes none: %s", json);
	in.start.io_wait = 1;
	round_trip(&in, &out, json, sizeof(json));
	cr_assert_eq(out.start.io_wait, 1, "minor 2's io_wait: %s", json);
	cr_assert_geq(EP_PROTO_MINOR, EP_PROTO_MINOR_IO_WAIT);
	cr_assert_eq(parse("{\"type\":\"welcome\",\"proto\":1,\"software\":\"libembperf 0.2.0\","
			   "\"max_rate_bps\":1e10,\"max_duration_ns\":1,\"max_size\":1}", &out, err),
		     0, "%s", err);
	cr_assert_eq(out.proto_minor, 0, "a 1.0 welcome reads as minor 0");
}

Test(proto, invalid_messages_are_refused_with_a_reason)
{
	static const struct {
		const char *json;
		const char *reason;
	} cases[] = {
		{ "", "message of 0" },
		{ "garbage", "not valid JSON" },
		{ "{\"type\":\"hello\",\"proto\":1} trailing", "not valid JSON" },
		{ "[1,2]", "not a JSON object" },
		{ "{\"proto\":1}", "member 'type'" },
		{ "{\"type\":7}", "member 'type'" },
		{ "{\"type\":\"shout\"}", "unknown message type" },
		{ "{\"type\":\"hello\"}", "member 'proto' is missing" },
		{ "{\"type\":\"hello\",\"proto\":\"1\"}", "member 'proto': not a number" },
		{ "{\"type\":\"hello\",\"proto\":1.5}", "not an integer" },
		{ "{\"type\":\"hello\",\"proto\":-1}", "out of range" },
		{ "{\"type\":\"start\",\"test\":\"udp.sink\",\"flow\":1,\"size\":0,"
		  "\"duration_ns\":1}", "member 'size': out of range" },
		{ "{\"type\":\"start\",\"test\":\"udp.sink\",\"flow\":1,\"size\":1048577,"
		  "\"duration_ns\":1}", "member 'size': out of range" },
		{ "{\"type\":\"start\",\"test\":\"tcp.flood\",\"flow\":1,\"size\":10,"
		  "\"duration_ns\":1}", "member 'test': unknown value" },
		{ "{\"type\":\"start\",\"test\":\"udp.sink\",\"flow\":4294967296,\"size\":10,"
		  "\"duration_ns\":1}", "member 'flow': out of range" },
		{ "{\"type\":\"start\",\"test\":\"udp.sink\",\"flow\":1,\"size\":10,"
		  "\"duration_ns\":1,\"port\":65536}", "member 'port': out of range" },
		{ "{\"type\":\"error\",\"code\":\"01234567890123456789\"}", "too long" },
		{ "{\"type\":\"hello\",\"proto\":1,\"x\":{\"y\":{\"z\":{\"w\":1}}}}",
		  "not valid JSON" },
		{ "{\"type\":\"welcome\",\"proto\":1,\"proto_minor\":1001,\"max_rate_bps\":1,"
		  "\"max_duration_ns\":1,\"max_size\":1}", "member 'proto_minor': out of range" },
		{ "{\"type\":\"hello\",\"proto\":1,\"proto_minor\":\"1\"}",
		  "member 'proto_minor': not a number" },
		{ "{\"type\":\"ready\",\"port\":1,\"flow\":1,\"source_port\":65536}",
		  "member 'source_port': out of range" },
		{ "{\"type\":\"start\",\"test\":\"tcp.sink\",\"flow\":1,\"size\":10,"
		  "\"duration_ns\":1,\"io_wait\":2}", "member 'io_wait': out of range" },
	};
	struct ep_msg m;
	char err[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(parse(cases[i].json, &m, err), -EBADMSG, "accepted: %s", cases[i].json);
		cr_assert(strstr(err, cases[i].reason), "%s: '%s' does not say '%s'", cases[i].json,
			  err, cases[i].reason);
	}
}

Test(proto, unknown_members_are_ignored_for_newer_clients)
{
	struct ep_msg m;
	char err[200];

	cr_assert_eq(parse("{\"type\":\"hello\",\"proto\":1,\"future\":[1,2]}", &m, err), 0, "%s",
		     err);
	cr_assert_eq(m.proto, 1);
}

Test(proto, frames_arrive_in_pieces_and_oversized_ones_are_refused)
{
	struct ep_msg m = { .type = EP_MSG_HELLO, .proto = 1 };
	unsigned char frame[4 + EP_MSG_MAX_BYTES];
	struct ep_frame_reader r = { 0 };
	int sv[2], len, rc = 0;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	len = ep_msg_encode(&m, frame, sizeof(frame));
	for (int i = 0; i < len; i++) {
		cr_assert_eq(write(sv[0], frame + i, 1), 1);
		rc = ep_frame_read(sv[1], &r);
		cr_assert_eq(rc, i == len - 1 ? len - 4 : 0, "byte %d of %d", i, len);
	}
	ep_frame_reset(&r);
	/* A length above the limit is refused before its body is read. */
	frame[0] = 0;
	frame[1] = 0x10;
	frame[2] = frame[3] = 0;
	cr_assert_eq(write(sv[0], frame, 4), 4);
	cr_assert_eq(ep_frame_read(sv[1], &r), -EMSGSIZE);
	ep_frame_reset(&r);
	close(sv[0]);
	cr_assert_eq(ep_frame_read(sv[1], &r), -ECONNRESET);
	close(sv[1]);
}

Test(proto, recv_times_out_on_a_silent_peer)
{
	struct ep_msg m;
	char err[200];
	int sv[2];
	uint64_t t0;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	t0 = ep_now_ns();
	cr_assert_eq(ep_msg_recv(sv[1], &m, 50000000, err, sizeof(err)), -ETIMEDOUT);
	cr_assert_geq(ep_now_ns() - t0, 50000000);
	close(sv[0]);
	close(sv[1]);
}

Test(addr, host_port_forms)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[200], text[80];

	cr_assert_eq(ep_addr_parse("198.18.0.2", 5301, &ss, &len, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(ep_addr_text(&ss, text, sizeof(text)), "198.18.0.2:5301");
	cr_assert_eq(ep_addr_parse("198.18.0.2:7", 5301, &ss, &len, err, sizeof(err)), 0);
	cr_assert_eq(ep_addr_port(&ss), 7);
	cr_assert_eq(ep_addr_parse("[::1]:9", 5301, &ss, &len, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(ep_addr_text(&ss, text, sizeof(text)), "[::1]:9");
	cr_assert_eq(ep_addr_parse("::1", 5301, &ss, &len, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ep_addr_port(&ss), 5301);
	cr_assert_eq(ep_addr_parse("198.18.0.2:99999", 1, &ss, &len, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "99999"), "%s", err);
	cr_assert_eq(ep_addr_parse("198.18.0.2:", 1, &ss, &len, err, sizeof(err)), -EINVAL);
	cr_assert_eq(ep_addr_parse("[::1", 1, &ss, &len, err, sizeof(err)), -EINVAL);
}

static struct sockaddr_storage v4(const char *text)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[200];

	cr_assert_eq(ep_addr_parse(text, 1, &ss, &len, err, sizeof(err)), 0, "%s", err);
	return ss;
}

Test(addr, blocks_match_their_addresses_only)
{
	struct ep_cidr c;
	struct sockaddr_storage a;

	cr_assert_eq(ep_cidr_parse("198.18.0.0/15", &c), 0);
	a = v4("198.18.0.1");
	cr_assert(ep_cidr_match(&c, &a));
	a = v4("198.19.255.255");
	cr_assert(ep_cidr_match(&c, &a));
	a = v4("198.20.0.0");
	cr_assert_not(ep_cidr_match(&c, &a));
	a = v4("127.0.0.1");
	cr_assert_not(ep_cidr_match(&c, &a));
	cr_assert_eq(ep_cidr_parse("127.0.0.1", &c), 0);
	a = v4("127.0.0.1");
	cr_assert(ep_cidr_match(&c, &a));
	a = v4("127.0.0.2");
	cr_assert_not(ep_cidr_match(&c, &a));
	cr_assert_eq(ep_cidr_parse("::1/128", &c), 0);
	a = v4("::1");
	cr_assert(ep_cidr_match(&c, &a));
	cr_assert_eq(ep_cidr_parse("198.18.0.0/33", &c), -EINVAL);
	cr_assert_eq(ep_cidr_parse("198.18.0.0/", &c), -EINVAL);
	cr_assert_eq(ep_cidr_parse("no.such/8", &c), -EINVAL);
}

/* The datagrams handed out at each time, for the window checks. */
static uint64_t handed_at[200000];

/* The most datagrams handed out within any 1 ms, from @times[0..@n). */
static uint64_t max_per_ms(const uint64_t *times, size_t n)
{
	uint64_t best = 0;

	for (size_t i = 0, j = 0; i < n; i++) {
		while (j < n && times[j] < times[i] + 1000000)
			j++;
		if (j - i > best)
			best = j - i;
	}
	return best;
}

/*
 * The pacer's schedule on a simulated clock (tests/simclock.h): time moves
 * only when the pacer sleeps or the test's sender works, so each run is
 * exact and the same everywhere.
 */
static struct tp_sim pace_sim;

/* A pacer on the simulated clock: no spinning (the clock moves only on sleeps). */
static void sim_pacer(struct ep_pacer *p, enum ep_pacing mode, double pps, uint32_t burst,
		      uint64_t wait_ns, uint32_t batch)
{
	tp_sim_init(&pace_sim);
	ep_pacer_init(p, &pace_sim.clock, mode, pps, burst, wait_ns, batch, tp_sim_now(&pace_sim));
	p->spin_ns = 0;
}

/*
 * Run a precise pacer at @pps for @run_ns, sending each datagram in 1 us
 * and stalling once for @stall_ns after 20 ms (a preempted sender); check
 * its two promises: never ahead of the schedule, and never more than 1.4x
 * the rate within any 1 ms. Return: datagrams handed out.
 */
static uint64_t run_pacer(double pps, uint64_t run_ns, uint64_t stall_ns, struct ep_pacer *p)
{
	uint64_t start, end, handed = 0;
	int stalled = 0;

	sim_pacer(p, EP_PACING_PRECISE, pps, 0, 0, 16);
	start = tp_sim_now(&pace_sim);
	end = start + run_ns;
	while (tp_sim_now(&pace_sim) < end) {
		uint64_t before = tp_sim_now(&pace_sim);
		uint32_t n = ep_pacer_next(p, end);
		uint64_t now = tp_sim_now(&pace_sim);
		double due = floor((double)(now - start) * pps / 1e9) + 1;

		cr_assert(n || now > before, "0 datagrams and no wait: the caller would spin");

		for (uint32_t i = 0; i < n && handed < EP_ARRAY_SIZE(handed_at); i++)
			handed_at[handed + i] = now;
		handed += n;
		tp_sim_work(&pace_sim, 1000 * (uint64_t)n);
		ep_pacer_sent(p, n);
		cr_assert_leq((double)(handed + p->forgiven), due, "%llu handed out by %.0f due",
			      (unsigned long long)handed, due);
		if (!stalled && now - start > 20000000) {
			tp_sim_idle(&pace_sim, stall_ns);
			stalled = 1;
		}
	}
	cr_assert_leq((double)max_per_ms(handed_at, handed), 1.4 * pps / 1000.0 + 1.0,
		      "within 1 ms: at most 1.4x the rate");
	return handed;
}

/* 100 ms at 20 000/s: 2000 due, every one handed out on time. */
Test(pace, never_ahead_and_never_above_one_and_a_half_times_the_rate_in_a_millisecond)
{
	struct ep_pacer p;

	cr_assert_eq(run_pacer(20000.0, 100000000, 0, &p), 2000);
	cr_assert_eq(p.forgiven, 0ULL);
	cr_assert_eq(p.max_stall_ns, 0ULL, "an undisturbed sender never stalls");
}

/*
 * A 10 ms stall at 20 000/s owes 200 datagrams; the pacer repays them at
 * 0.3x the rate (1.3x - 1x), in 33 ms, within the 1.4x bound (checked by
 * run_pacer()): by the end of 200 ms every datagram due was handed out,
 * none forgiven, and the stall is on record.
 */
Test(pace, a_stall_is_repaid_within_the_bound_and_nothing_vanishes)
{
	struct ep_pacer p;

	cr_assert_eq(run_pacer(20000.0, 200000000, 10000000, &p), 4000);
	cr_assert_eq(p.forgiven, 0ULL);
	cr_assert_geq(p.max_stall_ns, 9000000, "stall %llu ns", (unsigned long long)p.max_stall_ns);
}

/*
 * A 200 ms stall at 20 000/s owes 4000 datagrams; the pacer keeps 100 ms'
 * worth (2000) owing and forgives the rest, counted. By the end (180 ms
 * after the stall, repaying at 0.3x the rate) part of the kept debt is
 * still owed; none vanished.
 */
Test(pace, a_long_stall_is_forgiven_beyond_100ms_and_counted)
{
	struct ep_pacer p;
	uint64_t handed = run_pacer(20000.0, 400000000, 200000000, &p);
	uint64_t owed = 8000 - handed - p.forgiven;

	cr_assert_eq(p.forgiven, 2000ULL, "%llu forgiven", (unsigned long long)p.forgiven);
	cr_assert_leq(owed, p.max_debt, "%llu handed + %llu forgiven of 8000",
		      (unsigned long long)handed, (unsigned long long)p.forgiven);
	cr_assert_gt(owed, 0ULL, "180 ms at 0.3x cannot repay 100 ms");
}

Test(pace, burst_mode_hands_out_whole_bursts_per_wait)
{
	struct ep_pacer p;
	uint64_t start;
	uint32_t n;

	sim_pacer(&p, EP_PACING_BURST, 0.0, 5, 20000000, 64);
	start = tp_sim_now(&pace_sim);
	n = ep_pacer_next(&p, start + 1000000000);
	cr_assert_eq(n, 5, "the first burst at once");
	ep_pacer_sent(&p, n);
	/* 0 means "no datagram yet, check your deadline": call again. */
	for (int calls = 0; (n = ep_pacer_next(&p, start + 1000000000)) == 0; calls++)
		cr_assert_lt(calls, 2, "a 20 ms wait is two calls of 10 ms");
	cr_assert_eq(tp_sim_now(&pace_sim) - start, 20000000, "the next burst one wait later");
	cr_assert_eq(n, 5);
}

/* The pacer returns 0 at the caller's deadline, without sleeping past it. */
Test(pace, the_deadline_comes_before_a_late_datagram)
{
	struct ep_pacer p;
	uint64_t start;

	sim_pacer(&p, EP_PACING_PRECISE, 10.0, 0, 0, 16); /* one every 100 ms */
	start = tp_sim_now(&pace_sim);
	ep_pacer_sent(&p, ep_pacer_next(&p, start + 1000000000));
	cr_assert_eq(ep_pacer_next(&p, start + 30000000), 0);
	cr_assert_eq(tp_sim_now(&pace_sim) - start, 10000000, "a 10 ms step towards the deadline");
	for (int calls = 0; tp_sim_now(&pace_sim) < start + 30000000; calls++) {
		cr_assert_lt(calls, 2, "each call waits 10 ms");
		cr_assert_eq(ep_pacer_next(&p, start + 30000000), 0);
	}
	cr_assert_eq(tp_sim_now(&pace_sim), start + 30000000, "not past it");
}

/* Voluntary context switches of the calling thread: its sleeps. */
static long thread_sleeps(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

/*
 * At 500 datagrams/s (one every 2 ms) the pacer sleeps until 100 us before
 * each and spins the rest: a sleep per datagram while it is on time. A
 * pacer that never sleeps (as one that waited on a clock other than its own
 * did: its sleeps returned at once) spins at 100 % CPU and switches only
 * when preempted, which is not a voluntary switch, however busy the host.
 *
 * The run ends at its 20th sleep or after 5 s (2 500 datagrams due), so a
 * busy machine (a thread kept off the CPUs for a while, the late datagrams
 * then handed at once without a sleep) only makes it longer; a pacer that
 * never sleeps runs the 5 s and fails. The CI machine once handed fewer than
 * 10 datagrams in a fixed 200 ms window, all 4 CI jobs running beside it.
 */
Test(pace, a_slow_schedule_sleeps_between_datagrams)
{
	struct ep_pacer p;
	uint64_t start = ep_now_ns(), end = start + UINT64_C(5000000000), handed = 0;
	long sleeps0 = thread_sleeps(), sleeps = 0;

	ep_pacer_init(&p, &ep_real_clock, EP_PACING_PRECISE, 500.0, 0, 0, 16, start);
	while (sleeps < 20 && ep_now_ns() < end) {
		uint32_t n = ep_pacer_next(&p, end);

		ep_pacer_sent(&p, n);
		handed += n;
		if (n)
			sleeps = thread_sleeps() - sleeps0;
	}
	cr_log_info("pace: %ld sleeps for %llu datagrams in %.0f ms", sleeps,
		    (unsigned long long)handed, (ep_now_ns() - start) / 1e6);
	cr_assert_geq(handed, 10, "in 5 s at 500/s, %llu datagrams", (unsigned long long)handed);
	cr_assert_geq(sleeps, 20, "in 5 s, %ld sleeps for %llu datagrams", sleeps,
		      (unsigned long long)handed);
}
