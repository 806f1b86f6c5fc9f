/* SPDX-License-Identifier: MIT */
/*
 * l2.h - layer=l2 of the UDP generator: raw Ethernet frames of the exact
 * frame size sent with pcap_inject() and counted by a libpcap capture with
 * a filter, on the interface the control connection runs over, for both
 * the kernels (client side) and the peer (doc/methodology-net.md,
 * "layer=l2").
 *
 * A test frame (the FCS is the NIC's, so it is frame - 4 bytes long):
 *
 *   offset  size  field
 *   0       6     destination: the other end's MAC (its IPv4 neighbour entry)
 *   6       6     source: this end's MAC
 *   12      2     EtherType 0x88B5 (IEEE 802 local experimental 1)
 *   14      18    the test header of wire.h (flow, sequence, send time)
 *   32      ...   zero
 *
 * Without libpcap (meson option pcap) every function answers -EOPNOTSUPP
 * with a message saying so.
 */
#ifndef EMBPERF_NET_L2_H
#define EMBPERF_NET_L2_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "wire.h"

#define EP_L2_ETHERTYPE 0x88B5
#define EP_L2_HEADER_BYTES 14
/* The FCS the NIC appends: a frame of `frame` bytes is frame - 4 in memory. */
#define EP_L2_FCS_BYTES 4
/* The smallest Ethernet frame without its FCS (64 - 4). */
#define EP_L2_MIN_BYTES 60

/**
 * struct ep_l2_link - an Ethernet interface opened for raw test frames.
 * @pcap:      the libpcap handle (pcap_t *).
 * @ifname:    the interface that holds the control connection's local address.
 * @mac:       its MAC address.
 * @peer_mac:  the other end's, from the neighbour table.
 * @bytes:     the frames' length without the FCS.
 */
struct ep_l2_link {
	void *pcap;
	char ifname[IF_NAMESIZE];
	unsigned char mac[6];
	unsigned char peer_mac[6];
	uint32_t bytes;
};

/**
 * ep_l2_open() - open the interface whose address is @local for frames of
 * @bytes (without FCS) to and from the host at @peer.
 * @capture: 1: count the peer's test frames (a filter on EtherType and
 *           source MAC, incoming only); 0: only send (the capture takes nothing).
 * @err:     on failure, what and why, fit to follow "layer=l2: ".
 * Return: 0; -EOPNOTSUPP (built without libpcap; an IPv6 peer; loopback or
 * another interface that is not Ethernet), -EPERM (no CAP_NET_RAW),
 * -EHOSTUNREACH (the peer is not in the neighbour table of the interface:
 * not on this Ethernet segment), -EMSGSIZE (@bytes above the MTU + 14 or
 * below 60), or another negative errno.
 */
int ep_l2_open(struct ep_l2_link *l, const struct sockaddr_storage *local,
	       const struct sockaddr_storage *peer, uint32_t bytes, int capture, char *err,
	       size_t err_len);

/** ep_l2_close() - close the handle. Safe on a closed or never opened link. */
void ep_l2_close(struct ep_l2_link *l);

/**
 * ep_l2_capture_drops() - frames the capture's buffer had no room for since
 * it was opened (pcap_stats() ps_drop).
 */
uint64_t ep_l2_capture_drops(const struct ep_l2_link *l);

/**
 * struct ep_l2_tx - a sender of one flow's frames.
 * @count: its flow and counts (wire.h). count.sent: counted frames sent,
 *         those the qdisc refused included (they were offered to the link;
 *         the receiver's sequence numbers show them lost, as a UDP datagram
 *         the qdisc drops is); count.refused: frames the qdisc or device
 *         refused (ENOBUFS); count.last_errno: the last other error of
 *         pcap_inject() (the frame is not sent).
 */
struct ep_l2_tx {
	struct ep_l2_link *link;
	struct ep_wire_tx_count count;
	unsigned char *frame;
};

/** ep_l2_tx_init() - a frame buffer for @flow's frames. Return: 0 or -ENOMEM. */
int ep_l2_tx_init(struct ep_l2_tx *tx, struct ep_l2_link *l, uint32_t flow);

/**
 * ep_l2_tx_send() - send @n frames, each stamped now; @counted: they belong
 * to the measured part (numbered).
 * Return: frames sent (fewer when pcap_inject() failed: see @last_errno).
 */
uint32_t ep_l2_tx_send(struct ep_l2_tx *tx, uint32_t n, int counted);

/** ep_l2_tx_free() - free the buffer (not the link). */
void ep_l2_tx_free(struct ep_l2_tx *tx);

/**
 * struct ep_l2_rx - the count of one flow's frames from a capture.
 * @count:      the counted frames (their lengths in @count->bytes).
 * @window:     the measured part by arrival (wire.h; zero: all of them).
 * @ramp:       frames of the flow sent, or arrived, before its measured part.
 * @past_end:   counted frames that arrived after @window's end.
 * @stray:      frames of other flows, or not ours.
 * @last_ns:    when the last frame of the flow was taken (ep_now_ns()).
 * @now:        the clocks read before the capture was last read (the
 *              capture's stamps are CLOCK_REALTIME).
 */
struct ep_l2_rx {
	struct ep_l2_link *link;
	uint32_t flow;
	int counting;
	struct ep_seq_count *count;
	struct ep_rx_window window;
	uint64_t ramp;
	uint64_t past_end;
	uint64_t stray;
	uint64_t last_ns;
	struct ep_clock_pair now;
};

/** ep_l2_rx_init() - start counting @flow. Return: 0 or -ENOMEM. */
int ep_l2_rx_init(struct ep_l2_rx *rx, struct ep_l2_link *l, uint32_t flow);

/**
 * ep_l2_rx_poll() - wait up to @timeout_ms for frames and count all the
 * capture holds; @counting: 0 to count the flow's frames as ramp only, 1:
 * those of @rx->window count, by the capture's arrival stamps.
 * Return: frames of the flow taken, or a negative errno.
 */
int ep_l2_rx_poll(struct ep_l2_rx *rx, int timeout_ms, int counting);

/** ep_l2_rx_free() - free the count (not the link). */
void ep_l2_rx_free(struct ep_l2_rx *rx);

#endif /* EMBPERF_NET_L2_H */
