/* SPDX-License-Identifier: MIT */
/*
 * udp_io.h - sending and receiving test datagrams in batches
 * (sendmmsg/recvmmsg), for the kernels (client side) and the peer alike.
 */
#ifndef EMBPERF_NET_UDP_IO_H
#define EMBPERF_NET_UDP_IO_H

#include <stdint.h>
#include <sys/socket.h>

#include "wire.h"

#define EP_UDP_MAX_BATCH 64

struct mmsghdr;

/**
 * struct ep_udp_tx - a sender of one flow's datagrams on a connected socket.
 * @fd:         the socket (connected to the receiver).
 * @size_bytes: payload of each datagram.
 * @count:      its flow and counts (wire.h); count.refused: datagrams the
 *              socket refused (ENOBUFS, ECONNREFUSED, ...; not sent),
 *              count.last_errno: the last such error.
 */
struct ep_udp_tx {
	int fd;
	uint32_t size_bytes;
	struct ep_wire_tx_count count;
	unsigned char *bufs;
	struct mmsghdr *msgs;
	struct iovec *iov;
};

/** ep_udp_tx_init() - buffers for @size_bytes datagrams. Return: 0 or -ENOMEM. */
int ep_udp_tx_init(struct ep_udp_tx *tx, int fd, uint32_t size_bytes, uint32_t flow);

/** ep_udp_tx_free() - free the buffers (not the socket). */
void ep_udp_tx_free(struct ep_udp_tx *tx);

/**
 * ep_udp_tx_send() - send up to @n datagrams (n <= EP_UDP_MAX_BATCH), each
 * stamped now; @counted: they belong to the measured part (numbered).
 * Return: datagrams sent (0 when the socket took none: see @refused).
 */
uint32_t ep_udp_tx_send(struct ep_udp_tx *tx, uint32_t n, int counted);

/**
 * struct ep_udp_rx - a receiver of one flow's datagrams.
 * @fd:          the socket.
 * @flow:        datagrams of other flows are ignored (counted in @stray).
 * @drop_every:  discard every Nth counted datagram on purpose (tests; 0: none).
 * @echo_every:  send the header of every Nth counted datagram back to its
 *               sender (round trips; 0: none).
 * @count:       what arrived of the counted datagrams (heap: 8 KiB window).
 * @window:      the measured part by arrival (wire.h; zero: all of them).
 * @ramp:        datagrams of the flow sent, or arrived, before its measured
 *               part.
 * @past_end:    counted datagrams that arrived after @window's end.
 * @unstamped:   datagrams of the flow that came without an arrival stamp:
 *               judged by when they were read (@drained_ns, then now).
 * @stray:       datagrams of other flows or not ours.
 * @dropped:     datagrams discarded by @drop_every.
 * @from:        only datagrams from this address count (set @from_len).
 * @last_ns:     when the last datagram of the flow arrived (ep_now_ns()).
 * @drained_ns:  when the socket was last read empty (ep_now_ns()): what is
 *               read after it arrived after it.
 */
struct ep_udp_rx {
	int fd;
	uint32_t flow;
	uint32_t drop_every;
	uint32_t echo_every;
	struct ep_seq_count *count;
	struct ep_rx_window window;
	uint64_t ramp;
	uint64_t past_end;
	uint64_t unstamped;
	uint64_t stray;
	uint64_t dropped;
	uint64_t seen;
	struct sockaddr_storage from;
	socklen_t from_len;
	uint64_t last_ns;
	uint64_t drained_ns;
	uint32_t size_max;
	unsigned char *bufs;
	struct mmsghdr *msgs;
	struct iovec *iov;
	struct sockaddr_storage *names;
	char *cmsgs;
};

/**
 * ep_udp_rx_init() - buffers for datagrams of up to @size_bytes (longer ones
 * are truncated and counted with their length); asks the socket for arrival
 * time stamps. Return: 0 or -ENOMEM.
 */
int ep_udp_rx_init(struct ep_udp_rx *rx, int fd, uint32_t flow, uint32_t size_bytes);

/** ep_udp_rx_free() - free the buffers (not the socket). */
void ep_udp_rx_free(struct ep_udp_rx *rx);

/**
 * ep_udp_rx_poll() - wait up to @timeout_ms for datagrams and count all the
 * socket has. @counting: 0 to count the flow's datagrams as ramp only (the
 * receiver's own measured part has not begun); 1: those of @rx->window
 * count, by their arrival stamps.
 * Return: datagrams of the flow taken, or a negative errno.
 */
int ep_udp_rx_poll(struct ep_udp_rx *rx, int timeout_ms, int counting);

/**
 * ep_udp_socket() - a UDP socket of @family with large buffers (as root
 * SO_SNDBUFFORCE/SO_RCVBUFFORCE, else what the limits allow).
 * Return: the descriptor or a negative errno.
 */
int ep_udp_socket(int family, int big_buffers);

/**
 * ep_udp_socket_bound() - a UDP socket of ep_udp_socket() bound to the
 * address of @local, on a port the kernel picks.
 * @local:       the address (its port is ignored).
 * @len:         its length.
 * @big_buffers: as for ep_udp_socket().
 * @port:        receives the port bound.
 * Return: the descriptor, or a negative errno (nothing left open).
 */
int ep_udp_socket_bound(const struct sockaddr_storage *local, socklen_t len, int big_buffers,
			uint16_t *port);

#endif /* EMBPERF_NET_UDP_IO_H */
