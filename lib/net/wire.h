/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the test packets of the network kernels and how a sender and a
 * receiver count them.
 *
 * Every UDP test datagram starts with an 18-byte header, so that the
 * smallest Ethernet frame (64 bytes = 18 bytes of UDP payload + 46 bytes of
 * Ethernet, IPv4 and UDP headers and FCS) still carries it:
 *
 *   offset  size  field
 *   0       1     magic 0xEB
 *   1       1     flags: bit 0 = counted (sent in the measured part)
 *   2       4     flow id (big endian): one per trial, so that late packets
 *                 of an earlier trial are not counted
 *   6       4     sequence number of the counted packets, from 0
 *                 (big endian; ramp packets carry 0)
 *   10      8     send time, ns of the sender's CLOCK_MONOTONIC (big endian)
 *
 * The rest of the payload is zero.
 */
#ifndef EMBPERF_NET_WIRE_H
#define EMBPERF_NET_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define EP_WIRE_HEADER_BYTES 18
#define EP_WIRE_MAGIC 0xEB
#define EP_WIRE_COUNTED 0x01

/* Ethernet frame = UDP payload + 14 (Ethernet) + 20 (IPv4) + 8 (UDP) + 4 (FCS). */
#define EP_WIRE_FRAME_OVERHEAD_BYTES 46
/* On the wire a frame also takes preamble + start delimiter (8) and the gap (12). */
#define EP_WIRE_GAP_BYTES 20
/* Largest UDP payload of IPv4 (65535 - 20 - 8). */
#define EP_WIRE_MAX_PAYLOAD_BYTES 65507

/** struct ep_wire_header - a test packet's header, decoded. */
struct ep_wire_header {
	uint8_t flags;
	uint32_t flow;
	uint32_t seq;
	uint64_t send_ns;
};

/** ep_wire_encode() - write @h into the first EP_WIRE_HEADER_BYTES of @buf. */
void ep_wire_encode(unsigned char *buf, const struct ep_wire_header *h);

/**
 * ep_wire_decode() - read a header.
 * Return: 0, or -EBADMSG when @len is too short or the magic is wrong.
 */
int ep_wire_decode(const unsigned char *buf, size_t len, struct ep_wire_header *h);

/**
 * struct ep_wire_tx_count - what a sender of one flow's test packets counts
 * (struct ep_udp_tx's datagrams, struct ep_l2_tx's raw frames; each says
 * which packets its @refused and @last_errno count).
 * @flow:       the flow id written into each header.
 * @seq:        next counted sequence number.
 * @sent:       counted packets sent.
 * @sent_ramp:  packets sent before the measured part.
 * @refused:    packets refused on the way out.
 * @last_errno: the last error of a send.
 */
struct ep_wire_tx_count {
	uint32_t flow;
	uint32_t seq;
	uint64_t sent;
	uint64_t sent_ramp;
	uint64_t refused;
	int last_errno;
};

/* The receiver keeps a window of the last EP_SEQ_WINDOW sequence numbers to
 * tell duplicates; a packet older than the window counts as late. */
#define EP_SEQ_WINDOW 65536

/**
 * struct ep_seq_count - what a receiver saw of one flow's counted packets.
 * @received:    distinct packets received.
 * @bytes:       their payload bytes.
 * @duplicated:  packets received again.
 * @reordered:   packets that came after one with a higher sequence number
 *               (RFC 4737's reordered packets; a duplicate is not one).
 * @too_old:     packets older than the duplicate window (counted as received
 *               and reordered; they cannot be checked for duplicates).
 * @highest:     highest sequence number seen (valid when @received > 0).
 * @lowest:      lowest sequence number seen.
 * @jitter_ns:   RFC 3550 §6.4.1 interarrival jitter (ns), over arrival order.
 * @last_transit_ns: the last packet's arrival - send time (clock offset included).
 * @window:      bitmap of the last EP_SEQ_WINDOW sequence numbers up to @highest.
 */
struct ep_seq_count {
	uint64_t received;
	uint64_t bytes;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t too_old;
	uint32_t highest;
	uint32_t lowest;
	double jitter_ns;
	int64_t last_transit_ns;
	uint64_t window[EP_SEQ_WINDOW / 64];
};

/** ep_seq_reset() - start counting a new flow. */
void ep_seq_reset(struct ep_seq_count *c);

/**
 * ep_seq_add() - count one packet of the flow.
 * @seq:        its sequence number.
 * @bytes:      its payload bytes.
 * @send_ns:    its send time (sender's clock).
 * @arrival_ns: when it arrived (receiver's clock).
 */
void ep_seq_add(struct ep_seq_count *c, uint32_t seq, uint64_t bytes, uint64_t send_ns,
		uint64_t arrival_ns);

/**
 * ep_seq_expected() - packets the sender sent between the lowest and the
 * highest sequence number seen (RFC 3550 A.3), for a receiver that does not
 * know how many were sent; 0 when none arrived.
 */
uint64_t ep_seq_expected(const struct ep_seq_count *c);

/*
 * A receiver's measured part by the packets' arrival. A receiver that
 * looked late (a descheduled thread) finds what arrived meanwhile queued;
 * read then, it would count in the measured part what arrived before it
 * started, and the rate would read high. The kernel's arrival stamps say
 * on which side of the start and the end each packet came.
 */

/**
 * struct ep_clock_pair - ep_now_ns() and CLOCK_REALTIME (the clock of the
 * kernel's arrival stamps) read together, to carry a stamp's age across.
 */
struct ep_clock_pair {
	uint64_t mono_ns;
	uint64_t real_ns;
};

/** ep_clock_pair_read() - read both clocks as close together as they can be. */
void ep_clock_pair_read(struct ep_clock_pair *p);

/**
 * ep_rx_arrival_ns() - a kernel arrival stamp (CLOCK_REALTIME, ns) on the
 * ep_now_ns() clock: @p's ep_now_ns() less the stamp's age by @p's
 * CLOCK_REALTIME. Only the age crosses between the clocks: their offset
 * does not matter, and NTP's slewing errs by parts per million of the age.
 * A stamp after @p (a packet that came after the reading) is taken as @p.
 */
uint64_t ep_rx_arrival_ns(const struct ep_clock_pair *p, uint64_t stamp_ns);

/**
 * struct ep_rx_window - the measured part by arrival, ep_now_ns() time: a
 * counted packet that arrived before @from_ns belongs to the ramp, one that
 * arrived at or after @until_ns to after the end (@until_ns 0: no end yet).
 * All zero: every packet counts (the peer's sink counts what the sender
 * marked counted).
 */
struct ep_rx_window {
	uint64_t from_ns;
	uint64_t until_ns;
};

/**
 * ep_rx_window_place() - where a packet that arrived some time in
 * [@first_ns, @last_ns] (ep_now_ns() time; one instant when the kernel
 * stamped it) falls: it counts only when surely inside @w.
 * Return: 0 inside, -1 before @w (possibly), 1 after it (possibly).
 */
int ep_rx_window_place(const struct ep_rx_window *w, uint64_t first_ns, uint64_t last_ns);

/**
 * ep_rx_window_left_out() - ep_rx_window_place() for a receiver: a packet
 * before @w is added to *@ramp, one after it to *@past_end.
 * Return: 1 when the packet is left out of the count, 0 when it counts.
 */
int ep_rx_window_left_out(const struct ep_rx_window *w, uint64_t first_ns, uint64_t last_ns,
			  uint64_t *ramp, uint64_t *past_end);

#endif /* EMBPERF_NET_WIRE_H */
