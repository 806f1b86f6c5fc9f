/* SPDX-License-Identifier: MIT */
/*
 * linkstats.h - where packets are lost: the counters of a network
 * interface and of its root qdisc (libnl-route-3), the host's UDP counters
 * (/proc/net/snmp and snmp6) and a socket's receive-queue drops
 * (SO_RXQ_OVFL), read before and after a trial, subtracted, and turned into
 * an attribution of a loss count to the places that dropped it.
 *
 * Every reading is of the network namespace of the calling thread at the
 * time of the call (netlink sockets and /proc/net follow it).
 * doc/methodology-net.md, "Where packets are lost", says what each place
 * counts and what it cannot see.
 *
 * Without libnl (option -Dlibnl=disabled) the functions that need it
 * return -EOPNOTSUPP with a message; the /proc and socket helpers work.
 */
#ifndef EMBPERF_NET_LINKSTATS_H
#define EMBPERF_NET_LINKSTATS_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/**
 * struct ep_link_counters - an interface's counters (struct
 * rtnl_link_stats64 of the kernel; if_link.h documents each).
 * @rx_over_errors, @rx_fifo_errors: receive ring overflows (drivers use
 *     either; not necessarily one per packet).
 * @rx_missed_errors: packets the device dropped for want of host buffers.
 */
struct ep_link_counters {
	uint64_t rx_packets, tx_packets;
	uint64_t rx_bytes, tx_bytes;
	uint64_t rx_dropped, tx_dropped;
	uint64_t rx_errors, tx_errors;
	uint64_t rx_over_errors, rx_fifo_errors, rx_missed_errors;
	uint64_t rx_crc_errors, rx_frame_errors, rx_length_errors;
	uint64_t tx_fifo_errors, tx_carrier_errors, tx_aborted_errors;
};

/**
 * struct ep_qdisc_counters - the root qdisc's counters (tc -s qdisc).
 * @kind:       "tbf", "htb", "pfifo_fast", ...; "" when the interface has
 *              no root qdisc (veth's default is noqueue).
 * @handle:     its handle (major:minor as one number).
 * @packets, @bytes: what it sent on.
 * @drops:      packets it dropped (queue full, over the shaping limit).
 * @overlimits: times a packet was held back by the shaping.
 * @backlog_bytes, @qlen: what it holds now (gauges, not counters).
 */
struct ep_qdisc_counters {
	char kind[32];
	uint32_t handle;
	uint64_t packets, bytes;
	uint64_t drops, overlimits;
	uint64_t backlog_bytes, qlen;
};

/**
 * struct ep_udp_counters - the host's UDP counters, IPv4 and IPv6 summed
 * (/proc/net/snmp "Udp:", /proc/net/snmp6 "Udp6...").
 * @in_datagrams:  delivered to a socket.
 * @no_ports:      arrived for a port nobody listens on (a trial's late
 *                 packets after its socket closed land here).
 * @in_errors:     not delivered: includes @rcvbuf_errors and checksum errors.
 * @rcvbuf_errors: dropped because a socket's receive buffer was full.
 * @out_datagrams: sent.
 * @sndbuf_errors: not sent because a socket's send buffer was full.
 */
struct ep_udp_counters {
	uint64_t in_datagrams, no_ports, in_errors, rcvbuf_errors;
	uint64_t out_datagrams, sndbuf_errors;
};

/* What a snapshot holds (struct ep_linkstats @have). */
enum {
	EP_LS_LINK = 1 << 0,  /* @link: the interface was read */
	EP_LS_QDISC = 1 << 1, /* @qdisc: the interface has a root qdisc */
	EP_LS_UDP = 1 << 2,   /* @udp: the host's UDP counters were read */
};

/**
 * struct ep_linkstats - one snapshot (or, from ep_linkstats_diff(), the
 * change between two).
 * @ifname:  the interface ("" for a snapshot of the UDP counters alone).
 * @ifindex: its index in the namespace (0 without an interface).
 * @have:    EP_LS_* bits: which parts hold values.
 * @link, @qdisc, @udp: the counters.
 * @taken_ns: when it was taken (CLOCK_MONOTONIC); for a difference, the
 *           time between the two.
 */
struct ep_linkstats {
	char ifname[IF_NAMESIZE];
	int ifindex;
	unsigned int have;
	struct ep_link_counters link;
	struct ep_qdisc_counters qdisc;
	struct ep_udp_counters udp;
	uint64_t taken_ns;
};

struct ep_linkstats_src;

/**
 * ep_linkstats_open() - open a netlink route socket in the calling thread's
 * network namespace; later reads through it see that namespace, wherever
 * the thread is then.
 * @src:  set to the handle (free with ep_linkstats_close()).
 * @err:  a message on failure (may be NULL when @err_size is 0).
 * Return: 0, -EOPNOTSUPP (built without libnl), -ENOMEM, or the socket's error.
 */
int ep_linkstats_open(struct ep_linkstats_src **src, char *err, size_t err_size);

/** ep_linkstats_close() - free a handle. NULL is a no-op. */
void ep_linkstats_close(struct ep_linkstats_src *src);

/**
 * ep_linkstats_read() - snapshot interface @ifname, its root qdisc and the
 * host's UDP counters (the UDP counters of the calling thread's namespace).
 * @ifname: the interface, e.g. "eth0"; NULL or "" reads the UDP counters alone.
 * Return: 0, -ENODEV (no such interface; the message names it and the
 * namespace's interfaces), -EINVAL (a name longer than IF_NAMESIZE - 1),
 * -EOPNOTSUPP, or a netlink error turned into an errno.
 */
int ep_linkstats_read(struct ep_linkstats_src *src, const char *ifname,
		      struct ep_linkstats *out, char *err, size_t err_size);

