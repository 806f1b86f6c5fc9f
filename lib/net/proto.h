/* SPDX-License-Identifier: MIT */
/*
 * proto.h - the control protocol between a network kernel (the client, on
 * the board) and the embperf peer (doc/methodology-net.md, "Protocol").
 *
 * A message is a 4-byte big-endian length followed by that many bytes of
 * one JSON object with a "type" member. The client speaks first (hello);
 * the peer answers welcome (or error "version", "busy", "refused"); then
 * per trial: start -> ready, the data flows on its own sockets, stop ->
 * report; bye ends the session. Every message is validated member by member
 * (type, range) before anything acts on it; a message longer than
 * EP_MSG_MAX_BYTES is refused unread.
 */
#ifndef EMBPERF_NET_PROTO_H
#define EMBPERF_NET_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define EP_PROTO_VERSION 1
/* Additions to version 1 that change the meaning of nothing an older side
 * sends: hello and welcome say which one each side knows (absent: 0), a
 * client asks only what the peer's welcome says it knows.
 * 1: the test tcp.both and the ready's source_port.
 * 2: the start's io_wait. */
#define EP_PROTO_MINOR 2
#define EP_PROTO_MINOR_TCP_BOTH 1 /* the first that has tcp.both */
#define EP_PROTO_MINOR_IO_WAIT 2  /* the first that has io_wait */
#define EP_MSG_MAX_BYTES 4096
#define EP_PEER_DEFAULT_PORT 5301

/* What a peer accepts at most, unless its owner sets other limits. */
#define EP_PEER_MAX_RATE_BPS 10e9
#define EP_PEER_MAX_DURATION_NS (UINT64_C(300) * 1000000000)
#define EP_PEER_MAX_SIZE_BYTES 65507
/* The largest socket buffer a client may ask of the peer's data socket
 * (the kernel caps it further at net.core.[rw]mem_max). */
#define EP_PEER_MAX_SOCKBUF_BYTES (64u << 20)
/* The largest write or read of a TCP stream (tcp.sink, tcp.source), the
 * buffer each side holds for it. A stream's writes are not packets (the
 * kernel cuts them into segments), so max_size does not cap them; this does,
 * on both sides, whatever the peer's owner set. */
#define EP_PEER_MAX_STREAM_IO_BYTES (1u << 20)

enum ep_msg_type {
	EP_MSG_HELLO,
	EP_MSG_WELCOME,
	EP_MSG_ERROR,
	EP_MSG_START,
	EP_MSG_READY,
	EP_MSG_STOP,
	EP_MSG_REPORT,
	EP_MSG_BYE,
	EP_MSG_TYPE_COUNT
};

/* What the peer does in a trial. */
enum ep_net_test {
	EP_TEST_UDP_SINK,   /* receive and count the client's datagrams */
	EP_TEST_UDP_SOURCE, /* send paced datagrams to the client */
	EP_TEST_TCP_SINK,   /* accept one connection, read and discard */
	EP_TEST_TCP_SOURCE, /* accept one connection, write */
	EP_TEST_TCP_RR,     /* accept one connection, answer requests */
	EP_TEST_TCP_CRR,    /* accept connections, answer one request each */
	EP_TEST_UDP_RR,     /* answer each datagram request */
	EP_TEST_L2_SINK,    /* count the client's raw Ethernet frames (layer=l2, l2.h) */
	EP_TEST_L2_SOURCE,  /* send paced raw Ethernet frames to the client */
	EP_TEST_TCP_BOTH,   /* tcp.sink and tcp.source at once, a listener each (minor 1) */
	EP_TEST_COUNT
};

enum ep_pacing { EP_PACING_PRECISE, EP_PACING_BURST, EP_PACING_NONE };

/** struct ep_start - a trial the client asks for (EP_MSG_START). */
struct ep_start {
	enum ep_net_test test;
	uint32_t flow;
	uint32_t size_bytes;     /* UDP payload, request size, TCP stream write size (up to
				  * EP_PEER_MAX_STREAM_IO_BYTES, the others up to max_size),
				  * or l2: the Ethernet frame without its FCS */
	uint32_t response_bytes; /* rr tests */
	double rate_bps;         /* udp.source: payload bits/s; 0 = as fast as it can */
	enum ep_pacing pacing;
	uint32_t burst;          /* pacing burst: packets per burst */
	uint64_t wait_ns;        /* pacing burst: pause after each burst */
	uint32_t batch;          /* datagrams per sendmmsg() */
	uint64_t duration_ns;    /* the peer stops by itself after this */
	uint16_t port;           /* udp.source: the client's data port */
	uint32_t drop_every;     /* udp.sink: discard every Nth datagram (tests) */
	uint64_t count;          /* udp.source: stop after this many datagrams (0: none) */
	uint32_t echo_every;     /* udp.sink: send back the header of every Nth datagram */
	uint32_t nodelay;        /* tcp tests: 1 = TCP_NODELAY on the data socket */
	uint32_t sockbuf_bytes;  /* tcp tests: SO_SNDBUF and SO_RCVBUF; 0 = the system's */
	uint32_t recv_bytes;     /* tcp.sink, tcp.both: bytes per recv(); 0 = 128 KiB */
	uint32_t io_wait;        /* tcp.sink, tcp.source, tcp.both: 1 = poll() before each
				  * send() and recv() (io_wait.h) */
};