/**
 * ep_linkstats_diff() - @after minus @before into @delta: counters are
 * subtracted (a counter that went down - the interface was re-created -
 * counts from 0), gauges (backlog, qlen) and names are @after's, @have is
 * what both hold.
 * Return: 0, or -EINVAL when the snapshots are of different interfaces
 * (name or index) or @after was taken before @before.
 */
int ep_linkstats_diff(const struct ep_linkstats *before, const struct ep_linkstats *after,
		      struct ep_linkstats *delta);

/**
 * ep_linkstats_iface_for_addr() - the interface the route to @addr leaves
 * by, in the calling thread's namespace (the kernel's route lookup, as
 * `ip route get ADDR`).
 * @addr:   a numeric IPv4 or IPv6 address ("198.18.0.2", "::1").
 * @ifname: set to the interface name; at least IF_NAMESIZE bytes.
 * Return: 0, -EINVAL (not a numeric address), -ENETUNREACH (no route),
 * -EOPNOTSUPP, or a netlink error turned into an errno.
 */
int ep_linkstats_iface_for_addr(struct ep_linkstats_src *src, const char *addr,
				char *ifname, size_t ifname_size, char *err, size_t err_size);

/**
 * ep_udp_counters_read() - the host's UDP counters (calling thread's
 * namespace). Works without libnl.
 * Return: 0, or the errno of reading /proc/net/snmp.
 */
int ep_udp_counters_read(struct ep_udp_counters *out, char *err, size_t err_size);

/**
 * ep_sock_rxq_ovfl_enable() - ask the kernel to attach to every datagram
 * received on @fd the count of datagrams the socket dropped so far
 * (SO_RXQ_OVFL; Linux 2.6.33).
 * Return: 0 or -errno of setsockopt().
 */
int ep_sock_rxq_ovfl_enable(int fd);

/**
 * ep_sock_rxq_ovfl() - the drop count attached to a received message (see
 * ep_sock_rxq_ovfl_enable()): the socket's drops since it was created, a
 * 32-bit counter that wraps. Give recvmsg()/recvmmsg() a control buffer of
 * at least CMSG_SPACE(sizeof(uint32_t)) bytes.
 * Return: 1 with *@drops set, 0 when the message carries none (the kernel
 * attaches it only once the socket has dropped something).
 */
int ep_sock_rxq_ovfl(const struct msghdr *msg, uint32_t *drops);

/* Places a loss is attributed to (struct ep_loss_attribution @at). */
enum ep_loss_place {
	EP_LOSS_SENDER_SOCKET,   /* sender's UDP send buffer (SndbufErrors) */
	EP_LOSS_SENDER_QDISC,    /* sender's root qdisc drops */
	EP_LOSS_SENDER_NIC,      /* sender interface tx_dropped + tx_errors */
	EP_LOSS_RECEIVER_NIC,    /* receiver interface rx_dropped, missed, over, fifo, errors */
	EP_LOSS_RECEIVER_SOCKET, /* receiver's socket buffer (SO_RXQ_OVFL or RcvbufErrors) */
	EP_LOSS_RECEIVER_UDP,    /* receiver's other UDP errors (checksum: InErrors - RcvbufErrors) */
	EP_LOSS_RECEIVER_NO_PORT, /* arrived with no socket to take it (NoPorts) */
	EP_LOSS_PLACES,
};

/**
 * struct ep_loss_inputs - what one trial's attribution is made from; any
 * part may be missing (NULL or ~0): the side that was not read is then
 * "not read" in the text, and its loss is unattributed.
 * @lost:        packets lost (sent - received), the number to explain.
 * @sender:      change of the sender's snapshot over the trial, or NULL.
 * @receiver:    change of the receiver's snapshot over the trial, or NULL.
 * @socket_drops: the receiving socket's own drops over the trial (from
 *               SO_RXQ_OVFL), or UINT64_MAX when not known: then the
 *               host's RcvbufErrors stand for them.
 */
struct ep_loss_inputs {
	uint64_t lost;
	const struct ep_linkstats *sender;
	const struct ep_linkstats *receiver;
	uint64_t socket_drops;
};

/**
 * struct ep_loss_attribution - a loss count split among places.
 * @lost:         the loss to explain.
 * @at:           per place, the drops counted there (EP_LOSS_*).
 * @read:         per place, 1 when its counter was read.
 * @unattributed: @lost minus what the places explain (0 when they explain
 *                it all or more).
 * @excess:       what the places counted beyond @lost (other traffic
 *                through the same interface or host counters, or packets
 *                counted in two places).
 */
struct ep_loss_attribution {
	uint64_t lost;
	uint64_t at[EP_LOSS_PLACES];
	unsigned char read[EP_LOSS_PLACES];
	uint64_t unattributed;
	uint64_t excess;
};

/**
 * ep_loss_attribute() - attribute @in->lost to the places that counted
 * drops over the trial.
 */
void ep_loss_attribute(const struct ep_loss_inputs *in, struct ep_loss_attribution *out);

/**
 * ep_loss_place_name() - a place's counter name ("sender_qdisc_drops", ...),
 * fit for a kernel counter; NULL for an unknown place.
 */
const char *ep_loss_place_name(enum ep_loss_place place);

/**
 * ep_loss_attribution_text() - one line for a human: "lost 120 of the
 * trial: sender qdisc 118, receiver socket buffer 2; receiver NIC not read".
 * Return: the length the text needs (as snprintf()).
 */
int ep_loss_attribution_text(const struct ep_loss_attribution *a, char *buf, size_t size);

#endif /* EMBPERF_NET_LINKSTATS_H */