/** struct ep_report - what the peer counted in a trial (EP_MSG_REPORT). */
struct ep_report {
	uint32_t flow;
	uint64_t received;     /* distinct counted datagrams, or bytes' writes (tcp) */
	uint64_t bytes;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t expected;     /* sink: highest - lowest sequence + 1 */
	uint64_t sent;         /* source: counted datagrams sent */
	uint64_t dropped;      /* sink: datagrams dropped on purpose (drop_every) */
	double jitter_ns;
	double cpu_process_pct; /* the peer process's CPU load, % of one CPU */
	double cpu_system_pct;  /* the peer host's CPU load, % */
	uint64_t elapsed_ns;
	/* Drops counted on the peer's side over the flow, toward the client
	 * (linkstats.h): which parts were read (EP_LS_* bits), the interface's
	 * root qdisc, the interface, the host's UDP counters. */
	uint32_t ls_have;
	uint64_t ls_qdisc_drops;
	uint64_t ls_tx_dropped, ls_tx_errors;
	uint64_t ls_rx_dropped, ls_rx_errors, ls_rx_over, ls_rx_fifo, ls_rx_missed;
	uint64_t ls_udp_sndbuf, ls_udp_rcvbuf, ls_udp_in_errors, ls_udp_no_ports;
	uint64_t capture_drops; /* l2.sink: frames the capture had no room for */
};

/** struct ep_msg - one control message, decoded and validated. */
struct ep_msg {
	enum ep_msg_type type;
	int proto;              /* hello, welcome */
	int proto_minor;        /* hello, welcome: EP_PROTO_MINOR of the sender (absent: 0) */
	char software[64];      /* hello, welcome: "libembperf 0.3.0" */
	double max_rate_bps;    /* welcome: the peer's limits */
	uint64_t max_duration_ns;
	uint32_t max_size_bytes;
	char code[16];          /* error: "version", "busy", "refused", "invalid", "limit", "failed" */
	char text[256];         /* error: what happened */
	struct ep_start start;  /* start */
	uint16_t port;          /* ready: the peer's data port (tcp.both: of its sink) */
	uint16_t source_port;   /* ready, tcp.both: the port of the peer's source */
	uint32_t flow;          /* ready, stop */
	uint64_t sent;          /* stop: counted datagrams the client sent, or tcp bytes */
	uint64_t ramp_sent;     /* stop, tcp.sink: bytes the client wrote before the measured part */
	struct ep_report report;
};

/** ep_msg_type_name() - "hello", ... */
const char *ep_msg_type_name(enum ep_msg_type type);

/** ep_net_test_name() - "udp.sink", ... */
const char *ep_net_test_name(enum ep_net_test test);

/**
 * ep_msg_parse() - decode and validate one message body (the JSON text).
 * @err: receives what is wrong, for the error reply and the log.
 * Return: 0, or -EBADMSG.
 */
int ep_msg_parse(const char *text, size_t len, struct ep_msg *m, char *err, size_t err_len);

/**
 * ep_msg_encode() - a message as a frame (length prefix + JSON) into @buf.
 * Return: the frame's length, or -EMSGSIZE / -ENOMEM.
 */
int ep_msg_encode(const struct ep_msg *m, unsigned char *buf, size_t cap);

/**
 * struct ep_frame_reader - gathers one frame from a non-blocking socket.
 * @have: bytes in @buf so far (length prefix included).
 */
struct ep_frame_reader {
	size_t have;
	unsigned char buf[4 + EP_MSG_MAX_BYTES];
};

/**
 * ep_frame_read() - read what @fd has towards the next frame.
 * Return: the body's length when a frame is complete (then the body is at
 * @r->buf + 4; call ep_frame_reset() after using it), 0 when more is to
 * come, -EMSGSIZE for a length above EP_MSG_MAX_BYTES or of 0,
 * -ECONNRESET when the other side closed, or another negative errno.
 */
int ep_frame_read(int fd, struct ep_frame_reader *r);

/** ep_frame_reset() - forget the frame just used. */
void ep_frame_reset(struct ep_frame_reader *r);

/**
 * ep_msg_send() - send one message on a blocking or non-blocking socket,
 * waiting at most @timeout_ns for room. Return: 0 or a negative errno.
 */
int ep_msg_send(int fd, const struct ep_msg *m, uint64_t timeout_ns);

/**
 * ep_msg_recv() - wait at most @timeout_ns for the next message on @fd.
 * Return: 0, -ETIMEDOUT, -ECONNRESET (closed), -EBADMSG (invalid: @err says
 * why), -EMSGSIZE, or another negative errno.
 */
int ep_msg_recv(int fd, struct ep_msg *m, uint64_t timeout_ns, char *err, size_t err_len);

#endif /* EMBPERF_NET_PROTO_H */
